// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the same-device loopback fast path. A requester with nothing
 * outstanding that sends a whole SEND or RDMA WRITE message in one packet
 * to a QP of its own device hands the request to that QP's responder at
 * once, as the responder's runner for that moment, instead of queueing
 * it and waiting for the responder's round and then for its ACK. This
 * file claims the responder and stages the request (sib_loop_handoff());
 * the requester's runner (task.c) then delivers it: the responder checks
 * and places it as it does every packet (sib_resp_rcv()), and its
 * answer, ACK or NAK, comes straight back to the requester's completer
 * (sib_comp_ack_rcv()), so the WQE usually completes before the
 * requester's next packet and no timer is started. Nothing here runs an
 * engine: only the runner does. Only when
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
#include "hdr.h"
#include "net.h"
#include "qpcore.h"
#include "recv.h"
#include "sched.h"
#include "trace.h"

/* nothing queued for @rqp that the request would overtake */
static bool sib_loop_quiet(struct sib_qp *rqp)
{
	return skb_queue_empty_lockless(&rqp->rxq) &&
	       !READ_ONCE(rqp->loop.ack_valid) &&
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
	struct sib_qp *rqp;

	lp->rqp = NULL;
	/* a softirq round (task.c) only sends packets */
	if (!in_task())
		return false;
	rqp = sib_loop_target(qp);
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
	struct sk_buff *skb = qp->loop.skb;

	if (len > SIB_LOOP_SKB_LEN)
		return NULL;
	if (skb && !sib_skb_reuse(qp->dev, skb, len)) {
		qp->loop.skb = NULL;
		kfree_skb(skb);
		skb = NULL;
	}
	if (!skb) {
		skb = sib_skb_alloc(qp->dev, SIB_LOOP_SKB_LEN);
		if (!skb || !sib_skb_reuse(qp->dev, skb, len)) {
			kfree_skb(skb);
			return NULL;
		}
		qp->loop.skb = skb;
	}
	return skb_get(skb);
}

/**
 * sib_loop_handoff() - hand a request to the responder claimed for it
 * @qp: requester; its state already counts the request as sent
 * @lp: from sib_loop_claim(), with lp->rqp set; taken over (lp->rqp is
 *	NULL on return)
 * @skb: the request, one whole SEND or RDMA WRITE message (BTH and other
 *	 headers written, data at the BTH); consumed
 * @paylen: its payload bytes
 *
 * The request counts as sent and received here; @qp's runner delivers
 * it before the requester goes on (task.c): the responder handles it as
 * a received packet, and its answer, ACK or NAK, goes to @qp's completer
 * at once. Without an answer (the responder dropped it) the retransmit
 * timer is armed as for a packet.
 * Context: @qp's run, a sleepable task, no locks.
 */
void sib_loop_handoff(struct sib_qp *qp, struct sib_loop *lp,
		      struct sk_buff *skb, u32 paylen)
{
	struct sib_loop_state *l = &qp->loop;
	struct sib_dev *dev = qp->dev;
	struct sib_pkt *pkt;

	sib_assert_runner(qp);
	sib_pkt_init(skb, paylen, true, qp->av.net_type);
	pkt = sib_pkt(skb);
	trace_sib_pkt_xmit(pkt->qpn, pkt->opcode, pkt->psn, skb->len);
	sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
	sib_counter_inc(dev, SIB_CNT_LOOPBACK_DIRECT);
	sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
	trace_sib_pkt_rcv(pkt->qpn, pkt->opcode, pkt->psn, paylen);
	l->handoff = *lp;
	l->handoff_skb = skb;
	l->handoff_served = pkt->ackreq;
	lp->rqp = NULL;
}

/**
 * sib_loop_handoff_end() - give back the responder of a delivered handoff
 * @qp: requester whose runner delivered its handoff
 *
 * The responder, when claimed, is run after @qp's round (or poked), and
 * that run lingers for the reply as after a packet.
 * Context: @qp's run, a sleepable task, no locks.
 */
