// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: memory regions. lkey == rkey == index << 8 | key byte; the
 * index names the xarray slot, so lookup is O(1) and a stale key with the
 * right index but an old key byte is rejected. MR indices stay below
 * SIB_MW_KEY_BIT so that R_Keys of memory windows (mw.c) never collide.
 * A user MR keeps an array of its pinned pages for O(1) address-to-page
 * translation; a fast-registration MR a page list of kernel addresses
 * filled by map_mr_sg and made valid by an IB_WR_REG_MR work request.
 * Access flags and ranges are checked on every access (IBTA 10.6.3).
 */
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/skbuff.h>
#include "compat.h"

#include "mr.h"
#include "odp.h"

/*
 * The payload copy. The kernel's memcpy() on x86 with ERMS is "rep movsb",
 * the fastest copy on hardware; under QEMU TCG (softib's CI) that one
 * instruction is emulated byte by byte and runs at about a quarter of a
 * loop of 8-byte moves. Like the xor and raid6 code, softib times both at
 * module load and uses the faster one for every payload byte it moves.
 */
static DEFINE_STATIC_KEY_FALSE(sib_copy_words_key);

/* 64 bytes per iteration in 8-byte moves, any alignment; memcpy for the tail */
static void sib_copy_words(void *dst, const void *src, size_t n)
{
	while (n >= 64) {
		u64 a = __get_unaligned_cpu64(src), b = __get_unaligned_cpu64(src + 8),
		    c = __get_unaligned_cpu64(src + 16), d = __get_unaligned_cpu64(src + 24),
		    e = __get_unaligned_cpu64(src + 32), f = __get_unaligned_cpu64(src + 40),
		    g = __get_unaligned_cpu64(src + 48), h = __get_unaligned_cpu64(src + 56);

		__put_unaligned_cpu64(a, dst);
		__put_unaligned_cpu64(b, dst + 8);
		__put_unaligned_cpu64(c, dst + 16);
		__put_unaligned_cpu64(d, dst + 24);
		__put_unaligned_cpu64(e, dst + 32);
		__put_unaligned_cpu64(f, dst + 40);
		__put_unaligned_cpu64(g, dst + 48);
		__put_unaligned_cpu64(h, dst + 56);
		/* keep the compiler from turning the loop back into memcpy() */
		barrier();
		src += 64;
		dst += 64;
		n -= 64;
	}
	memcpy(dst, src, n);
}

static inline void sib_copy(void *dst, const void *src, size_t n)
{
	if (static_branch_unlikely(&sib_copy_words_key))
		sib_copy_words(dst, src, n);
	else
		memcpy(dst, src, n);
}

#define SIB_COPY_CAL_BYTES	(64 * 1024)
#define SIB_COPY_CAL_ROUNDS	32

/* ns for SIB_COPY_CAL_ROUNDS copies of SIB_COPY_CAL_BYTES, best of three */
static u64 sib_copy_time(void *dst, const void *src, bool words)
{
	u64 best = U64_MAX, t;
	int i, r;

	for (r = 0; r < 3; r++) {
		t = ktime_get_ns();
		for (i = 0; i < SIB_COPY_CAL_ROUNDS; i++) {
			if (words)
				sib_copy_words(dst, src, SIB_COPY_CAL_BYTES);
			else
				memcpy(dst, src, SIB_COPY_CAL_BYTES);
		}
		best = min(best, ktime_get_ns() - t);
		cond_resched();
	}
	return best ?: 1;
}

/**
 * sib_copy_init() - pick the payload copy routine
 *
 * Times memcpy() against an 8-byte move loop on 64 KiB and keeps the
 * faster (the loop must win by 20%, memcpy stays on a tie).
 * Context: module init (process). A failed allocation keeps memcpy().
 */
void sib_copy_init(void)
{
	u64 t_mem, t_words;
	void *a, *b;

	a = kvmalloc(SIB_COPY_CAL_BYTES, GFP_KERNEL);
	b = kvmalloc(SIB_COPY_CAL_BYTES, GFP_KERNEL);
	if (a && b) {
		memset(a, 0x5a, SIB_COPY_CAL_BYTES);
		memset(b, 0xa5, SIB_COPY_CAL_BYTES);
		t_mem = sib_copy_time(b, a, false);
		t_words = sib_copy_time(b, a, true);
		if (t_words * 5 < t_mem * 4)
			static_branch_enable(&sib_copy_words_key);
		pr_info("softib: payload copy: %s (memcpy %llu MB/s, 8-byte loop %llu MB/s)\n",
			static_branch_unlikely(&sib_copy_words_key) ?
			"8-byte loop" : "memcpy",
			div64_u64((u64)SIB_COPY_CAL_BYTES * SIB_COPY_CAL_ROUNDS * 1000, t_mem),
			div64_u64((u64)SIB_COPY_CAL_BYTES * SIB_COPY_CAL_ROUNDS * 1000, t_words));
	}
	kvfree(a);
	kvfree(b);
}

/*
 * skb_copy_bits() with the payload copy: @len bytes at @off of @skb (linear
 * part and page fragments; a frag list goes to skb_copy_bits()) into @to.
 */
