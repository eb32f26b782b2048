/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: the per-device limits that module parameters set (limits.c):
 * how many objects of each kind may live at once, how large a queue may
 * be. The defaults and ranges are in params.h.
 */
#ifndef SIB_LIMITS_H
#define SIB_LIMITS_H

#include <linux/types.h>

struct sib_dev;

/* the kinds of objects a device counts against a limit */
enum sib_obj {
	SIB_OBJ_QP,
	SIB_OBJ_CQ,
	SIB_OBJ_MR,
	SIB_OBJ_SRQ,
	SIB_OBJ_PD,
	SIB_OBJ_AH,
	SIB_OBJ_MW,
	SIB_NUM_OBJ
};

/*
 * struct sib_limits - one device's limits, copied from the module
 * parameters when the device is created
 * @max_obj: live objects of each kind at most (QP1 and the RDMA core's
 *	     own objects included)
 * @max_qp_wr: WRs of a QP's send or receive queue at most (power of two)
 * @max_cqe: CQEs of a CQ at most (power of two - 1)
 * @max_srq_wr: WRs of an SRQ at most (power of two)
 * @max_comp_vectors: completion vectors at most (one per online CPU up
 *		      to this, see sib_comp_vectors())
 */
struct sib_limits {
	u32 max_obj[SIB_NUM_OBJ];
	u32 max_qp_wr;
	u32 max_cqe;
	u32 max_srq_wr;
	u32 max_comp_vectors;
};

int sib_limits_check(void);
void sib_limits_get(struct sib_limits *lim);
int sib_obj_take(struct sib_dev *dev, enum sib_obj kind);
void sib_obj_release(struct sib_dev *dev, enum sib_obj kind);

#endif /* SIB_LIMITS_H */
