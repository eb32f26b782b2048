// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the scheduling primitives of a QP, below the engines and the
 * runner (task.c): asking for a round (sib_qp_poke(), sib_qp_kick()),
 * asking the current runner to run a QP once its round is over
 * (sib_qp_run_after()), taking and giving back the runner role for one
 * direct delivery (sib_task_claim(), sib_task_release()), and the runner
 * map the debug kernel checks the engines' context with. Nothing here
 * runs an engine: only the runner does.
 *
 * task_state (SIB_TASK_*) is changed only by fully ordered atomic
 * read-modify-writes, so that rounds of one QP never overlap: who finds
 * the QP running only marks it pending, and the runner does another
 * round.
 */
#include "sched.h"
#include "qpcore.h"

/**
 * sib_rxq_purge() - drop all received packets and a loopback ACK
 * @qp: QP
 *
 * Context: process or the QP's work.
 */
void sib_rxq_purge(struct sib_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->rxq.lock, flags);
	qp->loop.ack_valid = false;
	spin_unlock_irqrestore(&qp->rxq.lock, flags);
	skb_queue_purge(&qp->rxq);
}

/**
 * sib_task_claim() - become a QP's runner for one direct delivery
 * @qp: QP the caller holds a reference on
 * @will_run: the caller runs @qp after releasing it (sib_qp_run_after(),
 *	      even when sib_task_release() returns false): a user send
 *	      queue then stays without doorbells until that run's end
 *
 * Never waits. The caller's own run of @qp counts when it is between two
 * rounds running its loop peer (the caller is that peer's run, nested):
 * @qp's state is then at rest and only this task touches it.
 * Context: a sleepable task, no locks.
 * Return: %SIB_CLAIM_NONE when another context runs @qp, %SIB_CLAIM_TAKEN
 * when the caller now runs it (end with sib_task_release()),
 * %SIB_CLAIM_OWN when the caller's own run holds it already.
 */
enum sib_claim sib_task_claim(struct sib_qp *qp, bool will_run)
{
	int idle = 0;

	if (READ_ONCE(qp->loop.gap) == current)
		return SIB_CLAIM_OWN;
	/* not running means no round pending either */
	if (!atomic_try_cmpxchg(&qp->task_state, &idle, SIB_TASK_RUNNING))
		return SIB_CLAIM_NONE;
	/* a direct delivery's runner has no parent (sib_loop_target()) */
	qp->loop.parent = NULL;
	/* the caller's run is one level deep (will_run) or two (nested) */
	sib_run_acquire(qp, will_run ? 1 : 2);
	/* a run follows: posts until then need no doorbell */
	if (will_run && sib_sq_user(qp))
		WRITE_ONCE(qp->sq.ring.hdr->kernel_idle, 0);
	return SIB_CLAIM_TAKEN;
}

/**
 * sib_task_release() - end a runner role taken by sib_task_claim()
 * @qp: QP
 *
 * Context: a sleepable task, no locks. Return: true when another context
 * asked for a round meanwhile; the caller must then run or poke @qp.
 */
bool sib_task_release(struct sib_qp *qp)
{
	sib_run_release(qp);
	return atomic_xchg(&qp->task_state, 0) & SIB_TASK_PENDING;
}

/**
 * sib_qp_run_after() - run a QP once the runner's round is over
 * @runner: QP whose engine (not nested) just queued a loopback packet or
 *	    ACK for @qp, or gave back a claim of it
 * @qp: that QP, referenced by the caller
 *
 * Packets that @runner loops back to @qp in one round are taken by @qp
 * in one run after the round, nested in @runner's run (task.c), in the
 * order in which the QPs first got something. More QPs than the runner
 * keeps (%SIB_LOOP_PEERS) get their work scheduled instead.
 * Context: @runner's run, a sleepable task.
 */
void sib_qp_run_after(struct sib_qp *runner, struct sib_qp *qp)
{
	struct sib_loop_state *l = &runner->loop;
	unsigned int i;

	for (i = 0; i < l->npeers; i++)
		if (l->peers[i] == qp)
			return;
	if (l->npeers == SIB_LOOP_PEERS) {
		sib_qp_poke(qp);
		return;
	}
	refcount_inc(&qp->ref);
	l->peers[l->npeers++] = qp;
}

