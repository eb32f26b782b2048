// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the P_Key rules (IBTA 10.9): validity, the
 * match rule with the membership bit, the port-level check against a
 * table, and adding, changing and removing entries.
 */
#include <kunit/test.h>

#include "pkey.h"

static void sib_pkey_test_valid(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, sib_pkey_valid(0x0000));
	KUNIT_EXPECT_FALSE(test, sib_pkey_valid(0x8000));
	KUNIT_EXPECT_TRUE(test, sib_pkey_valid(0x0001));
	KUNIT_EXPECT_TRUE(test, sib_pkey_valid(0x7fff));
	KUNIT_EXPECT_TRUE(test, sib_pkey_valid(0xffff));
}

static void sib_pkey_test_match(struct kunit *test)
{
	/* full/full, full/limited both ways */
	KUNIT_EXPECT_TRUE(test, sib_pkey_match(0x8001, 0x8001));
	KUNIT_EXPECT_TRUE(test, sib_pkey_match(0x8001, 0x0001));
	KUNIT_EXPECT_TRUE(test, sib_pkey_match(0x0001, 0x8001));
	/* limited/limited never */
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x0001, 0x0001));
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x7fff, 0x7fff));
	/* other partitions never, whatever the membership */
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x8001, 0x8002));
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0xffff, 0x8001));
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x0001, 0x8101));
	/* the default partition */
	KUNIT_EXPECT_TRUE(test, sib_pkey_match(0xffff, 0xffff));
	KUNIT_EXPECT_TRUE(test, sib_pkey_match(0x7fff, 0xffff));
	/* the invalid P_Keys match nothing, not even themselves */
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x8000, 0x8000));
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x0000, 0x8000));
	KUNIT_EXPECT_FALSE(test, sib_pkey_match(0x8000, 0x0000));
}

static struct sib_pkey_port *sib_pkey_test_port(struct kunit *test)
{
	struct sib_pkey_port *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, sib_pkey_port_init(p), 0);
	return p;
}

static void sib_pkey_test_default_table(struct kunit *test)
{
	struct sib_pkey_port *p = sib_pkey_test_port(test);
	u32 i;

	KUNIT_EXPECT_EQ(test, sib_pkey_at(p, 0), 0xffff);
	for (i = 1; i < SIB_MAX_PKEYS; i++)
		KUNIT_EXPECT_EQ(test, sib_pkey_at(p, i), 0);
	KUNIT_EXPECT_EQ(test, sib_pkey_at(p, SIB_MAX_PKEYS), 0);
	KUNIT_EXPECT_EQ(test, sib_pkey_at(p, 0xffffffff), 0);
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0xffff));
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x7fff));
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x8001));
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x0000));
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x8000));
	sib_pkey_port_destroy(p);
}

static void sib_pkey_test_port_membership(struct kunit *test)
{
	struct sib_pkey_port *p = sib_pkey_test_port(test);

	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 1, 0x8001), 0);	/* full */
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 2, 0x0002), 0);	/* limited */
	/* a full port entry accepts full and limited senders */
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x8001));
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x0001));
	/* a limited port entry only full senders */
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x8002));
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x0002));
	/* adding the full member of partition 2 opens it to limited senders */
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 3, 0x8002), 0);
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x0002));
	KUNIT_EXPECT_EQ(test, sib_pkey_find(p, 0x0002), 3);
	KUNIT_EXPECT_EQ(test, sib_pkey_find(p, 0x8002), 3);
	KUNIT_EXPECT_EQ(test, sib_pkey_find(p, 0x0001), 1);
	KUNIT_ASSERT_EQ(test, sib_pkey_del(p, 3), 0);
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x0002));
	KUNIT_EXPECT_EQ(test, sib_pkey_find(p, 0x8002), 2);
	sib_pkey_port_destroy(p);
}

