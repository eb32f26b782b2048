// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the network side. One pair of UDP tunnel sockets (IPv4 and
 * IPv6, port 4791) per network namespace, shared by all softib devices
 * in it and reference counted; IP/UDP header construction; routing and
 * transmission of RoCEv2 packets.
 */
#include <linux/module.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <net/ip6_checksum.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <rdma/ib_addr.h>

#include "net.h"
#include "icrc.h"
#include "hdr.h"
#include "counters.h"
#include "qpcore.h"
#include "recv.h"
#include "trace.h"
#include "lrh.h"

/*
 * struct sib_udp - the sockets of one network namespace
 *
 * Kernel sockets hold no reference on their namespace, and a device is
 * freed asynchronously after its netdev went away, possibly after the
 * namespace itself. So the namespace's exit hook closes the sockets:
 * it unlinks the holder (@net is then stale and never compared again),
 * clears @sk4/@sk6 and waits for RCU; the transmit path reads them
 * under rcu_read_lock() and drops when they are gone. The holder
 * itself lives until its last device lets go.
 */
struct sib_udp {
	struct list_head list;		/* sib_udp_list, while @net lives */
	struct net *net;
	struct socket __rcu *sk4;
	struct socket __rcu *sk6;
	int refs;			/* under sib_udp_mutex */
	bool dead;			/* @net has exited */
};

static LIST_HEAD(sib_udp_list);
static DEFINE_MUTEX(sib_udp_mutex);

static struct socket *sib_udp_sock(struct net *net, bool v6,
				   sib_encap_rcv_t rcv)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg cfg = {};
	struct socket *sock;
	int err;

	if (v6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
		cfg.local_ip6 = in6addr_any;
		cfg.use_udp6_rx_checksums = false;
	} else {
		cfg.family = AF_INET;
		cfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	cfg.local_udp_port = htons(SIB_ROCE_UDP_DPORT);
	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	tcfg.encap_type = 1;
	tcfg.encap_rcv = rcv;
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

/**
 * sib_udp_get() - get (create on first use) the sockets of @net
 * @net: network namespace of the device's netdev
 * @rcv: encap_rcv handler for packets to port 4791
 *
 * Context: process. Return: the holder or ERR_PTR (e.g. -EADDRINUSE
 * when another RoCE driver owns port 4791 in @net).
 */
struct sib_udp *sib_udp_get(struct net *net, sib_encap_rcv_t rcv)
{
	struct socket *sk4, *sk6 = NULL;
	struct sib_udp *u;

	mutex_lock(&sib_udp_mutex);
	list_for_each_entry(u, &sib_udp_list, list) {
		if (net_eq(u->net, net)) {
			u->refs++;
			goto out;
		}
	}
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u) {
		u = ERR_PTR(-ENOMEM);
		goto out;
	}
	sk4 = sib_udp_sock(net, false, rcv);
	if (IS_ERR(sk4)) {
		kfree(u);
		u = ERR_CAST(sk4);
		goto out;
	}
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_mod_enabled()) {
		sk6 = sib_udp_sock(net, true, rcv);
		if (IS_ERR(sk6))
			sk6 = NULL;	/* IPv4 only */
	}
	RCU_INIT_POINTER(u->sk4, sk4);
	RCU_INIT_POINTER(u->sk6, sk6);
	u->net = net;
	u->refs = 1;
	list_add(&u->list, &sib_udp_list);
out:
	mutex_unlock(&sib_udp_mutex);
	return u;
}

/* close the sockets of @u; sib_udp_mutex held, no reader left */
static void sib_udp_close(struct sib_udp *u)
{
	struct socket *sk4, *sk6;

	sk4 = rcu_replace_pointer(u->sk4, NULL, lockdep_is_held(&sib_udp_mutex));
	sk6 = rcu_replace_pointer(u->sk6, NULL, lockdep_is_held(&sib_udp_mutex));
	if (sk4)
		udp_tunnel_sock_release(sk4);
	if (sk6)
		udp_tunnel_sock_release(sk6);
}

/**
 * sib_udp_put() - release a reference from sib_udp_get()
 * @u: holder
 *
 * Context: process; the device using @u transmits no more.
 */
