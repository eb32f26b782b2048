/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_LOOP_H
#define SIB_LOOP_H

#include "softib.h"
#include "task.h"

/**
 * struct sib_loop - a responder claimed for a request handed over directly
 * @rqp: the responder QP, referenced; NULL: none (send a packet)
 * @claim: how (sib_task_claim())
 */
struct sib_loop {
	struct sib_qp *rqp;
	enum sib_claim claim;
};

bool sib_loop_claim(struct sib_qp *qp, struct sib_loop *lp);
void sib_loop_cancel(struct sib_qp *qp, struct sib_loop *lp);
struct sk_buff *sib_loop_skb(struct sib_qp *qp, unsigned int len);
void sib_loop_deliver(struct sib_qp *qp, struct sib_loop *lp,
		      struct sk_buff *skb, u32 paylen);

#endif
