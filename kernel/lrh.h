/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: the native InfiniBand packet format (lrh.c): LRH, GRH, VCRC.
 * ib.h declares what cable.c and net.c call; this header adds the
 * pieces net.c's transmit and the KUnit suite (lrh_test.c) use.
 */
#ifndef SIB_LRH_H
#define SIB_LRH_H

#include "softib.h"
#include "ib.h"

/* Local Route Header, 8 bytes (IBTA 7.7), big endian */
struct sib_lrh {
	u8 vl_lver;		/* VL(4) | LVer(4) */
	u8 sl_lnh;		/* SL(4) | resv(2) | LNH(2) */
	__be16 dlid;
	__be16 pktlen;		/* resv(5) | PktLen(11), 4-byte words */
	__be16 slid;
} __packed;

#define SIB_LRH_VL_SHIFT	4
#define SIB_LRH_LVER_MASK	0x0f
#define SIB_LRH_SL_SHIFT	4
#define SIB_LRH_LNH_MASK	0x03
#define SIB_LRH_PKTLEN_MASK	0x07ff
#define SIB_GRH_IPVER		6	/* GRH IPVer (IBTA 8.3.1) */
#define SIB_GRH_NXTHDR_BTH	0x1b	/* GRH NxtHdr of an IBA transport header */
/* the VCRC's CRC register starts at all ones (IBTA 7.8.2) */
#define SIB_VCRC_SEED		0xffff

/**
 * struct sib_lrh_info - the fields of an LRH, parsed (sib_lrh_parse())
 * or to build one (sib_lrh_put())
 */
struct sib_lrh_info {
	u8 vl;
	u8 lver;
	u8 sl;
	u8 lnh;
	u16 dlid;
	u16 slid;
	u16 pktlen;		/* in 4-byte words */
};

void sib_lrh_put(struct sib_lrh *lrh, const struct sib_lrh_info *li);
void sib_lrh_parse(const struct sib_lrh *lrh, struct sib_lrh_info *li);
bool sib_ib_lid_is_mcast(u16 lid);
enum ib_mtu sib_ib_active_mtu(struct sib_dev *dev);
int sib_ib_push_hdrs(struct sib_qp *qp, const struct sib_av *av,
		     struct sk_buff *skb);
int sib_ib_pkt_seal(struct sk_buff *skb);
void sib_ib_rcv_loopback(struct sib_dev *dev, struct sk_buff *skb,
			 struct sib_qp *sender);

#endif /* SIB_LRH_H */
