// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the receive path. UDP -> ICRC -> BTH -> opcode table -> P_Key
 * -> QP -> the QP's receive queue, where its work picks the packet up.
 * Everything read from the wire is checked here before any engine sees
 * it; a bad packet is dropped and counted. Also the transmit entry of the
 * engines: packets to one of the device's own GIDs are looped straight
 * back into this path without a wire, a route or an ICRC.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/if_vlan.h>
#include <rdma/ib_addr.h>

#include "recv.h"
#include "hdr.h"
#include "icrc.h"
#include "net.h"
#include "qp.h"
#include "task.h"
#include "trace.h"
#include "mcast.h"

static bool sib_qp_type_ok(struct sib_qp *qp, u32 opflags)
{
	if (opflags & SIB_OPF_UD)
		return qp->ibqp.qp_type == IB_QPT_UD ||
		       qp->ibqp.qp_type == IB_QPT_GSI;
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
 * Queue a checked packet on @qp's receive queue and get its work going:
 * after the round of @sender (a loopback packet of a QP's engine that may
 * run its peer inline), else in @qp's work.
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
	/* QP P_Key check: QP1 takes any P_Key of the port (IBTA 10.9.3) */
	if (qp->ibqp.qp_num != SIB_GSI_QPN &&
	    !sib_pkey_match(sib_pkt(skb)->pkey, sib_qp_pkey(qp))) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_PKEY);
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
		sib_qp_poke(qp);
}

/*
 * @qp when it is the QP numbered @qpn: referenced again without a lookup.
 * For the QP a sender's round looped its previous packet to (loop_peer:
 * sib_qp_run_after() holds it until the round ends) or, for a sender
 * running nested, the QP whose run runs it (loop_parent: alive while its
 * run lasts). A QP being destroyed is left to the lookup, which no longer
 * finds it.
 */
static struct sib_qp *sib_rcv_loop_known(struct sib_qp *qp, u32 qpn)
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

/* The RoCEv2 GID of the packet's destination IP address. */
static void sib_rcv_dgid(struct sk_buff *skb, union ib_gid *dgid)
{
	if (ip_hdr(skb)->version == 4)
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

/*
 * @skb->data at the BTH, network and transport headers set; @sender: see
 * sib_rcv_to_qp()
 */
static void sib_rcv(struct sib_dev *dev, struct sk_buff *skb, bool loopback,
		    struct sib_qp *sender)
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
	if (!loopback) {
		icrc = skb_header_pointer(skb, skb->len - SIB_ICRC_LEN,
					  SIB_ICRC_LEN, &icrc_buf);
		if (!icrc || sib_icrc(skb, 0, skb->len - SIB_ICRC_LEN) !=
		    le32_to_cpu(*icrc)) {
			sib_counter_inc(dev, SIB_CNT_DROP_ICRC);
			goto drop;
		}
	}
	bth = (struct sib_bth *)skb->data;
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
		     loopback, ip_hdr(skb)->version == 4 ? RDMA_NETWORK_IPV4 :
							   RDMA_NETWORK_IPV6);
	if (!(info->flags & SIB_OPF_PAYLOAD) && (pkt->paylen || pad))
		goto bad_hdr;
	/* port P_Key check (IBTA 10.9.3) before anything else looks at it */
	if (!sib_pkey_port_accepts(&dev->pkey, pkt->pkey)) {
		sib_counter_inc(dev, SIB_CNT_DROP_PKEY);
		goto drop;
	}
	trace_sib_pkt_rcv(pkt->qpn, pkt->opcode, pkt->psn, pkt->paylen);
	if (pkt->qpn == IB_MULTICAST_QPN) {
		if (!(info->flags & SIB_OPF_UD))
			goto bad_hdr;
		sib_rcv_mcast(dev, skb);
		return;
	}
	qp = sender ? sib_rcv_loop_known(sender->loop_peer, pkt->qpn) : NULL;
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
	sib_rcv(to_sib_dev(ibdev), skb, false, NULL);
	ib_device_put(ibdev);
	return 0;
put:
	sib_counter_inc(to_sib_dev(ibdev), SIB_CNT_DROP_HDR);
	ib_device_put(ibdev);
drop:
	kfree_skb(skb);
	return 0;
}

/*
 * A multicast packet also goes to this device's own group members, as
 * if it had come back from the wire (IBTA 10.5.2.2: every attached QP
 * in the subnet, the sender's port included). A private copy: the wire
 * path still rewrites the IP header and appends the ICRC.
 */
static void sib_mcast_loop(struct sib_dev *dev, struct sk_buff *skb)
{
	struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

	if (!copy)
		return;
	sib_counter_inc(dev, SIB_CNT_LOOPBACK_PKTS);
	skb_pull(copy, skb_transport_offset(copy) + sizeof(struct udphdr));
	copy->dev = dev->ndev;
	sib_rcv(dev, copy, true, NULL);
}

/**
 * sib_loop_target() - the RC QP of this device an RC QP's packet goes to
 * @qp: sending RC QP whose path is loopback
 *
 * The checks a packet of @qp would meet on its way to the destination
 * QP without building it: the sender's P_Key, the port's P_Key table,
 * the destination QP and its type and P_Key (IBTA 10.9.3).
 * Context: the QP's work. Return: the destination QP, referenced (put it
 * with sib_qp_put()), or NULL when one of the checks fails or @qp is no
 * loopback RC QP: the caller then sends a packet, whose path counts
 * the drop.
 */
