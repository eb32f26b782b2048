// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: raw packet QPs (IB_QPT_RAW_PACKET) and flow steering
 * (ib_device_ops.create_flow) on a RoCE device's netdev.
 *
 * A raw QP sends whole Ethernet frames, each gathered from one send WQE,
 * through the netdev's transmit path. It receives the frames its flows
 * match: while a device has flows, an rx_handler on its netdev sees every
 * frame before the stack does; a frame that a rule matches goes to the
 * rule's QP and, unless the rule lets it through
 * (IB_FLOW_ATTR_FLAGS_DONT_TRAP), not to the stack. Rules of the lowest
 * priority value that match win; all of them take the frame. When every
 * one of them lets it through, the frame goes on to the rules of the
 * next priority value, as ibv_create_flow(3) says of DONT_TRAP ("allowing
 * them to match lower prioritized rules"), and to the stack unless a
 * rule there keeps it. A frame a
 * raw QP sends to a multicast or broadcast address or to the netdev's
 * own address is also offered to the device's rules (as a NIC's internal
 * switch loops such frames back), never to the sending QP itself.
 *
 * Locks: the device's rule list changes under RTNL (which also covers
 * the rx_handler's registration); the data path reads it under RCU. A
 * rule holds its QP (the core's usecnt) and is freed a grace period
 * after it left the list, so a QP a reader found is alive.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>

#include "raw.h"
#include "flow.h"
#include "qpcore.h"
#include "sched.h"
#include "mr.h"
#include "queue.h"

/* rules a device holds at most */
#define SIB_MAX_FLOWS	1024

/*
 * struct sib_flow - one steering rule
 * @ibflow: the core's object
 * @node: in sib_dev.flows, ordered by @priority, older first
 * @qp: where matching frames go
 * @rule: the match
 * @priority: lower wins (struct ib_flow_attr)
 * @dont_trap: matching frames also go on to the stack and other rules
 */
struct sib_flow {
	struct ib_flow ibflow;
	struct list_head node;
	struct sib_qp *qp;
	struct sib_flow_rule rule;
	u16 priority;
	bool dont_trap;
};

/* queue a copy of @skb (its Ethernet header at skb_mac_header()) for @qp */
static void sib_raw_deliver(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sk_buff *c;

	if (skb_queue_len(&qp->rxq) >= SIB_RX_QUEUE_MAX) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_RXQ_FULL);
		return;
	}
	c = skb_clone(skb, GFP_ATOMIC);
	if (!c) {
		sib_counter_inc(qp->dev, SIB_CNT_RAW_DROPPED);
		return;
	}
	__skb_push(c, -skb_mac_offset(c));
	/* the receiving netdev took the VLAN tag out: the QP sees it in place */
	if (skb_vlan_tag_present(c)) {
		c = __vlan_hwaccel_push_inside(c);
		if (!c) {
			sib_counter_inc(qp->dev, SIB_CNT_RAW_DROPPED);
			return;
		}
	}
	memset(c->cb, 0, sizeof(struct sib_pkt));
	skb_queue_tail(&qp->rxq, c);
	sib_qp_poke(qp);
}

/*
 * Offer @skb (its Ethernet header at skb_mac_header()) to @dev's rules,
 * all but @sender's: the matching rules of the lowest priority value,
 * then, while all that matched were DONT_TRAP, those of the next one.
 * Return: true when a rule trapped it (delivered or dropped it), so the
 * stack must not see it.
 */
static bool sib_flow_steer(struct sib_dev *dev, struct sk_buff *skb,
			   struct sib_qp *sender)
{
	u8 buf[SIB_FLOW_HDR_MAX];
	int off = skb_mac_offset(skb);
	struct sib_flow_key key;
	struct sib_flow *f;
	bool trapped = false;
	const u8 *hdr;
	int best = -1;
	u32 len;