/* sib_pkey_loop_ok() agrees with the port check and the match rule */
static void sib_pkey_test_loop_ok(struct kunit *test)
{
	struct sib_pkey_port *p = sib_pkey_test_port(test);
	u32 s, r;

	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 1, 0x8001), 0);	/* full */
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 2, 0x0001), 0);	/* limited */
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 3, 0x0002), 0);	/* limited only */
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 4, 0x8003), 0);
	for (s = 0; s < 8; s++) {
		for (r = 0; r < 8; r++) {
			u16 a = sib_pkey_at(p, s), b = sib_pkey_at(p, r);
			bool want = sib_pkey_valid(a) &&
				    sib_pkey_port_accepts(p, a) &&
				    sib_pkey_match(a, b);

			KUNIT_EXPECT_EQ_MSG(test, sib_pkey_loop_ok(p, s, r),
					    want, "entries %u -> %u", s, r);
		}
	}
	/* the cases spelled out: full-full, limited-full, limited-limited */
	KUNIT_EXPECT_TRUE(test, sib_pkey_loop_ok(p, 1, 1));
	KUNIT_EXPECT_TRUE(test, sib_pkey_loop_ok(p, 2, 1));
	KUNIT_EXPECT_FALSE(test, sib_pkey_loop_ok(p, 2, 2));
	/* a limited sender whose partition has no full entry on the port */
	KUNIT_EXPECT_FALSE(test, sib_pkey_loop_ok(p, 3, 3));
	/* an empty entry, other partitions, indices out of range */
	KUNIT_EXPECT_FALSE(test, sib_pkey_loop_ok(p, 5, 1));
	KUNIT_EXPECT_FALSE(test, sib_pkey_loop_ok(p, 1, 4));
	KUNIT_EXPECT_FALSE(test, sib_pkey_loop_ok(p, SIB_MAX_PKEYS, 0));
	KUNIT_EXPECT_FALSE(test, sib_pkey_loop_ok(p, 0, 0xffffffff));
	sib_pkey_port_destroy(p);
}

static void sib_pkey_test_change_remove(struct kunit *test)
{
	struct sib_pkey_port *p = sib_pkey_test_port(test);

	/* bad index, invalid P_Keys, duplicates */
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, SIB_MAX_PKEYS, 0x8001), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, 1, 0x8000), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, 1, 0x0000), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, 1, 0xffff), -EEXIST);
	KUNIT_EXPECT_EQ(test, sib_pkey_del(p, 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, sib_pkey_del(p, SIB_MAX_PKEYS), -EINVAL);
	/* the last index works */
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, SIB_MAX_PKEYS - 1, 0x1234), 0);
	KUNIT_EXPECT_EQ(test, sib_pkey_at(p, SIB_MAX_PKEYS - 1), 0x1234);
	/* change full -> limited: the partition is no longer open to limited senders */
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 1, 0x8005), 0);
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x0005));
	KUNIT_ASSERT_EQ(test, sib_pkey_set(p, 1, 0x0005), 0);
	KUNIT_EXPECT_EQ(test, sib_pkey_at(p, 1), 0x0005);
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x0005));
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x8005));
	/* setting the same value again is fine */
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, 1, 0x0005), 0);
	/* removing the default partition closes it */
	KUNIT_ASSERT_EQ(test, sib_pkey_del(p, 0), 0);
	KUNIT_EXPECT_EQ(test, sib_pkey_at(p, 0), 0);
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0xffff));
	KUNIT_EXPECT_FALSE(test, sib_pkey_port_accepts(p, 0x7fff));
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x8005));
	KUNIT_EXPECT_EQ(test, sib_pkey_del(p, 0), -ENOENT);
	/* and another index may take 0xffff now */
	KUNIT_EXPECT_EQ(test, sib_pkey_set(p, 7, 0xffff), 0);
	KUNIT_EXPECT_TRUE(test, sib_pkey_port_accepts(p, 0x7fff));
	sib_pkey_port_destroy(p);
}

static struct kunit_case sib_pkey_test_cases[] = {
	KUNIT_CASE(sib_pkey_test_valid),
	KUNIT_CASE(sib_pkey_test_match),
	KUNIT_CASE(sib_pkey_test_default_table),
	KUNIT_CASE(sib_pkey_test_port_membership),
	KUNIT_CASE(sib_pkey_test_loop_ok),
	KUNIT_CASE(sib_pkey_test_change_remove),
	{}
};

static struct kunit_suite sib_pkey_test_suite = {
	.name = "softib_pkey",
	.test_cases = sib_pkey_test_cases,
};

kunit_test_suite(sib_pkey_test_suite);
