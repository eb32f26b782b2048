/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: congestion control (RoCEv2 ECN, IBTA Annex A17): the
 * parameters of a device, the reaction point's DCQCN state of a QP, and
 * what the runner and the requester call (cc.c). Parameter names and
 * defaults are the ones ConnectX NICs document for their DCQCN.
 */
#ifndef SIB_CC_H
#define SIB_CC_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/*
 * X(id, name, default, min, max, unit): one list makes the enum, the
 * names netlink and sib-cc use, the defaults and the bounds.
 */
#define SIB_CC_PARAM_LIST(X)						\
	X(ECN_ENABLE,		"ecn_enable",		1, 0, 1, "bool")	\
	X(NP_ENABLE,		"np_enable",		1, 0, 1, "bool")	\
	X(RP_ENABLE,		"rp_enable",		1, 0, 1, "bool")	\
	X(NP_MIN_TIME_BETWEEN_CNPS, "np_min_time_between_cnps", 4, 0, 10000000, "us") \
	X(NP_CNP_DSCP,		"np_cnp_dscp",		48, 0, 63, "dscp")	\
	X(NP_CNP_PRIO,		"np_cnp_prio",		6, 0, 7, "prio")	\
	X(RP_INITIAL_ALPHA_VALUE, "rp_initial_alpha_value", 1023, 0, 1023, "1/1024") \
	X(RP_DCE_TCP_G,		"rp_dce_tcp_g",		1019, 0, 1023, "1/1024") \
	X(RP_DCE_TCP_RTT,	"rp_dce_tcp_rtt",	1, 1, 10000000, "us")	\
	X(RP_TIME_RESET,	"rp_time_reset",	300, 1, 10000000, "us")	\
	X(RP_BYTE_RESET,	"rp_byte_reset",	32767, 1, 0x7fffffff, "bytes") \
	X(RP_THRESHOLD,		"rp_threshold",		1, 1, 31, "events") \
	X(RP_AI_RATE,		"rp_ai_rate",		5, 1, 1000000, "Mbps")	\
	X(RP_HAI_RATE,		"rp_hai_rate",		50, 1, 1000000, "Mbps")	\
	X(RP_MIN_RATE,		"rp_min_rate",		1, 1, 1000000, "Mbps")	\
	X(RP_MIN_DEC_FAC,	"rp_min_dec_fac",	50, 1, 100, "%")	\
	X(RP_RATE_REDUCE_MONITOR_PERIOD, "rp_rate_reduce_monitor_period", 4, 0, 10000000, "us") \
	X(RP_RATE_TO_SET_ON_FIRST_CNP, "rp_rate_to_set_on_first_cnp", 0, 0, 1000000, "Mbps") \
	X(RP_MAX_RATE,		"rp_max_rate",		10000, 1, 1000000, "Mbps")

#define SIB_CC_ENUM(id, name, def, lo, hi, unit) SIB_CC_##id,
enum sib_cc_param {
	SIB_CC_PARAM_LIST(SIB_CC_ENUM)
	SIB_CC_NUM_PARAMS
};
#undef SIB_CC_ENUM

/*
 * struct sib_cc_rp - the DCQCN reaction point of one QP (RC, UC)
 *
 * Owned by the QP's run (part of struct sib_req_state, cleared with it
 * when the QP is reset). Rates in Mbit/s, alpha in 1/1024.
 * @limited: a CNP was handled and the rate has not yet climbed back to
 *	     rp_max_rate; while false nothing below is used and the
 *	     requester sends at full speed
 * @rc: current rate
 * @rt: target rate
 * @alpha: congestion estimate
 * @t_stage: rate-increase timer events since the last cut
 * @b_stage: byte-counter events since the last cut
 * @bytes: bytes sent towards the next byte-counter event
 * @cut_ns: time of the last cut (rp_rate_reduce_monitor_period)
 * @alpha_ns: start of the running alpha period (rp_dce_tcp_rtt)
 * @timer_ns: start of the running rate-increase period (rp_time_reset)
 * @tokens: pacing credit in bytes, may be negative by one packet
 * @tok_ns: time of the last credit refill
 * @tx_seen: sib_qp.cc_tx_bytes already charged
 */
struct sib_cc_rp {
	bool limited;
	u32 rc;
	u32 rt;
	u32 alpha;
	u32 t_stage;
	u32 b_stage;
	u64 bytes;
	u64 cut_ns;
	u64 alpha_ns;
	u64 timer_ns;
	s64 tokens;
	u64 tok_ns;
	u64 tx_seen;
};

/* what a DCQCN step did (the rate-change tracepoint's reason) */
enum sib_cc_change {
	SIB_CC_CUT,		/* CNP: rate reduced */
	SIB_CC_FAST_RECOVERY,
	SIB_CC_ADDITIVE,
	SIB_CC_HYPER,
	SIB_CC_FULL,		/* back at rp_max_rate: no more limiting */
};

/*
 * most credit a limited QP may save up (sib_cc_burst()): 1 ms of its rate
 * (SIB_CC_BURST_RATE_BYTES bytes per Mbit/s), but at least a few packets,
 * so that a slow QP does not arm a timer per packet, and at most
 * SIB_CC_BURST_BYTES
 */
#define SIB_CC_BURST_BYTES	16384
#define SIB_CC_BURST_MIN_BYTES	4096
#define SIB_CC_BURST_RATE_BYTES	125
/* outer headers net.c adds after the pacing decision (IPv6 + UDP + VLAN) */
#define SIB_CC_WIRE_HDR_BYTES	64

struct sib_dev;
struct sib_qp;
struct sk_buff;

void sib_cc_dev_init(struct sib_dev *dev);
int sib_cc_param_find(const char *name);
const char *sib_cc_param_name(unsigned int p);
const char *sib_cc_param_unit(unsigned int p);
int sib_cc_param_set(struct sib_dev *dev, unsigned int p, u32 val);

bool sib_dcqcn_cut(struct sib_cc_rp *rp, const u32 *prm, u64 now);
int sib_dcqcn_advance(struct sib_cc_rp *rp, const u32 *prm, u64 now,
		      u64 sent, void (*chg)(void *ctx, struct sib_cc_rp *rp,
					    enum sib_cc_change why),
		      void *ctx);
u32 sib_cc_burst(u32 rate);
u64 sib_cc_credit(struct sib_cc_rp *rp, u64 now, u64 sent);
bool sib_cc_credit_ends(const struct sib_cc_rp *rp, u64 unpaid, u32 len);

/**
 * sib_cc_rp_type() - does a QP of this type have a reaction point?
 * @type: the type of the QP a CNP names
 *
 * Every QP that sends requests: RC, UC, UD and XRC initiators. A UD QP
 * has one rate for all of its destinations. QP0 and QP1 are never
 * limited.
 * Context: any. Return: true when a CNP cuts the QP's rate.
 */
static inline bool sib_cc_rp_type(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC || type == IB_QPT_UD ||
	       type == IB_QPT_XRC_INI;
}

void sib_cc_np_ce(struct sib_qp *qp, struct sk_buff *skb);
void sib_cc_rp_cnp(struct sib_qp *qp);
bool sib_cc_may_send(struct sib_qp *qp);
bool sib_cc_pause_ahead(struct sib_qp *qp, u32 len);

#endif /* SIB_CC_H */
