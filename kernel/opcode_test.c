// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the const opcode table (opcode.c) against an
 * independently written list of IBTA facts (vol. 1, 9.2.1 table 38 and
 * 9.2 header order): opcode numbers, which extension headers each
 * opcode carries, their offsets from the BTH, the header length, and
 * the first/middle/last, request/response, payload and receive-WQE
 * properties the engines rely on.
 */
#include <kunit/test.h>

#include "hdr.h"

/* expected properties */
#define X_S	BIT(0)	/* FIRST or ONLY */
#define X_E	BIT(1)	/* LAST or ONLY */
#define X_Q	BIT(2)	/* request */
#define X_P	BIT(3)	/* response */
#define X_D	BIT(4)	/* may carry payload */
#define X_W	BIT(5)	/* consumes a receive WQE */

struct sib_op_fact {
	u8 op;
	u8 len;		/* BTH + extension headers */
	u8 deth, reth, atmeth, aeth, atmack, imm;	/* offsets, 0 = absent */
	u8 x;
};

/* IBTA table 38, RC (000xxxxx) and UD (011xxxxx) */
static const struct sib_op_fact sib_facts[] = {
	{ 0x00, 12, 0, 0, 0, 0, 0, 0, X_Q | X_D | X_S },	/* SEND_FIRST */
	{ 0x01, 12, 0, 0, 0, 0, 0, 0, X_Q | X_D },		/* SEND_MIDDLE */
	{ 0x02, 12, 0, 0, 0, 0, 0, 0, X_Q | X_D | X_E | X_W },	/* SEND_LAST */
	{ 0x03, 16, 0, 0, 0, 0, 0, 12, X_Q | X_D | X_E | X_W },	/* SEND_LAST_IMM */
	{ 0x04, 12, 0, 0, 0, 0, 0, 0, X_Q | X_D | X_S | X_E | X_W }, /* SEND_ONLY */
	{ 0x05, 16, 0, 0, 0, 0, 0, 12, X_Q | X_D | X_S | X_E | X_W }, /* SEND_ONLY_IMM */
	{ 0x06, 28, 0, 12, 0, 0, 0, 0, X_Q | X_D | X_S },	/* WRITE_FIRST */
	{ 0x07, 12, 0, 0, 0, 0, 0, 0, X_Q | X_D },		/* WRITE_MIDDLE */
	{ 0x08, 12, 0, 0, 0, 0, 0, 0, X_Q | X_D | X_E },	/* WRITE_LAST */
	{ 0x09, 16, 0, 0, 0, 0, 0, 12, X_Q | X_D | X_E | X_W },	/* WRITE_LAST_IMM */
	{ 0x0a, 28, 0, 12, 0, 0, 0, 0, X_Q | X_D | X_S | X_E },	/* WRITE_ONLY */
	{ 0x0b, 32, 0, 12, 0, 0, 0, 28, X_Q | X_D | X_S | X_E | X_W }, /* WRITE_ONLY_IMM */
	{ 0x0c, 28, 0, 12, 0, 0, 0, 0, X_Q | X_S | X_E },	/* READ_REQUEST */
	{ 0x0d, 16, 0, 0, 0, 12, 0, 0, X_P | X_D | X_S },	/* READ_RESPONSE_FIRST */
	{ 0x0e, 12, 0, 0, 0, 0, 0, 0, X_P | X_D },		/* READ_RESPONSE_MIDDLE */
	{ 0x0f, 16, 0, 0, 0, 12, 0, 0, X_P | X_D | X_E },	/* READ_RESPONSE_LAST */
	{ 0x10, 16, 0, 0, 0, 12, 0, 0, X_P | X_D | X_S | X_E },	/* READ_RESPONSE_ONLY */
	{ 0x11, 16, 0, 0, 0, 12, 0, 0, X_P | X_S | X_E },	/* ACKNOWLEDGE */
	{ 0x12, 24, 0, 0, 0, 12, 16, 0, X_P | X_S | X_E },	/* ATOMIC_ACKNOWLEDGE */
	{ 0x13, 40, 0, 0, 12, 0, 0, 0, X_Q | X_S | X_E },	/* COMPARE_SWAP */
	{ 0x14, 40, 0, 0, 12, 0, 0, 0, X_Q | X_S | X_E },	/* FETCH_ADD */
	{ 0x16, 16, 0, 0, 0, 0, 0, 0, X_Q | X_D | X_E | X_W },	/* SEND_LAST_INV */
	{ 0x17, 16, 0, 0, 0, 0, 0, 0, X_Q | X_D | X_S | X_E | X_W }, /* SEND_ONLY_INV */
	{ 0x1d, 28, 0, 12, 0, 0, 0, 0, X_Q | X_D | X_S | X_E },	/* ATOMIC_WRITE (IBA 1.5) */
	{ 0x64, 20, 12, 0, 0, 0, 0, 0, X_Q | X_D | X_S | X_E | X_W }, /* UD SEND_ONLY */
	{ 0x65, 24, 12, 0, 0, 0, 0, 20, X_Q | X_D | X_S | X_E | X_W }, /* UD SEND_ONLY_IMM */
};

