// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: running a QP's engines. One round: up to a budget of received
 * packets (responses to the completer, requests to the responder), then
 * timer events (judged after the ACKs already here), then READ responses
 * and new requests.
 *
 * Rounds run in qp->work (workqueue sib_wq), one at a time in the QP's
 * receive tasklet for packets from the network (sched.c), or inline in the
 * context that produced the work when that is a sleepable task: a user
 * doorbell, or a loopback packet sent by another QP's engine. Inline
 * running matters: with busy-polling processes on every CPU a worker
 * thread may wait a scheduler tick for each hop. task_state, changed
 * only by fully ordered atomic read-modify-writes, makes sure rounds of
 * one QP never overlap: who finds the QP running only marks it pending,
 * and the runner does another round.
 *
 * User send queues follow the kernel_idle protocol of softib-abi.h: while
 * a runner owns the QP the ring header says kernel_idle = 0 and the
 * provider posts without a doorbell; the runner, before it stops, stores
 * kernel_idle = 1, a full barrier, and looks at the producer index once
 * more. A runner nested in another QP's engine that has just answered
 * a request (loopback: the peer process busy-polls on the other CPU) may
 * also linger a few microseconds for the reply WQE, so that a
 * request/reply exchange needs one system call instead of two. Lingering
 * adapts: after a few misses in a row it is only tried now and then.
 *
 * A runner that loops packets back to another QP of the device does not
 * run that QP after each packet but once its own round is over
 * (sib_qp_run_after()): the receiving QP then takes the whole batch in
 * one round instead of paying a round (locks, ring checks, a possible
 * ACK) per packet.
 */
#include <linux/sched/clock.h>

#include "task.h"
#include "softib.h"
#include "hdr.h"
#include "qpcore.h"
#include "sched.h"
#include "cc.h"
#include "loop.h"
#include "req.h"
#include "resp.h"
#include "comp.h"
#include "timers.h"
#include "mr.h"
#include "raw.h"
#include "rss.h"

#define SIB_INLINE_ROUNDS	32
#define SIB_WORK_ROUNDS		16
#define SIB_LINGER_NS		15000	/* longest wait for a reply WQE */
#define SIB_LINGER_MISSES	4	/* misses in a row that pause lingering */
#define SIB_LINGER_REPROBE	128	/* then one try in this many */
#define SIB_LINGER_SPINS	256	/* producer reads between two pauses */

/*
 * Timer expiries are judged only after the packets already received: an
 * ACK waiting in rxq is progress the timer could not see (a slow or
 * stalled host delays the work, not the peer). With more packets queued
 * than a round takes, the decision waits a few rounds, but not forever:
 * a peer that keeps sending requests must not hide our own loss.
 */
#define SIB_TIMER_DEFER_ROUNDS	16

static void sib_qp_timer_events(struct sib_qp *qp)
{
	if (!test_bit(SIB_QPF_TIMEOUT, &qp->flags) &&
	    !test_bit(SIB_QPF_PROBE, &qp->flags))
		return;
	if (!skb_queue_empty(&qp->rxq) &&
	    qp->timer_defer++ < SIB_TIMER_DEFER_ROUNDS)
		return;
	qp->timer_defer = 0;
	/* an expiry followed by progress (the timer runs again) is stale */
	if (test_and_clear_bit(SIB_QPF_TIMEOUT, &qp->flags) &&
	    !sib_timer_retrans_pending(qp))
		sib_comp_timeout(qp);
	if (test_and_clear_bit(SIB_QPF_PROBE, &qp->flags) &&
	    !sib_timer_probe_pending(qp))
		sib_comp_probe(qp);
}

/*
 * Move up to @budget packets from rxq to @batch under one lock, and the
 * loopback ACK (recv.c), which is older than all of them: *ack, @psn,
 * @syn. Return: packets and ACK taken.
 */
