// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the timer policy in timers.c, through its API on
 * a bare QP: the local ACK timeout, nominally 4.096 us * 2^timeout
 * (IBTA 11.2.4.2; 0 = infinite), which may run up to four times the
 * nominal value and never below SIB_MIN_ACK_TIMEOUT_MS, the RNR NAK timer
 * table (IBTA 9.7.5.2.8: codes 0..31 to microseconds), and when the
 * retransmit timer is started, kept, restarted and stopped.
 *
 * The delays are read back from timer_list.expires: the timer was armed
 * at some jiffy between @before and @after, so the delay it was given
 * lies in [expires - after, expires - before].
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/math64.h>

#include "softib.h"
#include "timers.h"

static struct workqueue_struct *sib_tt_wq;

static void sib_tt_noop(struct work_struct *w)
{
}

/*
 * KUnit runs the suites of a module before its init function, so the
 * module's workqueue does not exist yet: lend one for timer callbacks.
 */
static int sib_tt_suite_init(struct kunit_suite *suite)
{
	if (!sib_wq) {
		sib_tt_wq = alloc_workqueue("sib_kunit_timers", 0, 0);
		if (!sib_tt_wq)
			return -ENOMEM;
		sib_wq = sib_tt_wq;
	}
	return 0;
}

static void sib_tt_suite_exit(struct kunit_suite *suite)
{
	if (sib_tt_wq) {
		if (sib_wq == sib_tt_wq)
			sib_wq = NULL;
		destroy_workqueue(sib_tt_wq);
		sib_tt_wq = NULL;
	}
}

static struct sib_qp *sib_tt_qp(struct kunit *test, u8 timeout)
{
	struct sib_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	INIT_WORK(&qp->work, sib_tt_noop);
	sib_timers_init(qp);
	qp->timeout = timeout;
	return qp;
}

static void sib_tt_done(struct sib_qp *qp)
{
	set_bit(SIB_QPF_DESTROYING, &qp->flags);
	sib_timers_stop(qp);
	flush_work(&qp->work);
}

/*
 * IBTA table: 1 -> 0.01 ms, 2 -> 0.02, 3 -> 0.03, 4 -> 0.04, then each
 * code doubles the one two below it; 0 -> 655.36 ms
 */
static u32 sib_tt_rnr_us(unsigned int code)
{
	static const u32 first[5] = { 655360, 10, 20, 30, 40 };

	if (code < 5)
		return first[code];
	return 2 * sib_tt_rnr_us(code - 2);
}

static void sib_tt_expect_delay(struct kunit *test, unsigned long expires,
				unsigned long before, unsigned long after,
				unsigned long want, unsigned int what)
{
	/*
	 * expires lies in [before + want, after + want]; signed, since a
	 * vCPU stalled between arming and reading @after (a loaded host)
	 * leaves after past expires, which is still right
	 */
	KUNIT_EXPECT_LE_MSG(test, (long)(expires - after), (long)want,
			    "case %u", what);
	KUNIT_EXPECT_GE_MSG(test, (long)(expires - before), (long)want,
			    "case %u", what);
}

static void sib_timers_test_rnr_table_anchors(struct kunit *test)
{
	/* spot values of the IBTA table, in microseconds */
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(0), 655360U);
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(1), 10U);
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(5), 60U);
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(14), 1280U);
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(18), 5120U);
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(24), 40960U);
	KUNIT_EXPECT_EQ(test, sib_tt_rnr_us(31), 491520U);
}

static void sib_timers_test_rnr_delay_per_code(struct kunit *test)
{
	unsigned int code;

	for (code = 0; code < 32; code++) {
		struct sib_qp *qp = sib_tt_qp(test, 14);
		unsigned long before, after, want;

		want = max(usecs_to_jiffies(sib_tt_rnr_us(code)), 1UL);
		before = jiffies;
		sib_timer_rnr_start(qp, code);
		after = jiffies;
		sib_tt_expect_delay(test, qp->rnr_timer.expires, before, after,
				    want, code);
		sib_tt_done(qp);
	}
}