static bool sib_test_known(unsigned int op)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++)
		if (sib_facts[i].op == op)
			return true;
	return false;
}

static void sib_opcode_test_enum_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_SEND_FIRST, 0x00);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_SEND_MIDDLE, 0x01);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_SEND_LAST, 0x02);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_SEND_LAST_IMM, 0x03);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_SEND_ONLY, 0x04);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_SEND_ONLY_IMM, 0x05);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_WRITE_FIRST, 0x06);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_WRITE_MIDDLE, 0x07);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_WRITE_LAST, 0x08);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_WRITE_LAST_IMM, 0x09);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_WRITE_ONLY, 0x0a);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_WRITE_ONLY_IMM, 0x0b);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_READ_REQ, 0x0c);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_READ_RESP_FIRST, 0x0d);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_READ_RESP_MIDDLE, 0x0e);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_READ_RESP_LAST, 0x0f);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_READ_RESP_ONLY, 0x10);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_ACK, 0x11);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_ATOMIC_ACK, 0x12);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_CMP_SWAP, 0x13);
	KUNIT_EXPECT_EQ(test, SIB_OP_RC_FETCH_ADD, 0x14);
	KUNIT_EXPECT_EQ(test, SIB_OP_UD_SEND_ONLY, 0x64);
	KUNIT_EXPECT_EQ(test, SIB_OP_UD_SEND_ONLY_IMM, 0x65);
}

static void sib_opcode_test_known_are_valid(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_opcode_info *o = sib_opcode(sib_facts[i].op);

		KUNIT_EXPECT_TRUE_MSG(test, o->flags & SIB_OPF_VALID,
				      "opcode 0x%02x", sib_facts[i].op);
		KUNIT_EXPECT_NOT_ERR_OR_NULL_MSG(test, o->name,
						 "opcode 0x%02x", sib_facts[i].op);
	}
}

/*
 * Everything else is invalid, except optional extensions that must then
 * follow the IBTA layout (checked in sib_opcode_test_optional_layouts).
 */
static void sib_opcode_test_unknown_are_invalid(struct kunit *test)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		if (sib_test_known(op))
			continue;
		if ((op >= 0x20 && op <= 0x2b) || op == 0x16 || op == 0x17)
			continue;
		/* XRC: the RC codes 0x00..0x14 with the 101 prefix */
		if (op >= 0xa0 && op <= 0xb4)
			continue;
		KUNIT_EXPECT_FALSE_MSG(test, sib_opcode(op)->flags & SIB_OPF_VALID,
				       "opcode 0x%02x", op);
	}
	/* reserved codes within the RC and UD ranges */
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x15)->flags & SIB_OPF_VALID);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x1f)->flags & SIB_OPF_VALID);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x60)->flags & SIB_OPF_VALID);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x66)->flags & SIB_OPF_VALID);
	/* CNP (0x81) is not a transport opcode of the table */
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x81)->flags & SIB_OPF_VALID);
}

static void sib_opcode_test_hdr_len(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++)
		KUNIT_EXPECT_EQ_MSG(test, sib_opcode(sib_facts[i].op)->hdr_len,
				    sib_facts[i].len, "opcode 0x%02x",
				    sib_facts[i].op);
}

