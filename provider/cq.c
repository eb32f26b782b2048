// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: completion queues. The kernel produces struct sib_cqe entries
 * into a ring mapped into this process; polling reads them without a
 * system call and publishes the consumer index back to the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "softib.h"

/*
 * Copy the next CQE out of the ring and release its slot; 0 if empty,
 * -EIO when the kernel destroyed the CQ under us (device removed).
 */
static int sib_cq_take(struct sib_cq *cq, struct sib_cqe *out)
{
	struct sib_ring *r = &cq->ring;
	struct sib_ring_hdr *hdr = sib_ring_hdr(r);
	uint32_t prod = sib_load_acquire(&hdr->producer);

	if (sib_ring_empty(prod, r->idx))
		return sib_ring_dead(r) ? -EIO : 0;
	memcpy(out, sib_ring_slot(r->buf, r->idx, r->num, r->stride),
	       sizeof(*out));
	r->idx++;
	/* the slot may be rewritten by the kernel once this is visible */
	sib_store_release(&hdr->consumer, r->idx);
	return 1;
}

/*
 * The empty check of a busy-poll loop, without the lock: 1 when the CQ is
 * empty, -EIO when it is empty and dead, 0 when the caller must look
 * under the lock. Safe against a concurrent resize: the header read may
 * be of a ring resize_cq replaced, but its address is still readable
 * (cq->ranges, see sib_resize_cq()), and a resize in between shows in
 * cq->gen, which sends the caller to the lock. Against a concurrent
 * poller: the consumer index only grows and never passes the producer,
 * so reading it before the producer gives an "empty" that was true when
 * the producer was read.
 */
static int sib_cq_peek_empty(struct sib_cq *cq)
{
	uint32_t gen = sib_load_acquire(&cq->gen), idx, prod;
	struct sib_ring_hdr *hdr;
	int dead;

	if (gen & 1)
		return 0;
	hdr = __atomic_load_n(&cq->ring.buf, __ATOMIC_RELAXED);
	idx = __atomic_load_n(&cq->ring.idx, __ATOMIC_RELAXED);
	prod = sib_load_acquire(&hdr->producer);
	dead = cq->ring.check_magic &&
	       sib_load_acquire(&hdr->magic) != SIB_RING_MAGIC;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&cq->gen, __ATOMIC_RELAXED) != gen || prod != idx)
		return 0;
	return dead ? -EIO : 1;
}

int sib_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sib_cq *cq = to_sib_cq(ibcq);
	struct sib_cqe cqe;
	int n = 0, ret = 0;

	if (ne < 0)
		return -EINVAL;
	ret = sib_cq_peek_empty(cq);
	if (ret)
		return ret < 0 ? ret : 0;
	pthread_spin_lock(&cq->lock);
	while (n < ne && (ret = sib_cq_take(cq, &cqe)) > 0) {
		sib_cqe_to_wc(&cqe, &wc[n]);
		n++;
	}
	pthread_spin_unlock(&cq->lock);
	return n ? n : (ret < 0 ? ret : 0);
}

int sib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/* ---- ibv_cq_ex poll API: each start/next copies one CQE into cq->cur ---- */

static void sib_cq_load_cur(struct sib_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = (enum ibv_wc_status)cq->cur.status;
}

static int sib_start_poll(struct ibv_cq_ex *ibcq,
			  struct ibv_poll_cq_attr *attr)
{
	struct sib_cq *cq = ex_to_sib_cq(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	ret = sib_cq_peek_empty(cq);
	if (ret)
		return ret < 0 ? EIO : ENOENT;
	pthread_spin_lock(&cq->lock);
	ret = sib_cq_take(cq, &cq->cur);
	if (ret <= 0) {
		pthread_spin_unlock(&cq->lock);
		return ret < 0 ? EIO : ENOENT;
	}
	sib_cq_load_cur(cq);
	return 0;
}

static int sib_next_poll(struct ibv_cq_ex *ibcq)
{
	struct sib_cq *cq = ex_to_sib_cq(ibcq);
	int ret = sib_cq_take(cq, &cq->cur);

	if (ret <= 0)
		return ret < 0 ? EIO : ENOENT;
	sib_cq_load_cur(cq);
	return 0;
}

static void sib_end_poll(struct ibv_cq_ex *ibcq)
{
	pthread_spin_unlock(&ex_to_sib_cq(ibcq)->lock);
}

static enum ibv_wc_opcode sib_read_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)ex_to_sib_cq(ibcq)->cur.opcode;
}

