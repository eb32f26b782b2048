/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_NET_H
#define SIB_NET_H

#include "softib.h"

typedef int (*sib_encap_rcv_t)(struct sock *sk, struct sk_buff *skb);

struct sib_udp *sib_udp_get(struct net *net, sib_encap_rcv_t rcv);
void sib_udp_put(struct sib_udp *u);
int sib_net_init(void);
void sib_net_fini(void);
struct sk_buff *sib_skb_alloc(struct sib_dev *dev, unsigned int len);
int sib_skb_add_trailer(struct sk_buff *skb, unsigned int n);
void sib_net_push_hdrs(struct sib_dev *dev, const struct sib_av *av,
		       struct sk_buff *skb, u16 sport);
int sib_net_xmit(struct sib_dev *dev, const struct sib_av *av,
		 struct sk_buff *skb);

#endif
