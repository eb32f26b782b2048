// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the completer's retry decisions (comp.c,
 * IBTA 9.7.5.1 and 9.7.6.1.3), driven through sib_comp_timeout(),
 * sib_comp_rcv() (also after a consumer's modify to ERR) on a
 * bare RC QP with a kernel send CQ: ACKs complete
 * WQEs in order up to their PSN, a PSN sequence NAK and a local ACK
 * timeout resend from the oldest incomplete WQE, retry_cnt and
 * rnr_retry (7 = infinite) are counted down and, once used up, fail
 * the WQE with RETRY_EXC_ERR / RNR_RETRY_EXC_ERR and the QP to error;
 * other NAK codes fail the WQE with the matching status.
 */
#include <kunit/test.h>

#include "softib.h"
#include "hdr.h"
#include "psn.h"
#include "qp.h"
#include "qpcore.h"
#include "sched.h"
#include "queue.h"
#include "comp.h"
#include "timers.h"
#include "task.h"

static struct workqueue_struct *sib_ct_wq;

static int sib_ct_suite_init(struct kunit_suite *suite)
{
	/* suites run before module init: lend a workqueue for kicks */
	if (!sib_wq) {
		sib_ct_wq = alloc_workqueue("sib_kunit_comp", 0, 0);
		if (!sib_ct_wq)
			return -ENOMEM;
		sib_wq = sib_ct_wq;
	}
	return 0;
}

static void sib_ct_suite_exit(struct kunit_suite *suite)
{
	if (sib_ct_wq) {
		if (sib_wq == sib_ct_wq)
			sib_wq = NULL;
		destroy_workqueue(sib_ct_wq);
		sib_ct_wq = NULL;
	}
}

static void sib_ct_noop(struct work_struct *w)
{
}

struct sib_ct {
	struct sib_dev *dev;
	struct sib_cq *cq;
	struct sib_qp *qp;
};

#define SIB_CT_NUM 8

/* RC QP in RTS, send CQ of 16 entries, retry_cnt/rnr_retry as given */
static void sib_ct_setup(struct kunit *test, struct sib_ct *t, u8 retry,
			 u8 rnr)
{
	struct sib_qp *qp;

	t->dev = kunit_kzalloc(test, sizeof(*t->dev), GFP_KERNEL);
	t->cq = kunit_kzalloc(test, sizeof(*t->cq), GFP_KERNEL);
	t->qp = qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->dev);
	KUNIT_ASSERT_NOT_NULL(test, t->cq);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, sib_counters_alloc(t->dev), 0);
	t->cq->dev = t->dev;
	spin_lock_init(&t->cq->lock);
	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&t->cq->ring, 16,
					     sizeof(struct sib_cqe)), 0);

	qp->dev = t->dev;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->ibqp.qp_num = 0x42;
	qp->scq = t->cq;
	qp->rcq = t->cq;
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	skb_queue_head_init(&qp->rxq);
	INIT_WORK(&qp->work, sib_ct_noop);
	sib_timers_init(qp);
	qp->sq.num = SIB_CT_NUM;
	qp->sq.sstride = sizeof(struct sib_swqe);
	qp->sq.shadow = kunit_kcalloc(test, SIB_CT_NUM, sizeof(struct sib_swqe),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->sq.shadow);
	qp->mtu = 1024;
	qp->timeout = 14;
	qp->retry_cnt = retry;
	qp->rnr_retry = rnr;
	qp->comp.retry_left = retry;
	qp->comp.rnr_left = rnr;
	qp->state = IB_QPS_RTS;
	/* the test drives the engines: it is the QP's runner */
	sib_run_map_init(qp);
	sib_run_acquire(qp, 0);
}

static void sib_ct_done(struct sib_ct *t)
{
	sib_run_release(t->qp);
	set_bit(SIB_QPF_DESTROYING, &t->qp->flags);
	sib_timers_stop(t->qp);
	flush_work(&t->qp->work);
	sib_ring_free(&t->cq->ring);
	sib_counters_free(t->dev);
}