static uint32_t sib_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.vendor_err;
}

static uint32_t sib_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.byte_len;
}

/* also ibv_wc_read_invalidated_rkey(), which takes the value as it is: the
 * R_Key in host order, the immediate in wire order */
static __be32 sib_read_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct sib_cqe *c = &ex_to_sib_cq(ibcq)->cur;

	if (c->wc_flags & SIB_WC_F_INV)
		return (__be32)be32toh(c->ex);
	return c->ex;
}

static uint32_t sib_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.qp_num;
}

static uint32_t sib_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.src_qp;
}

static unsigned int sib_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return sib_wc_flags(ex_to_sib_cq(ibcq)->cur.wc_flags);
}

static uint32_t sib_read_slid(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.slid;
}

static uint8_t sib_read_sl(struct ibv_cq_ex *ibcq)
{
	return sib_cqe_sl(&ex_to_sib_cq(ibcq)->cur);
}

static uint8_t sib_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.dlid_path_bits;
}

/*
 * Both timestamps are the kernel's CLOCK_REALTIME in ns: the device clock
 * ticks at hca_core_clock = 1 GHz, so a raw value is already wall-clock.
 */
static uint64_t sib_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return ex_to_sib_cq(ibcq)->cur.timestamp;
}

/* a tag matching completion's tag and the sender's app_ctx */
static void sib_read_tm_info(struct ibv_cq_ex *ibcq,
			     struct ibv_wc_tm_info *tm_info)
{
	const struct sib_cqe *c = &ex_to_sib_cq(ibcq)->cur;

	tm_info->tag = c->tm_tag;
	tm_info->priv = be32toh(c->ex);
}

enum {
	SIB_CQ_EX_SUPPORTED = IBV_WC_EX_WITH_TM_INFO |
			      IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			      IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			      IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			      IBV_WC_EX_WITH_DLID_PATH_BITS |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
};

void sib_cq_ex_setup(struct sib_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *ex = &cq->vcq.cq_ex;

	ex->start_poll = sib_start_poll;
	ex->next_poll = sib_next_poll;
	ex->end_poll = sib_end_poll;
	ex->read_opcode = sib_read_opcode;
	ex->read_vendor_err = sib_read_vendor_err;
	ex->read_wc_flags = sib_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = sib_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = sib_read_imm_data;	/* also invalidated rkey */
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = sib_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = sib_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = sib_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = sib_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = sib_read_dlid_path_bits;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ex->read_completion_ts = sib_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ex->read_completion_wallclock_ns = sib_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_TM_INFO)
		ex->read_tm_info = sib_read_tm_info;
}

/* Map the ring described by @drv into @cq (its private consumer too). */
static int sib_cq_map(struct ibv_context *ctx, struct sib_cq *cq,
		      const struct sib_create_cq_resp *drv)
{
	int ret;

	if (!drv->mmap_size)
		return EPROTO;
	ret = sib_mmap_ring(ctx, &cq->ring, drv->mmap_offset, drv->mmap_size,
			    drv->num_entries, SIB_CQE_SIZE);
	if (ret)
		return ret;
	cq->ring.idx = sib_load_acquire(&sib_ring_hdr(&cq->ring)->consumer);
	return 0;
}

/* @pd: the parent domain of ibv_create_cq_ex, or NULL */
static struct sib_cq *sib_cq_alloc(struct ibv_pd *pd)
{
	struct sib_obj_mem mem;
	struct sib_cq *cq = sib_obj_calloc(pd, sizeof(*cq), SIB_RES_TYPE_CQ,
					   &mem);

