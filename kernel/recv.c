// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the receive path. UDP -> ICRC -> BTH -> opcode table -> P_Key
 * -> QP -> the QP's receive queue, where its work picks the packet up.
 * Everything read from the wire is checked here before any engine sees
 * it; a bad packet is dropped and counted. Packets the device sends to
 * one of its own GIDs enter here from transmit (net.c), without a wire, a
 * route or an ICRC.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/if_vlan.h>
#include <rdma/ib_addr.h>
#include <net/inet_ecn.h>

#include "recv.h"
#include "hdr.h"
#include "icrc.h"
#include "net.h"
#include "qpcore.h"
#include "sched.h"
#include "trace.h"
#include "mcast.h"

static bool sib_qp_type_ok(struct sib_qp *qp, u32 opflags)
{
	if (opflags & SIB_OPF_UD)
		return qp->ibqp.qp_type == IB_QPT_UD ||
		       qp->ibqp.qp_type == IB_QPT_GSI ||
		       qp->ibqp.qp_type == IB_QPT_SMI;
	if (opflags & SIB_OPF_UC)
		return qp->ibqp.qp_type == IB_QPT_UC;
	if (opflags & SIB_OPF_XRC)
		return qp->ibqp.qp_type == ((opflags & SIB_OPF_REQ) ?
					    IB_QPT_XRC_TGT : IB_QPT_XRC_INI);
	return qp->ibqp.qp_type == IB_QPT_RC;
}

/*
 * XRC packets reach the engines in RC form: the XRCETH's SRQ number moves
 * into the packet info, the BTH closes the gap and takes the RC opcode with
 * the same low bits (XRC responses have the RC layout already). The ICRC
 * was checked on the packet as received.
 */
static int sib_xrc_to_rc(struct sk_buff *skb)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	const struct sib_xrceth *x;

	if (sib_opcode(pkt->opcode)->flags & SIB_OPF_XRCETH) {
		if (skb_ensure_writable(skb, pkt->hdr_len))
			return -ENOMEM;
		x = (const struct sib_xrceth *)(skb->data + SIB_BTH_LEN);
		pkt->xrc_srqn = be32_to_cpu(x->srqn) & SIB_QPN_MASK;
		memmove(skb->data + SIB_XRCETH_LEN, skb->data, SIB_BTH_LEN);
		skb_pull(skb, SIB_XRCETH_LEN);
		pkt->hdr_len -= SIB_XRCETH_LEN;
	} else if (skb_ensure_writable(skb, SIB_BTH_LEN)) {
		return -ENOMEM;
	}
	pkt->opcode &= ~SIB_OP_TRANSPORT_MASK;
	skb->data[0] = pkt->opcode;
	return 0;
}

/*
 * A connected QP hears only its remote port: on RoCEv2 the IP source of an
 * RC, UC or XRC packet is the QP's destination GID (the path set at RTR).
 * Another host that reuses or guesses the QP number (a stale peer of a QP
 * reused after RESET) is not heard, nor made to NAK or ACK at the real
 * peer. Loopback packets are the device's own; the InfiniBand link layer
 * (where LMC path bits let a port send from several LIDs) is not judged.
 */
static bool sib_rcv_from_peer(struct sib_qp *qp, struct sk_buff *skb)
{
	const u8 *dgid = qp->av.dgid.raw;
	const struct sib_pkt *pkt = sib_pkt(skb);

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		break;
	default:
		return true;
	}
	if (pkt->loopback || sib_is_ib(qp->dev))
		return true;
	if (pkt->net_type == RDMA_NETWORK_IPV4)
		return ipv6_addr_v4mapped((const struct in6_addr *)dgid) &&
		       !memcmp(&ip_hdr(skb)->saddr, dgid + 12, 4);
	return !memcmp(&ipv6_hdr(skb)->saddr, dgid, 16);
}

/*
 * Queue a checked packet on @qp's receive queue and get its work going:
 * after the round of @sender (a loopback packet of a QP's engine that may
 * run its peer inline), else in the receiving softirq or @qp's work
 * (sib_qp_rx_run()).
 */
