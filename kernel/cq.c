// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: completion queues. The kernel is the only producer of a CQ
 * ring; user space consumes entries from the mapped ring without system
 * calls. Kernel CQs use the same ring in kernel memory and poll_cq
 * translates struct sib_cqe into struct ib_wc.
 *
 * Completion vectors: a device has one per online CPU, at most the
 * max_comp_vectors module parameter; vector i belongs to the i-th online
 * CPU (cpumask_local_spread()), and get_vector_affinity says so, so that
 * multi-queue ULPs (nvme-rdma, iSER, NFS/RDMA) spread their queues as on
 * a NIC. A kernel CQ's completion handler runs on its vector's CPU, as a
 * NIC's interrupt would: inline when the completion is made there, else
 * in a high-priority work queued on that CPU. A user CQ's handler only
 * wakes a completion channel's reader, wherever that sleeps: it runs
 * inline.
 */
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "cq.h"
#include "queue.h"
#include "trace.h"

/**
 * sib_comp_vectors() - how many completion vectors a new device offers
 * @lim: the device's limits (max_comp_vectors)
 *
 * Context: process. Return: one per online CPU, at most the limit.
 */
int sib_comp_vectors(const struct sib_limits *lim)
{
	return min_t(u32, num_online_cpus(), lim->max_comp_vectors);
}

/**
 * sib_get_vector_affinity() - ib_device_ops.get_vector_affinity
 * @ibdev: device
 * @comp_vector: vector number, below num_comp_vectors
 *
 * Context: any. Return: the one CPU the vector's handlers run on.
 */
const struct cpumask *sib_get_vector_affinity(struct ib_device *ibdev,
					      int comp_vector)
{
	return cpumask_of(cpumask_local_spread(comp_vector, NUMA_NO_NODE));
}

static void sib_cq_comp_work(struct work_struct *work)
{
	struct sib_cq *cq = container_of(work, struct sib_cq, comp_work);

	local_bh_disable();
	trace_sib_comp_handler(cq->ibcq.res.id, cq->vector, true);
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	local_bh_enable();
}

/* call the completion handler of an armed CQ that got a completion */
static void sib_cq_notify(struct sib_cq *cq)
{
	if (!cq->ibcq.comp_handler)
		return;
	/*
	 * A kernel CQ's handler runs on its vector's CPU, or is queued there
	 * (the CPU is compared with bottom halves, so migration, off)
	 */
	local_bh_disable();
	if (!cq->is_user && smp_processor_id() != cq->cpu &&
	    cpu_online(cq->cpu)) {
		local_bh_enable();
		sib_counter_inc(cq->dev, SIB_CNT_COMP_HANDLER_QUEUED);
		queue_work_on(cq->cpu, system_highpri_wq, &cq->comp_work);
		return;
	}
	if (!cq->is_user)
		trace_sib_comp_handler(cq->ibcq.res.id, cq->vector, false);
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	local_bh_enable();
}

static u32 sib_cq_ring_size(int cqe)
{
	return roundup_pow_of_two((u32)cqe + 1);
}

static int sib_cq_check_udata(struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/**
 * sib_create_cq() - ib_device_ops.create_cq
 * @ibcq: core-allocated CQ
 * @attr: cqe count, comp_vector, flags (IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION:
 *	  every CQE carries its completion time, see SIB_HCA_CORE_CLOCK_KHZ)
 * @uarg: the udata (6.1) or the uverbs attribute bundle (6.11 on), see
 *	  compat.h; NULL for a kernel CQ; its udata answers struct
 *	  sib_create_cq_resp
 *
 * Context: process. Return: 0, -EINVAL (size, vector), -EOPNOTSUPP
 * (flags), -ENOMEM.
 */
int sib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  sib_cq_uarg_t *uarg)
{
	struct ib_udata *udata = sib_cq_uarg_udata(uarg);
	struct sib_dev *dev = to_sib_dev(ibcq->device);
	struct sib_cq *cq = to_sib_cq(ibcq);
	struct sib_create_cq_resp resp = {};
	u32 num;
	int err;

	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > dev->lim.max_cqe ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	err = sib_cq_check_udata(udata);
	if (err)
		return err;
	err = sib_obj_take(dev, SIB_OBJ_CQ);
	if (err)
		return err;
	cq->dev = dev;
	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	cq->timestamp = attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	cq->cpu = cpumask_local_spread(attr->comp_vector, NUMA_NO_NODE);
	cq->vector = attr->comp_vector;
	INIT_WORK(&cq->comp_work, sib_cq_comp_work);
	num = sib_cq_ring_size(attr->cqe);
	err = udata ? sib_ring_alloc(&cq->ring, num, SIB_CQE_SIZE) :
		      sib_ring_alloc_kernel(&cq->ring, num, SIB_CQE_SIZE);
	if (err)
		goto err_cnt;
	if (!udata) {
		cq->kqp = kvcalloc(num, sizeof(*cq->kqp), GFP_KERNEL);
		if (!cq->kqp) {
			err = -ENOMEM;
			goto err_ring;
		}
	} else {
		err = sib_ring_expose(&cq->ring, sib_udata_uctx(udata),
				      &resp.mmap_offset, &resp.mmap_size);
		if (err)
			goto err_ring;
		resp.num_entries = num;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_ring;
	}
	ibcq->cqe = num - 1;
	return 0;

err_ring:
	sib_ring_free(&cq->ring);
err_cnt:
	sib_obj_release(dev, SIB_OBJ_CQ);
	return err;
}

