// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the QP state machine. First the IBTA transition
 * facts (11.2.5.1, table 92) that sib_modify_qp() relies on through
 * ib_modify_qp_is_ok(); then sib_modify_qp() itself on a bare QP (no
 * device, no rings): value checks against the device limits, rejected
 * transitions that leave the state alone, a UD QP walked through every
 * state with the attribute side effects, sib_qp_error() and the SQD
 * drained event; last the runner state of task.c.
 */
#include <kunit/test.h>

#include "softib.h"
#include "qp.h"
#include "qpcore.h"
#include "sched.h"
#include "task.h"
#include "timers.h"

#define RC_INIT_REQ (IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | \
		     IB_QP_ACCESS_FLAGS)
#define RC_RTR_REQ (IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | \
		    IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | \
		    IB_QP_MIN_RNR_TIMER)
#define RC_RTS_REQ (IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_TIMEOUT | \
		    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC)

static struct workqueue_struct *sib_qt_wq;

static int sib_qt_suite_init(struct kunit_suite *suite)
{
	/* suites run before module init: lend a workqueue for kicks */
	if (!sib_wq) {
		sib_qt_wq = alloc_workqueue("sib_kunit_qp", 0, 0);
		if (!sib_qt_wq)
			return -ENOMEM;
		sib_wq = sib_qt_wq;
	}
	return 0;
}

static void sib_qt_suite_exit(struct kunit_suite *suite)
{
	if (sib_qt_wq) {
		if (sib_wq == sib_qt_wq)
			sib_wq = NULL;
		destroy_workqueue(sib_qt_wq);
		sib_qt_wq = NULL;
	}
}

static void sib_qt_noop(struct work_struct *w)
{
}

/* a QP with just what modify_qp, reset and the timers touch */
static struct sib_qp *sib_qt_qp(struct kunit *test, enum ib_qp_type type)
{
	struct sib_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	/* a device with the default P_Key table (pkey_index checks) */
	qp->dev = kunit_kzalloc(test, sizeof(*qp->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->dev);
	KUNIT_ASSERT_EQ(test, sib_pkey_port_init(&qp->dev->pkey), 0);
	KUNIT_ASSERT_EQ(test, sib_counters_alloc(qp->dev), 0);
	qp->ibqp.qp_type = type;
	qp->ibqp.qp_num = 0x51;
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	skb_queue_head_init(&qp->rxq);
	INIT_WORK(&qp->work, sib_qt_noop);
	sib_run_map_init(qp);
	sib_timers_init(qp);
	qp->rq.ring.hdr = kunit_kzalloc(test, sizeof(*qp->rq.ring.hdr),
					GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp->rq.ring.hdr);
	qp->sq.num = 16;
	qp->rq.ring.num = 16;
	qp->sq.max_sge = 4;
	qp->rq.max_sge = 4;
	qp->state = IB_QPS_RESET;
	return qp;
}

static void sib_qt_done(struct sib_qp *qp)
{
	set_bit(SIB_QPF_DESTROYING, &qp->flags);
	sib_timers_stop(qp);
	flush_work(&qp->work);
	sib_pkey_port_destroy(&qp->dev->pkey);
	sib_counters_free(qp->dev);
}

static int sib_qt_modify(struct sib_qp *qp, struct ib_qp_attr *a, int mask)
{
	return sib_modify_qp(&qp->ibqp, a, mask, NULL);
}

static void sib_qp_test_rc_reset_to_init(struct kunit *test)
{
	static const int req[] = { IB_QP_PKEY_INDEX, IB_QP_PORT,
				   IB_QP_ACCESS_FLAGS };
	int i;

	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						   IB_QPT_RC, RC_INIT_REQ));
	for (i = 0; i < ARRAY_SIZE(req); i++)
		KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET,
				   IB_QPS_INIT, IB_QPT_RC, RC_INIT_REQ & ~req[i]));
	/* Q_Key is a datagram attribute */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
				   IB_QPT_RC, RC_INIT_REQ | IB_QP_QKEY));
}

