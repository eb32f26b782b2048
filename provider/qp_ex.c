// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: the ibv_qp_ex work request API (ibv_wr_start ... complete).
 * wr_start takes the SQ lock; every wr_<opcode> call opens a new WQE in the
 * next free slot and the wr_set_* calls fill it in. Nothing is visible to
 * the kernel before wr_complete publishes the producer index; the first
 * error is remembered and returned by wr_complete, which then drops the
 * whole batch, as wr_abort does.
 */
#include <errno.h>
#include <string.h>
#include "softib.h"

#define SIB_EX_FLAG_MASK (IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
			  IBV_SEND_SOLICITED | IBV_SEND_IP_CSUM)

static void sib_wr_start(struct ibv_qp_ex *ibqp)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);
	struct ibv_qp *base = &ibqp->qp_base;

	pthread_spin_lock(&qp->sq.lock);
	qp->ex_start_idx = qp->sq.ring.idx;
	qp->cur_wqe = NULL;
	qp->ex_err = 0;
	if (!qp->sq.ring.buf || base->state == IBV_QPS_RESET ||
	    base->state == IBV_QPS_INIT || base->state == IBV_QPS_RTR)
		qp->ex_err = EINVAL;
}

static int sib_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);
	int ret = qp->ex_err;

	if (ret)
		qp->sq.ring.idx = qp->ex_start_idx;
	else if (qp->sq.ring.idx != qp->ex_start_idx)
		(void)sib_sq_publish(qp);	/* posted: see sib_post_send() */
	qp->cur_wqe = NULL;
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

static void sib_wr_abort(struct ibv_qp_ex *ibqp)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);

	qp->sq.ring.idx = qp->ex_start_idx;
	qp->cur_wqe = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

/* Record the first error of the batch and stop filling the current WQE. */
static void sib_ex_fail(struct sib_qp *qp, int err)
{
	if (!qp->ex_err)
		qp->ex_err = err;
	qp->cur_wqe = NULL;
}

/* Open a new WQE for @opcode in the next SQ slot, or NULL after an error. */
static struct sib_send_wqe *sib_ex_new(struct ibv_qp_ex *ibqp,
				       enum ibv_wr_opcode opcode)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);
	struct sib_ring *r = &qp->sq.ring;
	struct sib_send_wqe *wqe;
	uint32_t flags;

	if (qp->ex_err)
		return NULL;
	if (sib_ring_dead(r)) {
		sib_ex_fail(qp, EIO);
		return NULL;
	}
	if (!sib_opcode_valid(ibqp->qp_base.qp_type, opcode) ||
	    (ibqp->wr_flags & ~(unsigned int)(SIB_EX_FLAG_MASK |
					      IBV_SEND_INLINE))) {
		sib_ex_fail(qp, EINVAL);
		return NULL;
	}
	if (sib_ring_full(r->idx, sib_load_acquire(&sib_ring_hdr(r)->consumer),
			  r->limit)) {
		sib_ex_fail(qp, ENOMEM);
		return NULL;
	}
	wqe = sib_ring_slot(r->buf, r->idx, r->num, r->stride);
	memset(wqe, 0, SIB_SEND_WQE_HDR_SIZE);
	wqe->wr_id = ibqp->wr_id;
	wqe->opcode = (uint8_t)opcode;
	flags = ibqp->wr_flags & SIB_EX_FLAG_MASK;
	if (qp->sq_sig_all)
		flags |= SIB_SEND_SIGNALED;
	wqe->send_flags = flags;
	r->idx++;
	qp->cur_wqe = wqe;
	return wqe;
}

static void sib_wr_send(struct ibv_qp_ex *ibqp)
{
	sib_ex_new(ibqp, IBV_WR_SEND);
}

static void sib_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm)
{
	struct sib_send_wqe *wqe = sib_ex_new(ibqp, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->ex = imm;
}

static void sib_wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct sib_send_wqe *wqe = sib_ex_new(ibqp, IBV_WR_SEND_WITH_INV);

	if (wqe)
		memcpy(&wqe->ex, &rkey, sizeof(rkey));
}

static void sib_wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct sib_send_wqe *wqe = sib_ex_new(ibqp, IBV_WR_LOCAL_INV);

	if (wqe)
		memcpy(&wqe->ex, &rkey, sizeof(rkey));
}

/* Common part of the RDMA opcodes. */
static struct sib_send_wqe *sib_ex_rdma(struct ibv_qp_ex *ibqp,
					enum ibv_wr_opcode op, uint32_t rkey,
					uint64_t addr)
{
	struct sib_send_wqe *wqe = sib_ex_new(ibqp, op);

	if (wqe) {
		wqe->wr.rdma.remote_addr = addr;
		wqe->wr.rdma.rkey = rkey;
	}
	return wqe;
}

static void sib_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t addr)
{
	sib_ex_rdma(ibqp, IBV_WR_RDMA_WRITE, rkey, addr);
}

static void sib_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
				  uint64_t addr, __be32 imm)
{
	struct sib_send_wqe *wqe;

	wqe = sib_ex_rdma(ibqp, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr);
	if (wqe)
		wqe->ex = imm;
}

static void sib_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			     uint64_t addr)
{
	sib_ex_rdma(ibqp, IBV_WR_RDMA_READ, rkey, addr);
}

static void sib_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
				  uint64_t addr, uint64_t compare,
				  uint64_t swap)
{
	struct sib_send_wqe *wqe = sib_ex_new(ibqp, IBV_WR_ATOMIC_CMP_AND_SWP);

	if (wqe) {
		wqe->wr.atomic.remote_addr = addr;
		wqe->wr.atomic.compare_add = compare;
		wqe->wr.atomic.swap = swap;
		wqe->wr.atomic.rkey = rkey;
	}
}