/**
 * sib_destroy_cq() - ib_device_ops.destroy_cq
 * @ibcq: CQ; the core guarantees no QP uses it any more
 * @udata: unused
 *
 * Context: process. Return: 0.
 */
int sib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sib_cq *cq = to_sib_cq(ibcq);

	/* a handler queued on the vector's CPU is done before the CQ goes */
	cancel_work_sync(&cq->comp_work);
	sib_ring_free(&cq->ring);
	kvfree(cq->kqp);
	sib_obj_release(cq->dev, SIB_OBJ_CQ);
	return 0;
}

static void sib_cq_overflow(struct sib_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	sib_counter_inc(cq->dev, SIB_CNT_CQ_OVERFLOW);
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * sib_cq_post() - produce one completion
 * @cq: CQ
 * @cqe: the entry
 * @ibqp: QP the completion belongs to (kept for kernel CQs)
 * @solicited: the completion is solicited (IBTA 11.4.2.2)
 *
 * Calls the completion handler when the CQ is armed accordingly.
 * Context: process or softirq, takes cq->lock. Return: 0, or -ENOSPC
 * when the CQ overflowed (IB_EVENT_CQ_ERR is raised once).
 */
int sib_cq_post(struct sib_cq *cq, const struct sib_cqe *cqe,
		struct ib_qp *ibqp, bool solicited)
{
	unsigned long flags;
	bool notify = false;
	bool overflow = false;
	struct sib_cqe *slot;
	u32 used;

	spin_lock_irqsave(&cq->lock, flags);
	used = cq->kprod - (cq->is_user ? READ_ONCE(cq->ring.hdr->consumer) :
			    cq->kcons);
	if (used >= cq->ring.num) {
		overflow = !cq->overflowed;
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (overflow)
			sib_cq_overflow(cq);
		return -ENOSPC;
	}
	slot = sib_ring_entry(&cq->ring, cq->kprod);
	memcpy(slot, cqe, sizeof(*cqe));
	if (cq->timestamp) {
		/* the device clock: CLOCK_REALTIME ns (SIB_HCA_CORE_CLOCK_KHZ) */
		slot->timestamp = ktime_get_real_ns();
		slot->wc_flags |= SIB_WC_F_TIMESTAMP;
	}
	if (cq->kqp)
		cq->kqp[cq->kprod & (cq->ring.num - 1)] = ibqp;
	cq->kprod++;
	smp_store_release(&cq->ring.hdr->producer, cq->kprod);
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || cqe->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	sib_counter_inc(cq->dev, SIB_CNT_COMPLETIONS);
	trace_sib_cqe(cq->ibcq.res.id, cqe->qp_num, cqe->wr_id, cqe->status,
		      cqe->opcode);
	if (notify)
		sib_cq_notify(cq);
	return 0;
}

static void sib_cqe_to_wc(const struct sib_cqe *e, struct ib_qp *qp,
			  struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->qp = qp;
	wc->src_qp = e->src_qp;
	wc->pkey_index = e->pkey_index;
	wc->slid = e->slid;
	wc->sl = e->sl;
	wc->dlid_path_bits = e->dlid_path_bits;
	wc->port_num = e->port_num;
	if (e->wc_flags & SIB_WC_F_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (e->wc_flags & SIB_WC_F_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = e->ex;
	}
	if (e->wc_flags & SIB_WC_F_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(e->ex);
	}
	if (e->network_hdr_type != SIB_NET_HDR_IB) {
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE | IB_WC_WITH_SMAC;
		wc->network_hdr_type = e->network_hdr_type == SIB_NET_HDR_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
		memcpy(wc->smac, e->smac, ETH_ALEN);
	}
}

/**
 * sib_poll_cq() - ib_device_ops.poll_cq, kernel CQs only
 * @ibcq: CQ
 * @num: room in @wc
 * @wc: out
 *
 * Context: any, takes cq->lock. Return: number of completions.
 */
int sib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct sib_cq *cq = to_sib_cq(ibcq);
	unsigned long flags;
	int n = 0;

	if (cq->is_user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->kcons != cq->kprod) {
		sib_cqe_to_wc(sib_ring_entry(&cq->ring, cq->kcons),
			      cq->kqp[cq->kcons & (cq->ring.num - 1)], &wc[n]);
		cq->kcons++;
		n++;
	}
	cq->ring.hdr->consumer = cq->kcons;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * sib_req_notify_cq() - ib_device_ops.req_notify_cq
 * @ibcq: CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally
 *	   IB_CQ_REPORT_MISSED_EVENTS
 *
 * Context: any. Return: 0, or 1 when missed events were asked for and
 * the CQ is not empty.
 */
int sib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sib_cq *cq = to_sib_cq(ibcq);
	unsigned long irqf;
	int ret = 0;
	u32 cons;

	spin_lock_irqsave(&cq->lock, irqf);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		cons = cq->is_user ? READ_ONCE(cq->ring.hdr->consumer) :
				     cq->kcons;
		ret = cons != cq->kprod;
	}
	spin_unlock_irqrestore(&cq->lock, irqf);
	return ret;
}