static void sib_rcv_to_qp(struct sib_qp *qp, struct sk_buff *skb,
			  const struct sib_opcode_info *info,
			  struct sib_qp *sender)
{
	if (!sib_qp_type_ok(qp, info->flags) ||
	    ((info->flags & SIB_OPF_XRC) && sib_xrc_to_rc(skb))) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_HDR);
		kfree_skb(skb);
		return;
	}
	/*
	 * QP P_Key check: QP1 takes any P_Key of the port, QP0 checks none
	 * (IBTA 10.9.3)
	 */
	if (qp->ibqp.qp_num != SIB_GSI_QPN && qp->ibqp.qp_num != 0 &&
	    !sib_pkey_match(sib_pkt(skb)->pkey, sib_qp_pkey(qp))) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_PKEY);
		kfree_skb(skb);
		return;
	}
	/*
	 * A QP in ERR takes nothing more (IBTA 10.3.1); what came before a
	 * modify to ERR is still queued for its run. An RSS QP only places
	 * frames on its WQs, whose states decide.
	 */
	if (sib_qp_state(qp) == IB_QPS_ERR && !qp->rss) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_QP_STATE);
		kfree_skb(skb);
		return;
	}
	/* (before RTR the path is not set: the responder drops by state) */
	if (sib_qp_state(qp) >= IB_QPS_RTR && !sib_rcv_from_peer(qp, skb)) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_SRC);
		kfree_skb(skb);
		return;
	}
	if (skb_queue_len(&qp->rxq) >= SIB_RX_QUEUE_MAX) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_RXQ_FULL);
		kfree_skb(skb);
		return;
	}
	skb_queue_tail(&qp->rxq, skb);
	if (sender)
		sib_qp_run_after(sender, qp);
	else
		sib_qp_rx_run(qp);
}

/**
 * sib_rcv_loop_known() - a QP already at hand, when it is the one numbered @qpn
 * @qp: candidate or NULL: the QP a sender's round looped its latest
 *	packet to (sib_qp_loop_peer(): sib_qp_run_after() holds it until
 *	the round ends) or, for a sender running nested, the QP whose run
 *	runs it (loop.parent: alive while its run lasts)
 * @qpn: destination QP number
 *
 * Referenced again without a lookup. A QP being destroyed is left to the
 * lookup, which no longer finds it.
 * Context: the sender's run. Return: @qp referenced, or NULL.
 */
struct sib_qp *sib_rcv_loop_known(struct sib_qp *qp, u32 qpn)
{
	if (!qp || qp->ibqp.qp_num != qpn ||
	    test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return NULL;
	/*
	 * A parent's destroy may drop its last reference while its run,
	 * which runs us, is still under way (the run ends before the QP is
	 * freed): then the lookup, which no longer finds it, decides.
	 */
	if (!refcount_inc_not_zero(&qp->ref))
		return NULL;
	return qp;
}

/*
 * The RoCEv2 GID of the packet's destination IP address, or an IB
 * packet's GRH DGID (the GRH is laid out as an IPv6 header).
 */
static void sib_rcv_dgid(struct sk_buff *skb, union ib_gid *dgid)
{
	if (sib_pkt(skb)->net_type == RDMA_NETWORK_IB)
		memcpy(dgid->raw, skb_network_header(skb) +
		       offsetof(struct ib_grh, dgid), sizeof(dgid->raw));
	else if (ip_hdr(skb)->version == 4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)dgid->raw);
	else
		memcpy(dgid->raw, &ipv6_hdr(skb)->daddr, sizeof(dgid->raw));
}

/*
 * A UD packet to QPN 0xFFFFFF: one copy to each QP attached to the
 * destination group (IBTA 10.5.2.2), in the QPs' work, never inline.
 */
static void sib_rcv_mcast(struct sib_dev *dev, struct sk_buff *skb)
{
	const struct sib_opcode_info *info = sib_opcode(sib_pkt(skb)->opcode);
	u32 qpn[SIB_MAX_MCAST_QP_ATTACH];
	struct sk_buff *copy;
	union ib_gid dgid;
	struct sib_qp *qp;
	u32 i, n;

	sib_rcv_dgid(skb, &dgid);
	n = sib_mcast_qpns(dev, &dgid, qpn);
	if (!n) {
		sib_counter_inc(dev, SIB_CNT_DROP_NO_MCG);
		kfree_skb(skb);
		return;
	}
	sib_counter_inc(dev, SIB_CNT_MCAST_RCVD);
	for (i = 0; i < n; i++) {
		qp = sib_qp_get(dev, qpn[i]);
		if (!qp)
			continue;
		/* the skb data is only read: clones share it */
		copy = i == n - 1 ? skb : skb_clone(skb, GFP_ATOMIC);
		if (copy) {
			if (copy == skb)
				skb = NULL;
			sib_rcv_to_qp(qp, copy, info, NULL);
		}
		sib_qp_put(qp);
	}
	kfree_skb(skb);		/* NULL when the last QP took it */
}

