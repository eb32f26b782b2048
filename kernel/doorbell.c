// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the ioctl doorbell, a driver method of the uverbs QP object
 * (SIB_METHOD_QP_DOORBELL, softib-abi.h). A provider rings it instead of
 * writing a zero-WR post_send command: the RDMA_VERBS_IOCTL path of the
 * core skips that command's copies, its WR buffer (a kmalloc that
 * init_on_alloc clears) and its response, and vfs_write's hooks.
 *
 * Lifetimes are the core's: it resolves the handle in the calling
 * file's own object table (so no process reaches another's QP), holds
 * the QP's uobject for reading while the handler runs (destroy_qp then
 * fails with EBUSY, as for every other command on the QP), and runs the
 * method inside the file's disassociation SRCU, so a device that goes
 * away (rdma link delete, rmmod) answers EIO and the module never has
 * code behind an open file of its own.
 */
#define UVERBS_MODULE_NAME softib
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>

#include "doorbell.h"
#include "qp.h"

static int UVERBS_HANDLER(SIB_METHOD_QP_DOORBELL)(struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 SIB_ATTR_QP_DOORBELL_HANDLE);
	struct sib_qp *qp;
	int err;

	if (IS_ERR(ibqp))
		return PTR_ERR(ibqp);
	/* an opened XRC target QP is a core shell around the real one */
	qp = to_sib_qp(ibqp->real_qp);
	err = sib_qp_sq_doorbell(qp);
	if (!err)
		sib_counter_inc(qp->dev, SIB_CNT_SQ_DOORBELLS_IOCTL);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(
	SIB_METHOD_QP_DOORBELL,
	UVERBS_ATTR_IDR(SIB_ATTR_QP_DOORBELL_HANDLE, UVERBS_OBJECT_QP,
			UVERBS_ACCESS_READ, UA_MANDATORY));

ADD_UVERBS_METHODS(sib_qp_methods, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(SIB_METHOD_QP_DOORBELL));

/* ib_device.driver_def of every softib device */
const struct uapi_definition sib_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &sib_qp_methods),
	{},
};
