// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the shared rings (queue.c, queue.h and the ring
 * layout of softib-abi.h): allocation checks, layout, and the index math
 * of free-running u32 producer/consumer counters (mask, wrap at 2^32,
 * full and empty) that both the kernel and the provider rely on.
 */
#include <kunit/test.h>
#include <linux/stddef.h>

#include "queue.h"

static void sib_queue_test_alloc_rejects(struct kunit *test)
{
	struct sib_ring r = {};

	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 0, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 3, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 6, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 100, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 0x80000001, 64), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_ring_alloc(&r, 16, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, r.buf);
}

static void sib_queue_test_alloc_layout(struct kunit *test)
{
	struct sib_ring r;
	size_t i;
	u8 *p;

	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, 16, 64), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)r.hdr, r.buf);
	KUNIT_EXPECT_EQ(test, r.num, 16U);
	KUNIT_EXPECT_EQ(test, r.stride, 64U);
	KUNIT_EXPECT_EQ(test, r.size, (size_t)PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, r.mentry);
	/* the magic says the ring is alive (see softib-abi.h) */
	KUNIT_EXPECT_EQ(test, r.hdr->magic, (u32)SIB_RING_MAGIC);
	/* otherwise zeroed: indices start at 0, no stale data reaches user space */
	r.hdr->magic = 0;
	for (i = 0, p = r.buf; i < r.size; i++)
		if (p[i])
			break;
	KUNIT_EXPECT_EQ(test, i, r.size);
	sib_ring_free(&r);
	KUNIT_EXPECT_NULL(test, r.buf);
	KUNIT_EXPECT_NULL(test, r.hdr);

	/* header + entries larger than a page round up to whole pages */
	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, 64, 64), 0);
	KUNIT_EXPECT_EQ(test, r.size, PAGE_ALIGN(SIB_RING_HDR_SIZE + 64 * 64));
	KUNIT_EXPECT_GE(test, r.size, (size_t)(SIB_RING_HDR_SIZE + 64 * 64));
	sib_ring_free(&r);
}

static void sib_queue_test_hdr_layout(struct kunit *test)
{
	/* producer and consumer on separate 64-byte cache lines */
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_ring_hdr, producer), (size_t)0);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_ring_hdr, magic), (size_t)4);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_ring_hdr, consumer), (size_t)64);
	KUNIT_EXPECT_EQ(test, offsetof(struct sib_ring_hdr, kernel_idle), (size_t)68);
	KUNIT_EXPECT_EQ(test, sizeof(struct sib_ring_hdr), (size_t)SIB_RING_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, SIB_RING_HDR_SIZE % 64, 0);
}

static void sib_queue_test_entry_mask(struct kunit *test)
{
	static const u32 idx[] = { 0, 1, 7, 8, 9, 15, 16, 0x7fffffff,
				   0x80000000, 0xfffffff8, 0xffffffff };
	struct sib_ring r;
	u8 *base;
	int i;

	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, 8, 48), 0);
	base = (u8 *)r.buf + SIB_RING_HDR_SIZE;
	for (i = 0; i < ARRAY_SIZE(idx); i++)
		KUNIT_EXPECT_PTR_EQ(test, sib_ring_entry(&r, idx[i]),
				    (void *)(base + (idx[i] % 8) * 48));
	/* one lap of indices maps to num distinct slots */
	for (i = 1; i < 8; i++)
		KUNIT_EXPECT_PTR_NE(test, sib_ring_entry(&r, 0xfffffffcU + i),
				    sib_ring_entry(&r, 0xfffffffcU));
	sib_ring_free(&r);
}

static void sib_queue_test_entry_in_bounds(struct kunit *test)
{
	static const u32 nums[] = { 1, 2, 64, 1024 };
	static const u32 strides[] = { 16, 64, 192, 576 };
	int i, j;

	for (i = 0; i < ARRAY_SIZE(nums); i++)
		for (j = 0; j < ARRAY_SIZE(strides); j++) {
			struct sib_ring r;
			u32 k;

			KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, nums[i], strides[j]), 0);
			for (k = 0; k < 2 * nums[i]; k++) {
				u8 *e = sib_ring_entry(&r, k - nums[i]);

				KUNIT_EXPECT_GE(test, (unsigned long)e,
						(unsigned long)r.buf + SIB_RING_HDR_SIZE);
				KUNIT_EXPECT_LE(test, (unsigned long)e + r.stride,
						(unsigned long)r.buf + r.size);
			}
			sib_ring_free(&r);
		}
}

