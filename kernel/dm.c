// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: device memory (ibv_alloc_dm) and MRs on it (ibv_reg_dm_mr).
 *
 * A NIC's device memory is memory on the card that the process maps and
 * copies into, and that MRs can name like host memory. softib's is kernel
 * memory the device owns: vmalloc_user() pages, mapped into the process
 * through an rdma_user_mmap_entry (queue.c), so the provider's
 * ibv_memcpy_to_dm/from_dm are plain copies, and a DM MR is an MR on
 * those pages (mr.c, SIB_MR_DM) that every engine uses as it uses a user
 * MR: local and remote buffers, atomics.
 *
 * Accounting: a user context holds at most SIB_MAX_DM_SIZE bytes
 * (page-rounded) at once, the max_dm_size that query_device reports.
 *
 * Lifetime: the core counts the MRs on a DM (ib_dm.usecnt) and does not
 * free a DM while one is left, also when it destroys a context's objects
 * on close or when the device goes away (the MRs go first, the DM is
 * retried). Freeing the DM removes its mmap entry; a mapping the process
 * still has keeps its own page references (remap_vmalloc_range()), so it
 * never sees freed memory, and sib_mmap_free() frees the memory when the
 * last mapping is gone. Packets that reference DM pages as fragments hold
 * page references too.
 */
#define UVERBS_MODULE_NAME softib
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "dm.h"
#include "mr.h"
#include "queue.h"

/*
 * struct sib_dm - device memory of one user context
 * @uc: the context it is accounted to
 * @size: bytes mapped and accounted: the length rounded up to pages
 * @pages: the pages of @buf, for MRs on it
 * @mentry: the mmap entry that owns @buf
 * @mmap_offset: where the process maps it
 */
struct sib_dm {
	struct ib_dm ibdm;
	struct sib_ucontext *uc;
	void *buf;
	size_t size;
	struct page **pages;
	unsigned long npages;
	struct sib_mmap_entry *mentry;
	u64 mmap_offset;
};

static inline struct sib_dm *to_sib_dm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct sib_dm, ibdm);
}

/**
 * sib_dm_charge() - take bytes of a context's device memory budget
 * @bytes: the bytes the context holds (struct sib_ucontext.dm_bytes)
 * @size: bytes to take
 * @limit: bytes the context may hold at most
 *
 * Lock-free: processes sharing a context (fork, an imported context) may
 * allocate at the same time; together they never exceed @limit.
 * Context: any. Return: true when taken, false when that would exceed
 * @limit (nothing taken).
 */
bool sib_dm_charge(atomic_long_t *bytes, size_t size, size_t limit)
{
	long old = atomic_long_read(bytes);

	do {
		if (size > limit || old > (long)(limit - size))
			return false;
	} while (!atomic_long_try_cmpxchg(bytes, &old, old + size));
	return true;
}

/**
 * sib_dm_mr_check() - may an MR on device memory have these attributes
 * @dm_length: bytes of the DM
 * @offset: offset of the MR's first byte in the DM
 * @length: bytes of the MR (0 allowed)
 * @access: IB_ACCESS_* flags of the MR
 *
 * The MR is zero based (IB_ZERO_BASED required) and may allow local
 * write and remote read, write and atomics; memory windows and on-demand
 * paging make no sense on device memory. Context: any.
 * Return: 0, -EINVAL for other access flags or a range beyond the DM.
 */
int sib_dm_mr_check(u64 dm_length, u64 offset, u64 length, int access)
{
	if ((access & ~SIB_DM_MR_ACCESS) || !(access & IB_ZERO_BASED))
		return -EINVAL;
	if (offset > dm_length || length > dm_length - offset)
		return -EINVAL;
	return 0;
}

static int sib_dm_fill_pages(struct sib_dm *dm)
{
	unsigned long i;

	dm->npages = dm->size >> PAGE_SHIFT;
	dm->pages = kvcalloc(dm->npages, sizeof(*dm->pages), GFP_KERNEL);
	if (!dm->pages)
		return -ENOMEM;
	for (i = 0; i < dm->npages; i++)
		dm->pages[i] = vmalloc_to_page(dm->buf + (i << PAGE_SHIFT));
	return 0;
}

/**
 * sib_alloc_dm() - ib_device_ops.alloc_dm
 * @ibdev: device
 * @uctx: the user context to account the memory to
 * @attr: length in bytes; alignment as a log2 of bytes
 * @attrs: the ioctl's attributes (no driver attribute is defined)
 *
 * Zeroed, page-aligned memory, so any alignment up to a page is met.
 * Context: process. Return: the DM or ERR_PTR(-EINVAL for a length of 0,
 * an alignment above a page or flags; -ENOMEM when the length exceeds
 * what is left of the context's SIB_MAX_DM_SIZE, or out of memory).
 */
