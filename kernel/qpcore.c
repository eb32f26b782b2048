// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the QP core the engines use, below them and below the verbs of
 * qp.c: finding and referencing a QP, the one state variable and the one
 * function that changes it, the error state and flushing to it, the SQD
 * drain event, the send and receive queue copies (user WQEs copied once
 * into the kernel-private shadow and validated there), and the CQE
 * builders. Nothing here runs an engine or the runner: what needs a
 * round asks for one through sched.c.
 */
#include <rdma/ib_cache.h>

#include "qpcore.h"
#include "tm.h"
#include "psn.h"
#include "queue.h"
#include "ah.h"
#include "cq.h"
#include "srq.h"
#include "sched.h"
#include "hdr.h"
#include "trace.h"

/**
 * sib_qp_get() - find a QP by number and reference it
 * @dev: device
 * @qpn: QP number from the wire (untrusted)
 *
 * Context: any but hardirq. Return: the QP (release with sib_qp_put())
 * or NULL.
 */
struct sib_qp *sib_qp_get(struct sib_dev *dev, u32 qpn)
{
	struct sib_qp *qp;

	xa_lock_bh(&dev->qp_xa);
	qp = xa_load(&dev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_bh(&dev->qp_xa);
	return qp;
}

/**
 * sib_qp_put() - drop a reference from sib_qp_get()
 * @qp: QP
 *
 * Context: any.
 */
void sib_qp_put(struct sib_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/**
 * sib_qp_set_state() - the only place qp->state changes
 * @qp: QP
 * @new: the new state, a transition the caller checked
 *
 * Sets what entering RTS or RTR starts from (PSNs, retry counters) and
 * fires the sib_qp_state tracepoint. The send PSN starts at sq_psn only
 * when RTS is entered from RTR: back from SQD or SQE the requester goes
 * on where it was (those modifies take no SQ PSN), or the responder
 * would take new requests for duplicates and ACK them unseen.
 * Context: any, qp->state_lock held.
 */
void sib_qp_set_state(struct sib_qp *qp, enum ib_qp_state new)
{
	lockdep_assert_held(&qp->state_lock);
	trace_sib_qp_state(qp->ibqp.qp_num, qp->state, new);
	if (new == IB_QPS_RTS && qp->state == IB_QPS_RTR) {
		qp->req.psn = qp->sq_psn;
		qp->comp.acked_psn = sib_psn_add(qp->sq_psn, SIB_PSN_MASK);
	}
	if (new == IB_QPS_RTS && qp->state != IB_QPS_RTS) {
		qp->comp.retry_left = qp->retry_cnt;
		qp->comp.rnr_left = qp->rnr_retry;
	}
	if (new == IB_QPS_RTR && qp->state != IB_QPS_RTR)
		qp->resp.epsn = qp->rq_psn;
	qp->sq_draining = new == IB_QPS_SQD;
	/* receives posted in ERR come with a doorbell (softib-abi.h) */
	if (qp->rq.ring.user && qp->rq.ring.hdr && new != qp->state &&
	    (new == IB_QPS_ERR || qp->state == IB_QPS_ERR)) {
		WRITE_ONCE(qp->rq.ring.hdr->qp_error, new == IB_QPS_ERR);
		smp_mb();	/* before the run that flushes loads producer */
	}
	WRITE_ONCE(qp->state, new);
}

/**
 * sib_qp_sqd_check() - report the end of draining in the SQD state
 * @qp: QP
 * @busy: sends are still in flight
 *
 * Once no send is in flight any more, sq_draining clears and, when asked
 * for, IB_EVENT_SQ_DRAINED is raised (IBTA 11.6.3.1).
 * Context: the QP's run.
 */
void sib_qp_sqd_check(struct sib_qp *qp, bool busy)
{
	struct ib_event e = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_SQ_DRAINED,
	};
	bool notify;

	spin_lock_irq(&qp->state_lock);
	notify = qp->state == IB_QPS_SQD && qp->sq_draining && !busy;
	if (notify)
		qp->sq_draining = false;
	spin_unlock_irq(&qp->state_lock);
	if (notify && qp->en_sqd_async_notify && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&e, qp->ibqp.qp_context);
}

/**
 * sib_qp_error() - move the QP to the error state (IBTA 10.3.1)
 * @qp: QP
 * @ev: asynchronous event to raise, or 0 for none
 *
 * Outstanding work requests are flushed by the QP's work.
 * Context: any.
 */
void sib_qp_error(struct sib_qp *qp, enum ib_event_type ev)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state != IB_QPS_RESET)
		sib_qp_set_state(qp, IB_QPS_ERR);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (ev && qp->ibqp.event_handler) {
		struct ib_event e = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = ev,
		};

		qp->ibqp.event_handler(&e, qp->ibqp.qp_context);
	}
	sib_qp_kick(qp);
}