static int sib_rxq_take(struct sib_qp *qp, struct sk_buff_head *batch,
			int budget, bool *ack, u32 *psn, u8 *syn)
{
	struct sk_buff *skb;
	unsigned long flags;
	int n = 0;

	__skb_queue_head_init(batch);
	*ack = false;
	/*
	 * Nothing queued: no lock. What is queued from now on marks the
	 * runner pending (sib_qp_poke()), so the next round takes it.
	 */
	if (skb_queue_empty_lockless(&qp->rxq) && !READ_ONCE(qp->loop.ack_valid))
		return 0;
	spin_lock_irqsave(&qp->rxq.lock, flags);
	*ack = qp->loop.ack_valid;
	if (*ack) {
		*psn = qp->loop.ack_psn;
		*syn = qp->loop.ack_syn;
		qp->loop.ack_valid = false;
		n++;
	}
	if (skb_queue_len(&qp->rxq) <= budget) {
		n += skb_queue_len(&qp->rxq);
		skb_queue_splice_init(&qp->rxq, batch);
	} else {
		while (n < budget && (skb = __skb_dequeue(&qp->rxq))) {
			__skb_queue_tail(batch, skb);
			n++;
		}
	}
	spin_unlock_irqrestore(&qp->rxq.lock, flags);
	return n;
}

/* the requester takes the responder's answer, as if from a packet */
static void sib_run_answer(struct sib_qp *qp, const struct sib_lb_answer *ans)
{
	if (ans->valid)
		sib_comp_ack_rcv(qp, ans->psn, ans->syn);
	/* unanswered (dropped) or a stale ACK: wait as for a lost packet */
	if (!ans->valid || ((ans->syn & SIB_AETH_CLASS_MASK) == SIB_AETH_ACK &&
			    qp->sq.comp != qp->sq.req))
		sib_timer_retrans_arm(qp);
}

/*
 * Deliver the request the requester handed over directly (loop.c,
 * sib_loop_handoff()): the responder, whose runner this run is for the
 * moment (claimed, or the run this one is nested in), takes it as a
 * received packet (sib_resp_rcv()); its answer, ACK or NAK, goes to the
 * requester's completer at once. Context: @qp's run, a task, no locks.
 */
static void sib_run_handoff(struct sib_qp *qp)
{
	struct sib_loop_state *l = &qp->loop;
	struct sib_qp *rqp = l->handoff.rqp;
	struct sib_lb_answer ans = {};
	struct sk_buff *skb = l->handoff_skb;

	l->handoff_skb = NULL;
	rqp->loop.answer = &ans;
	sib_resp_rcv(rqp, skb);
	sib_resp_ack_flush(rqp);
	rqp->loop.answer = NULL;
	sib_mr_cache_drop(&rqp->mr_cache);
	sib_loop_handoff_end(qp);
	sib_run_answer(qp, &ans);
}

/*
 * The requester, up to @budget packets; a request it hands over directly
 * is delivered before it goes on. Return: packets sent.
 */
static int sib_run_requester(struct sib_qp *qp, int budget)
{
	int n = 0;

	for (;;) {
		n += sib_req_run(qp, budget - n);
		if (!qp->loop.handoff.rqp)
			return n;
		sib_run_handoff(qp);
		if (n >= budget)
			return n;
	}
}

/*
 * The consumer moved the QP from RTS or SQD to ERR: the acknowledgements
 * and responses it had received by then are taken before the flush (see
 * sib_comp_takes()); requests are dropped with the rest. Nothing is
 * queued for a QP in ERR (sib_rcv_to_qp()): the whole queue came before.
 */
static void sib_qp_take_final(struct sib_qp *qp)
{
	struct sk_buff_head batch;
	struct sk_buff *skb;
	int i, n;
	bool ack;
	u32 psn;
	u8 syn;

	for (i = 0; i <= SIB_RX_QUEUE_MAX / SIB_WORK_BUDGET; i++) {
		n = sib_rxq_take(qp, &batch, SIB_WORK_BUDGET, &ack, &psn, &syn);
		if (ack)
			sib_comp_ack_rcv(qp, psn, syn);
		while ((skb = __skb_dequeue(&batch))) {
			if (sib_opcode(sib_pkt(skb)->opcode)->flags &
			    SIB_OPF_RESP) {
				sib_comp_rcv(qp, skb);
			} else {
				sib_counter_inc(qp->dev, SIB_CNT_DROP_QP_STATE);
				kfree_skb(skb);
			}
		}
		if (n < SIB_WORK_BUDGET)
			break;
	}
	/* what a partial ACK re-armed: nothing is resent in ERR */
	sib_timer_retrans_stop(qp);
}

/*
 * one round; true when more work is known to be waiting; *@bulk: the
 * round sent a full budget of packets
 */
