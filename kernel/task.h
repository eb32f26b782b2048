/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_TASK_H
#define SIB_TASK_H

#include <linux/workqueue.h>

struct sib_qp;

void sib_qp_task(struct work_struct *work);
void sib_qp_run(struct sib_qp *qp, struct sib_qp *parent);
int sib_qp_sq_doorbell(struct sib_qp *qp);

#endif
