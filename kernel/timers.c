// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: all timer and retransmission policy of the RC transport.
 *
 * Local ACK timer (IBTA 9.7.6.1.3): runs while an RC QP has request
 * packets that are not acknowledged; restarted only by an
 * acknowledgement that makes progress; its period is four times the
 * nominal local ACK timeout 4.096 us * 2^timeout (IBTA 11.2.4.2; timeout
 * 0 = infinite; the spec lets the timer run longer than nominal) and
 * never below SIB_MIN_ACK_TIMEOUT_MS, because a TCG guest can stall for
 * milliseconds, nor below twice the measured round trip (2 (srtt + 4
 * rttvar), at most SIB_ACK_TIMEOUT_RTT_MAX_MS): a slow host must not look
 * like a lossy one. Only its expiry counts against retry_cnt, and an
 * expiry is judged after the ACKs already received (task.c).
 * Loss probe: an hrtimer of a few smoothed round-trip times (at least
 * 2 ms, which TCG scheduling jitter rarely exceeds; backed off on every
 * expiry without progress). RTT is measured once per round trip on an
 * ACKed packet that was sent once (Karn: a sample ends when its packet is
 * sent again), with the monotonic clock (local_clock() differs between
 * CPUs by milliseconds in a TCG guest, and a QP's run moves). A probe
 * also ends the running sample: its ACK may have been lost, and the
 * next one, after the recovery, would tell the recovery's time (kept,
 * such samples made srtt and so the probe period grow on a lossy path
 * until recovery took seconds). Not the QP's first sample, though: on a
 * path whose queue is longer than the first probe periods the QP would
 * never get one, and would probe every 2 ms.
 * Both timers start when the QP's run ends
 * (sib_timer_retrans_flush()), so a request ACKed within the run, as on
 * loopback, never touches them. When it fires the requester sends
 * its oldest unacknowledged packet again, asking for an ACK, and sends
 * nothing more until an answer (comp.c), instead of waiting for the much
 * longer local ACK timeout. The responder answers that packet whatever
 * was lost: as a duplicate with the newest PSN it placed, or as the packet
 * it expects; only a newer one could go unanswered, since after a
 * sequence NAK the responder drops every later packet silently (IBTA
 * 9.7.5.1.2: one NAK per gap), and a lost NAK or a lost retransmission
 * would then cost a second probe period. The answer tells what to send
 * again: nothing when only ACKs were lost, otherwise everything after
 * it (go-back-N), with the window halved. Backed off, the probe still
 * fires at half the local ACK timer's period, so every retry has a
 * second chance. It never touches retry_cnt.
 * Send window: packets in flight are bounded by cwnd, halved (at most
 * once per window of data) on a sequence NAK, a timeout, a probe that
 * follows one without answer or an answer that shows a loss, and
 * grown by the ACKed packets (doubling per RTT up to ssthresh, then one
 * packet per window). Go-back-N resends everything in flight after a
 * loss, so a small window on a lossy path keeps the resent packets few.
 * For the same reason a window of SIB_WIN_INIT or more stops growing
 * while round trips show a queue on the path (the last sample or the
 * smoothed RTT more than SIB_QDELAY_US above the lowest sample of the
 * last one or two periods of SIB_MIN_RTT_KEEP_S): growing into a full
 * buffer ends in a drop, and a drop costs everything in flight behind
 * it. Slow start ends there too (ssthresh = cwnd). A queue never shrinks
 * the window (a scheduling stall costs no throughput), nor holds a
 * smaller one: many QPs sharing one path see each other's queue, and
 * holding their small windows there starved them (SEND with 8 QPs
 * between two TCG guests: 0.33 against 0.55 Gb/s); their losses cost
 * little to resend.
 * RNR timer: one shot, the delay the responder asked for in its RNR NAK
 * (IBTA 9.7.5.2.8, table 45).
 * The callbacks only set a flag and schedule the QP's work; the engines
 * decide what an expiry means.
 */
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include <linux/log2.h>