/* post a signaled SEND of @npkts packets and "send" it */
static void sib_ct_post(struct sib_ct *t, u64 wr_id, u32 npkts)
{
	struct sib_qp *qp = t->qp;
	struct sib_swqe *sw = sib_swqe_at(qp, qp->sq.req);

	memset(sw, 0, sizeof(*sw));
	sw->wqe.wr_id = wr_id;
	sw->wqe.opcode = IB_WR_SEND;
	sw->wqe.send_flags = SIB_SEND_SIGNALED;
	sw->total_len = npkts * qp->mtu;
	sw->npkts = npkts;
	sw->first_psn = qp->req.psn;
	sw->last_psn = sib_psn_add(qp->req.psn, npkts - 1);
	qp->req.psn = sib_psn_add(qp->req.psn, npkts);
	qp->sq.req++;
	qp->sq.kprod = qp->sq.req;
}

/* the requester sends everything again after a restart */
static void sib_ct_resend(struct sib_ct *t)
{
	struct sib_qp *qp = t->qp;

	while (qp->sq.req != qp->sq.kprod) {
		struct sib_swqe *sw = sib_swqe_at(qp, qp->sq.req);

		qp->req.psn = sib_psn_add(sw->last_psn, 1);
		qp->sq.req++;
	}
}

/* an ACK or NAK packet as the receive path hands it over, or NULL */
static struct sk_buff *sib_ct_aeth_skb(struct sib_ct *t, u8 syndrome, u32 psn)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	struct sib_pkt *pkt;
	u8 *p;

	if (!skb)
		return NULL;
	p = skb_put_zero(skb, SIB_BTH_LEN + SIB_AETH_LEN);
	sib_bth_set((struct sib_bth *)p, SIB_OP_RC_ACK, false, 0, 0xffff,
		    t->qp->ibqp.qp_num, false, psn);
	sib_aeth_set((struct sib_aeth *)(p + SIB_BTH_LEN), syndrome, 1);
	pkt = sib_pkt(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->psn = psn;
	pkt->qpn = t->qp->ibqp.qp_num;
	pkt->opcode = SIB_OP_RC_ACK;
	pkt->hdr_len = SIB_BTH_LEN + SIB_AETH_LEN;
	return skb;
}

static void sib_ct_aeth(struct sib_ct *t, u8 syndrome, u32 psn)
{
	struct sk_buff *skb = sib_ct_aeth_skb(t, syndrome, psn);

	if (skb)
		sib_comp_rcv(t->qp, skb);
}

static u32 sib_ct_ncqe(struct sib_ct *t)
{
	return t->cq->kprod;
}

static const struct sib_cqe *sib_ct_cqe(struct sib_ct *t, u32 i)
{
	return sib_ring_entry(&t->cq->ring, i);
}

static s64 sib_ct_cnt(struct sib_ct *t, enum sib_counter c)
{
	return sib_counter_read(t->dev, c);
}

static void sib_comp_test_ack_completes_in_order(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 10;
	sib_ct_post(&t, 1, 1);	/* PSN 10 */
	sib_ct_post(&t, 2, 2);	/* PSN 11..12 */
	sib_ct_post(&t, 3, 1);	/* PSN 13 */
	sib_ct_aeth(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 11);
	/* PSN 11 is inside WQE 2: only WQE 1 is done */
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 1U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 1U);
	sib_ct_aeth(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 12);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 2U);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 2U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 1)->wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 1)->status, IB_WC_SUCCESS);
	/* the retransmit timer keeps running for WQE 3 */
	KUNIT_EXPECT_TRUE(test, timer_pending(&t.qp->retrans_timer));
	sib_ct_aeth(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 13);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 3U);
	KUNIT_EXPECT_FALSE(test, timer_pending(&t.qp->retrans_timer));
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	sib_ct_done(&t);
}

static void sib_comp_test_ack_bogus_psn_ignored(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 0xfffffe;
	sib_ct_post(&t, 1, 1);	/* PSN 0xfffffe */
	sib_ct_post(&t, 2, 1);	/* PSN 0xffffff */
	/* an ACK at or beyond the next PSN to send acknowledges nothing */
	sib_ct_aeth(&t, SIB_AETH_ACK, 0x000000);
	sib_ct_aeth(&t, SIB_AETH_ACK, 0x000005);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 0U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 0U);
	/* across the wrap */
	sib_ct_aeth(&t, SIB_AETH_ACK, 0xffffff);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 2U);
	sib_ct_done(&t);
}

