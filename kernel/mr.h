/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_MR_H
#define SIB_MR_H

#include "softib.h"
#include "compat.h"

/* keys with this bit name memory windows (mw.c), the others MRs */
#define SIB_MW_KEY_BIT		0x80000000U
/* page list entries of one fast-registration MR */
#define SIB_MAX_FR_PAGES	(1U << 16)

void sib_copy_init(void);

/**
 * sib_mr_has_pages() - the MR's bytes are in @mr->pages
 * @mr: MR
 *
 * User MRs (pinned pages) and DM MRs (pages of device memory): what the
 * page walks and zero-copy transmits of mr.c can use. Context: any.
 */
static inline bool sib_mr_has_pages(const struct sib_mr *mr)
{
	return mr->type == SIB_MR_USER || mr->type == SIB_MR_DM;
}
struct ib_mr *sib_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *sib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				u64 length, u64 iova, int access,
				struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *sib_mr_reg_pages(struct ib_pd *pd, struct page **pages,
			       unsigned long npages, unsigned int page_off,
			       u64 length, int access);
struct ib_mr *sib_reg_user_mr_dmabuf(struct ib_pd *pd, u64 offset, u64 length,
				     u64 iova, int fd, int access,
				     sib_dmabuf_uarg_t *uarg);
int sib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
int sib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		  u32 flags, struct ib_sge *sg_list, u32 num_sge,
		  struct uverbs_attr_bundle *attrs);
#else
#define sib_advise_mr NULL	/* ib_core answers EOPNOTSUPP */
#endif
struct ib_mr *sib_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg);
int sib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);

struct sib_mr *sib_mr_get(struct sib_dev *dev, struct ib_pd *pd, u32 key,
			  int access);
void sib_mr_put(struct sib_mr *mr);
struct sib_mr *sib_mr_get_cached(struct sib_dev *dev, struct sib_mr_cache *mc,
				 struct ib_pd *pd, u32 key, int access);
void sib_mr_cache_drop(struct sib_mr_cache *mc);
int sib_mr_copy(struct sib_mr *mr, u64 iova, void *buf, u32 len, bool to_mr);

/* the 8-byte operations of sib_mr_atomic() */
enum sib_atomic_kind {
	SIB_ATOMIC_CMP_SWAP,		/* IBTA 9.4.5 CmpSwap */
	SIB_ATOMIC_FETCH_ADD,		/* IBTA 9.4.5 FetchAdd */
	SIB_ATOMIC_WRITE,		/* IBA 1.5 ATOMIC WRITE: a plain store */
};

/**
 * struct sib_atomic_op - one atomic for sib_mr_atomic()
 * @kind: the operation
 * @compare: CmpSwap's compare value
 * @val: CmpSwap's swap value, FetchAdd's addend, ATOMIC WRITE's value
 * @orig: out: the 8 bytes before the operation
 */
struct sib_atomic_op {
	enum sib_atomic_kind kind;
	u64 compare;
	u64 val;
	u64 orig;
};
int sib_mr_atomic(struct sib_mr *mr, u64 iova, struct sib_atomic_op *op);
int sib_sgl_copy(struct sib_dev *dev, struct sib_mr_cache *mc,
		 struct ib_pd *pd, const struct sib_sge *sge, u32 num_sge,
		 u32 off, void *buf, u32 len, bool to_mr);
int sib_mr_fast_reg(struct sib_dev *dev, struct ib_pd *pd, u32 lkey, u32 key,
		    int access);
int sib_mr_invalidate(struct sib_dev *dev, struct ib_pd *pd, u32 key);
struct sib_mr *sib_mr_bind_get(struct sib_dev *dev, struct ib_pd *pd, u32 lkey);
void sib_mr_bind_put(struct sib_mr *mr);

int sib_mr_copy_skb(struct sib_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 skb_off, u32 len);
int sib_sgl_copy_skb(struct sib_dev *dev, struct sib_mr_cache *mc,
		     struct ib_pd *pd,
		     const struct sib_sge *sge, u32 num_sge, u32 off,
		     struct sk_buff *skb, u32 skb_off, u32 len);
int sib_mr_add_frags(struct sib_mr *mr, u64 iova, struct sk_buff *skb,
		     u32 len);
int sib_sgl_add_frags(struct sib_dev *dev, struct sib_mr_cache *mc,
		      struct ib_pd *pd,
		      const struct sib_sge *sge, u32 num_sge, u32 off,
		      struct sk_buff *skb, u32 len);

#endif
