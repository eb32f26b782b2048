/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_DBFILE_H
#define SIB_DBFILE_H

#include <linux/fs.h>

/* changes with struct sib_dbf_ops or the functions below */
#define SIB_DBF_ABI	1

/*
 * struct sib_dbf_ops - what a bound doorbell file calls (dbfile.c)
 * @abi: SIB_DBF_ABI of the binder's build
 * @ring: the file's SIB_DBF_IOCTL_RING ioctl with its argument; process
 *	  context, may sleep; returns 0 or a negative errno for ioctl()
 */
struct sib_dbf_ops {
	unsigned int abi;
	int (*ring)(void *cookie, unsigned long arg);
};

/* exported by softib_db.ko; softib.ko finds them with symbol_get() */
struct file *sib_dbf_bind(int fd, const struct sib_dbf_ops *ops, void *cookie);
void sib_dbf_unbind(struct file *file);

#endif /* SIB_DBFILE_H */
