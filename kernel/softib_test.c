// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the pure logic: PSN arithmetic, the opcode
 * table, BTH/AETH pack and parse, ICRC masking rules and ring index
 * math (the ICRC known-answer vectors are icrc_test.c's). Built only
 * into kernels with CONFIG_KUNIT (the debug kernel); the suite runs
 * when the module loads.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include "softib.h"
#include "hdr.h"
#include "psn.h"
#include "icrc.h"
#include "queue.h"

static void sib_test_psn(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sib_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(0xfffffe, 5), 3U);
	KUNIT_EXPECT_LT(test, sib_psn_cmp(0xfffff0, 0x10), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(0x10, 0xfffff0), 0);
	KUNIT_EXPECT_EQ(test, sib_psn_cmp(0x123456, 0x123456), 0);
	KUNIT_EXPECT_EQ(test, sib_psn_diff(0x2, 0xfffffe), 4U);
}

static void sib_test_opcode_table(struct kunit *test)
{
	const struct sib_opcode_info *o;
	int i;

	for (i = 0; i < 256; i++) {
		o = sib_opcode(i);
		if (!(o->flags & SIB_OPF_VALID))
			continue;
		KUNIT_EXPECT_GE(test, o->hdr_len, SIB_BTH_LEN);
		KUNIT_EXPECT_EQ(test, o->hdr_len % 4, 0);
		/* request xor response */
		KUNIT_EXPECT_NE(test, !!(o->flags & SIB_OPF_REQ),
				!!(o->flags & SIB_OPF_RESP));
		if (o->flags & SIB_OPF_IMM)
			KUNIT_EXPECT_EQ(test, o->off_imm + SIB_IMM_LEN, o->hdr_len);
	}
	o = sib_opcode(SIB_OP_RC_SEND_ONLY_IMM);
	KUNIT_EXPECT_EQ(test, o->hdr_len, 16);
	KUNIT_EXPECT_EQ(test, o->off_imm, 12);
	o = sib_opcode(SIB_OP_RC_WRITE_ONLY_IMM);
	KUNIT_EXPECT_EQ(test, o->off_reth, 12);
	KUNIT_EXPECT_EQ(test, o->off_imm, 28);
	KUNIT_EXPECT_EQ(test, o->hdr_len, 32);
	o = sib_opcode(SIB_OP_RC_READ_RESP_FIRST);
	KUNIT_EXPECT_EQ(test, o->off_aeth, 12);
	KUNIT_EXPECT_EQ(test, o->hdr_len, 16);
	o = sib_opcode(SIB_OP_UD_SEND_ONLY_IMM);
	KUNIT_EXPECT_EQ(test, o->off_deth, 12);
	KUNIT_EXPECT_EQ(test, o->off_imm, 20);
	KUNIT_EXPECT_EQ(test, o->hdr_len, 24);
	o = sib_opcode(SIB_OP_RC_CMP_SWAP);
	KUNIT_EXPECT_EQ(test, o->off_atmeth, 12);
	KUNIT_EXPECT_EQ(test, o->hdr_len, 40);
	o = sib_opcode(SIB_OP_RC_ATOMIC_ACK);
	KUNIT_EXPECT_EQ(test, o->off_aeth, 12);
	KUNIT_EXPECT_EQ(test, o->off_atmack, 16);
	KUNIT_EXPECT_EQ(test, o->hdr_len, 24);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x15)->flags & SIB_OPF_VALID);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0xff)->flags & SIB_OPF_VALID);
}

