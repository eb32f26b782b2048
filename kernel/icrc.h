/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_ICRC_H
#define SIB_ICRC_H

#include <linux/skbuff.h>

int sib_icrc_init(void);
void sib_icrc_exit(void);
u32 sib_icrc(struct sk_buff *skb, unsigned int bth_off, unsigned int len);
u32 sib_icrc_ib(struct sk_buff *skb, unsigned int len);

#endif