static void sib_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				    uint64_t addr, uint64_t add)
{
	struct sib_send_wqe *wqe;

	wqe = sib_ex_new(ibqp, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (wqe) {
		wqe->wr.atomic.remote_addr = addr;
		wqe->wr.atomic.compare_add = add;
		wqe->wr.atomic.rkey = rkey;
	}
}

/* IBA 1.5 atomic write: the 8 bytes travel inline in the WQE */
static void sib_wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
				uint64_t addr, const void *atomic_wr)
{
	struct sib_send_wqe *wqe;

	if (!atomic_wr) {
		sib_ex_fail(ex_to_sib_qp(ibqp), EINVAL);
		return;
	}
	wqe = sib_ex_rdma(ibqp, IBV_WR_ATOMIC_WRITE, rkey, addr);
	if (!wqe)
		return;
	memcpy((uint8_t *)wqe + SIB_SEND_WQE_HDR_SIZE, atomic_wr, 8);
	wqe->inline_len = 8;
	wqe->num_sge = 0;
	wqe->send_flags |= SIB_SEND_INLINE;
}

static void sib_wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			   uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct sib_send_wqe *wqe;

	if (!mw || !info) {
		sib_ex_fail(ex_to_sib_qp(ibqp), EINVAL);
		return;
	}
	wqe = sib_ex_new(ibqp, IBV_WR_BIND_MW);
	if (!wqe)
		return;
	wqe->wr.bind.mw_handle = mw->handle;
	wqe->wr.bind.rkey = rkey;
	wqe->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.bind.access = info->mw_access_flags;
	wqe->wr.bind.addr = info->addr;
	wqe->wr.bind.length = info->length;
}

static void sib_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);
	struct sib_send_wqe *wqe = qp->cur_wqe;

	if (!wqe)
		return;
	if (!ah || ibqp->qp_base.qp_type != IBV_QPT_UD) {
		sib_ex_fail(qp, EINVAL);
		return;
	}
	wqe->wr.ud.ah_num = to_sib_ah(ah)->ah_num;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
}

static void sib_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num,
				const struct ibv_sge *list)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);
	struct sib_send_wqe *wqe = qp->cur_wqe;

	if (!wqe)
		return;
	if (num > qp->sq.max_sge || (num && !list) ||
	    SIB_SEND_WQE_HDR_SIZE + num * sizeof(struct sib_sge) >
	    qp->sq.ring.stride) {
		sib_ex_fail(qp, EINVAL);
		return;
	}
	if (num)
		memcpy((uint8_t *)wqe + SIB_SEND_WQE_HDR_SIZE, list,
		       num * sizeof(struct sib_sge));
	wqe->num_sge = (uint16_t)num;
}

static void sib_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sib_wr_set_sge_list(ibqp, 1, &sge);
}

static void sib_wr_set_inline_data_list(struct ibv_qp_ex *ibqp, size_t num,
					const struct ibv_data_buf *bufs)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);
	struct sib_send_wqe *wqe = qp->cur_wqe;
	uint8_t *dst;
	size_t total = 0, i;

	if (!wqe)
		return;
	if (wqe->opcode == IBV_WR_RDMA_READ ||
	    wqe->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		sib_ex_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num; i++)
		total += bufs[i].length;
	if (total > qp->sq.max_inline ||
	    total > qp->sq.ring.stride - SIB_SEND_WQE_HDR_SIZE) {
		sib_ex_fail(qp, EINVAL);
		return;
	}
	dst = (uint8_t *)wqe + SIB_SEND_WQE_HDR_SIZE;
	for (i = 0; i < num; i++) {
		if (bufs[i].length)
			memcpy(dst, bufs[i].addr, bufs[i].length);
		dst += bufs[i].length;
	}
	wqe->num_sge = 0;
	wqe->inline_len = (uint32_t)total;
	wqe->send_flags |= SIB_SEND_INLINE;
}

static void sib_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sib_wr_set_inline_data_list(ibqp, 1, &buf);
}
static void sib_wr_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t remote_srqn)
{
	struct sib_qp *qp = ex_to_sib_qp(ibqp);

	if (!qp->cur_wqe)
		return;
	if (ibqp->qp_base.qp_type != IBV_QPT_XRC_SEND) {
		sib_ex_fail(qp, EINVAL);
		return;
	}
	qp->cur_wqe->xrc_srqn = remote_srqn;
}


void sib_qp_ex_setup(struct sib_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;

	ex->wr_start = sib_wr_start;
	ex->wr_complete = sib_wr_complete;
	ex->wr_abort = sib_wr_abort;
	ex->wr_set_ud_addr = sib_wr_set_ud_addr;
	ex->wr_set_xrc_srqn = sib_wr_set_xrc_srqn;
	ex->wr_set_sge = sib_wr_set_sge;
	ex->wr_set_sge_list = sib_wr_set_sge_list;
	ex->wr_set_inline_data = sib_wr_set_inline_data;
	ex->wr_set_inline_data_list = sib_wr_set_inline_data_list;
	if (ops & IBV_QP_EX_WITH_SEND)
		ex->wr_send = sib_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		ex->wr_send_imm = sib_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		ex->wr_send_inv = sib_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		ex->wr_rdma_write = sib_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		ex->wr_rdma_write_imm = sib_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		ex->wr_rdma_read = sib_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		ex->wr_atomic_cmp_swp = sib_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		ex->wr_atomic_fetch_add = sib_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		ex->wr_local_inv = sib_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		ex->wr_bind_mw = sib_wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_ATOMIC_WRITE)
		ex->wr_atomic_write = sib_wr_atomic_write;
}
