// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the same-device loopback fast path. A requester with nothing
 * outstanding that sends a whole SEND or RDMA WRITE message in one packet
 * to a QP of its own device hands the request to that QP's responder at
 * once, as the responder's runner for that moment, instead of queueing
 * it and waiting for the responder's round and then for its ACK: the
 * responder checks and places it as it does every packet (sib_resp_rcv()),
 * and its answer, ACK or NAK, comes straight back to the requester's
 * completer (sib_comp_ack_rcv()), so the WQE usually completes before
 * the requester's step is over and no timer is started. Only when
 * nothing is queued for the responder (packets, an ACK slot, READ
 * responses): the request then overtakes nothing. When another context
 * runs the responder, the packet path is taken.
 *
 * A nested run (the responder of a request, answering with its own
 * request from its send queue) may hand it directly to the run it is
 * nested in, which waits between two rounds (task.c, sib_task_claim()).
 * The responder a run claimed is run after the sender's round as if the
 * request had come as a packet (sib_qp_run_after()), so that its run
 * still waits for the reply WQE of a ping-pong (task.c, lingering).
 */
#include "loop.h"
#include "comp.h"
#include "hdr.h"
#include "mr.h"
#include "net.h"
#include "qp.h"
#include "recv.h"
#include "resp.h"
#include "task.h"
#include "timers.h"
#include "trace.h"

/* nothing queued for @rqp that the request would overtake */
static bool sib_loop_quiet(struct sib_qp *rqp)
{
	return skb_queue_empty_lockless(&rqp->rxq) &&
	       !READ_ONCE(rqp->lb_ack_valid) &&
	       rqp->resp.rd_tail == rqp->resp.rd_head;
}

/*
 * Give back a responder claimed by sib_task_claim(): a run of it follows
 * @qp's round as promised to the provider (no doorbells meanwhile), or,
 * for a nested @qp, its work when another context asked for a round.
 */
static void sib_loop_unclaim(struct sib_qp *qp, struct sib_qp *rqp)
{
	bool pending = sib_task_release(rqp);

	if (!qp->task_nested)
		sib_qp_run_after(qp, rqp);
	else if (pending)
		sib_qp_poke(rqp);
}

/* the requester takes the responder's answer, as if from a packet */
static void sib_loop_answer(struct sib_qp *qp, const struct sib_lb_answer *ans)
{
	if (ans->valid)
		sib_comp_ack_rcv(qp, ans->psn, ans->syn);
	/* unanswered (dropped) or a stale ACK: wait as for a lost packet */
	if (!ans->valid || ((ans->syn & SIB_AETH_CLASS_MASK) == SIB_AETH_ACK &&
			    qp->sq.comp != qp->sq.req))
		sib_timer_retrans_arm(qp);
}

/* request bytes (BTH to ICRC) a QP's reused request buffer holds */
#define SIB_LOOP_SKB_LEN	320

/**
 * sib_loop_claim() - may @qp hand its next request to the responder directly?
 * @qp: requester: an RC QP with a loopback path and nothing outstanding,
 *	about to send a whole SEND or RDMA WRITE message in one packet
 * @lp: filled in; lp->rqp is NULL when the request must go as a packet
 *
 * Finds the destination QP as a packet would (sib_loop_target()) and
 * becomes its runner (sib_task_claim()) when nothing is queued for it.
 * A claim ends with sib_loop_deliver() or sib_loop_cancel().
 * Context: @qp's run, a sleepable task, no locks. Return: true when
 * claimed.
 */
bool sib_loop_claim(struct sib_qp *qp, struct sib_loop *lp)
{
	struct sib_qp *rqp = sib_loop_target(qp);

	lp->rqp = NULL;
	if (!rqp)
		return false;
	lp->claim = sib_task_claim(rqp, !qp->task_nested);
	if (lp->claim == SIB_CLAIM_NONE || !sib_loop_quiet(rqp)) {
		if (lp->claim == SIB_CLAIM_TAKEN)
			sib_loop_unclaim(qp, rqp);
		sib_qp_put(rqp);
		return false;
	}
	lp->rqp = rqp;
	return true;
}

