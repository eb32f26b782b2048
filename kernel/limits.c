// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the limits a user can raise (or lower). Each is a read-only
 * module parameter, checked against its range when the module loads (a
 * value out of range fails the load with -EINVAL and says why), and
 * copied into every device when it is created: query_device reports the
 * device's copy and the create verbs enforce it.
 *
 * Live objects are counted per device and kind. Creating one more than
 * the limit fails with -ENOMEM, as on a NIC whose tables are full, and
 * counts in the kind's <kind>_limit_exceeded counter (`rdma statistic`),
 * so that a job failing at start-up can tell which parameter to raise.
 * Queues larger than max_qp_wr, max_cqe or max_srq_wr stay -EINVAL: a
 * request out of the device's range, not a device out of resources.
 */
#include <linux/module.h>
#include <linux/log2.h>

#include "softib.h"
#include "mr.h"

static unsigned int max_qp = SIB_MAX_QP;
static unsigned int max_cq = SIB_MAX_CQ;
static unsigned int max_mr = SIB_MAX_MR;
static unsigned int max_srq = SIB_MAX_SRQ;
static unsigned int max_pd = SIB_MAX_PD;
static unsigned int max_ah = SIB_MAX_AH;
static unsigned int max_mw = SIB_MAX_MW;
static unsigned int max_qp_wr = SIB_MAX_QP_WR;
static unsigned int max_cqe = SIB_MAX_CQE;
static unsigned int max_srq_wr = SIB_MAX_SRQ_WR;
static unsigned int max_comp_vectors = SIB_MAX_COMP_VECTORS;

/* "(default D, L..H)" for MODULE_PARM_DESC, from the params.h numbers */
#define SIB_RANGE(def, lo, hi) \
	" (default " __stringify(def) ", " __stringify(lo) ".." __stringify(hi) ")"

module_param(max_qp, uint, 0444);
MODULE_PARM_DESC(max_qp, "QPs per device, QP1 included" SIB_RANGE(SIB_MAX_QP, 1, SIB_LIM_QP));
module_param(max_cq, uint, 0444);
MODULE_PARM_DESC(max_cq, "CQs per device" SIB_RANGE(SIB_MAX_CQ, 1, SIB_LIM_CQ));
module_param(max_mr, uint, 0444);
MODULE_PARM_DESC(max_mr, "MRs per device, DMA and fast-registration MRs included"
		 SIB_RANGE(SIB_MAX_MR, 1, SIB_LIM_MR));
module_param(max_srq, uint, 0444);
MODULE_PARM_DESC(max_srq, "SRQs per device, XRC SRQs included"
		 SIB_RANGE(SIB_MAX_SRQ, 1, SIB_LIM_SRQ));
module_param(max_pd, uint, 0444);
MODULE_PARM_DESC(max_pd, "PDs per device" SIB_RANGE(SIB_MAX_PD, 1, SIB_LIM_PD));
module_param(max_ah, uint, 0444);
MODULE_PARM_DESC(max_ah, "AHs per device, the kernel's included"
		 SIB_RANGE(SIB_MAX_AH, 1, SIB_LIM_AH));
module_param(max_mw, uint, 0444);
MODULE_PARM_DESC(max_mw, "memory windows per device" SIB_RANGE(SIB_MAX_MW, 1, SIB_LIM_MW));
module_param(max_qp_wr, uint, 0444);
MODULE_PARM_DESC(max_qp_wr, "WRs per QP send or receive queue, a power of two"
		 SIB_RANGE(SIB_MAX_QP_WR, SIB_LIM_QP_WR_MIN, SIB_LIM_QP_WR));
module_param(max_cqe, uint, 0444);
MODULE_PARM_DESC(max_cqe, "CQEs per CQ, a power of two minus 1"
		 SIB_RANGE(SIB_MAX_CQE, SIB_LIM_CQE_MIN, SIB_LIM_CQE));
module_param(max_srq_wr, uint, 0444);
MODULE_PARM_DESC(max_srq_wr, "WRs per SRQ, a power of two"
		 SIB_RANGE(SIB_MAX_SRQ_WR, 1, SIB_LIM_SRQ_WR));
module_param(max_comp_vectors, uint, 0444);
MODULE_PARM_DESC(max_comp_vectors, "completion vectors per device at most; a device has one per online CPU up to this"
		 SIB_RANGE(SIB_MAX_COMP_VECTORS, 1, SIB_LIM_COMP_VECTORS));

/* the bounds match the number spaces they are taken from */
static_assert(SIB_LIM_QP == SIB_MAX_QPN - SIB_MIN_QPN + 1 + 1);
static_assert(SIB_LIM_SRQ == SIB_MAX_SRQN - SIB_MIN_SRQN + 1);
static_assert(SIB_LIM_MR == (SIB_MW_KEY_BIT >> 8) - 1);
static_assert(SIB_LIM_MW == 0x00ffffff - (SIB_MW_KEY_BIT >> 8) + 1);
/* every bound fits the int fields of struct ib_device_attr */
static_assert((u64)SIB_MAX_QP_RD_ATOM * SIB_LIM_QP <= INT_MAX);

enum sib_lim_shape {
	SIB_LIM_ANY,
	SIB_LIM_POW2,		/* a power of two */
	SIB_LIM_POW2_M1,	/* a power of two minus 1 */
};

struct sib_lim_param {
	const char *name;
	unsigned int *val;
	unsigned int lo, hi;
	enum sib_lim_shape shape;
};

