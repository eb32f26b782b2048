/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_SCHED_H
#define SIB_SCHED_H

#include "softib.h"

void sib_qp_rx_run(struct sib_qp *qp);
void sib_qp_rx_tasklet(struct tasklet_struct *t);
void sib_qp_poke(struct sib_qp *qp);
void sib_qp_kick(struct sib_qp *qp);
void sib_qp_run_after(struct sib_qp *runner, struct sib_qp *qp);
struct sib_qp *sib_qp_loop_peer(struct sib_qp *qp);
void sib_rxq_purge(struct sib_qp *qp);
enum sib_claim sib_task_claim(struct sib_qp *qp, bool will_run);
bool sib_task_release(struct sib_qp *qp);
void sib_run_map_init(struct sib_qp *qp);

/**
 * sib_sq_user() - does the QP have a user send queue ring?
 * @qp: QP
 *
 * Context: any. Return: true for a user QP with a send ring.
 */
static inline bool sib_sq_user(struct sib_qp *qp)
{
	return qp->is_user && qp->sq.ring.hdr;
}

/**
 * sib_run_acquire() - take the runner map of @qp (debug kernels)
 * @qp: QP whose runner role the caller has just taken (task_state)
 * @depth: 0 for a run of its own, one more for each run it is nested in
 *
 * The map is taken as a trylock: the role itself never waits (task_state
 * decides), so the map only records who runs the QP. Context: a task.
 */
static inline void sib_run_acquire(struct sib_qp *qp, unsigned int depth)
{
	lock_acquire(&qp->run.dep_map, depth, 1, 0, 1, NULL, _RET_IP_);
}

/**
 * sib_run_release() - give back the runner map of @qp
 * @qp: QP
 *
 * Context: the task that took it with sib_run_acquire().
 */
static inline void sib_run_release(struct sib_qp *qp)
{
	lock_release(&qp->run.dep_map, _RET_IP_);
}

/**
 * sib_assert_runner() - the caller runs @qp's engines (debug kernels)
 * @qp: QP
 *
 * Every engine entry says "Context: the QP's run": only the context that
 * holds the runner role may touch the engines' state. Lockdep checks it;
 * without lockdep this is nothing.
 */
static inline void sib_assert_runner(struct sib_qp *qp)
{
	lockdep_assert_held(&qp->run);
}

#endif
