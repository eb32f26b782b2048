// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of flow.c: specs compiled into rules (each layer's
 * fields, masks, refused combinations and types) and frames parsed and
 * matched (tagged and untagged, IPv4 and IPv6, ports, fragments, short
 * and malformed frames).
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <rdma/softib-abi.h>

#include "flow.h"

/* an attribute with room for a few specs, as ib_uverbs lays it out */
struct sib_test_attr {
	struct ib_flow_attr attr;
	u8 specs[4 * sizeof(union ib_flow_spec)];
};

static union ib_flow_spec *sib_test_add(struct sib_test_attr *a, u32 type,
					u16 size)
{
	u8 *p = a->specs;
	union ib_flow_spec *s;
	unsigned int i;

	for (i = 0; i < a->attr.num_of_specs; i++)
		p += ((union ib_flow_spec *)p)->size;
	s = (void *)p;
	s->type = type;
	s->size = size;
	a->attr.num_of_specs++;
	return s;
}

static void sib_test_attr_init(struct sib_test_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->attr.type = IB_FLOW_ATTR_NORMAL;
	a->attr.port = 1;
}

static const u8 sib_test_dmac[ETH_ALEN] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const u8 sib_test_smac[ETH_ALEN] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

/* Ethernet (optionally tagged) + IPv4 + UDP 1234 -> 5678, into @f */
static u32 sib_test_frame4(u8 *f, bool vlan, u16 frag)
{
	u32 off = ETH_HLEN;
	struct iphdr *iph;
	struct udphdr *uh;

	memset(f, 0, 128);
	memcpy(f, sib_test_dmac, ETH_ALEN);
	memcpy(f + ETH_ALEN, sib_test_smac, ETH_ALEN);
	if (vlan) {
		*(__be16 *)(f + 12) = htons(ETH_P_8021Q);
		*(__be16 *)(f + 14) = htons(0xc0c);
		off += VLAN_HLEN;
	}
	*(__be16 *)(f + off - 2) = htons(ETH_P_IP);
	iph = (void *)(f + off);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->tos = 0x10;
	iph->protocol = IPPROTO_UDP;
	iph->frag_off = htons(frag);
	iph->saddr = htonl(0x01010101);
	iph->daddr = htonl(0x02020202);
	uh = (void *)(iph + 1);
	uh->source = htons(1234);
	uh->dest = htons(5678);
	return off + sizeof(*iph) + sizeof(*uh);
}

