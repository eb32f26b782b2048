// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: memory windows (IBTA 10.6.7). A window is a remote-access
 * grant over a range of an MR with IB_ACCESS_MW_BIND. R_Key = index << 8
 * | key byte, with the index above the MR indices (SIB_MW_KEY_BIT), so
 * one look at the key tells a window from an MR.
 *
 * Type 1 windows are bound by ibv_bind_mw() and type 2 (type 2B: bound
 * to one QP) by an IB_WR_BIND_MW work request; both arrive here as a
 * bind WQE that the requester executes in order on the send queue. The
 * consumer owns the key byte: a bind must keep the index. Type 1 is
 * unbound by a zero-length bind, type 2 by Local Invalidate or Send with
 * Invalidate (IBTA 10.6.7.2.5, 9.4.1.1). The responder resolves every
 * R_Key of an RDMA READ, WRITE or atomic through sib_rkey_get().
 *
 * Lifetime: a bound window counts in its MR's num_mw, which keeps the
 * MR registered; engines reference the window only inside sib_rkey_get()
 * and a bind or invalidation, and dealloc waits for them.
 */
#include <linux/random.h>
#include <rdma/ib_verbs.h>

#include "mw.h"
#include "mr.h"

static inline struct sib_mw *to_sib_mw(struct ib_mw *mw)
{
	return container_of(mw, struct sib_mw, ibmw);
}

/**
 * sib_mw_check() - may an access use a window? (pure)
 * @mw_addr: first byte of the bound range
 * @mw_len: bytes of the bound range
 * @mw_access: IB_ACCESS_* rights of the bind
 * @va: first byte accessed
 * @len: bytes accessed
 * @access: IB_ACCESS_REMOTE_* rights the access needs
 *
 * IBTA 10.6.7.2: the range must lie inside the window and the
 * window must grant every right needed. Context: any. Return: 0,
 * -EACCES (rights), -ERANGE (range).
 */
int sib_mw_check(u64 mw_addr, u64 mw_len, int mw_access, u64 va, u64 len,
		 int access)
{
	if ((mw_access & access) != access)
		return -EACCES;
	if (va < mw_addr || len > mw_len || va - mw_addr > mw_len - len)
		return -ERANGE;
	return 0;
}

/**
 * sib_mw_bind_check() - the rules of a bind request (pure)
 * @mw_type: IB_MW_TYPE_1 or IB_MW_TYPE_2
 * @bound: the window is in the Valid state now
 * @old_rkey: the window's current R_Key
 * @new_rkey: R_Key of the bind WQE
 * @mr_iova: I/O virtual address of the MR (ignored when @len is 0)
 * @mr_len: length of the MR
 * @mr_access: IB_ACCESS_* of the MR
 * @addr: first byte to bind
 * @len: bytes to bind (0: unbind for type 1)
 * @access: IB_ACCESS_* rights to grant
 *
 * IBTA 10.6.7.2: the key index cannot change; a type 2 window must be
 * free; only remote rights can be granted (LOCAL_WRITE is accepted and
 * means nothing for a window); remote write or atomic rights need an MR
 * with local write; the range must lie inside the MR. Zero-based windows
 * are not offered. Context: any. Return: 0, -EINVAL, -EACCES, -ERANGE,
 * -EOPNOTSUPP.
 */
