// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: shared receive queues (IBTA 10.2.9, 11.2.3) and XRC domains
 * (IBTA 14.2 XRC). An SRQ is a receive ring like a QP's RQ: user space
 * produces into the mapped ring, the responder of any QP attached to it
 * consumes under srq->lock, copying each WQE once and validating the
 * copy. The limit event (IB_EVENT_SRQ_LIMIT_REACHED) fires once when the
 * number of posted WQEs drops below an armed srq_limit, which disarms it.
 *
 * Every SRQ has a number in dev->srq_xa; XRC target QPs find the SRQ a
 * packet names there and hold a reference while they use it. destroy_srq
 * erases the number, drops the initial reference and waits for the last.
 */
#include <rdma/uverbs_ioctl.h>

#include "srq.h"
#include "tm.h"
#include "queue.h"

static int sib_srq_check_attr(struct sib_dev *dev, struct ib_srq_attr *a)
{
	if (a->max_wr > dev->lim.max_srq_wr || a->max_sge > SIB_MAX_SRQ_SGE)
		return -EINVAL;
	if (a->srq_limit > a->max_wr)
		return -EINVAL;
	return 0;
}

static void sib_srq_init(struct sib_srq *srq, struct sib_dev *dev,
			 struct ib_udata *udata)
{
	srq->dev = dev;
	srq->is_user = !!udata;
	spin_lock_init(&srq->lock);
	refcount_set(&srq->ref, 1);
	init_completion(&srq->released);
}

static int sib_srq_alloc_ring(struct sib_srq *srq, struct ib_srq_attr *a,
			      struct ib_udata *udata,
			      struct sib_create_srq_resp *resp)
{
	u32 num, stride;
	int err;

	num = roundup_pow_of_two(max_t(u32, a->max_wr, 1));
	srq->max_sge = max_t(u32, a->max_sge, 1);
	stride = roundup_pow_of_two(SIB_RECV_WQE_HDR_SIZE +
				    srq->max_sge * sizeof(struct sib_sge));
	err = udata ? sib_ring_alloc(&srq->ring, num, stride) :
		      sib_ring_alloc_kernel(&srq->ring, num, stride);
	if (err)
		return err;
	a->max_wr = num;
	a->max_sge = srq->max_sge;
	if (!udata)
		return 0;
	err = sib_ring_expose(&srq->ring, sib_udata_uctx(udata),
			      &resp->mmap_offset, &resp->mmap_size);
	if (err)
		return err;
	resp->num_entries = num;
	resp->stride = stride;
	return 0;
}

/**
 * sib_create_srq() - ib_device_ops.create_srq, basic and XRC SRQs
 * @ibsrq: core-allocated SRQ (for XRC the core set ext.xrc.xrcd, ext.cq)
 * @init: attributes; max_wr and max_sge are rounded up and written back
 * @udata: user data or NULL; answers struct sib_create_srq_resp
 *
 * Context: process. Return: 0, -EOPNOTSUPP (tag matching), -EINVAL
 * (limits, udata), -ENOMEM.
 */
int sib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibsrq->device);
	struct sib_srq *srq = to_sib_srq(ibsrq);
	struct sib_create_srq_resp resp = {};
	u32 srqn;
	int err;

	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC &&
	    !(init->srq_type == IB_SRQT_TM && udata))
		return -EOPNOTSUPP;
	if (init->srq_type == IB_SRQT_XRC &&
	    (!init->ext.xrc.xrcd || !init->ext.cq))
		return -EINVAL;
	err = sib_srq_check_attr(dev, &init->attr);
	if (err)
		return err;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	err = sib_obj_take(dev, SIB_OBJ_SRQ);
	if (err)
		return err;
	sib_srq_init(srq, dev, udata);
	err = xa_alloc_cyclic_bh(&dev->srq_xa, &srqn, NULL,
				 XA_LIMIT(SIB_MIN_SRQN, SIB_MAX_SRQN),
				 &dev->next_srqn, GFP_KERNEL);
	if (err < 0)
		goto err_cnt;
	ibsrq->ext.xrc.srq_num = srqn;
	err = sib_srq_alloc_ring(srq, &init->attr, udata, &resp);
	if (!err && init->srq_type == IB_SRQT_TM)
		err = sib_tm_srq_init(srq, init);
	if (err)
		goto err_ring;
	srq->limit = init->attr.srq_limit;
	if (udata) {
		resp.srq_num = srqn;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_ring;
	}
	xa_store_bh(&dev->srq_xa, srqn, srq, GFP_KERNEL);
	return 0;

