// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: receive side scaling for raw packet QPs. A receive WQ
 * (ibv_create_wq) is a receive ring of its own with its own CQ; an
 * indirection table (ibv_create_rwq_ind_table) lists 2^n of them; an RSS
 * QP (a raw packet QP created on a table, receive only) takes the frames
 * its flows steer to it (raw.c) and places each in the WQ the table
 * names at the low bits of the frame's Toeplitz hash (flow.c). The QP
 * has no state of its own to go through: its WQs' states (RESET, RDY,
 * ERR) decide. Each CQE names its WQ's number as its qp_num.
 *
 * Locks: a WQ's lock covers its consumer index and state; the rings are
 * filled by user space without a system call (struct sib_ring).
 */
#include "rss.h"
#include "flow.h"
#include "queue.h"
#include "cq.h"
#include "mr.h"
#include "raw.h"

#define SIB_MAX_WQ_SGE	SIB_MAX_SGE

static struct sib_rwq *to_sib_rwq(struct ib_wq *ibwq)
{
	return container_of(ibwq, struct sib_rwq, ibwq);
}

/**
 * sib_create_wq() - ib_device_ops.create_wq: a receive WQ for RSS
 * @pd: PD of the WQ's receive WQEs
 * @init: IB_WQT_RQ, max_wr and max_sge (rounded up and written back),
 *	  the CQ; no create flags
 * @udata: user only; answers struct sib_create_wq_resp
 *
 * The WQ's number comes from the QP numbers (reserved there: a packet
 * addressed to it finds no QP). Starts in RESET.
 * Context: process. Return: the WQ or ERR_PTR(): -EOPNOTSUPP (kernel
 * caller, type, flags, an InfiniBand device), -EINVAL (limits, udata),
 * -ENOMEM.
 */
