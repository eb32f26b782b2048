// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the RoCEv2 ICRC (icrc.c) against known packets.
 * The IPv4 vectors were built and their ICRC computed by scapy's RoCE
 * layer (scapy.contrib.roce), the IPv6 ones by an independent reference
 * in tests/gen-icrc-vectors.py that reproduces scapy on IPv4; rerun that
 * script to regenerate them. Also checks the masking rules (IBTA A17.3.3:
 * IPv4 TOS/TTL/checksum, IPv6 traffic class/flow label/hop limit, UDP
 * checksum and BTH resv8a do not count, every other byte does) and that
 * the crypto-API CRC32 and lib crc32_le() give the same result. Two more
 * vectors are packets captured from rdma_rxe (see sib_vec_rxe_ud).
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "compat.h"
#include <linux/crc32.h>

#include "softib.h"
#include "hdr.h"
#include "icrc.h"

/* v4_send */
static const u8 sib_vec_v4_send[] = {
	0x45, 0x02, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x10, 0x5d,
	0x0a, 0x00, 0x02, 0x0f, 0x0a, 0x00, 0x02, 0x10, 0xc0, 0xde, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x00, 0x00, 0x05, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x59, 0x5b, 0x73, 0x71,
};

/* v4_ack */
static const u8 sib_vec_v4_ack[] = {
	0x45, 0xb8, 0x00, 0x30, 0x00, 0x07, 0x00, 0x00, 0xff, 0x11, 0x37, 0xaa,
	0xc0, 0xa8, 0x01, 0x01, 0xc0, 0xa8, 0x01, 0x02, 0xe0, 0x00, 0x12, 0xb7,
	0x00, 0x1c, 0x00, 0x00, 0x11, 0x00, 0x80, 0x01, 0x00, 0xab, 0xcd, 0xef,
	0x00, 0xff, 0xff, 0xfe, 0x1f, 0x01, 0x02, 0x03, 0x5e, 0x05, 0x21, 0xee,
};

/* v4_write */
static const u8 sib_vec_v4_write[] = {
	0x45, 0x00, 0x00, 0x44, 0xff, 0xff, 0x00, 0x00, 0x01, 0x11, 0xa1, 0xa2,
	0x0a, 0x01, 0x02, 0x03, 0x0a, 0x03, 0x02, 0x01, 0xc0, 0x01, 0x12, 0xb7,
	0x00, 0x30, 0x00, 0x00, 0x0a, 0xa0, 0xff, 0xff, 0x00, 0x00, 0x01, 0x23,
	0x80, 0x7f, 0xff, 0xff, 0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78,
	0x12, 0x34, 0xab, 0xcd, 0x00, 0x00, 0x00, 0x06, 0x61, 0x62, 0x63, 0x64,
	0x65, 0x66, 0x00, 0x00, 0xda, 0xa9, 0xdd, 0xb7,
};

/* v6_ud */
static const u8 sib_vec_v6_ud[] = {
	0x62, 0x81, 0x23, 0x45, 0x00, 0x30, 0x11, 0x40, 0xfe, 0xc0, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x15,
	0xfe, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x16, 0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x30, 0x00, 0x00,
	0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00,
	0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x12, 0x00, 0x01, 0x02, 0x03,
	0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0xda, 0xf8, 0x5a, 0xfb,
};

/* v6_imm */
static const u8 sib_vec_v6_imm[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x24, 0x11, 0xff, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0xc0, 0xc0, 0x12, 0xb7, 0x00, 0x24, 0x00, 0x00,
	0x05, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x42, 0x80, 0x00, 0x00, 0x00,
	0xde, 0xad, 0xbe, 0xef, 0x73, 0x6f, 0x66, 0x74, 0x69, 0x62, 0x21, 0x0a,
	0xe4, 0x76, 0x98, 0xe4,
};