/*
 * A completion of @qp was lost to a full CQ (sib_cq_post() raised
 * IB_EVENT_CQ_ERR): the QP must not go on consuming WQEs whose
 * completions nobody will see, so it goes to the error state (the CQ's
 * event names the cause; its flush completions are lost too while the
 * CQ stays full).
 */
static void sib_qp_cq_overrun(struct sib_qp *qp)
{
	if (sib_qp_state(qp) != IB_QPS_ERR)
		sib_qp_error(qp, 0);
}

/**
 * sib_opcode_ok() - does the QP's transport take this send opcode?
 * @qp: QP
 * @op: IB_WR_* opcode from a WR or a user WQE (untrusted)
 *
 * Context: any. Return: true when @qp's type may post @op.
 */
bool sib_opcode_ok(struct sib_qp *qp, u8 op)
{
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		/* BIND_MW and ATOMIC_WRITE: user only; REG_MR: kernel only */
		if (op == IB_WR_BIND_MW || op == SIB_WR_ATOMIC_WRITE)
			return qp->is_user;
		if (op == IB_WR_REG_MR)
			return !qp->is_user;
		return op == IB_WR_RDMA_WRITE || op == IB_WR_RDMA_WRITE_WITH_IMM ||
		       op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM ||
		       op == IB_WR_RDMA_READ || op == IB_WR_ATOMIC_CMP_AND_SWP ||
		       op == IB_WR_ATOMIC_FETCH_AND_ADD ||
		       op == IB_WR_SEND_WITH_INV || op == IB_WR_LOCAL_INV;
	}
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI)
		return op == IB_WR_RDMA_WRITE || op == IB_WR_RDMA_WRITE_WITH_IMM ||
		       op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM ||
		       op == IB_WR_RDMA_READ || op == IB_WR_ATOMIC_CMP_AND_SWP ||
		       op == IB_WR_ATOMIC_FETCH_AND_ADD;
	if (qp->ibqp.qp_type == IB_QPT_UC)
		return op == IB_WR_RDMA_WRITE || op == IB_WR_RDMA_WRITE_WITH_IMM ||
		       op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM;
	/* a raw packet QP's WQE is one frame: nothing to carry an immediate */
	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		return op == IB_WR_SEND;
	return op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM;
}