static bool sib_qp_round(struct sib_qp *qp, bool *bulk)
{
	enum ib_qp_state state = sib_qp_state(qp);
	struct sk_buff_head batch;
	struct sk_buff *skb;
	int n, n_req, sent = 0;
	bool ack;
	u32 psn;
	u8 syn;

	/* an RSS QP: its WQs' states decide, it only places frames */
	if (unlikely(qp->rss)) {
		n = sib_rxq_take(qp, &batch, SIB_WORK_BUDGET, &ack, &psn, &syn);
		while ((skb = __skb_dequeue(&batch)))
			sib_rss_rcv(qp, skb);
		*bulk = false;
		return n >= SIB_WORK_BUDGET || !skb_queue_empty(&qp->rxq);
	}
	if (state == IB_QPS_RESET) {
		clear_bit(SIB_QPF_ERR_TAKE, &qp->flags);
		sib_rxq_purge(qp);
		return false;
	}
	if (state == IB_QPS_ERR) {
		if (test_bit(SIB_QPF_ERR_TAKE, &qp->flags)) {
			sib_qp_take_final(qp);
			clear_bit(SIB_QPF_ERR_TAKE, &qp->flags);
		}
		sib_rxq_purge(qp);
		sib_qp_flush(qp);
		return false;
	}
	if (test_and_clear_bit(SIB_QPF_RNR_DONE, &qp->flags))
		qp->req.rnr_wait = false;
	n = sib_rxq_take(qp, &batch, SIB_WORK_BUDGET, &ack, &psn, &syn);
	if (ack)
		sib_comp_ack_rcv(qp, psn, syn);
	if (test_and_clear_bit(SIB_QPF_CNP, &qp->flags))
		sib_cc_rp_cnp(qp);
	while ((skb = __skb_dequeue(&batch))) {
		if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET) {
			sib_raw_rcv(qp, skb);
			continue;
		}
		if (unlikely(sib_pkt(skb)->ce))
			sib_cc_np_ce(qp, skb);
		if (sib_opcode(sib_pkt(skb)->opcode)->flags & SIB_OPF_RESP) {
			sib_comp_rcv(qp, skb);
		} else {
			qp->task_served |= sib_pkt(skb)->ackreq;
			sib_resp_rcv(qp, skb);
		}
	}
	sib_resp_ack_flush(qp);
	/* requests of the last round that are still not acknowledged */
	sib_timer_retrans_flush(qp);
	sib_qp_timer_events(qp);
	sib_sq_fetch(qp);
	sent += sib_resp_reads(qp, SIB_WORK_BUDGET);
	n_req = sib_run_requester(qp, SIB_WORK_BUDGET);
	/* a request answered and then one sent: the reply needs no wait */
	if (n_req)
		qp->task_served = false;
	sent += n_req;
	if (state == IB_QPS_SQD)
		sib_qp_sqd_check(qp, sib_sq_outstanding(qp));
	*bulk = sent >= SIB_WORK_BUDGET;
	return n >= SIB_WORK_BUDGET || sent >= SIB_WORK_BUDGET ||
	       !skb_queue_empty(&qp->rxq) || READ_ONCE(qp->loop.ack_valid) ||
	       sib_qp_state(qp) == IB_QPS_ERR;
}

/* user SQ ring: WQEs the next round's sib_sq_fetch() would take */
static bool sib_sq_has_new(struct sib_qp *qp)
{
	u32 kprod = READ_ONCE(qp->sq.kprod);
	u32 ucons = READ_ONCE(qp->sq.ucons);
	u32 prod = READ_ONCE(qp->sq.ring.hdr->producer);

	/* an impossible producer is sib_sq_fetch()'s to judge, once */
	return prod != ucons && prod - ucons <= qp->sq.ring.num &&
	       kprod - READ_ONCE(qp->sq.comp) < qp->sq.num - qp->sq.reserved &&
	       sib_qp_state(qp) != IB_QPS_RESET;
}

/*
 * The runner is about to stop: from now on the provider rings the
 * doorbell. True when WQEs were posted without one meanwhile.
 */
static bool sib_sq_recheck(struct sib_qp *qp)
{
	if (!sib_sq_user(qp))
		return false;
	WRITE_ONCE(qp->sq.ring.hdr->kernel_idle, 1);
	/* pairs with the provider's barrier between producer and kernel_idle */
	smp_mb();
	if (!sib_sq_has_new(qp))
		return false;
	WRITE_ONCE(qp->sq.ring.hdr->kernel_idle, 0);
	return true;
}

/*
 * A nested runner that answered a request of its loopback peer waits a
 * little for the reply WQE; true when one came. Context: task, no locks.
 */