/* occupancy of free-running indices: prod - cons, correct across 2^32 */
static void sib_queue_test_index_math(struct kunit *test)
{
	u32 num = 8, prod, cons;

	prod = 3;
	cons = 0xfffffffe;
	KUNIT_EXPECT_EQ(test, prod - cons, 5U);
	KUNIT_EXPECT_TRUE(test, prod - cons < num);		/* room left */
	prod = 6;
	KUNIT_EXPECT_EQ(test, prod - cons, num);		/* full */
	cons = 6;
	KUNIT_EXPECT_EQ(test, prod - cons, 0U);			/* empty */
	/* slots by mask equal slots by modulo for a power of two */
	for (prod = 0xfffffff0; prod != 0x10; prod++)
		KUNIT_EXPECT_EQ(test, prod & (num - 1), prod % num);
	/* a consumer ahead of the producer is garbage: shows as > num */
	prod = 5;
	cons = 6;
	KUNIT_EXPECT_GT(test, prod - cons, num);
}

/* a producer and a consumer on a real ring across the u32 wrap */
static void sib_queue_test_fifo_across_wrap(struct kunit *test)
{
	struct sib_ring r;
	u32 prod = 0xfffffff0, cons = 0xfffffff0, next = 0, want = 0;
	int round;

	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, 16, sizeof(u64)), 0);
	for (round = 0; round < 10; round++) {
		int n;

		/* fill until full */
		for (n = 0; prod - cons < r.num; n++, prod++)
			*(u64 *)sib_ring_entry(&r, prod) = next++;
		KUNIT_EXPECT_EQ(test, n, round ? 5 : 16);
		KUNIT_EXPECT_EQ(test, prod - cons, r.num);
		/* drain 5 in order */
		for (n = 0; n < 5; n++, cons++)
			KUNIT_EXPECT_EQ(test, *(u64 *)sib_ring_entry(&r, cons),
					(u64)want++);
	}
	/* the indices did cross the wrap */
	KUNIT_EXPECT_LT(test, prod, 0x100U);
	while (cons != prod)
		KUNIT_EXPECT_EQ(test, *(u64 *)sib_ring_entry(&r, cons++),
				(u64)want++);
	KUNIT_EXPECT_EQ(test, want, next);
	sib_ring_free(&r);
}

static void sib_queue_test_free_twice(struct kunit *test)
{
	struct sib_ring r = {};

	/* freeing an unallocated ring and freeing twice are both harmless */
	sib_ring_free(&r);
	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&r, 4, 32), 0);
	KUNIT_EXPECT_NOT_NULL(test, r.buf);
	sib_ring_free(&r);
	sib_ring_free(&r);
	KUNIT_EXPECT_NULL(test, r.buf);
	KUNIT_EXPECT_NULL(test, r.mentry);
}

static struct kunit_case sib_queue_test_cases[] = {
	KUNIT_CASE(sib_queue_test_alloc_rejects),
	KUNIT_CASE(sib_queue_test_alloc_layout),
	KUNIT_CASE(sib_queue_test_hdr_layout),
	KUNIT_CASE(sib_queue_test_entry_mask),
	KUNIT_CASE(sib_queue_test_entry_in_bounds),
	KUNIT_CASE(sib_queue_test_index_math),
	KUNIT_CASE(sib_queue_test_fifo_across_wrap),
	KUNIT_CASE(sib_queue_test_free_twice),
	{}
};

static struct kunit_suite sib_queue_test_suite = {
	.name = "softib_queue",
	.test_cases = sib_queue_test_cases,
};

kunit_test_suite(sib_queue_test_suite);
