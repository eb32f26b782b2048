/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_RESP_H
#define SIB_RESP_H

#include "softib.h"

void sib_resp_rcv(struct sib_qp *qp, struct sk_buff *skb);
int sib_resp_reads(struct sib_qp *qp, int budget);
void sib_resp_ack_flush(struct sib_qp *qp);

#endif
