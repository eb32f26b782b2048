// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the cable of an InfiniBand link layer device (see ib.h).
 *
 * A cable joins the port to one link partner (another softib IB port;
 * later a switch port). It is a UDP socket of the device's own, bound to
 * the carrier netdev, on port SIB_IB_CABLE_PORT (4792) unless configured,
 * and the partner's IPv4 or IPv6 address and UDP port. One datagram
 * carries one IB packet, from the LRH to the VCRC, or one link packet.
 *
 * Link packets (IBTA 7.9.4, the flow control packet): 6 bytes, big
 * endian fields
 *	byte 0: Op (4 bits: 1 Initialization while the partner is not
 *		heard yet, 0 Normal afterwards) | FCTBS bits 11..8
 *	byte 1: FCTBS bits 7..0
 *	byte 2: VL (4 bits, 0) | FCCL bits 11..8
 *	byte 3: FCCL bits 7..0
 *	bytes 4-5: LPCRC = sib_vcrc(bytes 0-3, 0xffff) written
 *		little-endian (put_unaligned_le16), as the VCRC of a packet
 * Each end sends one every 100 ms while its carrier is up. softib has no
 * credit-based flow control: FCTBS counts the packets sent (mod 4096),
 * FCCL is 4095 (all the credit there is).
 *
 * The physical link (PortInfo PortPhysicalState): Polling until the
 * partner's link packets are heard, LinkUp while the partner is heard (its
 * link packets or any other datagram of it: a physical link stays up while
 * symbols arrive), back to Polling after the silence limit (3 s unless
 * configured, SIB_CABLE_SILENCE_MS) without hearing it, on carrier loss of
 * the netdev, or when the cable is unplugged (sib-link DEV unplug). The
 * silence is counted in link periods this end lived through, not in wall
 * time: when this end's own work is held up (a guest whose vCPU the host
 * did not run for a while), the partner's datagrams queued meanwhile are
 * not yet heard, and a clock that jumped must not take the link down; only
 * a partner that stays silent while this end keeps running does. ibport.c makes the
 * logical state follow (DOWN <-> INIT). A port the SM disabled
 * (PortPhysicalState Disabled, sib_ib_set_phys()) sends no link packets
 * and, after SIB_LINK_DISABLE_DRAIN periods, carries nothing: its
 * partner falls back to Polling; Polling (enable) starts it again.
 *
 * Locking: sib_cable_mutex serializes plugging, unplugging, the netdev
 * events and namespace exits; dev->ib->cable and cable->sock are RCU
 * pointers read by the transmit and receive paths. A cable is freed only
 * after its socket is released and a grace period has passed.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <net/net_namespace.h>

#include "softib.h"
#include "ib.h"

#define SIB_LINK_PERIOD_MS	100
#define SIB_LINK_PERIOD		msecs_to_jiffies(SIB_LINK_PERIOD_MS)
#define SIB_LINK_OP_NORMAL	0
#define SIB_LINK_OP_INIT	1
#define SIB_LINK_FCCL		0xfff
/*
 * link periods a Disabled port's cable still carries packets (no link
 * packets; the port is DOWN: SMPs only): the reply to the SubnSet that
 * disabled it gets out, and the SM's retries of it get in, until the
 * partner notices the silence (its silence limit) and drops the link
 */
#define SIB_LINK_DISABLE_DRAIN	10

/*
 * struct sib_cable - a plugged cable
 * @dev: its device
 * @list: on sib_cables (sib_cable_mutex)
 * @net: namespace of the carrier netdev when plugged (no reference: see
 *	 sib_cable_net_exit())
 * @sock: the UDP socket; NULL once the namespace exits (RCU)
 * @cfg: the partner's address and ports
 * @link_work: sends a link packet every 100 ms, watches the silence
 * @last_heard: jiffies of the partner's last good link packet or of its
 *		last datagram taken in while the link is up
 * @up: 1 while the physical link is reported up (sib_ib_phys_link())
 * @link_sent, @link_rcvd: link packets sent and heard
 * @link_lost: times the link went down for the partner's silence
 * @silence_periods: the silence limit in link periods (cfg.silence_ms)
 * @heard_seen: @last_heard as link_work last saw it (link_work only)
 * @missed: link periods in a row without hearing the partner (link_work
 *	    only)
 * @quiet: link periods the port has been Disabled (link_work only)
 */
