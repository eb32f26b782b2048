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

#include <linux/file.h>
#include <linux/module.h>

#include "doorbell.h"
#include "dbfile.h"
#include "hdr.h"
#include "qpcore.h"
#include "task.h"
#include "counters.h"

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

/*
 * The doorbell file (softib-abi.h, dbfile.c). Its ring calls find the QP
 * by number among the QPs of the context the file is bound to, so a
 * process reaches only its own QPs, as with the ioctl doorbell; the QP
 * lookup takes a reference under the table's lock, and destroy_qp takes
 * the QP out of the table before it waits for its references.
 */

/* a ring call of the bound file; Context: process, the file's read lock */
static int sib_db_file_ring(void *cookie, unsigned long qpn)
{
	struct sib_ucontext *uc = cookie;
	struct sib_qp *qp = NULL;
	int err;

	if (qpn <= SIB_QPN_MASK) {
		xa_lock(&uc->db_qps);
		qp = xa_load(&uc->db_qps, qpn);
		if (qp && !refcount_inc_not_zero(&qp->ref))
			qp = NULL;
		xa_unlock(&uc->db_qps);
	}
	if (!qp)
		return -ENOENT;
	err = sib_qp_sq_doorbell(qp);
	if (!err)
		sib_counter_inc(qp->dev, SIB_CNT_SQ_DOORBELLS_FILE);
	sib_qp_put(qp);
	return err;
}

static const struct sib_dbf_ops sib_db_file_ops = {
	.abi = SIB_DBF_ABI,
	.ring = sib_db_file_ring,
};

static int UVERBS_HANDLER(SIB_METHOD_DB_BIND)(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ibuc = ib_uverbs_get_ucontext(attrs);
	struct file *(*bind)(int fd, const struct sib_dbf_ops *ops,
			     void *cookie);
	void (*unbind)(struct file *file);
	struct sib_ucontext *uc;
	struct file *file;
	int fd, err;

	if (IS_ERR(ibuc))
		return PTR_ERR(ibuc);
	uc = to_sib_uc(ibuc);
	err = uverbs_get_raw_fd(&fd, attrs, SIB_ATTR_DB_BIND_FD);
	if (err)
		return err;
	/*
	 * softib.ko does not depend on softib_db.ko: the functions are
	 * looked up, and the module held, while a file is bound
	 */
	bind = symbol_get(sib_dbf_bind);
	if (!bind)
		return -EOPNOTSUPP;
	unbind = symbol_get(sib_dbf_unbind);
	if (!unbind) {
		symbol_put(sib_dbf_bind);
		return -EOPNOTSUPP;
	}
	mutex_lock(&uc->db_lock);
	file = uc->db_file ? ERR_PTR(-EBUSY) : bind(fd, &sib_db_file_ops, uc);
	if (!IS_ERR(file)) {
		uc->db_file = file;
		uc->db_unbind = unbind;
	}
	mutex_unlock(&uc->db_lock);
	symbol_put(sib_dbf_bind);
	if (IS_ERR(file)) {
		symbol_put(sib_dbf_unbind);
		return PTR_ERR(file);
	}
	return 0;
}

/**
 * sib_db_file_unbind() - end the context's doorbell file binding
 * @uc: ucontext being freed (dealloc_ucontext)
 *
 * Waits for ring calls in progress; afterwards the file calls nothing
 * of softib. Context: process, may sleep. Idempotent.
 */
void sib_db_file_unbind(struct sib_ucontext *uc)
{
	void (*unbind)(struct file *file);
	struct file *file;

	mutex_lock(&uc->db_lock);
	file = uc->db_file;
	unbind = uc->db_unbind;
	uc->db_file = NULL;
	uc->db_unbind = NULL;
	mutex_unlock(&uc->db_lock);
	if (!file)
		return;
	unbind(file);
	symbol_put(sib_dbf_unbind);
}

/**
 * sib_db_qp_add() - let the context's doorbell file name a QP
 * @qp: new user QP with a send ring
 * @uc: its ucontext
 *
 * Context: process (create_qp). Return: 0, -ENOMEM, -EBUSY (the number
 * is in the table already: a bug).
 */
int sib_db_qp_add(struct sib_qp *qp, struct sib_ucontext *uc)
{
	int err = xa_insert(&uc->db_qps, qp->ibqp.qp_num, qp, GFP_KERNEL);

	if (!err)
		qp->db_uc = uc;
	return err;
}

/**
 * sib_db_qp_del() - the doorbell file no longer finds @qp
 * @qp: QP being destroyed, or whose creation failed
 *
 * A ring call that found @qp before holds a reference, which destroy_qp
 * waits for. Context: process.
 */
void sib_db_qp_del(struct sib_qp *qp)
{
	if (!qp->db_uc)
		return;
	xa_erase(&qp->db_uc->db_qps, qp->ibqp.qp_num);
	qp->db_uc = NULL;
}

DECLARE_UVERBS_NAMED_METHOD(
	SIB_METHOD_DB_BIND,
	UVERBS_ATTR_RAW_FD(SIB_ATTR_DB_BIND_FD, UA_MANDATORY));

ADD_UVERBS_METHODS(sib_device_methods, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(SIB_METHOD_DB_BIND));

/* ib_device.driver_def of every softib device */
const struct uapi_definition sib_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &sib_qp_methods),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sib_device_methods),
	{},
};
