// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: congestion control for RoCEv2 (IBTA Annex A17), all of its
 * policy in this file.
 *
 * Notification point (NP): a packet that arrived with ECN CE (recv.c
 * marks it, the runner hands it here) makes the QP send a CNP to the
 * sender's QP, at most one per np_min_time_between_cnps.
 *
 * Reaction point (RP): a CNP for a QP that sends requests (recv.c flags
 * the QP, the runner calls sib_cc_rp_cnp()) starts DCQCN (Zhu et al.,
 * SIGCOMM 2015) on that QP: the current rate Rc is cut by alpha/2, the
 * target Rt remembers the rate before the cut, alpha rises. Alpha decays
 * every rp_dce_tcp_rtt without a CNP; every rp_time_reset and every
 * rp_byte_reset bytes the rate rises (fast recovery towards Rt for the
 * first rp_threshold events, then additive, then hyper increase of Rt).
 * Those periods are not timers: they are caught up from the clock each
 * time the requester asks for credit (sib_cc_may_send()), so a limited
 * QP with nothing to send costs nothing. The requester is paced with a
 * token bucket; when it is out of credit its run stops and one per-QP
 * timer (timers.c) runs it again once the credit is there. A QP whose
 * rate climbed back to rp_max_rate is no longer limited: no state, no
 * timer, full speed. A UD QP has one rate for all of its destinations,
 * as on ConnectX: the CNP names the QP, not the address handle
 * (sib_cc_rp_type()).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/inet_ecn.h>

#include "softib.h"
#include "cc.h"
#include "hdr.h"
#include "net.h"
#include "qpcore.h"
#include "timers.h"
#include "trace.h"

struct sib_cc_param_info {
	const char *name;
	const char *unit;
	u32 def, min, max;
};

#define SIB_CC_INFO(id, nm, d, lo, hi, u) \
	[SIB_CC_##id] = { .name = nm, .unit = u, .def = d, .min = lo, .max = hi },
static const struct sib_cc_param_info sib_cc_params[] = {
	SIB_CC_PARAM_LIST(SIB_CC_INFO)
};
#undef SIB_CC_INFO

/**
 * sib_cc_dev_init() - give a new device the default parameters
 * @dev: device being set up
 *
 * Context: process, before the device is registered.
 */
void sib_cc_dev_init(struct sib_dev *dev)
{
	unsigned int i;

	for (i = 0; i < SIB_CC_NUM_PARAMS; i++)
		dev->cc[i] = sib_cc_params[i].def;
}

/**
 * sib_cc_param_find() - the number of a parameter
 * @name: its name, e.g. "rp_ai_rate"
 *
 * Context: any. Return: the enum sib_cc_param value, or -ENOENT.
 */
int sib_cc_param_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < SIB_CC_NUM_PARAMS; i++)
		if (!strcmp(name, sib_cc_params[i].name))
			return i;
	return -ENOENT;
}

/**
 * sib_cc_param_name() - the name of parameter @p (< SIB_CC_NUM_PARAMS)
 * @p: parameter
 *
 * Context: any. Return: the name.
 */
const char *sib_cc_param_name(unsigned int p)
{
	return sib_cc_params[p].name;
}

/**
 * sib_cc_param_unit() - the unit of parameter @p (< SIB_CC_NUM_PARAMS)
 * @p: parameter
 *
 * Context: any. Return: the unit, e.g. "us" or "Mbps".
 */
const char *sib_cc_param_unit(unsigned int p)
{
	return sib_cc_params[p].unit;
}

/**
 * sib_cc_param_set() - change one parameter of a device
 * @dev: device
 * @p: parameter (< SIB_CC_NUM_PARAMS)
 * @val: new value
 *
 * QPs see the new value from their next packet on; a QP being limited
 * when rp_enable goes to 0 keeps its rate until it has climbed back.
 * Context: any. Return: 0, or -ERANGE when @val is outside the bounds.
 */
int sib_cc_param_set(struct sib_dev *dev, unsigned int p, u32 val)
{
	if (val < sib_cc_params[p].min || val > sib_cc_params[p].max)
		return -ERANGE;
	WRITE_ONCE(dev->cc[p], val);
	return 0;
}

