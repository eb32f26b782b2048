/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_QUEUE_H
#define SIB_QUEUE_H

#include "compat.h"
#include <rdma/uverbs_ioctl.h>

#include "softib.h"

/**
 * sib_udata_uctx() - the user context a verb with @udata runs in
 * @udata: non-NULL udata of a uverbs command
 *
 * Context: process. Return: the ucontext.
 */
static inline struct ib_ucontext *sib_udata_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct sib_ucontext, ibuc)->ibuc;
}

int sib_ring_alloc(struct sib_ring *r, u32 num, u32 stride);
int sib_ring_alloc_kernel(struct sib_ring *r, u32 num, u32 stride);
struct sib_mmap_entry *sib_mmap_expose(struct ib_ucontext *uctx, void *buf,
				       size_t size, u64 *offset);
void sib_mmap_remove(struct sib_mmap_entry *e);
int sib_ring_expose(struct sib_ring *r, struct ib_ucontext *uctx,
		    u64 *offset, u64 *size);
void sib_ring_free(struct sib_ring *r);
int sib_rwqe_copy(const struct sib_ring *r, u32 idx, u32 max_sge,
		  struct sib_rwqe *rw);
int sib_ring_take(struct sib_ring *r, u32 *kcons, u32 max_sge,
		  struct sib_rwqe *rw);
int sib_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sib_mmap_free(struct rdma_user_mmap_entry *entry);

/**
 * sib_ring_entry() - address of entry @idx of @r
 * @r: ring
 * @idx: free-running index; masked here
 *
 * Context: any. Return: pointer into the ring memory (may be user-shared:
 * copy before use).
 */
static inline void *sib_ring_entry(const struct sib_ring *r, u32 idx)
{
	return (u8 *)r->buf + SIB_RING_HDR_SIZE +
	       (size_t)(idx & (r->num - 1)) * r->stride;
}

/**
 * sib_sge_copy() - copy scatter/gather entries out of a ring WQE
 * @dst: kernel array of at least @n entries
 * @src: the first entry in the ring (user-shared memory)
 * @n: entries, already checked against the array size
 *
 * Two 8-byte loads and stores per entry. memcpy() with a length known
 * only at run time is "rep movsb", and struct copies of this size become
 * "rep movsq"; QEMU TCG (softib's CI and the bench) runs such string
 * instructions one element per pass through the translated block, which
 * made each WQE fetch cost hundreds of cycles for one or two entries.
 * Context: any.
 */
static inline void sib_sge_copy(struct sib_sge *dst, const void *src, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++, src += sizeof(*dst)) {
		dst[i].addr = get_unaligned((const u64 *)src);
		dst[i].length = get_unaligned((const u32 *)(src + 8));
		dst[i].lkey = get_unaligned((const u32 *)(src + 12));
		/* keep the compiler from making the loop a memcpy() again */
		barrier();
	}
}

/**
 * sib_cqe_clear() - clear a CQE under construction
 * @c: CQE on the stack
 *
 * For a CQE declared __uninitialized: the kernel is built with
 * CONFIG_INIT_STACK_ALL_ZERO, and the compiler clears a struct of this
 * size on the stack with "rep stosq" (see sib_sge_copy()); eight word
 * stores are much cheaper where every completion pays them.
 * Context: any.
 */
static inline void sib_cqe_clear(struct sib_cqe *c)
{
	u64 *w = (u64 *)c;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*c) % sizeof(u64));
	for (i = 0; i < sizeof(*c) / sizeof(u64); i++) {
		w[i] = 0;
		barrier();
	}
}

#endif /* SIB_QUEUE_H */