void sib_udp_put(struct sib_udp *u)
{
	mutex_lock(&sib_udp_mutex);
	if (--u->refs == 0) {
		if (!u->dead) {
			list_del(&u->list);
			sib_udp_close(u);
		}
		kfree(u);
	}
	mutex_unlock(&sib_udp_mutex);
}

static void __net_exit sib_net_exit(struct net *net)
{
	struct sib_udp *u, *found = NULL;
	struct socket *sk4, *sk6;

	mutex_lock(&sib_udp_mutex);
	list_for_each_entry(u, &sib_udp_list, list) {
		if (net_eq(u->net, net)) {
			found = u;
			break;
		}
	}
	if (!found) {
		mutex_unlock(&sib_udp_mutex);
		return;
	}
	list_del(&found->list);
	found->dead = true;
	sk4 = rcu_replace_pointer(found->sk4, NULL, true);
	sk6 = rcu_replace_pointer(found->sk6, NULL, true);
	mutex_unlock(&sib_udp_mutex);
	/* transmitters that still saw the sockets are done after this */
	synchronize_net();
	if (sk4)
		udp_tunnel_sock_release(sk4);
	if (sk6)
		udp_tunnel_sock_release(sk6);
}

static struct pernet_operations sib_net_ops = {
	.exit = sib_net_exit,
};

/**
 * sib_net_init() - hook into network namespace teardown
 *
 * Context: module init. Return: 0 or -errno.
 */
int sib_net_init(void)
{
	return register_pernet_subsys(&sib_net_ops);
}

/**
 * sib_net_fini() - undo sib_net_init()
 *
 * Context: module exit, after every device is gone.
 */
void sib_net_fini(void)
{
	unregister_pernet_subsys(&sib_net_ops);
}

/*
 * room in front of the BTH for the link layer, IP and UDP headers; on an
 * InfiniBand device also for the LRH and GRH, and what the cable puts in
 * front of those
 */
static unsigned int sib_skb_head(struct sib_dev *dev)
{
	unsigned int head = LL_RESERVED_SPACE(dev->ndev) +
			    sizeof(struct ipv6hdr) + sizeof(struct udphdr);

	if (sib_is_ib(dev))
		head += SIB_LRH_LEN + SIB_GRH_LEN + sib_cable_headroom();
	return head;
}

/* room after the ICRC: an InfiniBand packet's VCRC */
static unsigned int sib_skb_tail(struct sib_dev *dev)
{
	return sib_is_ib(dev) ? SIB_VCRC_LEN : 0;
}

/*
 * Packet buffers of more than half a page, up to two pages, come from page
 * pools, one per CPU and order (one page, two pages), rather than from the
 * page fragment cache. The cache gets a page back only when every piece of
 * it is free, which up to 256 packets waiting in a virtio TX ring never
 * allow: it took a new 32 KiB page for every seven or so full 4 KiB-MTU
 * packets, and Debian's init_on_alloc clears each new page (a byte at a
 * time under TCG). A pool page goes back to its pool's ring when the stack
 * frees the skb, from any context (skb_mark_for_recycle()), and comes out
 * again as it was left: every byte of it that a packet carries is written
 * by the engine, as in a fragment.
 *
 * The allocation side of a page pool takes no lock and allows one caller
 * at a time. Each CPU has its own pools and takes from them with bottom
 * halves off, so that a softirq round cannot cut into an allocation of
 * process context on the same CPU. A freed page goes into the ring under
 * the ring's own lock, never straight into the allocation side: the pools
 * have no NAPI context or CPU of their own (page_pool_create()) that would
 * allow that. They are the module's, not a device's:
 * every device sends through the same stack, and pools per device would
 * keep more idle pages for the same traffic.
 */
#define SIB_POOL_ORDERS		2
#define SIB_SKB_POOL_MAX	(PAGE_SIZE << (SIB_POOL_ORDERS - 1))

/*
 * A pool page carries one packet. At half a page or less, most of the
 * page would idle while the packet waits in the TX ring (and the packet's
 * truesize, a whole page, would be twice its buffer or more); the fragment
 * cache packs such buffers (ACKs, the headers of zero-copy packets, the
 * packets of a 1024-byte MTU) two or more to a page. Above it, a buffer
 * fills more than half of its page: a full 2048-MTU packet about 60% of
 * one page, a full 4096-MTU packet about 55% of two.
 */
