/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_MR_H
#define SIB_MR_H

#include "softib.h"

struct ib_mr *sib_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *sib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
int sib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

struct sib_mr *sib_mr_get(struct sib_dev *dev, struct ib_pd *pd, u32 key,
			  int access);
void sib_mr_put(struct sib_mr *mr);
int sib_mr_copy(struct sib_mr *mr, u64 iova, void *buf, u32 len, bool to_mr);
int sib_sgl_copy(struct sib_dev *dev, struct ib_pd *pd,
		 const struct sib_sge *sge, u32 num_sge, u32 off,
		 void *buf, u32 len, bool to_mr);

#endif
