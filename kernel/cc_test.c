// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the DCQCN reaction point's arithmetic (cc.c):
 * the cut on a CNP and its monitor period, alpha's rise and decay, the
 * fast recovery / additive / hyper increase stages, the return to full
 * speed, and the pacing credit of the token bucket.
 */
#include <kunit/test.h>

#include "cc.h"

#define US	1000ULL		/* ns */

static void sib_cc_test_defaults(u32 *prm)
{
	static const u32 def[] = {
#define SIB_CC_DEF(id, nm, d, lo, hi, u) [SIB_CC_##id] = d,
		SIB_CC_PARAM_LIST(SIB_CC_DEF)
#undef SIB_CC_DEF
	};

	memcpy(prm, def, sizeof(def));
}

static void sib_cc_test_first_cut(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];

	sib_cc_test_defaults(prm);
	KUNIT_ASSERT_TRUE(test, sib_dcqcn_cut(&rp, prm, 1000 * US));
	KUNIT_EXPECT_TRUE(test, rp.limited);
	/* from rp_max_rate 10000, alpha 1023/1024: Rc * (1 - 1023/2048) */
	KUNIT_EXPECT_EQ(test, rp.rt, 10000U);
	KUNIT_EXPECT_EQ(test, rp.rc, 5004U);
	/* alpha = 1023 * 1019 / 1024 + 5 = 1023 (rounded down, capped) */
	KUNIT_EXPECT_EQ(test, rp.alpha, 1023U);
	KUNIT_EXPECT_EQ(test, rp.t_stage, 0U);
	KUNIT_EXPECT_EQ(test, rp.b_stage, 0U);
}

static void sib_cc_test_first_rate(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];

	sib_cc_test_defaults(prm);
	prm[SIB_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = 400;
	prm[SIB_CC_RP_INITIAL_ALPHA_VALUE] = 512;
	sib_dcqcn_cut(&rp, prm, 0);
	/* 400 * (1 - 512/2048) = 300 */
	KUNIT_EXPECT_EQ(test, rp.rc, 300U);
	KUNIT_EXPECT_EQ(test, rp.rt, 400U);
	/* 512 * 1019 / 1024 + 5 = 514 */
	KUNIT_EXPECT_EQ(test, rp.alpha, 514U);
}

static void sib_cc_test_monitor_period(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];
	u32 rc;

	sib_cc_test_defaults(prm);
	sib_dcqcn_cut(&rp, prm, 1000 * US);
	rc = rp.rc;
	/* rp_rate_reduce_monitor_period is 4 us: one cut per period */
	KUNIT_EXPECT_FALSE(test, sib_dcqcn_cut(&rp, prm, 1003 * US));
	KUNIT_EXPECT_EQ(test, rp.rc, rc);
	KUNIT_EXPECT_TRUE(test, sib_dcqcn_cut(&rp, prm, 1004 * US));
	KUNIT_EXPECT_LT(test, rp.rc, rc);
	KUNIT_EXPECT_EQ(test, rp.rt, rc);
}

static void sib_cc_test_min_rate_and_dec_fac(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];
	int i;

	sib_cc_test_defaults(prm);
	prm[SIB_CC_RP_MIN_RATE] = 100;
	prm[SIB_CC_RP_MIN_DEC_FAC] = 10;	/* at most 10% per CNP */
	sib_dcqcn_cut(&rp, prm, 0);
	KUNIT_EXPECT_EQ(test, rp.rc, 9000U);
	for (i = 1; i < 200; i++)
		sib_dcqcn_cut(&rp, prm, i * 10 * US);
	KUNIT_EXPECT_EQ(test, rp.rc, 100U);
}

static void sib_cc_test_alpha_decay(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];

	sib_cc_test_defaults(prm);
	prm[SIB_CC_RP_TIME_RESET] = 1000000;	/* no timer increase here */
	sib_dcqcn_cut(&rp, prm, 0);
	KUNIT_EXPECT_EQ(test, rp.alpha, 1023U);
	/* one rp_dce_tcp_rtt (1 us): alpha * 1019 / 1024 */
	sib_dcqcn_advance(&rp, prm, 1 * US, 0, NULL, NULL);
	KUNIT_EXPECT_EQ(test, rp.alpha, 1018U);
	/* less than a period: nothing */
	sib_dcqcn_advance(&rp, prm, 1 * US + 999, 0, NULL, NULL);
	KUNIT_EXPECT_EQ(test, rp.alpha, 1018U);
	/* thousands of periods later alpha has decayed to nothing */
	sib_dcqcn_advance(&rp, prm, 5000 * US, 0, NULL, NULL);
	KUNIT_EXPECT_EQ(test, rp.alpha, 0U);
	KUNIT_EXPECT_EQ(test, rp.alpha_ns, 5000 * US);
}