#define SIB_SKB_POOL_MIN	(PAGE_SIZE / 2)

/*
 * Pages a pool's ring keeps: a virtio TX ring's worth, so that what one
 * TX completion frees fits. A pool never gives back what it keeps: after
 * a burst it holds at most these and the 128 of its allocation cache, per
 * CPU that sent full packets 3 MiB in two-page buffers and 1.5 MiB in
 * one-page ones, until the module unloads; a page that finds the ring
 * full goes back to the page allocator.
 */
#define SIB_POOL_SIZE		256

static bool sib_tx_page_pool = true;
module_param_named(tx_page_pool, sib_tx_page_pool, bool, 0644);
MODULE_PARM_DESC(tx_page_pool, "build packet buffers of more than half a page, up to two pages, in pages recycled by a per-CPU page pool (default on); off: in the page fragment cache");

#if IS_ENABLED(CONFIG_PAGE_POOL)
struct sib_pools {
	struct page_pool *pool[SIB_POOL_ORDERS];
};

static DEFINE_PER_CPU(struct sib_pools, sib_pools);

/**
 * sib_tx_pools_exit() - destroy the packet buffer pools
 *
 * A page still in a packet somewhere (a netdev's TX ring, a receiver in
 * another namespace behind a veth) keeps its pool alive until the packet
 * is freed; the page pool library sees to that, without softib's code.
 * Context: module load (a pool failed) or exit, after every device is
 * gone: nothing allocates from the pools any more.
 */
void sib_tx_pools_exit(void)
{
	unsigned int order;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sib_pools *p = per_cpu_ptr(&sib_pools, cpu);

		for (order = 0; order < SIB_POOL_ORDERS; order++) {
			page_pool_destroy(p->pool[order]);
			p->pool[order] = NULL;
		}
	}
}

/**
 * sib_tx_pools_init() - create the packet buffer pools, two per CPU
 *
 * Pools of order 0 and 1, with no DMA mapping (the pages are the CPU's;
 * the netdev maps what it sends) and pages from the allocating CPU's
 * nearest node with memory (NUMA_NO_NODE): the pool's refill keeps only
 * pages of that node, which a CPU of a memoryless node would never get
 * with its own node's id.
 * Context: module load. Return: 0 or -errno (then no pool is left).
 */
int sib_tx_pools_init(void)
{
	struct page_pool_params pp = {
		.pool_size = SIB_POOL_SIZE,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool;
	unsigned int order;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sib_pools *p = per_cpu_ptr(&sib_pools, cpu);

		for (order = 0; order < SIB_POOL_ORDERS; order++) {
			pp.order = order;
			pool = page_pool_create(&pp);
			if (IS_ERR(pool)) {
				sib_tx_pools_exit();
				return PTR_ERR(pool);
			}
			p->pool[order] = pool;
		}
	}
	return 0;
}

/*
 * a buffer of @size bytes (skb_shared_info included, more than
 * SIB_SKB_POOL_MIN, at most SIB_SKB_POOL_MAX) in a page of this CPU's
 * pool, marked to go back to it when freed; NULL when the pool has no
 * page to give (the page allocator had none either)
 */
static struct sk_buff *sib_skb_pool_alloc(unsigned int size)
{
	unsigned int order = get_order(size);
	struct page_pool *pool;
	struct page *page;
	struct sk_buff *skb;