static u32 sib_cc_max_rate(const u32 *prm)
{
	return READ_ONCE(prm[SIB_CC_RP_MAX_RATE]);
}

/* alpha = alpha * g + (1 - g) * marked, g in 1/1024 */
static u32 sib_dcqcn_alpha(u32 alpha, u32 g, bool marked)
{
	u64 a = (u64)alpha * g + (marked ? 1024ULL * (1024 - g) : 0);

	return min_t(u64, a / 1024, 1023);
}

/**
 * sib_dcqcn_cut() - the reaction to a CNP: cut the rate
 * @rp: the QP's reaction point
 * @prm: the device's parameters (dev->cc)
 * @now: ns (ktime_get_ns())
 *
 * The first CNP starts limiting at rp_rate_to_set_on_first_cnp (0: at
 * rp_max_rate) with alpha rp_initial_alpha_value. Then Rt = Rc,
 * Rc = Rc * (1 - alpha / 2), but never below rp_min_dec_fac percent
 * of Rc nor below rp_min_rate; alpha rises; the increase stages and the
 * alpha and increase periods start again. At most one cut per
 * rp_rate_reduce_monitor_period.
 * Context: any (pure, on state the caller owns). Return: true when the
 * rate was cut, false when the CNP fell into the monitor period.
 */
bool sib_dcqcn_cut(struct sib_cc_rp *rp, const u32 *prm, u64 now)
{
	u32 first = READ_ONCE(prm[SIB_CC_RP_RATE_TO_SET_ON_FIRST_CNP]);
	u32 g = READ_ONCE(prm[SIB_CC_RP_DCE_TCP_G]);
	u32 min_rate = READ_ONCE(prm[SIB_CC_RP_MIN_RATE]);
	u32 fac = READ_ONCE(prm[SIB_CC_RP_MIN_DEC_FAC]);
	u64 gate = READ_ONCE(prm[SIB_CC_RP_RATE_REDUCE_MONITOR_PERIOD]) *
		   NSEC_PER_USEC;
	u64 rc;

	if (rp->limited && now - rp->cut_ns < gate)
		return false;
	if (!rp->limited) {
		rp->limited = true;
		rp->rc = first ? min(first, sib_cc_max_rate(prm)) :
				 sib_cc_max_rate(prm);
		rp->alpha = READ_ONCE(prm[SIB_CC_RP_INITIAL_ALPHA_VALUE]);
		rp->tokens = 0;
		rp->tok_ns = now;
	}
	rp->rt = rp->rc;
	rc = (u64)rp->rc * (2048 - rp->alpha) / 2048;
	rc = max_t(u64, rc, (u64)rp->rc * (100 - min(fac, 100U)) / 100);
	rp->rc = max_t(u64, rc, min_rate);
	rp->alpha = sib_dcqcn_alpha(rp->alpha, g, true);
	rp->t_stage = 0;
	rp->b_stage = 0;
	rp->bytes = 0;
	rp->cut_ns = now;
	rp->alpha_ns = now;
	rp->timer_ns = now;
	return true;
}

/* one rate-increase event; returns what it did */
static enum sib_cc_change sib_dcqcn_increase(struct sib_cc_rp *rp,
					     const u32 *prm)
{
	u32 th = READ_ONCE(prm[SIB_CC_RP_THRESHOLD]);
	u32 max_rate = sib_cc_max_rate(prm);
	u32 lo = min(rp->t_stage, rp->b_stage);
	u32 hi = max(rp->t_stage, rp->b_stage);
	enum sib_cc_change why;
	u64 rt = rp->rt;

	if (hi < th) {
		why = SIB_CC_FAST_RECOVERY;
	} else if (lo > th) {
		why = SIB_CC_HYPER;
		rt += (u64)(lo - th) * READ_ONCE(prm[SIB_CC_RP_HAI_RATE]);
	} else {
		why = SIB_CC_ADDITIVE;
		rt += READ_ONCE(prm[SIB_CC_RP_AI_RATE]);
	}
	rp->rt = min_t(u64, rt, max_rate);
	rp->rc = (rp->rc + rp->rt + 1) / 2;
	if (rp->rc >= max_rate) {
		rp->limited = false;
		rp->rc = max_rate;
		why = SIB_CC_FULL;
	}
	return why;
}