/* copy one user WQE from the SQ ring into @sw and validate the copy */
static u8 sib_sq_copy_user(struct sib_qp *qp, u32 ridx, struct sib_swqe *sw)
{
	const u8 *src = sib_ring_entry(&qp->sq.ring, ridx);
	struct sib_send_wqe *w = &sw->wqe;
	u64 total = 0;
	u32 i;

	sib_swqe_reset(sw);
	memcpy(w, src, sizeof(*w));
	if (!sib_opcode_ok(qp, w->opcode) ||
	    (w->send_flags & ~SIB_SEND_FLAGS_ALL))
		return IB_WC_LOC_QP_OP_ERR;
	if (sib_is_local_op(w->opcode)) {
		w->num_sge = 0;
		w->inline_len = 0;
		return (w->send_flags & SIB_SEND_INLINE) ?
		       IB_WC_LOC_QP_OP_ERR : IB_WC_SUCCESS;
	}
	if (w->send_flags & SIB_SEND_INLINE) {
		w->num_sge = 0;
		/* an atomic write's 8 bytes always fit the slot */
		if (w->opcode == IB_WR_RDMA_READ || sib_is_atomic(w->opcode) ||
		    w->inline_len > (w->opcode == SIB_WR_ATOMIC_WRITE ?
				     sizeof(u64) : qp->sq.max_inline))
			return IB_WC_LOC_QP_OP_ERR;
		memcpy(sw->inline_data, src + SIB_SEND_WQE_HDR_SIZE,
		       w->inline_len);
		total = w->inline_len;
	} else {
		if (w->num_sge > qp->sq.max_sge)
			return IB_WC_LOC_QP_OP_ERR;
		sib_sge_copy(sw->sge, src + SIB_SEND_WQE_HDR_SIZE, w->num_sge);
		for (i = 0; i < w->num_sge; i++)
			total += sw->sge[i].length;
	}
	if (total > SIB_MAX_MSG_SIZE)
		return IB_WC_LOC_LEN_ERR;
	sw->total_len = total;
	if (sib_is_atomic(w->opcode)) {
		if (total < sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		sw->total_len = sizeof(u64);
	}
	if (w->opcode == SIB_WR_ATOMIC_WRITE && total != sizeof(u64))
		return IB_WC_LOC_LEN_ERR;
	if (sib_qp_is_ud(qp)) {
		if (sib_ah_copy_av(qp->dev, qp->ibqp.pd, w->wr.ud.ah_num,
				   &sw->av))
			return IB_WC_LOC_QP_OP_ERR;
		w->wr.ud.remote_qpn &= SIB_QPN_MASK;
	}
	w->xrc_srqn &= SIB_QPN_MASK;
	return IB_WC_SUCCESS;
}

/**
 * sib_sq_fetch() - copy new WQEs from a user SQ ring into the shadow
 * @qp: user QP (no-op for kernel QPs)
 *
 * Copies as many as the shadow has room for; each copy is validated and
 * an invalid one is marked with its error status for the requester.
 * A producer index that is impossible moves the QP to error (a QP in ERR
 * already is left as it is: no event again, no round).
 * Context: process (doorbell or engine work), takes sq.lock.
 */
void sib_sq_fetch(struct sib_qp *qp)
{
	u32 prod, n, room, kprod, ucons, used, limit;
	bool bad = false;

	if (!sib_sq_user(qp))
		return;
	/*
	 * Nothing published since the last fetch: no lock. A WQE published
	 * from now on comes with a doorbell or is seen by the runner's
	 * check before it stops (sib_sq_recheck()).
	 */
	if (READ_ONCE(qp->sq.ring.hdr->producer) == READ_ONCE(qp->sq.ucons))
		return;
	spin_lock_irq(&qp->sq.lock);
	/*
	 * A QP in RESET has an empty send queue: a doorbell that saw it in
	 * another state takes nothing once sib_qp_reset() set it to RESET
	 * (the state is written before that takes sq.lock to clear the
	 * indices), so no stale WQE survives the reset.
	 */
	if (sib_qp_state(qp) == IB_QPS_RESET) {
		spin_unlock_irq(&qp->sq.lock);
		return;
	}
	kprod = qp->sq.kprod;
	ucons = qp->sq.ucons;
	prod = smp_load_acquire(&qp->sq.ring.hdr->producer);
	n = prod - ucons;
	if (n > qp->sq.ring.num) {
		bad = true;
		n = 0;
	}
	/* the slots kept for the kernel's own WQEs are not the ring's */
	used = kprod - READ_ONCE(qp->sq.comp);
	limit = qp->sq.num - qp->sq.reserved;
	room = used < limit ? limit - used : 0;
	n = min(n, room);
	while (n--) {
		struct sib_swqe *sw = sib_swqe_at(qp, kprod);

		sw->status = sib_sq_copy_user(qp, ucons, sw);
		kprod++;
		ucons++;
	}
	qp->sq.ucons = ucons;
	smp_store_release(&qp->sq.kprod, kprod);
	smp_store_release(&qp->sq.ring.hdr->consumer, ucons);
	spin_unlock_irq(&qp->sq.lock);
	/*
	 * Once: a QP in ERR flushes with the producer left as it is (the
	 * runner's checks skip an impossible one), so a bad producer raises
	 * no event and no round again and again.
	 */
	if (bad && sib_qp_state(qp) != IB_QPS_ERR)
		sib_qp_error(qp, IB_EVENT_QP_FATAL);
}

/**
 * sib_sq_prod() - shadow producer index as seen by the engines
 * @qp: QP
 *
 * Context: any. Return: the index; entries before it are complete.
 */
u32 sib_sq_prod(struct sib_qp *qp)
{
	return smp_load_acquire(&qp->sq.kprod);
}

/**
 * sib_rq_fetch() - copy the next receive WQE out of the RQ ring
 * @qp: QP
 * @rw: out, validated copy
 *
 * Context: the QP's run. Return: 1 when a WQE was taken, 0 when the
 * ring is empty, -EINVAL when the ring holds garbage.
 */
int sib_rq_fetch(struct sib_qp *qp, struct sib_rwqe *rw)
{
	if (qp->srq)
		return sib_srq_fetch(qp->srq, rw);
	if (qp->resp.xsrq)
		return sib_srq_fetch(qp->resp.xsrq, rw);
	if (!qp->rq.ring.buf)
		return -EINVAL;
	return sib_ring_take(&qp->rq.ring, &qp->rq.kcons, qp->rq.max_sge, rw);
}

/**
 * sib_qp_send_cqe() - complete a send WQE
 * @qp: QP
 * @sw: the shadow WQE
 * @status: IB_WC_* status; successful unsignaled WQEs make no CQE
 *
 * Context: the QP's run.
 */
void sib_qp_send_cqe(struct sib_qp *qp, struct sib_swqe *sw, u8 status)
{
	struct sib_cqe c __uninitialized;

	/* a rendezvous READ or FIN of tag matching: not the application's */
	if (unlikely(sw->internal)) {
		sib_tm_wqe_done(qp, sw, status);
		return;
	}
	if (status == IB_WC_SUCCESS && !qp->sig_all &&
	    !(sw->wqe.send_flags & SIB_SEND_SIGNALED))
		return;
	sib_cqe_clear(&c);
	c.wr_id = sw->wqe.wr_id;
	c.status = status;
	switch (sw->wqe.opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		c.opcode = IB_WC_RDMA_WRITE;
		break;
	case IB_WR_RDMA_READ:
		c.opcode = IB_WC_RDMA_READ;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		c.opcode = IB_WC_COMP_SWAP;
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		c.opcode = IB_WC_FETCH_ADD;
		break;
	case IB_WR_BIND_MW:
		c.opcode = IB_WC_BIND_MW;
		break;
	case IB_WR_LOCAL_INV:
		c.opcode = IB_WC_LOCAL_INV;
		break;
	case IB_WR_REG_MR:
		c.opcode = IB_WC_REG_MR;
		break;
	case SIB_WR_ATOMIC_WRITE:
		c.opcode = SIB_WC_ATOMIC_WRITE;
		break;
	default:
		c.opcode = IB_WC_SEND;
		break;
	}
	c.byte_len = sw->total_len;
	c.qp_num = qp->ibqp.qp_num;
	c.port_num = 1;
	if (sib_cq_post(qp->scq, &c, &qp->ibqp, false))
		sib_qp_cq_overrun(qp);
}

/**
 * sib_qp_recv_cqe() - complete a receive WQE
 * @qp: QP
 * @cqe: the entry, qp_num and port_num are filled in here
 * @solicited: the message had the SE bit
 *
 * Context: the QP's run.
 */
void sib_qp_recv_cqe(struct sib_qp *qp, struct sib_cqe *cqe, bool solicited)
{
	struct sib_srq *srq = NULL;
	struct sib_cq *cq = qp->rcq;

	/*
	 * XRC target: the CQ of the XRC SRQ the WQE came from (IBTA 14.2),
	 * the one its message's first packet named; a flush has no packet
	 * at hand, and a packet naming another SRQ is refused (resp.c).
	 */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		srq = sib_xrc_srq_get(qp, qp->resp.xsrqn);
		cq = srq ? to_sib_cq(srq->ibsrq.ext.cq) : NULL;
	}
	if (cq) {
		cqe->qp_num = qp->ibqp.qp_num;
		cqe->port_num = 1;
		if (sib_cq_post(cq, cqe, &qp->ibqp, solicited))
			sib_qp_cq_overrun(qp);
	}
	if (srq)
		sib_srq_put(srq);
}