	if (!cq)
		return NULL;
	cq->mem = mem;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		sib_obj_free(cq, &cq->mem);
		errno = ENOMEM;
		return NULL;
	}
	return cq;
}

static void sib_cq_free(struct sib_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	sib_obj_free(cq, &cq->mem);
}

struct ibv_cq *sib_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct {
		struct ib_uverbs_create_cq_resp ibv_resp;
		struct sib_create_cq_resp drv;
	} resp;
	struct ibv_create_cq cmd;
	struct sib_cq *cq;
	int ret;

	cq = sib_cq_alloc(NULL);
	if (!cq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;
	ret = sib_cq_map(ctx, cq, &resp.drv);
	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto err_free;
	}
	return &cq->vcq.cq;

err_free:
	sib_cq_free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq_ex *sib_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	struct {
		struct ib_uverbs_ex_create_cq_resp ibv_resp;
		struct sib_create_cq_resp drv;
	} resp;
	struct ibv_create_cq_ex cmd;
	struct ibv_pd *pd = NULL;
	struct sib_cq *cq;
	int ret;

	if (attr->wc_flags & ~(uint64_t)SIB_CQ_EX_SUPPORTED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				       IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		/* only a parent domain may be given (ibv_create_cq_ex(3)) */
		pd = attr->parent_domain;
		if (!pd || pd->context != ctx ||
		    !to_sib_pd(pd)->protection_domain) {
			errno = EINVAL;
			return NULL;
		}
	}
	cq = sib_cq_alloc(pd);
	if (!cq)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_create_cq_ex(ctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp), 0);
	if (ret)
		goto err_free;
	ret = sib_cq_map(ctx, cq, &resp.drv);
	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		goto err_free;
	}
	cq->wc_flags = attr->wc_flags;
	sib_cq_ex_setup(cq, attr->wc_flags);
	/*
	 * No verbs_init_cq() here: libibverbs' ibv_create_cq_ex() calls it
	 * after this returns, and a second call took a second reference on
	 * the completion channel, which ibv_destroy_cq() gives back once, so
	 * that ibv_destroy_comp_channel() failed with EBUSY for ever (UCX
	 * warned at every interface close and leaked the channel's fd).
	 */
	return &cq->vcq.cq_ex;

err_free:
	sib_cq_free(cq);
	errno = ret;
	return NULL;
}

