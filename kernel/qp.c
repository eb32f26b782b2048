// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: queue pairs: create/modify/query/destroy, the one state
 * variable and the one function that changes it, posting, the copy of
 * user WQEs into the kernel-private shadow, and flushing to error.
 *
 * Teardown argument: a QP is found by packets only through dev->qp_xa,
 * and by the doorbell file only through its context's db_qps (a user QP
 * with a send ring), each under the xarray's lock, with a reference
 * taken there. destroy_qp erases it from both xarrays, drops the
 * initial reference and waits for the last one; after that only its own
 * timers and work can touch it, and those are stopped with the
 * DESTROYING bit set so they do not re-arm.
 */
#include <linux/vmalloc.h>
#include <linux/cpumask.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/ib_cache.h>
#include <rdma/restrack.h>

#include "qp.h"
#include "rss.h"
#include "tm.h"
#include "qpcore.h"
#include "sched.h"
#include "psn.h"
#include "queue.h"
#include "ah.h"
#include "cq.h"
#include "srq.h"
#include "timers.h"
#include "task.h"
#include "doorbell.h"
#include "hdr.h"
#include "trace.h"
#include "lrh.h"
#include "net.h"

#define SIB_QP_ATTR_SUPPORTED (IB_QP_STATE | IB_QP_CUR_STATE |		\
	IB_QP_EN_SQD_ASYNC_NOTIFY | IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | \
	IB_QP_PORT | IB_QP_QKEY | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_TIMEOUT | \
	IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_RQ_PSN |		\
	IB_QP_MAX_QP_RD_ATOMIC | IB_QP_ALT_PATH | IB_QP_MIN_RNR_TIMER |	\
	IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_PATH_MIG_STATE |	\
	IB_QP_CAP | IB_QP_DEST_QPN)

/*
 * What a QP's access flags can mean (IBTA Modify QP: the RDMA READ, RDMA
 * WRITE and atomic enables; LOCAL_WRITE, which many callers set, is kept and
 * reported back as rdma_rxe does). The other IB_ACCESS_* flags describe
 * memory (MW_BIND, ZERO_BASED, ON_DEMAND, HUGETLB, RELAXED_ORDERING):
 * accepted, as NICs accept them (rdma-core's tests pass an MR's access
 * flags to modify_qp), and dropped, so query_qp shows what the QP
 * enforces. Bits no IB_ACCESS_* flag names are refused with EINVAL, as
 * ib_check_mr_access() refuses them for an MR.
 */
#define SIB_QP_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |	\
		       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static u32 sib_sq_slot(u32 max_sge, u32 max_inline)
{
	return max_t(u32, max_sge * sizeof(struct sib_sge), max_inline);
}

/* A QP takes its receives from an SRQ, or has none (XRC): no RQ of its own. */
static bool sib_qp_has_rq(const struct ib_qp_init_attr *init)
{
	return !init->srq && init->qp_type != IB_QPT_XRC_INI &&
	       init->qp_type != IB_QPT_XRC_TGT;
}

static int sib_qp_check_cap(struct sib_dev *dev, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	/*
	 * Without an RQ of its own the receive caps mean nothing and are
	 * ignored, whatever they say (ibv_create_qp(3)); they read back as 0.
	 */
	if (!sib_qp_has_rq(init) || init->rwq_ind_tbl) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	if (cap->max_send_wr > dev->lim.max_qp_wr ||
	    cap->max_recv_wr > dev->lim.max_qp_wr ||
	    cap->max_send_sge > SIB_MAX_SGE ||
	    cap->max_recv_sge > SIB_MAX_SGE ||
	    cap->max_inline_data > SIB_MAX_INLINE_DATA)
		return -EINVAL;
	return 0;
}

/*
 * The driver data of create_qp (struct sib_create_qp_cmd): a shorter one
 * is zero-extended, a longer one must be zero past ours.
 */
