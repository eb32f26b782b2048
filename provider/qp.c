// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: queue pairs. Send and receive WQEs are written straight into
 * rings shared with the kernel; a send doorbell (doorbell.c) is only
 * needed while the kernel is idle on the SQ.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "softib.h"

enum {
	SIB_SEND_OPS_SUPPORTED =
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |
		IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |
		IBV_QP_EX_WITH_ATOMIC_WRITE,
};

/* Posting sends is only defined once the QP reached RTS (or later). */
static int sib_sq_state_ok(struct ibv_qp *ibqp)
{
	return ibqp->state != IBV_QPS_RESET && ibqp->state != IBV_QPS_INIT &&
	       ibqp->state != IBV_QPS_RTR;
}

int sib_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct sib_wq *sq = &qp->sq;
	struct ibv_send_wr *dummy;
	uint32_t start;
	int err = 0;

	if (!bad_wr)
		bad_wr = &dummy;
	*bad_wr = NULL;
	if (!wr)
		return 0;
	if (!sq->ring.buf || !sib_sq_state_ok(ibqp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (sib_ring_dead(&sq->ring)) {
		*bad_wr = wr;
		return EIO;
	}

	pthread_spin_lock(&sq->lock);
	start = sq->ring.idx;
	for (; wr; wr = wr->next) {
		uint32_t cons = sib_load_acquire(&sib_ring_hdr(&sq->ring)->consumer);

		if (sib_ring_full(sq->ring.idx, cons, sq->ring.limit)) {
			err = ENOMEM;
			break;
		}
		err = sib_build_send_wqe(sib_ring_slot(sq->ring.buf,
						       sq->ring.idx,
						       sq->ring.num,
						       sq->ring.stride),
					 sq->ring.stride, wr, ibqp->qp_type,
					 sq->max_sge, sq->max_inline,
					 qp->sq_sig_all);
		if (err)
			break;
		sq->ring.idx++;
	}
	if (sq->ring.idx != start)
		(void)sib_sq_publish(qp);
	pthread_spin_unlock(&sq->lock);

	/*
	 * Published WRs are posted whatever the doorbell did: a device gone
	 * meanwhile shows on the next verb (EIO) and in the async event, and
	 * an error here would tell the caller to post them again.
	 */
	if (err)
		*bad_wr = wr;
	return err;
}

int sib_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct ibv_recv_wr *dummy;
	int ret;

	if (!bad_wr)
		bad_wr = &dummy;
	*bad_wr = NULL;
	if (!wr)
		return 0;
	/* no RQ ring (SRQ attached) or RESET: receive queue not usable */
	if (!qp->rq.ring.buf || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	ret = sib_post_recv_ring(&qp->rq, wr, bad_wr);
	if (*bad_wr != wr)	/* some were posted */
		sib_rq_published(qp);
	return ret;
}

int sib_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		struct ibv_mw_bind *bind)
{
	struct ibv_send_wr wr, *bad;
	uint32_t rkey;
	int ret;

	if (!mw || !bind || mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	/* a new key for every bind: same index, next 8-bit key */
	rkey = (mw->rkey & 0xffffff00) | ((mw->rkey + 1) & 0xff);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = bind->bind_info;
	ret = sib_post_send(ibqp, &wr, &bad);
	if (!ret)
		mw->rkey = rkey;
	return ret;
}

/* ---- create / destroy ---- */

/* Map the rings of a new QP from the kernel's answer. */
static int sib_qp_map(struct ibv_context *ctx, struct sib_qp *qp,
		      const struct sib_create_qp_resp *drv,
		      const struct ibv_qp_cap *cap)
{
	int ret;

	ret = sib_mmap_ring(ctx, &qp->sq.ring, drv->sq_mmap_offset,
			    drv->sq_mmap_size, drv->sq_entries, drv->sq_stride);
	if (ret)
		return ret;
	ret = sib_mmap_ring(ctx, &qp->rq.ring, drv->rq_mmap_offset,
			    drv->rq_mmap_size, drv->rq_entries, drv->rq_stride);
	if (ret) {
		sib_munmap_ring(&qp->sq.ring);
		return ret;
	}
	if (qp->sq.ring.buf) {
		qp->sq.ring.limit = sib_min_u32(drv->sq_entries, cap->max_send_wr);
		qp->sq.ring.idx =
			sib_load_acquire(&sib_ring_hdr(&qp->sq.ring)->producer);
	}
	if (qp->rq.ring.buf) {
		qp->rq.ring.limit = sib_min_u32(drv->rq_entries, cap->max_recv_wr);
		qp->rq.ring.idx =
			sib_load_acquire(&sib_ring_hdr(&qp->rq.ring)->producer);
	}
	qp->sq.max_sge = cap->max_send_sge;
	qp->sq.max_inline = sib_min_u32(drv->max_inline_data,
					cap->max_inline_data);
	qp->rq.max_sge = cap->max_recv_sge;
	return 0;
}

/* The ibv_qp_ex opcodes asked for must exist here and on the device. */
static int sib_check_send_ops(struct ibv_context *ctx, uint64_t ops)
{
	enum ibv_atomic_cap cap;
	int ret;

	if (ops & ~(uint64_t)SIB_SEND_OPS_SUPPORTED)
		return EOPNOTSUPP;
	if (!(ops & (IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)))
		return 0;
	ret = sib_ctx_atomic_cap(ctx, &cap);
	if (ret)
		return ret;
	return cap == IBV_ATOMIC_NONE ? EOPNOTSUPP : 0;
}

/* An RSS QP's hash (IBV_QP_INIT_ATTR_RX_HASH) in the driver data. */
static int sib_qp_rx_hash(const struct ibv_qp_init_attr_ex *attr,
			  struct sib_create_qp_cmd *drv)
{
	const struct ibv_rx_hash_conf *h = &attr->rx_hash_conf;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH))
		return 0;
	if (h->rx_hash_key_len != SIB_RX_HASH_KEY_LEN || !h->rx_hash_key)
		return EINVAL;
	drv->rx_hash_function = h->rx_hash_function;
	drv->rx_hash_key_len = h->rx_hash_key_len;
	drv->rx_hash_fields_mask = h->rx_hash_fields_mask;
	memcpy(drv->rx_hash_key, h->rx_hash_key, SIB_RX_HASH_KEY_LEN);
	return 0;
}