static void sib_cc_test_increase_stages(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];
	u32 rt;

	sib_cc_test_defaults(prm);
	prm[SIB_CC_RP_MAX_RATE] = 1000;
	prm[SIB_CC_RP_BYTE_RESET] = 0x7fffffff;	/* timer events only */
	sib_dcqcn_cut(&rp, prm, 0);
	KUNIT_ASSERT_EQ(test, rp.rc, 500U);
	/* first timer event (T = 1 = rp_threshold): additive, Rt += 5 */
	KUNIT_EXPECT_EQ(test, sib_dcqcn_advance(&rp, prm, 300 * US, 0, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, rp.rt, 1000U);	/* capped at rp_max_rate */
	KUNIT_EXPECT_EQ(test, rp.rc, 750U);	/* (500 + 1000 + 1) / 2 */

	/* fast recovery while both counters are below rp_threshold */
	prm[SIB_CC_RP_THRESHOLD] = 5;
	sib_dcqcn_cut(&rp, prm, 400 * US);
	rt = rp.rt;
	sib_dcqcn_advance(&rp, prm, 700 * US, 0, NULL, NULL);
	KUNIT_EXPECT_EQ(test, rp.rt, rt);
	KUNIT_EXPECT_EQ(test, rp.t_stage, 1U);

	/* hyper increase once both counters passed the threshold */
	prm[SIB_CC_RP_THRESHOLD] = 1;
	prm[SIB_CC_RP_MAX_RATE] = 100000;
	rp.t_stage = 3;
	rp.b_stage = 3;
	rt = rp.rt;
	sib_dcqcn_advance(&rp, prm, 1000 * US, 0, NULL, NULL);
	/* T = 4, B = 3: Rt += (3 - 1) * rp_hai_rate */
	KUNIT_EXPECT_EQ(test, rp.rt, rt + 100);
}

static void sib_cc_test_byte_counter(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];

	sib_cc_test_defaults(prm);
	prm[SIB_CC_RP_TIME_RESET] = 1000000;
	sib_dcqcn_cut(&rp, prm, 0);
	KUNIT_EXPECT_EQ(test, sib_dcqcn_advance(&rp, prm, 0, 32766, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, sib_dcqcn_advance(&rp, prm, 0, 1, NULL, NULL), 1);
	KUNIT_EXPECT_EQ(test, rp.b_stage, 1U);
	KUNIT_EXPECT_EQ(test, rp.bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, sib_dcqcn_advance(&rp, prm, 0, 3 * 32767 + 5, NULL, NULL), 3);
	KUNIT_EXPECT_EQ(test, rp.bytes, 5ULL);
}

static void sib_cc_test_back_to_full(struct kunit *test)
{
	struct sib_cc_rp rp = {};
	u32 prm[SIB_CC_NUM_PARAMS];

	sib_cc_test_defaults(prm);
	sib_dcqcn_cut(&rp, prm, 0);
	/* a second later, without CNPs, the QP is no longer limited */
	sib_dcqcn_advance(&rp, prm, 1000000 * US, 0, NULL, NULL);
	KUNIT_EXPECT_FALSE(test, rp.limited);
	KUNIT_EXPECT_EQ(test, rp.rc, 10000U);
	/* an unlimited reaction point is left alone */
	KUNIT_EXPECT_EQ(test, sib_dcqcn_advance(&rp, prm, 2000000 * US, 1 << 20,
						NULL, NULL), 0);
}

