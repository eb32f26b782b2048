/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_DM_H
#define SIB_DM_H

#include <rdma/uverbs_ioctl.h>

#include "softib.h"

/* what an MR on device memory may allow (IBTA 10.6.3.1 access rights) */
#define SIB_DM_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ZERO_BASED)

extern const struct uapi_definition sib_dm_uapi_defs[];

bool sib_dm_charge(atomic_long_t *bytes, size_t size, size_t limit);
int sib_dm_mr_check(u64 dm_length, u64 offset, u64 length, int access);

struct ib_dm *sib_alloc_dm(struct ib_device *ibdev, struct ib_ucontext *uctx,
			   struct ib_dm_alloc_attr *attr,
			   struct uverbs_attr_bundle *attrs);
int sib_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct ib_mr *sib_reg_dm_mr(struct ib_pd *pd, struct ib_dm *ibdm,
			    struct ib_dm_mr_attr *attr,
			    struct uverbs_attr_bundle *attrs);

#endif /* SIB_DM_H */