/**
 * sib_qp_loop_peer() - the QP a runner looped its latest packet to
 * @qp: QP, in its run
 *
 * Context: @qp's run. Return: that QP (referenced until the round's end)
 * or NULL.
 */
struct sib_qp *sib_qp_loop_peer(struct sib_qp *qp)
{
	return qp->loop.npeers ? qp->loop.peers[qp->loop.npeers - 1] : NULL;
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
	int s = atomic_read(&qp->task_state);

	/* a runner takes the request: a full-barrier RMW, like its own */
	while (s & SIB_TASK_RUNNING) {
		if (atomic_try_cmpxchg(&qp->task_state, &s,
				       s | SIB_TASK_PENDING))
			return;
	}
	if (!test_bit(SIB_QPF_DESTROYING, &qp->flags))
		queue_work(sib_wq, &qp->work);
}

/*
 * Received packets are taken in softirq, as a NIC handles them on
 * arrival: no worker to wake, no switch to it and back, which on a busy
 * CPU costs more than the packet's work. The QP's tasklet runs once the
 * receive softirq has handed over its batch (a NAPI poll), so one round
 * takes them all and acknowledges them once. Off for a device with ODP
 * MRs (a page fault sleeps) and for raw packet and RSS QPs.
 */
static bool sib_rx_softirq = true;
module_param_named(rx_softirq, sib_rx_softirq, bool, 0644);
MODULE_PARM_DESC(rx_softirq, "run a QP's round for received packets in softirq, after the receive batch (default on); off: in the workqueue");

/**
 * sib_qp_rx_run() - get a QP going for a packet just queued on its rxq
 * @qp: QP the caller holds a reference on
 *
 * In softirq (the network's receive, or another QP's softirq round that
 * looped a packet back) the QP's tasklet is scheduled; elsewhere, or when
 * the QP may not run in softirq, it is poked (sib_qp_poke()).
 * Context: any.
 */
void sib_qp_rx_run(struct sib_qp *qp)
{
	if (!READ_ONCE(sib_rx_softirq) || !in_serving_softirq() ||
	    qp->rss || qp->ibqp.qp_type == IB_QPT_RAW_PACKET ||
	    atomic_read(&qp->dev->odp_mrs) ||
	    test_bit(SIB_QPF_DESTROYING, &qp->flags)) {
		sib_qp_poke(qp);
		return;
	}
	tasklet_schedule(&qp->rx_tasklet);
}

/**
 * sib_qp_rx_tasklet() - the QP's receive tasklet
 * @t: &qp->rx_tasklet
 *
 * Runs one round through the QP's work function (task.c), which in
 * softirq stops after one round and leaves more to qp->work. A QP that
 * runs elsewhere only gets marked pending. The ODP test is repeated
 * here, in the same softirq-disabled section as the round: a device's
 * first ODP MR is published only after synchronize_rcu() (odp.c), so no
 * round that saw none can meet it.
 * Context: softirq (tasklet).
 */
void sib_qp_rx_tasklet(struct tasklet_struct *t)
{
	struct sib_qp *qp = from_tasklet(qp, t, rx_tasklet);

	if (atomic_read(&qp->dev->odp_mrs)) {
		sib_qp_poke(qp);
		return;
	}
	qp->work.func(&qp->work);
}

/**
 * sib_run_map_init() - set up the runner map of a new QP
 * @qp: QP being created
 *
 * One lockdep class for all QPs' runner maps: a run nested in another
 * QP's run takes its map at a deeper subclass (sib_run_acquire()).
 * Context: process.
 */
void sib_run_map_init(struct sib_qp *qp)
{
	static struct lock_class_key key;

	lockdep_init_map(&qp->run.dep_map, "sib_qp_run", &key, 0);
}

/**
 * sib_qp_kick() - schedule the QP's engines
 * @qp: QP
 *
 * Context: any.
 */
void sib_qp_kick(struct sib_qp *qp)
{
	if (!test_bit(SIB_QPF_DESTROYING, &qp->flags))
		queue_work(sib_wq, &qp->work);
}
