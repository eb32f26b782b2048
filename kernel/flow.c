// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: flow steering rules (ibv_create_flow) as data: a flow's specs
 * compiled into one masked key, a frame's headers parsed into the same
 * key, and the match. No locks and no device here: raw.c keeps the
 * device's rules and steers frames with them; flow_test.c tests these.
 */
#include <net/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/etherdevice.h>

#include <rdma/softib-abi.h>

#include "compat.h"

#include "flow.h"

/* one spec of the attribute: its filter (value, mask) into the rule */
static int sib_flow_spec_eth(const struct ib_flow_spec_eth *s,
			     struct sib_flow_rule *r)
{
	ether_addr_copy(r->val.dmac, s->val.dst_mac);
	ether_addr_copy(r->mask.dmac, s->mask.dst_mac);
	ether_addr_copy(r->val.smac, s->val.src_mac);
	ether_addr_copy(r->mask.smac, s->mask.src_mac);
	r->val.ether_type = s->val.ether_type;
	r->mask.ether_type = s->mask.ether_type;
	r->val.vlan_tci = s->val.vlan_tag;
	r->mask.vlan_tci = s->mask.vlan_tag;
	/* a rule on the VLAN tag wants a tagged frame */
	if (s->mask.vlan_tag) {
		r->val.vlan = 1;
		r->mask.vlan = 0xff;
	}
	return 0;
}

static int sib_flow_spec_ipv4(const struct ib_flow_spec_ipv4 *s,
			      struct sib_flow_rule *r)
{
	if (r->mask.l3)
		return -EINVAL;		/* one network layer */
	r->val.l3 = 4;
	r->mask.l3 = 0xff;
	r->val.v4_src = s->val.src_ip;
	r->mask.v4_src = s->mask.src_ip;
	r->val.v4_dst = s->val.dst_ip;
	r->mask.v4_dst = s->mask.dst_ip;
	r->val.v4_proto = s->val.proto;
	r->mask.v4_proto = s->mask.proto;
	r->val.v4_tos = s->val.tos;
	r->mask.v4_tos = s->mask.tos;
	r->val.v4_ttl = s->val.ttl;
	r->mask.v4_ttl = s->mask.ttl;
	r->val.v4_flags = s->val.flags;
	r->mask.v4_flags = s->mask.flags;
	return 0;
}

static int sib_flow_spec_ipv6(const struct ib_flow_spec_ipv6 *s,
			      struct sib_flow_rule *r)
{
	if (r->mask.l3)
		return -EINVAL;
	r->val.l3 = 6;
	r->mask.l3 = 0xff;
	memcpy(r->val.v6_src, s->val.src_ip, 16);
	memcpy(r->mask.v6_src, s->mask.src_ip, 16);
	memcpy(r->val.v6_dst, s->val.dst_ip, 16);
	memcpy(r->mask.v6_dst, s->mask.dst_ip, 16);
	r->val.v6_flow_label = s->val.flow_label;
	r->mask.v6_flow_label = s->mask.flow_label;
	r->val.v6_next_hdr = s->val.next_hdr;
	r->mask.v6_next_hdr = s->mask.next_hdr;
	r->val.v6_tclass = s->val.traffic_class;
	r->mask.v6_tclass = s->mask.traffic_class;
	r->val.v6_hop_limit = s->val.hop_limit;
	r->mask.v6_hop_limit = s->mask.hop_limit;
	return 0;
}

static int sib_flow_spec_l4(const struct ib_flow_spec_tcp_udp *s, u8 proto,
			    struct sib_flow_rule *r)
{
	if (r->mask.l4)
		return -EINVAL;		/* one transport layer */
	r->val.l4 = proto;
	r->mask.l4 = 0xff;
	r->val.sport = s->val.src_port;
	r->mask.sport = s->mask.src_port;
	r->val.dport = s->val.dst_port;
	r->mask.dport = s->mask.dst_port;
	return 0;
}

/**
 * sib_flow_rule_build() - compile a flow's attribute into a rule
 * @attr: the attribute ib_uverbs built (its specs follow it, each
 *	  sized by its size field)
 * @rule: out
 *
 * Knows the Ethernet, IPv4, IPv6, TCP and UDP specs and the drop
 * action, on port 1, as a normal (not default or sniffer) rule that
 * may also let the frame through (IB_FLOW_ATTR_FLAGS_DONT_TRAP).
 * Two specs of the same layer (or IPv4 and IPv6, TCP and UDP) are
 * refused; a spec's value is taken under its mask.
 * Context: any. Return: 0, -EINVAL (port, sizes, two specs of one
 * layer), -EOPNOTSUPP (any other type, spec or flag).
 */
int sib_flow_rule_build(const struct ib_flow_attr *attr,
			struct sib_flow_rule *rule)
{
	const u8 *p = (const u8 *)attr->flows;
	const u8 *v, *m;
	u8 *out;
	u64 seen = 0;
	unsigned int i;
	int err;