static void sib_flow_test_eth(struct kunit *test)
{
	struct sib_test_attr a;
	struct sib_flow_rule r;
	struct sib_flow_key k;
	union ib_flow_spec *s;
	u8 f[128];
	u32 len;

	sib_test_attr_init(&a);
	s = sib_test_add(&a, IB_FLOW_SPEC_ETH, sizeof(s->eth));
	memcpy(s->eth.val.dst_mac, sib_test_dmac, ETH_ALEN);
	eth_broadcast_addr(s->eth.mask.dst_mac);
	s->eth.val.ether_type = htons(ETH_P_IP);
	s->eth.mask.ether_type = htons(0xffff);
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	KUNIT_EXPECT_FALSE(test, r.drop);

	len = sib_test_frame4(f, false, 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	/* the type after a tag counts */
	len = sib_test_frame4(f, true, 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	KUNIT_EXPECT_EQ(test, k.vlan, 1);
	KUNIT_EXPECT_EQ(test, ntohs(k.vlan_tci), 0xc0c);
	/* another destination */
	f[5] ^= 1;
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
	/* shorter than a header: nothing matches a rule on the address */
	sib_flow_key_parse(f, ETH_HLEN - 1, false, 0, &k);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
}

static void sib_flow_test_vlan(struct kunit *test)
{
	struct sib_test_attr a;
	struct sib_flow_rule r;
	struct sib_flow_key k;
	union ib_flow_spec *s;
	u8 f[128];
	u32 len;

	sib_test_attr_init(&a);
	s = sib_test_add(&a, IB_FLOW_SPEC_ETH, sizeof(s->eth));
	s->eth.val.vlan_tag = htons(0xc0c);
	s->eth.mask.vlan_tag = htons(0x0fff);
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	len = sib_test_frame4(f, true, 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	/* the same tag taken out by the netdev */
	len = sib_test_frame4(f, false, 0);
	sib_flow_key_parse(f, len, true, 0xc0c, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	/* untagged: a rule on VID 0 must not take it */
	s->eth.val.vlan_tag = 0;
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
}

static void sib_flow_test_ipv4_udp(struct kunit *test)
{
	struct sib_test_attr a;
	struct sib_flow_rule r;
	struct sib_flow_key k;
	union ib_flow_spec *s;
	u8 f[128];
	u32 len;

	sib_test_attr_init(&a);
	s = sib_test_add(&a, IB_FLOW_SPEC_IPV4, sizeof(s->ipv4));
	s->ipv4.val.src_ip = htonl(0x01010101);
	s->ipv4.mask.src_ip = htonl(0xffffffff);
	s->ipv4.val.dst_ip = htonl(0x02020202);
	s->ipv4.mask.dst_ip = htonl(0xffffffff);
	s = sib_test_add(&a, IB_FLOW_SPEC_UDP, sizeof(s->tcp_udp));
	s->tcp_udp.val.dst_port = htons(5678);
	s->tcp_udp.mask.dst_port = htons(0xffff);
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	len = sib_test_frame4(f, false, 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	KUNIT_EXPECT_EQ(test, k.v4_ttl, 64);
	KUNIT_EXPECT_EQ(test, k.v4_tos, 0x10);
	/* DF set: the flags, not the ports, change */
	len = sib_test_frame4(f, false, 0x4000);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_EQ(test, k.v4_flags, 2);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	/* a later fragment has no ports: a rule on ports does not take it */
	len = sib_test_frame4(f, false, 100);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_EQ(test, k.l4, 0);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
	/* TCP is not UDP */
	len = sib_test_frame4(f, false, 0);
	((struct iphdr *)(f + ETH_HLEN))->protocol = IPPROTO_TCP;
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
	/* an IHL below 5 is no IPv4 header */
	len = sib_test_frame4(f, false, 0);
	((struct iphdr *)(f + ETH_HLEN))->ihl = 3;
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_EQ(test, k.l3, 0);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
	/* cut inside the UDP header: no ports */
	len = sib_test_frame4(f, false, 0);
	sib_flow_key_parse(f, ETH_HLEN + 20 + 2, false, 0, &k);
	KUNIT_EXPECT_EQ(test, k.l3, 4);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
}

static void sib_flow_test_ipv6_tcp(struct kunit *test)
{
	struct sib_test_attr a;
	struct sib_flow_rule r;
	struct sib_flow_key k;
	union ib_flow_spec *s;
	struct ipv6hdr *h;
	u8 f[128] = {};
	u32 len = ETH_HLEN + sizeof(*h) + 20;

	memcpy(f, sib_test_dmac, ETH_ALEN);
	*(__be16 *)(f + 12) = htons(ETH_P_IPV6);
	h = (void *)(f + ETH_HLEN);
	h->version = 6;
	h->nexthdr = IPPROTO_TCP;
	h->hop_limit = 9;
	h->flow_lbl[2] = 0x42;
	h->saddr.s6_addr[0] = 0xa0;
	h->daddr.s6_addr[0] = 0xb0;
	*(__be16 *)(f + ETH_HLEN + sizeof(*h)) = htons(1234);
	*(__be16 *)(f + ETH_HLEN + sizeof(*h) + 2) = htons(5678);

	sib_test_attr_init(&a);
	s = sib_test_add(&a, IB_FLOW_SPEC_IPV6, sizeof(s->ipv6));
	s->ipv6.val.dst_ip[0] = 0xb0;
	s->ipv6.mask.dst_ip[0] = 0xff;
	s->ipv6.val.flow_label = htonl(0x42);
	s->ipv6.mask.flow_label = htonl(0xfffff);
	s = sib_test_add(&a, IB_FLOW_SPEC_TCP, sizeof(s->tcp_udp));
	s->tcp_udp.val.src_port = htons(1234);
	s->tcp_udp.mask.src_port = htons(0xffff);
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_EQ(test, k.l3, 6);
	KUNIT_EXPECT_EQ(test, k.v6_hop_limit, 9);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	h->daddr.s6_addr[0] = 0xb1;
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_FALSE(test, sib_flow_rule_match(&r, &k));
}

/* an empty rule takes every frame; values outside the mask do not count */
static void sib_flow_test_masks(struct kunit *test)
{
	struct sib_test_attr a;
	struct sib_flow_rule r;
	struct sib_flow_key k;
	union ib_flow_spec *s;
	u8 f[128];
	u32 len = sib_test_frame4(f, false, 0);

	sib_test_attr_init(&a);
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
	sib_flow_key_parse(f, 3, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));

	s = sib_test_add(&a, IB_FLOW_SPEC_ETH, sizeof(s->eth));
	memset(s->eth.val.src_mac, 0xee, ETH_ALEN);	/* no mask */
	KUNIT_ASSERT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	sib_flow_key_parse(f, len, false, 0, &k);
	KUNIT_EXPECT_TRUE(test, sib_flow_rule_match(&r, &k));
}

static void sib_flow_test_refused(struct kunit *test)
{
	struct sib_test_attr a;
	struct sib_flow_rule r;
	union ib_flow_spec *s;

	/* two network layers, two transport layers, one layer twice */
	sib_test_attr_init(&a);
	sib_test_add(&a, IB_FLOW_SPEC_IPV4, sizeof(s->ipv4));
	sib_test_add(&a, IB_FLOW_SPEC_IPV6, sizeof(s->ipv6));
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EINVAL);
	sib_test_attr_init(&a);
	sib_test_add(&a, IB_FLOW_SPEC_TCP, sizeof(s->tcp_udp));
	sib_test_add(&a, IB_FLOW_SPEC_UDP, sizeof(s->tcp_udp));
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EINVAL);
	sib_test_attr_init(&a);
	sib_test_add(&a, IB_FLOW_SPEC_ETH, sizeof(s->eth));
	sib_test_add(&a, IB_FLOW_SPEC_ETH, sizeof(s->eth));
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EINVAL);
	/* a spec shorter than its type */
	sib_test_attr_init(&a);
	sib_test_add(&a, IB_FLOW_SPEC_ETH, sizeof(s->eth) - 1);
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EINVAL);
	/* types and flags not offered */
	sib_test_attr_init(&a);
	sib_test_add(&a, IB_FLOW_SPEC_VXLAN_TUNNEL, sizeof(s->tunnel));
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EOPNOTSUPP);
	sib_test_attr_init(&a);
	sib_test_add(&a, IB_FLOW_SPEC_ETH | IB_FLOW_SPEC_INNER, sizeof(s->eth));
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EOPNOTSUPP);
	sib_test_attr_init(&a);
	a.attr.type = IB_FLOW_ATTR_SNIFFER;
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EOPNOTSUPP);
	sib_test_attr_init(&a);
	a.attr.flags = IB_FLOW_ATTR_FLAGS_EGRESS;
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EOPNOTSUPP);
	sib_test_attr_init(&a);
	a.attr.port = 2;
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), -EINVAL);
	/* the drop action */
	sib_test_attr_init(&a);
	a.attr.flags = IB_FLOW_ATTR_FLAGS_DONT_TRAP;
	sib_test_add(&a, IB_FLOW_SPEC_ACTION_DROP, sizeof(s->drop));
	KUNIT_EXPECT_EQ(test, sib_flow_rule_build(&a.attr, &r), 0);
	KUNIT_EXPECT_TRUE(test, r.drop);
}