static int sib_qp_copy_cmd(struct ib_udata *udata,
			   struct sib_create_qp_cmd *cmd)
{
	if (!udata || !udata->inlen)
		return 0;
	if (udata->inlen > sizeof(*cmd) &&
	    !ib_is_udata_cleared(udata, sizeof(*cmd),
				 udata->inlen - sizeof(*cmd)))
		return -EINVAL;
	return ib_copy_from_udata(cmd, udata, min(udata->inlen, sizeof(*cmd)));
}

static int sib_qp_alloc_queues(struct sib_qp *qp, struct ib_qp_init_attr *init,
			       struct ib_udata *udata,
			       struct sib_create_qp_resp *resp)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 slot, sq_num, rq_num, rq_stride;
	int err;

	/* on a TM SRQ: room for the rendezvous READ and FIN (tm.c) */
	if (init->srq && to_sib_srq(init->srq)->tm)
		qp->sq.reserved = SIB_TM_QP_SLOTS;
	sq_num = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1) +
				    qp->sq.reserved);
	rq_num = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1));
	qp->sq.max_sge = max_t(u32, cap->max_send_sge, 1);
	qp->sq.max_inline = cap->max_inline_data;
	qp->rq.max_sge = max_t(u32, cap->max_recv_sge, 1);
	slot = sib_sq_slot(qp->sq.max_sge, qp->sq.max_inline);
	qp->sq.num = sq_num;
	qp->sq.sstride = ALIGN(sizeof(struct sib_swqe) + slot, 8);
	qp->sq.shadow = kvzalloc(array_size(sq_num, qp->sq.sstride),
				 GFP_KERNEL);
	if (!qp->sq.shadow)
		return -ENOMEM;
	rq_stride = roundup_pow_of_two(SIB_RECV_WQE_HDR_SIZE +
				       qp->rq.max_sge * sizeof(struct sib_sge));
	if (!sib_qp_has_rq(init)) {
		/* receives come from an SRQ or never: no RQ ring at all */
		rq_num = 0;
		rq_stride = 0;
		qp->rq.max_sge = 0;
	} else {
		err = udata ? sib_ring_alloc(&qp->rq.ring, rq_num, rq_stride) :
			      sib_ring_alloc_kernel(&qp->rq.ring, rq_num,
						    rq_stride);
		if (err)
			return err;
	}
	/* an RSS QP sends nothing: no SQ ring */
	if (!udata || init->rwq_ind_tbl)
		return 0;
	err = sib_ring_alloc(&qp->sq.ring, sq_num,
			     roundup_pow_of_two(SIB_SEND_WQE_HDR_SIZE + slot));
	if (err)
		return err;
	qp->sq.ring.hdr->kernel_idle = 1;
	err = sib_ring_expose(&qp->sq.ring, sib_udata_uctx(udata),
			      &resp->sq_mmap_offset, &resp->sq_mmap_size);
	if (err)
		return err;
	if (rq_num) {
		err = sib_ring_expose(&qp->rq.ring, sib_udata_uctx(udata),
				      &resp->rq_mmap_offset,
				      &resp->rq_mmap_size);
		if (err)
			return err;
	}
	resp->sq_entries = sq_num;
	resp->sq_stride = qp->sq.ring.stride;
	resp->rq_entries = rq_num;
	resp->rq_stride = rq_stride;
	resp->max_inline_data = qp->sq.max_inline;
	return 0;
}

static void sib_qp_free_queues(struct sib_qp *qp)
{
	sib_ring_free(&qp->sq.ring);
	sib_ring_free(&qp->rq.ring);
	kvfree(qp->sq.shadow);
	qp->sq.shadow = NULL;
	kfree_skb(qp->loop.skb);
	qp->loop.skb = NULL;
}

static int sib_qp_alloc_qpn(struct sib_dev *dev, struct sib_qp *qp,
			    enum ib_qp_type type)
{
	u32 qpn;
	int err;