	local_bh_disable();
	pool = this_cpu_read(sib_pools.pool[order]);
	page = pool ? page_pool_dev_alloc_pages(pool) : NULL;
	local_bh_enable();
	if (!page)
		return NULL;
	skb = build_skb(page_address(page), PAGE_SIZE << order);
	if (!skb) {
		/* into the pool's ring, as from a freed packet */
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	return skb;
}
#else
/* a kernel without page pools (the debug kernel's tinyconfig): the cache */
int sib_tx_pools_init(void)
{
	return 0;
}

void sib_tx_pools_exit(void)
{
}

static struct sk_buff *sib_skb_pool_alloc(unsigned int size)
{
	return NULL;
}
#endif

/*
 * a packet buffer of @dev: @head bytes of headroom, @len put, @tail after
 * them; @gfp for the kmalloc() fallback
 */
static struct sk_buff *sib_skb_alloc_room(struct sib_dev *dev,
					  unsigned int head, unsigned int len,
					  unsigned int tail, gfp_t gfp)
{
	unsigned int size = SKB_DATA_ALIGN(head + len + tail) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb = NULL;
	void *data;

	if (size > SIB_SKB_POOL_MIN && size <= SIB_SKB_POOL_MAX &&
	    READ_ONCE(sib_tx_page_pool)) {
		skb = sib_skb_pool_alloc(size);
		if (skb)
			sib_counter_inc(dev, SIB_CNT_TX_POOL_PKTS);
	}
	/*
	 * a full 4 KiB-MTU packet needs a little more than a page; the
	 * fragment cache hands out such pieces of its larger pages
	 */
	if (!skb && size <= SIB_SKB_FRAG_MAX) {
		data = netdev_alloc_frag(size);
		if (data) {
			skb = build_skb(data, size);
			if (!skb)
				skb_free_frag(data);
		}
	}
	if (!skb)
		skb = alloc_skb(head + len + tail, gfp | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_put(skb, len);
	return skb;
}

/**
 * sib_skb_alloc() - allocate a packet with room for all outer headers
 * @dev: device (for the link layer reserve)
 * @len: bytes from the BTH to the end of the ICRC
 *
 * The buffer of a packet of more than half a page and up to two pages
 * (a full 2 KiB- or 4 KiB-MTU packet with its headers) is a page of a
 * per-CPU page pool, recycled when the packet is freed (module parameter
 * tx_page_pool, counter tx_pool_pkts); that of a smaller one, or when the
 * pool has none, a page fragment (as drivers build received packets).
 * Unlike a kmalloc() buffer neither is cleared on every allocation
 * (init_on_alloc, on in Debian's kernel, is a byte-at-a-time "rep stosb"
 * under TCG); every byte of it that the packet carries is written by the
 * engine. Larger packets, or when no fragment is to be had, use
 * alloc_skb().
 * Context: process (may sleep) or softirq (a receive round, task.c); not
 * with interrupts off. Return: skb with skb->data at the BTH and @len
 * bytes put, or NULL.
 */
struct sk_buff *sib_skb_alloc(struct sib_dev *dev, unsigned int len)
{
	return sib_skb_alloc_room(dev, sib_skb_head(dev), len,
				  sib_skb_tail(dev),
				  in_softirq() ? GFP_ATOMIC : GFP_KERNEL);
}

/**
 * sib_net_frags_ok() - may a QP's packet carry its payload as page fragments?
 * @qp: the sending QP
 *
 * Not when the QP's last packet left through a netdev without
 * scatter-gather (virtio-net without checksum offload, as on QEMU's user,
 * socket and dgram backends): the stack would copy each such packet into
 * a new linear buffer. A packet built with fragments anyway is copied by
 * sib_net_xmit(); this only saves building them. Packets delivered inside
 * softib (loopback) keep fragments. Context: the QP's run.
 * Return: true when fragments are worth building.
 */
bool sib_net_frags_ok(const struct sib_qp *qp)
{
	return !READ_ONCE(qp->tx_linear);
}

/*
 * The route leaves through @out. Without scatter-gather there, the stack's
 * validate_xmit_skb() would copy a packet with fragments into a kmalloc()
 * buffer, which init_on_alloc clears first (a byte at a time under TCG):
 * copy it here into a buffer of sib_skb_alloc()'s kinds instead (a pool
 * page or a page fragment), with the same headroom, so the header offsets
 * and metadata (skb_copy_header(), the route included; not the pool mark,
 * which stays the copy's own) stay valid. A packet larger than the route's
 * MTU is left to IP, whose fragmentation copies it anyway; so is one this
 * cannot copy (no memory: the stack then tries its own copy). Sets
 * *@linear when @out takes no fragments (for sib_net_frags_ok()). Context: under rcu_read_lock(), no
 * sleeping. Return: the packet to send, @skb or its copy (@skb freed).
 */
static struct sk_buff *sib_xmit_linear(struct sib_dev *dev,
				       const struct net_device *out,
				       struct sk_buff *skb, unsigned int mtu,
				       bool *linear)
{
	struct sk_buff *n;

	*linear = !(out->features & NETIF_F_SG);
	if (!*linear || !skb_is_nonlinear(skb) || skb->len > mtu)
		return skb;
	n = sib_skb_alloc_room(dev, skb_headroom(skb), skb->len, 0,
			       GFP_ATOMIC);
	if (!n)
		return skb;
	if (skb_copy_bits(skb, 0, n->data, skb->len)) {
		kfree_skb(n);
		return skb;
	}
	skb_copy_header(n, skb);
	consume_skb(skb);
	sib_counter_inc(dev, SIB_CNT_XMIT_LINEARIZED);
	return n;
}

/**
 * sib_skb_reuse() - make a packet of sib_skb_alloc() new again
 * @dev: device it was allocated for
 * @skb: the packet, which never went to the network stack
 * @len: bytes from the BTH to the end of the ICRC
 *
 * For a buffer that is only handed around inside softib (see loop.c):
 * its data starts where sib_skb_alloc() put it and holds @len bytes,
 * whose contents are stale. A buffer in a pool page may be reused as
 * well: the page is the skb's until the skb is freed, and goes back to
 * its pool then, whoever frees it.
 * Context: any. Return: true, or false when @skb cannot be reused (it
 * is shared, has fragments or is too small).
 */
bool sib_skb_reuse(struct sib_dev *dev, struct sk_buff *skb, unsigned int len)
{
	unsigned int head = sib_skb_head(dev);

	if (skb_shared(skb) || skb_cloned(skb) || skb_is_nonlinear(skb) ||
	    head + len + sib_skb_tail(dev) > skb_end_offset(skb))
		return false;
	skb->data = skb->head + head;
	skb_reset_tail_pointer(skb);
	skb->len = 0;
	skb_put(skb, len);
	return true;
}

/**
 * sib_skb_add_trailer() - append zeroed pad and ICRC bytes as a fragment
 * @skb: packet whose payload is in page fragments (zero-copy), with at
 *	 least one fragment slot left
 * @n: bytes (pad + ICRC, at most SMP_CACHE_BYTES)
 *
 * The ICRC is written later by the transmit path (or never, on
 * loopback); the bytes must not follow the payload in the linear part
 * because the payload is not there. Context: process or softirq.
 * Return: 0 or -ENOMEM.
 */
int sib_skb_add_trailer(struct sk_buff *skb, unsigned int n)
{
	void *p = netdev_alloc_frag(SMP_CACHE_BYTES);
	struct page *page;

	if (!p)
		return -ENOMEM;
	sib_zero(p, n);
	page = virt_to_head_page(p);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   p - page_address(page), n);
	skb->len += n;
	skb->data_len += n;
	skb->truesize += SMP_CACHE_BYTES;
	return 0;
}

/**
 * sib_net_push_hdrs() - put the UDP and IP headers in front of the BTH
 * @dev: device
 * @av: addresses
 * @skb: from sib_skb_alloc(), data at the BTH
 * @sport: UDP source port (per QP, for ECMP entropy)
 *
 * Afterwards skb->data is at the IP header and the network/transport
 * header offsets are set. With the device's ecn_enable (cc.c) the ECN
 * field says ECT(0), except on a CNP. The IPv4 ID and checksum are filled in by
 * sib_net_xmit(); for loopback they stay 0/computed here.
 * Context: any.
 */
void sib_net_push_hdrs(struct sib_dev *dev, const struct sib_av *av,
		       struct sk_buff *skb, u16 sport)
{
	u8 ttl = av->hop_limit ? av->hop_limit : 64;
	u8 tclass = av->traffic_class;
	struct udphdr *udp;