static void sib_test_bth(struct kunit *test)
{
	struct sib_bth b;
	struct sib_aeth a;
	u8 *raw = (u8 *)&b;

	sib_bth_set(&b, SIB_OP_RC_SEND_LAST, true, 3, 0xffff, 0xabcdef, true,
		    0x123456);
	KUNIT_EXPECT_EQ(test, raw[0], SIB_OP_RC_SEND_LAST);
	KUNIT_EXPECT_EQ(test, raw[1], 0xb0);	/* SE | PadCnt 3 | TVer 0 */
	KUNIT_EXPECT_EQ(test, sib_bth_pad(&b), 3);
	KUNIT_EXPECT_TRUE(test, sib_bth_se(&b));
	KUNIT_EXPECT_EQ(test, sib_bth_pkey(&b), 0xffff);
	KUNIT_EXPECT_EQ(test, sib_bth_qpn(&b), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, sib_bth_psn(&b), 0x123456U);
	KUNIT_EXPECT_TRUE(test, sib_bth_ackreq(&b));
	KUNIT_EXPECT_EQ(test, raw[8], 0x80);
	sib_aeth_set(&a, SIB_AETH_NAK | SIB_NAK_REM_ACCESS_ERR, 0x010203);
	KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a), 0x62);
	KUNIT_EXPECT_EQ(test, sib_aeth_msn(&a), 0x010203U);
}

/* a minimal IPv4 RoCEv2 packet with @len payload bytes */
static struct sk_buff *sib_test_pkt(struct kunit *test, unsigned int len)
{
	unsigned int total = sizeof(struct iphdr) + sizeof(struct udphdr) +
			     SIB_BTH_LEN + len + SIB_ICRC_LEN;
	struct sk_buff *skb = alloc_skb(total, GFP_KERNEL);
	struct iphdr *ip;
	struct udphdr *udp;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put_zero(skb, total);
	skb_reset_network_header(skb);
	ip = ip_hdr(skb);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(total);
	skb_set_transport_header(skb, sizeof(*ip));
	udp = udp_hdr(skb);
	udp->dest = htons(SIB_ROCE_UDP_DPORT);
	udp->len = htons(total - sizeof(*ip));
	sib_bth_set((void *)(udp + 1), SIB_OP_RC_SEND_ONLY, false, 0, 0xffff,
		    17, false, 5);
	return skb;
}

static void sib_test_icrc(struct kunit *test)
{
	struct sk_buff *skb = sib_test_pkt(test, 8);
	unsigned int off = sizeof(struct iphdr) + sizeof(struct udphdr);
	unsigned int len = skb->len - off - SIB_ICRC_LEN;
	u32 c0 = sib_icrc(skb, off, len);

	/* the variant fields are masked */
	ip_hdr(skb)->ttl = 3;
	ip_hdr(skb)->tos = 0x20;
	ip_hdr(skb)->check = htons(0x1234);
	udp_hdr(skb)->check = htons(0x4321);
	skb->data[off + 4] = 0xc0;	/* FECN/BECN in resv8a */
	KUNIT_EXPECT_EQ(test, sib_icrc(skb, off, len), c0);
	/* everything else is covered */
	skb->data[off + SIB_BTH_LEN] ^= 1;
	KUNIT_EXPECT_NE(test, sib_icrc(skb, off, len), c0);
	skb->data[off + SIB_BTH_LEN] ^= 1;
	ip_hdr(skb)->saddr = htonl(0x0a000001);
	KUNIT_EXPECT_NE(test, sib_icrc(skb, off, len), c0);
	kfree_skb(skb);
}

static void sib_test_ring(struct kunit *test)
{
	struct sib_ring r;

	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, 8, 64), 0);
	KUNIT_EXPECT_PTR_EQ(test, sib_ring_entry(&r, 0),
			    (void *)((u8 *)r.buf + SIB_RING_HDR_SIZE));
	KUNIT_EXPECT_PTR_EQ(test, sib_ring_entry(&r, 9), sib_ring_entry(&r, 1));
	KUNIT_EXPECT_PTR_EQ(test, sib_ring_entry(&r, 0xffffffff),
			    sib_ring_entry(&r, 7));
	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 6, 64) , -EINVAL);
	r.mentry = NULL;
	sib_ring_free(&r);
}

static struct kunit_case sib_test_cases[] = {
	KUNIT_CASE(sib_test_psn),
	KUNIT_CASE(sib_test_opcode_table),
	KUNIT_CASE(sib_test_bth),
	KUNIT_CASE(sib_test_icrc),
	KUNIT_CASE(sib_test_ring),
	{}
};

static struct kunit_suite sib_test_suite = {
	.name = "softib",
	.test_cases = sib_test_cases,
};

kunit_test_suite(sib_test_suite);
