/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_DOORBELL_H
#define SIB_DOORBELL_H

#include "softib.h"

/*
 * sib_uapi_defs - softib's driver-specific uverbs methods (the ioctl
 * doorbell, the doorbell file's bind), set as ib_device.driver_def
 * before registration; the core reads it when it builds the device's
 * uverbs API. Constant data.
 */
extern const struct uapi_definition sib_uapi_defs[];

void sib_db_file_unbind(struct sib_ucontext *uc);
int sib_db_qp_add(struct sib_qp *qp, struct sib_ucontext *uc);
void sib_db_qp_del(struct sib_qp *qp);

#endif /* SIB_DOORBELL_H */