int sib_mw_bind_check(int mw_type, bool bound, u32 old_rkey, u32 new_rkey,
		      u64 mr_iova, u64 mr_len, int mr_access, u64 addr,
		      u64 len, int access)
{
	if ((old_rkey >> 8) != (new_rkey >> 8))
		return -EINVAL;
	if (mw_type == IB_MW_TYPE_2 && bound)
		return -EINVAL;
	if (access & IB_ZERO_BASED)
		return -EOPNOTSUPP;
	if (access & ~(SIB_MW_ACCESS | IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (!len)
		return 0;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr_access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	if (addr < mr_iova || len > mr_len || addr - mr_iova > mr_len - len)
		return -ERANGE;
	return 0;
}

/* look a window up by the index of @key and reference it */
static struct sib_mw *sib_mw_get(struct sib_dev *dev, u32 key)
{
	struct sib_mw *mw;

	if (!(key & SIB_MW_KEY_BIT))
		return NULL;
	xa_lock_bh(&dev->mw_xa);
	mw = xa_load(&dev->mw_xa, key >> 8);
	if (mw && !refcount_inc_not_zero(&mw->ref))
		mw = NULL;
	xa_unlock_bh(&dev->mw_xa);
	return mw;
}

static void sib_mw_put(struct sib_mw *mw)
{
	if (refcount_dec_and_test(&mw->ref))
		complete(&mw->released);
}

/**
 * sib_alloc_mw() - ib_device_ops.alloc_mw
 * @ibmw: core-allocated window; ibmw->type is IB_MW_TYPE_1 or _2
 * @udata: user data (no driver data defined)
 *
 * The window starts free, with an R_Key of a random key byte.
 * Context: process. Return: 0, -EINVAL, -EOPNOTSUPP, -ENOMEM.
 */
int sib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibmw->device);
	struct sib_mw *mw = to_sib_mw(ibmw);
	u8 key;
	u32 idx;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EOPNOTSUPP;
	err = sib_obj_take(dev, SIB_OBJ_MW);
	if (err)
		return err;
	mw->dev = dev;
	spin_lock_init(&mw->lock);
	refcount_set(&mw->ref, 1);
	init_completion(&mw->released);
	get_random_bytes(&key, 1);
	mw->rkey = key;
	err = xa_alloc_cyclic_bh(&dev->mw_xa, &idx, mw,
			      XA_LIMIT(SIB_MW_KEY_BIT >> 8, 0x00ffffff),
			      &dev->next_mw, GFP_KERNEL);
	if (err < 0) {
		sib_obj_release(dev, SIB_OBJ_MW);
		return err;
	}
	spin_lock_bh(&mw->lock);
	mw->rkey |= idx << 8;
	ibmw->rkey = mw->rkey;
	spin_unlock_bh(&mw->lock);
	return 0;
}

/**
 * sib_dealloc_mw() - ib_device_ops.dealloc_mw
 * @ibmw: window; bound or not
 *
 * Unpublishes the window, waits until no engine looks at it and unbinds
 * it from its MR. Context: process. Return: 0.
 */
int sib_dealloc_mw(struct ib_mw *ibmw)
{
	struct sib_mw *mw = to_sib_mw(ibmw);
	struct sib_dev *dev = mw->dev;

	xa_erase_bh(&dev->mw_xa, mw->rkey >> 8);
	sib_mw_put(mw);
	wait_for_completion(&mw->released);
	if (mw->mr)
		sib_mr_bind_put(mw->mr);
	mw->mr = NULL;
	mw->valid = false;
	sib_obj_release(dev, SIB_OBJ_MW);
	return 0;
}

/**
 * sib_mw_bind() - execute a bind WQE (IBTA 10.6.7.2.2 / 10.6.7.2.3)
 * @qp: the QP whose send queue holds the WQE; a type 2 window is bound
 *	to it
 * @w: validated copy of the WQE: wr.bind.rkey names the window and is
 *     its new R_Key, wr.bind.mr_lkey/addr/length/access the grant
 *
 * Context: the QP's run. Return: IB_WC_SUCCESS or IB_WC_MW_BIND_ERR.
 */
u8 sib_mw_bind(struct sib_qp *qp, const struct sib_send_wqe *w)
{
	struct sib_dev *dev = qp->dev;
	struct sib_mr *mr = NULL, *old = NULL;
	u64 len = w->wr.bind.length;
	struct sib_mw *mw;
	int err;

	mw = sib_mw_get(dev, w->wr.bind.rkey);
	if (!mw)
		return IB_WC_MW_BIND_ERR;
	if (mw->ibmw.pd != qp->ibqp.pd)
		goto fail;
	if (len) {
		mr = sib_mr_bind_get(dev, qp->ibqp.pd, w->wr.bind.mr_lkey);
		if (!mr)
			goto fail;
	}
	spin_lock_bh(&mw->lock);
	err = sib_mw_bind_check(mw->ibmw.type, mw->valid, mw->rkey,
				w->wr.bind.rkey, mr ? mr->iova : 0,
				mr ? mr->length : 0,
				mr ? READ_ONCE(mr->access) : 0,
				w->wr.bind.addr, len, w->wr.bind.access);
	if (!err) {
		old = mw->mr;
		mw->mr = mr;
		mw->addr = w->wr.bind.addr;
		mw->length = len;
		mw->access = w->wr.bind.access & SIB_MW_ACCESS;
		mw->qpn = qp->ibqp.qp_num;
		mw->rkey = w->wr.bind.rkey;
		mw->ibmw.rkey = mw->rkey;
		mw->valid = len || mw->ibmw.type == IB_MW_TYPE_2;
	}
	spin_unlock_bh(&mw->lock);
	if (err)
		goto fail;
	if (old)
		sib_mr_bind_put(old);
	sib_mw_put(mw);
	return IB_WC_SUCCESS;

fail:
	if (mr)
		sib_mr_bind_put(mr);
	sib_mw_put(mw);
	return IB_WC_MW_BIND_ERR;
}