struct ibv_qp *sib_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct {
		struct ib_uverbs_ex_create_qp_resp ibv_resp;
		struct sib_create_qp_resp drv;
	} resp;
	struct {
		struct ibv_create_qp_ex ibv_cmd;
		struct sib_create_qp_cmd drv;
	} cmd;
	struct sib_obj_mem mem;
	struct sib_qp *qp;
	int ret;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ret = sib_check_send_ops(ctx, attr->send_ops_flags);
		if (ret) {
			errno = ret;
			return NULL;
		}
	}
	/* the PD field is only read when comp_mask says it is set */
	qp = sib_obj_calloc(attr->comp_mask & IBV_QP_INIT_ATTR_PD ? attr->pd : NULL,
			    sizeof(*qp), SIB_RES_TYPE_QP, &mem);
	if (!qp)
		return NULL;
	qp->mem = mem;
	if (sib_wq_init(&qp->sq) || sib_wq_init(&qp->rq)) {
		sib_obj_free(qp, &qp->mem);
		errno = ENOMEM;
		return NULL;
	}
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	ret = sib_qp_rx_hash(attr, &cmd.drv);
	if (ret)
		goto err_free;
	/* the ex2 command passes create_flags etc. on for the kernel to judge */
	ret = ibv_cmd_create_qp_ex2(ctx, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sib_qp_map(ctx, qp, &resp.drv, &attr->cap);
	if (ret) {
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		goto err_free;
	}
	qp->sq_sig_all = !!attr->sq_sig_all;
	sib_db_file_prepare(to_sib_ctx(ctx));
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		sib_qp_ex_setup(qp, attr->send_ops_flags);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return &qp->vqp.qp;

err_free:
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	sib_obj_free(qp, &qp->mem);
	errno = ret;
	return NULL;
}

struct ibv_qp *sib_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	ex.qp_context = attr->qp_context;
	ex.send_cq = attr->send_cq;
	ex.recv_cq = attr->recv_cq;
	ex.srq = attr->srq;
	ex.cap = attr->cap;
	ex.qp_type = attr->qp_type;
	ex.sq_sig_all = attr->sq_sig_all;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = sib_create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/*
 * A QP moved to RESET: drop its completions nobody polled yet (flushes of
 * the error state before), as IBTA 10.3.1 allows and as applications that
 * reuse a QP after an error expect. Only the consumer writes slots below
 * the producer index it read: kept entries move up towards that index and
 * the consumer index skips the dropped ones.
 */
static void sib_cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct sib_cq *cq = ibcq ? to_sib_cq(ibcq) : NULL;
	struct sib_ring *r;
	uint32_t prod, i, dropped = 0;

	if (!cq || !cq->ring.buf)
		return;
	r = &cq->ring;
	pthread_spin_lock(&cq->lock);
	prod = sib_load_acquire(&sib_ring_hdr(r)->producer);
	if (sib_ring_used(prod, r->idx) <= r->num) {
		for (i = prod; i != r->idx;) {
			struct sib_cqe *e;

			i--;
			e = sib_ring_slot(r->buf, i, r->num, r->stride);
			if (e->qp_num == qpn)
				dropped++;
			else if (dropped)
				memcpy(sib_ring_slot(r->buf, i + dropped, r->num,
						     r->stride), e, sizeof(*e));
		}
		r->idx += dropped;
		sib_store_release(&sib_ring_hdr(r)->consumer, r->idx);
	}
	pthread_spin_unlock(&cq->lock);
}

int sib_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	struct ibv_modify_qp cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_modify_qp(ibqp, attr, mask, &cmd, sizeof(cmd));
	if (ret || !(mask & IBV_QP_STATE) || attr->qp_state != IBV_QPS_RESET)
		return ret;
	sib_cq_clean(ibqp->send_cq, ibqp->qp_num);
	if (ibqp->recv_cq != ibqp->send_cq)
		sib_cq_clean(ibqp->recv_cq, ibqp->qp_num);
	/* RESET empties both queues: the kernel zeroed the ring indices */
	pthread_spin_lock(&qp->sq.lock);
	qp->sq.ring.idx = 0;
	pthread_spin_unlock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	qp->rq.ring.idx = 0;
	pthread_spin_unlock(&qp->rq.lock);
	return 0;
}

int sib_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct ibv_query_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_qp(ibqp, attr, mask, init, &cmd, sizeof(cmd));
}

int sib_destroy_qp(struct ibv_qp *ibqp)
{
	struct sib_qp *qp = to_sib_qp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	sib_munmap_ring(&qp->sq.ring);
	sib_munmap_ring(&qp->rq.ring);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	sib_obj_free(qp, &qp->mem);
	return 0;
}
