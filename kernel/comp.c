// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the completer (IBTA 9.7.5.1, 9.9). Consumes ACKs, NAKs and
 * RDMA READ responses, completes send WQEs in order, and decides on
 * retransmission: from the oldest unacknowledged WQE after a PSN
 * sequence NAK or a local ACK timeout, after an RNR delay for an RNR
 * NAK; when retries run out the WQE fails with RETRY_EXC_ERR /
 * RNR_RETRY_EXC_ERR and the QP goes to error.
 * Runs only in the QP's work.
 */
#include "comp.h"
#include "hdr.h"
#include "psn.h"
#include "qpcore.h"
#include "sched.h"
#include "srq.h"
#include "tm.h"
#include "mr.h"
#include "timers.h"
#include "trace.h"

/* WQEs completed only by their response data, not by an ACK */
static bool sib_comp_needs_resp(const struct sib_swqe *sw)
{
	return sw->wqe.opcode == IB_WR_RDMA_READ ||
	       sw->wqe.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       sw->wqe.opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static void sib_comp_done(struct sib_qp *qp, struct sib_swqe *sw, u8 status)
{
	qp->req.rd_inflight -= min_t(u32, sw->counted_rd, qp->req.rd_inflight);
	sw->counted_rd = 0;
	sib_qp_send_cqe(qp, sw, status);
	qp->comp.acked_psn = sw->last_psn;
	qp->comp.rd_resume = 0;
	qp->comp.rd_gap = false;
	WRITE_ONCE(qp->sq.comp, qp->sq.comp + 1);
	qp->comp.retry_left = qp->retry_cnt;
	qp->comp.rnr_left = qp->rnr_retry;
}

/* complete every non-READ WQE whose last PSN is at or before @psn */
static bool sib_comp_ack_upto(struct sib_qp *qp, u32 psn)
{
	u32 end = sib_sq_sent_end(qp);
	bool progress = false;

	while (qp->sq.comp != end) {
		struct sib_swqe *sw = sib_swqe_at(qp, qp->sq.comp);

		if (sib_comp_needs_resp(sw) || sib_psn_cmp(sw->last_psn, psn) > 0)
			break;
		sib_comp_done(qp, sw, IB_WC_SUCCESS);
		progress = true;
	}
	return progress;
}

/*
 * Packets of the oldest WQE that the responder acknowledged (IBTA 9.7.5.1.1:
 * an ACK or NAK for PSN n covers every request packet before it): the number
 * of its packets that need not be sent again. READ and atomic WQEs are
 * acknowledged by their responses, never partly by an ACK.
 */
static u32 sib_comp_acked_pkts(struct sib_qp *qp, struct sib_swqe *sw)
{
	if (sib_comp_needs_resp(sw) ||
	    sib_psn_cmp(qp->comp.acked_psn, sw->first_psn) < 0 ||
	    sib_psn_cmp(qp->comp.acked_psn, sw->last_psn) >= 0)
		return 0;
	return sib_psn_diff(qp->comp.acked_psn, sw->first_psn) + 1;
}

/*
 * An ACK or NAK acknowledged request packets up to @psn. Returns true when
 * that is news inside the oldest, still incomplete WQE (a long message
 * making progress): the retry budget and the timer start over.
 */
static bool sib_comp_ack_partial(struct sib_qp *qp, u32 psn)
{
	struct sib_swqe *sw;

	/* (after a go-back the oldest WQE may have been sent before) */
	if (qp->sq.comp == sib_sq_sent_end(qp))
		return false;
	sw = sib_swqe_at(qp, qp->sq.comp);
	if (sib_comp_needs_resp(sw) ||
	    sib_psn_cmp(psn, sw->first_psn) < 0 ||
	    sib_psn_cmp(psn, sw->last_psn) >= 0 ||
	    (sib_comp_acked_pkts(qp, sw) &&
	     sib_psn_cmp(psn, qp->comp.acked_psn) <= 0))
		return false;
	qp->comp.acked_psn = psn;
	qp->comp.retry_left = qp->retry_cnt;
	return true;
}

/* a NAK for @psn acknowledges every request packet before it (9.7.5.1.1) */
static void sib_comp_ack_before(struct sib_qp *qp, u32 psn)
{
	psn = sib_psn_add(psn, SIB_PSN_MASK);
	sib_comp_ack_upto(qp, psn);
	sib_comp_ack_partial(qp, psn);
}

/* is @psn at or after the oldest request packet not yet acknowledged? */
static bool sib_comp_psn_outstanding(struct sib_qp *qp, u32 psn)
{
	struct sib_swqe *sw;

	if (!sib_sq_outstanding(qp))
		return false;
	sw = sib_swqe_at(qp, qp->sq.comp);
	return sib_psn_cmp(psn, sib_psn_add(sw->first_psn,
					    sib_comp_acked_pkts(qp, sw))) >= 0;
}

/*
 * Go back to the oldest incomplete WQE and send again from its first packet
 * not yet acknowledged (go-back-N, IBTA 9.7.5.2.8 / 9.7.6.1.3).
 */
static void sib_comp_restart(struct sib_qp *qp, const char *why)
{
	struct sib_swqe *sw;
	u32 i, done;

	if (!sib_sq_outstanding(qp))
		return;
	sw = sib_swqe_at(qp, qp->sq.comp);
	done = sib_comp_acked_pkts(qp, sw);
	qp->comp.rd_resume = 0;
	if (sw->wqe.opcode == IB_WR_RDMA_READ && sw->read_pkts < sw->npkts &&
	    qp->sq.comp != sib_sq_sent_end(qp)) {
		/* resume the READ at its first missing response */
		done = sw->read_pkts;
		qp->comp.rd_resume = done;
	}
	sib_counter_inc(qp->dev, SIB_CNT_RETRANSMITS);
	trace_sib_retransmit(qp->ibqp.qp_num, sib_psn_add(sw->first_psn, done),
			     why);
	for (i = qp->sq.comp; i != sib_sq_sent_end(qp); i++)
		sib_swqe_at(qp, i)->counted_rd = 0;
	qp->req.rd_inflight = 0;
	qp->req.psn = sib_psn_add(sw->first_psn, done);
	qp->sq.req = qp->sq.comp;
	qp->req.off = done * qp->mtu;
	qp->req.since_ackreq = 0;
}

/* the oldest WQE failed with @status: complete it and fail the QP */
static void sib_comp_fail(struct sib_qp *qp, u8 status)
{
	if (sib_sq_outstanding(qp)) {
		sib_comp_done(qp, sib_swqe_at(qp, qp->sq.comp), status);
		if ((s32)(qp->sq.comp - qp->sq.req) > 0)
			qp->sq.req = qp->sq.comp;
	}
	qp->req.off = 0;
	sib_timer_retrans_stop(qp);
	sib_qp_error(qp, 0);
}

static u8 sib_nak_status(u8 code)
{
	switch (code) {
	case SIB_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SIB_NAK_REM_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case SIB_NAK_INVALID_RD_REQ:
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

static void sib_comp_rnr(struct sib_qp *qp, u8 syn)
{
	sib_counter_inc(qp->dev, SIB_CNT_RNR_NAK_RCVD);
	if (qp->rnr_retry != 7) {
		if (!qp->comp.rnr_left) {
			sib_counter_inc(qp->dev, SIB_CNT_RNR_EXCEEDED);
			sib_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		qp->comp.rnr_left--;
	}
	sib_comp_restart(qp, "rnr nak");
	sib_win_rtt_forget(qp);		/* the wait is not the path's */
	qp->req.rnr_wait = true;
	sib_timer_retrans_stop(qp);
	sib_timer_rnr_start(qp, syn & SIB_AETH_VALUE_MASK);
}

static void sib_comp_ack(struct sib_qp *qp, u32 psn, u8 syn)
{
	u32 before = qp->comp.acked_psn;
	bool progress;

	/* an acknowledgement for something never sent is bogus */
	if (sib_psn_cmp(psn, sib_win_next_psn(qp)) >= 0)
		return;
	/*
	 * Taken after the consumer's modify to ERR (sib_comp_rcv()): of a
	 * NAK only the ACK it implies, nothing is sent again.
	 */
	if ((syn & SIB_AETH_CLASS_MASK) != SIB_AETH_ACK &&
	    sib_qp_state(qp) == IB_QPS_ERR) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_QP_STATE);
		if (sib_comp_psn_outstanding(qp, psn))
			sib_comp_ack_before(qp, psn);
		return;
	}
	/*
	 * A NAK names the PSN the responder wants next: one that is still
	 * outstanding. A stale or forged NAK for older PSNs is ignored, it
	 * must not restart or fail the QP.
	 */
	if ((syn & SIB_AETH_CLASS_MASK) != SIB_AETH_ACK &&
	    !sib_comp_psn_outstanding(qp, psn)) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_STALE_NAK);
		return;
	}
	switch (syn & SIB_AETH_CLASS_MASK) {
	case SIB_AETH_ACK:
		progress = sib_comp_ack_upto(qp, psn);
		progress |= sib_comp_ack_partial(qp, psn);
		if (progress) {
			sib_win_probe_answer(qp, qp->comp.acked_psn);
			sib_win_acked(qp, qp->comp.acked_psn,
				      sib_psn_diff(qp->comp.acked_psn, before));
			sib_timer_retrans_progress(qp, sib_sq_outstanding(qp));
		}
		break;
	case SIB_AETH_RNR_NAK:
		sib_comp_ack_before(qp, psn);
		sib_comp_rnr(qp, syn);
		break;
	case SIB_AETH_NAK:
		sib_comp_ack_before(qp, psn);
		if ((syn & SIB_AETH_VALUE_MASK) == SIB_NAK_PSN_SEQ_ERR) {
			sib_counter_inc(qp->dev, SIB_CNT_SEQ_NAK_RCVD);
			if (qp->comp.acked_psn != before)
				sib_win_acked(qp, qp->comp.acked_psn,
					      sib_psn_diff(qp->comp.acked_psn,
							   before));
			/* go back to the NAK'd PSN at once (IBTA 9.7.5.2.1) */
			sib_win_loss(qp, false);
			sib_comp_restart(qp, "sequence nak");
			sib_timer_retrans_progress(qp, sib_sq_outstanding(qp));
		} else {
			sib_comp_fail(qp, sib_nak_status(syn & SIB_AETH_VALUE_MASK));
		}
		break;
	default:
		break;
	}
}

