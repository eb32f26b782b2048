// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the wire headers in hdr.h: sizes and field
 * offsets, byte-exact packing and parsing of BTH, RETH, AETH (ACK with
 * credit count, RNR NAK with timer code, NAK codes; MSN), DETH, ImmDt,
 * AtomicETH and AtomicAckETH (IBTA vol. 1, 9.2-9.5).
 */
#include <kunit/test.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "hdr.h"
#include "params.h"

static void sib_hdr_test_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_bth), (size_t)SIB_BTH_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_reth), (size_t)SIB_RETH_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_aeth), (size_t)SIB_AETH_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_deth), (size_t)SIB_DETH_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_atmeth), (size_t)SIB_ATMETH_LEN);
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_atmack), (size_t)SIB_ATMACK_LEN);
	KUNIT_EXPECT_EQ(test, SIB_BTH_LEN, 12);
	KUNIT_EXPECT_EQ(test, SIB_RETH_LEN, 16);
	KUNIT_EXPECT_EQ(test, SIB_AETH_LEN, 4);
	KUNIT_EXPECT_EQ(test, SIB_DETH_LEN, 8);
	KUNIT_EXPECT_EQ(test, SIB_ATMETH_LEN, 28);
	KUNIT_EXPECT_EQ(test, SIB_ATMACK_LEN, 8);
	KUNIT_EXPECT_EQ(test, SIB_IMM_LEN, 4);
	KUNIT_EXPECT_EQ(test, SIB_ICRC_LEN, 4);
}

static void sib_hdr_test_field_offsets(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_bth, opcode), (size_t)0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_bth, flags), (size_t)1);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_bth, pkey), (size_t)2);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_bth, qpn), (size_t)4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_bth, apsn), (size_t)8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_reth, va), (size_t)0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_reth, rkey), (size_t)8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_reth, dma_len), (size_t)12);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_deth, qkey), (size_t)0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_deth, sqp), (size_t)4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_atmeth, va), (size_t)0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_atmeth, rkey), (size_t)8);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_atmeth, swap_add), (size_t)12);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_atmeth, compare), (size_t)20);
}

static void sib_hdr_test_bth_bytes(struct kunit *test)
{
	static const u8 want[SIB_BTH_LEN] = {
		0x0b,			/* RC RDMA_WRITE_ONLY_WITH_IMMEDIATE */
		0xa0,			/* SE, M 0, PadCnt 2, TVer 0 */
		0x80, 0x01,		/* P_Key */
		0x00, 0x12, 0x34, 0x56,	/* resv8a, DestQP */
		0x80, 0xfe, 0xdc, 0xba,	/* AckReq, resv7, PSN */
	};
	struct sib_bth b;

	memset(&b, 0x5a, sizeof(b));
	sib_bth_set(&b, SIB_OP_RC_WRITE_ONLY_IMM, true, 2, 0x8001, 0x123456,
		    true, 0xfedcba);
	KUNIT_EXPECT_EQ(test, memcmp(&b, want, sizeof(want)), 0);
	sib_bth_set(&b, SIB_OP_RC_ACK, false, 0, 0xffff, 0x000001, false, 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)&b)[1], 0x00);
	KUNIT_EXPECT_EQ(test, ((u8 *)&b)[8], 0x00);
	KUNIT_EXPECT_EQ(test, ((u8 *)&b)[7], 0x01);
}

static void sib_hdr_test_bth_roundtrip(struct kunit *test)
{
	static const u32 qpns[] = { 0, 1, 17, 0x123456, 0xffffff };
	static const u32 psns[] = { 0, 1, 0x7fffff, 0x800000, 0xffffff };
	static const u16 pkeys[] = { 0xffff, 0x7fff, 0x8001, 0x0001 };
	struct sib_bth b;
	int i, j, pad;

	for (i = 0; i < ARRAY_SIZE(qpns); i++)
		for (j = 0; j < ARRAY_SIZE(psns); j++)
			for (pad = 0; pad < 4; pad++) {
				bool se = (i + j) & 1, ar = (j + pad) & 1;
				u16 pk = pkeys[(i + j + pad) % ARRAY_SIZE(pkeys)];
				u8 op = (u8)(i * 5 + j + pad);

				sib_bth_set(&b, op, se, pad, pk, qpns[i], ar,
					    psns[j]);
				KUNIT_EXPECT_EQ(test, b.opcode, op);
				KUNIT_EXPECT_EQ(test, sib_bth_se(&b), se);
				KUNIT_EXPECT_EQ(test, sib_bth_pad(&b), (u8)pad);
				KUNIT_EXPECT_EQ(test, sib_bth_tver(&b), 0);
				KUNIT_EXPECT_EQ(test, sib_bth_pkey(&b), pk);
				KUNIT_EXPECT_EQ(test, sib_bth_qpn(&b), qpns[i]);
				KUNIT_EXPECT_EQ(test, sib_bth_psn(&b), psns[j]);
				KUNIT_EXPECT_EQ(test, sib_bth_ackreq(&b), ar);
			}
}

