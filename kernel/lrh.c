// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the InfiniBand link layer, lrh.c's part (see ib.h): the packet
 * format on the cable.
 *
 * Transmit: the engines build BTH..payload..ICRC room exactly as for
 * RoCEv2; sib_ib_push_hdrs() puts a GRH (when the AV asks for one or the
 * DLID is multicast) and the LRH in front, sib_ib_pkt_seal() fills in the
 * native ICRC (IBTA 7.8.1, icrc.c's sib_icrc_ib()) and appends the VCRC
 * (IBTA 7.8.2). On the cable a packet is LRH [GRH] BTH ... ICRC VCRC.
 *
 * Byte order of the CRCs on the cable: the ICRC is written least
 * significant byte first, as RoCEv2's; the VCRC (and the cable's link
 * packets' LPCRC, which use sib_vcrc() too) likewise, with
 * put_unaligned_le16(). Both ends are softib: what matters is that they
 * agree, and they use these functions.
 *
 * Receive: sib_ib_rcv() checks the LRH (length, LVer, LNH, VL), the VCRC,
 * the DLID, the port state and the ICRC, counting every drop, and hands
 * the packet at its BTH to recv.c with what the LRH and GRH said.
 */
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "lrh.h"
#include "hdr.h"
#include "icrc.h"
#include "recv.h"
#include "counters.h"

/* CRC-16, polynomial 0x100B, processed least significant bit first */
static const u16 sib_vcrc_table[256] = {
	0x0000, 0x1ba1, 0x3742, 0x2ce3, 0x6e84, 0x7525, 0x59c6, 0x4267,
	0xdd08, 0xc6a9, 0xea4a, 0xf1eb, 0xb38c, 0xa82d, 0x84ce, 0x9f6f,
	0x1a01, 0x01a0, 0x2d43, 0x36e2, 0x7485, 0x6f24, 0x43c7, 0x5866,
	0xc709, 0xdca8, 0xf04b, 0xebea, 0xa98d, 0xb22c, 0x9ecf, 0x856e,
	0x3402, 0x2fa3, 0x0340, 0x18e1, 0x5a86, 0x4127, 0x6dc4, 0x7665,
	0xe90a, 0xf2ab, 0xde48, 0xc5e9, 0x878e, 0x9c2f, 0xb0cc, 0xab6d,
	0x2e03, 0x35a2, 0x1941, 0x02e0, 0x4087, 0x5b26, 0x77c5, 0x6c64,
	0xf30b, 0xe8aa, 0xc449, 0xdfe8, 0x9d8f, 0x862e, 0xaacd, 0xb16c,
	0x6804, 0x73a5, 0x5f46, 0x44e7, 0x0680, 0x1d21, 0x31c2, 0x2a63,
	0xb50c, 0xaead, 0x824e, 0x99ef, 0xdb88, 0xc029, 0xecca, 0xf76b,
	0x7205, 0x69a4, 0x4547, 0x5ee6, 0x1c81, 0x0720, 0x2bc3, 0x3062,
	0xaf0d, 0xb4ac, 0x984f, 0x83ee, 0xc189, 0xda28, 0xf6cb, 0xed6a,
	0x5c06, 0x47a7, 0x6b44, 0x70e5, 0x3282, 0x2923, 0x05c0, 0x1e61,
	0x810e, 0x9aaf, 0xb64c, 0xaded, 0xef8a, 0xf42b, 0xd8c8, 0xc369,
	0x4607, 0x5da6, 0x7145, 0x6ae4, 0x2883, 0x3322, 0x1fc1, 0x0460,
	0x9b0f, 0x80ae, 0xac4d, 0xb7ec, 0xf58b, 0xee2a, 0xc2c9, 0xd968,
	0xd008, 0xcba9, 0xe74a, 0xfceb, 0xbe8c, 0xa52d, 0x89ce, 0x926f,
	0x0d00, 0x16a1, 0x3a42, 0x21e3, 0x6384, 0x7825, 0x54c6, 0x4f67,
	0xca09, 0xd1a8, 0xfd4b, 0xe6ea, 0xa48d, 0xbf2c, 0x93cf, 0x886e,
	0x1701, 0x0ca0, 0x2043, 0x3be2, 0x7985, 0x6224, 0x4ec7, 0x5566,
	0xe40a, 0xffab, 0xd348, 0xc8e9, 0x8a8e, 0x912f, 0xbdcc, 0xa66d,
	0x3902, 0x22a3, 0x0e40, 0x15e1, 0x5786, 0x4c27, 0x60c4, 0x7b65,
	0xfe0b, 0xe5aa, 0xc949, 0xd2e8, 0x908f, 0x8b2e, 0xa7cd, 0xbc6c,
	0x2303, 0x38a2, 0x1441, 0x0fe0, 0x4d87, 0x5626, 0x7ac5, 0x6164,
	0xb80c, 0xa3ad, 0x8f4e, 0x94ef, 0xd688, 0xcd29, 0xe1ca, 0xfa6b,
	0x6504, 0x7ea5, 0x5246, 0x49e7, 0x0b80, 0x1021, 0x3cc2, 0x2763,
	0xa20d, 0xb9ac, 0x954f, 0x8eee, 0xcc89, 0xd728, 0xfbcb, 0xe06a,
	0x7f05, 0x64a4, 0x4847, 0x53e6, 0x1181, 0x0a20, 0x26c3, 0x3d62,
	0x8c0e, 0x97af, 0xbb4c, 0xa0ed, 0xe28a, 0xf92b, 0xd5c8, 0xce69,
	0x5106, 0x4aa7, 0x6644, 0x7de5, 0x3f82, 0x2423, 0x08c0, 0x1361,
	0x960f, 0x8dae, 0xa14d, 0xbaec, 0xf88b, 0xe32a, 0xcfc9, 0xd468,
	0x4b07, 0x50a6, 0x7c45, 0x67e4, 0x2583, 0x3e22, 0x12c1, 0x0960,
};

/**
 * sib_vcrc() - the variant CRC of IBTA 7.8.2 (and of link packets)
 * @data: bytes
 * @len: their number
 * @crc: the CRC register to start from: SIB_VCRC_SEED (all ones, IBTA
 *	 7.8.2) for the first byte of a packet, or the inverted result of a
 *	 call over the bytes before @data to continue over a further piece
 *
 * A 16-bit CRC with polynomial 0x100B, bits taken least significant
 * first, the result inverted: sib_vcrc(p, n, SIB_VCRC_SEED) is the value
 * to write on the cable with put_unaligned_le16().
 * Context: any. Return: the CRC.
 */
u16 sib_vcrc(const void *data, size_t len, u16 crc)
{
	const u8 *p = data;

	while (len--)
		crc = (crc >> 8) ^ sib_vcrc_table[(crc ^ *p++) & 0xff];
	return ~crc;
}

/* sib_vcrc() over @len bytes of @skb from @off, fragments included */
static u16 sib_vcrc_skb(struct sk_buff *skb, unsigned int off,
			unsigned int len)
{
	struct skb_seq_state st;
	unsigned int consumed = 0, n;
	const u8 *data;
	u16 crc = SIB_VCRC_SEED;	/* the register, not inverted */

	if (off + len <= skb_headlen(skb))
		return sib_vcrc(skb->data + off, len, SIB_VCRC_SEED);
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(consumed, &data, &st)) != 0) {
		n = min(n, len - consumed);
		crc = (u16)~sib_vcrc(data, n, crc);
		consumed += n;
		if (consumed >= len) {
			skb_abort_seq_read(&st);
			break;
		}
	}
	return (u16)~crc;
}