static void sib_qp_test_rc_init_to_rtr(struct kunit *test)
{
	static const int req[] = { IB_QP_AV, IB_QP_PATH_MTU, IB_QP_DEST_QPN,
				   IB_QP_RQ_PSN, IB_QP_MAX_DEST_RD_ATOMIC,
				   IB_QP_MIN_RNR_TIMER };
	int i;

	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
						   IB_QPT_RC, RC_RTR_REQ));
	for (i = 0; i < ARRAY_SIZE(req); i++)
		KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT,
				   IB_QPS_RTR, IB_QPT_RC, RC_RTR_REQ & ~req[i]));
	/* the send-side attributes belong to RTR->RTS */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
				   IB_QPT_RC, RC_RTR_REQ | IB_QP_SQ_PSN));
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
				  IB_QPT_RC, RC_RTR_REQ | IB_QP_ACCESS_FLAGS));
}

static void sib_qp_test_rc_rtr_to_rts(struct kunit *test)
{
	static const int req[] = { IB_QP_SQ_PSN, IB_QP_TIMEOUT,
				   IB_QP_RETRY_CNT, IB_QP_RNR_RETRY,
				   IB_QP_MAX_QP_RD_ATOMIC };
	int i;

	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RTR, IB_QPS_RTS,
						   IB_QPT_RC, RC_RTS_REQ));
	for (i = 0; i < ARRAY_SIZE(req); i++)
		KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTR,
				   IB_QPS_RTS, IB_QPT_RC, RC_RTS_REQ & ~req[i]));
	/* the path MTU cannot change once in RTS */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTS, IB_QPS_RTS,
				   IB_QPT_RC, IB_QP_PATH_MTU));
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RTS, IB_QPS_RTS,
				  IB_QPT_RC, IB_QP_MIN_RNR_TIMER));
}

static void sib_qp_test_ud_path(struct kunit *test)
{
	int init = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY;

	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						   IB_QPT_UD, init));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
						    IB_QPT_UD, init & ~IB_QP_QKEY));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_INIT,
				   IB_QPT_UD, init | IB_QP_ACCESS_FLAGS));
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
						   IB_QPT_UD, IB_QP_STATE));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTR,
				   IB_QPT_UD, IB_QP_STATE | IB_QP_AV));
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RTR, IB_QPS_RTS,
				  IB_QPT_UD, IB_QP_STATE | IB_QP_SQ_PSN));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTR, IB_QPS_RTS,
						    IB_QPT_UD, IB_QP_STATE));
}

static void sib_qp_test_illegal_and_universal(struct kunit *test)
{
	static const enum ib_qp_state all[] = { IB_QPS_RESET, IB_QPS_INIT,
		IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD, IB_QPS_SQE, IB_QPS_ERR };
	int i;

	/* no skipping states on the way up */
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_RTR,
				   IB_QPT_RC, RC_INIT_REQ | RC_RTR_REQ));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RESET, IB_QPS_RTS,
				   IB_QPT_UD, IB_QP_STATE | IB_QP_SQ_PSN));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_INIT, IB_QPS_RTS,
						    IB_QPT_RC, RC_RTS_REQ));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_RTR, IB_QPS_SQD,
						    IB_QPT_RC, IB_QP_STATE));
	KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(IB_QPS_ERR, IB_QPS_RTS,
						    IB_QPT_RC, IB_QP_STATE));
	/*
	 * RESET is reachable from everywhere and ERR from everywhere but
	 * RESET (a QP in RESET has nothing to flush), with no attributes.
	 */
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(all[i], IB_QPS_RESET,
							   IB_QPT_RC, IB_QP_STATE));
		KUNIT_EXPECT_EQ_MSG(test, ib_modify_qp_is_ok(all[i], IB_QPS_ERR,
							     IB_QPT_UD, IB_QP_STATE),
				    all[i] != IB_QPS_RESET, "from state %d", all[i]);
	}
	/* SQD and back */
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_RTS, IB_QPS_SQD,
						   IB_QPT_RC, IB_QP_STATE));
	KUNIT_EXPECT_TRUE(test, ib_modify_qp_is_ok(IB_QPS_SQD, IB_QPS_RTS,
						   IB_QPT_RC, IB_QP_STATE));
}