static void sib_timers_test_rnr_code_masked(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);
	unsigned long before, after;

	/* only the 5-bit timer field of the syndrome counts */
	before = jiffies;
	sib_timer_rnr_start(qp, 0x20);	/* RNR class bits + code 0 */
	after = jiffies;
	KUNIT_EXPECT_TRUE(test, timer_pending(&qp->rnr_timer));
	sib_tt_expect_delay(test, qp->rnr_timer.expires, before, after,
			    usecs_to_jiffies(655360), 0x20);
	before = jiffies;
	sib_timer_rnr_start(qp, 0x3f);
	after = jiffies;
	sib_tt_expect_delay(test, qp->rnr_timer.expires, before, after,
			    usecs_to_jiffies(491520), 0x3f);
	sib_tt_done(qp);
}

/* a request went out and the QP's run ended without its ACK */
static void sib_tt_arm(struct sib_qp *qp)
{
	sib_timer_retrans_arm(qp);
	sib_timer_retrans_flush(qp);
}

/* a request ACKed within the run that sent it never starts the timers */
static void sib_timers_test_arm_deferred_to_run_end(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);

	sib_timer_retrans_arm(qp);
	KUNIT_EXPECT_FALSE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_FALSE(test, sib_timer_probe_pending(qp));
	sib_timer_retrans_progress(qp, false);	/* its ACK, same run */
	sib_timer_retrans_flush(qp);		/* the run ends */
	KUNIT_EXPECT_FALSE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_FALSE(test, sib_timer_probe_pending(qp));
	sib_timer_retrans_arm(qp);		/* the next one is not ACKed */
	sib_timer_retrans_flush(qp);
	KUNIT_EXPECT_TRUE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_TRUE(test, sib_timer_probe_pending(qp));
	sib_timer_retrans_arm(qp);		/* an error stops everything */
	sib_timer_retrans_stop(qp);
	sib_timer_retrans_flush(qp);
	KUNIT_EXPECT_FALSE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_FALSE(test, sib_timer_probe_pending(qp));
	sib_tt_done(qp);
}

static void sib_timers_test_rnr_not_when_destroying(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);

	set_bit(SIB_QPF_DESTROYING, &qp->flags);
	sib_timer_rnr_start(qp, 0);
	KUNIT_EXPECT_FALSE(test, timer_pending(&qp->rnr_timer));
	sib_tt_arm(qp);
	KUNIT_EXPECT_FALSE(test, timer_pending(&qp->retrans_timer));
	sib_timer_retrans_progress(qp, true);
	KUNIT_EXPECT_FALSE(test, timer_pending(&qp->retrans_timer));
	sib_tt_done(qp);
}

static void sib_timers_test_ack_timeout_zero_is_infinite(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 0);

	sib_tt_arm(qp);
	KUNIT_EXPECT_FALSE(test, timer_pending(&qp->retrans_timer));
	sib_timer_retrans_progress(qp, true);
	KUNIT_EXPECT_FALSE(test, timer_pending(&qp->retrans_timer));
	sib_tt_done(qp);
}

static void sib_timers_test_ack_timeout_values(struct kunit *test)
{
	static const u8 t[] = { 12, 14, 16, 18, 20, 24, 31 };
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct sib_qp *qp = sib_tt_qp(test, t[i]);
		/* 4.096 us * 2^t, computed in microseconds */
		u64 us = div_u64(4096ULL << t[i], 1000);
		unsigned long before, after, lo, hi, d;

		before = jiffies;
		sib_tt_arm(qp);
		after = jiffies;
		KUNIT_EXPECT_TRUE(test, timer_pending(&qp->retrans_timer));
		/* at least nominal, at most 4x nominal (timers.c uses 4x) */
		lo = msecs_to_jiffies(div_u64(us, 1000)) - 1;
		hi = msecs_to_jiffies(4 * (div_u64(us, 1000) + 1)) + 1;
		lo = max(lo, msecs_to_jiffies(SIB_MIN_ACK_TIMEOUT_MS));
		hi = max(hi, msecs_to_jiffies(SIB_MIN_ACK_TIMEOUT_MS));
		d = qp->retrans_timer.expires - before;
		KUNIT_EXPECT_GE_MSG(test, d, lo, "timeout %u", t[i]);
		d = qp->retrans_timer.expires - after;
		KUNIT_EXPECT_LE_MSG(test, d, hi, "timeout %u", t[i]);
		sib_tt_done(qp);
	}
}

