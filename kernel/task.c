// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: running a QP's engines. One round: up to a budget of received
 * packets (responses to the completer, requests to the responder), then
 * timer events (judged after the ACKs already here), then READ responses
 * and new requests.
 *
 * Rounds run either in qp->work (workqueue sib_wq) or inline in the
 * context that produced the work when that is a sleepable task: a user
 * doorbell, or a loopback packet sent by another QP's engine. Inline
 * running matters: with busy-polling processes on every CPU a worker
 * thread may wait a scheduler tick for each hop. task_lock with the
 * running/pending flags makes sure rounds of one QP never overlap: who
 * finds the QP running only marks it pending, and the runner does
 * another round.
 */
#include "task.h"
#include "softib.h"
#include "hdr.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "comp.h"
#include "timers.h"

#define SIB_INLINE_ROUNDS	32
#define SIB_WORK_ROUNDS		16

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

/* one round; true when more work is known to be waiting */
static bool sib_qp_round(struct sib_qp *qp)
{
	enum ib_qp_state state = sib_qp_state(qp);
	struct sk_buff *skb;
	int n = 0, sent = 0;

	if (state == IB_QPS_RESET) {
		skb_queue_purge(&qp->rxq);
		return false;
	}
	if (state == IB_QPS_ERR) {
		skb_queue_purge(&qp->rxq);
		sib_qp_flush(qp);
		return false;
	}
	if (test_and_clear_bit(SIB_QPF_RNR_DONE, &qp->flags))
		qp->req.rnr_wait = false;
	while (n < SIB_WORK_BUDGET && (skb = skb_dequeue(&qp->rxq))) {
		if (sib_opcode(sib_pkt(skb)->opcode)->flags & SIB_OPF_RESP)
			sib_comp_rcv(qp, skb);
		else
			sib_resp_rcv(qp, skb);
		n++;
	}
	sib_qp_timer_events(qp);
	sib_sq_fetch(qp);
	sent += sib_resp_reads(qp, SIB_WORK_BUDGET);
	sent += sib_req_run(qp, SIB_WORK_BUDGET);
	if (state == IB_QPS_SQD)
		sib_qp_sqd_check(qp, qp->sq.comp != qp->sq.req || qp->req.off);
	return n >= SIB_WORK_BUDGET || sent >= SIB_WORK_BUDGET ||
	       !skb_queue_empty(&qp->rxq) || sib_qp_state(qp) == IB_QPS_ERR;
}

/* become the runner, or mark the running one pending; true: we run */
static bool sib_task_enter(struct sib_qp *qp)
{
	unsigned long flags;
	bool run;

	spin_lock_irqsave(&qp->task_lock, flags);
	run = !qp->task_running;
	if (run) {
		qp->task_running = true;
		qp->task_pending = false;
	} else {
		qp->task_pending = true;
	}
	spin_unlock_irqrestore(&qp->task_lock, flags);
	return run;
}

/* end a round; true when the runner stops (nothing more to do) */
static bool sib_task_done(struct sib_qp *qp, bool more, bool last)
{
	unsigned long flags;
	bool stop;

	spin_lock_irqsave(&qp->task_lock, flags);
	more |= qp->task_pending;
	qp->task_pending = false;
	stop = !more || last;
	if (stop)
		qp->task_running = false;
	spin_unlock_irqrestore(&qp->task_lock, flags);
	if (more && last && !test_bit(SIB_QPF_DESTROYING, &qp->flags))
		queue_work(sib_wq, &qp->work);
	return stop;
}

static void sib_qp_rounds(struct sib_qp *qp, int max, bool nested)
{
	int i;

	if (!sib_task_enter(qp))
		return;
	qp->task_nested = nested;
	for (i = 1; ; i++) {
		sib_counter_inc(qp->dev, max == SIB_WORK_ROUNDS ?
				SIB_CNT_WORK_ROUNDS : SIB_CNT_INLINE_ROUNDS);
		if (sib_task_done(qp, sib_qp_round(qp), i >= max))
			break;
		cond_resched();
	}
}

/**
 * sib_qp_task() - work function of a QP
 * @work: &qp->work
 *
 * Context: process (workqueue sib_wq).
 */
void sib_qp_task(struct work_struct *work)
{
	sib_qp_rounds(container_of(work, struct sib_qp, work), SIB_WORK_ROUNDS,
		      false);
}

/**
 * sib_qp_run() - run the QP's engines now if the context allows
 * @qp: QP the caller holds a reference on (or owns, like a doorbell)
 * @nested: the caller is another QP's engine; packets @qp sends then are
 *	    not run inline again, which bounds the nesting to one level
 *
 * Context: any. Runs a few rounds inline in a sleepable task context,
 * otherwise (or for the rest) schedules qp->work.
 */
void sib_qp_run(struct sib_qp *qp, bool nested)
{
	if (!in_task() || irqs_disabled() || in_atomic()) {
		sib_qp_poke(qp);
		return;
	}
	sib_qp_rounds(qp, SIB_INLINE_ROUNDS, nested);
}

/**
 * sib_qp_poke() - make sure the QP does another round soon
 * @qp: QP
 *
 * A running QP is marked pending, so its current runner goes on;
 * otherwise qp->work is scheduled. Context: any.
 */
void sib_qp_poke(struct sib_qp *qp)
{
	unsigned long flags;
	bool running;

	spin_lock_irqsave(&qp->task_lock, flags);
	running = qp->task_running;
	if (running)
		qp->task_pending = true;
	spin_unlock_irqrestore(&qp->task_lock, flags);
	if (!running && !test_bit(SIB_QPF_DESTROYING, &qp->flags))
		queue_work(sib_wq, &qp->work);
}