	/*
	 * ECN-capable transport, ECT(0), on every packet but a CNP (IBTA
	 * Annex A17.9): the DSCP stays the GRH traffic class's
	 */
	if (READ_ONCE(dev->cc[SIB_CC_ECN_ENABLE]) && skb->data[0] != SIB_OP_CNP)
		tclass = (tclass & ~INET_ECN_MASK) | INET_ECN_ECT_0;

	udp = skb_push(skb, sizeof(*udp));
	skb_reset_transport_header(skb);
	udp->source = htons(sport);
	udp->dest = htons(SIB_ROCE_UDP_DPORT);
	udp->len = htons(skb->len);
	udp->check = 0;
	if (av->net_type == RDMA_NETWORK_IPV4) {
		struct iphdr *ip = skb_push(skb, sizeof(*ip));

		skb_reset_network_header(skb);
		ip->version = 4;
		ip->ihl = 5;
		ip->tos = tclass;
		ip->tot_len = htons(skb->len);
		ip->id = 0;
		ip->frag_off = htons(IP_DF);
		ip->ttl = ttl;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, av->sgid.raw + 12, 4);
		memcpy(&ip->daddr, av->dgid.raw + 12, 4);
		ip_send_check(ip);
		skb->protocol = htons(ETH_P_IP);
	} else {
		struct ipv6hdr *ip6 = skb_push(skb, sizeof(*ip6));

		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6, tclass, htonl(av->flow_label));
		ip6->payload_len = htons(skb->len - sizeof(*ip6));
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = ttl;
		memcpy(&ip6->saddr, av->sgid.raw, 16);
		memcpy(&ip6->daddr, av->dgid.raw, 16);
		skb->protocol = htons(ETH_P_IPV6);
	}
}