/**
 * sib_pkt_init() - fill a request's or response's packet info from its BTH
 * @skb: packet, data at the BTH, the whole header of its opcode linear
 * @paylen: payload bytes (without pad and ICRC)
 * @loopback: it never left this device
 * @net_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 *
 * Context: any. The header's validity is the caller's to check.
 */
void sib_pkt_init(struct sk_buff *skb, u32 paylen, bool loopback, u8 net_type)
{
	const struct sib_bth *bth = (const struct sib_bth *)skb->data;
	struct sib_pkt *pkt = sib_pkt(skb);

	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = bth->opcode;
	pkt->hdr_len = sib_opcode(bth->opcode)->hdr_len;
	pkt->paylen = paylen;
	pkt->psn = sib_bth_psn(bth);
	pkt->qpn = sib_bth_qpn(bth);
	pkt->ackreq = sib_bth_ackreq(bth);
	pkt->se = sib_bth_se(bth);
	pkt->loopback = loopback;
	pkt->net_type = net_type;
	pkt->pkey = sib_bth_pkey(bth);
}

/* the packet's IP header says ECN Congestion Experienced */
static bool sib_rcv_ce(struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/*
 * A CNP (IBTA Annex A17.9.1), its ICRC checked: for a QP that sends
 * requests (sib_cc_rp_type()) with the reaction point on, flag the QP for
 * its run (cc.c cuts its rate); otherwise count it ignored. A CNP
 * never creates state: one for no QP, with a bad length, version or
 * P_Key is dropped and counted like other bad input.
 */
static void sib_rcv_cnp(struct sib_dev *dev, struct sk_buff *skb)
{
	const struct sib_bth *bth = (const struct sib_bth *)skb->data;
	u16 pkey = sib_bth_pkey(bth);
	struct sib_qp *qp;
	bool rp;

	if (skb->len != SIB_BTH_LEN + SIB_CNP_RSVD_LEN + SIB_ICRC_LEN ||
	    sib_bth_tver(bth) || sib_bth_pad(bth)) {
		sib_counter_inc(dev, SIB_CNT_DROP_HDR);
		goto drop;
	}
	if (!sib_pkey_port_accepts(&dev->pkey, pkey)) {
		sib_counter_inc(dev, SIB_CNT_DROP_PKEY);
		goto drop;
	}
	trace_sib_pkt_rcv(sib_bth_qpn(bth), bth->opcode, 0, 0);
	qp = sib_qp_get(dev, sib_bth_qpn(bth));
	if (!qp) {
		sib_counter_inc(dev, SIB_CNT_DROP_NO_QP);
		goto drop;
	}
	if (qp->ibqp.qp_num != SIB_GSI_QPN &&
	    !sib_pkey_match(pkey, sib_qp_pkey(qp))) {
		sib_counter_inc(dev, SIB_CNT_DROP_PKEY);
	} else {
		rp = READ_ONCE(dev->cc[SIB_CC_RP_ENABLE]) &&
		     sib_cc_rp_type(qp->ibqp.qp_type);
		sib_counter_inc(dev, rp ? SIB_CNT_RP_CNP_HANDLED :
					  SIB_CNT_RP_CNP_IGNORED);
		if (rp && !test_and_set_bit(SIB_QPF_CNP, &qp->flags))
			sib_qp_poke(qp);
	}
	sib_qp_put(qp);
drop:
	kfree_skb(skb);
}

/*
 * @skb->data at the BTH, network and transport headers set; @sender: see
 * sib_rcv_to_qp(); @ib: what an InfiniBand device's link layer (lrh.c)
 * checked, with the ICRC, or NULL for RoCEv2
 */
static void sib_rcv(struct sib_dev *dev, struct sk_buff *skb, bool loopback,
		    struct sib_qp *sender, const struct sib_ib_rcvd *ib)
{
	const struct sib_opcode_info *info;
	struct sib_pkt *pkt = sib_pkt(skb);
	struct sib_bth *bth;
	struct sib_qp *qp;
	unsigned int pad;
	__le32 icrc_buf;
	const __le32 *icrc;

	sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
	if (skb->len < SIB_BTH_LEN + SIB_ICRC_LEN ||
	    !pskb_may_pull(skb, SIB_BTH_LEN))
		goto bad_hdr;
	/*
	 * The ICRC first: it covers every header field judged below, so a
	 * packet damaged on the wire is counted as such and not as a bad
	 * header or a P_Key violation (which would raise false alarms).
	 */
	if (!loopback && !ib) {
		icrc = skb_header_pointer(skb, skb->len - SIB_ICRC_LEN,
					  SIB_ICRC_LEN, &icrc_buf);
		if (!icrc || sib_icrc(skb, 0, skb->len - SIB_ICRC_LEN) !=
		    le32_to_cpu(*icrc)) {
			sib_counter_inc(dev, SIB_CNT_DROP_ICRC);
			goto drop;
		}
	}
	bth = (struct sib_bth *)skb->data;
	if (bth->opcode == SIB_OP_CNP) {
		/* RoCEv2's congestion notification: not an IBA opcode */
		if (ib)
			goto bad_hdr;
		sib_rcv_cnp(dev, skb);
		return;
	}
	info = sib_opcode(bth->opcode);
	pad = sib_bth_pad(bth);
	/*
	 * every header is a multiple of 4 bytes and the pad count makes the
	 * payload one (IBTA 9.2, 9.6.1): a length that is not would leave
	 * payload and pad disagreeing
	 */
	if (!(info->flags & SIB_OPF_VALID) || sib_bth_tver(bth) ||
	    skb->len < info->hdr_len + pad + SIB_ICRC_LEN || (skb->len & 3))
		goto bad_hdr;
	/* the engines read headers at skb->data, payload with skb_copy_bits */
	if (!pskb_may_pull(skb, info->hdr_len))
		goto bad_hdr;
	sib_pkt_init(skb, skb->len - info->hdr_len - pad - SIB_ICRC_LEN,
		     loopback, ib ? RDMA_NETWORK_IB :
		     ip_hdr(skb)->version == 4 ? RDMA_NETWORK_IPV4 :
						 RDMA_NETWORK_IPV6);
	if (ib) {
		pkt->grh = ib->grh;
		pkt->sl = ib->sl;
		pkt->slid = ib->slid;
		pkt->dlid_path_bits = ib->dlid_path_bits;
	}
	if (!(info->flags & SIB_OPF_PAYLOAD) && (pkt->paylen || pad))
		goto bad_hdr;
	/*
	 * port P_Key check (IBTA 10.9.3) before anything else looks at it;
	 * SMPs (VL15, QP0) are not checked
	 */
	if (!(ib && ib->smp) && !sib_pkey_port_accepts(&dev->pkey, pkt->pkey)) {
		sib_counter_inc(dev, SIB_CNT_DROP_PKEY);
		goto drop;
	}
	/* for the notification point, in the QP's run (cc.c); IP's ECN */
	if (!loopback && !ib && sib_rcv_ce(skb)) {
		pkt->ce = 1;
		sib_counter_inc(dev, SIB_CNT_NP_ECN_MARKED);
	}
	trace_sib_pkt_rcv(pkt->qpn, pkt->opcode, pkt->psn, pkt->paylen);
	if (pkt->qpn == IB_MULTICAST_QPN) {
		if (!(info->flags & SIB_OPF_UD))
			goto bad_hdr;
		sib_rcv_mcast(dev, skb);
		return;
	}
	qp = sender ? sib_rcv_loop_known(sib_qp_loop_peer(sender), pkt->qpn) : NULL;
	if (!qp)
		qp = sib_qp_get(dev, pkt->qpn);
	if (!qp) {
		sib_counter_inc(dev, SIB_CNT_DROP_NO_QP);
		goto drop;
	}
	sib_rcv_to_qp(qp, skb, info, sender);
	sib_qp_put(qp);
	return;

bad_hdr:
	sib_counter_inc(dev, SIB_CNT_DROP_HDR);
drop:
	kfree_skb(skb);
}

/**
 * sib_udp_encap_recv() - encap_rcv of the UDP tunnel sockets
 * @sk: socket
 * @skb: packet, data at the UDP header
 *
 * Context: softirq. Return: 0 (the packet is always consumed).
 */
int sib_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	struct ib_device *ibdev;
	struct udphdr *udp;
	unsigned int ulen;

	/*
	 * Our own multicast, looped back by the IP layer: sib_pkt_xmit()
	 * already handed it to the local group members.
	 */
	if (skb->pkt_type == PACKET_LOOPBACK)
		goto drop;
	ibdev = ib_device_get_by_netdev(ndev, (enum rdma_driver_id)SIB_DRIVER_ID);
	if (!ibdev && is_vlan_dev(ndev))
		ibdev = ib_device_get_by_netdev(vlan_dev_real_dev(ndev),
						(enum rdma_driver_id)SIB_DRIVER_ID);
	if (!ibdev)
		goto drop;
	/* headers are pulled as needed, the payload stays in fragments */
	if (!pskb_may_pull(skb, sizeof(*udp) + SIB_BTH_LEN))
		goto put;
	udp = udp_hdr(skb);
	ulen = ntohs(udp->len);
	if (ulen < sizeof(*udp) || ulen > skb->len ||
	    (void *)udp != (void *)skb->data)
		goto put;
	if (pskb_trim(skb, ulen))
		goto put;
	skb_pull(skb, sizeof(*udp));
	nf_reset_ct(skb);
	skb_dst_drop(skb);
	sib_rcv(to_sib_dev(ibdev), skb, false, NULL, NULL);
	ib_device_put(ibdev);
	return 0;
put:
	sib_counter_inc(to_sib_dev(ibdev), SIB_CNT_DROP_HDR);
	ib_device_put(ibdev);
drop:
	kfree_skb(skb);
	return 0;
}

