// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* softib: protection domains. */
#include "pd.h"

/**
 * sib_alloc_pd() - ib_device_ops.alloc_pd
 * @ibpd: core-allocated PD
 * @udata: user data or NULL; no driver data is defined either way
 *
 * Context: process. Return: 0, -ENOMEM when the PD limit is reached.
 */
int sib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return sib_obj_take(to_sib_dev(ibpd->device), SIB_OBJ_PD);
}

/**
 * sib_dealloc_pd() - ib_device_ops.dealloc_pd
 * @ibpd: the PD; the core guarantees no object uses it any more
 * @udata: unused
 *
 * Context: process. Return: 0.
 */
int sib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	sib_obj_release(to_sib_dev(ibpd->device), SIB_OBJ_PD);
	return 0;
}