static void sib_qp_test_modify_rejects_values(struct kunit *test)
{
	static const struct {
		int mask;
		struct ib_qp_attr a;
	} bad[] = {
		{ IB_QP_TIMEOUT, { .timeout = 32 } },
		{ IB_QP_RETRY_CNT, { .retry_cnt = 8 } },
		{ IB_QP_RNR_RETRY, { .rnr_retry = 8 } },
		{ IB_QP_MIN_RNR_TIMER, { .min_rnr_timer = 32 } },
		{ IB_QP_PATH_MTU, { .path_mtu = 0 } },
		{ IB_QP_PATH_MTU, { .path_mtu = IB_MTU_4096 + 1 } },
		{ IB_QP_PORT, { .port_num = 2 } },
		{ IB_QP_PORT, { .port_num = 0 } },
		{ IB_QP_PKEY_INDEX, { .pkey_index = SIB_MAX_PKEYS } },
		{ IB_QP_PKEY_INDEX, { .pkey_index = 1 } },	/* no entry */
		{ IB_QP_DEST_QPN, { .dest_qp_num = 0x1000000 } },
		{ IB_QP_MAX_QP_RD_ATOMIC, { .max_rd_atomic = SIB_MAX_QP_RD_ATOM + 1 } },
		{ IB_QP_MAX_DEST_RD_ATOMIC, { .max_dest_rd_atomic = 255 } },
		{ IB_QP_CAP, { .cap = { .max_send_wr = 17 } } },
		{ IB_QP_CAP, { .cap = { .max_recv_sge = 5 } } },
	};
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_RC);
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct ib_qp_attr a = bad[i].a;

		a.qp_state = IB_QPS_INIT;
		a.port_num = a.port_num ?: 1;
		if (bad[i].mask == IB_QP_PORT)
			a.port_num = bad[i].a.port_num;
		KUNIT_EXPECT_EQ_MSG(test, sib_qt_modify(qp, &a, RC_INIT_REQ |
				    bad[i].mask), -EINVAL, "case %d", i);
		KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RESET);
	}
	KUNIT_EXPECT_EQ(test, qp->timeout, 0);
	KUNIT_EXPECT_EQ(test, qp->retry_cnt, 0);
	sib_qt_done(qp);
}

static void sib_qp_test_modify_rejects_mask(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_RC);
	struct ib_qp_attr a = { .qp_state = IB_QPS_INIT, .port_num = 1 };

	KUNIT_EXPECT_EQ(test, sib_qt_modify(qp, &a, RC_INIT_REQ |
					    IB_QP_RATE_LIMIT), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RESET);
	/* missing required attribute */
	KUNIT_EXPECT_EQ(test, sib_qt_modify(qp, &a, RC_INIT_REQ &
					    ~IB_QP_ACCESS_FLAGS), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RESET);
	/* skipping a state */
	a.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, sib_qt_modify(qp, &a, RC_RTS_REQ), -EINVAL);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RESET);
	sib_qt_done(qp);
}

static void sib_qp_test_modify_rc_init(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_RC);
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .pkey_index = 0,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ,
	};

	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, RC_INIT_REQ), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, qp->qp_access_flags,
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	/* INIT -> INIT changes access flags only */
	a.qp_access_flags = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE |
					    IB_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_EQ(test, qp->qp_access_flags, IB_ACCESS_REMOTE_ATOMIC);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_INIT);
	/* bits no access flag names: refused, the flags unchanged */
	a.qp_access_flags = 0xffff;
	KUNIT_EXPECT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE |
					    IB_QP_ACCESS_FLAGS), -EINVAL);
	KUNIT_EXPECT_EQ(test, qp->qp_access_flags, IB_ACCESS_REMOTE_ATOMIC);
	/* memory-only flags: accepted, only what a QP enforces is kept */
	a.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_ON_DEMAND |
			    IB_ZERO_BASED | IB_ACCESS_MW_BIND |
			    IB_ACCESS_RELAXED_ORDERING;
	KUNIT_EXPECT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE |
					    IB_QP_ACCESS_FLAGS), 0);
	KUNIT_EXPECT_EQ(test, qp->qp_access_flags, IB_ACCESS_REMOTE_READ);
	/* RTR needs an address vector */
	a.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, sib_qt_modify(qp, &a, RC_RTR_REQ & ~IB_QP_AV),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_INIT);
	sib_qt_done(qp);
}

