// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: on-demand paging (ODP) memory regions.
 *
 * An IB_ACCESS_ON_DEMAND MR pins nothing. Its umem is ib_core's
 * ib_umem_odp: an MMU interval notifier over the registered range, a pfn
 * list filled by hmm_range_fault() and a "DMA" list (softib has no DMA
 * device: ib_dma_map_page() hands back a kernel address) whose two low
 * bits say whether a page is mapped for reading and for writing.
 *
 * An engine that touches the MR (sib_odp_walk(), from mr.c's copies)
 * takes the umem's mutex and, when every page of its piece is mapped
 * with the access it needs, copies at once; otherwise it lets go of the
 * mutex and faults the pages in through ib_umem_odp_map_dma_and_lock(),
 * which returns with the mutex held again. The copy happens under the
 * mutex, so an invalidation (sib_odp_invalidate(): munmap, fork's
 * copy-on-write, madvise(DONTNEED), migration) waits until the copy is
 * over, then unmaps the pages; the next access faults them in again, or
 * fails with -EFAULT when the memory is gone (a remote access NAK or a
 * local protection error, as on a NIC).
 *
 * The fault is taken in the context that runs the QP's engines, a
 * sleepable task (the QP's own work item, or the system call that posted
 * to it): it delays that QP only, never other QPs, so no RNR NAK is sent
 * for a responder's fault. Where an engine runs with sleeping forbidden
 * (a kernel QP's loopback run nested in a softirq) an ODP MR cannot be
 * touched: the access fails with -EAGAIN and is counted.
 *
 * An implicit ODP MR (address 0, length U64_MAX: the whole address
 * space) has ib_core's implicit umem as its root and a child umem per
 * naturally aligned 2^SIB_ODP_CHILD_SHIFT bytes that an access or a
 * prefetch touched where the process maps memory (none for addresses a
 * peer probes elsewhere), kept in an xarray until the MR is deregistered.
 *
 * Below mr.c: the MR lookups of ibv_advise_mr are mr.c's
 * (sib_advise_mr()), which hands each range to sib_odp_prefetch().
 */
#include <linux/hmm.h>
#include <linux/mmu_notifier.h>
#include <rdma/ib_umem_odp.h>

#include "odp.h"
#include "counters.h"

/**
 * sib_odp_caps() - the ODP capabilities softib reports
 * @caps: filled in (query_device)
 *
 * Every transport can send from, receive into (also through an SRQ),
 * and be read, written and used for atomics through ODP memory, as its
 * operations allow (UD and UC have no READ or atomics), and implicit ODP
 * is supported. Context: any.
 */
void sib_odp_caps(struct ib_odp_caps *caps)
{
	const u32 msg = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_SRQ_RECV;
	const u32 rdma = IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			 IB_ODP_SUPPORT_ATOMIC;

	caps->general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	caps->per_transport_caps.rc_odp_caps = msg | rdma;
	caps->per_transport_caps.uc_odp_caps = msg | IB_ODP_SUPPORT_WRITE;
	caps->per_transport_caps.ud_odp_caps = msg;
	caps->per_transport_caps.xrc_odp_caps = msg | rdma;
}

/* may this context sleep to fault pages in? */
static bool sib_odp_may_fault(void)
{
	if (in_interrupt() || irqs_disabled())
		return false;
	return !IS_ENABLED(CONFIG_PREEMPT_COUNT) || preemptible();
}

/*
 * The mm is about to change [range->start, range->end) of @mni's umem:
 * unmap those pages, after any copy in progress (it holds umem_mutex).
 */
static bool sib_odp_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	unsigned long start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(unsigned long, range->start, ib_umem_start(odp));
	end = min_t(unsigned long, range->end, ib_umem_end(odp));
	if (start < end && odp->npages)
		ib_umem_odp_unmap_dma_pages(odp, start, end);
	mutex_unlock(&odp->umem_mutex);
	sib_counter_inc(to_sib_dev(odp->umem.ibdev), SIB_CNT_ODP_INVAL);
	return true;
}

static const struct mmu_interval_notifier_ops sib_odp_ops = {
	.invalidate = sib_odp_invalidate,
};

/* bytes of ib_core's page lists for an ODP umem of @length bytes */
static u64 sib_odp_lists(u64 length)
{
	return ((length >> PAGE_SHIFT) + 2) * 2 * sizeof(u64);
}

/*
 * ib_core keeps two u64 a page (pfn and DMA lists) for every ODP umem, an
 * implicit MR's 2 MiB children included; no rlimit or cgroup charges them
 * to the process. The device's ODP MRs together may hold lists of at most
 * 1/SIB_ODP_LISTS_RAM_SHARE of RAM: beyond that a registration, or the
 * child an access needs, is refused. Called before the umem is made;
 * @mr->odp_charged is later returned whole by sib_odp_release().
 */
static int sib_odp_charge(struct sib_mr *mr, u64 length)
{
	u64 lists = sib_odp_lists(length);
	u64 cap = ((u64)totalram_pages() << PAGE_SHIFT) /
		  SIB_ODP_LISTS_RAM_SHARE;
	atomic64_t *used = &mr->dev->odp_lists;

	if (atomic64_add_return(lists, used) > cap) {
		atomic64_sub(lists, used);
		return -ENOMEM;
	}
	mr->odp_charged += lists;
	return 0;
}

static void sib_odp_uncharge(struct sib_mr *mr, u64 length)
{
	u64 lists = sib_odp_lists(length);

	mr->odp_charged -= lists;
	atomic64_sub(lists, &mr->dev->odp_lists);
}

/**
 * sib_odp_reg() - give a new ODP MR its umem
 * @mr: MR being registered (type SIB_MR_ODP, not yet visible)
 * @start: user address of the first byte; 0 with @length U64_MAX for an
 *	   implicit MR (the whole address space)
 * @length: bytes
 * @access: IB_ACCESS_* flags, IB_ACCESS_ON_DEMAND among them
 *
 * Context: process, the registering task (its mm is the MR's).
 * Return: 0, -EINVAL (implicit with an address, or IB_ZERO_BASED),
 * -ENOMEM (also for an explicit MR whose page lists in ib_core, 16 bytes
 * a page, would take the device's ODP MRs past 1/SIB_ODP_LISTS_RAM_SHARE
 * of RAM: sib_odp_charge()), -EFAULT, -EOVERFLOW (from ib_core).
 */
int sib_odp_reg(struct sib_mr *mr, u64 start, u64 length, int access)
{
	struct ib_device *ibdev = &mr->dev->ibdev;
	struct ib_umem_odp *odp;

	xa_init(&mr->odp_kids);
	mutex_init(&mr->odp_kids_lock);
	if (length == U64_MAX) {
		if (start || (access & IB_ZERO_BASED))
			return -EINVAL;
		odp = ib_umem_odp_alloc_implicit(ibdev, access);
	} else {
		/* length <= SIB_MAX_MR_SIZE: no overflow */
		int err = sib_odp_charge(mr, length);

		if (err)
			return err;
		odp = ib_umem_odp_get(ibdev, start, length, access,
				      &sib_odp_ops);
		if (IS_ERR(odp))
			sib_odp_uncharge(mr, length);
	}
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	mr->odp = odp;
	/*
	 * The device's first ODP MR: receive rounds in softirq (sched.c) that
	 * saw none end before the MR is published (sib_mr_insert())
	 */
	if (atomic_inc_return(&mr->dev->odp_mrs) == 1)
		synchronize_rcu();
	return 0;
}

/**
 * sib_odp_release() - free the umems of an ODP MR
 * @mr: MR no engine uses any more (sib_mr_remove() waited)
 *
 * Context: process.
 */
void sib_odp_release(struct sib_mr *mr)
{
	struct ib_umem_odp *kid;
	unsigned long idx;

	if (!mr->odp)
		return;
	xa_for_each(&mr->odp_kids, idx, kid)
		ib_umem_odp_release(kid);
	xa_destroy(&mr->odp_kids);
	ib_umem_odp_release(mr->odp);
	mr->odp = NULL;
	atomic_dec(&mr->dev->odp_mrs);
	atomic64_sub(mr->odp_charged, &mr->dev->odp_lists);
	mr->odp_charged = 0;
}

/*
 * Does the owning process map anything in [start, start + len)? A peer
 * chooses the addresses it sends to an implicit MR's R_Key: a child is
 * made only where the process has memory, so the children are bounded by
 * what it mapped, not by what a peer probes.
 */
static bool sib_odp_mapped_by_owner(struct ib_umem_odp *root,
				    unsigned long start, unsigned long len)
{
	struct mm_struct *mm = root->umem.owning_mm;
	bool mapped;

	if (!mmget_not_zero(mm))
		return false;
	mmap_read_lock(mm);
	mapped = find_vma_intersection(mm, start, start + len) != NULL;
	mmap_read_unlock(mm);
	mmput(mm);
	return mapped;
}

/* the umem holding user address @va: the MR's own, or an implicit MR's child */
static struct ib_umem_odp *sib_odp_umem(struct sib_mr *mr, u64 va)
{
	unsigned long idx = va >> SIB_ODP_CHILD_SHIFT;
	struct ib_umem_odp *kid;
	void *old;

	if (!mr->odp->is_implicit_odp)
		return mr->odp;
	kid = xa_load(&mr->odp_kids, idx);
	if (kid)
		return kid;
	if (!sib_odp_may_fault())
		return ERR_PTR(-EAGAIN);
	if (idx >= (TASK_SIZE_MAX >> SIB_ODP_CHILD_SHIFT) ||
	    !sib_odp_mapped_by_owner(mr->odp, idx << SIB_ODP_CHILD_SHIFT,
				     1UL << SIB_ODP_CHILD_SHIFT))
		return ERR_PTR(-EFAULT);
	mutex_lock(&mr->odp_kids_lock);
	kid = xa_load(&mr->odp_kids, idx);
	if (!kid && sib_odp_charge(mr, 1UL << SIB_ODP_CHILD_SHIFT))
		kid = ERR_PTR(-ENOMEM);
	else if (!kid) {
		kid = ib_umem_odp_alloc_child(mr->odp,
					      (u64)idx << SIB_ODP_CHILD_SHIFT,
					      1UL << SIB_ODP_CHILD_SHIFT,
					      &sib_odp_ops);
		if (!IS_ERR(kid)) {
			old = xa_store(&mr->odp_kids, idx, kid, GFP_KERNEL);
			if (xa_is_err(old)) {
				ib_umem_odp_release(kid);
				kid = ERR_PTR(xa_err(old));
			}
		}
		if (IS_ERR(kid))
			sib_odp_uncharge(mr, 1UL << SIB_ODP_CHILD_SHIFT);
	}
	mutex_unlock(&mr->odp_kids_lock);
	return kid;
}

/* all pages of [va, va + len) mapped with @need? Under umem_mutex. */
static bool sib_odp_mapped(struct ib_umem_odp *odp, u64 va, u64 len, u64 need)
{
	unsigned long first = (va - ib_umem_start(odp)) >> odp->page_shift;
	unsigned long last = (va + len - 1 - ib_umem_start(odp)) >>
			     odp->page_shift;

	for (; first <= last; first++)
		if ((odp->dma_list[first] & need) != need)
			return false;
	return true;
}

/*
 * Take @odp's umem_mutex with [va, va + len) (inside @odp) mapped for
 * @need; with @fault false, map only what is present. Return: 0 with
 * the mutex held, or an error without it.
 */
static int sib_odp_lock(struct sib_dev *dev, struct ib_umem_odp *odp, u64 va,
			u64 len, u64 need, bool fault)
{
	int ret;

	if (!sib_odp_may_fault()) {
		sib_counter_inc(dev, SIB_CNT_ODP_AGAIN);
		return -EAGAIN;
	}
	mutex_lock(&odp->umem_mutex);
	if (sib_odp_mapped(odp, va, len, need))
		return 0;
	mutex_unlock(&odp->umem_mutex);
	if (fault)
		sib_counter_inc(dev, SIB_CNT_ODP_FAULTS);
	ret = ib_umem_odp_map_dma_and_lock(odp, va, len, need, fault);
	return ret < 0 ? ret : 0;
}

/*
 * The pieces of [va, va + len) of @odp, page by page, to @fn; under
 * umem_mutex with every page mapped.
 */
static int sib_odp_pages(struct ib_umem_odp *odp, u64 va, u32 len,
			 sib_odp_page_fn fn, void *arg)
{
	while (len) {
		unsigned long pfn = odp->pfn_list[(va - ib_umem_start(odp)) >>
						  PAGE_SHIFT];
		u32 poff = va & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		int err;

		err = fn(arg, hmm_pfn_to_page(pfn), poff, n);
		if (err)
			return err;
		va += n;
		len -= n;
	}
	return 0;
}

/*
 * [iova, iova + len) of @mr, umem by umem, locked with its pages mapped
 * for @need (faulted in with @fault, else what is present), to @fn
 */
static int sib_odp_range(struct sib_mr *mr, u64 iova, u32 len, u64 need,
			 bool fault, sib_odp_page_fn fn, void *arg)
{
	u64 va;

	if (!len)
		return 0;
	if (!sib_mr_in_range(mr, iova, len))
		return -EFAULT;
	va = mr->odp->umem.address + (iova - mr->iova);
	if (va + len < va)
		return -EFAULT;
	while (len) {
		struct ib_umem_odp *odp = sib_odp_umem(mr, va);
		u32 n;
		int err;

		if (IS_ERR(odp))
			return PTR_ERR(odp);
		n = min_t(u64, len, ib_umem_end(odp) - va);
		err = sib_odp_lock(mr->dev, odp, va, n, need, fault);
		if (err)
			return err == -EBUSY ? -EAGAIN : err;
		err = fn ? sib_odp_pages(odp, va, n, fn, arg) : 0;
		mutex_unlock(&odp->umem_mutex);
		if (err)
			return err;
		va += n;
		len -= n;
	}
	return 0;
}

/**
 * sib_odp_walk() - hand an ODP MR's bytes, faulted in, to a function
 * @mr: referenced ODP MR
 * @iova: first byte in the MR's address space (untrusted)
 * @len: bytes
 * @write: the access writes (pages mapped writable)
 * @fn: called for each piece (at most a page), under the umem's mutex;
 *	may be NULL (a prefetch)
 * @arg: for @fn
 *
 * Context: a sleepable task (the QP's run or a system call); elsewhere
 * nothing is touched. Return: 0; -EFAULT (outside the MR, or memory not
 * mapped in the owning process any more, or without write permission
 * for @write), -EAGAIN (a context that cannot sleep), -ENOMEM, or @fn's
 * error.
 */
int sib_odp_walk(struct sib_mr *mr, u64 iova, u32 len, bool write,
		 sib_odp_page_fn fn, void *arg)
{
	u64 need = ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);

	return sib_odp_range(mr, iova, len, need, true, fn, arg);
}

/**
 * sib_odp_prefetch() - fault in (or map what is present of) an ODP range
 * @mr: referenced ODP MR
 * @iova: first byte in the MR's address space (untrusted)
 * @len: bytes
 * @advice: IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH (for reading), _WRITE, or
 *	    _NO_FAULT (map what is present, fault nothing in)
 *
 * Context: a sleepable task. Return: 0 or sib_odp_walk()'s errors.
 */
int sib_odp_prefetch(struct sib_mr *mr, u64 iova, u32 len,
		     enum ib_uverbs_advise_mr_advice advice)
{
	sib_counter_inc(mr->dev, SIB_CNT_ODP_PREFETCH);
	/* NO_FAULT: map what is present, fault nothing in */
	if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return sib_odp_range(mr, iova, len, ODP_READ_ALLOWED_BIT, false,
				     NULL, NULL);
	return sib_odp_walk(mr, iova, len,
			    advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    NULL, NULL);
}
