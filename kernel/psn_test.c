// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the 24-bit PSN arithmetic in psn.h (IBTA 9.7.1):
 * wrap-around, modular comparison, distance and window membership as the
 * requester, responder and completer use them.
 */
#include <kunit/test.h>

#include "psn.h"

#define PSN_MOD 0x01000000U

/* PSN @psn lies in the window of @n PSNs starting at @base */
static bool sib_test_in_window(u32 psn, u32 base, u32 n)
{
	return sib_psn_diff(psn, base) < n;
}

static void sib_psn_test_add_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sib_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(0xfffffe, 3), 1U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(0x800000, 0x800000), 0U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(0, PSN_MOD), 0U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(5, 0), 5U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(0x123456, 0xffffff), 0x123455U);
}

static void sib_psn_test_add_masks_input(struct kunit *test)
{
	/* bits above 24 (AckReq, resv7 from a raw BTH word) never leak */
	KUNIT_EXPECT_EQ(test, sib_psn_add(0x81000005, 0), 5U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(0xff000000, 7), 7U);
	KUNIT_EXPECT_EQ(test, sib_psn_add(1, 0xffffffff), 0U);
}

static void sib_psn_test_cmp_basic(struct kunit *test)
{
	KUNIT_EXPECT_LT(test, sib_psn_cmp(1, 2), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(2, 1), 0);
	KUNIT_EXPECT_EQ(test, sib_psn_cmp(0xabcdef, 0xabcdef), 0);
	KUNIT_EXPECT_EQ(test, sib_psn_cmp(0, 0), 0);
	KUNIT_EXPECT_LT(test, sib_psn_cmp(0x100, 0x200), 0);
}

static void sib_psn_test_cmp_across_wrap(struct kunit *test)
{
	KUNIT_EXPECT_GT(test, sib_psn_cmp(0, 0xffffff), 0);
	KUNIT_EXPECT_LT(test, sib_psn_cmp(0xffffff, 0), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(0x000010, 0xfffff0), 0);
	KUNIT_EXPECT_LT(test, sib_psn_cmp(0xfffff0, 0x000010), 0);
}

static void sib_psn_test_cmp_half_range(struct kunit *test)
{
	static const u32 bases[] = { 0, 1, 0x7fffff, 0x800000, 0xabcdef,
				     0xffffff };
	int i;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		u32 a = bases[i];

		/* up to 2^23 - 1 ahead is "after", beyond that "before" */
		KUNIT_EXPECT_GT(test, sib_psn_cmp(sib_psn_add(a, 0x7fffff), a), 0);
		KUNIT_EXPECT_LT(test, sib_psn_cmp(sib_psn_add(a, 0x800001), a), 0);
		KUNIT_EXPECT_LT(test, sib_psn_cmp(a, sib_psn_add(a, 0x7fffff)), 0);
		KUNIT_EXPECT_LT(test, sib_psn_cmp(sib_psn_add(a, 0xffffff), a), 0);
	}
}

static void sib_psn_test_cmp_ignores_high_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sib_psn_cmp(0x01000005, 5), 0);
	KUNIT_EXPECT_EQ(test, sib_psn_cmp(0xff000001, 0x00000001), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(0x80000002, 1), 0);
}

static void sib_psn_test_diff(struct kunit *test)
{
	static const u32 v[] = { 0, 1, 2, 0x7fffff, 0x800000, 0xfffffe,
				 0xffffff, 0x123456 };
	int i, j;

	KUNIT_EXPECT_EQ(test, sib_psn_diff(5, 5), 0U);
	KUNIT_EXPECT_EQ(test, sib_psn_diff(0, 0xffffff), 1U);
	KUNIT_EXPECT_EQ(test, sib_psn_diff(0xffffff, 0), 0xffffffU);
	KUNIT_EXPECT_EQ(test, sib_psn_diff(0x2, 0xfffffe), 4U);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		for (j = 0; j < ARRAY_SIZE(v); j++) {
			if (v[i] == v[j])
				continue;
			/* forward distances in both directions add to 2^24 */
			KUNIT_EXPECT_EQ(test, sib_psn_diff(v[i], v[j]) +
					sib_psn_diff(v[j], v[i]), PSN_MOD);
		}
}