/**
 * sib_lrh_put() - write an LRH
 * @lrh: where
 * @li: its fields (@li->pktlen in 4-byte words; reserved bits are 0)
 *
 * Context: any.
 */
void sib_lrh_put(struct sib_lrh *lrh, const struct sib_lrh_info *li)
{
	lrh->vl_lver = (li->vl << SIB_LRH_VL_SHIFT) |
		       (li->lver & SIB_LRH_LVER_MASK);
	lrh->sl_lnh = (li->sl << SIB_LRH_SL_SHIFT) | (li->lnh & SIB_LRH_LNH_MASK);
	lrh->dlid = cpu_to_be16(li->dlid);
	lrh->pktlen = cpu_to_be16(li->pktlen & SIB_LRH_PKTLEN_MASK);
	lrh->slid = cpu_to_be16(li->slid);
}

/**
 * sib_lrh_parse() - read an LRH's fields
 * @lrh: the header (from the wire: any value)
 * @li: out
 *
 * Context: any.
 */
void sib_lrh_parse(const struct sib_lrh *lrh, struct sib_lrh_info *li)
{
	li->vl = lrh->vl_lver >> SIB_LRH_VL_SHIFT;
	li->lver = lrh->vl_lver & SIB_LRH_LVER_MASK;
	li->sl = lrh->sl_lnh >> SIB_LRH_SL_SHIFT;
	li->lnh = lrh->sl_lnh & SIB_LRH_LNH_MASK;
	li->dlid = be16_to_cpu(lrh->dlid);
	li->pktlen = be16_to_cpu(lrh->pktlen) & SIB_LRH_PKTLEN_MASK;
	li->slid = be16_to_cpu(lrh->slid);
}