/* out-of-range arguments are truncated to their field, never spill over */
static void sib_hdr_test_bth_set_masks(struct kunit *test)
{
	struct sib_bth b;
	u8 *raw = (u8 *)&b;

	sib_bth_set(&b, 0x04, false, 7, 0xffff, 0xff000011, false, 0xff000005);
	KUNIT_EXPECT_EQ(test, sib_bth_pad(&b), 3);
	KUNIT_EXPECT_FALSE(test, sib_bth_se(&b));
	KUNIT_EXPECT_EQ(test, raw[1] & (SIB_BTH_SE | SIB_BTH_MIG), 0);
	KUNIT_EXPECT_EQ(test, raw[4], 0x00);	/* resv8a stays zero */
	KUNIT_EXPECT_EQ(test, sib_bth_qpn(&b), 0x11U);
	KUNIT_EXPECT_EQ(test, sib_bth_psn(&b), 0x5U);
	KUNIT_EXPECT_FALSE(test, sib_bth_ackreq(&b));	/* bit 31 of psn ignored */
	KUNIT_EXPECT_EQ(test, raw[8], 0x00);
}

/* parsing ignores the reserved and congestion bits a peer may set */
static void sib_hdr_test_bth_parse_reserved(struct kunit *test)
{
	static const u8 wire[SIB_BTH_LEN] = {
		0x64, 0x4f,		/* M set, TVer 15 */
		0x7f, 0xff,
		0xc0, 0x00, 0x00, 0x01,	/* FECN, BECN */
		0x7f, 0x00, 0x01, 0x00,	/* resv7 all ones, AckReq 0 */
	};
	struct sib_bth b;

	memcpy(&b, wire, sizeof(b));
	KUNIT_EXPECT_EQ(test, sib_bth_qpn(&b), 1U);
	KUNIT_EXPECT_EQ(test, sib_bth_psn(&b), 0x100U);
	KUNIT_EXPECT_FALSE(test, sib_bth_ackreq(&b));
	KUNIT_EXPECT_EQ(test, sib_bth_tver(&b), 15);
	KUNIT_EXPECT_EQ(test, sib_bth_pad(&b), 0);
	KUNIT_EXPECT_FALSE(test, sib_bth_se(&b));
	KUNIT_EXPECT_EQ(test, sib_bth_pkey(&b), 0x7fff);
	KUNIT_EXPECT_TRUE(test, b.flags & SIB_BTH_MIG);
}

static void sib_hdr_test_reth(struct kunit *test)
{
	static const u8 want[SIB_RETH_LEN] = {
		0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78,	/* VA */
		0x12, 0x34, 0xab, 0xcd,				/* R_Key */
		0x80, 0x00, 0x00, 0x00,				/* DMA length 2 GiB */
	};
	struct sib_reth r;

	r.va = cpu_to_be64(0x00007f0012345678ULL);
	r.rkey = cpu_to_be32(0x1234abcd);
	r.dma_len = cpu_to_be32(0x80000000U);
	KUNIT_EXPECT_EQ(test, memcmp(&r, want, sizeof(want)), 0);
	memset(&r, 0, sizeof(r));
	memcpy(&r, want, sizeof(r));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(r.va), 0x00007f0012345678ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(r.rkey), 0x1234abcdU);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(r.dma_len), 0x80000000U);
}

static void sib_hdr_test_aeth_ack_credit(struct kunit *test)
{
	struct sib_aeth a;
	u8 c;

	for (c = 0; c <= 0x1f; c++) {
		sib_aeth_set(&a, SIB_AETH_ACK | c, 0x000100 + c);
		KUNIT_EXPECT_EQ(test, ((u8 *)&a)[0], c);
		KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a) & 0x80, 0);
		KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a) & SIB_AETH_CLASS_MASK,
				SIB_AETH_ACK);
		KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a) & SIB_AETH_VALUE_MASK, c);
		KUNIT_EXPECT_EQ(test, sib_aeth_msn(&a), 0x000100U + c);
	}
	/* 11111b: credit count invalid (IBTA table 44), what we send */
	KUNIT_EXPECT_EQ(test, SIB_AETH_NO_CREDIT, 0x1f);
}