static int sib_skb_copy_bits(const struct sk_buff *skb, u32 off, void *to,
			     u32 len)
{
	u32 hlen = skb_headlen(skb), n, i;

	if (!static_branch_unlikely(&sib_copy_words_key) ||
	    skb_has_frag_list(skb))
		return skb_copy_bits(skb, off, to, len);
	if (len > skb->len || off > skb->len - len)
		return -EFAULT;
	if (off < hlen) {
		n = min(len, hlen - off);
		sib_copy(to, skb->data + off, n);
		to += n;
		len -= n;
		off = 0;
	} else {
		off -= hlen;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags && len; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];
		u32 p_off, p_len, copied, fsz = skb_frag_size(f);
		struct page *p;

		if (off >= fsz) {
			off -= fsz;
			continue;
		}
		n = min(len, fsz - off);
		skb_frag_foreach_page(f, skb_frag_off(f) + off, n, p, p_off,
				      p_len, copied) {
			void *va = kmap_local_page(p);

			sib_copy(to + copied, va + p_off, p_len);
			kunmap_local(va);
		}
		to += n;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

static int sib_mr_insert(struct sib_dev *dev, struct sib_mr *mr)
{
	u32 idx;
	int err;

	err = sib_obj_take(dev, SIB_OBJ_MR);
	if (err)
		return err;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	mr->ibmr.lkey = (u8)(dev->next_key++);
	/*
	 * An implicit ODP MR gets an even key byte. UCX 1.13 (Debian
	 * bookworm's) keeps its global ODP MR in a handle whose first word
	 * is the lkey and, when it closes the device, reads that word as a
	 * field mask (openucx/ucx#8735): with bit 0 set it follows a bogus
	 * pointer and crashes. Any key byte is as good to the IBTA.
	 */
	if (sib_mr_is_implicit(mr))
		mr->ibmr.lkey &= ~1U;
	mr->ibmr.rkey = mr->ibmr.lkey;
	/* published by xa_alloc: the key must be final before */
	mr->key = mr->type == SIB_MR_FRMR ? 0 : mr->ibmr.lkey;
	err = xa_alloc_cyclic_bh(&dev->mr_xa, &idx, mr,
			      XA_LIMIT(1, (SIB_MW_KEY_BIT >> 8) - 1),
			      &dev->next_mr, GFP_KERNEL);
	if (err < 0) {
		sib_obj_release(dev, SIB_OBJ_MR);
		return err;
	}
	xa_lock_bh(&dev->mr_xa);
	mr->ibmr.lkey |= idx << 8;
	mr->ibmr.rkey = mr->ibmr.lkey;
	if (mr->type != SIB_MR_FRMR)
		WRITE_ONCE(mr->key, mr->ibmr.lkey);
	xa_unlock_bh(&dev->mr_xa);
	return 0;
}

/* unpublish the MR and wait for the engines; -EBUSY while MWs are bound */
static int sib_mr_remove(struct sib_dev *dev, struct sib_mr *mr)
{
	xa_lock_bh(&dev->mr_xa);
	if (atomic_read(&mr->num_mw)) {
		xa_unlock_bh(&dev->mr_xa);
		return -EBUSY;
	}
	__xa_erase(&dev->mr_xa, mr->ibmr.lkey >> 8);
	/* every hint (sib_mr_get_cached()) from before is stale now */
	WRITE_ONCE(dev->mr_gen, dev->mr_gen + 1);
	xa_unlock_bh(&dev->mr_xa);
	sib_mr_put(mr);
	wait_for_completion(&mr->released);
	sib_obj_release(dev, SIB_OBJ_MR);
	return 0;
}

/**
 * sib_get_dma_mr() - ib_device_ops.get_dma_mr: all of kernel memory
 * @pd: PD
 * @access: IB_ACCESS_* flags
 *
 * "DMA" addresses of this device are kernel virtual addresses (the
 * device registers without a DMA device), so this MR translates
 * addresses 1:1. Context: process. Return: the MR or ERR_PTR.
 */
struct ib_mr *sib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dev = dev;
	mr->type = SIB_MR_DMA;
	mr->access = access;
	mr->length = U64_MAX;
	err = sib_mr_insert(dev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int sib_mr_fill_pages(struct sib_mr *mr)
{
	struct sg_page_iter it;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &it, 0) {
		if (i >= mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&it);
	}
	if (i != mr->npages)
		return -EFAULT;
	mr->page_off = ib_umem_offset(mr->umem);
	return 0;
}

/*
 * An IB_ACCESS_ON_DEMAND MR (odp.c): nothing pinned; @length U64_MAX at
 * @start 0 is an implicit one, the whole address space.
 */
static struct ib_mr *sib_reg_odp_mr(struct ib_pd *pd, u64 start, u64 length,
				    u64 iova, int access)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	bool implicit = !start && length == U64_MAX;
	struct sib_mr *mr;
	int err;

	if (access & IB_ZERO_BASED)
		iova = 0;
	if (!length || (!implicit && (length > SIB_MAX_MR_SIZE ||
				      iova + length < iova)))
		return ERR_PTR(-EINVAL);
	if (implicit && iova)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dev = dev;
	mr->type = SIB_MR_ODP;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	err = sib_odp_reg(mr, start, length, access);
	if (err)
		goto err_free;
	err = sib_mr_insert(dev, mr);
	if (err)
		goto err_odp;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_odp:
	sib_odp_release(mr);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sib_reg_user_mr() - ib_device_ops.reg_user_mr
 * @pd: PD
 * @start: user virtual address
 * @length: bytes
 * @iova: address the peers use for this MR's first byte; 0 with
 *	  IB_ZERO_BASED, whatever is passed
 * @access: IB_ACCESS_* (checked by the core for consistency)
 * @udata: user data (no driver data defined)
 *
 * With IB_ACCESS_ON_DEMAND nothing is pinned (odp.c).
 * Context: process, pins pages. Return: the MR or ERR_PTR(-EINVAL,
 * -ENOMEM, -EFAULT).
 */
struct ib_mr *sib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_mr *mr;
	int err;

	if (access & IB_ACCESS_ON_DEMAND)
		return sib_reg_odp_mr(pd, start, length, iova, access);
	/*
	 * A zero-based MR (IBTA's zero based virtual address, one of the
	 * base memory management extensions) is addressed by offsets: 0 is
	 * its first byte, for R_Key and L_Key accesses alike, whatever
	 * address the caller passed (ibv_reg_mr passes @start).
	 */
	if (access & IB_ZERO_BASED)
		iova = 0;
	if (!length || length > SIB_MAX_MR_SIZE || iova + length < iova)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dev = dev;
	mr->type = SIB_MR_USER;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	err = sib_mr_fill_pages(mr);
	if (err)
		goto err_umem;
	err = sib_mr_insert(dev, mr);
	if (err)
		goto err_umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_umem:
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sib_mr_reg_pages() - an MR on pages its caller owns: device memory
 * @pd: PD
 * @pages: the pages, the MR's first byte in the first of them
 * @npages: entries of @pages
 * @page_off: offset of the MR's first byte in @pages[0]
 * @length: bytes (0 allowed: an MR no access can touch but one of 0 bytes)
 * @access: IB_ACCESS_* flags, IB_ZERO_BASED among them
 *
 * The MR is zero based: address 0 is its first byte, for L_Key and R_Key
 * accesses alike. @pages must stay valid until sib_dereg_mr() returned,
 * which does not free them. Context: process. Return: the MR or
 * ERR_PTR(-EINVAL for a range beyond @pages, -ENOMEM).
 */
struct ib_mr *sib_mr_reg_pages(struct ib_pd *pd, struct page **pages,
			       unsigned long npages, unsigned int page_off,
			       u64 length, int access)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_mr *mr;
	int err;

	if (page_off >= PAGE_SIZE ||
	    (u64)page_off + length > (u64)npages << PAGE_SHIFT)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dev = dev;
	mr->type = SIB_MR_DM;
	mr->access = access;
	mr->length = length;
	mr->pages = pages;
	mr->npages = npages;
	mr->page_off = page_off;
	err = sib_mr_insert(dev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.iova = 0;
	mr->ibmr.length = length;
	return &mr->ibmr;
}

/**
 * sib_reg_user_mr_dmabuf() - ib_device_ops.reg_user_mr_dmabuf
 * @pd: PD
 * @offset: the MR's first byte in the dma-buf
 * @length: bytes
 * @iova: address the peers use for that byte (ib_core checked that its
 *	  offset in a page is @offset's)
 * @fd: the dma-buf's file descriptor in the calling process
 * @access: IB_ACCESS_* flags (ib_core lets only local write, the remote
 *	    ones and relaxed ordering through)
 * @uarg: the udata, or on 6.12 the attribute bundle (no driver data)
 *
 * softib's engines copy with the CPU, so it imports the buffer the way a
 * CPU does: it keeps a reference to the dma-buf and the exporter's kernel
 * mapping of it (dma_buf_vmap(), which pins the buffer where it is until
 * the MR is deregistered) and copies through that mapping, in the
 * exporter's caching mode. ib_core's dma-buf umem is not used: it needs a
 * DMA device to attach with and yields bus addresses, and softib
 * registers without one (its "DMA" addresses are kernel virtual ones,
 * which ULPs need). Bytes of the MR are never lent to packets: no page
 * references are taken on exporter memory.
 * Context: process. Return: the MR or ERR_PTR(-EINVAL for a range
 * outside the buffer or bad flags, -EBADF/-EINVAL for an fd that is not
 * a dma-buf, -EOPNOTSUPP for an exporter without a kernel mapping or
 * with one in I/O memory, -ENOMEM).
 */
struct ib_mr *sib_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset, u64 length,
				     u64 iova, int fd, int access,
				     sib_dmabuf_uarg_t *uarg)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct dma_buf *dmabuf;
	struct sib_mr *mr;
	int err;

	if (access & (IB_ACCESS_ON_DEMAND | IB_ZERO_BASED))
		return ERR_PTR(-EINVAL);
	if (!length || length > SIB_MAX_MR_SIZE || iova + length < iova ||
	    offset + length < offset)
		return ERR_PTR(-EINVAL);
	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return ERR_CAST(dmabuf);
	err = -EINVAL;
	if (offset + length > dmabuf->size)
		goto err_put;
	err = -ENOMEM;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		goto err_put;
	mr->dev = dev;
	mr->type = SIB_MR_DMABUF;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	err = sib_dma_buf_vmap(dmabuf, &mr->dmabuf_map);
	if (err) {
		/* no vmap op: the exporter offers the CPU no mapping */
		if (err == -EINVAL)
			err = -EOPNOTSUPP;
		goto err_free;
	}
	if (mr->dmabuf_map.is_iomem || !mr->dmabuf_map.vaddr) {
		err = -EOPNOTSUPP;
		goto err_vunmap;
	}
	mr->dmabuf = dmabuf;
	mr->kva = mr->dmabuf_map.vaddr + offset;
	err = sib_mr_insert(dev, mr);
	if (err)
		goto err_vunmap;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_vunmap:
	sib_dma_buf_vunmap(dmabuf, &mr->dmabuf_map);