	if (type == IB_QPT_GSI || type == IB_QPT_SMI) {
		qpn = type == IB_QPT_SMI ? 0 : SIB_GSI_QPN;
		err = xa_insert_bh(&dev->qp_xa, qpn, NULL, GFP_KERNEL);
	} else {
		err = xa_alloc_cyclic_bh(&dev->qp_xa, &qpn, NULL,
					 XA_LIMIT(SIB_MIN_QPN, SIB_MAX_QPN),
					 &dev->next_qpn, GFP_KERNEL);
		err = err < 0 ? err : 0;
	}
	if (err)
		return err == -EBUSY ? -EEXIST : err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

/**
 * sib_create_qp() - ib_device_ops.create_qp: RC, UC, UD, GSI, XRC_INI, XRC_TGT,
 *		     SMI (QP0) on an InfiniBand device, RAW_PACKET on a RoCE
 *		     one (ib_uverbs checks CAP_NET_RAW; raw.c)
 * @ibqp: core-allocated QP
 * @init: attributes; caps are rounded up and written back
 * @udata: user data or NULL; answers struct sib_create_qp_resp
 *
 * Context: process. Return: 0, -EOPNOTSUPP (type, SRQ, create flags),
 * -EINVAL (caps), -ENOMEM.
 */
int sib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibqp->device);
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct sib_create_qp_resp resp = {};
	struct sib_create_qp_cmd cmd = {};
	int err;

	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI &&
	    init->qp_type != IB_QPT_XRC_INI && init->qp_type != IB_QPT_XRC_TGT &&
	    !(init->qp_type == IB_QPT_SMI && sib_is_ib(dev)) &&
	    !(init->qp_type == IB_QPT_RAW_PACKET && !sib_is_ib(dev)))
		return -EOPNOTSUPP;
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (init->srq && init->srq->srq_type != IB_SRQT_BASIC &&
	    init->srq->srq_type != IB_SRQT_TM)
		return -EINVAL;
	/* tag matching is for RC (IB_TM_CAP_RNDV_RC) */
	if (init->srq && init->srq->srq_type == IB_SRQT_TM &&
	    init->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (init->rwq_ind_tbl) {
		/* RSS: receive only, into the table's WQs and their CQs */
	} else if (init->qp_type == IB_QPT_XRC_TGT) {
		/* receive side only; its SRQs and CQs come with each packet */
		if (!init->xrcd || init->srq)
			return -EINVAL;
	} else if (!init->send_cq ||
		   (!init->recv_cq && init->qp_type != IB_QPT_XRC_INI)) {
		return -EINVAL;
	}
	err = sib_qp_check_cap(dev, init);
	if (err)
		return err;
	err = sib_qp_copy_cmd(udata, &cmd);
	if (err)
		return err;
	/* the hash belongs to RSS QPs only */
	if (!init->rwq_ind_tbl && memchr_inv(&cmd, 0, sizeof(cmd)))
		return -EINVAL;
	err = sib_obj_take(dev, SIB_OBJ_QP);
	if (err)
		return err;
	qp->dev = dev;
	qp->is_user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->state = IB_QPS_RESET;
	qp->scq = to_sib_cq(init->send_cq);
	qp->rcq = to_sib_cq(init->recv_cq);
	qp->srq = to_sib_srq(init->srq);
	qp->mtu = 256;
	qp->path_mtu = IB_MTU_256;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	skb_queue_head_init(&qp->rxq);
	INIT_WORK(&qp->work, sib_qp_task);
	tasklet_setup(&qp->rx_tasklet, sib_qp_rx_tasklet);
	sib_run_map_init(qp);
	atomic_set(&qp->task_state, 0);
	sib_timers_init(qp);
	err = sib_qp_alloc_qpn(dev, qp, init->qp_type);
	if (err)
		goto err_cnt;
	if (init->qp_type == IB_QPT_GSI)
		qp->qkey = SIB_GSI_QKEY;
	qp->src_port = 0xc000 | (hash_32(ibqp->qp_num, 14) & 0x3fff);
	qp->xmit_cpu = cpumask_local_spread(ibqp->qp_num % num_online_cpus(),
					    NUMA_NO_NODE);
	if (init->rwq_ind_tbl)
		err = sib_rss_qp_setup(qp, init, &cmd);
	else if (init->srq && to_sib_srq(init->srq)->tm)
		err = sib_tm_qp_init(qp);
	if (!err)
		err = sib_qp_alloc_queues(qp, init, udata, &resp);
	if (err)
		goto err_queues;
	init->cap.max_send_wr = qp->sq.num - qp->sq.reserved;
	init->cap.max_recv_wr = qp->rq.ring.num;
	init->cap.max_send_sge = qp->sq.max_sge;
	init->cap.max_recv_sge = qp->rq.max_sge;
	init->cap.max_inline_data = qp->sq.max_inline;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_queues;
		/* what the context's doorbell file may name */
		if (qp->sq.ring.hdr) {
			err = sib_db_qp_add(qp, to_sib_uc(sib_udata_uctx(udata)));
			if (err)
				goto err_queues;
		}
	}
	xa_store_bh(&dev->qp_xa, ibqp->qp_num, qp, GFP_KERNEL);
	return 0;

