/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_MCAST_H
#define SIB_MCAST_H

#include "softib.h"

int sib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sib_mcast_init(struct sib_dev *dev);
void sib_mcast_cleanup(struct sib_dev *dev);
u32 sib_mcast_qpns(struct sib_dev *dev, const union ib_gid *mgid, u32 *qpn);

#endif