static void sib_hdr_test_aeth_rnr_nak(struct kunit *test)
{
	struct sib_aeth a;
	u8 t;

	for (t = 0; t <= 0x1f; t++) {
		sib_aeth_set(&a, SIB_AETH_RNR_NAK | t, 0xabcdef);
		/* 001 TTTTT */
		KUNIT_EXPECT_EQ(test, ((u8 *)&a)[0], 0x20 | t);
		KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a) & SIB_AETH_CLASS_MASK,
				SIB_AETH_RNR_NAK);
		KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a) & SIB_AETH_VALUE_MASK, t);
		KUNIT_EXPECT_EQ(test, sib_aeth_msn(&a), 0xabcdefU);
	}
}

static void sib_hdr_test_aeth_nak_codes(struct kunit *test)
{
	/* 011 NNNNN, IBTA table 45 */
	KUNIT_EXPECT_EQ(test, SIB_AETH_NAK | SIB_NAK_PSN_SEQ_ERR, 0x60);
	KUNIT_EXPECT_EQ(test, SIB_AETH_NAK | SIB_NAK_INVALID_REQ, 0x61);
	KUNIT_EXPECT_EQ(test, SIB_AETH_NAK | SIB_NAK_REM_ACCESS_ERR, 0x62);
	KUNIT_EXPECT_EQ(test, SIB_AETH_NAK | SIB_NAK_REM_OP_ERR, 0x63);
	KUNIT_EXPECT_EQ(test, SIB_AETH_NAK | SIB_NAK_INVALID_RD_REQ, 0x64);
	/* the three classes differ under the class mask; 010 is reserved */
	KUNIT_EXPECT_EQ(test, SIB_AETH_CLASS_MASK, 0x60);
	KUNIT_EXPECT_NE(test, SIB_AETH_ACK, SIB_AETH_RNR_NAK);
	KUNIT_EXPECT_NE(test, SIB_AETH_RNR_NAK, SIB_AETH_NAK);
	KUNIT_EXPECT_NE(test, 0x40, SIB_AETH_ACK);
	KUNIT_EXPECT_NE(test, 0x40, SIB_AETH_RNR_NAK);
	KUNIT_EXPECT_NE(test, 0x40, SIB_AETH_NAK);
	KUNIT_EXPECT_EQ(test, SIB_AETH_VALUE_MASK, 0x1f);
}

static void sib_hdr_test_aeth_msn(struct kunit *test)
{
	static const u8 want[SIB_AETH_LEN] = { 0x63, 0xff, 0xff, 0xff };
	struct sib_aeth a;

	sib_aeth_set(&a, SIB_AETH_NAK | SIB_NAK_REM_OP_ERR, 0xffffff);
	KUNIT_EXPECT_EQ(test, memcmp(&a, want, sizeof(want)), 0);
	/* MSN wraps at 2^24 and never touches the syndrome */
	sib_aeth_set(&a, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 0x1000000);
	KUNIT_EXPECT_EQ(test, sib_aeth_msn(&a), 0U);
	KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a), 0x1f);
	sib_aeth_set(&a, 0, 0xff123456);
	KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a), 0);
	KUNIT_EXPECT_EQ(test, sib_aeth_msn(&a), 0x123456U);
	/* parse from wire bytes */
	memcpy(&a, "\x21\x00\x00\x2a", 4);
	KUNIT_EXPECT_EQ(test, sib_aeth_syndrome(&a), 0x21);
	KUNIT_EXPECT_EQ(test, sib_aeth_msn(&a), 42U);
}

static void sib_hdr_test_deth(struct kunit *test)
{
	static const u8 wire[SIB_DETH_LEN] = {
		0x80, 0x01, 0x00, 0x00,	/* Q_Key: the GSI well-known key */
		0xff, 0x00, 0x00, 0x01,	/* resv8 (garbage), SrcQP 1 */
	};
	struct sib_deth d;

	memcpy(&d, wire, sizeof(d));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d.qkey), 0x80010000U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d.qkey), SIB_GSI_QKEY);
	KUNIT_EXPECT_EQ(test, sib_deth_sqp(&d), 1U);
	d.qkey = cpu_to_be32(0x11111111);
	d.sqp = cpu_to_be32(0x00abcdef);
	KUNIT_EXPECT_EQ(test, ((u8 *)&d)[3], 0x11);
	KUNIT_EXPECT_EQ(test, ((u8 *)&d)[5], 0xab);
	KUNIT_EXPECT_EQ(test, sib_deth_sqp(&d), 0xabcdefU);
}