/* IBTA 11.6.3.2: no WQE of the SRQ will be consumed by @qp any more */
static void sib_qp_last_wqe_event(struct sib_qp *qp)
{
	struct ib_event e = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&e, qp->ibqp.qp_context);
}

/**
 * sib_qp_flush() - complete every outstanding WR with IB_WC_WR_FLUSH_ERR
 * @qp: QP in the error state
 *
 * Context: the QP's run.
 */
void sib_qp_flush(struct sib_qp *qp)
{
	struct sib_cqe c;
	u32 prod, i;
	int pass;

	/*
	 * Two passes at most: what was posted while the first one ran too.
	 * The user can move its producer without end; what it posts after
	 * the second pass is the next round's (sib_sq_recheck()), so a run
	 * stays bounded and the QP's reset or destruction can stop it.
	 */
	for (pass = 0; pass < 2; pass++) {
		sib_sq_fetch(qp);
		prod = sib_sq_prod(qp);
		while (qp->sq.comp != prod) {
			sib_qp_send_cqe(qp, sib_swqe_at(qp, qp->sq.comp),
					IB_WC_WR_FLUSH_ERR);
			WRITE_ONCE(qp->sq.comp, qp->sq.comp + 1);
		}
		if (!sib_sq_user(qp) || sib_qp_state(qp) != IB_QPS_ERR ||
		    READ_ONCE(qp->sq.ucons) ==
		    READ_ONCE(qp->sq.ring.hdr->producer))
			break;
	}
	qp->sq.req = qp->sq.comp;
	qp->req.off = 0;
	qp->req.rd_inflight = 0;
	if (qp->resp.have_rwqe) {
		memset(&c, 0, sizeof(c));
		c.wr_id = qp->resp.rwqe.wr_id;
		c.status = IB_WC_WR_FLUSH_ERR;
		c.opcode = IB_WC_RECV;
		sib_qp_recv_cqe(qp, &c, false);
		qp->resp.have_rwqe = false;
	}
	/*
	 * WQEs still in an SRQ belong to the SRQ, not to this QP. Two rings'
	 * worth at most, for the same reason as above.
	 */
	for (i = 0; qp->rq.ring.buf && i < 2 * qp->rq.ring.num &&
	     sib_rq_fetch(qp, &qp->resp.rwqe) == 1; i++) {
		memset(&c, 0, sizeof(c));
		c.wr_id = qp->resp.rwqe.wr_id;
		c.status = IB_WC_WR_FLUSH_ERR;
		c.opcode = IB_WC_RECV;
		sib_qp_recv_cqe(qp, &c, false);
	}
	if (qp->srq && !test_and_set_bit(SIB_QPF_LAST_WQE, &qp->flags))
		sib_qp_last_wqe_event(qp);
}