/* tiny timeouts are raised to the floor a TCG guest needs */
static void sib_timers_test_ack_timeout_floor(struct kunit *test)
{
	unsigned long want = msecs_to_jiffies(SIB_MIN_ACK_TIMEOUT_MS);
	u8 t;

	KUNIT_EXPECT_GE(test, want, 1UL);
	for (t = 1; t <= 8; t++) {	/* 8.192 us .. 1.05 ms */
		struct sib_qp *qp = sib_tt_qp(test, t);
		unsigned long before, after;

		before = jiffies;
		sib_tt_arm(qp);
		after = jiffies;
		sib_tt_expect_delay(test, qp->retrans_timer.expires, before,
				    after, want, t);
		sib_tt_done(qp);
	}
}

/* arming again while the timer runs does not push it back */
static void sib_timers_test_arm_keeps_running_timer(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);
	unsigned long far = jiffies + 1000 * HZ;

	mod_timer(&qp->retrans_timer, far);
	sib_tt_arm(qp);
	KUNIT_EXPECT_EQ(test, qp->retrans_timer.expires, far);
	KUNIT_EXPECT_TRUE(test, timer_pending(&qp->retrans_timer));
	sib_tt_done(qp);
}

/* progress restarts the full period; no outstanding packets stop it */
static void sib_timers_test_progress_restart_and_stop(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 18);	/* ~1.07 s */
	unsigned long far = jiffies + 1000 * HZ, before, after;

	mod_timer(&qp->retrans_timer, far);
	before = jiffies;
	sib_timer_retrans_progress(qp, true);
	after = jiffies;
	KUNIT_EXPECT_TRUE(test, timer_pending(&qp->retrans_timer));
	KUNIT_EXPECT_NE(test, qp->retrans_timer.expires, far);
	KUNIT_EXPECT_GE(test, qp->retrans_timer.expires - before,
			msecs_to_jiffies(1073) - 1);
	KUNIT_EXPECT_LE(test, qp->retrans_timer.expires - after,
			msecs_to_jiffies(4 * 1074) + 1);
	sib_timer_retrans_progress(qp, false);
	KUNIT_EXPECT_FALSE(test, timer_pending(&qp->retrans_timer));
	sib_tt_done(qp);
}

/*
 * An expiry waits for the QP's work, which first takes the ACKs already
 * received: a send in between must not start the timers again, only
 * progress does, and then the expiry is stale (the timer runs again).
 */
static void sib_timers_test_expiry_stale_after_progress(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);

	/* both fired, their flags wait for the work */
	set_bit(SIB_QPF_TIMEOUT, &qp->flags);
	set_bit(SIB_QPF_PROBE, &qp->flags);
	sib_tt_arm(qp);		/* a packet went out */
	KUNIT_EXPECT_FALSE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_FALSE(test, sib_timer_probe_pending(qp));
	sib_timer_retrans_progress(qp, true);	/* then an ACK made progress */
	KUNIT_EXPECT_TRUE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_TRUE(test, sib_timer_probe_pending(qp));
	/* judged and stopped: the next send starts both */
	clear_bit(SIB_QPF_TIMEOUT, &qp->flags);
	clear_bit(SIB_QPF_PROBE, &qp->flags);
	sib_timer_retrans_stop(qp);
	sib_tt_arm(qp);
	KUNIT_EXPECT_TRUE(test, sib_timer_retrans_pending(qp));
	KUNIT_EXPECT_TRUE(test, sib_timer_probe_pending(qp));
	sib_tt_done(qp);
}

/*
 * A measured round trip stretches the local ACK timer on a slow host:
 * at least 2 (srtt + 4 rttvar), capped, never below the IBTA-based value.
 */
static void sib_timers_test_ack_timeout_rtt_floor(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);	/* 4 x 67.1 ms */

	KUNIT_EXPECT_EQ(test, sib_timer_ack_timeout_ms(qp),
			jiffies_to_msecs(nsecs_to_jiffies(4ULL * 67108864)));
	qp->req.win.srtt_us = 1000;			/* fast: nominal wins */
	qp->req.win.rttvar_us = 500;
	KUNIT_EXPECT_EQ(test, sib_timer_ack_timeout_ms(qp),
			jiffies_to_msecs(nsecs_to_jiffies(4ULL * 67108864)));
	qp->req.win.srtt_us = 200000;			/* 200 ms +- 50 ms */
	qp->req.win.rttvar_us = 50000;
	KUNIT_EXPECT_EQ(test, sib_timer_ack_timeout_ms(qp),
			jiffies_to_msecs(msecs_to_jiffies(800)));
	qp->req.win.srtt_us = 1000000;			/* capped */
	KUNIT_EXPECT_EQ(test, sib_timer_ack_timeout_ms(qp),
			jiffies_to_msecs(msecs_to_jiffies(SIB_ACK_TIMEOUT_RTT_MAX_MS)));
	sib_tt_done(qp);
}

