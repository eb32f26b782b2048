/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_ODP_H
#define SIB_ODP_H

#include <rdma/ib_umem_odp.h>
#include "softib.h"

/* an implicit ODP MR maps the address space in children of this size */
#define SIB_ODP_CHILD_SHIFT	21

/*
 * sib_odp_page_fn - called for each piece of an ODP MR's range, under the
 * umem's mutex, with the page mapped for the access asked for
 */
typedef int (*sib_odp_page_fn)(void *arg, struct page *page, u32 poff,
			       u32 n);

#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
void sib_odp_caps(struct ib_odp_caps *caps);
int sib_odp_reg(struct sib_mr *mr, u64 start, u64 length, int access);
void sib_odp_release(struct sib_mr *mr);
int sib_odp_walk(struct sib_mr *mr, u64 iova, u32 len, bool write,
		 sib_odp_page_fn fn, void *arg);
int sib_odp_prefetch(struct sib_mr *mr, u64 iova, u32 len,
		     enum ib_uverbs_advise_mr_advice advice);
#else
/* a kernel without ODP: no capability, no ODP MR (ib_core refuses them) */
static inline void sib_odp_caps(struct ib_odp_caps *caps) { }
static inline int sib_odp_reg(struct sib_mr *mr, u64 start, u64 length,
			      int access)
{
	return -EOPNOTSUPP;
}
static inline void sib_odp_release(struct sib_mr *mr) { }
static inline int sib_odp_walk(struct sib_mr *mr, u64 iova, u32 len,
			       bool write, sib_odp_page_fn fn, void *arg)
{
	return -EFAULT;
}
#endif

/**
 * sib_mr_is_odp() - the MR's pages are faulted in on demand
 * @mr: MR
 *
 * Context: any.
 */
static inline bool sib_mr_is_odp(const struct sib_mr *mr)
{
	return mr->type == SIB_MR_ODP;
}

/**
 * sib_mr_is_implicit() - an implicit ODP MR (the whole address space)
 * @mr: MR whose umem is set (sib_odp_reg() returned 0), or any non-ODP MR
 *
 * Context: any.
 */
static inline bool sib_mr_is_implicit(const struct sib_mr *mr)
{
	return sib_mr_is_odp(mr) && mr->odp && mr->odp->is_implicit_odp;
}

#endif
