// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: shared receive queues (basic and XRC), XRC domains, and the
 * receive WQs and indirection tables of RSS. An SRQ or a WQ is a receive
 * ring shared with the kernel, posted to without a system call like a
 * QP's receive queue (ring.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "softib.h"

int sib_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	struct sib_srq *srq = to_sib_srq(ibsrq);
	struct ibv_recv_wr *dummy;

	if (!bad_wr)
		bad_wr = &dummy;
	*bad_wr = NULL;
	if (!wr)
		return 0;
	if (!srq->rq.ring.buf) {
		*bad_wr = wr;
		return EINVAL;
	}
	return sib_post_recv_ring(&srq->rq, wr, bad_wr);
}

/* Map the receive ring of a new SRQ from the kernel's answer. */
static int sib_srq_map(struct ibv_context *ctx, struct sib_srq *srq,
		       const struct sib_create_srq_resp *drv,
		       const struct ibv_srq_attr *attr)
{
	int ret;

	ret = sib_mmap_ring(ctx, &srq->rq.ring, drv->mmap_offset,
			    drv->mmap_size, drv->num_entries, drv->stride);
	if (!ret && !srq->rq.ring.buf)
		ret = EPROTO;
	if (ret)
		return ret;
	srq->rq.ring.limit = sib_min_u32(drv->num_entries, attr->max_wr);
	srq->rq.ring.idx =
		sib_load_acquire(&sib_ring_hdr(&srq->rq.ring)->producer);
	srq->rq.max_sge = attr->max_sge;
	srq->srq_num = drv->srq_num;
	return 0;
}

static struct sib_srq *sib_srq_alloc(void)
{
	struct sib_srq *srq = calloc(1, sizeof(*srq));

	if (!srq || sib_wq_init(&srq->rq)) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	return srq;
}

static void sib_srq_free(struct sib_srq *srq, int err)
{
	pthread_spin_destroy(&srq->rq.lock);
	free(srq);
	errno = err;
}

struct ibv_srq *sib_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct {
		struct ib_uverbs_create_srq_resp ibv_resp;
		struct sib_create_srq_resp drv;
	} resp;
	struct ibv_create_srq cmd;
	struct sib_srq *srq;
	int ret;

	srq = sib_srq_alloc();
	if (!srq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sib_srq_map(pd->context, srq, &resp.drv, &attr->attr);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	return &srq->vsrq.srq;

err_free:
	sib_srq_free(srq, ret);
	return NULL;
}

struct ibv_srq *sib_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr)
{
	struct {
		struct ib_uverbs_create_srq_resp ibv_resp;
		struct sib_create_srq_resp drv;
	} resp;
	struct ibv_create_xsrq cmd;
	struct sib_srq *srq;
	int ret;