/*
 * READs are asked for in chunks of the send window (a power of two in
 * 8..256 responses), fixed per WQE; chunk borders fall on multiples.
 */
static void sib_timers_test_read_chunks(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);
	struct sib_swqe sw = { .npkts = 100 };

	KUNIT_EXPECT_EQ(test, sib_win_read_chunk(qp), 16);	/* initial */
	qp->req.win.cwnd = 100;
	KUNIT_EXPECT_EQ(test, sib_win_read_chunk(qp), 64);
	qp->req.win.cwnd = 512;
	KUNIT_EXPECT_EQ(test, sib_win_read_chunk(qp), SIB_READ_CHUNK_MAX);
	qp->req.win.max_psn = 0;
	sib_win_loss(qp, true);					/* cwnd 2 */
	KUNIT_EXPECT_EQ(test, sib_win_read_chunk(qp), SIB_READ_CHUNK_MIN);
	sw.rd_chunk = 32;
	KUNIT_EXPECT_EQ(test, sib_read_chunk_end(&sw, 0), 32U);
	KUNIT_EXPECT_EQ(test, sib_read_chunk_end(&sw, 31), 32U);
	KUNIT_EXPECT_EQ(test, sib_read_chunk_end(&sw, 32), 64U);
	KUNIT_EXPECT_EQ(test, sib_read_chunk_end(&sw, 99), 128U); /* caller caps */
	sw.rd_chunk = 0;					/* not chunked */
	KUNIT_EXPECT_EQ(test, sib_read_chunk_end(&sw, 5), 100U);
	sib_tt_done(qp);
}

/* a backed-off probe still fires at half the local ACK timer's period */
static void sib_timers_test_probe_within_ack_timeout(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);	/* 4 x 67.1 ms */
	s64 left;

	qp->req.win.probes = 9;
	sib_timer_probe_rearm(qp);			/* 2 ms << 10 */
	KUNIT_EXPECT_TRUE(test, sib_timer_probe_pending(qp));
	left = ktime_to_ns(hrtimer_get_remaining(&qp->probe_timer));
	KUNIT_EXPECT_LE(test, left, 2LL * 67108864);
	KUNIT_EXPECT_GT(test, left, 2LL * 67108864 - 50LL * NSEC_PER_MSEC);
	sib_tt_done(qp);
}

/*
 * A small local ACK timeout (timeout 4: 4 x 65.5 us nominal) runs at the
 * SIB_MIN_ACK_TIMEOUT_MS floor; the probe keeps its own 2 ms minimum and
 * stays within half of that floor-raised period, fresh and backed off.
 */
static void sib_timers_test_probe_small_timeout(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 4);
	u64 half = jiffies_to_nsecs(msecs_to_jiffies(SIB_MIN_ACK_TIMEOUT_MS)) / 2;
	s64 left;
	u32 probes;

	for (probes = 0; probes <= 3; probes++) {
		qp->req.win.probes = probes;
		sib_timer_probe_rearm(qp);		/* backed off probes + 1 */
		KUNIT_EXPECT_TRUE(test, sib_timer_probe_pending(qp));
		left = ktime_to_ns(hrtimer_get_remaining(&qp->probe_timer));
		KUNIT_EXPECT_GE_MSG(test, left,
				    min_t(s64, 2000LL * NSEC_PER_USEC, half) -
				    (s64)NSEC_PER_MSEC, "probes %u", probes);
		KUNIT_EXPECT_LE_MSG(test, left, (s64)half, "probes %u", probes);
	}
	sib_tt_done(qp);
}

/*
 * RTT samples (Karn): a sample ends with its packet resent, not with an
 * older packet resent; a loss probe ends it too, except the QP's first
 * (a queued path must get one).
 */
