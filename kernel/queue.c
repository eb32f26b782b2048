// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: rings shared with user space through mmap, and the same ring
 * layout in kernel memory for kernel objects.
 *
 * Lifetime: a ring of a user object is handed to an rdma_user_mmap_entry
 * when exposed. Destroying the object removes the entry and sib_mmap_free()
 * vfree()s the memory, but remap_vmalloc_range() gave every mapping its
 * own page references, so a process that still has the ring mapped keeps
 * the pages and never sees freed memory.
 *
 * Liveness: the header's magic word is SIB_RING_MAGIC from allocation
 * until the object is destroyed, when sib_ring_free() clears it. That is
 * how a process learns that its objects are gone when the device was
 * removed under it (disassociation: rdma link delete, netdev removal,
 * rmmod): its mappings stay, its rings go quiet, and the provider fails
 * the next poll or post with EIO instead of waiting forever. (The core
 * can zap only mappings made with rdma_user_mmap_io(), i.e. physically
 * contiguous memory; our rings are vmalloc memory.)
 */
#include <linux/vmalloc.h>
#include <linux/mm.h>

#include "queue.h"

struct sib_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	size_t size;
};

static int sib_ring_init(struct sib_ring *r, u32 num, u32 stride, bool user)
{
	size_t size;

	if (!num || !is_power_of_2(num) || !stride)
		return -EINVAL;
	if (check_mul_overflow((size_t)num, (size_t)stride, &size) ||
	    check_add_overflow(size, (size_t)SIB_RING_HDR_SIZE, &size))
		return -EINVAL;
	if (user) {
		size = PAGE_ALIGN(size);
		r->buf = vmalloc_user(size);
	} else {
		/* small rings of kernel objects: no vmap, no TLB flush at free */
		r->buf = kvzalloc(size, GFP_KERNEL);
	}
	if (!r->buf)
		return -ENOMEM;
	r->hdr = r->buf;
	r->hdr->magic = SIB_RING_MAGIC;
	r->num = num;
	r->stride = stride;
	r->size = size;
	r->user = user;
	r->mentry = NULL;
	return 0;
}

/**
 * sib_ring_alloc() - allocate a zeroed ring that user space may map
 * @r: ring to fill
 * @num: number of entries, power of two
 * @stride: bytes per entry
 *
 * vmalloc_user() memory, page aligned, SIB_RING_MAGIC in its header; see
 * sib_ring_expose().
 * Context: process, may sleep. Return: 0 or -ENOMEM/-EINVAL.
 */
int sib_ring_alloc(struct sib_ring *r, u32 num, u32 stride)
{
	return sib_ring_init(r, num, stride, true);
}

/**
 * sib_ring_alloc_kernel() - allocate a zeroed ring of a kernel object
 * @r: ring to fill
 * @num: number of entries, power of two
 * @stride: bytes per entry
 *
 * Like sib_ring_alloc(), but from kvzalloc(): kmalloc memory for the
 * usual sizes, which costs no vmap on creation and no vunmap (and its
 * TLB flush of every CPU) on destruction. Such a ring cannot be exposed.
 * Context: process, may sleep. Return: 0 or -ENOMEM/-EINVAL.
 */
int sib_ring_alloc_kernel(struct sib_ring *r, u32 num, u32 stride)
{
	return sib_ring_init(r, num, stride, false);
}

/**
 * sib_mmap_expose() - make vmalloc_user() memory mappable by a process
 * @uctx: user context
 * @buf: vmalloc_user() memory of @size bytes, a whole number of pages
 * @size: bytes to map
 * @offset: out, mmap offset to give user space
 *
 * The memory is owned by the returned entry from now on: sib_mmap_free()
 * frees it once sib_mmap_remove() was called and no mapping is left.
 * Context: process. Return: the entry or ERR_PTR(-ENOMEM, ...).
 */
struct sib_mmap_entry *sib_mmap_expose(struct ib_ucontext *uctx, void *buf,
				       size_t size, u64 *offset)
{
	struct sib_mmap_entry *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->buf = buf;
	e->size = size;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, size);
	if (err) {
		kfree(e);
		return ERR_PTR(err);
	}
	*offset = rdma_user_mmap_get_offset(&e->rdma);
	return e;
}

/**
 * sib_mmap_remove() - no new mapping of an entry from sib_mmap_expose()
 * @e: the entry
 *
 * Mappings that exist keep their pages (see the top of this file).
 * Context: process.
 */
void sib_mmap_remove(struct sib_mmap_entry *e)
{
	rdma_user_mmap_entry_remove(&e->rdma);
}