err_queues:
	sib_db_qp_del(qp);
	sib_qp_free_queues(qp);
	kfree(qp->rss);
	sib_tm_qp_free(qp);
	xa_erase_bh(&dev->qp_xa, ibqp->qp_num);
err_cnt:
	sib_obj_release(dev, SIB_OBJ_QP);
	return err;
}

static int sib_qp_check_attr(struct sib_qp *qp, struct ib_qp_attr *attr,
			     int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~IB_ACCESS_SUPPORTED))
		return -EINVAL;
	/* the index must name a valid entry of the port's table (IBTA 10.9.2) */
	if ((mask & IB_QP_PKEY_INDEX) &&
	    !sib_pkey_valid(sib_pkey_at(&qp->dev->pkey, attr->pkey_index)))
		return -EINVAL;
	/*
	 * Any path MTU up to the port's max_mtu (o10-2.2 lets the CI reject
	 * only a PMTU the port does not support). One above the active MTU
	 * (ibv_rc_pingpong -m 4096 on a netdev of MTU 1500; applications
	 * that take the path MTU from max_mtu) makes packets larger than the
	 * netdev's MTU: transmit sends those without DF and IP fragments
	 * them (send_ip_fragmented), as when the MTU shrinks under a QP, and
	 * as rdma_rxe and RoCE NICs accept it.
	 */
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > SIB_MAX_MTU))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SIB_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SIB_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SIB_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_CAP) &&
	    (attr->cap.max_send_wr > qp->sq.num ||
	     attr->cap.max_recv_wr > qp->rq.ring.num ||
	     attr->cap.max_send_sge > qp->sq.max_sge ||
	     attr->cap.max_recv_sge > qp->rq.max_sge ||
	     attr->cap.max_inline_data > qp->sq.max_inline))
		return -EINVAL;
	return 0;
}

