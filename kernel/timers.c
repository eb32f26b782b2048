// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: all timer policy of the transport.
 *
 * Retransmit timer: runs while an RC QP has request packets that are not
 * acknowledged; restarted on every acknowledgement that makes progress;
 * its period is four times the nominal local ACK timeout 4.096 us *
 * 2^timeout (IBTA 11.2.4.2; timeout 0 = infinite; the spec lets the
 * timer run longer than nominal) and never below SIB_MIN_ACK_TIMEOUT_MS,
 * because a TCG guest can stall for milliseconds.
 * RNR timer: one shot, the delay the responder asked for in its RNR NAK
 * (IBTA 9.7.5.2.8, table 45).
 * Both callbacks only set a flag and schedule the QP's work; the engines
 * decide what the expiry means.
 */
#include "timers.h"

static const u32 sib_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

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

static unsigned long sib_ack_timeout(struct sib_qp *qp)
{
	/* 4x the nominal value: TCG guests are jittery (see above) */
	u64 ns = (4096ULL << qp->timeout) * 4;
	unsigned long j = nsecs_to_jiffies(ns);

	return max(j, msecs_to_jiffies(SIB_MIN_ACK_TIMEOUT_MS));
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
}

/**
 * sib_timers_stop() - stop both timers and wait for running callbacks
 * @qp: QP
 *
 * Context: process.
 */
void sib_timers_stop(struct sib_qp *qp)
{
	del_timer_sync(&qp->retrans_timer);
	del_timer_sync(&qp->rnr_timer);
}

/**
 * sib_timer_retrans_arm() - a request packet went out
 * @qp: RC QP
 *
 * Starts the retransmit timer unless it runs already.
 * Context: the QP's work.
 */
void sib_timer_retrans_arm(struct sib_qp *qp)
{
	if (!qp->timeout || test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return;
	if (!timer_pending(&qp->retrans_timer))
		mod_timer(&qp->retrans_timer, jiffies + sib_ack_timeout(qp));
}

/**
 * sib_timer_retrans_progress() - an acknowledgement made progress
 * @qp: RC QP
 * @outstanding: packets are still unacknowledged
 *
 * Context: the QP's work.
 */
void sib_timer_retrans_progress(struct sib_qp *qp, bool outstanding)
{
	if (outstanding && qp->timeout &&
	    !test_bit(SIB_QPF_DESTROYING, &qp->flags))
		mod_timer(&qp->retrans_timer, jiffies + sib_ack_timeout(qp));
	else
		del_timer(&qp->retrans_timer);
}

/**
 * sib_timer_rnr_start() - wait before resending after an RNR NAK
 * @qp: RC QP
 * @code: 5-bit RNR timer code from the AETH
 *
 * Context: the QP's work.
 */
void sib_timer_rnr_start(struct sib_qp *qp, u8 code)
{
	unsigned long j = usecs_to_jiffies(sib_rnr_usecs[code & 31]);

	if (test_bit(SIB_QPF_DESTROYING, &qp->flags))
		return;
	mod_timer(&qp->rnr_timer, jiffies + max(j, 1UL));
}