#include "timers.h"
#include "psn.h"
#include "hdr.h"

/* RNR NAK timer field -> microseconds (IBTA table 45) */
static const u32 sib_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

#define SIB_WIN_INIT		16	/* packets */
#define SIB_WIN_MIN		2
#define SIB_PROBE_MIN_US	2000
#define SIB_PROBE_FIRST_US	2000	/* before the first RTT sample */

static void sib_timer_kick(struct sib_qp *qp)
{
	if (!test_bit(SIB_QPF_DESTROYING, &qp->flags))
		queue_work(sib_wq, &qp->work);
}

static void sib_retrans_expired(struct timer_list *t)
{
	struct sib_qp *qp = from_timer(qp, t, retrans_timer);

	set_bit(SIB_QPF_TIMEOUT, &qp->flags);
	sib_timer_kick(qp);
}

static void sib_rnr_expired(struct timer_list *t)
{
	struct sib_qp *qp = from_timer(qp, t, rnr_timer);

	set_bit(SIB_QPF_RNR_DONE, &qp->flags);
	sib_timer_kick(qp);
}

static enum hrtimer_restart sib_probe_expired(struct hrtimer *t)
{
	struct sib_qp *qp = container_of(t, struct sib_qp, probe_timer);

	set_bit(SIB_QPF_PROBE, &qp->flags);
	sib_timer_kick(qp);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart sib_pace_expired(struct hrtimer *t)
{
	struct sib_qp *qp = container_of(t, struct sib_qp, pace_timer);

	sib_timer_kick(qp);
	return HRTIMER_NORESTART;
}

/**
 * sib_timer_pace_arm() - run the QP again when its pacing credit is back
 * @qp: a QP whose requester stopped for lack of credit (cc.c)
 * @ns: from now
 *
 * One timer per QP, started only while the QP is rate limited and out
 * of credit; a timer already running is left alone (it fires earlier or
 * about as late, and the run asks again).
 * Context: the QP's run.
 */
void sib_timer_pace_arm(struct sib_qp *qp, u64 ns)
{
	/* destroy stops the timers after the last run: none starts then */
	if (test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return;
	if (!hrtimer_active(&qp->pace_timer))
		hrtimer_start(&qp->pace_timer, ns_to_ktime(ns),
			      HRTIMER_MODE_REL_SOFT);
}

static u64 sib_ack_timeout_ns(struct sib_qp *qp)
{
	/* 4x the nominal value: TCG guests are jittery (see above) */
	return (4096ULL << min_t(u8, qp->timeout, 31)) * 4;
}

/*
 * The measured round trip, as a lower bound of the local ACK timer: on a
 * slow or overloaded host (a debug kernel under TCG moves a few hundred
 * packets per second) the responder's answer can take longer than the
 * nominal timeout without anything being lost, and a timer that fires
 * then only resends what is already queued there.
 */
static u64 sib_ack_timeout_rtt_ns(struct sib_qp *qp)
{
	const struct sib_rc_window *w = &qp->req.win;
	u64 us;

	if (!w->srtt_us)
		return 0;
	us = 2ULL * (w->srtt_us + 4ULL * w->rttvar_us);
	return min_t(u64, us, SIB_ACK_TIMEOUT_RTT_MAX_MS * USEC_PER_MSEC) *
	       NSEC_PER_USEC;
}

static unsigned long sib_ack_timeout(struct sib_qp *qp)
{
	u64 ns = max(sib_ack_timeout_ns(qp), sib_ack_timeout_rtt_ns(qp));
	unsigned long j = nsecs_to_jiffies(ns);

	return max(j, msecs_to_jiffies(SIB_MIN_ACK_TIMEOUT_MS));
}

/**
 * sib_timer_ack_timeout_ms() - the period the local ACK timer runs now
 * @qp: RC QP with a non-zero timeout
 *
 * Four times the nominal 4.096 us * 2^timeout, at least
 * SIB_MIN_ACK_TIMEOUT_MS, and at least twice the smoothed round trip
 * plus four deviations (capped at SIB_ACK_TIMEOUT_RTT_MAX_MS).
 * Context: any. Return: milliseconds.
 */
unsigned int sib_timer_ack_timeout_ms(struct sib_qp *qp)
{
	return jiffies_to_msecs(sib_ack_timeout(qp));
}

/**
 * sib_timers_init() - set up the timers of a new QP
 * @qp: QP
 *
 * Context: process.
 */
void sib_timers_init(struct sib_qp *qp)
{
	timer_setup(&qp->retrans_timer, sib_retrans_expired, 0);
	timer_setup(&qp->rnr_timer, sib_rnr_expired, 0);
	hrtimer_init(&qp->probe_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->probe_timer.function = sib_probe_expired;
	hrtimer_init(&qp->pace_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->pace_timer.function = sib_pace_expired;
}

/**
 * sib_timers_stop() - stop all timers and wait for running callbacks
 * @qp: QP
 *
 * Context: process.
 */
void sib_timers_stop(struct sib_qp *qp)
{
	del_timer_sync(&qp->retrans_timer);
	del_timer_sync(&qp->rnr_timer);
	hrtimer_cancel(&qp->probe_timer);
	hrtimer_cancel(&qp->pace_timer);
}

static void sib_win_cut(struct sib_rc_window *w, bool timeout);

static struct sib_rc_window *sib_win(struct sib_qp *qp)
{
	struct sib_rc_window *w = &qp->req.win;

	if (!w->cwnd) {
		w->cwnd = SIB_WIN_INIT;
		w->ssthresh = SIB_MAX_INFLIGHT_PKTS;
		w->max_psn = qp->req.psn;
	}
	return w;
}

/* probe period: 2 srtt + 4 rttvar, at least SIB_PROBE_MIN_US, backed off */
static u64 sib_probe_ns(struct sib_qp *qp)
{
	struct sib_rc_window *w = sib_win(qp);
	u64 us = w->srtt_us ? 2ULL * w->srtt_us + 4ULL * w->rttvar_us :
		 SIB_PROBE_FIRST_US;

	us = max_t(u64, us, SIB_PROBE_MIN_US) << min_t(u32, w->probes, 10);
	return us * NSEC_PER_USEC;
}

static void sib_probe_arm(struct sib_qp *qp, bool restart)
{
	u64 ns;

	if (test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return;
	/* an expiry not yet judged: only progress may start it again */
	if (!restart && (hrtimer_active(&qp->probe_timer) ||
			 test_bit(SIB_QPF_PROBE, &qp->flags)))
		return;
	ns = sib_probe_ns(qp);
	/*
	 * Within the local ACK timer's period as it runs (with its floors,
	 * see sib_ack_timeout()): at least one probe between two expiries,
	 * so that one lost resend (or its ACK) does not cost a retry; on a
	 * lossy path a retry each of which has only one chance would run
	 * out of retry_cnt too often. Half the nominal value alone would
	 * undercut SIB_PROBE_MIN_US for a small timeout (timeout 4: 131 us)
	 * and send everything in flight again every few hundred us.
	 */
	if (qp->timeout)
		ns = min(ns, jiffies_to_nsecs(sib_ack_timeout(qp)) / 2);
	hrtimer_start(&qp->probe_timer, ns_to_ktime(ns), HRTIMER_MODE_REL_SOFT);
}

/**
 * sib_timer_retrans_arm() - a request packet went out
 * @qp: RC QP
 *
 * The local ACK timer and the loss probe start (unless they run already)
 * when the QP's run ends, sib_timer_retrans_flush(), not now: on
 * loopback the ACK is usually handled in the same run, and then neither
 * timer is touched at all (starting an hrtimer reads the clocksource,
 * which in a TCG guest is an emulated HPET). Both periods are
 * milliseconds, a run's rounds microseconds. Context: the QP's run.
 */
void sib_timer_retrans_arm(struct sib_qp *qp)
{
	/* atomic: the timer callbacks set other bits of qp->flags */
	if (!test_bit(SIB_QPF_ARM, &qp->flags))
		set_bit(SIB_QPF_ARM, &qp->flags);
}

static void sib_timer_arm_cancel(struct sib_qp *qp)
{
	if (test_bit(SIB_QPF_ARM, &qp->flags))
		clear_bit(SIB_QPF_ARM, &qp->flags);
}

/**
 * sib_timer_retrans_flush() - start the timers sib_timer_retrans_arm() asked for
 * @qp: QP
 *
 * Called by the QP's runner after a round's received packets were
 * handled and before it stops. Context: the QP's run.
 */
void sib_timer_retrans_flush(struct sib_qp *qp)
{
	if (!test_bit(SIB_QPF_ARM, &qp->flags))
		return;
	clear_bit(SIB_QPF_ARM, &qp->flags);
	if (test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return;
	sib_probe_arm(qp, false);
	if (qp->timeout && !timer_pending(&qp->retrans_timer) &&
	    !test_bit(SIB_QPF_TIMEOUT, &qp->flags))
		mod_timer(&qp->retrans_timer, jiffies + sib_ack_timeout(qp));
}

/**
 * sib_timer_retrans_pending() - is the local ACK timer running?
 * @qp: RC QP
 *
 * After an expiry the timer runs again only when an acknowledgement made
 * progress (sib_timer_retrans_progress()); sends do not start it while an
 * expiry waits to be judged. So an expiry found with the timer running
 * is stale: the QP's work ignores it.
 * Context: the QP's run. Return: true when the timer is pending.
 */
bool sib_timer_retrans_pending(struct sib_qp *qp)
{
	return timer_pending(&qp->retrans_timer);
}

/**
 * sib_timer_probe_pending() - is the loss probe running?
 * @qp: RC QP
 *
 * Like sib_timer_retrans_pending() for the loss probe: after an expiry
 * only progress starts it again. Context: the QP's run.
 * Return: true when the probe timer is queued.
 */
bool sib_timer_probe_pending(struct sib_qp *qp)
{
	return hrtimer_is_queued(&qp->probe_timer);
}

/**
 * sib_timer_retrans_progress() - an acknowledgement made progress
 * @qp: RC QP
 * @outstanding: packets are still unacknowledged
 *
 * Restarts (or, with nothing outstanding, stops) the local ACK timer
 * and the loss probe, whose backoff starts over; the send window is
 * open again after a probe.
 * Context: the QP's run.
 */
void sib_timer_retrans_progress(struct sib_qp *qp, bool outstanding)
{
	qp->req.win.probes = 0;
	qp->req.win.probing = false;
	sib_timer_arm_cancel(qp);
	if (outstanding && !test_bit(SIB_QPF_DESTROYING, &qp->flags)) {
		sib_probe_arm(qp, true);
		if (qp->timeout)
			mod_timer(&qp->retrans_timer,
				  jiffies + sib_ack_timeout(qp));
	} else {
		/* usually neither runs (loopback): no timer base lock */
		if (timer_pending(&qp->retrans_timer))
			del_timer(&qp->retrans_timer);
		if (hrtimer_is_queued(&qp->probe_timer))
			hrtimer_try_to_cancel(&qp->probe_timer);
	}
}

/**
 * sib_timer_probe_rearm() - the loss probe fired and packets were resent
 * @qp: RC QP
 *
 * Backs the probe off (doubles its period) and starts it again; the
 * local ACK timer keeps running untouched.
 * Context: the QP's run.
 */
void sib_timer_probe_rearm(struct sib_qp *qp)
{
	qp->req.win.probes++;
	sib_probe_arm(qp, true);
}

/**
 * sib_timer_retrans_stop() - nothing to wait for any more (error, RNR)
 * @qp: RC QP
 *
 * The loss probe's backoff starts over, and its limit on the window ends.
 *
 * Context: the QP's run.
 */
void sib_timer_retrans_stop(struct sib_qp *qp)
{
	qp->req.win.probes = 0;
	qp->req.win.probing = false;
	sib_timer_arm_cancel(qp);
	del_timer(&qp->retrans_timer);
	hrtimer_try_to_cancel(&qp->probe_timer);
}

/**
 * sib_timer_rnr_start() - wait before resending after an RNR NAK
 * @qp: RC QP
 * @code: 5-bit RNR timer code from the AETH (IBTA table 45)
 *
 * Context: the QP's run.
 */
void sib_timer_rnr_start(struct sib_qp *qp, u8 code)
{
	unsigned long j = usecs_to_jiffies(sib_rnr_usecs[code & 31]);

	if (test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return;
	mod_timer(&qp->rnr_timer, jiffies + max(j, 1UL));
}

/**
 * sib_rnr_timer_usecs() - the RNR NAK delay an AETH timer code stands for
 * @code: 5-bit RNR timer field (IBTA table 45)
 *
 * Context: any. Return: microseconds (code 0 is 655.36 ms).
 */
u32 sib_rnr_timer_usecs(u8 code)
{
	return sib_rnr_usecs[code & 31];
}

/**
 * sib_win_may_send() - may the requester send one more request packet?
 * @qp: RC QP
 * @inflight: request packets sent and not yet acknowledged
 *
 * Context: the QP's run. Return: true when @inflight is below the send
 * window, or while a loss probe waits for its answer (sib_win_probe()),
 * when nothing is in flight.
 */
bool sib_win_may_send(struct sib_qp *qp, u32 inflight)
{
	struct sib_rc_window *w = sib_win(qp);

	return inflight < (w->probing ? 1 : w->cwnd);
}

/**
 * sib_win_read_chunk() - responses to ask for per RDMA READ request
 * @qp: RC QP
 *
 * The send window rounded down to a power of two, within
 * SIB_READ_CHUNK_MIN..SIB_READ_CHUNK_MAX: READ responses in flight are
 * then bounded like request packets. Context: the QP's run.
 * Return: packets.
 */
u16 sib_win_read_chunk(struct sib_qp *qp)
{
	return clamp_t(u32, rounddown_pow_of_two(sib_win(qp)->cwnd),
		       SIB_READ_CHUNK_MIN, SIB_READ_CHUNK_MAX);
}

/**
 * sib_win_ackreq_every() - how often to set AckReq in a message
 * @qp: RC QP
 *
 * Half a window, so that ACKs come back before the window is full, and
 * at most SIB_ACK_REQ_EVERY packets. Context: the QP's run.
 * Return: packets (>= 1).
 */
u32 sib_win_ackreq_every(struct sib_qp *qp)
{
	return clamp_t(u32, sib_win(qp)->cwnd / 2, SIB_ACK_REQ_MIN,
		       SIB_ACK_REQ_EVERY);
}

/**
 * sib_win_sent() - a request packet with PSN @psn went out
 * @qp: RC QP
 * @psn: its PSN
 * @ackreq: it asks for an ACK
 *
 * Counts retransmitted packets and starts an RTT sample on a packet
 * sent for the first time. Context: the QP's run.
 */
void sib_win_sent(struct sib_qp *qp, u32 psn, bool ackreq)
{
	struct sib_rc_window *w = sib_win(qp);

	if (sib_psn_cmp(psn, w->max_psn) < 0) {
		sib_counter_inc(qp->dev, SIB_CNT_RETRANS_PKTS);
		/* Karn: an ACK would not tell which copy it answers */
		if (psn == w->rtt_psn)
			w->rtt_on = false;
		return;
	}
	w->max_psn = sib_psn_add(psn, 1);
	if (ackreq && !w->rtt_on) {
		w->rtt_on = true;
		w->rtt_psn = psn;
		w->rtt_start = ktime_get_ns();
	}
}

/**
 * sib_win_span_sent() - a READ request covering PSNs up to @last went out
 * @qp: RC QP
 * @last: the PSN of its last response
 *
 * Context: the QP's run.
 */
void sib_win_span_sent(struct sib_qp *qp, u32 last)
{
	struct sib_rc_window *w = sib_win(qp);

	if (sib_psn_cmp(last, w->max_psn) >= 0)
		w->max_psn = sib_psn_add(last, 1);
}

/**
 * sib_win_next_psn() - one past the newest PSN ever sent
 * @qp: RC QP
 *
 * After a go-back qp->req.psn is behind it. Context: the QP's run.
 * Return: PSN.
 */
u32 sib_win_next_psn(struct sib_qp *qp)
{
	struct sib_rc_window *w = &qp->req.win;

	if (!w->cwnd || sib_psn_cmp(qp->req.psn, w->max_psn) > 0)
		return qp->req.psn;
	return w->max_psn;
}

/**
 * sib_win_rtt_sample() - one round trip measured
 * @qp: RC QP
 * @us: the round trip, microseconds (1..1000000)
 *
 * Updates the smoothed RTT and its variance, the lowest sample of the
 * last one or two periods of SIB_MIN_RTT_KEEP_S (a path that changed, or
 * a low sample long gone, is forgotten after two; lib/win_minmax.c's
 * running minimum is not exported on 6.1), and whether the path has a
 * queue (the sample or the smoothed RTT SIB_QDELAY_US above that lowest
 * one). Context: the QP's run.
 */
void sib_win_rtt_sample(struct sib_qp *qp, u32 us)
{
	struct sib_rc_window *w = sib_win(qp);

	if (!w->srtt_us) {
		w->srtt_us = us;
		w->rttvar_us = us / 2;
	} else {
		w->rttvar_us = (3 * w->rttvar_us +
				abs((s32)(w->srtt_us - us))) / 4;
		w->srtt_us = (7 * w->srtt_us + us) / 8;
	}
	if (!w->min_rtt_us ||
	    time_after(jiffies, w->min_period + SIB_MIN_RTT_KEEP_S * HZ)) {
		/* a new period: keep the lowest of the one that ended */
		w->min_rtt_us = w->min_next_us ?: us;
		w->min_next_us = us;
		w->min_period = jiffies;
	}
	w->min_next_us = min(w->min_next_us, us);
	w->min_rtt_us = min(w->min_rtt_us, us);
	/* the smoothed RTT too: one quick sample does not say the queue is gone */
	w->queued = us > w->min_rtt_us + SIB_QDELAY_US ||
		    w->srtt_us > w->min_rtt_us + SIB_QDELAY_US;
}

/**
 * sib_win_acked() - the responder acknowledged request packets
 * @qp: RC QP
 * @acked: the newest PSN acknowledged now
 * @npkts: packets newly acknowledged
 *
 * Takes an RTT sample, ends a recovery episode, grows the window (not
 * one of SIB_WIN_INIT or more while the round trips show a queue).
 * Context: the QP's run.
 */
void sib_win_acked(struct sib_qp *qp, u32 acked, u32 npkts)
{
	struct sib_rc_window *w = sib_win(qp);
	s64 us;

	if (w->rtt_on && sib_psn_cmp(acked, w->rtt_psn) >= 0) {
		w->rtt_on = false;
		us = div_s64((s64)(ktime_get_ns() - w->rtt_start), NSEC_PER_USEC);
		sib_win_rtt_sample(qp, clamp_t(s64, us, 1, 1000000));
	}
	if (w->recovering && sib_psn_cmp(acked, w->recover_psn) >= 0)
		w->recovering = false;
	if (w->recovering)
		return;
	if (w->queued && w->cwnd >= SIB_WIN_INIT) {
		/* at the path's limit: hold the window, slow start ends */
		w->ssthresh = min(w->ssthresh, w->cwnd);
		w->acc = 0;
		return;
	}
	if (w->cwnd < w->ssthresh) {
		w->cwnd = min(w->cwnd + npkts, w->ssthresh);
		return;
	}
	w->acc += npkts;
	if (w->acc >= w->cwnd) {
		w->acc -= w->cwnd;
		w->cwnd = min_t(u32, w->cwnd + 1, SIB_MAX_INFLIGHT_PKTS);
	}
}

/**
 * sib_win_probe_answer() - an ACK made progress while a loss probe waited
 * @qp: RC QP
 * @acked: the PSN it acknowledges
 *
 * An ACK answers the probe's packet with the newest PSN the responder
 * has placed (a duplicate's ACK too, IBTA 9.7.5.1.1; the PSN of an RDMA
 * READ response or atomic ACK says only where it is itself, so those
 * answers just open the window, through sib_timer_retrans_progress()).
 * Packets sent after @acked were lost then: the window is halved, once
 * (a recovery begun before, that this ACK completes, ends first). An ACK
 * sent before the probe arrived and delayed by more than the probe's
 * period is taken for its answer too: the packets after it are then
 * sent again, as after a sequence NAK.
 * Context: the QP's run, before sib_win_acked().
 */
void sib_win_probe_answer(struct sib_qp *qp, u32 acked)
{
	struct sib_rc_window *w = sib_win(qp);

	if (!w->probing)
		return;
	w->probing = false;
	if (sib_psn_cmp(sib_psn_add(acked, 1), w->max_psn) >= 0)
		return;
	if (w->recovering && sib_psn_cmp(acked, w->recover_psn) >= 0)
		w->recovering = false;
	sib_win_cut(w, false);
}

/**
 * sib_win_rtt_forget() - the running RTT sample would not be the path's
 * @qp: RC QP
 *
 * Drops it: after an RNR NAK its packet is resent once the RNR wait is
 * over, and an ACK would then not tell which copy it answers (Karn's
 * rule).
 * Context: the QP's run.
 */
void sib_win_rtt_forget(struct sib_qp *qp)
{
	qp->req.win.rtt_on = false;
}

/**
 * sib_win_loss() - the requester is about to go back after a loss
 * @qp: RC QP
 * @timeout: a local ACK timeout (not a NAK or a READ response gap)
 *
 * Halves the window once per window of data (a timeout always cuts),
 * forgets the running RTT sample (its packet is being resent).
 * Context: the QP's run, before qp->req.psn is moved back.
 */
void sib_win_loss(struct sib_qp *qp, bool timeout)
{
	struct sib_rc_window *w = sib_win(qp);

	w->rtt_on = false;
	sib_win_cut(w, timeout);
}

/**
 * sib_win_probe() - a loss probe goes back to the oldest packet
 * @qp: RC QP
 * @cut: halve the window too (a probe that follows one without answer)
 *
 * Until the probe is answered (sib_win_probe_answer(), or any progress),
 * or a NAK, timeout, RNR NAK or failure restarts or stops the timers,
 * one request packet may be in flight: the oldest unacknowledged one,
 * which the responder answers whatever was lost (as a duplicate, with
 * the newest PSN it placed; or as the one it expects), unlike a newer
 * one after a sequence NAK. Forgets the running RTT sample, unless no
 * sample ended yet (see above).
 * Context: the QP's run, before qp->req.psn is moved back.
 */
void sib_win_probe(struct sib_qp *qp, bool cut)
{
	struct sib_rc_window *w = sib_win(qp);

	if (w->srtt_us)
		w->rtt_on = false;
	w->probing = true;
	if (cut)
		sib_win_cut(w, false);
}

static void sib_win_cut(struct sib_rc_window *w, bool timeout)
{
	if (w->recovering && !timeout)
		return;
	w->ssthresh = max_t(u32, w->cwnd / 2, SIB_WIN_MIN);
	w->cwnd = timeout ? SIB_WIN_MIN : w->ssthresh;
	w->acc = 0;
	w->recovering = true;
	w->recover_psn = sib_psn_add(w->max_psn, SIB_PSN_MASK);
}