/**
 * sib_ib_lid_is_mcast() - is @lid a multicast LID (IBTA 7.11.1)?
 * @lid: LID
 *
 * Context: any. Return: true for 0xC000..0xFFFE (the permissive LID
 * 0xFFFF is not multicast).
 */
bool sib_ib_lid_is_mcast(u16 lid)
{
	return lid >= SIB_IB_MCAST_LID_BASE && lid != SIB_IB_LID_PERMISSIVE;
}

/**
 * sib_ib_active_mtu() - the active MTU of an InfiniBand device's port
 * @dev: device with sib_is_ib()
 *
 * The smaller of the port's MtuCap (what the carrier netdev can carry)
 * and the NeighborMTU the SM set (IBTA 14.2.5.6); MtuCap while the SM
 * has set none. Context: any. Return: the MTU.
 */
enum ib_mtu sib_ib_active_mtu(struct sib_dev *dev)
{
	enum ib_mtu cap = sib_ib_mtu_cap(dev);
	enum ib_mtu nbr = READ_ONCE(dev->ib->neighbor_mtu);

	return nbr && nbr < cap ? nbr : cap;
}

static bool sib_ib_is_smi(struct sib_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_SMI;
}

/* the SLID of a packet from the port: base LID | path bits under LMC */
static u16 sib_ib_slid(struct sib_dev *dev, u8 path_bits)
{
	u16 lid = READ_ONCE(dev->ib->lid);
	u8 lmc = READ_ONCE(dev->ib->lmc) & 7;

	/* no LID yet: only SMPs leave, from the permissive LID (14.2.2) */
	if (!lid)
		return SIB_IB_LID_PERMISSIVE;
	return lid | (path_bits & ((1U << lmc) - 1));
}

static void sib_ib_push_grh(const struct sib_av *av, struct sk_buff *skb)
{
	struct ib_grh *grh;
	u32 paylen = skb->len;		/* BTH up to the ICRC, inclusive */

	grh = skb_push(skb, SIB_GRH_LEN);
	grh->version_tclass_flow =
		cpu_to_be32((SIB_GRH_IPVER << 28) |
			    ((u32)av->traffic_class << 20) |
			    (av->flow_label & IB_GRH_FLOWLABEL_MASK));
	grh->paylen = cpu_to_be16(paylen);
	grh->next_hdr = SIB_GRH_NXTHDR_BTH;
	grh->hop_limit = av->hop_limit;
	grh->sgid = av->sgid;
	grh->dgid = av->dgid;
}