/* the object limits in enum sib_obj order, then the queue sizes */
static const struct sib_lim_param sib_lim_params[] = {
	[SIB_OBJ_QP] = { "max_qp", &max_qp, 1, SIB_LIM_QP },
	[SIB_OBJ_CQ] = { "max_cq", &max_cq, 1, SIB_LIM_CQ },
	[SIB_OBJ_MR] = { "max_mr", &max_mr, 1, SIB_LIM_MR },
	[SIB_OBJ_SRQ] = { "max_srq", &max_srq, 1, SIB_LIM_SRQ },
	[SIB_OBJ_PD] = { "max_pd", &max_pd, 1, SIB_LIM_PD },
	[SIB_OBJ_AH] = { "max_ah", &max_ah, 1, SIB_LIM_AH },
	[SIB_OBJ_MW] = { "max_mw", &max_mw, 1, SIB_LIM_MW },
	{ "max_qp_wr", &max_qp_wr, SIB_LIM_QP_WR_MIN, SIB_LIM_QP_WR, SIB_LIM_POW2 },
	{ "max_cqe", &max_cqe, SIB_LIM_CQE_MIN, SIB_LIM_CQE, SIB_LIM_POW2_M1 },
	{ "max_srq_wr", &max_srq_wr, 1, SIB_LIM_SRQ_WR, SIB_LIM_POW2 },
	{ "max_comp_vectors", &max_comp_vectors, 1, SIB_LIM_COMP_VECTORS },
};

/* the counter of the creates each kind's limit refused */
static const enum sib_counter sib_obj_counter[SIB_NUM_OBJ] = {
	[SIB_OBJ_QP] = SIB_CNT_QP_LIMIT,
	[SIB_OBJ_CQ] = SIB_CNT_CQ_LIMIT,
	[SIB_OBJ_MR] = SIB_CNT_MR_LIMIT,
	[SIB_OBJ_SRQ] = SIB_CNT_SRQ_LIMIT,
	[SIB_OBJ_PD] = SIB_CNT_PD_LIMIT,
	[SIB_OBJ_AH] = SIB_CNT_AH_LIMIT,
	[SIB_OBJ_MW] = SIB_CNT_MW_LIMIT,
};

static int sib_lim_param_check(const struct sib_lim_param *p)
{
	unsigned int v = *p->val;

	if (v < p->lo || v > p->hi) {
		pr_err("softib: %s=%u is out of range %u..%u\n", p->name, v,
		       p->lo, p->hi);
		return -EINVAL;
	}
	if (p->shape == SIB_LIM_POW2 && !is_power_of_2(v)) {
		pr_err("softib: %s=%u is not a power of two (%lu or %lu?)\n",
		       p->name, v, rounddown_pow_of_two(v),
		       roundup_pow_of_two(v));
		return -EINVAL;
	}
	if (p->shape == SIB_LIM_POW2_M1 && !is_power_of_2(v + 1)) {
		pr_err("softib: %s=%u is not a power of two minus 1 (%lu or %lu?)\n",
		       p->name, v, rounddown_pow_of_two(v + 1) - 1,
		       roundup_pow_of_two(v + 1) - 1);
		return -EINVAL;
	}
	return 0;
}

/**
 * sib_limits_check() - check every limit parameter against its range
 * @void: no arguments
 *
 * Called first by the module's init: a bad value fails the load, with
 * one line per bad parameter in the kernel log.
 * Context: process (module init). Return: 0 or -EINVAL.
 */
int sib_limits_check(void)
{
	int i, err = 0;

	for (i = 0; i < ARRAY_SIZE(sib_lim_params); i++)
		if (sib_lim_param_check(&sib_lim_params[i]))
			err = -EINVAL;
	return err;
}

/**
 * sib_limits_get() - the limits a new device gets: the parameters' values
 * @lim: out
 *
 * The parameters are read-only after the load, so all devices of one
 * load of the module have the same limits; a device reads them once, at
 * creation, and never again.
 * Context: any.
 */
void sib_limits_get(struct sib_limits *lim)
{
	int i;

	for (i = 0; i < SIB_NUM_OBJ; i++)
		lim->max_obj[i] = *sib_lim_params[i].val;
	lim->max_qp_wr = max_qp_wr;
	lim->max_cqe = max_cqe;
	lim->max_srq_wr = max_srq_wr;
	lim->max_comp_vectors = max_comp_vectors;
}

/**
 * sib_obj_take() - count one more live object of a kind against its limit
 * @dev: device
 * @kind: kind of object being created
 *
 * At the limit nothing is counted, the kind's _limit_exceeded counter
 * goes up and the kernel log says which parameter it was (rate limited).
 * Exact under concurrent creates and destroys: the count never goes
 * past the limit, not even for a moment. Undo with sib_obj_release().
 * Context: any (kernel AHs are created in atomic context).
 * Return: 0, or -ENOMEM at the limit.
 */
int sib_obj_take(struct sib_dev *dev, enum sib_obj kind)
{
	u32 max = dev->lim.max_obj[kind];

	if (atomic_add_unless(&dev->live[kind], 1, max))
		return 0;
	sib_counter_inc(dev, sib_obj_counter[kind]);
	ibdev_info_ratelimited(&dev->ibdev,
			       "%s=%u reached, create refused (module parameter softib.%s)\n",
			       sib_lim_params[kind].name, max,
			       sib_lim_params[kind].name);
	return -ENOMEM;
}

/**
 * sib_obj_release() - count one live object of a kind less
 * @dev: device
 * @kind: kind of the object destroyed (or not created after all)
 *
 * Context: any.
 */
void sib_obj_release(struct sib_dev *dev, enum sib_obj kind)
{
	atomic_dec(&dev->live[kind]);
}