/*
 * Packets sent on the wire by the kernel's rdma_rxe (Debian 6.1), ICRC
 * computed by rxe itself, captured with tests/rxe-capture.py: in a
 * `tools/vm-run --rxe` guest it posts a UD SEND (31 bytes, one pad byte)
 * and an RC SEND with immediate (16 bytes) on rxe0 to the slirp gateway
 * 10.0.2.2 and records them from eth0 with a packet socket, as tcpdump
 * would. Independent of softib's and scapy's ICRC code.
 */
static const u8 sib_vec_rxe_ud[] = {
	0x45, 0x00, 0x00, 0x54, 0x53, 0xa6, 0x40, 0x00, 0x40, 0x11, 0xce, 0xe2,
	0x0a, 0x00, 0x02, 0x0f, 0x0a, 0x00, 0x02, 0x02, 0xdf, 0x94, 0x12, 0xb7,
	0x00, 0x40, 0x00, 0x00, 0x64, 0x10, 0xff, 0xff, 0x00, 0x00, 0x01, 0x23,
	0x00, 0x00, 0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x11,
	0x72, 0x64, 0x6d, 0x61, 0x5f, 0x72, 0x78, 0x65, 0x20, 0x2d, 0x3e, 0x20,
	0x73, 0x6f, 0x66, 0x74, 0x69, 0x62, 0x20, 0x49, 0x43, 0x52, 0x43, 0x20,
	0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x21, 0x00, 0xa3, 0x2e, 0x18, 0x9a,
};

static const u8 sib_vec_rxe_rc_imm[] = {
	0x45, 0x00, 0x00, 0x40, 0x53, 0xcb, 0x40, 0x00, 0x40, 0x11, 0xce, 0xd1,
	0x0a, 0x00, 0x02, 0x0f, 0x0a, 0x00, 0x02, 0x02, 0xce, 0x0d, 0x12, 0xb7,
	0x00, 0x2c, 0x00, 0x00, 0x05, 0x00, 0xff, 0xff, 0x00, 0x00, 0x04, 0x56,
	0x80, 0xab, 0xcd, 0xef, 0x78, 0x56, 0x34, 0x12, 0x72, 0x64, 0x6d, 0x61,
	0x5f, 0x72, 0x78, 0x65, 0x20, 0x2d, 0x3e, 0x20, 0x73, 0x6f, 0x66, 0x74,
	0x10, 0x6f, 0x01, 0x84,
};

struct sib_icrc_vec {
	const char *name;
	const u8 *pkt;
	unsigned int len;
};

#define VEC(n) { #n, sib_vec_##n, sizeof(sib_vec_##n) }
static const struct sib_icrc_vec sib_vecs[] = {
	VEC(v4_send), VEC(v4_ack), VEC(v4_write), VEC(v6_ud), VEC(v6_imm),
	VEC(rxe_ud), VEC(rxe_rc_imm),
};

static unsigned int sib_vec_iplen(const u8 *pkt)
{
	return (pkt[0] >> 4) == 4 ? (pkt[0] & 0xf) * 4 : sizeof(struct ipv6hdr);
}

/* offset of the BTH in @pkt */
static unsigned int sib_vec_bth(const u8 *pkt)
{
	return sib_vec_iplen(pkt) + sizeof(struct udphdr);
}

/* a linear skb holding @len bytes of @pkt, network/transport headers set */
static struct sk_buff *sib_vec_skb(struct kunit *test, const u8 *pkt,
				   unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len + 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 32);
	skb_put_data(skb, pkt, len);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, sib_vec_iplen(pkt));
	return skb;
}

/* ICRC of the packet in @skb, BTH at @bth_off */
static u32 sib_vec_icrc(struct sk_buff *skb, unsigned int bth_off)
{
	return sib_icrc(skb, bth_off, skb->len - bth_off - SIB_ICRC_LEN);
}