err_ring:
	sib_tm_srq_free(srq);
	sib_ring_free(&srq->ring);
	xa_erase_bh(&dev->srq_xa, srqn);
err_cnt:
	sib_obj_release(dev, SIB_OBJ_SRQ);
	return err;
}

/**
 * sib_modify_srq() - ib_device_ops.modify_srq (IBTA 11.2.3.3)
 * @ibsrq: SRQ
 * @attr: new srq_limit
 * @mask: IB_SRQ_LIMIT arms the limit event; IB_SRQ_MAX_WR (resize) is
 *	  not supported
 * @udata: no driver data defined
 *
 * Context: process. Return: 0, -EINVAL (limit above max_wr, udata),
 * -EOPNOTSUPP (resize, unknown mask bits).
 */
int sib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sib_srq *srq = to_sib_srq(ibsrq);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->ring.num)
			return -EINVAL;
		spin_lock_irq(&srq->lock);
		srq->limit = attr->srq_limit;
		spin_unlock_irq(&srq->lock);
	}
	return 0;
}

/**
 * sib_query_srq() - ib_device_ops.query_srq
 * @ibsrq: SRQ
 * @attr: out: max_wr, max_sge, the armed srq_limit (0: not armed)
 *
 * Context: process. Return: 0.
 */
int sib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sib_srq *srq = to_sib_srq(ibsrq);

	attr->max_wr = srq->ring.num;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/**
 * sib_destroy_srq() - ib_device_ops.destroy_srq
 * @ibsrq: SRQ; the core guarantees no QP is attached any more
 * @udata: unused
 *
 * Context: process, sleeps until no XRC packet uses the SRQ.
 * Return: 0.
 */
int sib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sib_srq *srq = to_sib_srq(ibsrq);
	struct sib_dev *dev = srq->dev;

	xa_erase_bh(&dev->srq_xa, ibsrq->ext.xrc.srq_num);
	sib_srq_put(srq);
	wait_for_completion(&srq->released);
	sib_tm_srq_free(srq);
	sib_ring_free(&srq->ring);
	sib_obj_release(dev, SIB_OBJ_SRQ);
	return 0;
}

/**
 * sib_post_srq_recv() - ib_device_ops.post_srq_recv, kernel SRQs
 * @ibsrq: SRQ
 * @wr: WR list
 * @bad_wr: out, first WR not posted
 *
 * User SRQs post through their mapped ring, never here.
 * Context: any. Return: 0, -EINVAL (user SRQ, SGE count), -ENOMEM
 * (queue full).
 */
int sib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct sib_srq *srq = to_sib_srq(ibsrq);
	struct sib_ring *r = &srq->ring;
	unsigned long flags;
	u32 prod;
	int i, err = 0;

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	prod = r->hdr->producer;
	for (; wr; wr = wr->next) {
		struct sib_recv_wqe *h = sib_ring_entry(r, prod);
		struct sib_sge *sge = (struct sib_sge *)(h + 1);

		if (wr->num_sge < 0 || wr->num_sge > srq->max_sge) {
			err = -EINVAL;
			break;
		}
		if (prod - srq->kcons >= r->num) {
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
		prod++;
	}
	smp_store_release(&r->hdr->producer, prod);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

static void sib_srq_limit_event(struct sib_srq *srq)
{
	struct ib_event e = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&e, srq->ibsrq.srq_context);
}