/* a READ response or atomic ACK as the receive path hands it over */
static void sib_ct_resp(struct sib_ct *t, u8 opcode, u32 psn)
{
	const struct sib_opcode_info *info = sib_opcode(opcode);
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);
	struct sib_pkt *pkt;
	u8 *p;

	if (!skb)
		return;
	p = skb_put_zero(skb, info->hdr_len);
	sib_bth_set((struct sib_bth *)p, opcode, false, 0, 0xffff,
		    t->qp->ibqp.qp_num, false, psn);
	sib_aeth_set((struct sib_aeth *)(p + info->off_aeth), SIB_AETH_ACK, 1);
	pkt = sib_pkt(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->psn = psn;
	pkt->qpn = t->qp->ibqp.qp_num;
	pkt->opcode = opcode;
	pkt->hdr_len = info->hdr_len;
	sib_comp_rcv(t->qp, skb);
}

/*
 * A READ response or atomic ACK with a PSN never sent (a stale peer of a
 * reused QP, a forged packet) or with a SEND's PSN answers no READ or
 * atomic: it acknowledges nothing either (IBTA 9.7.5.1.3 covers WQEs
 * before the one it answers).
 */
static void sib_comp_test_resp_answers_nothing(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 200;
	sib_ct_post(&t, 1, 1);	/* 200 */
	sib_ct_post(&t, 2, 2);	/* 201..202 */
	sib_ct_resp(&t, SIB_OP_RC_READ_RESP_ONLY, 203);
	sib_ct_resp(&t, SIB_OP_RC_ATOMIC_ACK, 0x7fff);
	sib_ct_resp(&t, SIB_OP_RC_READ_RESP_ONLY, 202);
	sib_ct_resp(&t, SIB_OP_RC_ATOMIC_ACK, 201);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 0U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 0U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_DROP_RESP_SEQ), 2LL);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	/* the ACK still completes them */
	sib_ct_aeth(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 202);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 2U);
	sib_ct_done(&t);
}

static void sib_comp_test_seq_nak_restarts(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 100;
	sib_ct_post(&t, 1, 1);	/* 100 */
	sib_ct_post(&t, 2, 3);	/* 101..103 */
	sib_ct_post(&t, 3, 1);	/* 104 */
	/* the responder expected 101: 100 arrived, resend from 101 */
	sib_ct_aeth(&t, SIB_AETH_NAK | SIB_NAK_PSN_SEQ_ERR, 101);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 1U);
	KUNIT_EXPECT_EQ(test, t.qp->sq.req, 1U);
	KUNIT_EXPECT_EQ(test, t.qp->req.psn, 101U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_SEQ_NAK_RCVD), 1LL);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	/* sequence NAKs are not retries: the count is untouched */
	KUNIT_EXPECT_EQ(test, t.qp->comp.retry_left, 7U);
	sib_ct_done(&t);
}

/*
 * A loss probe goes back to the oldest unacknowledged packet and sends
 * only it until it is answered; the first one since progress keeps the
 * window, the next halves it; none counts a retry.
 */
static void sib_comp_test_probe_oldest_alone(struct kunit *test)
{
	struct sib_ct t;
	struct sib_qp *qp;
	u32 cwnd;

	sib_ct_setup(test, &t, 7, 7);
	qp = t.qp;
	qp->req.psn = 100;
	sib_ct_post(&t, 1, 1);	/* 100 */
	sib_ct_post(&t, 2, 3);	/* 101..103 */
	qp->req.sq_hi = 2;
	sib_win_may_send(qp, 0);	/* the window, set up as by the requester */
	cwnd = qp->req.win.cwnd;
	sib_comp_probe(qp);
	KUNIT_EXPECT_EQ(test, qp->sq.req, 0U);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 100U);
	KUNIT_EXPECT_EQ(test, qp->req.off, 0U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_LOSS_PROBES), 1LL);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_RETRANSMITS), 1LL);
	KUNIT_EXPECT_EQ(test, qp->req.win.cwnd, cwnd);
	/* one packet, then nothing until an answer */
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 0));
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 1));
	/* 100 went out again; still no answer: back to 100, window halved */
	qp->req.psn = 101;
	qp->sq.req = 1;
	sib_comp_probe(qp);
	KUNIT_EXPECT_EQ(test, qp->sq.req, 0U);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 100U);
	KUNIT_EXPECT_EQ(test, qp->req.win.cwnd, cwnd / 2);
	KUNIT_EXPECT_FALSE(test, sib_win_may_send(qp, 1));
	KUNIT_EXPECT_EQ(test, qp->comp.retry_left, 7U);	/* no retry counted */
	/* the answer: a duplicate's ACK for everything, the window opens */
	qp->req.psn = 101;
	qp->sq.req = 1;
	sib_ct_aeth(&t, SIB_AETH_ACK, 103);
	KUNIT_EXPECT_EQ(test, qp->sq.comp, 2U);
	KUNIT_EXPECT_FALSE(test, qp->req.win.probing);
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 1));
	KUNIT_EXPECT_EQ(test, qp->req.win.probes, 0U);
	sib_ct_done(&t);
}