	srq = sib_srq_alloc();
	if (!srq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_srq_ex(ctx, &srq->vsrq, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sib_srq_map(ctx, srq, &resp.drv, &attr->attr);
	if (ret) {
		ibv_cmd_destroy_srq(&srq->vsrq.srq);
		goto err_free;
	}
	return &srq->vsrq.srq;

err_free:
	sib_srq_free(srq, ret);
	return NULL;
}

struct ibv_xrcd *sib_open_xrcd(struct ibv_context *ctx,
			       struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_open_xrcd cmd;
	struct verbs_xrcd *xrcd;
	int ret;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_open_xrcd(ctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

int sib_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = (struct verbs_xrcd *)ibxrcd;
	int ret = ibv_cmd_close_xrcd(xrcd);

	if (!ret)
		free(xrcd);
	return ret;
}

/* One list operation of a TM SRQ: the driver method SIB_METHOD_SRQ_TM_OP. */
static int sib_tm_op_ioctl(struct ibv_srq *ibsrq, const struct sib_tm_op *op,
			   struct sib_tm_op_resp *resp)
{
	struct ib_uverbs_attr attr[3];

	memset(attr, 0, sizeof(attr));
	attr[0].attr_id = SIB_ATTR_TM_OP_HANDLE;
	attr[0].flags = UVERBS_ATTR_F_MANDATORY;
	attr[0].data = ibsrq->handle;
	attr[1].attr_id = SIB_ATTR_TM_OP_CMD;
	attr[1].flags = UVERBS_ATTR_F_MANDATORY;
	attr[1].len = sizeof(*op);
	attr[1].data = (uintptr_t)op;
	attr[2].attr_id = SIB_ATTR_TM_OP_RESP;
	attr[2].flags = UVERBS_ATTR_F_MANDATORY;
	attr[2].len = sizeof(*resp);
	attr[2].data = (uintptr_t)resp;
	return sib_uverbs_ioctl(ibsrq->context->cmd_fd, UVERBS_OBJECT_SRQ,
				SIB_METHOD_SRQ_TM_OP, attr, 3);
}

int sib_post_srq_ops(struct ibv_srq *ibsrq, struct ibv_ops_wr *op,
		     struct ibv_ops_wr **bad_op)
{
	struct ibv_ops_wr *dummy;
	int ret = 0;

	if (!bad_op)
		bad_op = &dummy;
	*bad_op = NULL;
	for (; op; op = op->next) {
		struct sib_tm_op cmd;
		struct sib_tm_op_resp resp;

		memset(&cmd, 0, sizeof(cmd));
		memset(&resp, 0, sizeof(resp));
		cmd.wr_id = op->wr_id;
		cmd.opcode = (uint8_t)op->opcode;
		cmd.flags = (uint8_t)op->flags;
		cmd.unexpected_cnt = op->tm.unexpected_cnt;
		cmd.handle = op->tm.handle;
		if (op->opcode == IBV_WR_TAG_ADD) {
			if (op->tm.add.num_sge < 0 || op->tm.add.num_sge > 1 ||
			    (op->tm.add.num_sge && !op->tm.add.sg_list)) {
				ret = EINVAL;
				break;
			}
			cmd.recv_wr_id = op->tm.add.recv_wr_id;
			cmd.tag = op->tm.add.tag;
			cmd.mask = op->tm.add.mask;
			cmd.num_sge = (uint8_t)op->tm.add.num_sge;
			if (cmd.num_sge)
				memcpy(&cmd.sge, op->tm.add.sg_list, sizeof(cmd.sge));
		}
		ret = sib_tm_op_ioctl(ibsrq, &cmd, &resp);
		if (ret)
			break;
		if (op->opcode == IBV_WR_TAG_ADD)
			op->tm.handle = resp.handle;
	}
	if (ret)
		*bad_op = op;
	return ret;
}

int sib_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct ibv_modify_srq cmd;

	/* resizing would need a new ring: not offered by this ABI */
	if (mask & IBV_SRQ_MAX_WR)
		return EOPNOTSUPP;
	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_srq(ibsrq, attr, mask, &cmd, sizeof(cmd));
}

int sib_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int sib_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sib_srq *srq = to_sib_srq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sib_munmap_ring(&srq->rq.ring);
	pthread_spin_destroy(&srq->rq.lock);
	free(srq);
	return 0;
}

int sib_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_sib_srq(ibsrq)->srq_num;
	return 0;
}

/* ---- receive WQs and indirection tables (RSS of raw packet QPs) ---- */

