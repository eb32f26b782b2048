/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_QPCORE_H
#define SIB_QPCORE_H

#include "softib.h"

struct sib_qp *sib_qp_get(struct sib_dev *dev, u32 qpn);
void sib_qp_put(struct sib_qp *qp);
void sib_qp_set_state(struct sib_qp *qp, enum ib_qp_state new);
void sib_qp_error(struct sib_qp *qp, enum ib_event_type ev);
void sib_qp_sqd_check(struct sib_qp *qp, bool busy);
void sib_qp_flush(struct sib_qp *qp);
bool sib_opcode_ok(struct sib_qp *qp, u8 op);
void sib_sq_fetch(struct sib_qp *qp);
u32 sib_sq_prod(struct sib_qp *qp);
int sib_rq_fetch(struct sib_qp *qp, struct sib_rwqe *rw);
void sib_qp_send_cqe(struct sib_qp *qp, struct sib_swqe *sw, u8 status);
void sib_qp_recv_cqe(struct sib_qp *qp, struct sib_cqe *cqe, bool solicited);

/* bind, local invalidate, fast registration: no payload, nothing sent */
static inline bool sib_is_local_op(u8 op)
{
	return op == IB_WR_BIND_MW || op == IB_WR_LOCAL_INV || op == IB_WR_REG_MR;
}

static inline bool sib_is_atomic(u8 op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP || op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* a shadow WQE before it is filled in */
static inline void sib_swqe_reset(struct sib_swqe *sw)
{
	sw->status = IB_WC_SUCCESS;
	sw->total_len = 0;
	sw->first_psn = 0;
	sw->last_psn = 0;
	sw->npkts = 0;
	sw->read_pkts = 0;
	sw->counted_rd = 0;
	sw->internal = 0;
}

/**
 * sib_sq_may_post() - does the QP's state take send WRs?
 * @qp: QP
 *
 * RESET, INIT and RTR refuse them (IBTA 10.3.1).
 * Context: any. Return: true in RTS, SQD, SQE and ERR.
 */
static inline bool sib_sq_may_post(struct sib_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	return state != IB_QPS_RESET && state != IB_QPS_INIT &&
	       state != IB_QPS_RTR;
}

/**
 * sib_qp_is_ud() - datagram QP (UD, GSI or SMI: per-WR address, DETH)?
 * @qp: QP
 *
 * Context: any. Return: true for UD, GSI and SMI (QP0, InfiniBand
 * devices only) QPs.
 */
static inline bool sib_qp_is_ud(const struct sib_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI ||
	       qp->ibqp.qp_type == IB_QPT_SMI;
}

/**
 * sib_sq_sent_end() - one past the newest send WQE whose packets were sent
 * @qp: QP
 *
 * After a go-back of an RC or XRC requester sq.req is behind the newest
 * WQE ever started (req.sq_hi); other QPs never go back.
 * Context: the QP's run. Return: a free-running WQE index.
 */
static inline u32 sib_sq_sent_end(const struct sib_qp *qp)
{
	u32 hi = qp->req.sq_hi;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_XRC_INI)
		return qp->sq.req;
	return (s32)(hi - qp->sq.req) > 0 ? hi : qp->sq.req;
}

/**
 * sib_sq_outstanding() - are sent messages still to be completed?
 * @qp: QP
 *
 * A message being sent, or one sent and not yet acknowledged, also when
 * a go-back made the requester send it again (in SQD too, IBTA 10.3.1:
 * the send queue is drained once they are acknowledged).
 * Context: the QP's run. Return: true when so.
 */
static inline bool sib_sq_outstanding(const struct sib_qp *qp)
{
	return qp->sq.comp != sib_sq_sent_end(qp) || qp->req.off;
}

/**
 * sib_swqe_at() - shadow send WQE number @idx
 * @qp: QP
 * @idx: free-running index
 *
 * Context: any. Return: pointer into the kernel-private shadow.
 */
static inline struct sib_swqe *sib_swqe_at(struct sib_qp *qp, u32 idx)
{
	return (struct sib_swqe *)((u8 *)qp->sq.shadow +
		(size_t)(idx & (qp->sq.num - 1)) * qp->sq.sstride);
}

/**
 * sib_qp_state() - current QP state
 * @qp: QP
 *
 * Inline: the engines ask several times per packet.
 * Context: any. Return: the state (a snapshot).
 */
static inline enum ib_qp_state sib_qp_state(struct sib_qp *qp)
{
	return READ_ONCE(qp->state);
}

/**
 * sib_qp_pkey() - the P_Key @qp puts into the BTH of its packets
 * @qp: QP
 *
 * The entry of the port's table at the QP's pkey_index, read for every
 * packet: a changed entry applies from the next packet on, an entry
 * removed after modify_qp gives 0, which sib_pkt_xmit() does not send.
 * Context: any. Return: the P_Key or 0.
 */
static inline u16 sib_qp_pkey(struct sib_qp *qp)
{
	return sib_pkey_at(&qp->dev->pkey, READ_ONCE(qp->pkey_index));
}

/**
 * sib_qp_pkey_ud() - the P_Key of a UD or GSI send
 * @qp: UD or GSI QP
 * @sw: the send WQE
 *
 * QP1 sends with the P_Key index of each WR (IBTA 13.5.3: GSI replies
 * use the P_Key of the request), other QPs with their own.
 * Context: the QP's work. Return: the P_Key or 0.
 */
static inline u16 sib_qp_pkey_ud(struct sib_qp *qp, const struct sib_swqe *sw)
{
	if ((qp->ibqp.qp_type == IB_QPT_GSI ||
	     qp->ibqp.qp_type == IB_QPT_SMI) && !qp->is_user)
		return sib_pkey_at(&qp->dev->pkey, sw->pkey_index);
	return sib_qp_pkey(qp);
}

#endif