	if (list_empty(&dev->flows))
		return false;
	len = min_t(u32, skb->len - off, sizeof(buf));
	hdr = skb_header_pointer(skb, off, len, buf);
	if (!hdr)
		return false;
	sib_flow_key_parse(hdr, len, skb_vlan_tag_present(skb),
			   skb_vlan_tag_get(skb), &key);
	rcu_read_lock();
	list_for_each_entry_rcu(f, &dev->flows, node) {
		/* past the priority that trapped it (the list is sorted) */
		if (trapped && f->priority != best)
			break;
		if (f->qp == sender || !sib_flow_rule_match(&f->rule, &key))
			continue;
		best = f->priority;
		if (f->rule.drop)
			sib_counter_inc(dev, SIB_CNT_RAW_DROPPED);
		else
			sib_raw_deliver(f->qp, skb);
		if (!f->dont_trap)
			trapped = true;
	}
	rcu_read_unlock();
	return trapped;
}

/* the netdev's rx_handler while the device has rules */
static rx_handler_result_t sib_raw_rx(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct sib_dev *dev = rcu_dereference(skb->dev->rx_handler_data);

	if (unlikely(!dev || skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	if (!sib_flow_steer(dev, skb, NULL))
		return RX_HANDLER_PASS;
	consume_skb(skb);
	return RX_HANDLER_CONSUMED;
}

/**
 * sib_create_flow() - ib_device_ops.create_flow: steer frames to a raw QP
 * @ibqp: a raw packet QP of a RoCE device
 * @attr: the rule (ib_uverbs checked CAP_NET_RAW, the QP type, the flags
 *	  and the specs' sizes)
 * @udata: no driver data defined
 *
 * The first rule of a device puts softib's rx_handler on its netdev.
 * Context: process, takes RTNL. Return: the flow, or ERR_PTR():
 * -EOPNOTSUPP (not a raw QP, or a spec, type or flag sib_flow_rule_build()
 * does not know), -EINVAL (bad attribute or udata), -ENOSPC (too many
 * rules), -EBUSY (another rx_handler holds the netdev: a bridge or bond
 * port), -ENODEV (the netdev is going away), -ENOMEM.
 */
struct ib_flow *sib_create_flow(struct ib_qp *ibqp, struct ib_flow_attr *attr,
				struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibqp->device);
	struct sib_flow *f, *pos;
	int err;

	if (ibqp->qp_type != IB_QPT_RAW_PACKET || sib_is_ib(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	err = sib_flow_rule_build(attr, &f->rule);
	if (err)
		goto err_free;
	f->qp = to_sib_qp(ibqp);
	f->priority = attr->priority;
	f->dont_trap = attr->flags & IB_FLOW_ATTR_FLAGS_DONT_TRAP;
	rtnl_lock();
	if (dev->flow_gone) {
		err = -ENODEV;
		goto err_unlock;
	}
	if (dev->num_flows >= SIB_MAX_FLOWS) {
		err = -ENOSPC;
		goto err_unlock;
	}
	if (!dev->flow_rx) {
		err = netdev_rx_handler_register(dev->ndev, sib_raw_rx, dev);
		if (err)
			goto err_unlock;
		dev->flow_rx = true;
	}
	/* after the rules of its priority: older ones first */
	list_for_each_entry(pos, &dev->flows, node)
		if (pos->priority > f->priority)
			break;
	list_add_tail_rcu(&f->node, &pos->node);
	dev->num_flows++;
	rtnl_unlock();
	return &f->ibflow;

err_unlock:
	rtnl_unlock();
err_free:
	kfree(f);
	return ERR_PTR(err);
}

/**
 * sib_destroy_flow() - ib_device_ops.destroy_flow
 * @ibflow: a flow of sib_create_flow()
 *
 * The last rule of a device takes the rx_handler off its netdev. Returns
 * a grace period after the rule left the list: no frame is steered by it
 * any more, and its QP may go.
 * Context: process, takes RTNL, sleeps. Return: 0.
 */
int sib_destroy_flow(struct ib_flow *ibflow)
{
	struct sib_flow *f = container_of(ibflow, struct sib_flow, ibflow);
	struct sib_dev *dev = f->qp->dev;

	rtnl_lock();
	list_del_rcu(&f->node);
	if (!--dev->num_flows && dev->flow_rx) {
		netdev_rx_handler_unregister(dev->ndev);
		dev->flow_rx = false;
	}
	rtnl_unlock();
	synchronize_rcu();
	kfree(f);
	return 0;
}

/**
 * sib_raw_dev_init() - a new device has no rules
 * @dev: device being set up
 *
 * Context: process.
 */
void sib_raw_dev_init(struct sib_dev *dev)
{
	INIT_LIST_HEAD(&dev->flows);
}

/**
 * sib_raw_netdev_gone() - the device's netdev is being unregistered
 * @dev: device
 *
 * Takes the rx_handler off and refuses new rules; the rules left are
 * destroyed with the device.
 * Context: NETDEV_UNREGISTER notifier, RTNL held.
 */
void sib_raw_netdev_gone(struct sib_dev *dev)
{
	ASSERT_RTNL();
	dev->flow_gone = true;
	if (dev->flow_rx) {
		netdev_rx_handler_unregister(dev->ndev);
		dev->flow_rx = false;
	}
}

/*
 * IBV_SEND_IP_CSUM: the IPv4 header checksum and a TCP or UDP checksum
 * (IPv4 or IPv6) of a frame built by the application, computed here.
 * A frame too short for the headers it claims is sent as it is.
 */
static void sib_raw_csum(struct sk_buff *skb)
{
	u8 *p = skb->data;
	u32 len = skb->len, off = ETH_HLEN, l4len;
	__sum16 *check;
	__wsum sum;
	__be16 type;
	u8 proto;

	memcpy(&type, p + 2 * ETH_ALEN, 2);
	if (eth_type_vlan(type) && len >= ETH_HLEN + VLAN_HLEN) {
		memcpy(&type, p + ETH_HLEN + 2, 2);
		off += VLAN_HLEN;
	}
	if (type == htons(ETH_P_IP)) {
		struct iphdr *iph = (void *)(p + off);
		u32 ihl, tot;

		if (len < off + sizeof(*iph) || iph->ihl < 5 ||
		    len < off + iph->ihl * 4)
			return;
		ihl = iph->ihl * 4;
		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
		tot = ntohs(iph->tot_len);
		if (ip_is_fragment(iph) || tot < ihl || off + tot > len)
			return;
		proto = iph->protocol;
		off += ihl;
		l4len = tot - ihl;
		check = proto == IPPROTO_TCP ? (void *)(p + off + 16) :
			(void *)(p + off + 6);
		if ((proto != IPPROTO_TCP && proto != IPPROTO_UDP) ||
		    l4len < (proto == IPPROTO_TCP ? 20 : 8))
			return;
		*check = 0;
		sum = csum_partial(p + off, l4len, 0);
		*check = csum_tcpudp_magic(iph->saddr, iph->daddr, l4len,
					   proto, sum);
	} else if (type == htons(ETH_P_IPV6)) {
		struct ipv6hdr *h = (void *)(p + off);

		if (len < off + sizeof(*h))
			return;
		proto = h->nexthdr;
		l4len = ntohs(h->payload_len);
		off += sizeof(*h);
		if ((proto != IPPROTO_TCP && proto != IPPROTO_UDP) ||
		    off + l4len > len ||
		    l4len < (proto == IPPROTO_TCP ? 20 : 8))
			return;
		check = proto == IPPROTO_TCP ? (void *)(p + off + 16) :
			(void *)(p + off + 6);
		*check = 0;
		sum = csum_partial(p + off, l4len, 0);
		*check = csum_ipv6_magic(&h->saddr, &h->daddr, l4len, proto,
					 sum);
	} else {
		return;
	}
	if (proto == IPPROTO_UDP && !*check)
		*check = CSUM_MANGLED_0;
}

/**
 * sib_raw_xmit() - send the frame of one raw QP send WQE
 * @qp: raw packet QP
 * @sw: a validated SEND WQE: its gather list (or inline data) is the
 *	whole frame from the Ethernet header on, without FCS
 *
 * The frame goes to the netdev's transmit path, and to the device's own
 * rules when it is addressed to a group or to this netdev (then not on
 * the wire).
 * Context: the QP's run. Return: an IB_WC_* status for the WQE
 * (IB_WC_LOC_LEN_ERR: shorter than an Ethernet header or longer than
 * the netdev's MTU allows, IB_WC_LOC_PROT_ERR: the gather list), or
 * -ENOMEM (try again).
 */
int sib_raw_xmit(struct sib_qp *qp, struct sib_swqe *sw)
{
	struct sib_dev *dev = qp->dev;
	struct net_device *ndev = dev->ndev;
	u32 len = sw->total_len;
	struct sk_buff *skb;
	bool own;
	int err;

	if (len < ETH_HLEN ||
	    len > READ_ONCE(ndev->mtu) + ETH_HLEN + VLAN_HLEN)
		return IB_WC_LOC_LEN_ERR;
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + len, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	if (sw->wqe.send_flags & SIB_SEND_INLINE) {
		skb_put_data(skb, sw->inline_data, len);
	} else {
		err = sib_sgl_copy(dev, &qp->mr_cache, qp->ibqp.pd, sw->sge,
				   sw->wqe.num_sge, 0, skb_put(skb, len), len,
				   false);
		if (err) {
			kfree_skb(skb);
			return IB_WC_LOC_PROT_ERR;
		}
	}
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb->dev = ndev;
	if (sw->wqe.send_flags & SIB_SEND_IP_CSUM)
		sib_raw_csum(skb);
	sib_counter_inc(dev, SIB_CNT_RAW_SENT);
	own = ether_addr_equal(eth_hdr(skb)->h_dest, ndev->dev_addr);
	if (own || is_multicast_ether_addr(eth_hdr(skb)->h_dest))
		sib_flow_steer(dev, skb, qp);
	if (own) {
		consume_skb(skb);
		return IB_WC_SUCCESS;
	}
	if (dev_queue_xmit(skb) != NET_XMIT_SUCCESS)
		sib_counter_inc(dev, SIB_CNT_XMIT_ERR);
	return IB_WC_SUCCESS;
}

/**
 * sib_raw_place() - copy a frame into a receive WQE and describe it in a CQE
 * @qp: the raw or RSS QP placing it (its MR cache)
 * @pd: the receive WQE's PD
 * @rw: the receive WQE
 * @skb: the frame from its Ethernet header on
 * @c: out: wr_id, opcode, byte_len and status (IB_WC_LOC_LEN_ERR when the
 *     frame does not fit, IB_WC_LOC_PROT_ERR for an SGE that does not work)
 *
 * Context: the QP's run.
 */
void sib_raw_place(struct sib_qp *qp, struct ib_pd *pd,
		   const struct sib_rwqe *rw, struct sk_buff *skb,
		   struct sib_cqe *c)
{
	sib_cqe_clear(c);
	c->wr_id = rw->wr_id;
	c->opcode = IB_WC_RECV;
	c->byte_len = skb->len;
	if (rw->total_len < skb->len)
		c->status = IB_WC_LOC_LEN_ERR;
	else if (sib_sgl_copy_skb(qp->dev, &qp->mr_cache, pd, rw->sge,
				  rw->num_sge, 0, skb, 0, skb->len))
		c->status = IB_WC_LOC_PROT_ERR;
	else
		c->status = IB_WC_SUCCESS;
	sib_counter_inc(qp->dev, SIB_CNT_RAW_RCVD);
}

/**
 * sib_raw_rcv() - place one steered frame in the QP's next receive WQE
 * @qp: raw packet QP
 * @skb: the frame from its Ethernet header on (consumed)
 *
 * No receive WQE: the frame is dropped and counted, as a NIC drops what
 * it has no buffer for. A frame larger than the WQE completes with
 * IB_WC_LOC_LEN_ERR.
 * Context: the QP's run.
 */
void sib_raw_rcv(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sib_rwqe *rw = &qp->resp.rwqe;
	enum ib_qp_state state = sib_qp_state(qp);
	struct sib_cqe c __uninitialized;
	int r;

	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD && state != IB_QPS_SQE) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_QP_STATE);
		goto out;
	}
	r = sib_rq_fetch(qp, rw);
	if (r <= 0) {
		if (r < 0)
			sib_qp_error(qp, IB_EVENT_QP_FATAL);
		sib_counter_inc(qp->dev, SIB_CNT_RAW_NO_RWQE);
		goto out;
	}
	sib_raw_place(qp, qp->ibqp.pd, rw, skb, &c);
	sib_qp_recv_cqe(qp, &c, false);
out:
	kfree_skb(skb);
}