err_free:
	kfree(mr);
err_put:
	dma_buf_put(dmabuf);
	return ERR_PTR(err);
}

/**
 * sib_dereg_mr() - ib_device_ops.dereg_mr
 * @ibmr: MR
 * @udata: unused
 *
 * Waits until no engine copies through the MR any more.
 * Context: process. Return: 0, -EBUSY while memory windows are bound to
 * the MR (IBTA 10.6.7.2.1: an MR with bound windows cannot be
 * deregistered).
 */
int sib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sib_mr *mr = to_sib_mr(ibmr);
	int err;

	err = sib_mr_remove(mr->dev, mr);
	if (err)
		return err;
	if (mr->umem)
		ib_umem_release(mr->umem);
	sib_odp_release(mr);
	if (mr->dmabuf) {
		sib_dma_buf_vunmap(mr->dmabuf, &mr->dmabuf_map);
		dma_buf_put(mr->dmabuf);
	}
	/* a DM MR's pages are the DM's (dm.c), which outlives it */
	if (mr->type != SIB_MR_DM)
		kvfree(mr->pages);
	kfree(mr->fr_pages);
	/* a hint read in an RCU section before mr_gen moved may still look */
	kfree_rcu(mr, rcu);
	return 0;
}

/**
 * sib_mr_get() - look up and reference the MR of an lkey or rkey
 * @dev: device
 * @pd: the PD of the QP using the key; must match the MR's PD
 * @key: lkey or rkey (untrusted)
 * @access: IB_ACCESS_* flags the access needs (0 for a local read)
 *
 * Context: process or softirq. Return: referenced MR (sib_mr_put()) or
 * NULL if the key is unknown, of another PD, or lacks @access.
 */
