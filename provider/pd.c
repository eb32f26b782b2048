// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: protection domains, parent domains (ibv_alloc_parent_domain)
 * and the memory of the objects created on them: a parent domain's alloc
 * and free callbacks provide the per-object state of QPs and CQs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "softib.h"

struct ibv_pd *sib_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct sib_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_pd(ctx, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * A parent domain is provider-only state around an existing PD: the
 * kernel only ever sees the PD's handle, which the parent domain copies.
 */
struct ibv_pd *
sib_alloc_parent_domain(struct ibv_context *ctx,
			struct ibv_parent_domain_init_attr *attr)
{
	struct sib_pd *pd, *inner;

	if (!attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	inner = to_sib_pd(attr->pd);
	if (attr->pd->context != ctx || inner->protection_domain ||
	    attr->td ||
	    (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))) {
		/* no thread domains: softib has no doorbell resources to split */
		errno = attr->td ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	/* commands on the parent domain act on the PD it contains */
	pd->ibv_pd.context = ctx;
	pd->ibv_pd.handle = attr->pd->handle;
	pd->protection_domain = inner;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	__atomic_add_fetch(&inner->refs, 1, __ATOMIC_RELAXED);
	return &pd->ibv_pd;
}

int sib_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sib_pd *pd = to_sib_pd(ibpd);
	int ret;

	/* parent domains on a PD, objects on a parent domain */
	if (__atomic_load_n(&pd->refs, __ATOMIC_RELAXED))
		return EBUSY;
	if (pd->protection_domain) {
		__atomic_sub_fetch(&pd->protection_domain->refs, 1,
				   __ATOMIC_RELAXED);
		free(pd);
		return 0;
	}
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (!ret)
		free(pd);
	return ret;
}

void *sib_obj_calloc(struct ibv_pd *ibpd, size_t size, uint64_t resource_type,
		     struct sib_obj_mem *mem)
{
	struct sib_pd *pd = ibpd ? to_sib_pd(ibpd) : NULL;
	void *p = IBV_ALLOCATOR_USE_DEFAULT;

	memset(mem, 0, sizeof(*mem));
	if (pd && pd->protection_domain) {
		mem->parent = pd;
		mem->resource_type = resource_type;
		if (pd->alloc)
			p = pd->alloc(ibpd, pd->pd_context, size, 64,
				      resource_type);
	}
	if (p == IBV_ALLOCATOR_USE_DEFAULT) {
		p = calloc(1, size);
	} else if (p) {
		mem->custom = 1;
		memset(p, 0, size);
	}
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	if (mem->parent)
		__atomic_add_fetch(&mem->parent->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void sib_obj_free(void *obj, const struct sib_obj_mem *in_obj)
{
	struct sib_obj_mem mem = *in_obj;	/* @in_obj may lie in @obj */

	if (mem.custom)
		mem.parent->free(&mem.parent->ibv_pd, mem.parent->pd_context,
				 obj, mem.resource_type);
	else
		free(obj);
	if (mem.parent)
		__atomic_sub_fetch(&mem.parent->refs, 1, __ATOMIC_RELAXED);
}