static bool sib_qp_linger(struct sib_qp *qp)
{
	u64 end;
	int i;

	if (!qp->task_served || !qp->task_nested || !sib_sq_user(qp))
		return false;
	qp->task_served = false;
	/* only when the requester side is idle: nothing outstanding */
	if (READ_ONCE(qp->sq.comp) != READ_ONCE(qp->sq.kprod) ||
	    sib_qp_state(qp) != IB_QPS_RTS)
		return false;
	if (qp->linger_misses >= SIB_LINGER_MISSES &&
	    ++qp->linger_skips % SIB_LINGER_REPROBE)
		return false;
	end = local_clock() + SIB_LINGER_NS;
	do {
		/*
		 * Reads in a row, a pause and a clock read only now and
		 * then: under QEMU's TCG a PAUSE leaves the translated code
		 * for the vCPU loop (~350 cycles against ~5 for a loop pass,
		 * measured in a guest).
		 */
		for (i = 0; i < SIB_LINGER_SPINS; i++) {
			if (sib_sq_has_new(qp)) {
				qp->linger_misses = 0;
				sib_counter_inc(qp->dev, SIB_CNT_SQ_LINGER_HITS);
				return true;
			}
			barrier();
		}
		cpu_relax();
		/* a round was asked for meanwhile: no reason to wait more */
		if (atomic_read(&qp->task_state) & SIB_TASK_PENDING)
			return false;
	} while (local_clock() < end && !need_resched());
	if (qp->linger_misses < U8_MAX)
		qp->linger_misses++;
	sib_counter_inc(qp->dev, SIB_CNT_SQ_LINGER_MISSES);
	return false;
}

/* become the runner, or mark the running one pending; true: we run */
static bool sib_task_enter(struct sib_qp *qp)
{
	int s = atomic_read(&qp->task_state), want;

	/* always a full-barrier RMW: what the caller queued is seen */
	do {
		want = s & SIB_TASK_RUNNING ? s | SIB_TASK_PENDING :
		       SIB_TASK_RUNNING;
	} while (!atomic_try_cmpxchg(&qp->task_state, &s, want));
	if (s & SIB_TASK_RUNNING)
		return false;
	/* posts need no doorbell until sib_sq_recheck() */
	if (sib_sq_user(qp))
		WRITE_ONCE(qp->sq.ring.hdr->kernel_idle, 0);
	return true;
}

/*
 * End a round; true when the runner stops (nothing more to do). A
 * request for a round made before the final exchange of task_state makes
 * that exchange fail and is seen by the next try; one made after it finds
 * the QP not running and schedules its work (sib_qp_poke()).
 */
static bool sib_task_done(struct sib_qp *qp, bool more, bool last)
{
	int s = atomic_read(&qp->task_state);
	bool idle = false, go_on;

	if (s & SIB_TASK_PENDING)
		more = true;
	if (!more) {
		more = sib_sq_recheck(qp);
		idle = !more && sib_sq_user(qp);
	}
	do {
		go_on = (more || (s & SIB_TASK_PENDING)) && !last;
	} while (!atomic_try_cmpxchg(&qp->task_state, &s,
				     go_on ? SIB_TASK_RUNNING : 0));
	if (go_on) {
		/* asked for a round after the recheck: still the runner */
		if (idle)
			WRITE_ONCE(qp->sq.ring.hdr->kernel_idle, 0);
		return false;
	}
	more |= s & SIB_TASK_PENDING;
	if (more && last && !test_bit(SIB_QPF_DESTROYING, &qp->flags))
		queue_work(sib_wq, &qp->work);
	return true;
}

/*
 * Run the QPs the last round looped packets to, each nested in this run,
 * in the order they got them. Context: task, no locks.
 */
static void sib_qp_run_peers(struct sib_qp *qp)
{
	struct sib_loop_state *l = &qp->loop;
	struct sib_qp *peer;
	unsigned int i;

	/* a nested run adds no peers of ours: it pokes (sib_pkt_xmit()) */
	for (i = 0; i < l->npeers; i++) {
		peer = l->peers[i];
		l->peers[i] = NULL;
		sib_qp_run(peer, qp);
		sib_qp_put(peer);
	}
	l->npeers = 0;
}

/*
 * A doorbell (inline, not nested) whose round filled the send budget
 * hands the rest to qp->work, which another CPU runs while the poster
 * goes back to posting and polling: bulk transfers use two CPUs. A round
 * that sends less (a small request/reply exchange) goes on inline.
 */