/* catching up more periods than this ends in the same place */
#define SIB_DCQCN_CATCHUP	4096

/**
 * sib_dcqcn_advance() - apply the alpha and rate-increase events due
 * @rp: a limited reaction point
 * @prm: the device's parameters
 * @now: ns
 * @sent: bytes sent since the last call (the byte counter)
 * @chg: called after each rate change, or NULL
 * @ctx: for @chg
 *
 * Alpha decays once per full rp_dce_tcp_rtt since the last update; the
 * rate rises once per full rp_time_reset and once per rp_byte_reset
 * bytes. Stops once the QP is no longer limited.
 * Context: any (on state the caller owns). Return: rate increases done.
 */
int sib_dcqcn_advance(struct sib_cc_rp *rp, const u32 *prm, u64 now,
		      u64 sent, void (*chg)(void *ctx, struct sib_cc_rp *rp,
					    enum sib_cc_change why),
		      void *ctx)
{
	u64 rtt = READ_ONCE(prm[SIB_CC_RP_DCE_TCP_RTT]) * NSEC_PER_USEC;
	u64 per = READ_ONCE(prm[SIB_CC_RP_TIME_RESET]) * NSEC_PER_USEC;
	u64 breset = READ_ONCE(prm[SIB_CC_RP_BYTE_RESET]);
	u32 g = READ_ONCE(prm[SIB_CC_RP_DCE_TCP_G]);
	enum sib_cc_change why;
	int done = 0;
	u64 n, i;

	if (!rp->limited)
		return 0;
	if (now > rp->alpha_ns && rtt) {
		n = div64_u64(now - rp->alpha_ns, rtt);
		rp->alpha_ns += n * rtt;
		for (i = 0; i < min_t(u64, n, SIB_DCQCN_CATCHUP) && rp->alpha; i++)
			rp->alpha = sib_dcqcn_alpha(rp->alpha, g, false);
	}
	if (now > rp->timer_ns && per) {
		n = div64_u64(now - rp->timer_ns, per);
		rp->timer_ns += n * per;
		for (i = 0; i < min_t(u64, n, SIB_DCQCN_CATCHUP) && rp->limited; i++) {
			rp->t_stage++;
			why = sib_dcqcn_increase(rp, prm);
			done++;
			if (chg)
				chg(ctx, rp, why);
		}
	}
	rp->bytes += sent;
	while (rp->limited && breset && rp->bytes >= breset) {
		rp->bytes -= breset;
		rp->b_stage++;
		why = sib_dcqcn_increase(rp, prm);
		done++;
		if (chg)
			chg(ctx, rp, why);
	}
	return done;
}

/**
 * sib_cc_burst() - the most credit a QP limited to @rate may save up
 * @rate: Rc, Mbit/s
 *
 * What a late pacing timer or an idle send queue lets the QP send at
 * once: 1 ms of @rate, at least SIB_CC_BURST_MIN_BYTES, at most
 * SIB_CC_BURST_BYTES. A fixed 16 KiB is 5 us at 25 Gbit/s but 26 ms at
 * 5 Mbit/s: the limited QPs of a slow bottleneck then met in bursts that
 * filled its queue while their average rates were below its rate.
 * Context: any. Return: bytes.
 */
u32 sib_cc_burst(u32 rate)
{
	return clamp_t(u64, (u64)rate * SIB_CC_BURST_RATE_BYTES,
		       SIB_CC_BURST_MIN_BYTES, SIB_CC_BURST_BYTES);
}

/**
 * sib_cc_credit() - pacing: refill and charge the token bucket
 * @rp: a limited reaction point
 * @now: ns
 * @sent: bytes sent since the last call
 *
 * Credit grows at Rc up to sib_cc_burst() and pays for @sent.
 * Context: any (on state the caller owns). Return: 0 when there is
 * credit to send a packet, else the ns until there is.
 */