static void sib_put_icrc(struct sk_buff *skb)
{
	unsigned int bth_off = skb_transport_offset(skb) + sizeof(struct udphdr);
	unsigned int len = skb->len - bth_off - SIB_ICRC_LEN;
	__le32 icrc = cpu_to_le32(sib_icrc(skb, bth_off, len));

	/* the trailer may sit in a page fragment */
	skb_store_bits(skb, bth_off + len, &icrc, sizeof(icrc));
}

/**
 * sib_route_cache_drop() - let go of a QP's kept route
 * @rc: the QP's route cache
 *
 * Context: the QP's destruction, after its last run.
 */
void sib_route_cache_drop(struct sib_route_cache *rc)
{
	if (rc->rt)
		ip_rt_put(rc->rt);
	rc->rt = NULL;
}

/*
 * The route of a packet to @ip's addresses out of @oif. A connected QP
 * sends every packet to the same place, and a FIB lookup per packet was a
 * good part of a small packet's cost: @rc (the QP's, NULL for a UD
 * address handle) keeps the last route, which is used again for the same
 * addresses and interface while the routing tables have not changed since
 * (dst_check() compares their generation; a route whose netdev went away
 * was moved to the blackhole device and fails it). Only IPv4: an IPv6
 * route refers to its namespace's dst_ops, and a QP may outlive the
 * namespace of its netdev's addresses. Context: the QP's run (the only
 * user of @rc), under rcu_read_lock(). Return: a referenced route or an
 * ERR_PTR.
 */
static struct rtable *sib_route4(struct net *net, int oif,
				 const struct iphdr *ip,
				 struct sib_route_cache *rc)
{
	struct flowi4 fl = {};
	struct rtable *rt;

	if (rc && rc->rt) {
		if (rc->daddr == ip->daddr && rc->saddr == ip->saddr &&
		    rc->oif == oif && dst_check(&rc->rt->dst, 0)) {
			dst_hold(&rc->rt->dst);
			return rc->rt;
		}
		sib_route_cache_drop(rc);
	}
	fl.flowi4_oif = oif;
	fl.flowi4_proto = IPPROTO_UDP;
	fl.daddr = ip->daddr;
	fl.saddr = ip->saddr;
	rt = ip_route_output_key(net, &fl);
	if (!IS_ERR(rt) && rc) {
		dst_hold(&rt->dst);
		rc->rt = rt;
		rc->daddr = ip->daddr;
		rc->saddr = ip->saddr;
		rc->oif = oif;
	}
	return rt;
}

static int sib_xmit4(struct sib_dev *dev, struct socket *sock, int oif,
		     struct sk_buff *skb, bool *linear,
		     struct sib_route_cache *rc)
{
	struct net *net = dev_net(dev->ndev);
	struct iphdr *ip = ip_hdr(skb);
	struct rtable *rt;