static void sib_opcode_test_offsets(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_op_fact *f = &sib_facts[i];
		const struct sib_opcode_info *o = sib_opcode(f->op);

		KUNIT_EXPECT_EQ_MSG(test, o->off_deth, f->deth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, o->off_reth, f->reth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, o->off_atmeth, f->atmeth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, o->off_aeth, f->aeth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, o->off_atmack, f->atmack, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, o->off_imm, f->imm, "op 0x%02x", f->op);
	}
}

/* header flags and offsets agree: a header is present iff its flag is */
static void sib_opcode_test_header_flags(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_op_fact *f = &sib_facts[i];
		u32 fl = sib_opcode(f->op)->flags;

		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_DETH), !!f->deth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_RETH), !!f->reth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_ATOMIC), !!f->atmeth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_AETH), !!f->aeth, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_ATMACK), !!f->atmack, "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_IMM), !!f->imm, "op 0x%02x", f->op);
	}
}

static void sib_opcode_test_first_last(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_op_fact *f = &sib_facts[i];
		u32 fl = sib_opcode(f->op)->flags;

		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_START), !!(f->x & X_S),
				    "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_END), !!(f->x & X_E),
				    "op 0x%02x", f->op);
	}
}

static void sib_opcode_test_req_resp(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_op_fact *f = &sib_facts[i];
		u32 fl = sib_opcode(f->op)->flags;

		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_REQ), !!(f->x & X_Q),
				    "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_RESP), !!(f->x & X_P),
				    "op 0x%02x", f->op);
	}
	/* the class bits: ACK and atomic ACK are the only non-read responses */
	KUNIT_EXPECT_TRUE(test, sib_opcode(0x11)->flags & SIB_OPF_ACK);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x10)->flags & SIB_OPF_ACK);
	KUNIT_EXPECT_TRUE(test, sib_opcode(0x0c)->flags & SIB_OPF_READ);
	KUNIT_EXPECT_TRUE(test, sib_opcode(0x0e)->flags & SIB_OPF_RRESP);
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x0c)->flags & SIB_OPF_RRESP);
}

static void sib_opcode_test_payload_and_rwqe(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_op_fact *f = &sib_facts[i];
		u32 fl = sib_opcode(f->op)->flags;

		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_PAYLOAD), !!(f->x & X_D),
				    "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_RWQE), !!(f->x & X_W),
				    "op 0x%02x", f->op);
	}
}

static void sib_opcode_test_transport_class(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_facts); i++) {
		const struct sib_op_fact *f = &sib_facts[i];
		u32 fl = sib_opcode(f->op)->flags;

		/* the top 3 bits of the opcode are the transport: 011 = UD */
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_UD), (f->op >> 5) == 3,
				    "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_SEND),
				    (f->op <= 0x05) || f->op == 0x16 ||
				    f->op == 0x17 || (f->op >> 5) == 3,
				    "op 0x%02x", f->op);
		KUNIT_EXPECT_EQ_MSG(test, !!(fl & SIB_OPF_WRITE),
				    f->op >= 0x06 && f->op <= 0x0b,
				    "op 0x%02x", f->op);
	}
}

/* the derived lengths are self-consistent for every valid entry */
static void sib_opcode_test_self_consistent(struct kunit *test)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++) {
		const struct sib_opcode_info *o = sib_opcode(op);
		unsigned int len = SIB_BTH_LEN;

		if (!(o->flags & SIB_OPF_VALID))
			continue;
		n++;
		len += o->off_deth ? SIB_DETH_LEN : 0;
		len += (o->flags & SIB_OPF_XRCETH) ? SIB_XRCETH_LEN : 0;
		len += o->off_reth ? SIB_RETH_LEN : 0;
		len += o->off_atmeth ? SIB_ATMETH_LEN : 0;
		len += o->off_aeth ? SIB_AETH_LEN : 0;
		len += o->off_atmack ? SIB_ATMACK_LEN : 0;
		len += o->off_imm ? SIB_IMM_LEN : 0;
		len += o->off_ieth ? SIB_IETH_LEN : 0;
		KUNIT_EXPECT_EQ_MSG(test, o->hdr_len, len, "op 0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, o->hdr_len % 4, 0U, "op 0x%02x", op);
		/* the longest: BTH + XRCETH + AtomicETH (XRC atomics) */
		KUNIT_EXPECT_LE_MSG(test, o->hdr_len, 44, "op 0x%02x", op);
		if (o->off_imm)	/* ImmDt is always the last header */
			KUNIT_EXPECT_EQ(test, o->off_imm + SIB_IMM_LEN, o->hdr_len);
	}
	KUNIT_EXPECT_GE(test, n, (unsigned int)ARRAY_SIZE(sib_facts));
}

