/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_DM_H
#define SIB_DM_H

#include "softib.h"

extern const struct uapi_definition sib_dm_uapi_defs[];

struct ib_dm *sib_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *uctx,
			   struct ib_dm_alloc_attr *attr,
			   struct uverbs_attr_bundle *attrs);
int sib_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct ib_mr *sib_reg_dm_mr(struct ib_pd *pd, struct ib_dm *ibdm,
			    struct ib_dm_mr_attr *attr,
			    struct uverbs_attr_bundle *attrs);

#endif /* SIB_DM_H */