/*
 * The probe's answer acknowledges only part of what was sent: the rest
 * was lost, and is sent again from just after the answer with the
 * window halved; an answer for all of it keeps the window.
 */
static void sib_comp_test_probe_answer(struct kunit *test)
{
	struct sib_ct t;
	struct sib_qp *qp;
	u32 cwnd;

	sib_ct_setup(test, &t, 7, 7);
	qp = t.qp;
	qp->req.psn = 100;
	sib_ct_post(&t, 1, 1);	/* 100 */
	sib_ct_post(&t, 2, 4);	/* 101..104, of which 101 and 102 went out */
	qp->sq.req = 1;
	qp->req.sq_hi = 2;
	qp->req.off = 2 * qp->mtu;
	qp->req.psn = 103;
	sib_win_may_send(qp, 0);	/* the window, set up as by the requester */
	cwnd = qp->req.win.cwnd;
	sib_comp_probe(qp);
	KUNIT_EXPECT_EQ(test, qp->sq.req, 0U);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 100U);
	/* 100 resent; the responder had 100 and 101 */
	qp->sq.req = 1;
	qp->req.off = 0;
	qp->req.psn = 101;
	sib_ct_aeth(&t, SIB_AETH_ACK, 101);
	KUNIT_EXPECT_EQ(test, qp->sq.comp, 1U);
	KUNIT_EXPECT_EQ(test, qp->sq.req, 1U);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 102U);
	KUNIT_EXPECT_EQ(test, qp->req.off, qp->mtu);
	KUNIT_EXPECT_EQ(test, qp->req.win.cwnd, cwnd / 2);
	KUNIT_EXPECT_TRUE(test, sib_win_may_send(qp, 1));
	sib_ct_done(&t);

	/* only the last ACK was lost: the answer covers everything */
	sib_ct_setup(test, &t, 7, 7);
	qp = t.qp;
	qp->req.psn = 100;
	qp->comp.acked_psn = 99;
	sib_ct_post(&t, 1, 2);	/* 100..101 */
	qp->req.sq_hi = 1;
	sib_win_may_send(qp, 0);	/* the window, set up as by the requester */
	cwnd = qp->req.win.cwnd;
	sib_comp_probe(qp);
	qp->req.off = qp->mtu;	/* 100 resent */
	qp->req.psn = 101;
	sib_ct_aeth(&t, SIB_AETH_ACK, 101);
	KUNIT_EXPECT_EQ(test, qp->sq.comp, 1U);
	KUNIT_EXPECT_GE(test, qp->req.win.cwnd, cwnd);	/* not cut */
	KUNIT_EXPECT_FALSE(test, qp->req.win.recovering);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 1U);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 102U);
	sib_ct_done(&t);

	/*
	 * in SQD the WQE sent before the probe's go-back is still
	 * outstanding: it is sent again, and the probe keeps running
	 */
	sib_ct_setup(test, &t, 7, 7);
	qp = t.qp;
	qp->req.psn = 100;
	sib_ct_post(&t, 1, 1);	/* 100 */
	qp->req.sq_hi = 1;
	qp->state = IB_QPS_SQD;
	sib_comp_probe(qp);
	KUNIT_EXPECT_EQ(test, qp->sq.req, 0U);
	KUNIT_EXPECT_EQ(test, qp->req.off, 0U);
	KUNIT_EXPECT_TRUE(test, sib_sq_outstanding(qp));
	sib_comp_probe(qp);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_LOSS_PROBES), 2LL);
	sib_ct_done(&t);
}

