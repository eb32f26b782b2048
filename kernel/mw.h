/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_MW_H
#define SIB_MW_H

#include "softib.h"

/*
 * struct sib_mw - memory window (IBTA 10.6.7)
 * @lock: protects everything below it; taken inside dev->mw_xa's lock
 * @valid: bound (IBTA "Valid" state); a type 1 window bound with length
 *	 0, an invalidated type 2 window and a new window are free
 * @rkey: the current R_Key (ibmw.rkey is what user space was last told)
 * @mr: the MR the window is bound to, NULL while free; the bind counts
 *	in mr->num_mw, which keeps the MR registered
 * @qpn: type 2: number of the QP the window is bound to
 * @addr, @length, @access: the bound range and IB_ACCESS_* rights
 * @ref: engines hold a reference while they look at the window;
 *	dealloc waits for 0
 */
struct sib_mw {
	struct ib_mw ibmw;
	struct sib_dev *dev;
	spinlock_t lock;
	bool valid;
	u32 rkey;
	struct sib_mr *mr;
	u32 qpn;
	u64 addr;
	u64 length;
	int access;
	refcount_t ref;
	struct completion released;
};

/* remote access rights a window can grant */
#define SIB_MW_ACCESS (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
		       IB_ACCESS_REMOTE_ATOMIC)

int sib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sib_dealloc_mw(struct ib_mw *ibmw);

u8 sib_mw_bind(struct sib_qp *qp, const struct sib_send_wqe *w);
int sib_key_invalidate(struct sib_qp *qp, u32 key);
struct sib_mr *sib_rkey_get(struct sib_qp *qp, struct ib_pd *pd, u32 rkey,
			    int access, u64 va, u32 len);
int sib_mw_check(u64 mw_addr, u64 mw_len, int mw_access, u64 va, u64 len,
		 int access);
int sib_mw_bind_check(int mw_type, bool bound, u32 old_rkey, u32 new_rkey,
		      u64 mr_iova, u64 mr_len, int mr_access, u64 addr,
		      u64 len, int access);

#endif
