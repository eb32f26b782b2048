// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* softib: protection domains. */
#define UVERBS_MODULE_NAME softib
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

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

/*
 * SIB_METHOD_PD_QUERY (softib-abi.h): ibv_import_pd's check that a handle
 * names a PD of the calling context. The core looked the handle up in the
 * context's own objects before this runs; there is nothing to answer.
 */
static int UVERBS_HANDLER(SIB_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uverbs_attr_get_obj(attrs, SIB_ATTR_PD_QUERY_HANDLE);

	return PTR_ERR_OR_ZERO(pd);
}

DECLARE_UVERBS_NAMED_METHOD(
	SIB_METHOD_PD_QUERY,
	UVERBS_ATTR_IDR(SIB_ATTR_PD_QUERY_HANDLE, UVERBS_OBJECT_PD,
			UVERBS_ACCESS_READ, UA_MANDATORY));

ADD_UVERBS_METHODS(sib_pd_methods, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(SIB_METHOD_PD_QUERY));

/* part of ib_device.driver_def (device.c) */
const struct uapi_definition sib_pd_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &sib_pd_methods),
	{},
};