static void sib_qp_test_modify_ud_walk(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_UD);
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = 0x1234,
	};

	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE | IB_QP_PORT |
					    IB_QP_PKEY_INDEX | IB_QP_QKEY), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, qp->qkey, 0x1234U);
	a.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RTR);
	/* the SQ PSN is 24 bits; the requester starts there on RTS */
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0xfabcdef;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, qp->sq_psn, 0xabcdefU);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 0xabcdefU);
	qp->req.psn = 0xabcdf5;		/* eight sent */
	a.qp_state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_SQD);
	KUNIT_EXPECT_TRUE(test, qp->sq_draining);
	a.qp_state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_FALSE(test, qp->sq_draining);
	/* back from SQD the requester goes on where it was */
	KUNIT_EXPECT_EQ(test, qp->req.psn, 0xabcdf5U);
	a.qp_state = IB_QPS_ERR;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_ERR);
	/* back to RESET empties the queues and the engine state */
	qp->rq.kprod = 5;
	qp->sq.kprod = 3;
	qp->req.psn = 77;
	qp->resp.msn = 9;
	qp->rq.ring.hdr->producer = 5;
	set_bit(SIB_QPF_TIMEOUT, &qp->flags);
	a.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RESET);
	KUNIT_EXPECT_EQ(test, qp->rq.kprod, 0U);
	KUNIT_EXPECT_EQ(test, qp->sq.kprod, 0U);
	KUNIT_EXPECT_EQ(test, qp->req.psn, 0U);
	KUNIT_EXPECT_EQ(test, qp->resp.msn, 0U);
	KUNIT_EXPECT_EQ(test, qp->rq.ring.hdr->producer, 0U);
	KUNIT_EXPECT_FALSE(test, test_bit(SIB_QPF_TIMEOUT, &qp->flags));
	sib_qt_done(qp);
}

static void sib_qp_test_error(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_RC);
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	/* a QP in RESET stays there */
	sib_qp_error(qp, 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_RESET);
	qp->state = IB_QPS_RTS;
	sib_qp_error(qp, 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_ERR);
	/* failed by the QP itself: queued answers are not taken */
	KUNIT_EXPECT_FALSE(test, test_bit(SIB_QPF_ERR_TAKE, &qp->flags));
	sib_qp_error(qp, 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_ERR);
	/* moved by the consumer from RTS or SQD: they are */
	qp->state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_TRUE(test, test_bit(SIB_QPF_ERR_TAKE, &qp->flags));
	clear_bit(SIB_QPF_ERR_TAKE, &qp->flags);
	qp->state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_TRUE(test, test_bit(SIB_QPF_ERR_TAKE, &qp->flags));
	clear_bit(SIB_QPF_ERR_TAKE, &qp->flags);
	/* from RTR nothing was sent */
	qp->state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_FALSE(test, test_bit(SIB_QPF_ERR_TAKE, &qp->flags));
	/* back to RESET forgets it */
	qp->state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	a.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_FALSE(test, test_bit(SIB_QPF_ERR_TAKE, &qp->flags));
	/*
	 * a user RQ ring's header says ERR while the QP is in it, so that
	 * the provider rings a doorbell for receives posted then
	 */
	qp->rq.ring.user = true;
	qp->state = IB_QPS_RTS;
	sib_qp_error(qp, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qp->rq.ring.hdr->qp_error), 1U);
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(qp->rq.ring.hdr->qp_error), 0U);
	qp->rq.ring.user = false;
	sib_qt_done(qp);
}

static void sib_qp_test_error_ud(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_UD);
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	/* no acknowledgements on UD */
	qp->state = IB_QPS_RTS;
	KUNIT_ASSERT_EQ(test, sib_qt_modify(qp, &a, IB_QP_STATE), 0);
	KUNIT_EXPECT_EQ(test, sib_qp_state(qp), IB_QPS_ERR);
	KUNIT_EXPECT_FALSE(test, test_bit(SIB_QPF_ERR_TAKE, &qp->flags));
	sib_qt_done(qp);
}

static int sib_qt_events;

static void sib_qt_event(struct ib_event *e, void *ctx)
{
	if (e->event == IB_EVENT_SQ_DRAINED && ctx == &sib_qt_events)
		sib_qt_events++;
}

static void sib_qp_test_sqd_drained(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_RC);

	sib_qt_events = 0;
	qp->ibqp.event_handler = sib_qt_event;
	qp->ibqp.qp_context = &sib_qt_events;
	qp->en_sqd_async_notify = true;
	qp->state = IB_QPS_SQD;
	qp->sq_draining = true;
	sib_qp_sqd_check(qp, true);		/* still busy */
	KUNIT_EXPECT_TRUE(test, qp->sq_draining);
	KUNIT_EXPECT_EQ(test, sib_qt_events, 0);
	sib_qp_sqd_check(qp, false);		/* drained: one event */
	KUNIT_EXPECT_FALSE(test, qp->sq_draining);
	KUNIT_EXPECT_EQ(test, sib_qt_events, 1);
	sib_qp_sqd_check(qp, false);		/* and only one */
	KUNIT_EXPECT_EQ(test, sib_qt_events, 1);
	/* outside SQD nothing is reported */
	qp->state = IB_QPS_RTS;
	qp->sq_draining = true;
	sib_qp_sqd_check(qp, false);
	KUNIT_EXPECT_EQ(test, sib_qt_events, 1);
	sib_qt_done(qp);
}