static void sib_comp_test_timeout_counts_retries(struct kunit *test)
{
	struct sib_ct t;
	int i;

	sib_ct_setup(test, &t, 2, 7);
	t.qp->req.psn = 7;
	sib_ct_post(&t, 0xabc, 2);	/* 7..8 */
	for (i = 0; i < 2; i++) {
		sib_comp_timeout(t.qp);
		KUNIT_EXPECT_EQ(test, t.qp->comp.retry_left, 1U - i);
		/* resend from the first PSN of the oldest WQE */
		KUNIT_EXPECT_EQ(test, t.qp->req.psn, 7U);
		KUNIT_EXPECT_EQ(test, t.qp->sq.req, 0U);
		KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
		sib_ct_resend(&t);
	}
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 0U);
	/* the third timeout with retry_cnt 2 fails the WQE */
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_ERR);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 1U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->status, IB_WC_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->wr_id, 0xabcULL);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_ACK_TIMEOUT), 3LL);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_RETRY_EXCEEDED), 1LL);
	sib_ct_done(&t);
}

static void sib_comp_test_progress_resets_retries(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 1, 7);
	t.qp->req.psn = 0;
	sib_ct_post(&t, 1, 1);
	sib_ct_post(&t, 2, 1);
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, t.qp->comp.retry_left, 0U);
	sib_ct_resend(&t);
	/* WQE 1 completes: WQE 2 gets the full retry count again */
	sib_ct_aeth(&t, SIB_AETH_ACK, 0);
	KUNIT_EXPECT_EQ(test, t.qp->comp.retry_left, 1U);
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	sib_ct_done(&t);
}

static void sib_comp_test_timeout_ignored(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 0, 7);
	/* nothing outstanding */
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	sib_ct_post(&t, 1, 1);
	/* waiting out an RNR delay */
	t.qp->req.rnr_wait = true;
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	t.qp->req.rnr_wait = false;
	/* not in RTS/SQD */
	t.qp->state = IB_QPS_RTR;
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_ACK_TIMEOUT), 0LL);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 0U);
	/* and then it does fail, with retry_cnt 0 */
	t.qp->state = IB_QPS_RTS;
	sib_comp_timeout(t.qp);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_ERR);
	sib_ct_done(&t);
}

static void sib_comp_test_rnr_retry(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 1);
	t.qp->req.psn = 50;
	sib_ct_post(&t, 9, 1);
	sib_ct_aeth(&t, SIB_AETH_RNR_NAK | 14, 50);
	KUNIT_EXPECT_TRUE(test, t.qp->req.rnr_wait);
	KUNIT_EXPECT_EQ(test, t.qp->comp.rnr_left, 0U);
	KUNIT_EXPECT_EQ(test, t.qp->req.psn, 50U);
	KUNIT_EXPECT_TRUE(test, timer_pending(&t.qp->rnr_timer) ||
				test_bit(SIB_QPF_RNR_DONE, &t.qp->flags));
	KUNIT_EXPECT_FALSE(test, timer_pending(&t.qp->retrans_timer));
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_RNR_NAK_RCVD), 1LL);
	/* resent, RNR again: rnr_retry 1 is used up */
	t.qp->req.rnr_wait = false;
	sib_ct_resend(&t);
	sib_ct_aeth(&t, SIB_AETH_RNR_NAK | 14, 50);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_ERR);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 1U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->status, IB_WC_RNR_RETRY_EXC_ERR);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_RNR_EXCEEDED), 1LL);
	sib_ct_done(&t);
}

static void sib_comp_test_rnr_retry_infinite(struct kunit *test)
{
	struct sib_ct t;
	int i;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 0;
	sib_ct_post(&t, 1, 1);
	for (i = 0; i < 20; i++) {
		sib_ct_aeth(&t, SIB_AETH_RNR_NAK | 1, 0);
		t.qp->req.rnr_wait = false;
		sib_ct_resend(&t);
	}
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, t.qp->comp.rnr_left, 7U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 0U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_RNR_NAK_RCVD), 20LL);
	sib_ct_done(&t);
}

static void sib_comp_test_nak_codes_fail(struct kunit *test)
{
	static const struct { u8 code; u8 status; } map[] = {
		{ SIB_NAK_INVALID_REQ, IB_WC_REM_INV_REQ_ERR },
		{ SIB_NAK_REM_ACCESS_ERR, IB_WC_REM_ACCESS_ERR },
		{ SIB_NAK_REM_OP_ERR, IB_WC_REM_OP_ERR },
		{ SIB_NAK_INVALID_RD_REQ, IB_WC_REM_INV_RD_REQ_ERR },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		struct sib_ct t;

		sib_ct_setup(test, &t, 7, 7);
		t.qp->req.psn = 3;
		sib_ct_post(&t, 1, 1);	/* 3: acknowledged by the NAK */
		sib_ct_post(&t, 2, 1);	/* 4: the one that failed */
		sib_ct_aeth(&t, SIB_AETH_NAK | map[i].code, 4);
		KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_ERR);
		KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 2U);
		KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 1)->wr_id, 2ULL);
		KUNIT_EXPECT_EQ_MSG(test, sib_ct_cqe(&t, 1)->status, map[i].status,
				    "NAK code %u", map[i].code);
		sib_ct_done(&t);
	}
}