static void sib_timers_test_rtt_sample_rules(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);
	struct sib_rc_window *w = &qp->req.win;

	/* a resent packet is counted: the device's counters */
	qp->dev = kunit_kzalloc(test, sizeof(*qp->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->dev);
	KUNIT_ASSERT_EQ(test, sib_counters_alloc(qp->dev), 0);
	qp->req.psn = 100;
	sib_win_sent(qp, 100, true);		/* the first sample starts */
	KUNIT_EXPECT_TRUE(test, w->rtt_on);
	KUNIT_EXPECT_EQ(test, w->rtt_psn, 100U);
	sib_win_probe(qp, false);		/* no sample yet: kept */
	KUNIT_EXPECT_TRUE(test, w->rtt_on);
	sib_win_sent(qp, 100, false);		/* its packet resent: ended */
	KUNIT_EXPECT_FALSE(test, w->rtt_on);
	sib_win_sent(qp, 101, true);
	sib_win_acked(qp, 101, 2);		/* the first sample */
	KUNIT_EXPECT_GT(test, w->srtt_us, 0U);
	sib_win_sent(qp, 102, true);
	KUNIT_EXPECT_TRUE(test, w->rtt_on);
	sib_win_sent(qp, 101, false);		/* an older packet resent: kept */
	KUNIT_EXPECT_TRUE(test, w->rtt_on);
	sib_win_probe(qp, false);		/* a later probe ends it */
	KUNIT_EXPECT_FALSE(test, w->rtt_on);
	KUNIT_EXPECT_EQ(test, sib_counter_read(qp->dev, SIB_CNT_RETRANS_PKTS),
			2ULL);
	sib_tt_done(qp);
	sib_counters_free(qp->dev);
}

/*
 * the send window: starts at 16, halves once per window, 2 after a
 * timeout; AckReq every half window, but not more often than every 4
 */
static void sib_timers_test_window_loss(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);

	qp->req.psn = 0xfffff0;		/* across the 24-bit wrap */
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 15));
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 16));
	KUNIT_EXPECT_EQ(test, sib_win_ackreq_every(qp), 8U);
	qp->req.win.max_psn = 0x000010;	/* 32 packets sent */
	sib_win_loss(qp, false);
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 7));
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 8));
	KUNIT_EXPECT_EQ(test, sib_win_ackreq_every(qp), 4U);
	/* a second NAK in the same window does not cut again */
	sib_win_loss(qp, false);
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 7));
	/* no growth before the recovery point is acknowledged */
	sib_win_acked(qp, 0xfffff8, 8);
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 8));
	/* a timeout always cuts, to the minimum */
	sib_win_loss(qp, true);
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 1));
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 2));
	KUNIT_EXPECT_EQ(test, sib_win_ackreq_every(qp), 4U);	/* a full window asks */
	sib_tt_done(qp);
}

/* ACKs past the recovery point grow the window again, up to ssthresh fast */
static void sib_timers_test_window_growth(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);

	qp->req.win.max_psn = 0;
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 0));
	qp->req.win.max_psn = 100;
	sib_win_loss(qp, false);		/* cwnd 8, ssthresh 8 */
	sib_win_acked(qp, 99, 1);		/* recovery over */
	KUNIT_EXPECT_FALSE(test, qp->req.win.recovering);
	sib_win_acked(qp, 107, 8);		/* one window: +1 */
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 8));
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 9));
	KUNIT_EXPECT_EQ(test, sib_win_next_psn(qp), 100U);
	sib_tt_done(qp);
}

/* an ACK for @npkts packets up to @psn whose round trip took @us */
static void sib_tt_ack_after(struct sib_qp *qp, u32 psn, u32 npkts, u32 us)
{
	sib_win_rtt_sample(qp, us);
	sib_win_acked(qp, psn, npkts);
}

/*
 * a round trip SIB_QDELAY_US above the lowest one holds a window of at
 * least SIB_WIN_INIT (slow start ends there), never shrinks it; growth
 * goes on once the samples and their average are near the lowest again
 */
