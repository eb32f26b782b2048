/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_FLOW_H
#define SIB_FLOW_H

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <rdma/ib_verbs.h>

/*
 * struct sib_flow_key - the header fields a flow rule can look at, as
 * one frame has them (sib_flow_key_parse()) or as one rule asks for
 * them (value and mask). A rule matches a frame when every byte of the
 * frame's key, masked with the rule's mask, equals the rule's value.
 * Packed: the match walks it byte by byte.
 * @dmac, @smac: Ethernet addresses
 * @ether_type: the type after a VLAN tag, if any
 * @vlan_tci: the VLAN tag's TCI; @vlan: 1 when the frame has one
 * @l3: 4 or 6 for an IPv4 or IPv6 packet, else 0
 * @l4: IPPROTO_TCP or IPPROTO_UDP when the ports are there (not in a
 *	later IP fragment), else 0
 */
struct sib_flow_key {
	u8 dmac[ETH_ALEN];
	u8 smac[ETH_ALEN];
	__be16 ether_type;
	__be16 vlan_tci;
	u8 vlan;
	u8 l3;
	u8 l4;
	/* IPv4 */
	__be32 v4_src;
	__be32 v4_dst;
	u8 v4_proto;
	u8 v4_tos;
	u8 v4_ttl;
	u8 v4_flags;			/* the 3 flag bits of the header */
	/* IPv6 */
	u8 v6_src[16];
	u8 v6_dst[16];
	__be32 v6_flow_label;		/* low 20 bits */
	u8 v6_next_hdr;
	u8 v6_tclass;
	u8 v6_hop_limit;
	/* TCP or UDP */
	__be16 sport;
	__be16 dport;
} __packed;

/*
 * struct sib_flow_rule - a flow's match, compiled from its specs
 * @val: the key's wanted bytes (already masked)
 * @mask: which bits count
 * @drop: an IB_FLOW_SPEC_ACTION_DROP spec: matching frames are dropped
 */
struct sib_flow_rule {
	struct sib_flow_key val;
	struct sib_flow_key mask;
	bool drop;
};

int sib_flow_rule_build(const struct ib_flow_attr *attr,
			struct sib_flow_rule *rule);
void sib_flow_key_parse(const u8 *frame, u32 len, bool vlan_hw, u16 vlan_tci,
			struct sib_flow_key *key);
bool sib_flow_rule_match(const struct sib_flow_rule *rule,
			 const struct sib_flow_key *key);

u32 sib_toeplitz(const u8 *key, u32 key_len, const u8 *data, u32 len);
u32 sib_rss_hash(const struct sib_flow_key *k, u64 fields, const u8 *key,
		 u32 key_len);

/* bytes of a frame sib_flow_key_parse() reads at most */
#define SIB_FLOW_HDR_MAX	(ETH_HLEN + VLAN_HLEN + 40 + 4)

#endif /* SIB_FLOW_H */
