/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib tracepoints: QP state changes, packets sent and received,
 * retransmissions and completions. Enable with
 *   echo 1 > /sys/kernel/tracing/events/softib/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM softib

#if !defined(SIB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SIB_TRACE_H

#include <linux/tracepoint.h>
#include "compat.h"

TRACE_EVENT(sib_qp_state,
	TP_PROTO(u32 qpn, int old, int new),
	TP_ARGS(qpn, old, new),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, old)
		__field(int, new)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("qp %u: state %d -> %d", __entry->qpn, __entry->old,
		  __entry->new)
);

DECLARE_EVENT_CLASS(sib_pkt_class,
	TP_PROTO(u32 qpn, u8 opcode, u32 psn, u32 len),
	TP_ARGS(qpn, opcode, psn, len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u8, opcode)
		__field(u32, psn)
		__field(u32, len)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->opcode = opcode;
		__entry->psn = psn;
		__entry->len = len;
	),
	TP_printk("dest qp %u opcode 0x%02x psn 0x%06x len %u", __entry->qpn,
		  __entry->opcode, __entry->psn, __entry->len)
);

DEFINE_EVENT(sib_pkt_class, sib_pkt_xmit,
	TP_PROTO(u32 qpn, u8 opcode, u32 psn, u32 len),
	TP_ARGS(qpn, opcode, psn, len));

DEFINE_EVENT(sib_pkt_class, sib_pkt_rcv,
	TP_PROTO(u32 qpn, u8 opcode, u32 psn, u32 len),
	TP_ARGS(qpn, opcode, psn, len));

/* reason: enum sib_cc_change (0 cut, 1 fast recovery, 2 additive, 3 hyper, 4 full) */
TRACE_EVENT(sib_cc_rate,
	TP_PROTO(u32 qpn, int reason, u32 rc, u32 rt, u32 alpha),
	TP_ARGS(qpn, reason, rc, rt, alpha),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, reason)
		__field(u32, rc)
		__field(u32, rt)
		__field(u32, alpha)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->reason = reason;
		__entry->rc = rc;
		__entry->rt = rt;
		__entry->alpha = alpha;
	),
	TP_printk("qp %u: reason %d rate %u Mbps target %u Mbps alpha %u/1024",
		  __entry->qpn, __entry->reason, __entry->rc, __entry->rt,
		  __entry->alpha)
);

TRACE_EVENT(sib_retransmit,
	TP_PROTO(u32 qpn, u32 psn, const char *why),
	TP_ARGS(qpn, psn, why),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, psn)
		__string(why, why)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->psn = psn;
		SIB_TRACE_ASSIGN_STR(why, why);
	),
	TP_printk("qp %u: resend from psn 0x%06x (%s)", __entry->qpn,
		  __entry->psn, __get_str(why))
);

TRACE_EVENT(sib_cqe,
	TP_PROTO(u32 cqn, u32 qpn, u64 wr_id, u8 status, u8 opcode),
	TP_ARGS(cqn, qpn, wr_id, status, opcode),
	TP_STRUCT__entry(
		__field(u32, cqn)
		__field(u32, qpn)
		__field(u64, wr_id)
		__field(u8, status)
		__field(u8, opcode)
	),
	TP_fast_assign(
		__entry->cqn = cqn;
		__entry->qpn = qpn;
		__entry->wr_id = wr_id;
		__entry->status = status;
		__entry->opcode = opcode;
	),
	TP_printk("cq %u qp %u wr_id 0x%llx status %u opcode %u",
		  __entry->cqn, __entry->qpn, __entry->wr_id, __entry->status,
		  __entry->opcode)
);

/*
 * sib_comp_handler - a kernel CQ's completion handler is called, on the
 * CPU of its completion vector (the event's CPU; the local one only when
 * that CPU is offline): @queued when it was handed there from another CPU
 * (counter comp_handler_queued). User CQs' handlers have no event.
 */
TRACE_EVENT(sib_comp_handler,
	TP_PROTO(u32 cqn, u32 vector, bool queued),
	TP_ARGS(cqn, vector, queued),
	TP_STRUCT__entry(
		__field(u32, cqn)
		__field(u32, vector)
		__field(bool, queued)
	),
	TP_fast_assign(
		__entry->cqn = cqn;
		__entry->vector = vector;
		__entry->queued = queued;
	),
	TP_printk("cq %u vector %u%s", __entry->cqn, __entry->vector,
		  __entry->queued ? " queued" : "")
);

#endif /* SIB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
