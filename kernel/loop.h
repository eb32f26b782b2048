/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_LOOP_H
#define SIB_LOOP_H

#include "softib.h"

bool sib_loop_direct(struct sib_qp *qp, struct sk_buff *skb, u32 paylen);

#endif