/**
 * sib_ib_push_hdrs() - put the GRH and the LRH in front of the BTH
 * @qp: sending QP (QP0 sends on VL15 with SL 0)
 * @av: destination (an InfiniBand AV, see struct sib_av)
 * @skb: from sib_skb_alloc(), skb->data at the BTH, the BTH up to the
 *	 ICRC room built; not consumed
 *
 * The LRH (IBTA 7.7): VL 15 for QP0, else the port's SL2VL entry of the
 * AV's SL; LVer 0; LNH local or global; DLID; PktLen in 4-byte words
 * from the LRH to the ICRC inclusive; SLID the port's base LID with the
 * AV's path bits under the LMC. A GRH (IBTA 8.3) goes in when the AV says
 * so or the DLID is multicast. The port state rules of IBTA 7.2: data
 * leaves only an ACTIVE port, SMPs any port whose physical link is up
 * or that the SM disabled while its cable drains (the reply to that
 * SubnSet); the rest is counted (send_port_state_err) and refused.
 * Context: the QP's run (any context, no sleeping). Return: 0 with
 * skb->data at the LRH and the network header at the GRH (when there is
 * one); -ENETDOWN (port state, counted), -ENOMEM (no headroom),
 * -EMSGSIZE (longer than PktLen can say).
 */
int sib_ib_push_hdrs(struct sib_qp *qp, const struct sib_av *av,
		     struct sk_buff *skb)
{
	struct sib_dev *dev = qp->dev;
	bool smi = sib_ib_is_smi(qp);
	struct sib_lrh_info li = {};
	bool grh;

	/*
	 * SMPs while the link is up, and from a port the SM just disabled
	 * while its cable drains (the reply to that Set; cable.c drops
	 * them once the link is down); data only when ACTIVE
	 */
	if (smi ? READ_ONCE(dev->ib->phys_state) == IB_PORT_PHYS_STATE_POLLING :
		  sib_ib_state(dev) != IB_PORT_ACTIVE) {
		sib_counter_inc(dev, SIB_CNT_IB_XMIT_PORT_STATE);
		return -ENETDOWN;
	}
	grh = av->grh || sib_ib_lid_is_mcast(av->dlid);
	if (skb_cow_head(skb, SIB_LRH_LEN + (grh ? SIB_GRH_LEN : 0)))
		return -ENOMEM;
	if (grh) {
		sib_ib_push_grh(av, skb);
		skb_reset_network_header(skb);
	}
	if (skb->len + SIB_LRH_LEN > SIB_LRH_PKTLEN_MASK * 4 ||
	    (skb->len & 3))
		return -EMSGSIZE;
	li.vl = smi ? SIB_IB_VL_SMP : READ_ONCE(dev->ib->sl2vl[av->sl & 0xf]) & 0xf;
	li.sl = smi ? 0 : av->sl & 0xf;
	li.lnh = grh ? SIB_IB_LNH_GLOBAL : SIB_IB_LNH_LOCAL;
	li.dlid = av->dlid;
	li.slid = sib_ib_slid(dev, av->src_path_bits);
	li.pktlen = (skb->len + SIB_LRH_LEN) / 4;
	sib_lrh_put(skb_push(skb, SIB_LRH_LEN), &li);
	skb_reset_mac_header(skb);
	return 0;
}

/*
 * Room for the VCRC after the ICRC: in the linear part when the packet is
 * linear and has tailroom, else in a page fragment of its own (the ICRC
 * may already sit in one, see sib_skb_add_trailer()).
 */