u64 sib_cc_credit(struct sib_cc_rp *rp, u64 now, u64 sent)
{
	u64 dt = now > rp->tok_ns ? now - rp->tok_ns : 0;
	u32 rate = max(rp->rc, 1U);

	/* Mbit/s is 1/8000 byte per ns; a second of credit is plenty */
	dt = min_t(u64, dt, NSEC_PER_SEC);
	rp->tokens += div_u64(dt * rate, 8000);
	rp->tok_ns = now;
	if (rp->tokens > sib_cc_burst(rate))
		rp->tokens = sib_cc_burst(rate);
	rp->tokens -= sent;
	if (rp->tokens > 0)
		return 0;
	return div_u64((u64)(1 - rp->tokens) * 8000, rate) + 1;
}

/**
 * sib_cc_credit_ends() - does a packet use up the pacing credit?
 * @rp: a reaction point
 * @unpaid: bytes already sent that the bucket was not yet charged for
 * @len: the packet about to go out, outer headers included
 *
 * Pure, for the ACK request decision (sib_cc_pause_ahead()); the refill
 * until the next check is ignored, so the answer errs towards a pause.
 * Context: any. Return: true when @rp is limited and its credit after
 * the packet is gone (the next sib_cc_may_send() would wait).
 */
bool sib_cc_credit_ends(const struct sib_cc_rp *rp, u64 unpaid, u32 len)
{
	return rp->limited && rp->tokens - (s64)unpaid - (s64)len <= 0;
}

static void sib_cc_changed(void *ctx, struct sib_cc_rp *rp,
			   enum sib_cc_change why)
{
	struct sib_qp *qp = ctx;

	sib_counter_inc(qp->dev, why == SIB_CC_CUT ? SIB_CNT_RP_RATE_DECREASE :
						     SIB_CNT_RP_RATE_INCREASE);
	trace_sib_cc_rate(qp->ibqp.qp_num, why, rp->rc, rp->rt, rp->alpha);
}

/**
 * sib_cc_rp_cnp() - a CNP arrived for this QP (sib_cc_rp_type())
 * @qp: QP (recv.c counted the CNP as handled and flagged the QP)
 *
 * Cuts the rate (sib_dcqcn_cut()); the requester is paced from now on.
 * Context: the QP's run.
 */
void sib_cc_rp_cnp(struct sib_qp *qp)
{
	struct sib_cc_rp *rp = &qp->req.rp;
	bool was = rp->limited;

	if (!was)
		rp->tx_seen = READ_ONCE(qp->cc_tx_bytes);
	if (sib_dcqcn_cut(rp, qp->dev->cc, ktime_get_ns()))
		sib_cc_changed(qp, rp, SIB_CC_CUT);
}

/**
 * sib_cc_may_send() - pacing check before a request packet
 * @qp: QP
 *
 * Free (one test) while the QP is not limited. Otherwise charges the
 * bytes the QP sent since the last check, catches up the DCQCN events
 * due and asks the token bucket; without credit the per-QP pacing timer
 * (timers.c) is started to run the QP again when there is.
 * Context: the QP's run. Return: true to send, false to stop the run.
 */
bool sib_cc_may_send(struct sib_qp *qp)
{
	struct sib_cc_rp *rp = &qp->req.rp;
	u64 now, sent, tx, wait;

	if (likely(!rp->limited))
		return true;
	now = ktime_get_ns();
	tx = READ_ONCE(qp->cc_tx_bytes);
	sent = tx - rp->tx_seen;
	rp->tx_seen = tx;
	sib_dcqcn_advance(rp, qp->dev->cc, now, sent, sib_cc_changed, qp);
	if (!rp->limited)
		return true;
	wait = sib_cc_credit(rp, now, sent);
	if (!wait)
		return true;
	sib_counter_inc(qp->dev, SIB_CNT_RP_PACED);
	sib_timer_pace_arm(qp, wait);
	return false;
}

/**
 * sib_cc_pause_ahead() - will pacing stop the requester after this packet?
 * @qp: RC QP about to send a request packet
 * @len: its length so far (BTH onwards); net.c adds the outer headers
 *
 * The responder acknowledges only packets that ask for it (AckReq, IBTA
 * 9.7.5.1.1) and the ends of messages. A pacing pause in the middle of a
 * message after a packet that did not ask left its packets unacknowledged
 * for the whole pause, and the loss probe (timers.c) resent packets that
 * had arrived: with rates of a few Mbit/s a pause is longer than the
 * probe's period. The last packet before a pause asks for an ACK.
 * Context: the QP's run, after sib_cc_may_send() let this packet go.
 * Return: true when it should ask for an ACK.
 */