/**
 * sib_key_invalidate() - Local Invalidate or Send with Invalidate
 * @qp: the QP executing the invalidation (requester for LOCAL_INV,
 *	responder for SEND_WITH_INV)
 * @key: R_Key of a type 2 window bound to @qp, or key of a valid
 *	 fast-registration MR of @qp's PD (untrusted)
 *
 * IBTA 10.6.7.2.5 and 10.6.5: type 1 windows and ordinary MRs cannot be
 * invalidated. Context: the QP's run. Return: 0 or -EINVAL.
 */
int sib_key_invalidate(struct sib_qp *qp, u32 key)
{
	struct sib_mr *old = NULL;
	struct sib_mw *mw;
	int err = -EINVAL;

	if (!(key & SIB_MW_KEY_BIT))
		return sib_mr_invalidate(qp->dev, qp->ibqp.pd, key);
	mw = sib_mw_get(qp->dev, key);
	if (!mw)
		return -EINVAL;
	spin_lock_bh(&mw->lock);
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->valid && mw->rkey == key &&
	    mw->ibmw.pd == qp->ibqp.pd && mw->qpn == qp->ibqp.qp_num) {
		old = mw->mr;
		mw->mr = NULL;
		mw->valid = false;
		err = 0;
	}
	spin_unlock_bh(&mw->lock);
	if (old)
		sib_mr_bind_put(old);
	sib_mw_put(mw);
	return err;
}

/**
 * sib_rkey_get() - resolve the R_Key of a remote access
 * @qp: responder QP
 * @pd: PD the key must belong to: the QP's, or an XRC target's SRQ's
 * @rkey: R_Key from the RETH or AtomicETH (untrusted)
 * @access: IB_ACCESS_REMOTE_* the access needs
 * @va: address from the packet
 * @len: bytes accessed from @va
 *
 * An MR key is checked as by sib_mr_get() and must cover [@va, @va +
 * @len) (IBTA 9.7.4.1.8: the whole request's range). A window
 * key must name a valid window with this key byte, in the QP's PD, bound
 * to this QP when of type 2, granting @access over [@va, @va + @len)
 * (IBTA 9.7.4.1.8 / 10.6.7). A refusal counts as rkey_violation.
 * Context: the QP's run. Return: the referenced MR to copy through
 * (sib_mr_put()), or NULL: NAK with remote access error.
 */
struct sib_mr *sib_rkey_get(struct sib_qp *qp, struct ib_pd *pd, u32 rkey,
			    int access, u64 va, u32 len)
{
	struct sib_mr *mr = NULL;
	struct sib_mw *mw;

	if (!(rkey & SIB_MW_KEY_BIT)) {
		mr = sib_mr_get_cached(qp->dev, &qp->mr_cache, pd, rkey,
				       access);
		if (mr && !sib_mr_in_range(mr, va, len)) {
			sib_mr_put(mr);
			mr = NULL;
		}
		if (!mr)
			sib_counter_inc(qp->dev, SIB_CNT_RKEY_ERR);
		return mr;
	}
	mw = sib_mw_get(qp->dev, rkey);
	if (!mw) {
		sib_counter_inc(qp->dev, SIB_CNT_RKEY_ERR);
		return NULL;
	}
	spin_lock_bh(&mw->lock);
	if (mw->valid && mw->mr && mw->rkey == rkey &&
	    mw->ibmw.pd == pd &&
	    (mw->ibmw.type == IB_MW_TYPE_1 || mw->qpn == qp->ibqp.qp_num) &&
	    !sib_mw_check(mw->addr, mw->length, mw->access, va, len, access) &&
	    refcount_inc_not_zero(&mw->mr->ref))
		mr = mw->mr;
	spin_unlock_bh(&mw->lock);
	sib_mw_put(mw);
	if (!mr)
		sib_counter_inc(qp->dev, SIB_CNT_RKEY_ERR);
	return mr;
}