/**
 * sib_loop_cancel() - give back a claim: the request could not be built
 * @qp: requester
 * @lp: from sib_loop_claim(); lp->rqp may be NULL
 *
 * Context: @qp's run, a sleepable task, no locks.
 */
void sib_loop_cancel(struct sib_qp *qp, struct sib_loop *lp)
{
	if (!lp->rqp)
		return;
	if (lp->claim == SIB_CLAIM_TAKEN)
		sib_loop_unclaim(qp, lp->rqp);
	sib_qp_put(lp->rqp);
	lp->rqp = NULL;
}

/**
 * sib_loop_skb() - the requester's reused buffer for a direct request
 * @qp: requester, holding a claim of sib_loop_claim()
 * @len: bytes from the BTH to the end of the ICRC
 *
 * A request handed over directly never reaches the network stack, so
 * one buffer per QP serves them all, with no allocation per request.
 * Context: @qp's run. Return: the buffer with @len (stale) bytes and a
 * reference for the caller, which sib_loop_deliver() (or kfree_skb())
 * consumes; NULL when it is too small or out of memory (allocate one).
 */
struct sk_buff *sib_loop_skb(struct sib_qp *qp, unsigned int len)
{
	struct sk_buff *skb = qp->loop_skb;

	if (len > SIB_LOOP_SKB_LEN)
		return NULL;
	if (skb && !sib_skb_reuse(qp->dev, skb, len)) {
		qp->loop_skb = NULL;
		kfree_skb(skb);
		skb = NULL;
	}
	if (!skb) {
		skb = sib_skb_alloc(qp->dev, SIB_LOOP_SKB_LEN);
		if (!skb || !sib_skb_reuse(qp->dev, skb, len)) {
			kfree_skb(skb);
			return NULL;
		}
		qp->loop_skb = skb;
	}
	return skb_get(skb);
}

/**
 * sib_loop_deliver() - hand a request to the responder claimed for it
 * @qp: requester; its state already counts the request as sent
 * @lp: from sib_loop_claim(), with lp->rqp set; ended here
 * @skb: the request, one whole SEND or RDMA WRITE message (BTH and other
 *	 headers written, data at the BTH); consumed
 * @paylen: its payload bytes
 *
 * The responder handles it as a received packet (sib_resp_rcv()); its
 * answer, ACK or NAK, goes to @qp's completer at once. Without an answer
 * (the responder dropped it) the retransmit timer is armed as for a
 * packet.
 * Context: @qp's run, a sleepable task, no locks.
 */
void sib_loop_deliver(struct sib_qp *qp, struct sib_loop *lp,
		      struct sk_buff *skb, u32 paylen)
{
	struct sib_qp *rqp = lp->rqp;
	struct sib_lb_answer ans = {};
	struct sib_dev *dev = qp->dev;
	struct sib_pkt *pkt;
	bool served;

	sib_pkt_init(skb, paylen, true, qp->av.net_type);
	pkt = sib_pkt(skb);
	served = pkt->ackreq;
	trace_sib_pkt_xmit(pkt->qpn, pkt->opcode, pkt->psn, skb->len);
	sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
	sib_counter_inc(dev, SIB_CNT_LOOPBACK_DIRECT);
	sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
	trace_sib_pkt_rcv(pkt->qpn, pkt->opcode, pkt->psn, paylen);
	rqp->lb_answer = &ans;
	sib_resp_rcv(rqp, skb);
	sib_resp_ack_flush(rqp);
	rqp->lb_answer = NULL;
	sib_mr_cache_drop(&rqp->mr_cache);
	if (lp->claim == SIB_CLAIM_TAKEN) {
		/* its run lingers for the reply, as after a packet */
		if (!qp->task_nested)
			rqp->direct_served = served;
		sib_loop_unclaim(qp, rqp);
	}
	sib_qp_put(rqp);
	lp->rqp = NULL;
	sib_loop_answer(qp, &ans);
}
