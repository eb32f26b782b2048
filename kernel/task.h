/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_TASK_H
#define SIB_TASK_H

#include <linux/workqueue.h>

struct sib_qp;

void sib_qp_task(struct work_struct *work);
void sib_qp_run(struct sib_qp *qp, struct sib_qp *parent);
void sib_qp_poke(struct sib_qp *qp);
void sib_qp_run_after(struct sib_qp *runner, struct sib_qp *qp);
void sib_rxq_purge(struct sib_qp *qp);

enum sib_claim {
	SIB_CLAIM_NONE,
	SIB_CLAIM_TAKEN,
	SIB_CLAIM_OWN,
};

enum sib_claim sib_task_claim(struct sib_qp *qp, bool will_run);
bool sib_task_release(struct sib_qp *qp);

#endif
