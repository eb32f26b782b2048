/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_CQ_H
#define SIB_CQ_H

#include "compat.h"
#include "softib.h"

int sib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  sib_cq_uarg_t *uarg);
int sib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int sib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sib_comp_vectors(const struct sib_limits *lim);
const struct cpumask *sib_get_vector_affinity(struct ib_device *ibdev,
					      int comp_vector);
int sib_cq_post(struct sib_cq *cq, const struct sib_cqe *cqe,
		struct ib_qp *ibqp, bool solicited);

#endif
