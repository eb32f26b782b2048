/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_AH_H
#define SIB_AH_H

#include "softib.h"

int sib_av_from_attr(struct sib_dev *dev, const struct rdma_ah_attr *attr,
		     struct sib_av *av);
int sib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int sib_destroy_ah(struct ib_ah *ibah, u32 flags);
int sib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sib_ah_copy_av(struct sib_dev *dev, struct ib_pd *pd, u32 ah_num,
		   struct sib_av *av);

#endif