struct ib_wq *sib_create_wq(struct ib_pd *pd, struct ib_wq_init_attr *init,
			    struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_create_wq_resp resp = {};
	struct sib_rwq *wq;
	u32 num, stride, wqn;
	int err;

	if (!udata || init->wq_type != IB_WQT_RQ || init->create_flags ||
	    sib_is_ib(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if (init->max_wr > dev->lim.max_qp_wr ||
	    init->max_sge > SIB_MAX_WQ_SGE || !init->cq)
		return ERR_PTR(-EINVAL);
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	wq = kzalloc(sizeof(*wq), GFP_KERNEL);
	if (!wq)
		return ERR_PTR(-ENOMEM);
	wq->dev = dev;
	spin_lock_init(&wq->lock);
	mutex_init(&wq->flush_lock);
	wq->state = IB_WQS_RESET;
	wq->cq = to_sib_cq(init->cq);
	num = roundup_pow_of_two(max_t(u32, init->max_wr, 1));
	wq->max_sge = max_t(u32, init->max_sge, 1);
	stride = roundup_pow_of_two(SIB_RECV_WQE_HDR_SIZE +
				    wq->max_sge * sizeof(struct sib_sge));
	err = xa_alloc_cyclic_bh(&dev->qp_xa, &wqn, NULL,
				 XA_LIMIT(SIB_MIN_QPN, SIB_MAX_QPN),
				 &dev->next_qpn, GFP_KERNEL);
	if (err < 0)
		goto err_free;
	wq->ibwq.wq_num = wqn;
	err = sib_ring_alloc(&wq->ring, num, stride);
	if (err)
		goto err_qpn;
	err = sib_ring_expose(&wq->ring, sib_udata_uctx(udata),
			      &resp.mmap_offset, &resp.mmap_size);
	if (err)
		goto err_ring;
	resp.num_entries = num;
	resp.stride = stride;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_ring;
	init->max_wr = num;
	init->max_sge = wq->max_sge;
	return &wq->ibwq;

err_ring:
	sib_ring_free(&wq->ring);
err_qpn:
	xa_erase_bh(&dev->qp_xa, wqn);
err_free:
	kfree(wq);
	return ERR_PTR(err);
}

/* the WQ's state, and the ring's qp_error flag the provider reads; lock held */
static void sib_rwq_set_state(struct sib_rwq *wq, enum ib_wq_state new)
{
	wq->state = new;
	WRITE_ONCE(wq->ring.hdr->qp_error, new == IB_WQS_ERR);
}

/*
 * Complete every WQE posted to @wq with @status (in ERR), or drop them (0,
 * in RESET). Two rings' worth at most: a producer the user moves on
 * without end does not hold the caller here; what is left stays in the
 * ring. Stops when the WQ left the state the flush is for (a concurrent
 * modify). Callers hold wq->flush_lock, so CQEs of two flushes (a modify
 * and a post in ERR) do not interleave out of order.
 */
static void sib_rwq_empty(struct sib_rwq *wq, u8 status)
{
	enum ib_wq_state want = status ? IB_WQS_ERR : IB_WQS_RESET;
	struct sib_rwqe rw;
	struct sib_cqe c;
	u32 i;
	int r;

	lockdep_assert_held(&wq->flush_lock);
	for (i = 0; ; i++) {
		spin_lock_irq(&wq->lock);
		r = i < 2 * wq->ring.num && wq->state == want ?
		    sib_ring_take(&wq->ring, &wq->kcons, wq->max_sge, &rw) : 0;
		/* garbage in the ring: skip all that is posted */
		if (r < 0) {
			wq->kcons = READ_ONCE(wq->ring.hdr->producer);
			smp_store_release(&wq->ring.hdr->consumer, wq->kcons);
		}
		spin_unlock_irq(&wq->lock);
		if (r <= 0)
			return;
		if (!status)
			continue;
		sib_cqe_clear(&c);
		c.wr_id = rw.wr_id;
		c.status = status;
		c.opcode = IB_WC_RECV;
		c.qp_num = wq->ibwq.wq_num;
		c.port_num = 1;
		sib_cq_post(wq->cq, &c, NULL, false);
	}
}

/**
 * sib_modify_wq() - ib_device_ops.modify_wq: the WQ's state
 * @ibwq: WQ
 * @attr: wq_state, and curr_wq_state with IB_WQ_CUR_STATE
 * @mask: IB_WQ_STATE, IB_WQ_CUR_STATE; nothing else
 * @udata: no driver data defined
 *
 * RESET -> RDY -> ERR, and back to RESET from any state. To RESET drops
 * the posted WQEs; to ERR completes them with IB_WC_WR_FLUSH_ERR, and so
 * does ERR -> ERR: a WQ in ERR has its ring's qp_error set, and the
 * provider asks for ERR again after posting to it, so that receive WQEs
 * posted in ERR complete too (IBTA 10.3.1, as for a QP's receive queue).
 * Context: process. Return: 0, -EINVAL (a transition not listed, a
 * current state that is not the WQ's, udata), -EOPNOTSUPP (mask).
 */
int sib_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		  struct ib_udata *udata)
{
	struct sib_rwq *wq = to_sib_rwq(ibwq);
	enum ib_wq_state cur, new;
	bool ok;

	if (mask & ~(IB_WQ_STATE | IB_WQ_CUR_STATE))
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (!(mask & IB_WQ_STATE))
		return 0;
	spin_lock_irq(&wq->lock);
	cur = wq->state;
	new = attr->wq_state;
	ok = !(mask & IB_WQ_CUR_STATE) || attr->curr_wq_state == cur;
	ok = ok && (new == IB_WQS_RESET ||
		    (new == IB_WQS_RDY && cur != IB_WQS_ERR) ||
		    (new == IB_WQS_ERR && cur != IB_WQS_RESET));
	if (ok)
		sib_rwq_set_state(wq, new);
	spin_unlock_irq(&wq->lock);
	if (!ok)
		return -EINVAL;
	/* what the provider published before it saw qp_error is taken here */
	smp_mb();
	mutex_lock(&wq->flush_lock);
	if (new == IB_WQS_RESET && cur != IB_WQS_RESET)
		sib_rwq_empty(wq, 0);
	else if (new == IB_WQS_ERR)
		sib_rwq_empty(wq, IB_WC_WR_FLUSH_ERR);
	mutex_unlock(&wq->flush_lock);
	return 0;
}

/**
 * sib_destroy_wq() - ib_device_ops.destroy_wq
 * @ibwq: WQ; no indirection table holds it (the core's usecnt)
 * @udata: user data
 *
 * Context: process. Return: 0.
 */
int sib_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata)
{
	struct sib_rwq *wq = to_sib_rwq(ibwq);

	sib_ring_free(&wq->ring);
	xa_erase_bh(&wq->dev->qp_xa, ibwq->wq_num);
	mutex_destroy(&wq->flush_lock);
	kfree(wq);
	return 0;
}