static void sib_psn_test_add_diff_inverse(struct kunit *test)
{
	static const u32 base[] = { 0, 0x000001, 0x7ffff0, 0xfffff0, 0xffffff };
	static const u32 n[] = { 1, 2, 63, 64, 512, 0x1000, 0x7fffff };
	int i, j;

	for (i = 0; i < ARRAY_SIZE(base); i++)
		for (j = 0; j < ARRAY_SIZE(n); j++) {
			u32 p = sib_psn_add(base[i], n[j]);

			KUNIT_EXPECT_EQ(test, sib_psn_diff(p, base[i]), n[j]);
			KUNIT_EXPECT_GT(test, sib_psn_cmp(p, base[i]), 0);
			KUNIT_EXPECT_LE(test, p, 0xffffffU);
		}
}

static void sib_psn_test_window(struct kunit *test)
{
	/* a window of 32 PSNs that straddles the wrap */
	KUNIT_EXPECT_TRUE(test, sib_test_in_window(0xfffff0, 0xfffff0, 32));
	KUNIT_EXPECT_TRUE(test, sib_test_in_window(0xffffff, 0xfffff0, 32));
	KUNIT_EXPECT_TRUE(test, sib_test_in_window(0x000000, 0xfffff0, 32));
	KUNIT_EXPECT_TRUE(test, sib_test_in_window(0x00000f, 0xfffff0, 32));
	KUNIT_EXPECT_FALSE(test, sib_test_in_window(0x000010, 0xfffff0, 32));
	KUNIT_EXPECT_FALSE(test, sib_test_in_window(0xffffef, 0xfffff0, 32));
	/* membership agrees with comparing against both edges */
	{
		u32 base = 0xfffff0, end = sib_psn_add(base, 32), p;
		int k;

		for (k = -40; k < 80; k++) {
			p = sib_psn_add(base, (u32)k);
			KUNIT_EXPECT_EQ(test, sib_test_in_window(p, base, 32),
					sib_psn_cmp(p, base) >= 0 &&
					sib_psn_cmp(p, end) < 0);
		}
	}
}

static void sib_psn_test_duplicate_vs_future(struct kunit *test)
{
	/*
	 * Responder view (IBTA 9.7.5.1.2): a PSN before the expected one is
	 * a duplicate, after it is out of sequence; both at the wrap.
	 */
	u32 epsn = 0;
	u32 prev = sib_psn_add(epsn, 0xffffff);

	KUNIT_EXPECT_EQ(test, prev, 0xffffffU);
	KUNIT_EXPECT_LT(test, sib_psn_cmp(prev, epsn), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(sib_psn_add(epsn, 1), epsn), 0);
	epsn = 0xffffff;
	KUNIT_EXPECT_LT(test, sib_psn_cmp(0xfffffe, epsn), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(0x000000, epsn), 0);
	/* the completer: an ACK of PSN p covers a WQE whose last PSN <= p */
	KUNIT_EXPECT_LE(test, sib_psn_cmp(0xfffffe, 0x000001), 0);
	KUNIT_EXPECT_GT(test, sib_psn_cmp(0x000002, 0x000001), 0);
}

static struct kunit_case sib_psn_test_cases[] = {
	KUNIT_CASE(sib_psn_test_add_wraps),
	KUNIT_CASE(sib_psn_test_add_masks_input),
	KUNIT_CASE(sib_psn_test_cmp_basic),
	KUNIT_CASE(sib_psn_test_cmp_across_wrap),
	KUNIT_CASE(sib_psn_test_cmp_half_range),
	KUNIT_CASE(sib_psn_test_cmp_ignores_high_bits),
	KUNIT_CASE(sib_psn_test_diff),
	KUNIT_CASE(sib_psn_test_add_diff_inverse),
	KUNIT_CASE(sib_psn_test_window),
	KUNIT_CASE(sib_psn_test_duplicate_vs_future),
	{}
};

static struct kunit_suite sib_psn_test_suite = {
	.name = "softib_psn",
	.test_cases = sib_psn_test_cases,
};

kunit_test_suite(sib_psn_test_suite);