/* validate a read response against the READ WQE it belongs to */
static bool sib_rresp_ok(struct sib_qp *qp, struct sib_swqe *sw, u8 opcode,
			 u32 paylen)
{
	/*
	 * Each READ request is answered by its own stream, FIRST to LAST: one
	 * per chunk (see sib_req_read()), so chunk borders are fixed per WQE.
	 * A resumed READ (see sib_comp_restart()) is answered by a new stream
	 * starting with FIRST or ONLY; a late packet of the old stream
	 * (MIDDLE or LAST) carries the same bytes and is fine too.
	 */
	u32 idx = sw->read_pkts;
	bool must_first = idx == 0 ||
			  sib_read_chunk_end(sw, idx - 1) == idx;
	bool may_first = must_first || idx == qp->comp.rd_resume;
	bool last = sib_read_chunk_end(sw, idx) == idx + 1 ||
		    idx + 1 == sw->npkts;
	u64 off = (u64)idx * qp->mtu;

	switch (opcode) {
	case SIB_OP_RC_READ_RESP_ONLY:
		if (!may_first || !last)
			return false;
		break;
	case SIB_OP_RC_READ_RESP_FIRST:
		if (!may_first || last)
			return false;
		break;
	case SIB_OP_RC_READ_RESP_MIDDLE:
		if (must_first || last)
			return false;
		break;
	default:
		if (must_first || !last)
			return false;
		break;
	}
	if (idx + 1 == sw->npkts)
		return off + paylen == sw->total_len;
	return paylen == qp->mtu;
}

