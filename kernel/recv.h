/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_RECV_H
#define SIB_RECV_H

#include "softib.h"

int sib_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
void sib_rcv_loopback(struct sib_dev *dev, struct sk_buff *skb,
		      struct sib_qp *sender);
void sib_mcast_loop(struct sib_dev *dev, struct sk_buff *skb);
struct sib_qp *sib_rcv_loop_known(struct sib_qp *qp, u32 qpn);
void sib_pkt_init(struct sk_buff *skb, u32 paylen, bool loopback, u8 net_type);

#endif