static void *sib_ib_vcrc_room(struct sk_buff *skb)
{
	struct page *page;
	void *p;

	if (!skb_is_nonlinear(skb) && skb_tailroom(skb) >= SIB_VCRC_LEN)
		return skb_put(skb, SIB_VCRC_LEN);
	if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS) {
		if (skb_linearize(skb) || (skb_tailroom(skb) < SIB_VCRC_LEN &&
		    pskb_expand_head(skb, 0, SIB_VCRC_LEN, GFP_ATOMIC)))
			return NULL;
		return skb_put(skb, SIB_VCRC_LEN);
	}
	p = netdev_alloc_frag(SMP_CACHE_BYTES);
	if (!p)
		return NULL;
	page = virt_to_head_page(p);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   p - page_address(page), SIB_VCRC_LEN);
	skb->len += SIB_VCRC_LEN;
	skb->data_len += SIB_VCRC_LEN;
	skb->truesize += SMP_CACHE_BYTES;
	return p;
}

/**
 * sib_ib_pkt_seal() - fill in the ICRC and append the VCRC
 * @skb: packet from sib_ib_push_hdrs(), skb->data at the LRH; not
 *	 consumed
 *
 * The ICRC (IBTA 7.8.1, sib_icrc_ib()) goes into the last 4 bytes,
 * little endian; then the VCRC (7.8.2) over LRH..ICRC follows, little
 * endian. Context: any. Return: 0 or -ENOMEM.
 */
int sib_ib_pkt_seal(struct sk_buff *skb)
{
	unsigned int len = skb->len - SIB_ICRC_LEN;
	__le32 icrc = cpu_to_le32(sib_icrc_ib(skb, len));
	u16 vcrc;
	void *p;

	/* the trailer may sit in a page fragment */
	if (skb_store_bits(skb, len, &icrc, sizeof(icrc)))
		return -ENOMEM;
	vcrc = sib_vcrc_skb(skb, 0, skb->len);
	p = sib_ib_vcrc_room(skb);
	if (!p)
		return -ENOMEM;
	put_unaligned_le16(vcrc, p);
	return 0;
}

/**
 * sib_ib_pkt_build() - make a native IB packet of an engine's packet
 * @qp: sending QP
 * @av: destination (InfiniBand AV)
 * @skb: from sib_skb_alloc(), skb->data at the BTH, BTH..payload..ICRC
 *	 room built as for RoCEv2; not consumed
 *
 * sib_ib_push_hdrs() then sib_ib_pkt_seal(): on return the packet reads
 * LRH [GRH] BTH ... ICRC VCRC, ready for sib_cable_xmit().
 * Context: the QP's run. Return: 0, or -errno of sib_ib_push_hdrs() or
 * sib_ib_pkt_seal().
 */
int sib_ib_pkt_build(struct sib_qp *qp, const struct sib_av *av,
		     struct sk_buff *skb)
{
	int err = sib_ib_push_hdrs(qp, av, skb);

	return err ?: sib_ib_pkt_seal(skb);
}

/* the GRH a packet brought: IPv6-like version and an IBA next header */
static bool sib_ib_grh_ok(struct sk_buff *skb, unsigned int pktlen)
{
	const struct ib_grh *grh = (void *)(skb->data + SIB_LRH_LEN);

	return (be32_to_cpu(grh->version_tclass_flow) >> 28) == SIB_GRH_IPVER &&
	       grh->next_hdr == SIB_GRH_NXTHDR_BTH &&
	       be16_to_cpu(grh->paylen) == pktlen - SIB_LRH_LEN - SIB_GRH_LEN;
}

/*
 * VL, SLID and DLID rules: VL15 carries only SMPs, to QP0, and only VL15
 * may use the permissive DLID; a data VL is one of the port's operational
 * VLs (OperationalVLs: VL0 alone), never reaches QP0 and comes from a
 * unicast SLID (IBTA 7.11.1: LID 0 is reserved, multicast and permissive
 * LIDs are no source); a multicast DLID goes with a GRH and QP 0xFFFFFF,
 * a unicast one must be the port's.
 * Return: 0 or the counter to count the drop with.
 */