static void sib_comp_test_drop_outside_rts(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 0;
	sib_ct_post(&t, 1, 1);
	t.qp->state = IB_QPS_ERR;
	sib_ct_aeth(&t, SIB_AETH_ACK, 0);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 0U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_DROP_QP_STATE), 1LL);
	/* in SQD acknowledgements are still processed */
	t.qp->state = IB_QPS_SQD;
	sib_ct_aeth(&t, SIB_AETH_ACK, 0);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 1U);
	sib_ct_done(&t);
}

/*
 * Moved to ERR by the consumer with acknowledgements still queued: the
 * positive ones complete what they cover, a NAK only what it implies (the
 * requests before its PSN); neither resends nor fails anything.
 */
static void sib_comp_test_final_takes_acks(struct kunit *test)
{
	struct sib_ct t;
	struct sk_buff *skb;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 100;
	sib_ct_post(&t, 1, 1);	/* PSN 100 */
	sib_ct_post(&t, 2, 2);	/* PSN 101..102 */
	sib_ct_post(&t, 3, 1);	/* PSN 103 */
	sib_ct_post(&t, 4, 1);	/* PSN 104 */
	/* as sib_modify_qp() leaves it before the QP's run */
	t.qp->state = IB_QPS_ERR;
	set_bit(SIB_QPF_ERR_TAKE, &t.qp->flags);
	skb = sib_ct_aeth_skb(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 101);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	sib_comp_rcv(t.qp, skb);
	/* WQE 1 done, WQE 2 half acknowledged */
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 1U);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 1U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 0)->status, IB_WC_SUCCESS);
	/* a sequence NAK for 103 acknowledges 102: WQE 2 done, no resend */
	skb = sib_ct_aeth_skb(&t, SIB_AETH_NAK | SIB_NAK_PSN_SEQ_ERR, 103);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	sib_comp_rcv(t.qp, skb);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 2U);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 2U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 1)->wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 1)->status, IB_WC_SUCCESS);
	/* a stale one, an RNR NAK and a remote access NAK for 103 end nothing */
	skb = sib_ct_aeth_skb(&t, SIB_AETH_NAK | SIB_NAK_PSN_SEQ_ERR, 101);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	sib_comp_rcv(t.qp, skb);
	sib_comp_ack_rcv(t.qp, 103, SIB_AETH_RNR_NAK | 1);
	skb = sib_ct_aeth_skb(&t, SIB_AETH_NAK | SIB_NAK_REM_ACCESS_ERR, 103);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	sib_comp_rcv(t.qp, skb);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 2U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 2U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_DROP_QP_STATE), 4LL);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_SEQ_NAK_RCVD), 0LL);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_RNR_NAK_RCVD), 0LL);
	KUNIT_EXPECT_FALSE(test, t.qp->req.rnr_wait);
	/* a loopback peer's ACK for 103 ends WQE 3, not WQE 4 */
	sib_comp_ack_rcv(t.qp, 103, SIB_AETH_ACK | SIB_AETH_NO_CREDIT);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 3U);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 3U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 2)->wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 2)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, sib_qp_state(t.qp), IB_QPS_ERR);
	/* without the flag (flushed, or an error of the QP's own) ERR drops */
	clear_bit(SIB_QPF_ERR_TAKE, &t.qp->flags);
	sib_ct_aeth(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 104);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 3U);
	sib_ct_done(&t);
}

/*
 * A round that took the ACK before the consumer's modify to ERR handles it
 * after: with SIB_QPF_ERR_TAKE set it is still taken.
 */
