/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_LOOP_H
#define SIB_LOOP_H

#include "softib.h"

struct sib_qp *sib_loop_target(struct sib_qp *qp);
bool sib_ack_xmit_loopback(struct sib_qp *qp, u8 syn, u32 psn);
bool sib_loop_claim(struct sib_qp *qp, struct sib_loop *lp);
void sib_loop_cancel(struct sib_qp *qp, struct sib_loop *lp);
struct sk_buff *sib_loop_skb(struct sib_qp *qp, unsigned int len);
void sib_loop_handoff(struct sib_qp *qp, struct sib_loop *lp,
		      struct sk_buff *skb, u32 paylen);
void sib_loop_handoff_end(struct sib_qp *qp);

#endif