	rt = sib_route4(net, oif, ip, rc);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);
	skb = sib_xmit_linear(dev, rt->dst.dev, skb, dst_mtu(&rt->dst), linear);
	ip = ip_hdr(skb);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	/*
	 * Larger than the route's MTU (a QP whose path MTU was set before
	 * the netdev MTU shrank): with DF the packet would die silently, so
	 * let IP fragment it; the RoCEv2 receiver's UDP socket reassembles.
	 */
	if (skb->len > dst_mtu(&rt->dst)) {
		ip->frag_off = 0;
		sib_counter_inc(dev, SIB_CNT_XMIT_FRAG);
	}
	__ip_select_ident(net, ip, 1);
	sib_put_icrc(skb);
	ip_send_check(ip);
	skb->ip_summed = CHECKSUM_NONE;
	return ip_local_out(net, sock->sk, skb);
}

static int sib_xmit6(struct sib_dev *dev, struct socket *sock, int oif,
		     struct sk_buff *skb, bool *linear)
{
	struct net *net = dev_net(dev->ndev);
	struct ipv6hdr *ip6 = ipv6_hdr(skb);
	struct udphdr *udp = udp_hdr(skb);
	struct flowi6 fl6 = {};
	struct dst_entry *dst;
	unsigned int ulen = skb->len - skb_transport_offset(skb);

	fl6.flowi6_oif = oif;
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.daddr = ip6->daddr;
	fl6.saddr = ip6->saddr;
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk, &fl6, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	skb_dst_set(skb, dst);
	skb = sib_xmit_linear(dev, dst->dev, skb, dst_mtu(dst), linear);
	ip6 = ipv6_hdr(skb);
	udp = udp_hdr(skb);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	/* too large for the route: fragment rather than drop (see IPv4) */
	if (skb->len > dst_mtu(dst)) {
		skb->ignore_df = 1;
		sib_counter_inc(dev, SIB_CNT_XMIT_FRAG);
	}
	sib_put_icrc(skb);
	udp->check = csum_ipv6_magic(&ip6->saddr, &ip6->daddr, ulen,
				     IPPROTO_UDP,
				     skb_checksum(skb, skb_transport_offset(skb),
						  ulen, 0));
	if (!udp->check)
		udp->check = CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
	return ip6_local_out(net, sock->sk, skb);
}

/**
 * sib_net_xmit() - route and send a packet built by sib_net_push_hdrs()
 * @dev: device
 * @av: addresses (IP family, the VLAN upper to route through if any)
 * @skb: the packet; consumed in every case
 * @linear: set to whether the route's netdev takes no page fragments
 *	    (see sib_net_frags_ok()); left alone when there is no route
 * @rc: the sending QP's route cache (sib_route4()), for its own address
 *	vector, or NULL to look the route up
 *
 * Routes in the namespace of the device's netdev, out of that netdev
 * (or @av->ifindex), computes the ICRC. A packet larger than the route
 * MTU is sent without DF and fragmented by IP (counted). A packet with
 * page fragments for a netdev without scatter-gather is first copied
 * into one buffer (counted).
 * Context: process or softirq. Return: 0 or -errno (no route, device
 * down, the namespace is being dismantled).
 */
int sib_net_xmit(struct sib_dev *dev, const struct sib_av *av,
		 struct sk_buff *skb, bool *linear, struct sib_route_cache *rc)
{
	bool v4 = av->net_type == RDMA_NETWORK_IPV4;
	int oif = av->ifindex ?: dev->ndev->ifindex;
	struct socket *sock;
	int err;

	skb->dev = dev->ndev;
	if (!dev->udp) {		/* an IB device: its packets take the cable */
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	rcu_read_lock();
	sock = v4 ? rcu_dereference(dev->udp->sk4) :
		    rcu_dereference(dev->udp->sk6);
	if (!sock) {
		/* the namespace is gone (or IPv6 is off in it) */
		rcu_read_unlock();
		kfree_skb(skb);
		return v4 ? -ENETDOWN : -EAFNOSUPPORT;
	}
	if (v4)
		err = sib_xmit4(dev, sock, oif, skb, linear, rc);
	else
		err = sib_xmit6(dev, sock, oif, skb, linear);
	rcu_read_unlock();
	return net_xmit_eval(err);
}

/*
 * sib_pkt_xmit() of an InfiniBand device: LRH (and GRH) instead of IP and
 * UDP; to the port's own LID inside softib, else sealed (ICRC, VCRC) and
 * onto the cable. A multicast packet goes to the port's own group members
 * too (IBTA 10.5.2.2). A packet the port state holds back (lrh.c counts
 * it) is dropped like a lost one: the engines' retries see to it.
 */
static int sib_pkt_xmit_ib(struct sib_qp *qp, const struct sib_av *av,
			   struct sk_buff *skb)
{
	struct sib_dev *dev = qp->dev;
	struct sk_buff *copy;
	u8 path_bits;
	int err;