bool sib_cc_pause_ahead(struct sib_qp *qp, u32 len)
{
	struct sib_cc_rp *rp = &qp->req.rp;

	if (likely(!rp->limited))
		return false;
	return sib_cc_credit_ends(rp, READ_ONCE(qp->cc_tx_bytes) - rp->tx_seen,
				  len + SIB_CC_WIRE_HDR_BYTES);
}

/*
 * Where the CNP for @skb goes: the QP's peer for RC, UC and XRC, the source
 * QP of the DETH at the packet's source address for UD. Return: false
 * when there is no one to send it to.
 */
static bool sib_cc_cnp_dest(struct sib_qp *qp, struct sk_buff *skb,
			    struct sib_av *av, u32 *dqpn)
{
	const struct sib_deth *deth;

	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC ||
	    qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	    qp->ibqp.qp_type == IB_QPT_XRC_TGT) {
		*av = qp->av;
		*dqpn = qp->dest_qpn;
		return true;
	}
	if (qp->ibqp.qp_type != IB_QPT_UD ||
	    !(sib_opcode(sib_pkt(skb)->opcode)->flags & SIB_OPF_DETH))
		return false;
	deth = (const struct sib_deth *)(skb->data + SIB_BTH_LEN);
	*dqpn = sib_deth_sqp(deth);
	memset(av, 0, sizeof(*av));
	av->net_type = sib_pkt(skb)->net_type;
	if (av->net_type == RDMA_NETWORK_IPV4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)av->sgid.raw);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr,
				       (struct in6_addr *)av->dgid.raw);
	} else {
		memcpy(av->sgid.raw, &ipv6_hdr(skb)->daddr, 16);
		memcpy(av->dgid.raw, &ipv6_hdr(skb)->saddr, 16);
	}
	return true;
}

/**
 * sib_cc_np_ce() - the notification point: a CE-marked packet for @qp
 * @qp: the QP it was for
 * @skb: the packet (only read; the engines take it afterwards)
 *
 * Sends a CNP (BTH opcode 0x81, BECN set, the QP's P_Key, PSN 0, 16
 * reserved bytes and the ICRC; IBTA Annex A17.9.1) to the sender's QP,
 * unless np_enable is 0 or one went to it less than
 * np_min_time_between_cnps ago. The CNP carries np_cnp_dscp, priority
 * np_cnp_prio and no ECT: it is never marked itself. It consumes no PSN
 * and is never acknowledged.
 * Context: the QP's run.
 */
void sib_cc_np_ce(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sib_dev *dev = qp->dev;
	u64 gap = READ_ONCE(dev->cc[SIB_CC_NP_MIN_TIME_BETWEEN_CNPS]) *
		  NSEC_PER_USEC;
	u64 now = ktime_get_ns();
	struct sk_buff *cnp;
	struct sib_bth *bth;
	struct sib_av av;
	u32 dqpn;

	if (!READ_ONCE(dev->cc[SIB_CC_NP_ENABLE]))
		return;
	if (qp->cc_cnp_ns && now - qp->cc_cnp_ns < gap) {
		sib_counter_inc(dev, SIB_CNT_NP_CNP_SUPPRESSED);
		return;
	}
	if (!sib_cc_cnp_dest(qp, skb, &av, &dqpn))
		return;
	cnp = sib_skb_alloc(dev, SIB_BTH_LEN + SIB_CNP_RSVD_LEN + SIB_ICRC_LEN);
	if (!cnp)
		return;
	qp->cc_cnp_ns = now;
	memset(cnp->data, 0, cnp->len);
	bth = (struct sib_bth *)cnp->data;
	sib_bth_set(bth, SIB_OP_CNP, false, 0, sib_qp_pkey(qp), dqpn, false, 0);
	bth->qpn |= cpu_to_be32(SIB_BTH_BECN);
	av.traffic_class = READ_ONCE(dev->cc[SIB_CC_NP_CNP_DSCP]) << 2;
	cnp->priority = READ_ONCE(dev->cc[SIB_CC_NP_CNP_PRIO]);
	sib_counter_inc(dev, SIB_CNT_NP_CNP_SENT);
	sib_pkt_xmit(qp, &av, cnp);
}
