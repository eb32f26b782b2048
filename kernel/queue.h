/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_QUEUE_H
#define SIB_QUEUE_H

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
int sib_ring_expose(struct sib_ring *r, struct ib_ucontext *uctx,
		    u64 *offset, u64 *size);
void sib_ring_free(struct sib_ring *r);
int sib_rwqe_copy(const struct sib_ring *r, u32 idx, u32 max_sge,
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

#endif /* SIB_QUEUE_H */
