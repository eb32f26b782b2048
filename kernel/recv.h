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

/*
 * struct sib_ib_rcvd - what the link layer of an InfiniBand device
 * (lrh.c) checked and tells the transport about a packet
 * @slid, @sl: the LRH's
 * @dlid_path_bits: the DLID's bits below the port's LMC
 * @grh: a GRH came; it is at the skb's network header
 * @smp: it came on VL15 for QP0: no P_Key checks (IBTA 10.9.3)
 */
struct sib_ib_rcvd {
	u16 slid;
	u8 sl;
	u8 dlid_path_bits;
	u8 grh;
	u8 smp;
};

void sib_rcv_ib(struct sib_dev *dev, struct sk_buff *skb,
		const struct sib_ib_rcvd *ib, bool loopback,
		struct sib_qp *sender);

#endif