	memset(rule, 0, sizeof(*rule));
	if (attr->type != IB_FLOW_ATTR_NORMAL)
		return -EOPNOTSUPP;
	if (attr->flags & ~IB_FLOW_ATTR_FLAGS_DONT_TRAP)
		return -EOPNOTSUPP;
	if (attr->port != 1)
		return -EINVAL;
	for (i = 0; i < attr->num_of_specs; i++) {
		const union ib_flow_spec *s = (const void *)p;
		u32 type = s->type;

		if (s->size < sizeof(s->type) + sizeof(s->size))
			return -EINVAL;
		/* one spec of each type */
		if (type >= IB_FLOW_SPEC_ETH && type <= IB_FLOW_SPEC_UDP) {
			if (seen & BIT_ULL(type - IB_FLOW_SPEC_ETH))
				return -EINVAL;
			seen |= BIT_ULL(type - IB_FLOW_SPEC_ETH);
		}
		switch (type) {
		case IB_FLOW_SPEC_ETH:
			err = s->size < sizeof(s->eth) ? -EINVAL :
			      sib_flow_spec_eth(&s->eth, rule);
			break;
		case IB_FLOW_SPEC_IPV4:
			err = s->size < sizeof(s->ipv4) ? -EINVAL :
			      sib_flow_spec_ipv4(&s->ipv4, rule);
			break;
		case IB_FLOW_SPEC_IPV6:
			err = s->size < sizeof(s->ipv6) ? -EINVAL :
			      sib_flow_spec_ipv6(&s->ipv6, rule);
			break;
		case IB_FLOW_SPEC_TCP:
		case IB_FLOW_SPEC_UDP:
			err = s->size < sizeof(s->tcp_udp) ? -EINVAL :
			      sib_flow_spec_l4(&s->tcp_udp,
					       type == IB_FLOW_SPEC_TCP ?
					       IPPROTO_TCP : IPPROTO_UDP,
					       rule);
			break;
		case IB_FLOW_SPEC_ACTION_DROP:
			rule->drop = true;
			err = 0;
			break;
		default:
			err = -EOPNOTSUPP;
			break;
		}
		if (err)
			return err;
		p += s->size;
	}
	/* what the mask hides of a value never counts */
	v = (const u8 *)&rule->val;
	m = (const u8 *)&rule->mask;
	out = (u8 *)&rule->val;
	for (i = 0; i < sizeof(rule->val); i++)
		out[i] = v[i] & m[i];
	return 0;
}

/* the IPv4 header at @ip (@len bytes there) into @key */
static void sib_flow_key_ipv4(const u8 *ip, u32 len, struct sib_flow_key *key)
{
	const struct iphdr *iph = (const void *)ip;
	u16 frag;
	u32 ihl;

	if (len < sizeof(*iph) || iph->version != 4)
		return;
	ihl = iph->ihl * 4;
	if (ihl < sizeof(*iph))
		return;
	key->l3 = 4;
	key->v4_src = iph->saddr;
	key->v4_dst = iph->daddr;
	key->v4_proto = iph->protocol;
	key->v4_tos = iph->tos;
	key->v4_ttl = iph->ttl;
	frag = ntohs(iph->frag_off);
	key->v4_flags = frag >> 13;
	/* ports only in the first fragment, when they are there */
	if ((frag & IP_OFFSET) ||
	    (iph->protocol != IPPROTO_TCP && iph->protocol != IPPROTO_UDP) ||
	    len < ihl + 4)
		return;
	key->l4 = iph->protocol;
	memcpy(&key->sport, ip + ihl, 2);
	memcpy(&key->dport, ip + ihl + 2, 2);
}

/* the IPv6 header at @ip into @key; ports only right after it */
static void sib_flow_key_ipv6(const u8 *ip, u32 len, struct sib_flow_key *key)
{
	const struct ipv6hdr *h = (const void *)ip;
	u32 word;

	if (len < sizeof(*h) || h->version != 6)
		return;
	key->l3 = 6;
	memcpy(key->v6_src, &h->saddr, 16);
	memcpy(key->v6_dst, &h->daddr, 16);
	memcpy(&word, h, 4);
	key->v6_flow_label = htonl(ntohl(word) & 0xfffff);
	key->v6_tclass = (ntohl(word) >> 20) & 0xff;
	key->v6_next_hdr = h->nexthdr;
	key->v6_hop_limit = h->hop_limit;
	if ((h->nexthdr != IPPROTO_TCP && h->nexthdr != IPPROTO_UDP) ||
	    len < sizeof(*h) + 4)
		return;
	key->l4 = h->nexthdr;
	memcpy(&key->sport, ip + sizeof(*h), 2);
	memcpy(&key->dport, ip + sizeof(*h) + 2, 2);
}

/**
 * sib_flow_key_parse() - a frame's key
 * @frame: the frame from its Ethernet header on
 * @len: bytes at @frame (the first SIB_FLOW_HDR_MAX of a longer frame
 *	 are enough)
 * @vlan_hw: the frame's VLAN tag was taken out into @vlan_tci (the
 *	     receiving netdev's VLAN offload)
 * @vlan_tci: that tag
 * @key: out; what a short or unknown frame lacks stays zero
 *
 * Context: any. Untrusted bytes: every read is bounded by @len.
 */