struct sib_cable {
	struct sib_dev *dev;
	struct list_head list;
	struct net *net;
	struct socket __rcu *sock;
	struct sib_cable_cfg cfg;
	struct delayed_work link_work;
	unsigned long last_heard;
	atomic_t up;
	atomic64_t link_sent;
	atomic64_t link_rcvd;
	atomic64_t link_lost;
	unsigned int silence_periods;
	unsigned long heard_seen;
	unsigned int missed;
	unsigned int quiet;
};

static LIST_HEAD(sib_cables);
static DEFINE_MUTEX(sib_cable_mutex);

/**
 * sib_cable_headroom() - bytes a packet for sib_cable_xmit() needs in
 *			  front of its LRH
 *
 * Room for the link layer, IPv6 (the larger IP header) and UDP headers;
 * sib_cable_xmit() reallocates a packet with less.
 * Context: any. Return: bytes.
 */
unsigned int sib_cable_headroom(void)
{
	return LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr);
}

static void sib_cable_add_bytes(struct sib_dev *dev, enum sib_counter c,
				unsigned int n)
{
	this_cpu_add(dev->counters->c[c], n);
}

/* the physical link went up or down: tell ibport.c once per change */
static void sib_cable_link(struct sib_cable *cable, bool up)
{
	if (atomic_xchg(&cable->up, up) != up)
		sib_ib_phys_link(cable->dev, up);
}

static bool sib_cable_carrier(struct sib_dev *dev)
{
	return netif_running(dev->ndev) && netif_carrier_ok(dev->ndev);
}

/* UDP and IP in front of @skb (data at the LRH) to the partner; consumes */
static int sib_cable_send(struct sib_cable *cable, struct sk_buff *skb)
{
	const struct sib_cable_cfg *cfg = &cable->cfg;
	struct net_device *ndev = cable->dev->ndev;
	__be16 sport = htons(cfg->local_port);
	__be16 dport = htons(cfg->peer_port);
	struct socket *sock;
	int err = 0;

	if (skb_cow_head(skb, sib_cable_headroom())) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	/*
	 * No device for the tunnel helpers: they count into a tunnel
	 * netdev's per-CPU tstats (iptunnel_xmit_stats()), which the carrier
	 * netdev does not have; IP's output sets skb->dev from the route.
	 */
	skb->dev = NULL;
	rcu_read_lock();
	sock = rcu_dereference(cable->sock);
	if (!sock) {
		err = -ENETDOWN;
		goto drop;
	}
	if (cfg->family == AF_INET) {
		struct flowi4 fl4 = {
			.flowi4_oif = ndev->ifindex,
			.flowi4_proto = IPPROTO_UDP,
			.daddr = cfg->peer4,
			.fl4_sport = sport,
			.fl4_dport = dport,
		};
		struct rtable *rt = ip_route_output_key(cable->net, &fl4);

		if (IS_ERR(rt)) {
			err = PTR_ERR(rt);
			goto drop;
		}
		udp_tunnel_xmit_skb(rt, sock->sk, skb, fl4.saddr, fl4.daddr, 0,
				    ip4_dst_hoplimit(&rt->dst), 0, sport, dport,
				    false, false);
	} else {
		struct flowi6 fl6 = {
			.flowi6_oif = ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
			.daddr = cfg->peer6,
			.fl6_sport = sport,
			.fl6_dport = dport,
		};
		struct dst_entry *dst;

		dst = ipv6_stub->ipv6_dst_lookup_flow(cable->net, sock->sk,
						      &fl6, NULL);
		if (IS_ERR(dst)) {
			err = PTR_ERR(dst);
			goto drop;
		}
		udp_tunnel6_xmit_skb(dst, sock->sk, skb, NULL, &fl6.saddr,
				     &fl6.daddr, 0, ip6_dst_hoplimit(dst), 0,
				     sport, dport, false);
	}
	rcu_read_unlock();
	return 0;
drop:
	rcu_read_unlock();
	kfree_skb(skb);
	return err;
}

/**
 * sib_cable_xmit() - send a finished IB packet over the device's cable
 * @dev: IB device
 * @skb: data at the LRH, the packet ends with its VCRC; consumed in every
 *	 case. Headroom as sib_cable_headroom() says, or it is reallocated.
 *
 * Counts the bytes on the cable (IB_XMIT_BYTES, LRH to VCRC) and the SMPs
 * (VL15 packets: IB_SMP_SENT). Without a
 * cable or while the physical link is not up the packet is dropped and
 * counted (IB_XMIT_PORT_STATE).
 * Context: process or softirq. Return: 0, -ENOTCONN (no cable, link
 * down) or another -errno from routing.
 */