static void sib_cc_test_credit(struct kunit *test)
{
	struct sib_cc_rp rp = { .limited = true, .rc = 80 };	/* 10 bytes/us */

	/* no credit at the start: wait until there is a byte (0.1 us) */
	KUNIT_EXPECT_EQ(test, sib_cc_credit(&rp, 0, 0), 101ULL);
	KUNIT_EXPECT_EQ(test, sib_cc_credit(&rp, 100 * US, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, rp.tokens, 1000LL);
	/* sending 1500 bytes leaves a debt of 500: 50 us */
	KUNIT_EXPECT_EQ(test, sib_cc_credit(&rp, 100 * US, 1500),
			(501ULL * 8000) / 80 + 1);
	KUNIT_EXPECT_EQ(test, sib_cc_credit(&rp, 151 * US, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, rp.tokens, 10LL);
	/* idle time saves at most 1 ms of the rate: 10000 bytes */
	sib_cc_credit(&rp, 10000000 * US, 0);
	KUNIT_EXPECT_EQ(test, rp.tokens, 10000LL);
}

static void sib_cc_test_credit_ends(struct kunit *test)
{
	struct sib_cc_rp rp = { .limited = false, .tokens = 0 };

	/* an unlimited QP never pauses */
	KUNIT_EXPECT_FALSE(test, sib_cc_credit_ends(&rp, 0, 4096));
	rp.limited = true;
	rp.tokens = 10000;
	KUNIT_EXPECT_FALSE(test, sib_cc_credit_ends(&rp, 0, 4160));
	/* bytes sent since the last charge count against the credit */
	KUNIT_EXPECT_FALSE(test, sib_cc_credit_ends(&rp, 5839, 4160));
	KUNIT_EXPECT_TRUE(test, sib_cc_credit_ends(&rp, 5840, 4160));
	/* a debt (negative credit) pauses whatever the size */
	rp.tokens = -1;
	KUNIT_EXPECT_TRUE(test, sib_cc_credit_ends(&rp, 0, 1));
}

static void sib_cc_test_burst(struct kunit *test)
{
	/* at least a few packets, 1 ms of the rate, at most 16 KiB */
	KUNIT_EXPECT_EQ(test, sib_cc_burst(1), (u32)SIB_CC_BURST_MIN_BYTES);
	KUNIT_EXPECT_EQ(test, sib_cc_burst(5), (u32)SIB_CC_BURST_MIN_BYTES);
	KUNIT_EXPECT_EQ(test, sib_cc_burst(80), 10000U);
	KUNIT_EXPECT_EQ(test, sib_cc_burst(200), (u32)SIB_CC_BURST_BYTES);
	KUNIT_EXPECT_EQ(test, sib_cc_burst(1000000), (u32)SIB_CC_BURST_BYTES);
}

/* a CNP cuts the rate of every QP that sends requests, never QP0's or QP1's */
static void sib_cc_test_rp_type(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sib_cc_rp_type(IB_QPT_RC));
	KUNIT_EXPECT_TRUE(test, sib_cc_rp_type(IB_QPT_UC));
	KUNIT_EXPECT_TRUE(test, sib_cc_rp_type(IB_QPT_UD));
	KUNIT_EXPECT_TRUE(test, sib_cc_rp_type(IB_QPT_XRC_INI));
	KUNIT_EXPECT_FALSE(test, sib_cc_rp_type(IB_QPT_XRC_TGT));
	KUNIT_EXPECT_FALSE(test, sib_cc_rp_type(IB_QPT_GSI));
	KUNIT_EXPECT_FALSE(test, sib_cc_rp_type(IB_QPT_SMI));
	KUNIT_EXPECT_FALSE(test, sib_cc_rp_type(IB_QPT_RAW_PACKET));
}

static void sib_cc_test_credit_rate(struct kunit *test)
{
	struct sib_cc_rp rp = { .limited = true, .rc = 200, .tokens = 0 };
	u64 now = 0, sent = 0;
	int i;

	/* 1 s of 1024-byte packets as fast as the credit allows: 200 Mbit/s */
	for (i = 0; i < 100000 && now < NSEC_PER_SEC; i++) {
		u64 wait = sib_cc_credit(&rp, now, 0);

		if (wait) {
			now += wait;
			continue;
		}
		sib_cc_credit(&rp, now, 1024);
		sent += 1024;
	}
	/* within 1% (each refill drops a fraction of a byte) */
	KUNIT_EXPECT_GE(test, sent, 25000000ULL - 250000);
	KUNIT_EXPECT_LE(test, sent, 25000000ULL + SIB_CC_BURST_BYTES + 1024);
}

static struct kunit_case sib_cc_test_cases[] = {
	KUNIT_CASE(sib_cc_test_burst),
	KUNIT_CASE(sib_cc_test_first_cut),
	KUNIT_CASE(sib_cc_test_first_rate),
	KUNIT_CASE(sib_cc_test_monitor_period),
	KUNIT_CASE(sib_cc_test_min_rate_and_dec_fac),
	KUNIT_CASE(sib_cc_test_alpha_decay),
	KUNIT_CASE(sib_cc_test_increase_stages),
	KUNIT_CASE(sib_cc_test_byte_counter),
	KUNIT_CASE(sib_cc_test_back_to_full),
	KUNIT_CASE(sib_cc_test_credit),
	KUNIT_CASE(sib_cc_test_credit_rate),
	KUNIT_CASE(sib_cc_test_credit_ends),
	KUNIT_CASE(sib_cc_test_rp_type),
	{}
};

static struct kunit_suite sib_cc_test_suite = {
	.name = "softib_cc",
	.test_cases = sib_cc_test_cases,
};
kunit_test_suite(sib_cc_test_suite);