static atomic_t sib_qt_kicks;

static void sib_qt_count(struct work_struct *w)
{
	atomic_inc(&sib_qt_kicks);
}

/*
 * The runner state of task.c: one context runs a QP's rounds, the others
 * only ask for one more (pending), which the runner takes when it stops;
 * a QP nobody runs gets its work scheduled.
 */
static void sib_qp_test_runner_state(struct kunit *test)
{
	struct sib_qp *qp = sib_qt_qp(test, IB_QPT_RC);

	INIT_WORK(&qp->work, sib_qt_count);
	atomic_set(&sib_qt_kicks, 0);
	KUNIT_EXPECT_EQ(test, sib_task_claim(qp, true), SIB_CLAIM_TAKEN);
#ifdef CONFIG_LOCKDEP
	/* the runner role is the runner map lockdep checks (sib_assert_runner()) */
	KUNIT_EXPECT_TRUE(test, lock_is_held(&qp->run.dep_map));
#endif
	KUNIT_EXPECT_EQ(test, sib_task_claim(qp, true), SIB_CLAIM_NONE);
	KUNIT_EXPECT_FALSE(test, sib_task_release(qp));
#ifdef CONFIG_LOCKDEP
	KUNIT_EXPECT_FALSE(test, lock_is_held(&qp->run.dep_map));
#endif
	KUNIT_EXPECT_EQ(test, atomic_read(&qp->task_state), 0);
	/* a poke while it runs marks it and schedules nothing */
	KUNIT_EXPECT_EQ(test, sib_task_claim(qp, false), SIB_CLAIM_TAKEN);
	sib_qp_poke(qp);
	sib_qp_poke(qp);
	KUNIT_EXPECT_EQ(test, atomic_read(&qp->task_state),
			SIB_TASK_RUNNING | SIB_TASK_PENDING);
	flush_work(&qp->work);
	KUNIT_EXPECT_EQ(test, atomic_read(&sib_qt_kicks), 0);
	/* the releasing runner learns that a round is owed */
	KUNIT_EXPECT_TRUE(test, sib_task_release(qp));
	KUNIT_EXPECT_EQ(test, atomic_read(&qp->task_state), 0);
	/* an inline run (RESET: one round that drops nothing) stops clean */
	sib_qp_run(qp, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&qp->task_state), 0);
	/* nobody runs it: a poke schedules the work, once */
	sib_qp_poke(qp);
	flush_work(&qp->work);
	KUNIT_EXPECT_EQ(test, atomic_read(&sib_qt_kicks), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&qp->task_state), 0);
	/* and never for a QP being destroyed */
	set_bit(SIB_QPF_DESTROYING, &qp->flags);
	sib_qp_poke(qp);
	flush_work(&qp->work);
	KUNIT_EXPECT_EQ(test, atomic_read(&sib_qt_kicks), 1);
	sib_qt_done(qp);
}

static struct kunit_case sib_qp_test_cases[] = {
	KUNIT_CASE(sib_qp_test_rc_reset_to_init),
	KUNIT_CASE(sib_qp_test_rc_init_to_rtr),
	KUNIT_CASE(sib_qp_test_rc_rtr_to_rts),
	KUNIT_CASE(sib_qp_test_ud_path),
	KUNIT_CASE(sib_qp_test_illegal_and_universal),
	KUNIT_CASE(sib_qp_test_modify_rejects_values),
	KUNIT_CASE(sib_qp_test_modify_rejects_mask),
	KUNIT_CASE(sib_qp_test_modify_rc_init),
	KUNIT_CASE(sib_qp_test_modify_ud_walk),
	KUNIT_CASE(sib_qp_test_error),
	KUNIT_CASE(sib_qp_test_error_ud),
	KUNIT_CASE(sib_qp_test_sqd_drained),
	KUNIT_CASE(sib_qp_test_runner_state),
	{}
};

static struct kunit_suite sib_qp_test_suite = {
	.name = "softib_qp",
	.suite_init = sib_qt_suite_init,
	.suite_exit = sib_qt_suite_exit,
	.test_cases = sib_qp_test_cases,
};

kunit_test_suite(sib_qp_test_suite);