static void sib_icrc_test_one(struct kunit *test, const struct sib_icrc_vec *v)
{
	struct sk_buff *skb = sib_vec_skb(test, v->pkt, v->len);
	u32 want = get_unaligned_le32(v->pkt + v->len - SIB_ICRC_LEN);

	KUNIT_EXPECT_EQ_MSG(test, sib_vec_icrc(skb, sib_vec_bth(v->pkt)), want,
			    "vector %s", v->name);
	kfree_skb(skb);
}

static void sib_icrc_test_v4_send(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[0]);
}

static void sib_icrc_test_v4_ack(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[1]);
}

static void sib_icrc_test_v4_write_pad(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[2]);
}

static void sib_icrc_test_v6_ud(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[3]);
}

static void sib_icrc_test_v6_imm(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[4]);
}

/* packets captured from rdma_rxe (above) */
static void sib_icrc_test_rxe_ud(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[5]);
}

static void sib_icrc_test_rxe_rc_imm(struct kunit *test)
{
	sib_icrc_test_one(test, &sib_vecs[6]);
}

/* the receive path: BTH at skb->data (IP and UDP pulled), offset 0 */
static void sib_icrc_test_bth_at_data(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_vecs); i++) {
		const struct sib_icrc_vec *v = &sib_vecs[i];
		struct sk_buff *skb = sib_vec_skb(test, v->pkt, v->len);

		skb_pull(skb, sib_vec_bth(v->pkt));
		KUNIT_EXPECT_EQ_MSG(test, sib_vec_icrc(skb, 0),
				    get_unaligned_le32(v->pkt + v->len - 4),
				    "vector %s", v->name);
		kfree_skb(skb);
	}
}

static bool sib_v4_masked(unsigned int off)
{
	/* TOS, TTL, header checksum; UDP checksum; BTH resv8a */
	return off == 1 || off == 8 || off == 10 || off == 11 ||
	       off == 26 || off == 27 || off == 32;
}

static bool sib_v6_masked(unsigned int off, unsigned int bit)
{
	/* traffic class (bits 4..11), flow label (12..31), hop limit */
	if (off == 0)
		return bit < 4;
	return off == 1 || off == 2 || off == 3 || off == 7 ||
	       off == 46 || off == 47 || off == 52;
}

/* every masked bit can change without changing the ICRC */
static void sib_icrc_test_masked_fields(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_vecs); i++) {
		const struct sib_icrc_vec *v = &sib_vecs[i];
		bool v4 = (v->pkt[0] >> 4) == 4;
		struct sk_buff *skb = sib_vec_skb(test, v->pkt, v->len);
		u32 want = get_unaligned_le32(v->pkt + v->len - 4);
		unsigned int off, bit;

		for (off = 0; off < v->len - SIB_ICRC_LEN; off++)
			for (bit = 0; bit < 8; bit++) {
				if (v4 ? !sib_v4_masked(off) : !sib_v6_masked(off, bit))
					continue;
				skb->data[off] ^= 1 << bit;
				KUNIT_EXPECT_EQ_MSG(test, sib_vec_icrc(skb, sib_vec_bth(v->pkt)),
						    want, "%s: byte %u bit %u",
						    v->name, off, bit);
				skb->data[off] ^= 1 << bit;
			}
		kfree_skb(skb);
	}
}

/* every other bit of the packet is covered */
static void sib_icrc_test_covered_fields(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_vecs); i++) {
		const struct sib_icrc_vec *v = &sib_vecs[i];
		bool v4 = (v->pkt[0] >> 4) == 4;
		struct sk_buff *skb = sib_vec_skb(test, v->pkt, v->len);
		u32 want = get_unaligned_le32(v->pkt + v->len - 4);
		unsigned int off, bit, n = 0;

		for (off = 0; off < v->len - SIB_ICRC_LEN; off++)
			for (bit = 0; bit < 8; bit++) {
				/* the version nibble decides how to parse */
				if (off == 0 && bit >= 4)
					continue;
				if (v4 ? sib_v4_masked(off) : sib_v6_masked(off, bit))
					continue;
				skb->data[off] ^= 1 << bit;
				n += sib_vec_icrc(skb, sib_vec_bth(v->pkt)) != want;
				skb->data[off] ^= 1 << bit;
			}
		/* count how many single-bit flips were detected: all of them */
		KUNIT_EXPECT_EQ_MSG(test, n,
				    (v->len - SIB_ICRC_LEN) * 8 - 4 -
				    (v4 ? 7 * 8 : 4 + 7 * 8),
				    "vector %s", v->name);
		kfree_skb(skb);
	}
}