static void sib_hdr_test_immdt(struct kunit *test)
{
	u8 pkt[16];
	const struct sib_opcode_info *o = sib_opcode(SIB_OP_RC_SEND_ONLY_IMM);
	__be32 imm = cpu_to_be32(0xdeadbeef), got;

	/* ImmDt travels as the 4 big-endian bytes verbs hands over */
	memset(pkt, 0, sizeof(pkt));
	sib_bth_set((struct sib_bth *)pkt, SIB_OP_RC_SEND_ONLY_IMM, false, 0,
		    0xffff, 1, false, 0);
	memcpy(pkt + o->off_imm, &imm, sizeof(imm));
	KUNIT_EXPECT_EQ(test, pkt[12], 0xde);
	KUNIT_EXPECT_EQ(test, pkt[15], 0xef);
	memcpy(&got, pkt + o->off_imm, sizeof(got));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(got), 0xdeadbeefU);
}

static void sib_hdr_test_atmeth(struct kunit *test)
{
	static const u8 want[SIB_ATMETH_LEN] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00,	/* VA */
		0xca, 0xfe, 0xf0, 0x0d,				/* R_Key */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* swap/add */
		0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,	/* compare */
	};
	struct sib_atmeth a;

	a.va = cpu_to_be64(0x0000000100001000ULL);
	a.rkey = cpu_to_be32(0xcafef00d);
	a.swap_add = cpu_to_be64(0x1122334455667788ULL);
	a.compare = cpu_to_be64(0x99aabbccddeeff00ULL);
	KUNIT_EXPECT_EQ(test, memcmp(&a, want, sizeof(want)), 0);
	memset(&a, 0, sizeof(a));
	memcpy(&a, want, sizeof(a));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(a.va), 0x0000000100001000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(a.swap_add), 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(a.compare), 0x99aabbccddeeff00ULL);
	/* the VA of an atomic must be 8-byte aligned (IBTA 9.4.5) */
	KUNIT_EXPECT_EQ(test, be64_to_cpu(a.va) & 7, 0ULL);
}

static void sib_hdr_test_atmack(struct kunit *test)
{
	const struct sib_opcode_info *o = sib_opcode(SIB_OP_RC_ATOMIC_ACK);
	u8 pkt[24];
	struct sib_atmack m;
	struct sib_aeth *a;

	memset(pkt, 0, sizeof(pkt));
	a = (struct sib_aeth *)(pkt + o->off_aeth);
	sib_aeth_set(a, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 7);
	m.orig = cpu_to_be64(0x0102030405060708ULL);
	memcpy(pkt + o->off_atmack, &m, sizeof(m));
	KUNIT_EXPECT_EQ(test, pkt[12], 0x1f);
	KUNIT_EXPECT_EQ(test, pkt[15], 0x07);
	KUNIT_EXPECT_EQ(test, pkt[16], 0x01);
	KUNIT_EXPECT_EQ(test, pkt[23], 0x08);
	memcpy(&m, pkt + o->off_atmack, sizeof(m));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(m.orig), 0x0102030405060708ULL);
}

static struct kunit_case sib_hdr_test_cases[] = {
	KUNIT_CASE(sib_hdr_test_sizes),
	KUNIT_CASE(sib_hdr_test_field_offsets),
	KUNIT_CASE(sib_hdr_test_bth_bytes),
	KUNIT_CASE(sib_hdr_test_bth_roundtrip),
	KUNIT_CASE(sib_hdr_test_bth_set_masks),
	KUNIT_CASE(sib_hdr_test_bth_parse_reserved),
	KUNIT_CASE(sib_hdr_test_reth),
	KUNIT_CASE(sib_hdr_test_aeth_ack_credit),
	KUNIT_CASE(sib_hdr_test_aeth_rnr_nak),
	KUNIT_CASE(sib_hdr_test_aeth_nak_codes),
	KUNIT_CASE(sib_hdr_test_aeth_msn),
	KUNIT_CASE(sib_hdr_test_deth),
	KUNIT_CASE(sib_hdr_test_immdt),
	KUNIT_CASE(sib_hdr_test_atmeth),
	KUNIT_CASE(sib_hdr_test_atmack),
	{}
};

static struct kunit_suite sib_hdr_test_suite = {
	.name = "softib_hdr",
	.test_cases = sib_hdr_test_cases,
};

kunit_test_suite(sib_hdr_test_suite);
