// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib_db: the doorbell file, /dev/softib_db.
 *
 * A send doorbell through the uverbs command file (RDMA_VERBS_IOCTL)
 * pays for the core's generic method dispatch: the ioctl header and
 * attribute copies, the method lookup, the attribute bundle, the object
 * lookup and its lock. On a QEMU guest that is most of the cost of a
 * doorbell and about a tenth of a small-message round trip. An ioctl on
 * a file of our own costs the system call and a few instructions.
 *
 * The file lives in this small module and not in softib.ko because an
 * open file pins the module that owns its file operations: softib must
 * stay removable (rdma link delete, rmmod) while processes keep their
 * files open, which the core allows through disassociation. Here softib
 * binds an open doorbell file to one of its user contexts
 * (sib_dbf_bind(), from a uverbs method, so the core has checked that
 * the caller owns that context); the file's ioctl calls softib's ring
 * function under the file's read lock; softib unbinds when the context
 * is freed (also when the device goes away), after which no call into
 * softib is made or in progress. This module never calls softib
 * otherwise, and softib.ko does not depend on it: softib finds these
 * functions with symbol_get() when a process binds a file.
 *
 * ABI (include/uapi/rdma/softib-abi.h): ioctl(fd, SIB_DBF_IOCTL_RING,
 * qp_num) rings the send doorbell of the bound context's QP qp_num.
 * Errors: ENOTCONN the file is not bound (or no longer: the context was
 * freed), ENOTTY another request; else those of the ring function.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/rwsem.h>
#include <rdma/softib-abi.h>

#include "dbfile.h"

/*
 * struct sib_dbf - an open doorbell file
 * @lock: read-held while a ring call runs; write-held to bind and unbind
 * @ops: the binder's functions, NULL while unbound
 * @cookie: the binder's argument for @ops
 * @used: bound once: a file serves one context only, so that none of the
 *	  processes holding a file (fork, SCM_RIGHTS) can point it at a
 *	  context of its own after the first one is gone
 */
struct sib_dbf {
	struct rw_semaphore lock;
	const struct sib_dbf_ops *ops;
	void *cookie;
	bool used;
};

static int sib_dbf_open(struct inode *inode, struct file *file)
{
	/* any user may open files: charged to the opener's memory cgroup */
	struct sib_dbf *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);

	if (!d)
		return -ENOMEM;
	init_rwsem(&d->lock);
	file->private_data = d;
	return nonseekable_open(inode, file);
}

/* the last reference is gone: a bound file holds one, so it is unbound */
static int sib_dbf_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static long sib_dbf_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct sib_dbf *d = file->private_data;
	long ret = -ENOTCONN;

	if (cmd != SIB_DBF_IOCTL_RING)
		return -ENOTTY;
	down_read(&d->lock);
	if (d->ops)
		ret = d->ops->ring(d->cookie, arg);
	up_read(&d->lock);
	return ret;
}

/*
 * One request, the ring; its argument is a number, not a pointer, so
 * 32-bit callers take the same entry. The owner is this module: an open
 * file pins softib_db.ko, never softib.ko.
 */
static const struct file_operations sib_dbf_fops = {
	.unlocked_ioctl = sib_dbf_ioctl, .compat_ioctl = sib_dbf_ioctl,
	.open = sib_dbf_open, .release = sib_dbf_release,
	.owner = THIS_MODULE,	/* no .llseek: nonseekable_open() */
};

/* any user may open it: an unbound file does nothing */
static struct miscdevice sib_dbf_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = SIB_DBF_NAME,
	.fops = &sib_dbf_fops,
	.mode = 0666,
};

/**
 * sib_dbf_bind() - bind an open doorbell file to a caller's context
 * @fd: file descriptor of the calling process (untrusted)
 * @ops: functions the file's ioctl calls from now on
 * @cookie: their first argument
 *
 * Context: process, may sleep. Return: the file, referenced until
 * sib_dbf_unbind(); ERR_PTR(-EBADF) @fd is not open, -EINVAL it is not a
 * doorbell file, -EBUSY the file is or was bound, -EPROTO @ops is of
 * another build (@ops->abi is not SIB_DBF_ABI: symbol_get() checks no
 * symbol versions).
 */
struct file *sib_dbf_bind(int fd, const struct sib_dbf_ops *ops, void *cookie)
{
	struct file *file;
	struct sib_dbf *d;
	int err = 0;

	if (ops->abi != SIB_DBF_ABI)
		return ERR_PTR(-EPROTO);
	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	if (file->f_op != &sib_dbf_fops) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	d = file->private_data;
	down_write(&d->lock);
	if (d->used) {
		err = -EBUSY;
	} else {
		d->ops = ops;
		d->cookie = cookie;
		d->used = true;
	}
	up_write(&d->lock);
	if (err) {
		fput(file);
		return ERR_PTR(err);
	}
	return file;
}
EXPORT_SYMBOL_GPL(sib_dbf_bind);

/**
 * sib_dbf_unbind() - undo sib_dbf_bind()
 * @file: what sib_dbf_bind() returned
 *
 * Waits for ring calls in progress; later ioctls answer ENOTCONN, for
 * good. Drops the file reference of the bind. Context: process, may
 * sleep.
 */
void sib_dbf_unbind(struct file *file)
{
	struct sib_dbf *d = file->private_data;

	down_write(&d->lock);
	d->ops = NULL;
	d->cookie = NULL;
	up_write(&d->lock);
	fput(file);
}
EXPORT_SYMBOL_GPL(sib_dbf_unbind);

static int __init sib_dbf_init(void)
{
	return misc_register(&sib_dbf_dev);
}

static void __exit sib_dbf_exit(void)
{
	misc_deregister(&sib_dbf_dev);
}

module_init(sib_dbf_init);
module_exit(sib_dbf_exit);
MODULE_DESCRIPTION("softib doorbell file (/dev/softib_db)");
MODULE_LICENSE("Dual BSD/GPL");
