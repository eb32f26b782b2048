/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_RECV_H
#define SIB_RECV_H

#include "softib.h"

int sib_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
int sib_pkt_xmit(struct sib_qp *qp, const struct sib_av *av,
		 struct sk_buff *skb);
bool sib_ack_xmit_loopback(struct sib_qp *qp, u8 syn, u32 psn);
struct sib_qp *sib_loop_target(struct sib_qp *qp);
void sib_pkt_init(struct sk_buff *skb, u32 paylen, bool loopback, u8 net_type);

#endif
