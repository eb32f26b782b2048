// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the memory window rules in mw.c (IBTA 10.6.7):
 * which binds are allowed (key index, type 2 state, rights, MR local
 * write, range) and which remote accesses a bound window lets through
 * (rights, range, overflow), plus the key split between MRs and windows
 * and an MR key's range check.
 */
#include <kunit/test.h>

#include "mw.h"
#include "mr.h"

#define RW	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE)
#define LW	IB_ACCESS_LOCAL_WRITE
#define MRA	(LW | IB_ACCESS_MW_BIND)

static void sib_mw_test_bind_key_index(struct kunit *test)
{
	/* the consumer owns the key byte only */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000107,
						0x80000108, 0x1000, 0x1000, MRA,
						0x1000, 0x100, RW), 0);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000107,
						0x80000207, 0x1000, 0x1000, MRA,
						0x1000, 0x100, RW), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_2, false, 0x800001ff,
						0x80000100, 0x1000, 0x1000, MRA,
						0x1000, 0x100, RW), 0);
}

static void sib_mw_test_bind_type2_state(struct kunit *test)
{
	/* a bound type 2 window must be invalidated before a new bind */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_2, true, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1000, 0x100, RW), -EINVAL);
	/* type 1 windows are simply rebound */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, true, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1000, 0x100, RW), 0);
}

static void sib_mw_test_bind_rights(struct kunit *test)
{
	/* remote write / atomic need an MR with local write */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000,
						IB_ACCESS_MW_BIND, 0x1000, 0x100,
						IB_ACCESS_REMOTE_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000,
						IB_ACCESS_MW_BIND, 0x1000, 0x100,
						IB_ACCESS_REMOTE_ATOMIC), -EACCES);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000,
						IB_ACCESS_MW_BIND, 0x1000, 0x100,
						IB_ACCESS_REMOTE_READ), 0);
	/* local write alone is accepted and grants nothing remote */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_2, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1000, 0x100, LW), 0);
	/* MW_BIND is not a right a window can pass on; zero based not offered */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1000, 0x100, IB_ACCESS_MW_BIND),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1000, 0x100, RW | IB_ZERO_BASED),
			-EOPNOTSUPP);
}

static void sib_mw_test_bind_range(struct kunit *test)
{
	/* the whole MR, its last byte, one byte past it, an overflowing length */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1000, 0x1000, RW), 0);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1fff, 1, RW), 0);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1001, 0x1000, RW), -ERANGE);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0xfff, 2, RW), -ERANGE);
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, false, 0x80000100,
						0x80000101, 0x1000, 0x1000, MRA,
						0x1800, U64_MAX, RW), -ERANGE);
	/* length 0 (type 1 unbind) needs no MR */
	KUNIT_EXPECT_EQ(test, sib_mw_bind_check(IB_MW_TYPE_1, true, 0x80000100,
						0x80000101, 0, 0, 0, 0, 0, 0), 0);
}

static void sib_mw_test_access(struct kunit *test)
{
	/* rights */
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, IB_ACCESS_REMOTE_READ,
					   0x1000, 8, IB_ACCESS_REMOTE_WRITE),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, 0x1000, 8,
					   IB_ACCESS_REMOTE_ATOMIC), -EACCES);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, 0, 0x1000, 8,
					   IB_ACCESS_REMOTE_READ), -EACCES);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, 0x1000, 8,
					   IB_ACCESS_REMOTE_WRITE), 0);
	/* range: inside, the last byte, past the end, before, wrapping */
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, 0x1000, 0x100,
					   IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, 0x10ff, 1,
					   IB_ACCESS_REMOTE_READ), 0);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, 0x10ff, 2,
					   IB_ACCESS_REMOTE_READ), -ERANGE);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, 0xfff, 1,
					   IB_ACCESS_REMOTE_READ), -ERANGE);
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0x100, RW, U64_MAX - 3, 8,
					   IB_ACCESS_REMOTE_READ), -ERANGE);
	/* a zero-length window lets nothing through */
	KUNIT_EXPECT_EQ(test, sib_mw_check(0x1000, 0, RW, 0x1000, 1,
					   IB_ACCESS_REMOTE_READ), -ERANGE);
}

static void sib_mw_test_key_split(struct kunit *test)
{
	/* MR indices stay below the window bit: the largest MR key */
	u32 mr_max = (((SIB_MW_KEY_BIT >> 8) - 1) << 8) | 0xff;

	KUNIT_EXPECT_FALSE(test, mr_max & SIB_MW_KEY_BIT);
	KUNIT_EXPECT_TRUE(test, ((SIB_MW_KEY_BIT >> 8) << 8) & SIB_MW_KEY_BIT);
	/* room for every MR and window the largest limits allow (limits.c) */
	KUNIT_EXPECT_GE(test, (SIB_MW_KEY_BIT >> 8) - 1, (u32)SIB_LIM_MR);
	KUNIT_EXPECT_GE(test, 0x00ffffffU - (SIB_MW_KEY_BIT >> 8) + 1,
			(u32)SIB_LIM_MW);
}

/* an MR key's range check for remote access (sib_rkey_get()) */
static void sib_mw_test_mr_range(struct kunit *test)
{
	struct sib_mr mr = { .iova = 0x10000, .length = 0x1000 };
	struct sib_mr dma = { .iova = 0, .length = U64_MAX };

	KUNIT_EXPECT_TRUE(test, sib_mr_in_range(&mr, 0x10000, 0x1000));
	KUNIT_EXPECT_TRUE(test, sib_mr_in_range(&mr, 0x10fff, 1));
	KUNIT_EXPECT_TRUE(test, sib_mr_in_range(&mr, 0x11000, 0));
	/* a request that starts inside but ends outside: the whole is refused */
	KUNIT_EXPECT_FALSE(test, sib_mr_in_range(&mr, 0x10800, 0x1000));
	KUNIT_EXPECT_FALSE(test, sib_mr_in_range(&mr, 0xffff, 2));
	KUNIT_EXPECT_FALSE(test, sib_mr_in_range(&mr, 0x11000, 1));
	/* no wrap-around */
	KUNIT_EXPECT_FALSE(test, sib_mr_in_range(&mr, U64_MAX, 2));
	KUNIT_EXPECT_FALSE(test, sib_mr_in_range(&mr, 0x10000, U64_MAX));
	KUNIT_EXPECT_TRUE(test, sib_mr_in_range(&dma, U64_MAX - 8, 8));
}

static struct kunit_case sib_mw_test_cases[] = {
	KUNIT_CASE(sib_mw_test_bind_key_index),
	KUNIT_CASE(sib_mw_test_bind_type2_state),
	KUNIT_CASE(sib_mw_test_bind_rights),
	KUNIT_CASE(sib_mw_test_bind_range),
	KUNIT_CASE(sib_mw_test_access),
	KUNIT_CASE(sib_mw_test_key_split),
	KUNIT_CASE(sib_mw_test_mr_range),
	{}
};

static struct kunit_suite sib_mw_test_suite = {
	.name = "softib_mw",
	.test_cases = sib_mw_test_cases,
};

kunit_test_suite(sib_mw_test_suite);