void sib_flow_key_parse(const u8 *frame, u32 len, bool vlan_hw, u16 vlan_tci,
			struct sib_flow_key *key)
{
	u32 off = ETH_HLEN;
	__be16 type;

	memset(key, 0, sizeof(*key));
	if (len < ETH_HLEN)
		return;
	ether_addr_copy(key->dmac, frame);
	ether_addr_copy(key->smac, frame + ETH_ALEN);
	memcpy(&type, frame + 2 * ETH_ALEN, 2);
	if (vlan_hw) {
		key->vlan = 1;
		key->vlan_tci = htons(vlan_tci);
	} else if (eth_type_vlan(type) && len >= ETH_HLEN + VLAN_HLEN) {
		key->vlan = 1;
		memcpy(&key->vlan_tci, frame + ETH_HLEN, 2);
		memcpy(&type, frame + ETH_HLEN + 2, 2);
		off += VLAN_HLEN;
	}
	key->ether_type = type;
	if (type == htons(ETH_P_IP))
		sib_flow_key_ipv4(frame + off, len - off, key);
	else if (type == htons(ETH_P_IPV6))
		sib_flow_key_ipv6(frame + off, len - off, key);
}

/**
 * sib_flow_rule_match() - does @key satisfy @rule?
 * @rule: compiled rule
 * @key: a frame's key
 *
 * Context: any. Return: true on a match.
 */
bool sib_flow_rule_match(const struct sib_flow_rule *rule,
			 const struct sib_flow_key *key)
{
	const u8 *v = (const u8 *)&rule->val;
	const u8 *m = (const u8 *)&rule->mask;
	const u8 *k = (const u8 *)key;
	unsigned int i;

	for (i = 0; i < sizeof(*key); i++)
		if ((k[i] & m[i]) != v[i])
			return false;
	return true;
}

/**
 * sib_toeplitz() - the Toeplitz hash of @data under @key
 * @key: hash key, at least 4 bytes; bits past its end count as zero
 * @key_len: bytes of @key
 * @data: input
 * @len: bytes of @data
 *
 * For each set bit of the input, the 32 key bits starting at that bit's
 * position are XORed into the result (the RSS hash NICs compute).
 * Context: any. Return: the hash.
 */
u32 sib_toeplitz(const u8 *key, u32 key_len, const u8 *data, u32 len)
{
	u32 win = get_unaligned_be32(key), hash = 0, i, b;

	for (i = 0; i < len; i++) {
		u8 next = i + 4 < key_len ? key[i + 4] : 0;

		for (b = 0; b < 8; b++) {
			if (data[i] & (0x80 >> b))
				hash ^= win;
			win = (win << 1) | ((next >> (7 - b)) & 1);
		}
	}
	return hash;
}

/**
 * sib_rss_hash() - the RSS hash of a frame
 * @k: the frame's key (sib_flow_key_parse())
 * @fields: SIB_RX_HASH_* fields to hash, those the frame has: source
 *	    address, destination address, source port, destination port,
 *	    in that order
 * @key: Toeplitz key
 * @key_len: its bytes (at least 4)
 *
 * Context: any. Return: the hash, 0 when the frame has none of @fields.
 */
u32 sib_rss_hash(const struct sib_flow_key *k, u64 fields, const u8 *key,
		 u32 key_len)
{
	bool tcp = k->l4 == IPPROTO_TCP, udp = k->l4 == IPPROTO_UDP;
	u8 in[36];
	u32 n = 0;

	if (k->l3 == 4) {
		if (fields & SIB_RX_HASH_SRC_IPV4) {
			memcpy(in + n, &k->v4_src, 4);
			n += 4;
		}
		if (fields & SIB_RX_HASH_DST_IPV4) {
			memcpy(in + n, &k->v4_dst, 4);
			n += 4;
		}
	} else if (k->l3 == 6) {
		if (fields & SIB_RX_HASH_SRC_IPV6) {
			memcpy(in + n, k->v6_src, 16);
			n += 16;
		}
		if (fields & SIB_RX_HASH_DST_IPV6) {
			memcpy(in + n, k->v6_dst, 16);
			n += 16;
		}
	}
	/* the port fields of the packet's own transport */
	if ((tcp && (fields & SIB_RX_HASH_SRC_PORT_TCP)) ||
	    (udp && (fields & SIB_RX_HASH_SRC_PORT_UDP))) {
		memcpy(in + n, &k->sport, 2);
		n += 2;
	}
	if ((tcp && (fields & SIB_RX_HASH_DST_PORT_TCP)) ||
	    (udp && (fields & SIB_RX_HASH_DST_PORT_UDP))) {
		memcpy(in + n, &k->dport, 2);
		n += 2;
	}
	return sib_toeplitz(key, key_len, in, n);
}
