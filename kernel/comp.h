/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_COMP_H
#define SIB_COMP_H

#include "softib.h"

void sib_comp_rcv(struct sib_qp *qp, struct sk_buff *skb);
void sib_comp_ack_rcv(struct sib_qp *qp, u32 psn, u8 syn);
void sib_comp_timeout(struct sib_qp *qp);
void sib_comp_probe(struct sib_qp *qp);

#endif