static int sib_ib_rcv_route(struct sib_dev *dev,
			    const struct sib_lrh_info *li, u32 dqpn,
			    struct sib_ib_rcvd *ib)
{
	bool smp = li->vl == SIB_IB_VL_SMP;

	if (smp != (dqpn == 0))
		return SIB_CNT_IB_DROP_VL;
	/* a data VL beyond the port's OperationalVLs (IBTA 7.6.3) */
	if (!smp && !sib_ib_port_vl_ok(dev->ib, li->vl))
		return SIB_CNT_IB_DROP_VL;
	ib->smp = smp;
	if (!smp && (!li->slid || li->slid >= SIB_IB_MCAST_LID_BASE))
		return SIB_CNT_IB_DROP_LRH;
	if (li->dlid == SIB_IB_LID_PERMISSIVE)
		return smp ? 0 : SIB_CNT_IB_DROP_DLID;
	if (sib_ib_lid_is_mcast(li->dlid))
		return li->lnh == SIB_IB_LNH_GLOBAL && dqpn == IB_MULTICAST_QPN &&
		       !smp ? 0 : SIB_CNT_IB_DROP_DLID;
	if (dqpn == IB_MULTICAST_QPN ||
	    !sib_ib_lid_match(dev, li->dlid, &ib->dlid_path_bits))
		return SIB_CNT_IB_DROP_DLID;
	return 0;
}

/*
 * The receive checks, in the order a damaged packet is best told apart
 * by: its length and LRH, the VCRC (covers everything), then where it
 * goes, the port state, the ICRC. @loopback: built by this port for
 * itself, never on a cable: no VCRC, no CRC checks.
 */
static void sib_ib_rcv_pkt(struct sib_dev *dev, struct sk_buff *skb,
			   bool loopback, struct sib_qp *sender)
{
	struct sib_ib_rcvd ib = {};
	struct sib_lrh_info li = {};
	enum ib_port_state state;
	unsigned int hlen, pktlen;
	__le16 vcrc_buf;
	__le32 icrc_buf;
	const void *crc;
	int drop;

	if (!pskb_may_pull(skb, SIB_LRH_LEN))
		goto bad_lrh;
	sib_lrh_parse((const struct sib_lrh *)skb->data, &li);
	if (li.lver || (li.lnh != SIB_IB_LNH_LOCAL && li.lnh != SIB_IB_LNH_GLOBAL))
		goto bad_lrh;
	hlen = SIB_LRH_LEN + (li.lnh == SIB_IB_LNH_GLOBAL ? SIB_GRH_LEN : 0);
	pktlen = li.pktlen * 4;
	if (pktlen + (loopback ? 0 : SIB_VCRC_LEN) != skb->len ||
	    pktlen < hlen + SIB_BTH_LEN + SIB_ICRC_LEN ||
	    !pskb_may_pull(skb, hlen + SIB_BTH_LEN))
		goto bad_lrh;
	if (!loopback) {
		crc = skb_header_pointer(skb, pktlen, SIB_VCRC_LEN, &vcrc_buf);
		if (!crc || sib_vcrc_skb(skb, 0, pktlen) != get_unaligned_le16(crc)) {
			sib_counter_inc(dev, SIB_CNT_IB_DROP_VCRC);
			goto drop;
		}
	}
	if (li.lnh == SIB_IB_LNH_GLOBAL && !sib_ib_grh_ok(skb, pktlen))
		goto bad_lrh;
	drop = sib_ib_rcv_route(dev, &li,
				sib_bth_qpn((struct sib_bth *)(skb->data + hlen)),
				&ib);
	if (drop) {
		sib_counter_inc(dev, drop);
		goto drop;
	}
	/* IBTA 7.2: data only in Armed or Active, SMPs in any state */
	state = sib_ib_state(dev);
	if (!ib.smp && state != IB_PORT_ARMED && state != IB_PORT_ACTIVE) {
		sib_counter_inc(dev, SIB_CNT_IB_DROP_PORT_STATE);
		goto drop;
	}
	if (!loopback) {
		crc = skb_header_pointer(skb, pktlen - SIB_ICRC_LEN,
					 SIB_ICRC_LEN, &icrc_buf);
		if (!crc || sib_icrc_ib(skb, pktlen - SIB_ICRC_LEN) !=
		    get_unaligned_le32(crc)) {
			sib_counter_inc(dev, SIB_CNT_DROP_ICRC);
			goto drop;
		}
		if (pskb_trim(skb, pktlen))
			goto drop;
	}
	if (ib.smp)
		sib_counter_inc(dev, SIB_CNT_IB_SMP_RCVD);
	else
		sib_ib_data_rcvd(dev);	/* IBTA 7.2.6: ARMED -> ACTIVE */
	ib.slid = li.slid;
	ib.sl = li.sl;
	ib.grh = li.lnh == SIB_IB_LNH_GLOBAL;
	if (ib.grh)
		skb_set_network_header(skb, SIB_LRH_LEN);
	skb_pull(skb, hlen);
	sib_rcv_ib(dev, skb, &ib, loopback, sender);
	return;

bad_lrh:
	sib_counter_inc(dev, SIB_CNT_IB_DROP_LRH);
drop:
	/* PortCounters VL15Dropped (IBTA 16.1.3.5): an SMP the port dropped */
	if (li.vl == SIB_IB_VL_SMP)
		sib_counter_inc(dev, SIB_CNT_IB_VL15_DROPPED);
	kfree_skb(skb);
}