/**
 * sib_create_rwq_ind_table() - ib_device_ops.create_rwq_ind_table
 * @ibtbl: core-allocated table; the core keeps the WQ list
 * @init: 2^log_ind_tbl_size WQs
 * @udata: no driver data defined
 *
 * Context: process. Return: 0, -EINVAL (udata, size).
 */
int sib_create_rwq_ind_table(struct ib_rwq_ind_table *ibtbl,
			     struct ib_rwq_ind_table_init_attr *init,
			     struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibtbl->device);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (init->log_ind_tbl_size > SIB_MAX_RWQ_IND_LOG)
		return -EINVAL;
	ibtbl->ind_tbl_num = atomic_inc_return(&dev->next_ind_tbl);
	return 0;
}

/**
 * sib_destroy_rwq_ind_table() - ib_device_ops.destroy_rwq_ind_table
 * @ibtbl: table; no QP holds it (the core's usecnt)
 *
 * Context: process. Return: 0.
 */
int sib_destroy_rwq_ind_table(struct ib_rwq_ind_table *ibtbl)
{
	return 0;
}

/**
 * sib_rss_qp_setup() - make a new raw packet QP an RSS QP
 * @qp: QP being created
 * @init: its attributes: the table, no send queue, no receive queue
 * @cmd: the driver data: hash function, key and fields
 *
 * Context: process. Return: 0, -EOPNOTSUPP (not raw, a send queue, hash
 * function or fields not offered), -EINVAL (key length), -ENOMEM.
 */
int sib_rss_qp_setup(struct sib_qp *qp, struct ib_qp_init_attr *init,
		     const struct sib_create_qp_cmd *cmd)
{
	struct sib_rss *rss;

	if (init->qp_type != IB_QPT_RAW_PACKET || init->cap.max_send_wr ||
	    init->srq)
		return -EOPNOTSUPP;
	if (cmd->rx_hash_function != SIB_RX_HASH_FUNC_TOEPLITZ ||
	    (cmd->rx_hash_fields_mask & ~SIB_RX_HASH_FIELDS_ALL))
		return -EOPNOTSUPP;
	if (cmd->rx_hash_key_len != SIB_RX_HASH_KEY_LEN)
		return -EINVAL;
	rss = kzalloc(sizeof(*rss), GFP_KERNEL);
	if (!rss)
		return -ENOMEM;
	rss->tbl = init->rwq_ind_tbl;
	rss->fields = cmd->rx_hash_fields_mask;
	memcpy(rss->key, cmd->rx_hash_key, SIB_RX_HASH_KEY_LEN);
	qp->rss = rss;
	return 0;
}

/**
 * sib_rss_rcv() - place one steered frame in the WQ its hash picks
 * @qp: RSS QP
 * @skb: the frame from its Ethernet header on (consumed)
 *
 * A WQ that is not RDY, or has no WQE posted, drops the frame (counted).
 * Context: the QP's run.
 */
void sib_rss_rcv(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sib_rss *rss = qp->rss;
	u8 buf[SIB_FLOW_HDR_MAX];
	struct sib_rwqe *rw = &qp->resp.rwqe;
	struct sib_flow_key key;
	struct sib_rwq *wq;
	struct sib_cqe c;
	const u8 *hdr;
	u32 len, hash;
	int r;

	len = min_t(u32, skb->len, sizeof(buf));
	hdr = skb_header_pointer(skb, 0, len, buf);
	if (!hdr)
		goto out;
	sib_flow_key_parse(hdr, len, false, 0, &key);
	hash = sib_rss_hash(&key, rss->fields, rss->key, SIB_RX_HASH_KEY_LEN);
	wq = to_sib_rwq(rss->tbl->ind_tbl[hash &
					  ((1U << rss->tbl->log_ind_tbl_size) - 1)]);
	spin_lock_irq(&wq->lock);
	r = wq->state == IB_WQS_RDY ?
	    sib_ring_take(&wq->ring, &wq->kcons, wq->max_sge, rw) : 0;
	/* garbage in the ring: the WQ is of no more use */
	if (r < 0)
		sib_rwq_set_state(wq, IB_WQS_ERR);
	spin_unlock_irq(&wq->lock);
	if (r <= 0) {
		sib_counter_inc(qp->dev, SIB_CNT_RAW_NO_RWQE);
		goto out;
	}
	sib_raw_place(qp, wq->ibwq.pd, rw, skb, &c);
	c.qp_num = wq->ibwq.wq_num;
	c.port_num = 1;
	sib_cq_post(wq->cq, &c, NULL, false);
out:
	kfree_skb(skb);
}
