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

/**
 * sib_loop_direct() - hand a request to a QP of this device directly
 * @qp: requester: an RC QP with a loopback path and nothing outstanding
 *	before this request
 * @skb: the request, one whole SEND or RDMA WRITE message (BTH and other
 *	 headers written, data at the BTH); @qp's state already counts it
 *	 as sent
 * @paylen: its payload bytes
 *
 * Context: @qp's run, a sleepable task, no locks.
 * Return: true when the request was delivered and @skb consumed (the
 * answer is taken, or the retransmit timer armed as for a packet); false
 * when it must be sent as a packet, @skb untouched.
 */
bool sib_loop_direct(struct sib_qp *qp, struct sk_buff *skb, u32 paylen)
{
	struct sib_lb_answer ans = {};
	struct sib_dev *dev = qp->dev;
	enum sib_claim claim;
	struct sib_qp *rqp;
	struct sib_pkt *pkt;
	bool served;

	rqp = sib_loop_target(qp);
	if (!rqp)
		return false;
	claim = sib_task_claim(rqp, !qp->task_nested);
	if (claim == SIB_CLAIM_NONE || !sib_loop_quiet(rqp)) {
		if (claim == SIB_CLAIM_TAKEN)
			sib_loop_unclaim(qp, rqp);
		sib_qp_put(rqp);
		return false;
	}
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
	rqp->lb_answer = NULL;
	sib_mr_cache_drop(&rqp->mr_cache);
	if (claim == SIB_CLAIM_TAKEN) {
		/* its run lingers for the reply, as after a packet */
		if (!qp->task_nested)
			rqp->direct_served = served;
		sib_loop_unclaim(qp, rqp);
	}
	sib_qp_put(rqp);
	sib_loop_answer(qp, &ans);
	return true;
}