/**
 * sib_ib_rcv() - receive a packet from the cable
 * @dev: InfiniBand device whose cable it came on
 * @skb: the packet, skb->data at the LRH, ending with the VCRC; consumed
 *
 * Checks, each drop counted: the length against the LRH's PktLen, LVer
 * 0, LNH (IBA local or global; raw packets are not taken), the VCRC
 * (rcvd_vcrc_err), the GRH's IPVer/NxtHdr/PayLen (rcvd_lrh_err), the VL
 * (VL15 only to QP0, QP0 only on VL15, a data VL one of the port's
 * OperationalVLs: rcvd_vl_err), a data packet's
 * SLID (unicast: rcvd_lrh_err), the DLID (the
 * port's LIDs under its LMC, multicast with a GRH to QP 0xFFFFFF, the
 * permissive LID on VL15 only: rcvd_dlid_err), the port state (data in
 * Armed or Active only, IBTA 7.2: rcvd_port_state_err), the ICRC
 * (rcvd_icrc_err); a dropped VL15 packet also counts in vl15_dropped.
 * A data packet that passes moves an ARMED port to ACTIVE (IBTA 7.2.6),
 * an SMP counts in smp_rcvd. Then the transport's checks and delivery
 * (recv.c).
 * Context: softirq or process (no sleeping).
 */
void sib_ib_rcv(struct sib_dev *dev, struct sk_buff *skb)
{
	/* the cable counted the bytes (ib_rcvd_bytes) */
	sib_ib_rcv_pkt(dev, skb, false, NULL);
}

/**
 * sib_ib_rcv_loopback() - receive a packet the port sent to itself
 * @dev: InfiniBand device
 * @skb: from sib_ib_push_hdrs() (no CRCs), skb->data at the LRH; consumed
 * @sender: the sending QP when its run may run the destination after its
 *	    round (see sib_rcv_loopback()), else NULL
 *
 * A DLID of the port's own, or a multicast packet's copy for the port's
 * own group members: the LRH checks and the port state rules apply, no
 * CRC is computed or checked. Context: the sender's run.
 */
void sib_ib_rcv_loopback(struct sib_dev *dev, struct sk_buff *skb,
			 struct sib_qp *sender)
{
	sib_counter_inc(dev, SIB_CNT_LOOPBACK_PKTS);
	sib_ib_rcv_pkt(dev, skb, true, sender);
}