/**
 * sib_srq_fetch() - take the next receive WQE from an SRQ
 * @srq: SRQ
 * @rw: out, validated copy of the WQE
 *
 * When the limit is armed and fewer than srq_limit WQEs remain posted
 * afterwards, raises IB_EVENT_SRQ_LIMIT_REACHED and disarms it
 * (IBTA 10.2.9.2). Context: a QP's work; takes srq->lock.
 * Return: 1 when a WQE was taken, 0 when the SRQ is empty, -EINVAL
 * when the ring holds garbage (the caller fails its QP).
 */
int sib_srq_fetch(struct sib_srq *srq, struct sib_rwqe *rw)
{
	bool event = false;
	int ret;

	spin_lock_irq(&srq->lock);
	ret = sib_ring_take(&srq->ring, &srq->kcons, srq->max_sge, rw);
	/* WQEs left below the armed limit (IBTA 11.5.2.4) */
	if (ret > 0 && srq->limit &&
	    READ_ONCE(srq->ring.hdr->producer) - srq->kcons < srq->limit) {
		srq->limit = 0;
		event = true;
	}
	spin_unlock_irq(&srq->lock);
	if (event)
		sib_srq_limit_event(srq);
	return ret;
}

/**
 * sib_srq_get() - find an SRQ by number and reference it
 * @dev: device
 * @srqn: SRQ number from the wire (untrusted)
 *
 * Context: any but hardirq. Return: the SRQ (release with
 * sib_srq_put()) or NULL.
 */
struct sib_srq *sib_srq_get(struct sib_dev *dev, u32 srqn)
{
	struct sib_srq *srq;

	xa_lock_bh(&dev->srq_xa);
	srq = xa_load(&dev->srq_xa, srqn);
	if (srq && !refcount_inc_not_zero(&srq->ref))
		srq = NULL;
	xa_unlock_bh(&dev->srq_xa);
	return srq;
}

/**
 * sib_xrc_srq_get() - the XRC SRQ an XRC target QP's packet may name
 * @qp: XRC target QP
 * @srqn: the XRCETH's SRQ number (untrusted)
 *
 * Only an XRC SRQ of @qp's XRC domain (IBTA 14.2.3, 14.2.4).
 * Context: any but hardirq. Return: the SRQ (release with sib_srq_put())
 * or NULL.
 */
struct sib_srq *sib_xrc_srq_get(struct sib_qp *qp, u32 srqn)
{
	struct sib_srq *srq = sib_srq_get(qp->dev, srqn);

	if (srq && (srq->ibsrq.srq_type != IB_SRQT_XRC ||
		    srq->ibsrq.ext.xrc.xrcd != qp->ibqp.xrcd)) {
		sib_srq_put(srq);
		srq = NULL;
	}
	return srq;
}

/**
 * sib_srq_put() - drop a reference from sib_srq_get()
 * @srq: SRQ
 *
 * Context: any.
 */
void sib_srq_put(struct sib_srq *srq)
{
	if (refcount_dec_and_test(&srq->ref))
		complete(&srq->released);
}

/**
 * sib_alloc_xrcd() - ib_device_ops.alloc_xrcd (IBTA 11.2.9.1)
 * @ibxrcd: core-allocated XRC domain
 * @udata: no driver data defined
 *
 * Context: process. Return: 0, -ENOMEM at the XRCD limit.
 */
int sib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibxrcd->device);

	if (atomic_inc_return(&dev->num_xrcd) > SIB_MAX_XRCD) {
		atomic_dec(&dev->num_xrcd);
		return -ENOMEM;
	}
	return 0;
}

/**
 * sib_dealloc_xrcd() - ib_device_ops.dealloc_xrcd
 * @ibxrcd: XRC domain; the core guarantees nothing uses it any more
 * @udata: unused
 *
 * Context: process. Return: 0.
 */
int sib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	atomic_dec(&to_sib_dev(ibxrcd->device)->num_xrcd);
	return 0;
}
