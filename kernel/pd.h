/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_PD_H
#define SIB_PD_H

#include <rdma/uverbs_ioctl.h>

#include "softib.h"

extern const struct uapi_definition sib_pd_uapi_defs[];

int sib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

#endif