static int sib_post_wq_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	struct sib_rwq *rwq = (struct sib_rwq *)ibwq;
	struct ibv_recv_wr *dummy;
	struct ibv_wq_attr attr;
	int ret;

	if (!bad_wr)
		bad_wr = &dummy;
	*bad_wr = NULL;
	if (!wr)
		return 0;
	ret = sib_post_recv_ring(&rwq->rq, wr, bad_wr);
	if (*bad_wr == wr)
		return ret;
	/*
	 * In ERR what was posted completes with IBV_WC_WR_FLUSH_ERR: the
	 * kernel flushes when asked for ERR again. Pairs with its qp_error
	 * store, barrier, flush; the WQEs stay posted if the command fails.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sib_ring_hdr(&rwq->rq.ring)->qp_error,
			    __ATOMIC_RELAXED)) {
		/* only from ERR: another thread may have moved it on */
		memset(&attr, 0, sizeof(attr));
		attr.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE;
		attr.wq_state = IBV_WQS_ERR;
		attr.curr_wq_state = IBV_WQS_ERR;
		(void)sib_modify_wq(ibwq, &attr);
	}
	return ret;
}

struct ibv_wq *sib_create_wq(struct ibv_context *ctx,
			     struct ibv_wq_init_attr *attr)
{
	struct {
		struct ib_uverbs_ex_create_wq_resp ibv_resp;
		struct sib_create_wq_resp drv;
	} resp;
	struct ibv_create_wq cmd;
	struct sib_rwq *rwq;
	int ret;

	rwq = calloc(1, sizeof(*rwq));
	if (!rwq || sib_wq_init(&rwq->rq)) {
		free(rwq);
		errno = ENOMEM;
		return NULL;
	}
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_wq(ctx, attr, &rwq->wq, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sib_mmap_ring(ctx, &rwq->rq.ring, resp.drv.mmap_offset,
			    resp.drv.mmap_size, resp.drv.num_entries,
			    resp.drv.stride);
	if (!ret && !rwq->rq.ring.buf)
		ret = EPROTO;
	if (ret) {
		ibv_cmd_destroy_wq(&rwq->wq);
		goto err_free;
	}
	rwq->rq.ring.limit = sib_min_u32(resp.drv.num_entries, attr->max_wr);
	rwq->rq.ring.idx =
		sib_load_acquire(&sib_ring_hdr(&rwq->rq.ring)->producer);
	rwq->rq.max_sge = attr->max_sge;
	rwq->wq.post_recv = sib_post_wq_recv;
	return &rwq->wq;

err_free:
	pthread_spin_destroy(&rwq->rq.lock);
	free(rwq);
	errno = ret;
	return NULL;
}

int sib_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr)
{
	struct ibv_modify_wq cmd;

	/*
	 * A state past ERR is refused here: ib_uverbs (6.1 and 6.12) answers
	 * it with EINVAL but keeps the WQ's object locked, and the close of
	 * the context then WARNs in __uverbs_cleanup_ufile().
	 */
	if (((attr->attr_mask & IBV_WQ_ATTR_STATE) &&
	     attr->wq_state > IBV_WQS_ERR) ||
	    ((attr->attr_mask & IBV_WQ_ATTR_CURR_STATE) &&
	     attr->curr_wq_state > IBV_WQS_ERR))
		return EINVAL;
	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_wq(wq, attr, &cmd, sizeof(cmd));
}

int sib_destroy_wq(struct ibv_wq *wq)
{
	struct sib_rwq *rwq = (struct sib_rwq *)wq;
	int ret = ibv_cmd_destroy_wq(wq);

	if (ret)
		return ret;
	sib_munmap_ring(&rwq->rq.ring);
	pthread_spin_destroy(&rwq->rq.lock);
	free(rwq);
	return 0;
}

struct ibv_rwq_ind_table *
sib_create_rwq_ind_table(struct ibv_context *ctx,
			 struct ibv_rwq_ind_table_init_attr *attr)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp;
	struct ibv_rwq_ind_table *tbl = calloc(1, sizeof(*tbl));
	int ret;

	if (!tbl) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_rwq_ind_table(ctx, attr, tbl, &resp, sizeof(resp));
	if (ret) {
		free(tbl);
		errno = ret;
		return NULL;
	}
	return tbl;
}

int sib_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl)
{
	int ret = ibv_cmd_destroy_rwq_ind_table(tbl);

	if (!ret)
		free(tbl);
	return ret;
}