int sib_cable_xmit(struct sib_dev *dev, struct sk_buff *skb)
{
	struct sib_cable *cable;
	unsigned int len = skb->len;
	bool smp = (skb->data[0] >> 4) == SIB_IB_VL_SMP;	/* LRH VL */
	int err;

	rcu_read_lock();
	cable = rcu_dereference(dev->ib->cable);
	if (!cable || !atomic_read(&cable->up)) {
		rcu_read_unlock();
		sib_counter_inc(dev, SIB_CNT_IB_XMIT_PORT_STATE);
		kfree_skb(skb);
		return -ENOTCONN;
	}
	err = sib_cable_send(cable, skb);
	rcu_read_unlock();
	if (err) {
		sib_counter_inc(dev, SIB_CNT_XMIT_ERR);
		return err;
	}
	sib_cable_add_bytes(dev, SIB_CNT_IB_XMIT_BYTES, len);
	if (smp)
		sib_counter_inc(dev, SIB_CNT_IB_SMP_SENT);
	return 0;
}

static void sib_cable_send_link_pkt(struct sib_cable *cable)
{
	struct sib_dev *dev = cable->dev;
	u32 fctbs = atomic64_read(&cable->link_sent) & 0xfff;
	u8 op = atomic_read(&cable->up) ? SIB_LINK_OP_NORMAL : SIB_LINK_OP_INIT;
	struct sk_buff *skb;
	u8 *p;

	skb = alloc_skb(sib_cable_headroom() + SIB_LINK_PKT_LEN, GFP_KERNEL);
	if (!skb)
		return;
	skb_reserve(skb, sib_cable_headroom());
	p = skb_put(skb, SIB_LINK_PKT_LEN);
	p[0] = op << 4 | fctbs >> 8;
	p[1] = fctbs & 0xff;
	p[2] = 0 << 4 | SIB_LINK_FCCL >> 8;	/* VL 0 */
	p[3] = SIB_LINK_FCCL & 0xff;
	put_unaligned_le16(sib_vcrc(p, 4, 0xffff), p + 4);
	if (!sib_cable_send(cable, skb)) {
		atomic64_inc(&cable->link_sent);
		sib_counter_inc(dev, SIB_CNT_IB_LINK_PKTS_SENT);
	}
}

/* the partner was heard: note when (a store only when jiffies moved on) */
static void sib_cable_heard(struct sib_cable *cable)
{
	unsigned long now = jiffies;

	if (READ_ONCE(cable->last_heard) != now)
		WRITE_ONCE(cable->last_heard, now);
}

/*
 * one more link period of link_work: has the partner now been silent for
 * the silence limit? Periods in which this end's work did not run do not
 * count (a late run counts as one), so a stall of this end is never taken
 * for silence of the partner.
 */
static bool sib_cable_silent(struct sib_cable *cable)
{
	unsigned long heard = READ_ONCE(cable->last_heard);

	if (heard != cable->heard_seen) {
		cable->heard_seen = heard;
		cable->missed = 0;
		return false;
	}
	if (cable->missed < cable->silence_periods)
		cable->missed++;
	return cable->missed >= cable->silence_periods;
}

/*
 * every 100 ms: a link packet, and Polling after the silence limit;
 * nothing from a port the SM disabled, whose link goes down once the
 * reply to the Set had time to leave
 */
static void sib_cable_link_work(struct work_struct *work)
{
	struct sib_cable *cable = container_of(to_delayed_work(work),
					       struct sib_cable, link_work);
	struct sib_dev *dev = cable->dev;
	bool carrier = sib_cable_carrier(dev);
	u8 phys = sib_ib_phys_state(dev);
	bool disabled = phys == IB_PORT_PHYS_STATE_DISABLED;
	/*
	 * up before silent (acquire: sib_cable_rcv_link_pkt() notes the
	 * partner heard before it sets up): a link packet that trains the
	 * link in between is then seen as heard, not as a silence
	 */
	bool up = atomic_read_acquire(&cable->up);
	bool silent = sib_cable_silent(cable);

	cable->quiet = disabled ? cable->quiet + 1 : 0;
	if (carrier && !disabled)
		sib_cable_send_link_pkt(cable);
	if (up) {
		if (!carrier || cable->quiet > SIB_LINK_DISABLE_DRAIN) {
			sib_cable_link(cable, false);
		} else if (silent) {
			atomic64_inc(&cable->link_lost);
			sib_cable_link(cable, false);
		} else if (phys == IB_PORT_PHYS_STATE_POLLING) {
			/* enabled again before the link went down */
			sib_ib_phys_link(dev, true);
		}
	}
	queue_delayed_work(sib_wq, &cable->link_work, SIB_LINK_PERIOD);
}