static void sib_qp_apply_attr(struct sib_qp *qp, struct ib_qp_attr *attr,
			      int mask, const struct sib_av *av)
{
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->qp_access_flags = attr->qp_access_flags & SIB_QP_ACCESS;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if ((mask & IB_QP_QKEY) && qp->ibqp.qp_type != IB_QPT_GSI)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		qp->av = *av;
		qp->ah_attr = attr->ah_attr;
		qp->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU) {
		qp->path_mtu = attr->path_mtu;
		/*
		 * an InfiniBand port has no IP to fragment: no packet larger
		 * than its active MTU (MtuCap, NeighborMTU) may leave it
		 */
		if (sib_is_ib(qp->dev))
			qp->path_mtu = min(qp->path_mtu,
					   sib_ib_active_mtu(qp->dev));
		qp->mtu = ib_mtu_enum_to_int(qp->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT) {
		qp->retry_cnt = attr->retry_cnt;
		qp->comp.retry_left = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		qp->rnr_retry = attr->rnr_retry;
		qp->comp.rnr_left = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	/*
	 * UDP source port: from the flow label when the application set
	 * one, else from both QPNs (the same on both ends), for ECMP.
	 */
	if ((mask & (IB_QP_AV | IB_QP_DEST_QPN)) &&
	    qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI &&
	    qp->ibqp.qp_type != IB_QPT_SMI)
		qp->src_port = rdma_get_udp_sport(qp->av.flow_label,
						  qp->ibqp.qp_num, qp->dest_qpn);
	if (mask & IB_QP_RQ_PSN) {
		qp->rq_psn = attr->rq_psn & SIB_PSN_MASK;
		qp->resp.epsn = qp->rq_psn;
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->sq_psn = attr->sq_psn & SIB_PSN_MASK;
		qp->req.psn = qp->sq_psn;
		qp->comp.acked_psn = sib_psn_add(qp->sq_psn, SIB_PSN_MASK);
	}
}

/*
 * Back to RESET (qp->state is RESET already, so no round does anything
 * but drop packets): stop the engines, then empty all queues.
 */
static void sib_qp_reset(struct sib_qp *qp)
{
	sib_timers_stop(qp);
	cancel_work_sync(&qp->work);
	/* an inline runner (a loopback peer) finishes its round */
	while (atomic_read_acquire(&qp->task_state) & SIB_TASK_RUNNING)
		usleep_range(50, 100);
	/* one that stopped at its round budget queued the work again */
	cancel_work_sync(&qp->work);
	sib_timers_stop(qp);
	sib_rxq_purge(qp);
	sib_tm_qp_reset(qp);
	spin_lock_irq(&qp->sq.lock);
	qp->sq.kprod = 0;
	qp->sq.ucons = 0;
	qp->sq.comp = 0;
	qp->sq.req = 0;
	if (qp->sq.ring.hdr) {
		qp->sq.ring.hdr->producer = 0;
		qp->sq.ring.hdr->consumer = 0;
	}
	spin_unlock_irq(&qp->sq.lock);
	spin_lock_irq(&qp->rq.lock);
	qp->rq.kprod = 0;
	qp->rq.kcons = 0;
	if (qp->rq.ring.hdr) {
		qp->rq.ring.hdr->producer = 0;
		qp->rq.ring.hdr->consumer = 0;
	}
	spin_unlock_irq(&qp->rq.lock);
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	memset(&qp->comp, 0, sizeof(qp->comp));
	qp->flags &= BIT(SIB_QPF_DESTROYING);
}

/**
 * sib_modify_qp() - ib_device_ops.modify_qp (IBTA 11.2.5.1)
 * @ibqp: QP
 * @attr: attributes
 * @mask: IB_QP_* bits of @attr to apply
 * @udata: user data (no driver data defined)
 *
 * The transition and the attribute mask are checked with
 * ib_modify_qp_is_ok(), values against the device limits; a pkey_index
 * must name a valid entry of the port's P_Key table.
 * Context: process. Return: 0, -EINVAL, -EOPNOTSUPP, -EPERM (a user QP
 * setting a privileged Q_Key without CAP_NET_RAW).
 */
int sib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	enum ib_qp_state cur, new;
	struct sib_av av = {};
	int err;

	if (mask & ~SIB_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;
	/* a privileged Q_Key (bit 31, IBTA 10.2.4) needs CAP_NET_RAW in user space */
	if (udata && (mask & IB_QP_QKEY) && (attr->qkey & SIB_QKEY_PRIV) &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	err = sib_qp_check_attr(qp, attr, mask);
	if (err)
		return err;
	if (mask & IB_QP_AV) {
		err = sib_av_from_attr(qp->dev, &attr->ah_attr, &av);
		if (err)
			return err;
	}
	spin_lock_irq(&qp->state_lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		spin_unlock_irq(&qp->state_lock);
		return -EINVAL;
	}
	cur = qp->state;
	sib_qp_apply_attr(qp, attr, mask, &av);
	/* what the responder answered before now still completes */
	if (new == IB_QPS_ERR && (cur == IB_QPS_RTS || cur == IB_QPS_SQD) &&
	    (ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_XRC_INI)) {
		set_bit(SIB_QPF_ERR_TAKE, &qp->flags);
		/* a runner that sees ERR sees the flag (lockless read) */
		smp_mb__after_atomic();
	}
	if (new != cur)
		sib_qp_set_state(qp, new);
	spin_unlock_irq(&qp->state_lock);

	if (new == IB_QPS_RESET && cur != IB_QPS_RESET)
		sib_qp_reset(qp);
	if (new == IB_QPS_ERR || new == IB_QPS_RTS || new == IB_QPS_SQD)
		sib_qp_kick(qp);
	return 0;
}

/**
 * sib_query_qp() - ib_device_ops.query_qp
 * @ibqp: QP
 * @attr: out
 * @mask: ignored, everything is returned
 * @init: out
 *
 * Context: process. Return: 0.
 */
int sib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct sib_qp *qp = to_sib_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock_irq(&qp->state_lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->resp.epsn;
	attr->sq_psn = qp->req.psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->qp_access_flags;
	attr->ah_attr = qp->ah_attr;
	attr->pkey_index = qp->pkey_index;
	attr->sq_draining = qp->sq_draining;
	attr->en_sqd_async_notify = qp->en_sqd_async_notify;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->port_num = 1;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	spin_unlock_irq(&qp->state_lock);
	attr->cap.max_send_wr = qp->sq.num;
	attr->cap.max_recv_wr = qp->rq.ring.num;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	init->send_cq = qp->ibqp.send_cq;
	init->recv_cq = qp->ibqp.recv_cq;
	init->qp_type = qp->ibqp.qp_type;
	init->srq = qp->ibqp.srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->ibqp.qp_type == IB_QPT_GSI ||
			    qp->ibqp.qp_type == IB_QPT_SMI ? IB_SIGNAL_ALL_WR :
			    (qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR);
	init->port_num = 1;
	return 0;
}

/**
 * sib_destroy_qp() - ib_device_ops.destroy_qp
 * @ibqp: QP
 * @udata: unused
 *
 * Context: process, sleeps until no packet or timer uses the QP.
 * Return: 0.
 */
int sib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct sib_dev *dev = qp->dev;

	set_bit(SIB_QPF_DESTROYING, &qp->flags);
	sib_db_qp_del(qp);
	xa_erase_bh(&dev->qp_xa, ibqp->qp_num);
	sib_qp_put(qp);
	wait_for_completion(&qp->released);
	/* no receiver holds the QP now: none schedules its tasklet again */
	tasklet_kill(&qp->rx_tasklet);
	sib_timers_stop(qp);
	cancel_work_sync(&qp->work);
	sib_timers_stop(qp);
	sib_rxq_purge(qp);
	sib_qp_free_queues(qp);
	sib_route_cache_drop(&qp->route);
	kfree(qp->rss);
	sib_tm_qp_free(qp);
	sib_obj_release(dev, SIB_OBJ_QP);
	return 0;
}

static int sib_sq_copy_kernel(struct sib_qp *qp, const struct ib_send_wr *wr,
			      struct sib_swqe *sw)
{
	struct sib_send_wqe *w = &sw->wqe;
	u64 total = 0;
	int i;

	if (!sib_opcode_ok(qp, wr->opcode) || wr->num_sge < 0 ||
	    wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	sib_swqe_reset(sw);
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags & SIB_SEND_FLAGS_ALL;
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		w->ex = wr->ex.imm_data;
	if (wr->opcode == IB_WR_SEND_WITH_INV || wr->opcode == IB_WR_LOCAL_INV)
		memcpy(&w->ex, &wr->ex.invalidate_rkey, sizeof(w->ex));
	if (wr->opcode == IB_WR_REG_MR) {
		/* the MR is named by its key index, never by a pointer */
		w->wr.bind.mr_lkey = reg_wr(wr)->mr->lkey;
		w->wr.bind.rkey = reg_wr(wr)->key;
		w->wr.bind.access = reg_wr(wr)->access;
		return 0;
	}
	if (wr->opcode == IB_WR_LOCAL_INV)
		return 0;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SIB_MAX_MSG_SIZE)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE && wr->opcode != IB_WR_RDMA_READ &&
	    !sib_is_atomic(wr->opcode)) {
		u8 *p = sw->inline_data;

		if (total > qp->sq.max_inline)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		w->inline_len = total;
	} else {
		w->send_flags &= ~SIB_SEND_INLINE;
		w->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sw->sge[i].addr = wr->sg_list[i].addr;
			sw->sge[i].length = wr->sg_list[i].length;
			sw->sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	sw->total_len = total;
	if (sib_is_atomic(wr->opcode)) {
		if (total < sizeof(u64))
			return -EINVAL;
		sw->total_len = sizeof(u64);
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
	} else if (!sib_qp_is_ud(qp)) {
		if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM) {
			w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
			w->wr.rdma.rkey = rdma_wr(wr)->rkey;
		}
	} else {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		sw->av = to_sib_ah(ud_wr(wr)->ah)->av;
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn & SIB_QPN_MASK;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		sw->pkey_index = ud_wr(wr)->pkey_index;
	}
	return 0;
}