/*
 * A READ or atomic response implicitly acknowledges every WQE before the
 * one it answers (IBTA 9.7.5.1.3). A response with a PSN never sent (a
 * stale peer of a QP reused after RESET, a forged packet), or with the PSN
 * of a SEND or WRITE, answers nothing and acknowledges nothing.
 * Return: the WQE that waits for a response at the head (the ones before
 * it are completed), or NULL when the response answers nothing.
 */
static struct sib_swqe *sib_comp_resp_head(struct sib_qp *qp, u32 psn)
{
	u32 end = sib_sq_sent_end(qp), i;
	struct sib_swqe *sw;

	if (sib_psn_cmp(psn, sib_win_next_psn(qp)) >= 0) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_RESP_SEQ);
		return NULL;
	}
	for (i = qp->sq.comp; i != end; i++) {
		sw = sib_swqe_at(qp, i);
		if (sib_comp_needs_resp(sw))
			break;
		if (sib_psn_cmp(sw->last_psn, psn) >= 0)
			return NULL;
	}
	if (i == end)
		return NULL;
	while (qp->sq.comp != i)
		sib_comp_done(qp, sib_swqe_at(qp, qp->sq.comp), IB_WC_SUCCESS);
	return sw;
}

static void sib_comp_atomic(struct sib_qp *qp, struct sk_buff *skb)
{
	const struct sib_opcode_info *info = sib_opcode(SIB_OP_RC_ATOMIC_ACK);
	const struct sib_atmack *ack = (void *)(skb->data + info->off_atmack);
	struct sib_swqe *sw = sib_comp_resp_head(qp, sib_pkt(skb)->psn);
	u64 orig = be64_to_cpu(ack->orig);

	if (!sw || sw->wqe.opcode == IB_WR_RDMA_READ ||
	    sib_pkt(skb)->psn != sw->first_psn)
		return;
	if (sib_sgl_copy(qp->dev, &qp->mr_cache, qp->ibqp.pd, sw->sge,
			 sw->wqe.num_sge, 0, &orig, sizeof(orig), true)) {
		sib_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	sib_comp_done(qp, sw, IB_WC_SUCCESS);
	sib_win_acked(qp, sib_pkt(skb)->psn, 1);
	sib_timer_retrans_progress(qp, sib_sq_outstanding(qp));
}

static void sib_comp_rresp(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	struct sib_swqe *sw = sib_comp_resp_head(qp, pkt->psn);
	u32 want;

	if (!sw || sw->wqe.opcode != IB_WR_RDMA_READ)
		return;
	want = sib_psn_add(sw->first_psn, sw->read_pkts);
	if (pkt->psn != want) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_RESP_SEQ);
		if (sib_psn_cmp(pkt->psn, want) < 0 ||
		    (qp->comp.rd_gap && qp->comp.rd_gap_psn == want) ||
		    sib_qp_state(qp) == IB_QPS_ERR)
			return;	/* duplicate, being resent, or too late */
		/* a response went missing: ask again from it, once per gap */
		sib_counter_inc(qp->dev, SIB_CNT_READ_RESP_GAP);
		qp->comp.rd_gap = true;
		qp->comp.rd_gap_psn = want;
		sib_win_loss(qp, false);
		sib_comp_restart(qp, "read response gap");
		return;
	}
	if (!sib_rresp_ok(qp, sw, pkt->opcode, pkt->paylen)) {
		sib_comp_fail(qp, IB_WC_BAD_RESP_ERR);
		return;
	}
	/* a rendezvous READ of tag matching lands in a tag's buffer: the SRQ's */
	if (sib_sgl_copy_skb(qp->dev, &qp->mr_cache,
			     sw->internal == SIB_SWQE_TM_READ ?
			     qp->srq->ibsrq.pd : qp->ibqp.pd, sw->sge,
			     sw->wqe.num_sge, sw->read_pkts * qp->mtu, skb,
			     pkt->hdr_len, pkt->paylen)) {
		sib_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	sw->read_pkts++;
	qp->comp.retry_left = qp->retry_cnt;
	sib_win_acked(qp, pkt->psn, 1);
	if (sw->read_pkts == sw->npkts) {
		sib_comp_done(qp, sw, IB_WC_SUCCESS);
	} else if (sib_read_chunk_end(sw, sw->read_pkts - 1) == sw->read_pkts &&
		   sw->counted_rd) {
		/* a chunk's request is answered: it no longer counts for ORD */
		sw->counted_rd--;
		if (qp->req.rd_inflight)
			qp->req.rd_inflight--;
	}
	sib_timer_retrans_progress(qp, sib_sq_outstanding(qp));
}