/* a link packet arrived (6 bytes, linear): check its LPCRC, note it */
static void sib_cable_rcv_link_pkt(struct sib_cable *cable, const u8 *p)
{
	struct sib_dev *dev = cable->dev;

	if (get_unaligned_le16(p + 4) != sib_vcrc(p, 4, 0xffff)) {
		sib_counter_inc(dev, SIB_CNT_IB_DROP_VCRC);
		return;
	}
	atomic64_inc(&cable->link_rcvd);
	sib_counter_inc(dev, SIB_CNT_IB_LINK_PKTS_RCVD);
	sib_cable_heard(cable);
	/* a Disabled port does not train (IBTA 5.4.1) */
	if (!atomic_read(&cable->up) && sib_cable_carrier(dev) &&
	    sib_ib_phys_state(dev) != IB_PORT_PHYS_STATE_DISABLED)
		sib_cable_link(cable, true);
}

/*
 * Is the datagram from the partner: its address, and its UDP port, the one
 * this end sends to (a partner sends from the port it listens on)?
 */
static bool sib_cable_from_peer(const struct sib_cable *cable,
				const struct sk_buff *skb)
{
	if (udp_hdr(skb)->source != htons(cable->cfg.peer_port))
		return false;
	if (cable->cfg.family == AF_INET)
		return ip_hdr(skb)->version == 4 &&
		       ip_hdr(skb)->saddr == cable->cfg.peer4;
	return ipv6_hdr(skb)->version == 6 &&
	       ipv6_addr_equal(&ipv6_hdr(skb)->saddr, &cable->cfg.peer6);
}

/* encap_rcv of a cable's socket: data at the UDP header; always consumes */
static int sib_cable_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct sib_cable *cable = rcu_dereference_sk_user_data(sk);
	struct sib_dev *dev;
	unsigned int ulen;

	if (!cable)
		goto drop;
	dev = cable->dev;
	if (!pskb_may_pull(skb, sizeof(struct udphdr)))
		goto bad;
	ulen = ntohs(udp_hdr(skb)->len);
	if (ulen < sizeof(struct udphdr) || ulen > skb->len ||
	    (void *)udp_hdr(skb) != (void *)skb->data ||
	    !sib_cable_from_peer(cable, skb) || pskb_trim(skb, ulen))
		goto bad;
	skb_pull(skb, sizeof(struct udphdr));
	if (skb->len == SIB_LINK_PKT_LEN) {
		if (!pskb_may_pull(skb, SIB_LINK_PKT_LEN))
			goto bad;
		sib_cable_rcv_link_pkt(cable, skb->data);
		goto drop;
	}
	if (skb->len < SIB_LRH_LEN + SIB_VCRC_LEN) {
		sib_counter_inc(dev, SIB_CNT_IB_DROP_LRH);
		goto drop;
	}
	if (!atomic_read(&cable->up)) {
		/* the link is not trained: nothing but link packets passes */
		sib_counter_inc(dev, SIB_CNT_IB_DROP_PORT_STATE);
		goto drop;
	}
	/* not while the device is being unregistered */
	if (!ib_device_try_get(&dev->ibdev))
		goto drop;
	sib_cable_heard(cable);
	sib_cable_add_bytes(dev, SIB_CNT_IB_RCV_BYTES, skb->len);
	nf_reset_ct(skb);
	skb_dst_drop(skb);
	skb->dev = dev->ndev;
	sib_ib_rcv(dev, skb);
	ib_device_put(&dev->ibdev);
	return 0;
bad:
	sib_counter_inc(dev, SIB_CNT_DROP_HDR);
drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *sib_cable_sock(struct sib_cable *cable)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	struct socket *sock;
	int err;

	cfg.family = cable->cfg.family;
	if (cfg.family == AF_INET6) {
		cfg.ipv6_v6only = 1;
		cfg.local_ip6 = in6addr_any;
		cfg.use_udp6_tx_checksums = 1;
		cfg.use_udp6_rx_checksums = 1;
	} else {
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
		cfg.use_udp_checksums = 1;
	}
	cfg.local_udp_port = htons(cable->cfg.local_port);
	cfg.bind_ifindex = cable->dev->ndev->ifindex;
	err = udp_sock_create(cable->net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	tcfg.sk_user_data = cable;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = sib_cable_encap_rcv;
	setup_udp_tunnel_sock(cable->net, sock, &tcfg);
	return sock;
}

/* close @cable's socket; sib_cable_mutex held. A grace period must pass. */
static void sib_cable_close_sock(struct sib_cable *cable)
{
	struct socket *sock;

	sock = rcu_replace_pointer(cable->sock, NULL,
				   lockdep_is_held(&sib_cable_mutex));
	if (sock)
		udp_tunnel_sock_release(sock);
}

/* take @cable out and free it; sib_cable_mutex held, @cable unpublished */
static void sib_cable_free(struct sib_cable *cable)
{
	list_del(&cable->list);
	sib_cable_close_sock(cable);
	/* receivers and transmitters that still saw the cable are done */
	synchronize_net();
	cancel_delayed_work_sync(&cable->link_work);
	sib_cable_link(cable, false);
	kfree(cable);
}

/**
 * sib_cable_plug() - plug (or replug) the cable of an IB device
 * @dev: IB device
 * @cfg: the partner's address (AF_INET or AF_INET6) and UDP port, the
 *	 local UDP port (0: SIB_IB_CABLE_PORT for either), the silence
 *	 limit (0: SIB_CABLE_SILENCE_MS)
 *
 * Replaces a cable plugged before: its link goes down (Polling) and the
 * new one starts Polling until the partner is heard.
 * Context: process (netlink). Return: 0, -EINVAL (family, port 4791,
 * silence limit out of SIB_CABLE_SILENCE_MIN_MS..SIB_CABLE_SILENCE_MAX_MS),
 * -EADDRINUSE (the local port is taken on the netdev) or -ENOMEM.
 */
int sib_cable_plug(struct sib_dev *dev, const struct sib_cable_cfg *cfg)
{
	struct sib_cable *cable, *old;
	struct socket *sock;

	if (cfg->family != AF_INET && cfg->family != AF_INET6)
		return -EINVAL;
	if (cfg->silence_ms && (cfg->silence_ms < SIB_CABLE_SILENCE_MIN_MS ||
				cfg->silence_ms > SIB_CABLE_SILENCE_MAX_MS))
		return -EINVAL;
	cable = kzalloc(sizeof(*cable), GFP_KERNEL);
	if (!cable)
		return -ENOMEM;
	cable->dev = dev;
	cable->cfg = *cfg;
	if (!cable->cfg.peer_port)
		cable->cfg.peer_port = SIB_IB_CABLE_PORT;
	if (!cable->cfg.local_port)
		cable->cfg.local_port = SIB_IB_CABLE_PORT;
	if (!cable->cfg.silence_ms)
		cable->cfg.silence_ms = SIB_CABLE_SILENCE_MS;
	cable->silence_periods = DIV_ROUND_UP(cable->cfg.silence_ms,
					      SIB_LINK_PERIOD_MS);
	if (cable->cfg.peer_port == 4791 || cable->cfg.local_port == 4791) {
		kfree(cable);
		return -EINVAL;		/* RoCEv2's */
	}
	INIT_LIST_HEAD(&cable->list);
	INIT_DELAYED_WORK(&cable->link_work, sib_cable_link_work);
	cable->last_heard = jiffies;
	cable->heard_seen = cable->last_heard;
	cable->net = dev_net(dev->ndev);

	mutex_lock(&sib_cable_mutex);
	old = rcu_dereference_protected(dev->ib->cable,
					lockdep_is_held(&sib_cable_mutex));
	if (old) {
		/* the old socket may hold the same port: free it first */
		rcu_assign_pointer(dev->ib->cable, NULL);
		sib_cable_free(old);
	}
	sock = sib_cable_sock(cable);
	if (IS_ERR(sock)) {
		mutex_unlock(&sib_cable_mutex);
		kfree(cable);
		return PTR_ERR(sock);
	}
	rcu_assign_pointer(cable->sock, sock);
	list_add_tail(&cable->list, &sib_cables);
	rcu_assign_pointer(dev->ib->cable, cable);
	queue_delayed_work(sib_wq, &cable->link_work, 0);
	mutex_unlock(&sib_cable_mutex);
	return 0;
}

