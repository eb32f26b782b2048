/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_DOORBELL_H
#define SIB_DOORBELL_H

#include "softib.h"

/*
 * sib_uapi_defs - softib's driver-specific uverbs methods (the ioctl
 * doorbell), set as ib_device.driver_def before registration; the core
 * reads it when it builds the device's uverbs API. Constant data.
 */
extern const struct uapi_definition sib_uapi_defs[];

#endif /* SIB_DOORBELL_H */
