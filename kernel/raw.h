/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_RAW_H
#define SIB_RAW_H

#include "softib.h"

struct sib_qp;
struct sib_swqe;

struct ib_flow *sib_create_flow(struct ib_qp *ibqp, struct ib_flow_attr *attr,
				struct ib_udata *udata);
int sib_destroy_flow(struct ib_flow *ibflow);
void sib_raw_dev_init(struct sib_dev *dev);
void sib_raw_netdev_gone(struct sib_dev *dev);
int sib_raw_xmit(struct sib_qp *qp, struct sib_swqe *sw);
void sib_raw_rcv(struct sib_qp *qp, struct sk_buff *skb);
void sib_raw_place(struct sib_qp *qp, struct ib_pd *pd,
		   const struct sib_rwqe *rw, struct sk_buff *skb,
		   struct sib_cqe *c);

#endif /* SIB_RAW_H */