/*
 * Acknowledgements for packets sent before a go-back may pass the point
 * the requester is resending from: move it forward past what is done.
 */
static void sib_comp_catch_up(struct sib_qp *qp)
{
	struct sib_swqe *sw;
	u32 d;

	if ((s32)(qp->sq.comp - qp->sq.req) > 0) {
		qp->sq.req = qp->sq.comp;
		qp->req.off = 0;
		qp->req.psn = sib_psn_add(qp->comp.acked_psn, 1);
		qp->req.since_ackreq = 0;
	}
	if (qp->sq.comp != qp->sq.req || qp->sq.comp == sib_sq_sent_end(qp))
		return;
	sw = sib_swqe_at(qp, qp->sq.comp);
	d = sib_comp_acked_pkts(qp, sw);
	if ((u64)d * qp->mtu > qp->req.off) {
		qp->req.off = d * qp->mtu;
		qp->req.psn = sib_psn_add(sw->first_psn, d);
	}
}

/*
 * May the completer take an acknowledgement or response now? In RTS and
 * SQD; in ERR only when the consumer moved the QP there and its run has
 * not flushed yet (SIB_QPF_ERR_TAKE, cleared only by the run): on a NIC
 * an acknowledgement is handled on arrival, here it waits in the QP's
 * receive queue, and a modify to ERR (a CM handling a DREQ, say) can come
 * in between. What the responder executed is then still completed as it
 * answered (IBTA 9.7.5.1); the flush that follows ends the rest with
 * IB_WC_WR_FLUSH_ERR (IBTA 10.3.1). Otherwise the packet is counted.
 */