/* the ICRC is sent least significant byte first (IBTA A17.3.3) */
static void sib_icrc_test_wire_order(struct kunit *test)
{
	const struct sib_icrc_vec *v = &sib_vecs[0];
	struct sk_buff *skb = sib_vec_skb(test, v->pkt, v->len);
	u32 c = sib_vec_icrc(skb, sib_vec_bth(v->pkt));

	KUNIT_EXPECT_EQ(test, (u8)c, v->pkt[v->len - 4]);
	KUNIT_EXPECT_EQ(test, (u8)(c >> 24), v->pkt[v->len - 1]);
	/* and it is not the plain CRC32 of the packet bytes */
	KUNIT_EXPECT_NE(test, c, ~crc32_le(~0U, v->pkt, v->len - 4));
	kfree_skb(skb);
}

/*
 * sib_icrc_init() switches to the crypto API's crc32 (PCLMUL where the
 * CPU has it); the result must not change. KUnit runs this suite while
 * the module is still loading, before its init did the same, so the
 * crypto tfm is ours to take and release here.
 */
static void sib_icrc_test_crypto_matches_lib(struct kunit *test)
{
	u32 lib[ARRAY_SIZE(sib_vecs)];
	int i;

	if (sib_wq)
		kunit_skip(test, "module already live: crypto tfm in use");
	for (i = 0; i < ARRAY_SIZE(sib_vecs); i++) {
		struct sk_buff *skb = sib_vec_skb(test, sib_vecs[i].pkt,
						  sib_vecs[i].len);

		lib[i] = sib_vec_icrc(skb, sib_vec_bth(sib_vecs[i].pkt));
		kfree_skb(skb);
	}
	KUNIT_ASSERT_EQ(test, sib_icrc_init(), 0);
	for (i = 0; i < ARRAY_SIZE(sib_vecs); i++) {
		struct sk_buff *skb = sib_vec_skb(test, sib_vecs[i].pkt,
						  sib_vecs[i].len);

		KUNIT_EXPECT_EQ_MSG(test, sib_vec_icrc(skb, sib_vec_bth(sib_vecs[i].pkt)),
				    lib[i], "vector %s", sib_vecs[i].name);
		KUNIT_EXPECT_EQ(test, lib[i],
				get_unaligned_le32(sib_vecs[i].pkt + sib_vecs[i].len - 4));
		kfree_skb(skb);
	}
	sib_icrc_exit();
}

static struct kunit_case sib_icrc_test_cases[] = {
	KUNIT_CASE(sib_icrc_test_v4_send),
	KUNIT_CASE(sib_icrc_test_v4_ack),
	KUNIT_CASE(sib_icrc_test_v4_write_pad),
	KUNIT_CASE(sib_icrc_test_v6_ud),
	KUNIT_CASE(sib_icrc_test_v6_imm),
	KUNIT_CASE(sib_icrc_test_rxe_ud),
	KUNIT_CASE(sib_icrc_test_rxe_rc_imm),
	KUNIT_CASE(sib_icrc_test_bth_at_data),
	KUNIT_CASE(sib_icrc_test_masked_fields),
	KUNIT_CASE(sib_icrc_test_covered_fields),
	KUNIT_CASE(sib_icrc_test_wire_order),
	KUNIT_CASE(sib_icrc_test_crypto_matches_lib),
	{}
};

static struct kunit_suite sib_icrc_test_suite = {
	.name = "softib_icrc",
	.test_cases = sib_icrc_test_cases,
};

kunit_test_suite(sib_icrc_test_suite);