/**
 * sib_rcv_loopback() - receive a packet sent to one of the device's own GIDs
 * @dev: device
 * @skb: the packet as built for the wire (IP and UDP headers pushed, no
 *	 ICRC); consumed
 * @sender: the sending QP when its run may run the destination after its
 *	    round (sib_qp_run_after()), else NULL
 *
 * No wire, route or ICRC: the packet enters the receive path at its BTH.
 * Context: the sender's run, or any for NULL @sender.
 */
void sib_rcv_loopback(struct sib_dev *dev, struct sk_buff *skb,
		      struct sib_qp *sender)
{
	sib_counter_inc(dev, SIB_CNT_LOOPBACK_PKTS);
	skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	skb->dev = dev->ndev;
	sib_rcv(dev, skb, true, sender, NULL);
}

/**
 * sib_rcv_ib() - receive an InfiniBand device's packet at its BTH
 * @dev: device (sib_is_ib())
 * @skb: the packet, skb->data at the BTH, ending with the ICRC; the GRH,
 *	 when one came, at the network header; consumed
 * @ib: what the link layer (lrh.c) checked and read: its LRH and VCRC,
 *	DLID, VL, port state and the ICRC are checked already
 * @loopback: the port sent it to itself
 * @sender: see sib_rcv_loopback(); NULL from the cable
 *
 * The transport's checks (BTH, opcode, lengths, P_Keys but for SMPs, QP)
 * and the delivery as for RoCEv2; UD completions report @ib's SLID, SL,
 * path bits and the GRH. Context: softirq, or the sender's run.
 */
void sib_rcv_ib(struct sib_dev *dev, struct sk_buff *skb,
		const struct sib_ib_rcvd *ib, bool loopback,
		struct sib_qp *sender)
{
	skb->dev = dev->ndev;
	sib_rcv(dev, skb, loopback, sender, ib);
}

/**
 * sib_mcast_loop() - a multicast packet for the device's own group members
 * @dev: device
 * @skb: the packet as built for the wire; only read
 *
 * Every attached QP in the subnet gets it, the sender's port included
 * (IBTA 10.5.2.2), as if it had come back from the wire. The copy is
 * private: the wire path still rewrites the IP header and appends the
 * ICRC. Context: the sender's run.
 */
void sib_mcast_loop(struct sib_dev *dev, struct sk_buff *skb)
{
	struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

	if (copy)
		sib_rcv_loopback(dev, copy, NULL);
}