static bool sib_comp_takes(struct sib_qp *qp, enum ib_qp_state state)
{
	if (state == IB_QPS_RTS || state == IB_QPS_SQD)
		return true;
	if (state == IB_QPS_ERR) {
		/* the flag is set before the state (sib_modify_qp()) */
		smp_rmb();
		if (test_bit(SIB_QPF_ERR_TAKE, &qp->flags))
			return true;
	}
	sib_counter_inc(qp->dev, SIB_CNT_DROP_QP_STATE);
	return false;
}

/* after an acknowledgement: resend from no earlier than what is done */
static void sib_comp_taken(struct sib_qp *qp)
{
	enum ib_qp_state state = sib_qp_state(qp);

	if (state == IB_QPS_RTS || state == IB_QPS_SQD)
		sib_comp_catch_up(qp);
}

/**
 * sib_comp_rcv() - handle one response packet (ACK or read response)
 * @qp: RC QP
 * @skb: validated packet; consumed
 *
 * Taken in RTS and SQD, and in ERR before the run flushes a consumer's
 * modify (see sib_comp_takes()); dropped and counted otherwise.
 * Context: the QP's run.
 */
void sib_comp_rcv(struct sib_qp *qp, struct sk_buff *skb)
{
	const struct sib_opcode_info *info = sib_opcode(sib_pkt(skb)->opcode);

	sib_assert_runner(qp);
	if (sib_comp_takes(qp, sib_qp_state(qp))) {
		if (info->flags & SIB_OPF_ACK)
			sib_comp_ack(qp, sib_pkt(skb)->psn,
				     sib_aeth_syndrome((void *)(skb->data +
								info->off_aeth)));
		else if (info->flags & SIB_OPF_ATMACK)
			sib_comp_atomic(qp, skb);
		else
			sib_comp_rresp(qp, skb);
		sib_comp_taken(qp);
	}
	kfree_skb(skb);
}

/**
 * sib_comp_ack_rcv() - handle an ACK or NAK that came without a packet
 * @qp: RC QP
 * @psn: its BTH PSN
 * @syn: its AETH syndrome
 *
 * The loopback form of sib_comp_rcv() for an acknowledgement (IBTA
 * 9.7.5.1.1): the same checks and effects. Context: the QP's run.
 */
void sib_comp_ack_rcv(struct sib_qp *qp, u32 psn, u8 syn)
{
	sib_assert_runner(qp);
	if (sib_comp_takes(qp, sib_qp_state(qp))) {
		sib_comp_ack(qp, psn, syn);
		sib_comp_taken(qp);
	}
}

/**
 * sib_comp_timeout() - the local ACK timeout expired
 * @qp: RC QP
 *
 * Retransmits from the oldest incomplete WQE or, when retry_cnt is used
 * up, fails it with IB_WC_RETRY_EXC_ERR (IBTA 9.7.6.1.3).
 * Context: the QP's run.
 */
void sib_comp_timeout(struct sib_qp *qp)
{
	enum ib_qp_state state = sib_qp_state(qp);

	sib_assert_runner(qp);
	if ((state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    !sib_sq_outstanding(qp) || qp->req.rnr_wait)
		return;
	sib_counter_inc(qp->dev, SIB_CNT_ACK_TIMEOUT);
	if (!qp->comp.retry_left) {
		sib_counter_inc(qp->dev, SIB_CNT_RETRY_EXCEEDED);
		sib_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_left--;
	sib_win_loss(qp, true);
	sib_comp_restart(qp, "ack timeout");
	sib_timer_retrans_progress(qp, true);
}

/**
 * sib_comp_probe() - the loss probe fired: no progress for a few RTTs
 * @qp: RC QP
 *
 * Goes back to the oldest unacknowledged packet and sends only it, asking
 * for an ACK, until it is answered (sib_win_probe()): the answer says
 * whether anything after it is to be sent again. The first probe since
 * progress keeps the window (usually only an ACK or the last packets of a
 * burst were lost; the answer halves it if packets were), later ones
 * halve it. No probe counts a retry: only the local ACK timeout counts
 * against retry_cnt (see timers.c). Context: the QP's work.
 */
void sib_comp_probe(struct sib_qp *qp)
{
	enum ib_qp_state state = sib_qp_state(qp);

	sib_assert_runner(qp);
	if ((state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    !sib_sq_outstanding(qp) || qp->req.rnr_wait)
		return;
	sib_counter_inc(qp->dev, SIB_CNT_LOSS_PROBES);
	sib_win_probe(qp, qp->req.win.probes != 0);
	sib_comp_restart(qp, "loss probe");
	sib_timer_probe_rearm(qp);
}
