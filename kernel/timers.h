/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_TIMERS_H
#define SIB_TIMERS_H

#include "softib.h"

void sib_timers_init(struct sib_qp *qp);
void sib_timers_stop(struct sib_qp *qp);
void sib_timer_retrans_arm(struct sib_qp *qp);
void sib_timer_retrans_progress(struct sib_qp *qp, bool outstanding);
void sib_timer_rnr_start(struct sib_qp *qp, u8 code);

#endif
