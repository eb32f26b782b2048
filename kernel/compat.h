/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: the one place that knows kernel versions.
 *
 * softib builds from one source against Debian's 6.1 and 6.12 kernels.
 * Each difference between them has one wrapper here, named by what
 * differs, with the kernel that changed it; the rest of the module uses
 * the wrapper and never tests a version itself.
 */
#ifndef SIB_COMPAT_H
#define SIB_COMPAT_H

#include <linux/version.h>

/*
 * 6.12 moved the unaligned access helpers from <asm/unaligned.h> to
 * <linux/unaligned.h> (get_unaligned_be32() and friends).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.10 dropped the second argument of the tracepoint helper
 * __assign_str(): the source now comes from the field's __string()
 * declaration. SIB_TRACE_ASSIGN_STR(field, src) copies src into field on
 * both; src must be the expression that __string(field, src) names.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define SIB_TRACE_ASSIGN_STR(field, src)	__assign_str(field)
#else
#define SIB_TRACE_ASSIGN_STR(field, src)	__assign_str(field, src)
#endif

/*
 * 6.11 gave ib_device_ops.create_cq the uverbs attribute bundle instead
 * of the udata (the udata is its driver_udata; both are NULL for a CQ
 * that a kernel user creates). sib_cq_uarg_t is the type of that third
 * parameter on the kernel built against, sib_cq_uarg_udata() the udata.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#include <rdma/uverbs_ioctl.h>
typedef struct uverbs_attr_bundle sib_cq_uarg_t;
static inline struct ib_udata *sib_cq_uarg_udata(sib_cq_uarg_t *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#include <rdma/ib_verbs.h>
typedef struct ib_udata sib_cq_uarg_t;
static inline struct ib_udata *sib_cq_uarg_udata(sib_cq_uarg_t *udata)
{
	return udata;
}
#endif

/*
 * ib_device_ops.reg_user_mr_dmabuf also takes the uverbs attribute
 * bundle instead of the udata on 6.12 (6.1 passes the udata).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
typedef struct uverbs_attr_bundle sib_dmabuf_uarg_t;
#else
typedef struct ib_udata sib_dmabuf_uarg_t;
#endif

/*
 * 6.2 changed dma_buf_vmap() to expect the buffer's reservation lock
 * held and added dma_buf_vmap_unlocked() that takes it; 6.1's
 * dma_buf_vmap() locks by itself.
 */
#include <linux/dma-buf.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define sib_dma_buf_vmap(buf, map)	dma_buf_vmap_unlocked(buf, map)
#define sib_dma_buf_vunmap(buf, map)	dma_buf_vunmap_unlocked(buf, map)
#else
#define sib_dma_buf_vmap(buf, map)	dma_buf_vmap(buf, map)
#define sib_dma_buf_vunmap(buf, map)	dma_buf_vunmap(buf, map)
#endif

/*
 * 6.6 split <net/page_pool.h> into <net/page_pool/types.h> and
 * <net/page_pool/helpers.h> ("page_pool: split types and declarations
 * from page_pool.h"); the calls net.c makes
 * (page_pool_create(), page_pool_dev_alloc_pages(),
 * page_pool_put_full_page(), page_pool_destroy(), skb_mark_for_recycle())
 * are the same on both.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

#endif /* SIB_COMPAT_H */