/**
 * sib_post_send() - ib_device_ops.post_send
 * @ibqp: QP
 * @wr: kernel WR list; NULL for a user QP's doorbell
 * @bad_wr: out, first WR not posted
 *
 * Kernel WRs are validated and copied into the shadow; a user doorbell
 * copies from the user SQ ring. Context: any for kernel QPs, process
 * for user QPs. Return: 0, -EINVAL (state, opcode, sizes), -ENOMEM
 * (queue full).
 */
int sib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	enum ib_qp_state state = sib_qp_state(qp);
	unsigned long flags;
	int err = 0;

	if (qp->is_user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return sib_qp_sq_doorbell(qp);
	}
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		u32 kprod = qp->sq.kprod;

		if (kprod - READ_ONCE(qp->sq.comp) >= qp->sq.num) {
			err = -ENOMEM;
			break;
		}
		err = sib_sq_copy_kernel(qp, wr, sib_swqe_at(qp, kprod));
		if (err)
			break;
		smp_store_release(&qp->sq.kprod, kprod + 1);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (err)
		*bad_wr = wr;
	sib_qp_kick(qp);
	return err;
}

/**
 * sib_post_recv() - ib_device_ops.post_recv, kernel QPs
 * @ibqp: QP
 * @wr: WR list
 * @bad_wr: out, first WR not posted
 *
 * Context: any. Return: 0, -EINVAL (state, SGE count, user QP),
 * -ENOMEM (queue full).
 */
