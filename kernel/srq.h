/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_SRQ_H
#define SIB_SRQ_H

#include "softib.h"

/* engine side: SRQ lookup by number (XRC) and receive WQE fetch */
struct sib_srq *sib_srq_get(struct sib_dev *dev, u32 srqn);
struct sib_srq *sib_xrc_srq_get(struct sib_qp *qp, u32 srqn);
void sib_srq_put(struct sib_srq *srq);
int sib_srq_fetch(struct sib_srq *srq, struct sib_rwqe *rw);

/* verbs: XRC domains */
int sib_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sib_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* verbs: shared receive queues */
int sib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int sib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

#endif