struct sib_qp *sib_loop_target(struct sib_qp *qp)
{
	struct sib_dev *dev = qp->dev;
	struct sib_qp *rqp;

	if (!qp->av.loopback || qp->ibqp.qp_type != IB_QPT_RC)
		return NULL;
	rqp = sib_rcv_loop_known(qp->task_nested ? qp->loop_parent :
				 qp->loop_peer, qp->dest_qpn);
	if (!rqp)
		rqp = sib_qp_get(dev, qp->dest_qpn);
	if (!rqp)
		return NULL;
	if (rqp->ibqp.qp_type != IB_QPT_RC ||
	    !sib_pkey_loop_ok(&dev->pkey, READ_ONCE(qp->pkey_index),
			      READ_ONCE(rqp->pkey_index))) {
		sib_qp_put(rqp);
		return NULL;
	}
	return rqp;
}

/**
 * sib_ack_xmit_loopback() - send a plain ACK to a QP of this device
 * @qp: responding RC QP whose path is loopback
 * @syn: AETH syndrome
 * @psn: BTH PSN
 *
 * No packet is built, sent or parsed. While @qp answers a request handed
 * to it directly (loop.c) the answer, ACK or NAK, goes back to that
 * requester at once (qp->lb_answer). Otherwise a plain ACK's PSN and
 * syndrome go into the requester's lb_ack slot, which its round takes
 * before the packets in rxq, after the checks of sib_loop_target(); only
 * while the slot is free and rxq is empty, so that the order of
 * acknowledgements and responses stays that of the wire; otherwise (and
 * for NAKs) the caller sends a packet.
 * Context: the QP's work. Return: true when the ACK was taken (or
 * dropped and counted), false when the caller must send it as a packet.
 */
bool sib_ack_xmit_loopback(struct sib_qp *qp, u8 syn, u32 psn)
{
	struct sib_dev *dev = qp->dev;
	struct sib_qp *rqp;
	unsigned long flags;
	bool taken;

	if (qp->lb_answer) {
		/* the answer to a request handed over directly (loop.c) */
		qp->lb_answer->valid = true;
		qp->lb_answer->syn = syn;
		qp->lb_answer->psn = psn;
		trace_sib_pkt_xmit(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_ACKS);
		sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
		trace_sib_pkt_rcv(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		return true;
	}
	if ((syn & SIB_AETH_CLASS_MASK) != SIB_AETH_ACK)
		return false;
	rqp = sib_loop_target(qp);
	if (!rqp)
		return false;	/* the packet path counts what it drops */
	spin_lock_irqsave(&rqp->rxq.lock, flags);
	taken = !rqp->lb_ack_valid && skb_queue_empty(&rqp->rxq);
	if (taken) {
		rqp->lb_ack_psn = psn;
		rqp->lb_ack_syn = syn;
		rqp->lb_ack_valid = true;
	}
	spin_unlock_irqrestore(&rqp->rxq.lock, flags);
	if (taken) {
		trace_sib_pkt_xmit(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_PKTS);
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_ACKS);
		sib_counter_inc(dev, SIB_CNT_RCVD_PKTS);
		trace_sib_pkt_rcv(qp->dest_qpn, SIB_OP_RC_ACK, psn, 0);
		if (!qp->task_nested)
			sib_qp_run_after(qp, rqp);
		else
			sib_qp_poke(rqp);
	}
	sib_qp_put(rqp);
	return taken;
}

/**
 * sib_pkt_xmit() - send a packet built by an engine
 * @qp: sending QP (UDP source port)
 * @av: destination
 * @skb: from sib_skb_alloc(), data at the BTH, headers and payload
 *	 filled in; consumed
 *
 * Context: the QP's work. Return: 0 or -errno from the IP layer.
 */
int sib_pkt_xmit(struct sib_qp *qp, const struct sib_av *av,
		 struct sk_buff *skb)
{
	struct sib_dev *dev = qp->dev;
	unsigned int hlen;
	int err;

	trace_sib_pkt_xmit(sib_bth_qpn((struct sib_bth *)skb->data),
			   skb->data[0], sib_bth_psn((struct sib_bth *)skb->data),
			   skb->len);
	/* the QP's P_Key entry went away: nothing leaves (see sib_qp_pkey()) */
	if (!sib_pkey_valid(sib_bth_pkey((struct sib_bth *)skb->data))) {
		sib_counter_inc(dev, SIB_CNT_DROP_PKEY_TX);
		kfree_skb(skb);
		return 0;
	}
	/* an XRC target sends only responses, in the XRC opcode range */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		skb->data[0] |= SIB_OP_XRC_BASE;
	/* a UD AH with its own flow label picks its own UDP source port */
	sib_net_push_hdrs(dev, av, skb, av->flow_label ?
			  rdma_flow_label_to_udp_sport(av->flow_label) :
			  qp->src_port);
	sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
	if (rdma_is_multicast_addr((struct in6_addr *)av->dgid.raw))
		sib_mcast_loop(dev, skb);
	if (av->loopback) {
		sib_counter_inc(dev, SIB_CNT_LOOPBACK_PKTS);
		hlen = skb_transport_offset(skb) + sizeof(struct udphdr);
		skb_pull(skb, hlen);
		skb->dev = dev->ndev;
		sib_rcv(dev, skb, true, qp->task_nested ? NULL : qp);
		return 0;
	}
	err = sib_net_xmit(dev, av, skb);
	if (err)
		sib_counter_inc(dev, SIB_CNT_XMIT_ERR);
	return err;
}
