// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of device memory's rules in dm.c: the per-context
 * budget (exact fill, refusal beyond, sizes that would overflow, release)
 * and which MRs on device memory are allowed (zero based only, the
 * access rights, ranges at and beyond the end, zero length).
 */
#include <kunit/test.h>

#include "dm.h"

#define LIM	(128 * 1024UL)
#define ZB	IB_ZERO_BASED
#define LW	IB_ACCESS_LOCAL_WRITE

static void sib_dm_test_charge_fill(struct kunit *test)
{
	atomic_long_t bytes = ATOMIC_LONG_INIT(0);

	KUNIT_EXPECT_TRUE(test, sib_dm_charge(&bytes, LIM / 2, LIM));
	KUNIT_EXPECT_TRUE(test, sib_dm_charge(&bytes, LIM / 2, LIM));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), (long)LIM);
	/* full: not even one more page, and nothing taken */
	KUNIT_EXPECT_FALSE(test, sib_dm_charge(&bytes, PAGE_SIZE, LIM));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), (long)LIM);
	/* what is given back can be taken again */
	atomic_long_sub(PAGE_SIZE, &bytes);
	KUNIT_EXPECT_TRUE(test, sib_dm_charge(&bytes, PAGE_SIZE, LIM));
}

static void sib_dm_test_charge_overflow(struct kunit *test)
{
	atomic_long_t bytes = ATOMIC_LONG_INIT(0);

	KUNIT_EXPECT_FALSE(test, sib_dm_charge(&bytes, LIM + 1, LIM));
	KUNIT_EXPECT_FALSE(test, sib_dm_charge(&bytes, SIZE_MAX, LIM));
	KUNIT_EXPECT_TRUE(test, sib_dm_charge(&bytes, PAGE_SIZE, LIM));
	/* would wrap around if added before the check */
	KUNIT_EXPECT_FALSE(test, sib_dm_charge(&bytes, SIZE_MAX - 1, LIM));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&bytes), (long)PAGE_SIZE);
}

static void sib_dm_test_mr_access(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 100, ZB | LW), 0);
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 100, ZB | SIB_DM_MR_ACCESS), 0);
	/* zero based only */
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 100, LW), -EINVAL);
	/* no windows, no on-demand paging on device memory */
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 100, ZB | IB_ACCESS_MW_BIND),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 100, ZB | IB_ACCESS_ON_DEMAND),
			-EINVAL);
}

static void sib_dm_test_mr_range(struct kunit *test)
{
	/* up to the last byte, and zero bytes anywhere in or at the end */
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 96, 4, ZB), 0);
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 0, ZB), 0);
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 100, 0, ZB), 0);
	/* beyond the end */
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 0, 104, ZB), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 104, 0, ZB), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 97, 4, ZB), -EINVAL);
	/* offset + length wraps */
	KUNIT_EXPECT_EQ(test, sib_dm_mr_check(100, 8, U64_MAX - 4, ZB), -EINVAL);
}

static struct kunit_case sib_dm_test_cases[] = {
	KUNIT_CASE(sib_dm_test_charge_fill),
	KUNIT_CASE(sib_dm_test_charge_overflow),
	KUNIT_CASE(sib_dm_test_mr_access),
	KUNIT_CASE(sib_dm_test_mr_range),
	{}
};

static struct kunit_suite sib_dm_test_suite = {
	.name = "softib_dm",
	.test_cases = sib_dm_test_cases,
};

kunit_test_suite(sib_dm_test_suite);