/**
 * sib_cable_unplug() - unplug the cable of an IB device
 * @dev: IB device
 *
 * The link goes down (Polling, the port DOWN); no link packets are sent.
 * Context: process. Return: 0, or -ENOENT when no cable is plugged.
 */
int sib_cable_unplug(struct sib_dev *dev)
{
	struct sib_cable *cable;

	mutex_lock(&sib_cable_mutex);
	cable = rcu_dereference_protected(dev->ib->cable,
					  lockdep_is_held(&sib_cable_mutex));
	if (cable) {
		rcu_assign_pointer(dev->ib->cable, NULL);
		sib_cable_free(cable);
	}
	mutex_unlock(&sib_cable_mutex);
	return cable ? 0 : -ENOENT;
}

/**
 * sib_cable_get() - the cable of an IB device as netlink shows it
 * @dev: IB device
 * @info: out: plugged, the configuration, link packets sent/heard
 *
 * The physical state is the port's (sib_ib_query_port()).
 * Context: process.
 */
void sib_cable_get(struct sib_dev *dev, struct sib_cable_info *info)
{
	struct sib_cable *cable;

	memset(info, 0, sizeof(*info));
	mutex_lock(&sib_cable_mutex);
	cable = rcu_dereference_protected(dev->ib->cable,
					  lockdep_is_held(&sib_cable_mutex));
	if (cable) {
		info->plugged = true;
		info->cfg = cable->cfg;
		info->link_sent = atomic64_read(&cable->link_sent);
		info->link_rcvd = atomic64_read(&cable->link_rcvd);
		info->link_lost = atomic64_read(&cable->link_lost);
	}
	mutex_unlock(&sib_cable_mutex);
}

/**
 * sib_cable_dev_fini() - unplug the cable of a device being freed
 * @dev: IB device (dealloc_driver)
 *
 * Context: process.
 */
void sib_cable_dev_fini(struct sib_dev *dev)
{
	sib_cable_unplug(dev);
}

/**
 * sib_cable_netdev_event() - a netdev event for the cables it carries
 * @ndev: the netdev
 * @event: NETDEV_DOWN or a carrier loss (NETDEV_CHANGE) takes the
 *	   physical link of every cable on @ndev down at once (Polling);
 *	   it comes back up when the partner is heard again
 *
 * Context: process, RTNL held (netdev notifier, through device.c).
 */
void sib_cable_netdev_event(struct net_device *ndev, unsigned long event)
{
	struct sib_cable *cable;

	if (event != NETDEV_DOWN && event != NETDEV_CHANGE &&
	    event != NETDEV_GOING_DOWN)
		return;
	mutex_lock(&sib_cable_mutex);
	list_for_each_entry(cable, &sib_cables, list)
		if (cable->dev->ndev == ndev && !sib_cable_carrier(cable->dev))
			sib_cable_link(cable, false);
	mutex_unlock(&sib_cable_mutex);
}

/* the namespace goes: its cables lose their sockets (no reference on it) */
static void __net_exit sib_cable_net_exit(struct net *net)
{
	struct sib_cable *cable;
	bool closed = false;

	mutex_lock(&sib_cable_mutex);
	list_for_each_entry(cable, &sib_cables, list) {
		if (!net_eq(cable->net, net))
			continue;
		sib_cable_close_sock(cable);
		sib_cable_link(cable, false);
		closed = true;
	}
	mutex_unlock(&sib_cable_mutex);
	if (closed)
		synchronize_net();
}

static struct pernet_operations sib_cable_net_ops = {
	.exit = sib_cable_net_exit,
};

/**
 * sib_cable_init() - module init: hook into namespace teardown
 *
 * Context: module init. Return: 0 or -errno.
 */
int sib_cable_init(void)
{
	return register_pernet_subsys(&sib_cable_net_ops);
}

/**
 * sib_cable_exit() - module exit, after every device is gone
 *
 * Context: module exit.
 */
void sib_cable_exit(void)
{
	unregister_pernet_subsys(&sib_cable_net_ops);
}