static void sib_timers_test_window_queue(struct kunit *test)
{
	struct sib_qp *qp = sib_tt_qp(test, 14);
	struct sib_rc_window *w = &qp->req.win;
	u32 i, psn = 0;

	qp->req.win.max_psn = 0;
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 15));	/* cwnd 16 */
	sib_tt_ack_after(qp, psn += 4, 4, 300);		/* slow start: +4 */
	KUNIT_EXPECT_EQ(test, w->min_rtt_us, 300U);
	KUNIT_EXPECT_EQ(test, w->cwnd, 20U);
	sib_tt_ack_after(qp, psn += 4, 4, 300 + SIB_QDELAY_US + 1);
	KUNIT_EXPECT_TRUE(test, w->queued);
	KUNIT_EXPECT_EQ(test, w->cwnd, 20U);		/* held, not cut */
	KUNIT_EXPECT_EQ(test, w->ssthresh, 20U);	/* slow start over */
	/* a lone quick sample does not end the hold: the average is high */
	sib_tt_ack_after(qp, psn += 8, 8, 900 + 8 * SIB_QDELAY_US);
	sib_tt_ack_after(qp, psn += 8, 8, 310);
	KUNIT_EXPECT_TRUE(test, w->queued);
	KUNIT_EXPECT_EQ(test, w->cwnd, 20U);
	/* the queue drained: one packet per window again */
	for (i = 0; i < 40 && w->queued; i++)
		sib_tt_ack_after(qp, psn += 1, 1, 300);
	KUNIT_EXPECT_FALSE(test, w->queued);
	for (i = 0; i < 20; i++)
		sib_tt_ack_after(qp, psn += 1, 1, 300 + SIB_QDELAY_US);
	KUNIT_EXPECT_FALSE(test, w->queued);		/* at the limit, not above */
	KUNIT_EXPECT_EQ(test, w->cwnd, 21U);
	/* a lower sample is the new lowest at once */
	sib_tt_ack_after(qp, psn += 1, 1, 200);
	KUNIT_EXPECT_EQ(test, w->min_rtt_us, 200U);
	/* below the initial window a queue does not hold it */
	qp->req.win.max_psn = psn + 1;
	sib_win_loss(qp, false);			/* cwnd 10 */
	sib_win_acked(qp, psn += 1, 1);			/* recovery over */
	for (i = 0; i < 10; i++)
		sib_tt_ack_after(qp, psn += 1, 1, 200 + 2 * SIB_QDELAY_US);
	KUNIT_EXPECT_TRUE(test, w->queued);
	KUNIT_EXPECT_EQ(test, w->cwnd, 11U);
	/* a lowest sample is kept for the period after its own, then dropped */
	w->min_period = jiffies - (SIB_MIN_RTT_KEEP_S + 1) * HZ;
	sib_win_rtt_sample(qp, 700);
	KUNIT_EXPECT_EQ(test, w->min_rtt_us, 200U);
	w->min_period = jiffies - (SIB_MIN_RTT_KEEP_S + 1) * HZ;
	sib_win_rtt_sample(qp, 800);
	KUNIT_EXPECT_EQ(test, w->min_rtt_us, 700U);
	sib_tt_done(qp);
}

static struct kunit_case sib_timers_test_cases[] = {
	KUNIT_CASE(sib_timers_test_rtt_sample_rules),
	KUNIT_CASE(sib_timers_test_window_loss),
	KUNIT_CASE(sib_timers_test_window_growth),
	KUNIT_CASE(sib_timers_test_window_queue),
	KUNIT_CASE(sib_timers_test_rnr_table_anchors),
	KUNIT_CASE(sib_timers_test_rnr_delay_per_code),
	KUNIT_CASE(sib_timers_test_rnr_code_masked),
	KUNIT_CASE(sib_timers_test_rnr_not_when_destroying),
	KUNIT_CASE(sib_timers_test_ack_timeout_zero_is_infinite),
	KUNIT_CASE(sib_timers_test_ack_timeout_values),
	KUNIT_CASE(sib_timers_test_ack_timeout_floor),
	KUNIT_CASE(sib_timers_test_arm_keeps_running_timer),
	KUNIT_CASE(sib_timers_test_arm_deferred_to_run_end),
	KUNIT_CASE(sib_timers_test_progress_restart_and_stop),
	KUNIT_CASE(sib_timers_test_expiry_stale_after_progress),
	KUNIT_CASE(sib_timers_test_ack_timeout_rtt_floor),
	KUNIT_CASE(sib_timers_test_read_chunks),
	KUNIT_CASE(sib_timers_test_probe_within_ack_timeout),
	KUNIT_CASE(sib_timers_test_probe_small_timeout),
	{}
};

static struct kunit_suite sib_timers_test_suite = {
	.name = "softib_timers",
	.suite_init = sib_tt_suite_init,
	.suite_exit = sib_tt_suite_exit,
	.test_cases = sib_timers_test_cases,
};

kunit_test_suite(sib_timers_test_suite);