static void sib_comp_test_final_in_round(struct kunit *test)
{
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	t.qp->req.psn = 0;
	sib_ct_post(&t, 1, 1);	/* PSN 0 */
	sib_ct_post(&t, 2, 1);	/* PSN 1 */
	t.qp->state = IB_QPS_ERR;
	set_bit(SIB_QPF_ERR_TAKE, &t.qp->flags);
	sib_ct_aeth(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 0);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 1U);
	sib_comp_ack_rcv(t.qp, 1, SIB_AETH_ACK | SIB_AETH_NO_CREDIT);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 2U);
	KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 2U);
	KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, 1)->status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_DROP_QP_STATE), 0LL);
	/* a NAK then resends nothing */
	sib_ct_post(&t, 3, 1);	/* PSN 2 */
	sib_ct_aeth(&t, SIB_AETH_NAK | SIB_NAK_PSN_SEQ_ERR, 2);
	KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 2U);
	KUNIT_EXPECT_EQ(test, t.qp->sq.req, 3U);
	KUNIT_EXPECT_EQ(test, sib_ct_cnt(&t, SIB_CNT_SEQ_NAK_RCVD), 0LL);
	sib_ct_done(&t);
}

/*
 * The QP's run after a modify to ERR: the ACK queued before it and the
 * loopback peer's ACK complete their WQEs with success, the rest is
 * flushed; after an error of the QP's own everything is flushed.
 */
static void sib_comp_test_final_run(struct kunit *test)
{
	static const u8 want[2][3] = {
		{ IB_WC_SUCCESS, IB_WC_SUCCESS, IB_WC_WR_FLUSH_ERR },
		{ IB_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR },
	};
	struct sk_buff *skb;
	struct sib_ct t;
	int j, i;

	for (j = 0; j < 2; j++) {
		sib_ct_setup(test, &t, 7, 7);
		t.qp->req.psn = 0;
		sib_ct_post(&t, 1, 1);	/* PSN 0 */
		sib_ct_post(&t, 2, 1);	/* PSN 1 */
		sib_ct_post(&t, 3, 1);	/* PSN 2 */
		skb = sib_ct_aeth_skb(&t, SIB_AETH_ACK | SIB_AETH_NO_CREDIT, 0);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		skb_queue_tail(&t.qp->rxq, skb);
		t.qp->loop.ack_valid = true;
		t.qp->loop.ack_psn = 1;
		t.qp->loop.ack_syn = SIB_AETH_ACK | SIB_AETH_NO_CREDIT;
		/* as sib_modify_qp() does from RTS, or the QP failing itself */
		if (!j)
			set_bit(SIB_QPF_ERR_TAKE, &t.qp->flags);
		t.qp->state = IB_QPS_ERR;
		/* the QP's own run, not the test's */
		sib_run_release(t.qp);
		sib_qp_run(t.qp, NULL);
		sib_run_acquire(t.qp, 0);
		KUNIT_ASSERT_EQ(test, sib_ct_ncqe(&t), 3U);
		for (i = 0; i < 3; i++) {
			KUNIT_EXPECT_EQ(test, sib_ct_cqe(&t, i)->wr_id, i + 1ULL);
			KUNIT_EXPECT_EQ_MSG(test, sib_ct_cqe(&t, i)->status,
					    want[j][i], "case %d WQE %d", j, i);
		}
		KUNIT_EXPECT_EQ(test, t.qp->sq.comp, 3U);
		KUNIT_EXPECT_TRUE(test, skb_queue_empty(&t.qp->rxq));
		KUNIT_EXPECT_FALSE(test, t.qp->loop.ack_valid);
		KUNIT_EXPECT_FALSE(test, test_bit(SIB_QPF_ERR_TAKE,
						  &t.qp->flags));
		KUNIT_EXPECT_FALSE(test, timer_pending(&t.qp->retrans_timer));
		sib_ct_done(&t);
	}
}

static int sib_ct_fatal, sib_ct_kicks;

static void sib_ct_event(struct ib_event *e, void *ctx)
{
	if (e->event == IB_EVENT_QP_FATAL)
		sib_ct_fatal++;
}

static void sib_ct_kick(struct work_struct *w)
{
	sib_ct_kicks++;
}

/*
 * The flush of a user QP in ERR takes what its SQ and RQ rings hold, and
 * stays bounded whatever the process writes into the rings' producers: an
 * impossible SQ producer fails the QP once (no event and no round again in
 * ERR), and a QP reset while its producer is ahead stops the flush; a
 * second pass takes what the shadow had no room for in the first.
 */