static void sib_qp_rounds(struct sib_qp *qp, int max, struct sib_qp *parent)
{
	bool nested = parent != NULL;
	bool doorbell = max == SIB_INLINE_ROUNDS && !nested, bulk = false;
	int i;

	if (!sib_task_enter(qp))
		return;
	sib_run_acquire(qp, nested);
	qp->task_nested = nested;
	/* the runner's own: every runner sets it (or sib_task_claim() clears it) */
	qp->loop.parent = parent;
	/* a request handed over directly counts as one this run answered */
	qp->task_served = qp->loop.direct_served;
	qp->loop.direct_served = false;
	for (i = 1; ; i++) {
		bool more, last;

		sib_counter_inc(qp->dev, max == SIB_WORK_ROUNDS ?
				SIB_CNT_WORK_ROUNDS : !in_task() ?
				SIB_CNT_SOFTIRQ_ROUNDS : SIB_CNT_INLINE_ROUNDS);
		more = sib_qp_round(qp, &bulk);
		sib_mr_cache_drop(&qp->mr_cache);
		/*
		 * between rounds: the peer may hand this QP requests directly
		 * (a task only: in softirq its runs are only scheduled)
		 */
		WRITE_ONCE(qp->loop.gap, in_task() ? current : NULL);
		sib_qp_run_peers(qp);
		WRITE_ONCE(qp->loop.gap, NULL);
		/* what the peer answered now (its ACK) is for the next round */
		if (!more)
			more = !skb_queue_empty_lockless(&qp->rxq) ||
			       READ_ONCE(qp->loop.ack_valid);
		if (!more)
			more = sib_qp_linger(qp);
		last = i >= max || (doorbell && bulk);
		if (!more || last)
			sib_timer_retrans_flush(qp);
		if (sib_task_done(qp, more, last))
			break;
		cond_resched();
	}
	sib_run_release(qp);
}

/**
 * sib_qp_task() - work function of a QP
 * @work: &qp->work
 *
 * Context: process (workqueue sib_wq), or the network's receive softirq
 * (sib_qp_rx_run(): one round).
 */
void sib_qp_task(struct work_struct *work)
{
	/* a receive softirq (sib_qp_rx_run()) does one round, then the work */
	sib_qp_rounds(container_of(work, struct sib_qp, work),
		      in_serving_softirq() ? 1 : SIB_WORK_ROUNDS, NULL);
}

/**
 * sib_qp_run() - run the QP's engines now if the context allows
 * @qp: QP the caller holds a reference on (or owns, like a doorbell)
 * @parent: NULL, or the QP whose engine (the caller) runs @qp nested:
 *	    packets @qp sends then are not run inline again, which bounds
 *	    the nesting to one level, and a request @qp sends to @parent
 *	    finds it without a lookup (sib_loop_target())
 *
 * Context: any. Runs a few rounds inline in a sleepable task context,
 * otherwise (or for the rest) schedules qp->work.
 */
void sib_qp_run(struct sib_qp *qp, struct sib_qp *parent)
{
	if (!in_task() || irqs_disabled() || in_atomic()) {
		sib_qp_poke(qp);
		return;
	}
	sib_qp_rounds(qp, SIB_INLINE_ROUNDS, parent);
}

/**
 * sib_qp_sq_doorbell() - a user send doorbell: take new WQEs and run
 * @qp: QP
 *
 * What every doorbell (the zero-WR post_send command, the ioctl method
 * and the doorbell file of doorbell.c) does: copy the WQEs published in
 * the SQ ring into the shadow (sib_sq_fetch()) and run the QP's engines
 * inline. In RESET,
 * INIT and RTR a send WR is refused at once (IBTA 10.3.1), as the
 * provider's ibv_post_send and the kernel's post_send refuse it: the
 * doorbell fetches nothing and counts nothing. WQEs a process wrote into
 * the ring anyway stay queued (a round of the QP in RTR may copy them into
 * the shadow) and are sent once the QP is in RTS.
 * Context: process; the caller holds a reference on @qp (the uverbs
 * object lock, or the doorbell file's QP reference). Return: 0, -EINVAL
 * when @qp is not a user QP with a send queue ring (XRC target, kernel
 * QP) or is in RESET, INIT or RTR.
 */
int sib_qp_sq_doorbell(struct sib_qp *qp)
{
	if (!qp->is_user || !qp->sq.ring.hdr || !sib_sq_may_post(qp))
		return -EINVAL;
	sib_counter_inc(qp->dev, SIB_CNT_SQ_DOORBELLS);
	sib_sq_fetch(qp);
	sib_qp_run(qp, NULL);
	return 0;
}