/**
 * sib_ring_expose() - make @r mappable by the owner of @uctx
 * @r: ring from sib_ring_alloc() (not sib_ring_alloc_kernel())
 * @uctx: user context
 * @offset: out, mmap offset to give user space
 * @size: out, bytes to map
 *
 * The ring memory is owned by the mmap entry from now on.
 * Context: process. Return: 0 or -errno (-EINVAL for a kernel ring).
 */
int sib_ring_expose(struct sib_ring *r, struct ib_ucontext *uctx,
		    u64 *offset, u64 *size)
{
	struct sib_mmap_entry *e;

	if (WARN_ON_ONCE(!r->user))
		return -EINVAL;
	e = sib_mmap_expose(uctx, r->buf, r->size, offset);
	if (IS_ERR(e))
		return PTR_ERR(e);
	r->mentry = e;
	*size = r->size;
	return 0;
}

/**
 * sib_ring_free() - release a ring
 * @r: ring; may be unallocated (buf NULL)
 *
 * Clears the header's magic first: a process still mapping the ring then
 * sees it as dead (see the top of this file).
 *
 * Context: process.
 */
void sib_ring_free(struct sib_ring *r)
{
	/* the process may keep the pages mapped: tell it the ring is dead */
	if (r->hdr)
		smp_store_release(&r->hdr->magic, 0);
	if (r->mentry)
		sib_mmap_remove(r->mentry);
	else
		kvfree(r->buf);
	r->buf = NULL;
	r->hdr = NULL;
	r->mentry = NULL;
}

/**
 * sib_ring_take() - take the next receive WQE of a receive ring
 * @r: RQ, SRQ or receive WQ ring (may be user-shared)
 * @kcons: the kernel's consumer index of @r; advanced on success
 * @max_sge: SGE limit of the queue
 * @rw: out, the validated copy (sib_rwqe_copy())
 *
 * Publishes the new consumer index in the ring header.
 * Context: any; the caller serializes the takers of @r. Return: 1 when a
 * WQE was taken, 0 when the ring is empty, -EINVAL when the producer index
 * is impossible or the entry is garbage.
 */
int sib_ring_take(struct sib_ring *r, u32 *kcons, u32 max_sge,
		  struct sib_rwqe *rw)
{
	u32 prod = smp_load_acquire(&r->hdr->producer);

	if (prod == *kcons)
		return 0;
	if (prod - *kcons > r->num || sib_rwqe_copy(r, *kcons, max_sge, rw))
		return -EINVAL;
	WRITE_ONCE(*kcons, *kcons + 1);
	smp_store_release(&r->hdr->consumer, *kcons);
	return 1;
}

/**
 * sib_rwqe_copy() - copy receive WQE @idx of a ring and validate the copy
 * @r: RQ or SRQ ring (may be user-shared)
 * @idx: free-running index of the entry
 * @max_sge: SGE limit of the queue
 * @rw: out, the copy; only it may be used afterwards
 *
 * The entry is read exactly once. Context: any. Return: 0, or -EINVAL
 * when the entry names more SGEs than the queue allows.
 */
int sib_rwqe_copy(const struct sib_ring *r, u32 idx, u32 max_sge,
		  struct sib_rwqe *rw)
{
	const u8 *src = sib_ring_entry(r, idx);
	struct sib_recv_wqe h;
	u64 total = 0;
	u32 i;

	memcpy(&h, src, sizeof(h));
	if (h.num_sge > max_sge || h.num_sge > SIB_MAX_SGE)
		return -EINVAL;
	sib_sge_copy(rw->sge, src + SIB_RECV_WQE_HDR_SIZE, h.num_sge);
	for (i = 0; i < h.num_sge; i++)
		total += rw->sge[i].length;
	rw->wr_id = h.wr_id;
	rw->num_sge = h.num_sge;
	rw->total_len = min_t(u64, total, SIB_MAX_MSG_SIZE);
	return 0;
}

/**
 * sib_mmap() - ib_device_ops.mmap: map a ring
 * @uctx: user context
 * @vma: the mapping; must cover exactly one entry
 *
 * Context: process (mmap_lock held). Return: 0 or -EINVAL.
 */
int sib_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct sib_mmap_entry *e;
	int err;

	rdma = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma)
		return -EINVAL;
	e = container_of(rdma, struct sib_mmap_entry, rdma);
	err = remap_vmalloc_range(vma, e->buf, 0);
	rdma_user_mmap_entry_put(rdma);
	return err;
}

/**
 * sib_mmap_free() - ib_device_ops.mmap_free: last reference to an entry
 * @entry: the entry
 *
 * Context: process.
 */
void sib_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sib_mmap_entry *e =
		container_of(entry, struct sib_mmap_entry, rdma);

	vfree(e->buf);
	kfree(e);
}