/*
 * UC (001xxxxx) and SEND_WITH_INVALIDATE (0x16, 0x17) are optional: either
 * absent as a whole, or laid out as IBTA says.
 */
static void sib_opcode_test_optional_layouts(struct kunit *test)
{
	static const u8 uc_len[12] = { 12, 12, 12, 16, 12, 16, 28, 12, 12, 16,
				       28, 32 };
	unsigned int i, valid = 0;

	for (i = 0; i < 12; i++)
		valid += !!(sib_opcode(0x20 + i)->flags & SIB_OPF_VALID);
	KUNIT_EXPECT_TRUE(test, valid == 0 || valid == 12);
	if (valid == 12) {
		for (i = 0; i < 12; i++) {
			KUNIT_EXPECT_EQ_MSG(test, sib_opcode(0x20 + i)->hdr_len,
					    uc_len[i], "op 0x%02x", 0x20 + i);
			/* same header set as the RC opcode with the same low bits */
			KUNIT_EXPECT_EQ_MSG(test, sib_opcode(0x20 + i)->hdr_len,
					    sib_opcode(i)->hdr_len, "op 0x%02x", 0x20 + i);
		}
	}
	/* XRC: RC layout, plus an XRCETH after the BTH in every request */
	for (i = 0; i <= 0x14; i++) {
		const struct sib_opcode_info *x = sib_opcode(SIB_OP_XRC_BASE | i);
		const struct sib_opcode_info *r = sib_opcode(i);

		KUNIT_EXPECT_TRUE_MSG(test, x->flags & SIB_OPF_XRC, "op 0x%02x", i);
		KUNIT_EXPECT_EQ_MSG(test, !!(x->flags & SIB_OPF_XRCETH),
				    !!(r->flags & SIB_OPF_REQ), "op 0x%02x", i);
		KUNIT_EXPECT_EQ_MSG(test, x->hdr_len, r->hdr_len +
				    ((r->flags & SIB_OPF_REQ) ? SIB_XRCETH_LEN : 0),
				    "op 0x%02x", i);
	}
	for (i = 0x16; i <= 0x17; i++) {
		const struct sib_opcode_info *o = sib_opcode(i);

		if (!(o->flags & SIB_OPF_VALID))
			continue;
		/* BTH + IETH (4 bytes) */
		KUNIT_EXPECT_EQ_MSG(test, o->off_ieth, 12, "op 0x%02x", i);
		KUNIT_EXPECT_EQ_MSG(test, o->hdr_len, 16, "op 0x%02x", i);
		KUNIT_EXPECT_TRUE(test, o->flags & SIB_OPF_END);
	}
	/* the UD opcodes never exist in the RC range and vice versa */
	KUNIT_EXPECT_FALSE(test, sib_opcode(0x04)->flags & SIB_OPF_DETH);
	KUNIT_EXPECT_TRUE(test, sib_opcode(0x64)->flags & SIB_OPF_DETH);
}

static struct kunit_case sib_opcode_test_cases[] = {
	KUNIT_CASE(sib_opcode_test_enum_values),
	KUNIT_CASE(sib_opcode_test_known_are_valid),
	KUNIT_CASE(sib_opcode_test_unknown_are_invalid),
	KUNIT_CASE(sib_opcode_test_hdr_len),
	KUNIT_CASE(sib_opcode_test_offsets),
	KUNIT_CASE(sib_opcode_test_header_flags),
	KUNIT_CASE(sib_opcode_test_first_last),
	KUNIT_CASE(sib_opcode_test_req_resp),
	KUNIT_CASE(sib_opcode_test_payload_and_rwqe),
	KUNIT_CASE(sib_opcode_test_transport_class),
	KUNIT_CASE(sib_opcode_test_self_consistent),
	KUNIT_CASE(sib_opcode_test_optional_layouts),
	{}
};

static struct kunit_suite sib_opcode_test_suite = {
	.name = "softib_opcode",
	.test_cases = sib_opcode_test_cases,
};

kunit_test_suite(sib_opcode_test_suite);