int sib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct sib_ring *r = &qp->rq.ring;
	unsigned long flags;
	int err = 0;
	int i;

	if (qp->is_user || !r->buf || sib_qp_state(qp) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	for (; wr; wr = wr->next) {
		struct sib_recv_wqe *h = sib_ring_entry(r, qp->rq.kprod);
		struct sib_sge *sge = (struct sib_sge *)(h + 1);

		if (wr->num_sge < 0 || wr->num_sge > qp->rq.max_sge) {
			err = -EINVAL;
			break;
		}
		if (qp->rq.kprod - READ_ONCE(qp->rq.kcons) >= r->num) {
			err = -ENOMEM;
			break;
		}
		h->wr_id = wr->wr_id;
		h->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		qp->rq.kprod++;
		smp_store_release(&r->hdr->producer, qp->rq.kprod);
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (err)
		*bad_wr = wr;
	/*
	 * The producer before the state: a modify to ERR that this load
	 * misses runs the QP after its state store, and that run's flush
	 * sees the producer (the run's entry is a full barrier).
	 */
	smp_mb();
	if (sib_qp_state(qp) == IB_QPS_ERR)
		sib_qp_kick(qp);
	return err;
}

/*
 * DCQCN (cc.c): the current and target rate in Mbit/s and alpha in
 * 1/1024 while the QP is rate limited; "cc_rate_mbps 0" while it sends
 * at full speed.
 */
static int sib_fill_res_cc(struct sk_buff *msg, struct sib_qp *qp)
{
	const struct sib_cc_rp *rp = &qp->req.rp;
	bool lim = READ_ONCE(rp->limited);

	if (rdma_nl_put_driver_u32(msg, "cc_rate_mbps", lim ? READ_ONCE(rp->rc) : 0) ||
	    rdma_nl_put_driver_u32(msg, "cc_target_mbps", lim ? READ_ONCE(rp->rt) : 0) ||
	    rdma_nl_put_driver_u32(msg, "cc_alpha", lim ? READ_ONCE(rp->alpha) : 0))
		return -EMSGSIZE;
	return 0;
}

/**
 * sib_fill_res_qp_entry() - ib_device_ops.fill_res_qp_entry
 * @msg: netlink message being built for `rdma res show qp -dd`
 * @ibqp: QP
 *
 * Adds a snapshot of the kernel-only queue and PSN state and the DCQCN
 * rate, in the RDMA_NLDEV_ATTR_DRIVER nest that rdma(8) prints with -dd.
 * Context: process. Return: 0 or -EMSGSIZE.
 */
int sib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct nlattr *tbl;

	/* rdma(8) shows driver attributes only inside this nest */
	tbl = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!tbl)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "sq_posted", READ_ONCE(qp->sq.kprod)) ||
	    rdma_nl_put_driver_u32(msg, "sq_sent", READ_ONCE(qp->sq.req)) ||
	    rdma_nl_put_driver_u32(msg, "sq_completed", READ_ONCE(qp->sq.comp)) ||
	    rdma_nl_put_driver_u32(msg, "rq_consumed", READ_ONCE(qp->rq.kcons)) ||
	    rdma_nl_put_driver_u32_hex(msg, "next_psn", READ_ONCE(qp->req.psn)) ||
	    rdma_nl_put_driver_u32_hex(msg, "expected_psn",
				       READ_ONCE(qp->resp.epsn)) ||
	    rdma_nl_put_driver_u32(msg, "reads_out",
				   READ_ONCE(qp->req.rd_inflight)) ||
	    rdma_nl_put_driver_u32(msg, "rx_queued", skb_queue_len(&qp->rxq)) ||
	    rdma_nl_put_driver_u32(msg, "send_window",
				   READ_ONCE(qp->req.win.cwnd)) ||
	    rdma_nl_put_driver_u32(msg, "srtt_us",
				   READ_ONCE(qp->req.win.srtt_us)) ||
	    rdma_nl_put_driver_u32(msg, "min_rtt_us",
				   READ_ONCE(qp->req.win.min_rtt_us)) ||
	    rdma_nl_put_driver_u32(msg, "retry_left",
				   READ_ONCE(qp->comp.retry_left)) ||
	    sib_fill_res_cc(msg, qp)) {
		nla_nest_cancel(msg, tbl);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, tbl);
	return 0;
}