/* Zero pages over [@addr, @addr + @size): still readable, no memory behind. */
static int sib_range_blank(void *addr, size_t size)
{
	void *p = mmap(addr, size, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? errno : 0;
}

/* the smallest range other than @cur that holds @size bytes, or NULL */
static struct sib_ring_range *sib_range_spare(struct sib_cq *cq,
					      struct sib_ring_range *cur,
					      size_t size)
{
	struct sib_ring_range *r, *best = NULL;

	for (r = cq->ranges; r; r = r->next)
		if (r != cur && r->size >= size && (!best || r->size < best->size))
			best = r;
	return best;
}

/*
 * Resize: the kernel moves the unpolled CQEs into a new ring, which
 * replaces cq->ring under the lock. The empty check of a lock-free poller
 * (sib_cq_peek_empty()) may still be about to read the header of any ring
 * cq->ring ever described, however long ago it loaded the address; so no
 * such address may ever become unmapped before destroy. Replaced rings
 * used to stay mapped for that reason, each holding the kernel's ring
 * memory, without bound. Now the addresses stay readable, not the rings:
 * - a replaced ring's mapping is replaced, in one mmap(MAP_FIXED) step
 *   (the kernel swaps the mapping under its mmap lock: a concurrent read
 *   sees the old page or the new one, never a hole), by zero pages of an
 *   anonymous read-only mapping, which frees the ring's memory; its
 *   address range is kept (cq->ranges) as a spare;
 * - the next ring is mapped, MAP_FIXED again, at the start of the
 *   smallest spare it fits in, or at a new address (a new range) when
 *   none does.
 * A stale reader thus reads zeros or the header of a newer ring; either
 * way cq->gen moved since it loaded the address, and it takes the lock.
 * cq->gen is odd from before the resize command until the new ring is
 * in place: the kernel clears the replaced ring's magic word, which the
 * empty check would otherwise report as a dead CQ (-EIO).
 * One window is left: when mapping the kernel's new ring into a spare
 * fails (the device went away meanwhile), the kernel has already removed
 * the spare's zero pages; a reader still holding that address from two
 * or more resizes ago and touching it before sib_range_blank() restores
 * them would fault.
 * Bounds: the kernel's memory of one ring (the current one) per CQ; one
 * range more only for a ring larger than every spare, so with rings of
 * 2^n entries (the kernel's: at most 64k) at most one range per ring
 * size. Resizing back and forth between two sizes uses two ranges.
 */
int sib_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct {
		struct ib_uverbs_resize_cq_resp ibv_resp;
		struct sib_resize_cq_resp drv;
	} resp;
	struct ibv_resize_cq cmd;
	struct sib_cq *cq = to_sib_cq(ibcq);
	struct sib_ring_range *first, *fresh, *cur, *spare;
	struct sib_ring old, nr;
	int ret;

	if (cqe <= 0)
		return EINVAL;
	/* what the swap may need, allocated before the kernel swaps */
	first = calloc(1, sizeof(*first));
	fresh = calloc(1, sizeof(*fresh));
	if (!first || !fresh) {
		free(first);
		free(fresh);
		return ENOMEM;
	}
	memset(&resp, 0, sizeof(resp));
	memset(&cmd, 0, sizeof(cmd));
	pthread_spin_lock(&cq->lock);
	/*
	 * Odd from before the command on: the kernel clears the magic word
	 * of the ring it replaces, which an empty check must not take for
	 * a dead CQ.
	 */
	sib_store_release(&cq->gen, cq->gen + 1);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto out;
	if (!resp.drv.mmap_size) {
		ret = EPROTO;
		goto out;
	}
	old = cq->ring;
	/* the first resize: the ring of create_cq becomes the first range */
	for (cur = cq->ranges; cur && cur->addr != old.buf; cur = cur->next)
		;
	if (!cur) {
		cur = first;
		first = NULL;
		cur->addr = old.buf;
		cur->size = old.map_size;
		cur->next = cq->ranges;
		cq->ranges = cur;
	}
	spare = sib_range_spare(cq, cur, resp.drv.mmap_size);
	ret = sib_mmap_ring_at(ibcq->context, &nr, spare ? spare->addr : NULL,
			       resp.drv.mmap_offset, resp.drv.mmap_size,
			       resp.drv.num_entries, SIB_CQE_SIZE);
	if (ret) {
		/* a failed MAP_FIXED may leave a hole: make it readable again */
		if (spare)
			sib_range_blank(spare->addr, spare->size);
		goto out;	/* keep polling the old ring: better than none */
	}
	if (!spare) {
		fresh->addr = nr.buf;
		fresh->size = nr.map_size;
		fresh->next = cq->ranges;
		cq->ranges = fresh;
		fresh = NULL;
	}
	nr.idx = sib_load_acquire(&sib_ring_hdr(&nr)->consumer);
	cq->ring = nr;
	/* on failure the old ring just stays mapped until reused or destroy */
	sib_range_blank(old.buf, old.map_size);
out:
	sib_store_release(&cq->gen, cq->gen + 1);	/* even: swapped */
	pthread_spin_unlock(&cq->lock);
	free(first);
	free(fresh);
	return ret;
}

int sib_destroy_cq(struct ibv_cq *ibcq)
{
	struct sib_cq *cq = to_sib_cq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	/* after a resize the ranges hold the ring too */
	if (!cq->ranges)
		sib_munmap_ring(&cq->ring);
	while (cq->ranges) {
		struct sib_ring_range *r = cq->ranges;

		cq->ranges = r->next;
		munmap(r->addr, r->size);
		free(r);
	}
	sib_cq_free(cq);
	return 0;
}