void sib_loop_handoff_end(struct sib_qp *qp)
{
	struct sib_loop *lp = &qp->loop.handoff;
	struct sib_qp *rqp = lp->rqp;

	if (lp->claim == SIB_CLAIM_TAKEN) {
		if (!qp->task_nested)
			rqp->loop.direct_served = qp->loop.handoff_served;
		sib_loop_unclaim(qp, rqp);
	}
	sib_qp_put(rqp);
	lp->rqp = NULL;
}

/**
 * sib_loop_target() - the RC QP of this device an RC QP's packet goes to
 * @qp: sending RC QP whose path is loopback
 *
 * The checks a packet of @qp would meet on its way to the destination
 * QP without building it: the sender's P_Key, the port's P_Key table,
 * the destination QP and its type and P_Key (IBTA 10.9.3).
 * Context: the QP's run. Return: the destination QP, referenced (put it
 * with sib_qp_put()), or NULL when one of the checks fails or @qp is no
 * loopback RC QP: the caller then sends a packet, whose path counts
 * the drop.
 */
struct sib_qp *sib_loop_target(struct sib_qp *qp)
{
	struct sib_dev *dev = qp->dev;
	struct sib_qp *rqp;

	if (!qp->av.loopback || qp->ibqp.qp_type != IB_QPT_RC)
		return NULL;
	rqp = sib_rcv_loop_known(qp->task_nested ? qp->loop.parent :
				 sib_qp_loop_peer(qp), qp->dest_qpn);
	if (!rqp)
		rqp = sib_qp_get(dev, qp->dest_qpn);
	if (!rqp)
		return NULL;
	if (rqp->ibqp.qp_type != IB_QPT_RC ||
	    !sib_pkey_loop_ok(&dev->pkey, READ_ONCE(qp->pkey_index),
			      READ_ONCE(rqp->pkey_index))) {
		sib_qp_put(rqp);
		return NULL;
	}
	return rqp;
}

/**
 * sib_ack_xmit_loopback() - send a plain ACK to a QP of this device
 * @qp: responding RC QP whose path is loopback
 * @syn: AETH syndrome
 * @psn: BTH PSN
 *
 * No packet is built, sent or parsed. While @qp answers a request handed
 * to it directly (loop.c) the answer, ACK or NAK, goes back to that
 * requester at once (qp->loop.answer). Otherwise a plain ACK's PSN and
 * syndrome go into the requester's lb_ack slot, which its round takes
 * before the packets in rxq, after the checks of sib_loop_target(); only
 * while the slot is free and rxq is empty, so that the order of
 * acknowledgements and responses stays that of the wire; otherwise (and
 * for NAKs) the caller sends a packet.
 * Context: the QP's run. Return: true when the ACK was taken (or
 * dropped and counted), false when the caller must send it as a packet.
 */
bool sib_ack_xmit_loopback(struct sib_qp *qp, u8 syn, u32 psn)
{
	struct sib_dev *dev = qp->dev;
	struct sib_qp *rqp;
	unsigned long flags;
	bool taken;

	if (qp->loop.answer) {
		/* the answer to a request handed over directly (loop.c) */
		qp->loop.answer->valid = true;
		qp->loop.answer->syn = syn;
		qp->loop.answer->psn = psn;
		trace_sib_pkt_xmit(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_ACKS);
		sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
		trace_sib_pkt_rcv(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		return true;
	}
	if ((syn & SIB_AETH_CLASS_MASK) != SIB_AETH_ACK)
		return false;
	rqp = sib_loop_target(qp);
	if (!rqp)
		return false;	/* the packet path counts what it drops */
	spin_lock_irqsave(&rqp->rxq.lock, flags);
	taken = !rqp->loop.ack_valid && skb_queue_empty(&rqp->rxq);
	if (taken) {
		rqp->loop.ack_psn = psn;
		rqp->loop.ack_syn = syn;
		rqp->loop.ack_valid = true;
	}
	spin_unlock_irqrestore(&rqp->rxq.lock, flags);
	if (taken) {
		trace_sib_pkt_xmit(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_PKTS);
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_ACKS);
		sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
		trace_sib_pkt_rcv(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		if (!qp->task_nested)
			sib_qp_run_after(qp, rqp);
		else
			sib_qp_poke(rqp);
	}
	sib_qp_put(rqp);
	return taken;
}