static void sib_comp_test_flush_user_rings(struct kunit *test)
{
	struct sib_ring_hdr *sh, *rh;
	struct sib_qp *qp;
	struct sib_ct t;

	sib_ct_setup(test, &t, 7, 7);
	qp = t.qp;
	qp->is_user = true;
	qp->sq.max_sge = 1;
	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&qp->sq.ring, SIB_CT_NUM, 256), 0);
	KUNIT_ASSERT_EQ(test, sib_ring_alloc(&qp->rq.ring, 4, 64), 0);
	qp->rq.max_sge = 1;
	sh = qp->sq.ring.hdr;
	rh = qp->rq.ring.hdr;
	sib_ct_fatal = 0;
	sib_ct_kicks = 0;
	qp->ibqp.event_handler = sib_ct_event;
	INIT_WORK(&qp->work, sib_ct_kick);
	qp->state = IB_QPS_ERR;

	/* three 0-byte WRITEs (zeroed slots) and two receives: all flushed */
	sh->producer = 3;
	rh->producer = 2;
	sib_qp_flush(qp);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 5U);
	KUNIT_EXPECT_EQ(test, sh->consumer, 3U);
	KUNIT_EXPECT_EQ(test, rh->consumer, 2U);

	/* a producer more than a ring ahead: nothing taken, no event, no kick */
	sh->producer = 3 + SIB_CT_NUM + 1;
	sib_qp_flush(qp);
	flush_work(&qp->work);
	KUNIT_EXPECT_EQ(test, sh->consumer, 3U);
	KUNIT_EXPECT_EQ(test, sib_ct_fatal, 0);
	KUNIT_EXPECT_EQ(test, sib_ct_kicks, 0);
	KUNIT_EXPECT_EQ(test, qp->sq.comp, 3U);

	/* reset under the flush: the producer ahead is left, the flush ends */
	sh->producer = 5;
	qp->state = IB_QPS_RESET;
	sib_qp_flush(qp);
	KUNIT_EXPECT_EQ(test, sh->consumer, 3U);

	/*
	 * the shadow's room (here 4 with 4 slots kept for the kernel) below
	 * what the ring holds: the second pass takes the rest
	 */
	qp->state = IB_QPS_ERR;
	qp->sq.reserved = 4;
	sh->producer = 3 + 6;
	sib_qp_flush(qp);
	KUNIT_EXPECT_EQ(test, sh->consumer, 9U);
	KUNIT_EXPECT_EQ(test, qp->sq.comp, 9U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 11U);
	qp->sq.reserved = 0;

	/* a full RQ ring is flushed whole */
	rh->producer = 2 + 4;
	sib_qp_flush(qp);
	KUNIT_EXPECT_EQ(test, rh->consumer, 6U);
	KUNIT_EXPECT_EQ(test, sib_ct_ncqe(&t), 15U);

	sib_ring_free(&qp->sq.ring);
	sib_ring_free(&qp->rq.ring);
	sib_ct_done(&t);
}

static struct kunit_case sib_comp_test_cases[] = {
	KUNIT_CASE(sib_comp_test_final_takes_acks),
	KUNIT_CASE(sib_comp_test_final_in_round),
	KUNIT_CASE(sib_comp_test_final_run),
	KUNIT_CASE(sib_comp_test_probe_oldest_alone),
	KUNIT_CASE(sib_comp_test_probe_answer),
	KUNIT_CASE(sib_comp_test_ack_completes_in_order),
	KUNIT_CASE(sib_comp_test_ack_bogus_psn_ignored),
	KUNIT_CASE(sib_comp_test_resp_answers_nothing),
	KUNIT_CASE(sib_comp_test_seq_nak_restarts),
	KUNIT_CASE(sib_comp_test_timeout_counts_retries),
	KUNIT_CASE(sib_comp_test_progress_resets_retries),
	KUNIT_CASE(sib_comp_test_timeout_ignored),
	KUNIT_CASE(sib_comp_test_rnr_retry),
	KUNIT_CASE(sib_comp_test_rnr_retry_infinite),
	KUNIT_CASE(sib_comp_test_nak_codes_fail),
	KUNIT_CASE(sib_comp_test_drop_outside_rts),
	KUNIT_CASE(sib_comp_test_flush_user_rings),
	{}
};

static struct kunit_suite sib_comp_test_suite = {
	.name = "softib_comp",
	.suite_init = sib_ct_suite_init,
	.suite_exit = sib_ct_suite_exit,
	.test_cases = sib_comp_test_cases,
};

kunit_test_suite(sib_comp_test_suite);
