// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: memory regions. lkey == rkey == index << 8 | key byte; the
 * index names the xarray slot, so lookup is O(1) and a stale key with the
 * right index but an old key byte is rejected. A user MR keeps an array
 * of its pinned pages for O(1) address-to-page translation. Access flags
 * and ranges are checked on every access (IBTA 10.6.3).
 */
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>

#include "mr.h"

static int sib_mr_insert(struct sib_dev *dev, struct sib_mr *mr)
{
	u32 idx;
	int err;

	if (atomic_inc_return(&dev->num_mr) > SIB_MAX_MR) {
		atomic_dec(&dev->num_mr);
		return -ENOMEM;
	}
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	err = xa_alloc_cyclic(&dev->mr_xa, &idx, mr, XA_LIMIT(1, 0x00ffffff),
			      &dev->next_mr, GFP_KERNEL);
	if (err < 0) {
		atomic_dec(&dev->num_mr);
		return err;
	}
	mr->ibmr.lkey = (idx << 8) | (u8)(dev->next_key++);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

static void sib_mr_remove(struct sib_dev *dev, struct sib_mr *mr)
{
	xa_erase(&dev->mr_xa, mr->ibmr.lkey >> 8);
	sib_mr_put(mr);
	wait_for_completion(&mr->released);
	atomic_dec(&dev->num_mr);
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

/**
 * sib_reg_user_mr() - ib_device_ops.reg_user_mr
 * @pd: PD
 * @start: user virtual address
 * @length: bytes
 * @iova: address the peers use for this MR
 * @access: IB_ACCESS_* (checked by the core for consistency)
 * @udata: user data (no driver data defined)
 *
 * Context: process, pins pages. Return: the MR or ERR_PTR(-EINVAL,
 * -EOPNOTSUPP for ODP, -ENOMEM, -EFAULT).
 */
struct ib_mr *sib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(pd->device);
	struct sib_mr *mr;
	int err;

	if (access & IB_ACCESS_ON_DEMAND)
		return ERR_PTR(-EOPNOTSUPP);
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
 * sib_dereg_mr() - ib_device_ops.dereg_mr
 * @ibmr: MR
 * @udata: unused
 *
 * Waits until no engine copies through the MR any more.
 * Context: process. Return: 0.
 */
int sib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sib_mr *mr = to_sib_mr(ibmr);

	sib_mr_remove(mr->dev, mr);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr);
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

	xa_lock(&dev->mr_xa);
	mr = xa_load(&dev->mr_xa, key >> 8);
	if (mr && (mr->ibmr.lkey != key || mr->ibmr.pd != pd ||
		   (mr->access & access) != access ||
		   !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	xa_unlock(&dev->mr_xa);
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

/**
 * sib_mr_copy() - copy between a kernel buffer and an MR
 * @mr: referenced MR
 * @iova: start address in the MR's address space (untrusted)
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: true: @buf -> MR, false: MR -> @buf
 *
 * Context: process or softirq. Return: 0, -EFAULT when the range is not
 * inside the MR.
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
	if (iova < mr->iova || len > mr->length ||
	    iova - mr->iova > mr->length - len)
		return -EFAULT;
	off = iova - mr->iova + mr->page_off;
	while (len) {
		unsigned long pg = off >> PAGE_SHIFT;
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		void *va;

		if (pg >= mr->npages)
			return -EFAULT;
		va = kmap_local_page(mr->pages[pg]);
		if (to_mr)
			memcpy(va + poff, buf, n);
		else
			memcpy(buf, va + poff, n);
		kunmap_local(va);
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/**
 * sib_sgl_copy() - copy part of a message from/to a scatter/gather list
 * @dev: device
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
int sib_sgl_copy(struct sib_dev *dev, struct ib_pd *pd,
		 const struct sib_sge *sge, u32 num_sge, u32 off,
		 void *buf, u32 len, bool to_mr)
{
	u32 i;

	for (i = 0; i < num_sge && len; i++) {
		struct sib_mr *mr;
		u32 n;
		int err;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = sib_mr_get(dev, pd, sge[i].lkey,
				to_mr ? IB_ACCESS_LOCAL_WRITE : 0);
		if (!mr)
			return -EINVAL;
		err = sib_mr_copy(mr, sge[i].addr + off, buf, n, to_mr);
		sib_mr_put(mr);
		if (err)
			return err;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}