/* the verification vectors of Microsoft's RSS specification */
static const u8 sib_test_rss_key[SIB_RX_HASH_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static void sib_flow_test_rss(struct kunit *test)
{
	static const struct {
		u8 src[4], dst[4];
		u16 sport, dport;
		u32 ip, tcp;
	} v[] = {
		{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766,
		  0x323e8fc2, 0x51ccc178 },
		{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739,
		  0xd718262a, 0xc626b0ea },
	};
	const u64 ip = SIB_RX_HASH_SRC_IPV4 | SIB_RX_HASH_DST_IPV4;
	const u64 tcp = SIB_RX_HASH_SRC_PORT_TCP | SIB_RX_HASH_DST_PORT_TCP;
	struct sib_flow_key k;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		memset(&k, 0, sizeof(k));
		k.l3 = 4;
		memcpy(&k.v4_src, v[i].src, 4);
		memcpy(&k.v4_dst, v[i].dst, 4);
		k.l4 = IPPROTO_TCP;
		k.sport = htons(v[i].sport);
		k.dport = htons(v[i].dport);
		KUNIT_EXPECT_EQ(test, sib_rss_hash(&k, ip, sib_test_rss_key,
						   SIB_RX_HASH_KEY_LEN), v[i].ip);
		KUNIT_EXPECT_EQ(test, sib_rss_hash(&k, ip | tcp, sib_test_rss_key,
						   SIB_RX_HASH_KEY_LEN), v[i].tcp);
		/* UDP port fields do not take a TCP packet's ports */
		KUNIT_EXPECT_EQ(test,
				sib_rss_hash(&k, ip | SIB_RX_HASH_SRC_PORT_UDP |
					     SIB_RX_HASH_DST_PORT_UDP,
					     sib_test_rss_key, SIB_RX_HASH_KEY_LEN),
				v[i].ip);
		/* IPv6 fields on an IPv4 packet: nothing to hash */
		KUNIT_EXPECT_EQ(test,
				sib_rss_hash(&k, SIB_RX_HASH_SRC_IPV6,
					     sib_test_rss_key, SIB_RX_HASH_KEY_LEN),
				0U);
	}
}

static struct kunit_case sib_flow_test_cases[] = {
	KUNIT_CASE(sib_flow_test_rss),
	KUNIT_CASE(sib_flow_test_eth),
	KUNIT_CASE(sib_flow_test_vlan),
	KUNIT_CASE(sib_flow_test_ipv4_udp),
	KUNIT_CASE(sib_flow_test_ipv6_tcp),
	KUNIT_CASE(sib_flow_test_masks),
	KUNIT_CASE(sib_flow_test_refused),
	{}
};

static struct kunit_suite sib_flow_test_suite = {
	.name = "softib_flow",
	.test_cases = sib_flow_test_cases,
};

kunit_test_suite(sib_flow_test_suite);