/**
 * sib_resize_cq() - ib_device_ops.resize_cq
 * @ibcq: CQ
 * @cqe: new minimum number of entries
 * @udata: user data or NULL; answers struct sib_resize_cq_resp
 *
 * The unconsumed entries move to the start of the new ring (new
 * consumer 0, producer = their count); user space switches to the new
 * ring when the command returns. Context: process. Return: 0, -EINVAL
 * when @cqe is out of range or below the number of unconsumed entries,
 * -ENOMEM.
 */
int sib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sib_cq *cq = to_sib_cq(ibcq);
	struct sib_resize_cq_resp resp = {};
	struct sib_ring nr, old;
	struct ib_qp **nkqp = NULL, **okqp;
	unsigned long flags;
	u32 num, used, cons, i;
	int err;

	if (cqe < 1 || cqe > cq->dev->lim.max_cqe)
		return -EINVAL;
	err = sib_cq_check_udata(udata);
	if (err)
		return err;
	num = sib_cq_ring_size(cqe);
	err = cq->is_user ? sib_ring_alloc(&nr, num, SIB_CQE_SIZE) :
			    sib_ring_alloc_kernel(&nr, num, SIB_CQE_SIZE);
	if (err)
		return err;
	if (!cq->is_user) {
		nkqp = kvcalloc(num, sizeof(*nkqp), GFP_KERNEL);
		if (!nkqp) {
			sib_ring_free(&nr);
			return -ENOMEM;
		}
	} else {
		err = sib_ring_expose(&nr, sib_udata_uctx(udata),
				      &resp.mmap_offset, &resp.mmap_size);
		if (err) {
			sib_ring_free(&nr);
			return err;
		}
	}
	spin_lock_irqsave(&cq->lock, flags);
	cons = cq->is_user ? READ_ONCE(cq->ring.hdr->consumer) : cq->kcons;
	used = cq->kprod - cons;
	if (used > cq->ring.num)	/* bogus user consumer: drop all */
		used = 0, cons = cq->kprod;
	if (used >= num) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(nkqp);
		sib_ring_free(&nr);
		return -EINVAL;
	}
	for (i = 0; i < used; i++) {
		memcpy(sib_ring_entry(&nr, i), sib_ring_entry(&cq->ring, cons + i),
		       SIB_CQE_SIZE);
		if (nkqp)
			nkqp[i] = cq->kqp[(cons + i) & (cq->ring.num - 1)];
	}
	nr.hdr->producer = used;
	old = cq->ring;
	okqp = cq->kqp;
	cq->ring = nr;
	cq->kqp = nkqp;
	cq->kprod = used;
	cq->kcons = 0;
	cq->overflowed = false;
	ibcq->cqe = num - 1;
	spin_unlock_irqrestore(&cq->lock, flags);
	sib_ring_free(&old);
	kvfree(okqp);
	if (udata) {
		resp.num_entries = num;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
	}
	return err;
}