	err = sib_ib_push_hdrs(qp, av, skb);
	if (err)
		goto drop;
	sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
	qp->cc_tx_bytes += skb->len;
	if (sib_ib_lid_is_mcast(av->dlid)) {
		copy = skb_copy(skb, GFP_ATOMIC);
		if (copy)
			sib_ib_rcv_loopback(dev, copy, NULL);
	} else if (av->dlid != SIB_IB_LID_PERMISSIVE &&
		   sib_ib_lid_match(dev, av->dlid, &path_bits)) {
		sib_ib_rcv_loopback(dev, skb, qp->task_nested ? NULL : qp);
		return 0;
	}
	err = sib_ib_pkt_seal(skb);
	if (err)
		goto drop;
	/* sib_cable_xmit() counts the bytes sent and the failures */
	return sib_cable_xmit(dev, skb);

drop:
	kfree_skb(skb);
	return err == -ENETDOWN ? 0 : err;
}

/**
 * sib_pkt_xmit() - send a packet built by an engine
 * @qp: sending QP (UDP source port)
 * @av: destination
 * @skb: from sib_skb_alloc(), data at the BTH, headers and payload
 *	 filled in; consumed
 *
 * On an InfiniBand device the packet gets an LRH (lrh.c) and goes to the
 * cable (cable.c), or to the port itself for its own LID.
 * Context: the QP's run. Return: 0 or -errno from the IP layer or the
 * cable.
 */
int sib_pkt_xmit(struct sib_qp *qp, const struct sib_av *av,
		 struct sk_buff *skb)
{
	struct sib_dev *dev = qp->dev;
	bool linear = READ_ONCE(qp->tx_linear);
	int err;

	trace_sib_pkt_xmit(sib_bth_qpn((struct sib_bth *)skb->data),
			   skb->data[0], sib_bth_psn((struct sib_bth *)skb->data),
			   skb->len);
	/*
	 * the QP's P_Key entry went away: nothing leaves (see sib_qp_pkey());
	 * QP0's SMPs have no P_Key to check (IBTA 10.9.3)
	 */
	if (qp->ibqp.qp_type != IB_QPT_SMI &&
	    !sib_pkey_valid(sib_bth_pkey((struct sib_bth *)skb->data))) {
		sib_counter_inc(dev, SIB_CNT_DROP_PKEY_TX);
		kfree_skb(skb);
		return 0;
	}
	/* an XRC target's responses are in the XRC opcode range; CNPs are not */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT && skb->data[0] != SIB_OP_CNP)
		skb->data[0] |= SIB_OP_XRC_BASE;
	if (sib_is_ib(dev))
		return sib_pkt_xmit_ib(qp, av, skb);
	/* a UD AH with its own flow label picks its own UDP source port */
	sib_net_push_hdrs(dev, av, skb, av->flow_label ?
			  rdma_flow_label_to_udp_sport(av->flow_label) :
			  qp->src_port);
	sib_counter_inc(dev, SIB_CNT_SENT_PKTS);
	qp->cc_tx_bytes += skb->len;		/* pacing charges it (cc.c) */
	if (rdma_is_multicast_addr((struct in6_addr *)av->dgid.raw))
		sib_mcast_loop(dev, skb);
	if (av->loopback) {
		sib_rcv_loopback(dev, skb, qp->task_nested ? NULL : qp);
		return 0;
	}
#ifdef CONFIG_XPS
	/* the QP's transmit queue (see sib_qp.xmit_cpu), not this CPU's */
	skb->sender_cpu = qp->xmit_cpu + 1;
#endif
	err = sib_net_xmit(dev, av, skb, &linear,
			   av == &qp->av ? &qp->route : NULL);
	if (READ_ONCE(qp->tx_linear) != linear)
		WRITE_ONCE(qp->tx_linear, linear);
	if (err)
		sib_counter_inc(dev, SIB_CNT_XMIT_ERR);
	return err;
}