struct sib_mr *sib_mr_get(struct sib_dev *dev, struct ib_pd *pd, u32 key,
			  int access)
{
	struct sib_mr *mr;

	if (key & SIB_MW_KEY_BIT)
		return NULL;
	xa_lock_bh(&dev->mr_xa);
	mr = xa_load(&dev->mr_xa, key >> 8);
	if (mr && (READ_ONCE(mr->key) != key || READ_ONCE(mr->ibmr.pd) != pd ||
		   (READ_ONCE(mr->access) & access) != access ||
		   !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	xa_unlock_bh(&dev->mr_xa);
	return mr;
}

/**
 * sib_mr_put() - drop a reference from sib_mr_get()
 * @mr: MR
 *
 * Context: any.
 */
void sib_mr_put(struct sib_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/*
 * The MR of @key through the per-round cache @mc: a cached MR is taken
 * again when its current key, PD and access still pass the checks of
 * sib_mr_get() (an invalidation, a new fast-reg key or a rereg of PD or
 * access applies from the next packet on). A miss tries the hints of
 * earlier rounds, then looks the key up, and keeps the MR in the cache
 * until the round ends. The cache holds the one reference: the MR is the
 * caller's to use until its next lookup through @mc (which may evict it)
 * or the end of the round.
 *
 * A hint holds no reference, so a deregistration never waits for an idle
 * QP. It is used only inside an RCU read section that reads the
 * device's mr_gen equal to the value read before the lookup that found
 * the MR: sib_mr_remove() moves mr_gen after unpublishing an MR, and
 * sib_dereg_mr() frees it after a grace period, so an MR a hint can
 * still name is not freed before the section ends. The reference is
 * then taken with refcount_inc_not_zero(), as a lookup does.
 */
static struct sib_mr *sib_mr_cache_find(struct sib_dev *dev,
					struct sib_mr_cache *mc,
					struct ib_pd *pd, u32 key, int access)
{
	struct sib_mr *mr, *hit = NULL;
	unsigned long gen;
	int i;

	for (i = 0; i < SIB_MR_CACHE_SIZE; i++) {
		mr = mc->mr[i];
		if (mr && READ_ONCE(mr->key) == key &&
		    READ_ONCE(mr->ibmr.pd) == pd &&
		    (READ_ONCE(mr->access) & access) == access)
			return mr;
	}
	rcu_read_lock();
	/* before the hints are read and before the lookup below */
	gen = smp_load_acquire(&dev->mr_gen);
	for (i = 0; i < SIB_MR_CACHE_SIZE && !hit; i++) {
		mr = mc->hint[i];
		if (mr && mc->hint_gen[i] == gen && READ_ONCE(mr->key) == key &&
		    READ_ONCE(mr->ibmr.pd) == pd &&
		    (READ_ONCE(mr->access) & access) == access &&
		    refcount_inc_not_zero(&mr->ref))
			hit = mr;
	}
	rcu_read_unlock();
	mr = hit;
	if (!mr) {
		mr = sib_mr_get(dev, pd, key, access);
		if (!mr)
			return NULL;
		i = mc->hint_next++ % SIB_MR_CACHE_SIZE;
		mc->hint[i] = mr;
		mc->hint_gen[i] = gen;
	}
	/* the reference just taken becomes the cache's */
	i = mc->next++ % SIB_MR_CACHE_SIZE;
	if (mc->mr[i])
		sib_mr_put(mc->mr[i]);
	mc->mr[i] = mr;
	return mr;
}

/*
 * The MR of @key for one access: the cache's, not referenced for the
 * caller (*@put false), or without a cache a referenced one. An
 * invalidated MR's key reads 0, which no valid key is (indices start at
 * 1): a key of 0 never goes through the cache, so it never matches one
 * there.
 */
static struct sib_mr *sib_sge_mr(struct sib_dev *dev, struct sib_mr_cache *mc,
				 struct ib_pd *pd, u32 key, int access,
				 bool *put)
{
	*put = !mc || !key;
	if (*put)
		return sib_mr_get(dev, pd, key, access);
	return sib_mr_cache_find(dev, mc, pd, key, access);
}

/**
 * sib_mr_get_cached() - sib_mr_get() through a QP's per-round MR cache
 * @dev: device
 * @mc: the cache of the QP whose engine runs, or NULL (plain lookup)
 * @pd: the PD the MR must be in
 * @key: lkey or rkey (untrusted)
 * @access: IB_ACCESS_* flags the access needs
 *
 * The cache's rules (key, PD and access checked again on every hit,
 * hints of earlier rounds trusted only under RCU with an unchanged
 * mr_gen) are those of sib_mr_cache_find(); the copies of mr.c use the
 * cache's reference, this takes one more for the caller.
 * Context: the QP's run. Return: referenced MR (sib_mr_put()) or NULL
 * as sib_mr_get().
 */
struct sib_mr *sib_mr_get_cached(struct sib_dev *dev, struct sib_mr_cache *mc,
				 struct ib_pd *pd, u32 key, int access)
{
	bool put;
	struct sib_mr *mr = sib_sge_mr(dev, mc, pd, key, access, &put);

	if (mr && !put)
		refcount_inc(&mr->ref);
	return mr;
}

/**
 * sib_mr_cache_drop() - release the MRs of a per-round cache
 * @mc: cache
 *
 * Context: the QP's run, at the end of a round.
 */
void sib_mr_cache_drop(struct sib_mr_cache *mc)
{
	int i;

	for (i = 0; i < SIB_MR_CACHE_SIZE; i++) {
		if (mc->mr[i]) {
			sib_mr_put(mc->mr[i]);
			mc->mr[i] = NULL;
		}
	}
}

/* copy through the page list of a fast-reg MR; @off from its first page */
static int sib_mr_copy_fr(struct sib_mr *mr, u64 off, void *buf, u32 len,
			  bool to_mr)
{
	u64 psize = 1ULL << mr->fr_shift;

	while (len) {
		u64 pg = off >> mr->fr_shift;
		u32 poff = off & (psize - 1);
		u32 n = min_t(u64, len, psize - poff);
		void *va;

		if (pg >= mr->fr_npages)
			return -EFAULT;
		va = (void *)(uintptr_t)(mr->fr_pages[pg] + poff);
		if (to_mr)
			memcpy(va, buf, n);
		else
			memcpy(buf, va, n);
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* sib_mr_copy() on an ODP MR: the buffer's next bytes and a page */
struct sib_buf_io {
	void *buf;
	bool to_mr;
};

static int sib_page_buf(void *arg, struct page *page, u32 poff, u32 n)
{
	struct sib_buf_io *io = arg;
	void *va = kmap_local_page(page);

	if (io->to_mr)
		sib_copy(va + poff, io->buf, n);
	else
		sib_copy(io->buf, va + poff, n);
	kunmap_local(va);
	io->buf += n;
	return 0;
}

/**
 * sib_mr_copy() - copy between a kernel buffer and an MR
 * @mr: referenced MR
 * @iova: start address in the MR's address space (untrusted)
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: true: @buf -> MR, false: MR -> @buf
 *
 * Context: process or softirq; an ODP MR only in a sleepable task.
 * Return: 0, -EFAULT when the range is not inside the MR (or, ODP, not
 * mapped in its process), -EAGAIN for an ODP MR where sleeping is not
 * allowed.
 */
int sib_mr_copy(struct sib_mr *mr, u64 iova, void *buf, u32 len, bool to_mr)
{
	u64 off;

	if (!len)
		return 0;
	if (mr->type == SIB_MR_DMA) {
		void *va = (void *)(uintptr_t)iova;

		if (to_mr)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return 0;
	}
	if (!sib_mr_in_range(mr, iova, len))
		return -EFAULT;
	if (sib_mr_is_odp(mr)) {
		struct sib_buf_io io = { .buf = buf, .to_mr = to_mr };

		return sib_odp_walk(mr, iova, len, to_mr, sib_page_buf, &io);
	}
	if (mr->type == SIB_MR_DMABUF) {
		void *va = mr->kva + (iova - mr->iova);

		if (to_mr)
			sib_copy(va, buf, len);
		else
			sib_copy(buf, va, len);
		return 0;
	}
	off = iova - mr->iova + mr->page_off;
	if (mr->type == SIB_MR_FRMR)
		return sib_mr_copy_fr(mr, off, buf, len, to_mr);
	while (len) {
		unsigned long pg = off >> PAGE_SHIFT;
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		void *va;

		if (pg >= mr->npages)
			return -EFAULT;
		va = kmap_local_page(mr->pages[pg]);
		if (to_mr)
			sib_copy(va + poff, buf, n);
		else
			sib_copy(buf, va + poff, n);
		kunmap_local(va);
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* dma_buf_get(), dma_buf_vmap() and friends (sib_reg_user_mr_dmabuf()) */
MODULE_IMPORT_NS(DMA_BUF);

/* makes the atomics of all QPs and devices atomic to each other */
static DEFINE_SPINLOCK(sib_atomic_lock);

static u64 sib_atomic_result(const struct sib_atomic_op *op, u64 orig)
{
	switch (op->kind) {
	case SIB_ATOMIC_CMP_SWAP:
		return orig == op->compare ? op->val : orig;
	case SIB_ATOMIC_FETCH_ADD:
		return orig + op->val;
	default:
		return op->val;
	}
}

/* an atomic on one ODP page piece, which must hold all 8 bytes */
static int sib_page_atomic(void *arg, struct page *page, u32 poff, u32 n)
{
	struct sib_atomic_op *op = arg;
	u64 val;
	void *va;

	if (n != sizeof(val))
		return -EINVAL;
	va = kmap_local_page(page);
	spin_lock_bh(&sib_atomic_lock);
	memcpy(&op->orig, va + poff, sizeof(val));
	val = sib_atomic_result(op, op->orig);
	memcpy(va + poff, &val, sizeof(val));
	spin_unlock_bh(&sib_atomic_lock);
	kunmap_local(va);
	return 0;
}

/**
 * sib_mr_atomic() - execute an 8-byte atomic on an MR
 * @mr: referenced MR whose access the caller checked
 * @iova: address in the MR's address space, 8-byte aligned (untrusted)
 * @op: the operation; @op->orig gets the bytes found
 *
 * One lock serializes every atomic of the module, so no atomic of any QP
 * or device sees another half done (IBTA 9.4.5; IB_ATOMIC_HCA). An ODP
 * MR's page is faulted in first, outside that lock.
 * Context: a sleepable task for an ODP MR, else process or softirq.
 * Return: 0, -EFAULT (outside @mr), -EINVAL (an ODP MR whose 8 bytes
 * cross a page), -EAGAIN as sib_mr_copy().
 */
int sib_mr_atomic(struct sib_mr *mr, u64 iova, struct sib_atomic_op *op)
{
	u64 val;
	int err;

	if (sib_mr_is_odp(mr))
		return sib_odp_walk(mr, iova, sizeof(val), true,
				    sib_page_atomic, op);
	spin_lock_bh(&sib_atomic_lock);
	err = sib_mr_copy(mr, iova, &op->orig, sizeof(val), false);
	if (!err) {
		val = sib_atomic_result(op, op->orig);
		err = sib_mr_copy(mr, iova, &val, sizeof(val), true);
	}
	spin_unlock_bh(&sib_atomic_lock);
	return err;
}

/**
 * sib_sgl_copy() - copy part of a message from/to a scatter/gather list
 * @dev: device
 * @mc: MR cache of the running QP, or NULL
 * @pd: PD of the QP
 * @sge: validated copy of the SGEs
 * @num_sge: entries in @sge
 * @off: message offset where the copy starts
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: true for receive (needs IB_ACCESS_LOCAL_WRITE), false for send
 *
 * Context: process or softirq. Return: 0, -EINVAL for a bad lkey or
 * missing access, -EFAULT for a range outside the MR or the SGEs.
 */
int sib_sgl_copy(struct sib_dev *dev, struct sib_mr_cache *mc,
		 struct ib_pd *pd, const struct sib_sge *sge, u32 num_sge,
		 u32 off, void *buf, u32 len, bool to_mr)
{
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		struct sib_mr *mr;
		bool put;
		u32 n;
		int err;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = sib_sge_mr(dev, mc, pd, sge[i].lkey,
				to_mr ? IB_ACCESS_LOCAL_WRITE : 0, &put);
		if (!mr)
			return -EINVAL;
		err = sib_mr_copy(mr, sge[i].addr + off, buf, n, to_mr);
		if (put)
			sib_mr_put(mr);
		if (err)
			return err;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/**
 * sib_rereg_user_mr() - ib_device_ops.rereg_user_mr (IBTA 11.2.8.6)
 * @ibmr: user MR
 * @flags: IB_MR_REREG_TRANS, IB_MR_REREG_PD, IB_MR_REREG_ACCESS
 * @start: new user address (IB_MR_REREG_TRANS)
 * @length: new length in bytes (IB_MR_REREG_TRANS)
 * @iova: new I/O virtual address (IB_MR_REREG_TRANS)
 * @access: new IB_ACCESS_* flags (IB_MR_REREG_ACCESS)
 * @pd: the PD the MR is to be in (the current one unless IB_MR_REREG_PD)
 * @udata: user data (no driver data defined)
 *
 * A new translation is a new registration: a new MR with new keys is
 * returned and the core deregisters the old one; so is adding local
 * write to pages pinned read-only. Otherwise PD and access change in
 * place and the keys stay; the core updates ibmr->pd itself.
 * Adding or removing IB_ZERO_BASED needs IB_MR_REREG_TRANS (new
 * addresses), else -EINVAL.
 * Context: process. Return: NULL (changed in place), the new MR, or
 * ERR_PTR(-EINVAL, -EOPNOTSUPP, -EBUSY while windows are bound, -ENOMEM,
 * -EFAULT).
 */
struct ib_mr *sib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *pd, struct ib_udata *udata)
{
	struct sib_mr *mr = to_sib_mr(ibmr);

	if (mr->type != SIB_MR_USER)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	if ((flags & IB_MR_REREG_ACCESS) && (access & IB_ACCESS_ON_DEMAND))
		return ERR_PTR(-EOPNOTSUPP);
	/* zero-based or not changes the MR's addresses: only with new ones */
	if ((flags & IB_MR_REREG_ACCESS) && !(flags & IB_MR_REREG_TRANS) &&
	    ((access ^ mr->access) & IB_ZERO_BASED))
		return ERR_PTR(-EINVAL);
	if (atomic_read(&mr->num_mw))
		return ERR_PTR(-EBUSY);
	if (flags & IB_MR_REREG_TRANS)
		return sib_reg_user_mr(pd, start, length, iova,
				       (flags & IB_MR_REREG_ACCESS) ? access :
				       mr->access, udata);
	/* pages pinned for reading only must be pinned again for writing */
	if ((flags & IB_MR_REREG_ACCESS) && (access & IB_ACCESS_LOCAL_WRITE) &&
	    !mr->umem->writable)
		return sib_reg_user_mr(pd, mr->umem->address, mr->length,
				       mr->iova, access, udata);
	if (flags & IB_MR_REREG_ACCESS)
		WRITE_ONCE(mr->access, access);
	return NULL;
}

/**
 * sib_alloc_mr() - ib_device_ops.alloc_mr: a fast-registration MR
 * @pd: PD
 * @type: only IB_MR_TYPE_MEM_REG
 * @max_num_sg: pages the MR can map
 *
 * The MR is free (its keys are invalid) until an IB_WR_REG_MR work
 * request registers the pages given to ib_map_mr_sg(). Context: process.
 * Return: the MR or ERR_PTR(-EINVAL, -ENOMEM).
 */
struct ib_mr *sib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > SIB_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr_pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->fr_pages) {
		kfree(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->dev = dev;
	mr->type = SIB_MR_FRMR;
	mr->fr_max = max_num_sg;
	mr->fr_shift = PAGE_SHIFT;
	err = sib_mr_insert(dev, mr);
	if (err) {
		kfree(mr->fr_pages);
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

static int sib_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sib_mr *mr = to_sib_mr(ibmr);

	if (mr->fr_npages >= mr->fr_max)
		return -ENOMEM;
	mr->fr_pages[mr->fr_npages++] = addr;
	return 0;
}

/**
 * sib_map_mr_sg() - ib_device_ops.map_mr_sg
 * @ibmr: fast-registration MR, not valid while being mapped
 * @sg: DMA-mapped scatterlist (this device's DMA addresses are kernel
 *	virtual addresses)
 * @sg_nents: entries in @sg
 * @sg_offset: byte offset into the first entry, or NULL
 *
 * Context: any. Return: number of entries mapped (ib_sg_to_pages()).
 */
int sib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct sib_mr *mr = to_sib_mr(ibmr);
	int n;

	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_4K)
		return -EINVAL;
	mr->fr_npages = 0;
	mr->fr_shift = ilog2(ibmr->page_size);
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sib_mr_set_page);
	mr->page_off = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * sib_mr_fast_reg() - execute an IB_WR_REG_MR work request
 * @dev: device
 * @pd: PD of the posting QP
 * @lkey: the MR's current L_Key (names the MR)
 * @key: new key; same index, new key byte (ib_update_fast_reg_key())
 * @access: IB_ACCESS_* of the registration
 *
 * Makes the page list of the last map_mr_sg valid under @key, with the
 * I/O virtual address and length the core recorded in the ib_mr.
 * Context: the QP's run. Return: 0, -EINVAL (unknown MR, other PD, not
 * a free fast-reg MR, key index changed).
 */
int sib_mr_fast_reg(struct sib_dev *dev, struct ib_pd *pd, u32 lkey, u32 key,
		    int access)
{
	struct sib_mr *mr;
	int err = -EINVAL;

	if ((lkey >> 8) != (key >> 8) || (key & SIB_MW_KEY_BIT))
		return -EINVAL;
	xa_lock_bh(&dev->mr_xa);
	mr = xa_load(&dev->mr_xa, key >> 8);
	if (mr && mr->type == SIB_MR_FRMR && mr->ibmr.pd == pd &&
	    !READ_ONCE(mr->key)) {
		mr->iova = mr->ibmr.iova;
		mr->length = mr->ibmr.length;
		WRITE_ONCE(mr->access, access);
		WRITE_ONCE(mr->key, key);
		err = 0;
	}
	xa_unlock_bh(&dev->mr_xa);
	return err;
}

/**
 * sib_mr_invalidate() - invalidate a fast-registration MR (IBTA 10.6.5)
 * @dev: device
 * @pd: PD of the QP doing the invalidation
 * @key: the MR's valid L_Key or R_Key
 *
 * Context: the QP's run. Return: 0, -EINVAL (no such valid fast-reg MR
 * in @pd, or windows are bound to it).
 */
int sib_mr_invalidate(struct sib_dev *dev, struct ib_pd *pd, u32 key)
{
	struct sib_mr *mr;
	int err = -EINVAL;

	if (key & SIB_MW_KEY_BIT)
		return -EINVAL;
	xa_lock_bh(&dev->mr_xa);
	mr = xa_load(&dev->mr_xa, key >> 8);
	if (mr && mr->type == SIB_MR_FRMR && mr->ibmr.pd == pd &&
	    READ_ONCE(mr->key) == key && !atomic_read(&mr->num_mw)) {
		WRITE_ONCE(mr->key, 0);
		err = 0;
	}
	xa_unlock_bh(&dev->mr_xa);
	return err;
}

/**
 * sib_mr_bind_get() - find the MR a memory window is to be bound to
 * @dev: device
 * @pd: PD of the QP posting the bind; must be the MR's PD
 * @lkey: L_Key of the MR (untrusted)
 *
 * Counts one more window on the MR, under the lock dereg takes, so the
 * MR cannot go away while the window is bound (IBTA 10.6.7.2.1). The
 * MR needs IB_ACCESS_MW_BIND.
 * Context: process. Return: the MR (release with sib_mr_bind_put()) or
 * NULL.
 */
struct sib_mr *sib_mr_bind_get(struct sib_dev *dev, struct ib_pd *pd, u32 lkey)
{
	struct sib_mr *mr;

	if (lkey & SIB_MW_KEY_BIT)
		return NULL;
	xa_lock_bh(&dev->mr_xa);
	mr = xa_load(&dev->mr_xa, lkey >> 8);
	if (mr && (READ_ONCE(mr->key) != lkey || mr->ibmr.pd != pd ||
		   mr->type == SIB_MR_DMA ||
		   !(READ_ONCE(mr->access) & IB_ACCESS_MW_BIND)))
		mr = NULL;
	if (mr)
		atomic_inc(&mr->num_mw);
	xa_unlock_bh(&dev->mr_xa);
	return mr;
}

/**
 * sib_mr_bind_put() - a window bound to @mr was unbound or freed
 * @mr: MR from sib_mr_bind_get()
 *
 * Context: any.
 */
void sib_mr_bind_put(struct sib_mr *mr)
{
	atomic_dec(&mr->num_mw);
}

/*
 * Packet <-> MR transfers. A walk over the pages of an MR range calls
 * @fn for each piece that lies inside one page; @arg carries the other
 * side (a packet and an offset in it).
 */
struct sib_skb_io {
	struct sk_buff *skb;
	u32 off;		/* SIB_IO_FROM_SKB: next byte of @skb to read */
};

typedef int (*sib_page_fn)(struct sib_skb_io *io, struct page *page,
			   void *va, u32 poff, u32 n);

static int sib_page_from_skb(struct sib_skb_io *io, struct page *page,
			     void *va, u32 poff, u32 n);

/* MRs of other kinds: through a small buffer and sib_mr_copy() */
static int sib_mr_bounce_from_skb(struct sib_mr *mr, u64 iova, u32 len,
				  struct sib_skb_io *io)
{
	u8 tmp[256];
	int err;

	while (len) {
		u32 n = min_t(u32, len, sizeof(tmp));

		if (skb_copy_bits(io->skb, io->off, tmp, n))
			return -EFAULT;
		err = sib_mr_copy(mr, iova, tmp, n, true);
		if (err)
			return err;
		io->off += n;
		iova += n;
		len -= n;
	}
	return 0;
}

static int sib_odp_from_skb(void *arg, struct page *page, u32 poff, u32 n)
{
	return sib_page_from_skb(arg, page, NULL, poff, n);
}

static int sib_mr_walk(struct sib_mr *mr, u64 iova, u32 len,
		       sib_page_fn fn, struct sib_skb_io *io)
{
	u64 off;
	int err;

	if (!len)
		return 0;
	if (mr->type == SIB_MR_DMA)
		return fn(io, NULL, (void *)(uintptr_t)iova, 0, len);
	/* ODP pages are copied into, never lent to a packet: none pinned */
	if (sib_mr_is_odp(mr))
		return fn == sib_page_from_skb ?
		       sib_odp_walk(mr, iova, len, true, sib_odp_from_skb, io) :
		       -EOPNOTSUPP;
	if (mr->type == SIB_MR_DMABUF) {
		if (!sib_mr_in_range(mr, iova, len))
			return -EFAULT;
		/* a kernel VA: copied from, never lent (sib_page_to_frag) */
		return fn(io, NULL, mr->kva + (iova - mr->iova), 0, len);
	}
	if (!sib_mr_has_pages(mr) || !mr->pages)
		return fn == sib_page_from_skb ?
		       sib_mr_bounce_from_skb(mr, iova, len, io) : -EOPNOTSUPP;
	if (!sib_mr_in_range(mr, iova, len))
		return -EFAULT;
	off = iova - mr->iova + mr->page_off;
	while (len) {
		unsigned long pg = off >> PAGE_SHIFT;
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);

		if (pg >= mr->npages)
			return -EFAULT;
		err = fn(io, mr->pages[pg], NULL, poff, n);
		if (err)
			return err;
		len -= n;
		off += n;
	}
	return 0;
}

/* copy the next @n bytes of io->skb into a page (or kernel VA) */
static int sib_page_from_skb(struct sib_skb_io *io, struct page *page,
			     void *va, u32 poff, u32 n)
{
	int err;

	if (page) {
		va = kmap_local_page(page);
		err = sib_skb_copy_bits(io->skb, io->off, va + poff, n);
		kunmap_local(va);
	} else {
		err = sib_skb_copy_bits(io->skb, io->off, va, n);
	}
	io->off += n;
	return err ? -EFAULT : 0;
}

/* reference a page piece as the next fragment of io->skb */
static int sib_page_to_frag(struct sib_skb_io *io, struct page *page,
			    void *va, u32 poff, u32 n)
{
	struct sk_buff *skb = io->skb;
	int i = skb_shinfo(skb)->nr_frags;

	if (!page)
		return -EOPNOTSUPP;	/* kernel VA: the caller copies */
	if (i >= MAX_SKB_FRAGS - 1)	/* one is left for the trailer */
		return -EMSGSIZE;
	get_page(page);
	skb_fill_page_desc(skb, i, page, poff, n);
	skb->len += n;
	skb->data_len += n;
	skb->truesize += n;
	return 0;
}

/*
 * Walk @len bytes of a scatter/gather list from message offset @off with
 * @fn; each SGE's lkey is looked up with @access.
 */
static int sib_sgl_walk(struct sib_dev *dev, struct sib_mr_cache *mc,
			struct ib_pd *pd, const struct sib_sge *sge,
			u32 num_sge, u32 off, u32 len, int access,
			sib_page_fn fn, struct sib_skb_io *io)
{
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		struct sib_mr *mr;
		bool put;
		u32 n;
		int err;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = sib_sge_mr(dev, mc, pd, sge[i].lkey, access, &put);
		if (!mr)
			return -EINVAL;
		err = sib_mr_walk(mr, sge[i].addr + off, n, fn, io);
		if (put)
			sib_mr_put(mr);
		if (err)
			return err;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/**
 * sib_mr_copy_skb() - copy packet payload into an MR
 * @mr: referenced MR
 * @iova: start address in the MR's address space (untrusted)
 * @skb: packet, linear or not
 * @skb_off: offset of the first byte to copy from @skb->data
 * @len: bytes
 *
 * The one copy of the receive path: straight from the packet's linear
 * part and page fragments into the MR's pages, no linearizing.
 * Context: process or softirq. Return: 0, -EFAULT when the range is
 * not inside the MR or @skb is too short, -EOPNOTSUPP for an MR
 * without pages.
 */
int sib_mr_copy_skb(struct sib_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 skb_off, u32 len)
{
	struct sib_skb_io io = { .skb = skb, .off = skb_off };

	return sib_mr_walk(mr, iova, len, sib_page_from_skb, &io);
}

/**
 * sib_sgl_copy_skb() - copy packet payload into a scatter/gather list
 * @dev: device
 * @mc: MR cache of the running QP, or NULL
 * @pd: PD of the QP
 * @sge: validated copy of the receive SGEs
 * @num_sge: entries in @sge
 * @off: message offset where the copy starts
 * @skb: packet, linear or not
 * @skb_off: offset of the first payload byte from @skb->data
 * @len: bytes
 *
 * Like sib_sgl_copy() with @to_mr set, reading from @skb.
 * Context: process or softirq. Return: 0, -EINVAL for a bad lkey or
 * missing IB_ACCESS_LOCAL_WRITE, -EFAULT for a range outside the MR or
 * the SGEs.
 */
int sib_sgl_copy_skb(struct sib_dev *dev, struct sib_mr_cache *mc,
		     struct ib_pd *pd, const struct sib_sge *sge, u32 num_sge,
		     u32 off, struct sk_buff *skb, u32 skb_off, u32 len)
{
	struct sib_skb_io io = { .skb = skb, .off = skb_off };

	return sib_sgl_walk(dev, mc, pd, sge, num_sge, off, len,
			    IB_ACCESS_LOCAL_WRITE, sib_page_from_skb, &io);
}

/**
 * sib_sgl_add_frags() - append message bytes to a packet without copying
 * @dev: device
 * @mc: MR cache of the running QP, or NULL
 * @pd: PD of the QP
 * @sge: validated copy of the send SGEs
 * @num_sge: entries in @sge
 * @off: message offset of the first byte
 * @skb: packet under construction; its linear part ends at the payload
 * @len: bytes
 *
 * Adds the pinned pages of user MRs as page fragments of @skb, each with
 * a page reference that the skb drops when it is freed (so the pages
 * outlive a deregistration while the packet is in flight). Only for
 * transports that complete a WQE after the peer acknowledged it (RC),
 * never for ones that complete on transmit (UD).
 * Context: process or softirq. Return: 0; -EMSGSIZE (too many pieces),
 * -EOPNOTSUPP (an MR without pages): @skb may hold some fragments, the
 * caller frees it and copies instead; -EINVAL/-EFAULT as sib_sgl_copy().
 */
int sib_sgl_add_frags(struct sib_dev *dev, struct sib_mr_cache *mc,
		      struct ib_pd *pd, const struct sib_sge *sge,
		      u32 num_sge, u32 off, struct sk_buff *skb, u32 len)
{
	struct sib_skb_io io = { .skb = skb };

	return sib_sgl_walk(dev, mc, pd, sge, num_sge, off, len, 0,
			    sib_page_to_frag, &io);
}

/**
 * sib_mr_add_frags() - append bytes of one MR to a packet without copying
 * @mr: referenced MR whose access the caller checked
 * @iova: start address in the MR's address space (untrusted)
 * @skb: packet under construction; its linear part ends at the payload
 * @len: bytes
 *
 * The responder's side of sib_sgl_add_frags(): RDMA READ response
 * payload as page fragments of the MR's pinned pages, each holding a
 * page reference until the skb is freed, so a deregistration while the
 * packet is queued or in flight frees nothing under it. Bytes the
 * responder's application changes meanwhile may go out changed, as on
 * any RDMA device that reads memory when it transmits.
 * Context: process or softirq. Return: 0; -EMSGSIZE (too many pieces),
 * -EOPNOTSUPP (an MR without pages): @skb may hold some fragments, the
 * caller frees it and copies instead; -EFAULT for a range outside @mr.
 */
int sib_mr_add_frags(struct sib_mr *mr, u64 iova, struct sk_buff *skb,
		     u32 len)
{
	struct sib_skb_io io = { .skb = skb };

	if (!sib_mr_has_pages(mr))
		return -EOPNOTSUPP;
	return sib_mr_walk(mr, iova, len, sib_page_to_frag, &io);
}

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
/* one SGE of a prefetch, its MR referenced */
struct sib_prefetch_sge {
	struct sib_mr *mr;
	u64 addr;
	u32 length;
};

struct sib_prefetch_work {
	struct work_struct work;
	enum ib_uverbs_advise_mr_advice advice;
	u32 num_sge;
	struct sib_prefetch_sge sge[];
};

static int sib_prefetch_one(enum ib_uverbs_advise_mr_advice advice,
			    struct sib_prefetch_sge *s)
{
	return sib_odp_prefetch(s->mr, s->addr, s->length, advice);
}

static void sib_prefetch_work(struct work_struct *work)
{
	struct sib_prefetch_work *pw = container_of(work,
						    struct sib_prefetch_work,
						    work);
	u32 i;

	/* advice only: an error here is nobody's to report */
	for (i = 0; i < pw->num_sge; i++) {
		sib_prefetch_one(pw->advice, &pw->sge[i]);
		sib_mr_put(pw->sge[i].mr);
	}
	kfree(pw);
}

/**
 * sib_advise_mr() - ib_device_ops.advise_mr: prefetch ODP memory
 * @pd: PD of the MRs
 * @advice: PREFETCH (for reading), PREFETCH_WRITE, or PREFETCH_NO_FAULT
 *	    (map what is present, fault nothing in)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH: done before returning;
 *	   otherwise queued on softib's workqueue and 0 returned at once
 * @sg_list: ranges, lkeys of ODP MRs of @pd (untrusted)
 * @num_sge: entries of @sg_list
 * @attrs: unused
 *
 * Context: process (the ADVISE_MR method). Return: 0; -EOPNOTSUPP
 * (another advice, unknown flags); -EINVAL (a key that is not an ODP MR
 * of @pd, or PREFETCH_WRITE on an MR without local write); -EFAULT (a
 * range outside its MR, or memory the process has not mapped, with
 * FLUSH); -ENOMEM.
 */
int sib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		  u32 flags, struct ib_sge *sg_list, u32 num_sge,
		  struct uverbs_attr_bundle *attrs)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_prefetch_work *pw;
	int access = 0, err = 0;
	u32 i, n;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		access = IB_ACCESS_LOCAL_WRITE;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	pw = kzalloc(struct_size(pw, sge, num_sge), GFP_KERNEL);
	if (!pw)
		return -ENOMEM;
	for (n = 0; n < num_sge; n++) {
		struct sib_prefetch_sge *s = &pw->sge[n];
		struct sib_mr *mr = sib_mr_get(dev, pd, sg_list[n].lkey,
					       access);

		if (!mr || !sib_mr_is_odp(mr)) {
			if (mr)
				sib_mr_put(mr);
			err = -EINVAL;
			break;
		}
		s->mr = mr;
		s->addr = sg_list[n].addr;
		s->length = sg_list[n].length;
		if (s->length && (s->addr < mr->iova ||
				  s->length > mr->length ||
				  s->addr - mr->iova > mr->length - s->length)) {
			n++;
			err = -EFAULT;
			break;
		}
	}
	if (err || (flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH)) {
		for (i = 0; i < n; i++) {
			if (!err)
				err = sib_prefetch_one(advice, &pw->sge[i]);
			sib_mr_put(pw->sge[i].mr);
		}
		kfree(pw);
		return err;
	}
	pw->advice = advice;
	pw->num_sge = num_sge;
	INIT_WORK(&pw->work, sib_prefetch_work);
	queue_work(sib_wq, &pw->work);
	return 0;
}
#endif