struct ib_dm *sib_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *uctx,
			   struct ib_dm_alloc_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	struct sib_ucontext *uc = to_sib_uc(uctx);
	struct sib_dm *dm;
	int err;

	if (!attr->length || attr->alignment > PAGE_SHIFT || attr->flags)
		return ERR_PTR(-EINVAL);
	if (attr->length > SIB_MAX_DM_SIZE)
		return ERR_PTR(-ENOMEM);
	dm = kzalloc(sizeof(*dm), GFP_KERNEL);
	if (!dm)
		return ERR_PTR(-ENOMEM);
	dm->uc = uc;
	dm->size = PAGE_ALIGN(attr->length);
	if (!sib_dm_charge(&uc->dm_bytes, dm->size, SIB_MAX_DM_SIZE)) {
		err = -ENOMEM;
		goto err_free;
	}
	dm->buf = vmalloc_user(dm->size);
	if (!dm->buf) {
		err = -ENOMEM;
		goto err_uncharge;
	}
	err = sib_dm_fill_pages(dm);
	if (err)
		goto err_vfree;
	dm->mentry = sib_mmap_expose(uctx, dm->buf, dm->size, &dm->mmap_offset);
	if (IS_ERR(dm->mentry)) {
		err = PTR_ERR(dm->mentry);
		goto err_pages;
	}
	return &dm->ibdm;

err_pages:
	kvfree(dm->pages);
err_vfree:
	vfree(dm->buf);
err_uncharge:
	atomic_long_sub(dm->size, &uc->dm_bytes);
err_free:
	kfree(dm);
	return ERR_PTR(err);
}

/**
 * sib_dealloc_dm() - ib_device_ops.dealloc_dm
 * @ibdm: the DM; the core checked that no MR is on it
 * @attrs: unused
 *
 * Context: process. Return: 0.
 */
int sib_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct sib_dm *dm = to_sib_dm(ibdm);

	/* the entry frees the memory when no mapping is left */
	sib_mmap_remove(dm->mentry);
	kvfree(dm->pages);
	atomic_long_sub(dm->size, &dm->uc->dm_bytes);
	kfree(dm);
	return 0;
}

/**
 * sib_reg_dm_mr() - ib_device_ops.reg_dm_mr: an MR on device memory
 * @pd: PD
 * @ibdm: the DM
 * @attr: offset and length in the DM, access flags
 * @attrs: unused
 *
 * The core checked that the range lies in the DM and that
 * IB_ZERO_BASED is set; it is checked here again. The MR is zero based:
 * address 0 is the byte at @attr->offset of the DM.
 * Context: process. Return: the MR or ERR_PTR(-EINVAL for other access
 * flags or a range beyond the DM, -ENOMEM).
 */
struct ib_mr *sib_reg_dm_mr(struct ib_pd *pd, struct ib_dm *ibdm,
			    struct ib_dm_mr_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	struct sib_dm *dm = to_sib_dm(ibdm);
	unsigned long first;
	int err;

	err = sib_dm_mr_check(ibdm->length, attr->offset, attr->length,
			      attr->access_flags);
	if (err)
		return ERR_PTR(err);
	first = attr->offset >> PAGE_SHIFT;
	return sib_mr_reg_pages(pd, dm->pages + first,
				dm->npages - min(first, dm->npages),
				attr->offset & ~PAGE_MASK, attr->length,
				attr->access_flags);
}

static int UVERBS_HANDLER(SIB_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs, SIB_ATTR_DM_QUERY_HANDLE);
	struct sib_dm_query_resp resp = {};
	struct sib_dm *dm;

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	dm = to_sib_dm(ibdm);
	resp.mmap_offset = dm->mmap_offset;
	resp.mmap_size = dm->size;
	resp.length = ibdm->length;
	return uverbs_copy_to_struct_or_zero(attrs, SIB_ATTR_DM_QUERY_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(
	SIB_METHOD_DM_QUERY,
	UVERBS_ATTR_IDR(SIB_ATTR_DM_QUERY_HANDLE, UVERBS_OBJECT_DM,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SIB_ATTR_DM_QUERY_RESP,
			    UVERBS_ATTR_STRUCT(struct sib_dm_query_resp, length),
			    UA_MANDATORY));

ADD_UVERBS_METHODS(sib_dm_methods, UVERBS_OBJECT_DM,
		   &UVERBS_METHOD(SIB_METHOD_DM_QUERY));

/* part of ib_device.driver_def (device.c) */
const struct uapi_definition sib_dm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &sib_dm_methods),
	{},
};
