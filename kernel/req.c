// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the requester (IBTA 9.5/9.7). Turns shadow send WQEs into
 * request packets: segments by path MTU, assigns PSNs, asks for ACKs,
 * keeps the number of unacknowledged packets and outstanding RDMA READs
 * bounded. UD and UC sends complete as soon as they are on the wire.
 * Runs only in the QP's work.
 */
#include "req.h"
#include "hdr.h"
#include "psn.h"
#include "qpcore.h"
#include "sched.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "loop.h"
#include "timers.h"
#include "cc.h"
#include "lrh.h"
#include "raw.h"

enum sib_req_step {
	SIB_REQ_SENT,		/* one packet went out */
	SIB_REQ_HANDOFF,	/* one request handed over directly (loop.c) */
	SIB_REQ_IDLE,		/* nothing to do or blocked */
	SIB_REQ_ERROR,		/* the QP went to error */
};

static u8 sib_req_opcode(const struct sib_swqe *sw, bool first, bool last)
{
	bool imm = sw->wqe.opcode == IB_WR_SEND_WITH_IMM ||
		   sw->wqe.opcode == IB_WR_RDMA_WRITE_WITH_IMM;

	if (sw->wqe.opcode == SIB_WR_ATOMIC_WRITE)
		return SIB_OP_RC_ATOMIC_WRITE;
	if (sw->wqe.opcode == IB_WR_SEND_WITH_INV) {
		if (first)
			return last ? SIB_OP_RC_SEND_ONLY_INV : SIB_OP_RC_SEND_FIRST;
		return last ? SIB_OP_RC_SEND_LAST_INV : SIB_OP_RC_SEND_MIDDLE;
	}
	if (sw->wqe.opcode == IB_WR_SEND || sw->wqe.opcode == IB_WR_SEND_WITH_IMM) {
		if (first && last)
			return imm ? SIB_OP_RC_SEND_ONLY_IMM : SIB_OP_RC_SEND_ONLY;
		if (first)
			return SIB_OP_RC_SEND_FIRST;
		if (last)
			return imm ? SIB_OP_RC_SEND_LAST_IMM : SIB_OP_RC_SEND_LAST;
		return SIB_OP_RC_SEND_MIDDLE;
	}
	if (first && last)
		return imm ? SIB_OP_RC_WRITE_ONLY_IMM : SIB_OP_RC_WRITE_ONLY;
	if (first)
		return SIB_OP_RC_WRITE_FIRST;
	if (last)
		return imm ? SIB_OP_RC_WRITE_LAST_IMM : SIB_OP_RC_WRITE_LAST;
	return SIB_OP_RC_WRITE_MIDDLE;
}

/* copy @len bytes of the message at @off into @buf */
static int sib_req_payload(struct sib_qp *qp, struct sib_swqe *sw, u32 off,
			   void *buf, u32 len)
{
	if (sw->wqe.send_flags & SIB_SEND_INLINE) {
		memcpy(buf, sw->inline_data + off, len);
		return 0;
	}
	return sib_sgl_copy(qp->dev, &qp->mr_cache, qp->ibqp.pd, sw->sge,
			    sw->wqe.num_sge, off, buf, len, false);
}

/*
 * An RC (or UC) request packet: @hdr_len zeroed header bytes, then @len bytes of
 * the message at @off, pad and room for the ICRC. Payload in user MRs is
 * referenced as page fragments (the WQE completes only after the peer's
 * ACK, so the pages are not reused while a packet may need them); inline
 * data, kernel MRs, small payloads and lists of too many pieces are
 * copied; a request handed over directly (@direct, see loop.c) goes into
 * the QP's reused buffer. Return: the packet, NULL when out of memory
 * (try again later), ERR_PTR(-EINVAL/-EFAULT) for an SGE that does not
 * work.
 */
static struct sk_buff *sib_req_rc_skb(struct sib_qp *qp, struct sib_swqe *sw,
				      u32 off, unsigned int hdr_len, u32 len,
				      u8 *pad, bool direct)
{
	struct sk_buff *skb = NULL;
	int err;

	*pad = (4 - (len & 3)) & 3;
	/* a request handed over directly goes in the QP's reused buffer */
	if (direct)
		skb = sib_loop_skb(qp, hdr_len + len + *pad + SIB_ICRC_LEN);
	if (skb)
		goto copy;
	/* UC completes on transmit: its pages may be reused at once */
	if (len >= SIB_ZCOPY_MIN && !(sw->wqe.send_flags & SIB_SEND_INLINE) &&
	    sib_net_frags_ok(qp) &&
	    (qp->ibqp.qp_type == IB_QPT_RC ||
	     qp->ibqp.qp_type == IB_QPT_XRC_INI)) {
		skb = sib_skb_alloc(qp->dev, hdr_len);
		if (!skb)
			return NULL;
		sib_zero(skb->data, hdr_len);
		err = sib_sgl_add_frags(qp->dev, &qp->mr_cache, qp->ibqp.pd,
					sw->sge, sw->wqe.num_sge, off, skb,
					len);
		if (!err)
			err = sib_skb_add_trailer(skb, *pad + SIB_ICRC_LEN);
		if (!err) {
			/* user pages: their bytes may change under the skb */
			skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
			sib_counter_inc(qp->dev, SIB_CNT_ZCOPY_PKTS);
			return skb;
		}
		kfree_skb(skb);
		if (err != -EMSGSIZE && err != -EOPNOTSUPP && err != -ENOMEM)
			return ERR_PTR(err);
	}
	skb = sib_skb_alloc(qp->dev, hdr_len + len + *pad + SIB_ICRC_LEN);
	if (!skb)
		return NULL;
copy:
	sib_zero(skb->data, hdr_len);
	sib_zero(skb->data + hdr_len + len, *pad + SIB_ICRC_LEN);
	err = sib_req_payload(qp, sw, off, skb->data + hdr_len, len);
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/* a WQE failed locally: complete it with @status and fail the QP */
static enum sib_req_step sib_req_fail(struct sib_qp *qp, struct sib_swqe *sw,
				      u8 status)
{
	sib_qp_send_cqe(qp, sw, status);
	WRITE_ONCE(qp->sq.comp, qp->sq.comp + 1);
	qp->sq.req = qp->sq.comp;
	qp->req.off = 0;
	sib_qp_error(qp, 0);
	return SIB_REQ_ERROR;
}

static struct sk_buff *sib_req_skb(struct sib_qp *qp, u8 opcode, u32 paylen,
				   struct sib_bth **bth, u8 *pad)
{
	const struct sib_opcode_info *info = sib_opcode(opcode);
	struct sk_buff *skb;

	*pad = (4 - (paylen & 3)) & 3;
	skb = sib_skb_alloc(qp->dev, info->hdr_len + paylen + *pad +
			    SIB_ICRC_LEN);
	if (!skb)
		return NULL;
	*bth = (struct sib_bth *)skb->data;
	sib_zero(skb->data + info->hdr_len + paylen, *pad + SIB_ICRC_LEN);
	return skb;
}

static enum sib_req_step sib_req_ud(struct sib_qp *qp, struct sib_swqe *sw)
{
	bool imm = sw->wqe.opcode == IB_WR_SEND_WITH_IMM;
	u8 opcode = imm ? SIB_OP_UD_SEND_ONLY_IMM : SIB_OP_UD_SEND_ONLY;
	const struct sib_opcode_info *info = sib_opcode(opcode);
	u32 len = sw->total_len;
	struct sib_deth *deth;
	struct sk_buff *skb;
	struct sib_bth *bth;
	u32 qkey;
	u8 pad;

	/*
	 * A message longer than the port's MTU is not sent and not an error
	 * either (IBTA C10-93.1.1): it completes successfully, counted.
	 */
	if (len > ib_mtu_enum_to_int(sib_is_ib(qp->dev) ?
				     sib_ib_active_mtu(qp->dev) :
				     READ_ONCE(qp->dev->active_mtu))) {
		sib_counter_inc(qp->dev, SIB_CNT_UD_OVER_MTU);
		sib_qp_send_cqe(qp, sw, IB_WC_SUCCESS);
		goto next;
	}
	skb = sib_req_skb(qp, opcode, len, &bth, &pad);
	if (!skb)
		return SIB_REQ_IDLE;
	sib_bth_set(bth, opcode, sw->wqe.send_flags & SIB_SEND_SOLICITED, pad,
		    sib_qp_pkey_ud(qp, sw), sw->wqe.wr.ud.remote_qpn, false,
		    qp->req.psn);
	deth = (struct sib_deth *)(skb->data + info->off_deth);
	qkey = sw->wqe.wr.ud.remote_qkey;
	/* a WR Q_Key with the high bit set means the QP's own (IBTA 10.2.4) */
	if (qkey & SIB_QKEY_PRIV)
		qkey = qp->qkey;
	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(qp->ibqp.qp_num & SIB_QPN_MASK);
	if (imm)
		memcpy(skb->data + info->off_imm, &sw->wqe.ex, SIB_IMM_LEN);
	if (sib_req_payload(qp, sw, 0, skb->data + info->hdr_len, len)) {
		kfree_skb(skb);
		sib_qp_send_cqe(qp, sw, IB_WC_LOC_PROT_ERR);
		goto next;
	}
	qp->req.psn = sib_psn_add(qp->req.psn, 1);
	sib_pkt_xmit(qp, &sw->av, skb);
	sib_qp_send_cqe(qp, sw, IB_WC_SUCCESS);
next:
	qp->sq.req++;
	WRITE_ONCE(qp->sq.comp, qp->sq.req);
	return SIB_REQ_SENT;
}

/* a raw packet QP's frame (raw.c); it completes once on its way */
static enum sib_req_step sib_req_raw(struct sib_qp *qp, struct sib_swqe *sw)
{
	int status = sib_raw_xmit(qp, sw);

	if (status < 0)
		return SIB_REQ_IDLE;
	sib_qp_send_cqe(qp, sw, status);
	qp->sq.req++;
	WRITE_ONCE(qp->sq.comp, qp->sq.req);
	return SIB_REQ_SENT;
}

static bool sib_req_is_atomic(const struct sib_swqe *sw)
{
	return sw->wqe.opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       sw->wqe.opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* may the RC requester start @sw now? */
static bool sib_req_may_start(struct sib_qp *qp, struct sib_swqe *sw)
{
	u32 max_rd = max_t(u32, qp->max_rd_atomic, 1);

	if (qp->sq.comp != qp->sq.req &&
	    sib_psn_diff(qp->req.psn, sib_swqe_at(qp, qp->sq.comp)->first_psn) >=
	    SIB_MAX_INFLIGHT_PKTS)
		return false;
	if ((sw->wqe.opcode == IB_WR_RDMA_READ || sib_req_is_atomic(sw)) &&
	    qp->req.rd_inflight >= max_rd)
		return false;
	if ((sw->wqe.send_flags & SIB_SEND_FENCE) && qp->req.rd_inflight)
		return false;
	return true;
}

/* the transport bits of the opcodes @qp sends: RC, UC or XRC */
static u8 sib_req_transport(const struct sib_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_UC)
		return SIB_OP_UC_BASE;
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI)
		return SIB_OP_XRC_BASE;
	return 0;
}

/* XRC: name the remote XRC SRQ the message is for (IBTA 14.2) */
static void sib_req_xrceth(struct sk_buff *skb, const struct sib_swqe *sw,
			   const struct sib_opcode_info *info)
{
	struct sib_xrceth *x = (struct sib_xrceth *)(skb->data + SIB_BTH_LEN);

	if (info->flags & SIB_OPF_XRCETH)
		x->srqn = cpu_to_be32(sw->wqe.xrc_srqn & SIB_QPN_MASK);
}

/*
 * The WQE at sq.req has a packet on its way: from now on a go-back sends
 * it again (req.sq_hi, see sib_sq_sent_end()), also in SQD. Not before:
 * a WQE whose first packet could not be built was never started.
 */
static void sib_req_started(struct sib_qp *qp)
{
	if ((s32)(qp->sq.req + 1 - qp->req.sq_hi) > 0)
		qp->req.sq_hi = qp->sq.req + 1;
}

/*
 * Send one READ request of @sw: for the chunk of responses that starts at
 * packet qp->req.off / mtu and ends at the next multiple of sw->rd_chunk
 * (or the end of the message). A READ larger than its chunk is asked for
 * in several requests, each one sent when the send window has room, so
 * the responses in flight stay bounded by the window as request packets
 * are: after a lost response only the rest of one chunk is wasted, not
 * the rest of the message. Each request counts against max_rd_atomic.
 * After a gap qp->req.off points at the first missing response: the new
 * request resumes there (IBTA 9.7.5.1.4 lets the requester ask again
 * for the part not yet answered; its PSN is that of the first missing
 * response, its RETH names the rest of the chunk).
 */
static enum sib_req_step sib_req_read(struct sib_qp *qp, struct sib_swqe *sw)
{
	u8 opcode = SIB_OP_RC_READ_REQ | sib_req_transport(qp);
	const struct sib_opcode_info *info = sib_opcode(opcode);
	u32 done = qp->req.off / qp->mtu, end, off, len;
	struct sk_buff *skb;
	struct sib_reth *reth;
	struct sib_bth *bth;
	u8 pad;

	if (done >= sw->npkts)
		done = 0;
	end = min(sib_read_chunk_end(sw, done), sw->npkts);
	off = done * qp->mtu;
	len = (u32)min_t(u64, (u64)end * qp->mtu, sw->total_len) - off;
	skb = sib_req_skb(qp, opcode, 0, &bth, &pad);
	if (!skb)
		return SIB_REQ_IDLE;
	sib_req_started(qp);
	sib_bth_set(bth, opcode, false, 0, sib_qp_pkey(qp),
		    qp->dest_qpn, true, sib_psn_add(sw->first_psn, done));
	sib_req_xrceth(skb, sw, info);
	reth = (struct sib_reth *)(skb->data + info->off_reth);
	reth->va = cpu_to_be64(sw->wqe.wr.rdma.remote_addr + off);
	reth->rkey = cpu_to_be32(sw->wqe.wr.rdma.rkey);
	reth->dma_len = cpu_to_be32(len);
	sib_win_sent(qp, sib_psn_add(sw->first_psn, done), true);
	sib_win_span_sent(qp, sib_psn_add(sw->first_psn, end - 1));
	qp->req.psn = sib_psn_add(sw->first_psn, end);
	qp->req.rd_inflight++;
	sw->counted_rd++;
	qp->req.since_ackreq = 0;
	if (end < sw->npkts) {
		qp->req.off = end * qp->mtu;
	} else {
		qp->req.off = 0;
		qp->sq.req++;
	}
	sib_pkt_xmit(qp, &qp->av, skb);
	sib_timer_retrans_arm(qp);
	return SIB_REQ_SENT;
}

static enum sib_req_step sib_req_atomic(struct sib_qp *qp, struct sib_swqe *sw)
{
	u8 opcode = sw->wqe.opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
		    SIB_OP_RC_CMP_SWAP : SIB_OP_RC_FETCH_ADD;
	u8 wire = opcode | sib_req_transport(qp);
	const struct sib_opcode_info *info = sib_opcode(wire);
	struct sib_atmeth *atm;
	struct sk_buff *skb;
	struct sib_bth *bth;
	u8 pad;

	skb = sib_req_skb(qp, wire, 0, &bth, &pad);
	if (!skb)
		return SIB_REQ_IDLE;
	sib_req_started(qp);
	sib_bth_set(bth, wire, false, 0, sib_qp_pkey(qp), qp->dest_qpn, true,
		    qp->req.psn);
	sib_req_xrceth(skb, sw, info);
	atm = (struct sib_atmeth *)(skb->data + info->off_atmeth);
	atm->va = cpu_to_be64(sw->wqe.wr.atomic.remote_addr);
	atm->rkey = cpu_to_be32(sw->wqe.wr.atomic.rkey);
	atm->swap_add = cpu_to_be64(opcode == SIB_OP_RC_CMP_SWAP ?
				    sw->wqe.wr.atomic.swap :
				    sw->wqe.wr.atomic.compare_add);
	atm->compare = cpu_to_be64(opcode == SIB_OP_RC_CMP_SWAP ?
				   sw->wqe.wr.atomic.compare_add : 0);
	sib_win_sent(qp, qp->req.psn, true);
	qp->req.psn = sib_psn_add(qp->req.psn, 1);
	qp->req.rd_inflight++;
	sw->counted_rd = 1;
	qp->req.since_ackreq = 0;
	qp->sq.req++;
	sib_pkt_xmit(qp, &qp->av, skb);
	sib_timer_retrans_arm(qp);
	return SIB_REQ_SENT;
}

static bool sib_req_is_local(const struct sib_swqe *sw)
{
	return sw->wqe.opcode == IB_WR_BIND_MW ||
	       sw->wqe.opcode == IB_WR_LOCAL_INV ||
	       sw->wqe.opcode == IB_WR_REG_MR;
}

/*
 * Memory operations on the send queue (bind MW, local invalidate, fast
 * registration) send nothing: each is executed once every WQE before it
 * has completed, so completions stay in order and a later WQE sees its
 * effect (IBTA 10.6.7.2, 10.8.3.1). A failure completes the WQE in error
 * and moves the QP to the error state.
 */
static enum sib_req_step sib_req_local(struct sib_qp *qp, struct sib_swqe *sw)
{
	u8 status = IB_WC_SUCCESS;
	u32 key;

	if (qp->sq.comp != qp->sq.req)
		return SIB_REQ_IDLE;
	switch (sw->wqe.opcode) {
	case IB_WR_BIND_MW:
		status = sib_mw_bind(qp, &sw->wqe);
		break;
	case IB_WR_LOCAL_INV:
		memcpy(&key, &sw->wqe.ex, sizeof(key));
		if (sib_key_invalidate(qp, key))
			status = (key & SIB_MW_KEY_BIT) ? IB_WC_MW_BIND_ERR :
							  IB_WC_LOC_PROT_ERR;
		break;
	default:
		if (sib_mr_fast_reg(qp->dev, qp->ibqp.pd, sw->wqe.wr.bind.mr_lkey,
				    sw->wqe.wr.bind.rkey, sw->wqe.wr.bind.access))
			status = IB_WC_LOC_PROT_ERR;
		break;
	}
	if (status != IB_WC_SUCCESS)
		return sib_req_fail(qp, sw, status);
	sib_counter_inc(qp->dev, sw->wqe.opcode == IB_WR_BIND_MW ? SIB_CNT_MW_BIND :
			sw->wqe.opcode == IB_WR_LOCAL_INV ? SIB_CNT_LOCAL_INV :
			SIB_CNT_FAST_REG);
	sib_qp_send_cqe(qp, sw, IB_WC_SUCCESS);
	qp->sq.req++;
	/* (sq_hi stays within 2^31 WQEs of sq.req: sib_sq_sent_end()) */
	if ((s32)(qp->sq.req - qp->req.sq_hi) > 0)
		qp->req.sq_hi = qp->sq.req;
	WRITE_ONCE(qp->sq.comp, qp->sq.req);
	return SIB_REQ_SENT;
}

/*
 * Request packets sent and not acknowledged yet; the responses a READ at
 * the head received count as acknowledged (they free the window for its
 * next chunk).
 */
static u32 sib_req_inflight(struct sib_qp *qp)
{
	u32 acked = qp->comp.acked_psn;
	struct sib_swqe *head;

	if (qp->sq.comp == qp->sq.req && !qp->req.off)
		return 0;
	head = sib_swqe_at(qp, qp->sq.comp);
	if (head->wqe.opcode == IB_WR_RDMA_READ && head->read_pkts)
		acked = sib_psn_add(head->first_psn, head->read_pkts - 1);
	/* after a go-back, responses may pass the point it resends from */
	if (sib_psn_cmp(qp->req.psn, sib_psn_add(acked, 1)) < 0)
		return 0;
	return sib_psn_diff(qp->req.psn, sib_psn_add(acked, 1));
}

static enum sib_req_step sib_req_rc(struct sib_qp *qp, struct sib_swqe *sw)
{
	u32 mtu = qp->mtu, off = qp->req.off, paylen;
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;
	/* UC is never acknowledged: no window to respect (IBTA 9.8.2) */
	u32 inflight = uc ? 0 : sib_req_inflight(qp);
	const struct sib_opcode_info *info;
	bool first = off == 0, last, ackreq;
	struct sib_loop lp = {};
	struct sk_buff *skb;
	struct sib_bth *bth;
	u8 opcode, pad;

	if (!sib_win_may_send(qp, inflight))
		return SIB_REQ_IDLE;
	/* the next chunk of a READ, or the rest of one after a gap */
	if (!first && sw->wqe.opcode == IB_WR_RDMA_READ) {
		if (qp->req.rd_inflight >= max_t(u32, qp->max_rd_atomic, 1))
			return SIB_REQ_IDLE;
		return sib_req_read(qp, sw);
	}
	if (first) {
		if (sib_req_is_local(sw))
			return sib_req_local(qp, sw);
		if (!sib_req_may_start(qp, sw))
			return SIB_REQ_IDLE;
		if ((s32)(qp->sq.req + 1 - qp->req.sq_hi) > 0) {
			/* kept when resent: responses of both match it */
			sw->rd_chunk = sib_win_read_chunk(qp);
			sw->read_pkts = 0;
			sw->counted_rd = 0;
		}
		sw->first_psn = qp->req.psn;
		sw->npkts = max_t(u32, DIV_ROUND_UP(sw->total_len, mtu), 1);
		sw->last_psn = sib_psn_add(sw->first_psn, sw->npkts - 1);
		if (sw->wqe.opcode == IB_WR_RDMA_READ) {
			/*
			 * Sent again from its start after a go-back, a READ
			 * at the head may have its first responses already:
			 * ask only for the rest.
			 */
			if (sw->read_pkts && sw->read_pkts < sw->npkts) {
				qp->req.off = sw->read_pkts * mtu;
				qp->comp.rd_resume = sw->read_pkts;
			}
			return sib_req_read(qp, sw);
		}
		if (sib_req_is_atomic(sw))
			return sib_req_atomic(qp, sw);
	}
	paylen = min(mtu, sw->total_len - off);
	last = off + paylen == sw->total_len;
	opcode = sib_req_opcode(sw, first, last) | sib_req_transport(qp);
	info = sib_opcode(opcode);
	/* a whole SEND or WRITE with nothing before it outstanding */
	if (first && last && qp->av.loopback && qp->ibqp.qp_type == IB_QPT_RC &&
	    qp->sq.comp == qp->sq.req && !(info->flags & SIB_OPF_AWRITE))
		sib_loop_claim(qp, &lp);
	skb = sib_req_rc_skb(qp, sw, off, info->hdr_len, paylen, &pad,
			     lp.rqp != NULL);
	if (IS_ERR_OR_NULL(skb))
		sib_loop_cancel(qp, &lp);
	if (!skb)
		return SIB_REQ_IDLE;
	if (IS_ERR(skb)) {
		if (qp->sq.comp != qp->sq.req)
			return SIB_REQ_IDLE;	/* fail once all before are done */
		return sib_req_fail(qp, sw, IB_WC_LOC_PROT_ERR);
	}
	sib_req_started(qp);
	bth = (struct sib_bth *)skb->data;
	ackreq = !uc && (last ||
			 ++qp->req.since_ackreq >= sib_win_ackreq_every(qp) ||
			 !sib_win_may_send(qp, inflight + 1) ||
			 sib_cc_pause_ahead(qp, skb->len));
	if (ackreq)
		qp->req.since_ackreq = 0;
	sib_bth_set(bth, opcode, last && (sw->wqe.send_flags & SIB_SEND_SOLICITED),
		    pad, sib_qp_pkey(qp), qp->dest_qpn, ackreq, qp->req.psn);
	sib_req_xrceth(skb, sw, info);
	if (info->flags & SIB_OPF_RETH) {
		struct sib_reth *reth = (void *)(skb->data + info->off_reth);

		reth->va = cpu_to_be64(sw->wqe.wr.rdma.remote_addr);
		reth->rkey = cpu_to_be32(sw->wqe.wr.rdma.rkey);
		reth->dma_len = cpu_to_be32(sw->total_len);
	}
	if (info->flags & SIB_OPF_IMM)
		memcpy(skb->data + info->off_imm, &sw->wqe.ex, SIB_IMM_LEN);
	if (info->flags & SIB_OPF_IETH) {
		__be32 ieth;
		u32 key;

		memcpy(&key, &sw->wqe.ex, sizeof(key));
		ieth = cpu_to_be32(key);
		memcpy(skb->data + info->off_ieth, &ieth, SIB_IETH_LEN);
	}
	/* a direct request's answer comes at once: no path RTT to sample */
	if (!uc)
		sib_win_sent(qp, qp->req.psn, ackreq && !lp.rqp);
	qp->req.psn = sib_psn_add(qp->req.psn, 1);
	qp->req.off += paylen;
	if (last) {
		qp->req.off = 0;
		qp->sq.req++;
	}
	if (lp.rqp) {
		sib_loop_handoff(qp, &lp, skb, paylen);
		return SIB_REQ_HANDOFF;
	}
	sib_pkt_xmit(qp, &qp->av, skb);
	if (!uc) {
		sib_timer_retrans_arm(qp);
	} else if (last) {
		/* UC completes once the last packet is on the wire */
		sib_qp_send_cqe(qp, sw, IB_WC_SUCCESS);
		WRITE_ONCE(qp->sq.comp, qp->sq.req);
	}
	return SIB_REQ_SENT;
}

static enum sib_req_step sib_req_step(struct sib_qp *qp)
{
	enum ib_qp_state state = sib_qp_state(qp);
	struct sib_swqe *sw;

	/*
	 * in SQD only the message in progress is finished, and messages sent
	 * before are sent again after a go-back (IBTA 10.3.1)
	 */
	if ((state != IB_QPS_RTS &&
	     !(state == IB_QPS_SQD && (qp->req.off ||
				       qp->sq.req != sib_sq_sent_end(qp)))) ||
	    qp->req.rnr_wait)
		return SIB_REQ_IDLE;
	if (qp->sq.req == sib_sq_prod(qp))
		return SIB_REQ_IDLE;
	/* DCQCN pacing: out of credit, the pacing timer runs us again */
	if (!sib_cc_may_send(qp))
		return SIB_REQ_IDLE;
	sw = sib_swqe_at(qp, qp->sq.req);
	if (sw->status != IB_WC_SUCCESS) {
		if (qp->sq.comp != qp->sq.req)
			return SIB_REQ_IDLE;
		return sib_req_fail(qp, sw, sw->status);
	}
	if (sib_qp_is_ud(qp))
		return sib_req_ud(qp, sw);
	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		return sib_req_raw(qp, sw);
	return sib_req_rc(qp, sw);
}

/**
 * sib_req_run() - send request packets
 * @qp: QP
 * @budget: at most this many packets
 *
 * Stops after a request handed over directly (sib_loop_handoff()): the
 * runner delivers it, then calls again.
 * Context: the QP's run. Return: packets sent (== @budget: maybe more).
 */
int sib_req_run(struct sib_qp *qp, int budget)
{
	enum sib_req_step step;
	int n = 0;

	sib_assert_runner(qp);
	while (n < budget) {
		step = sib_req_step(qp);
		if (step != SIB_REQ_SENT && step != SIB_REQ_HANDOFF)
			break;
		n++;
		/* the runner delivers it before the next request */
		if (step == SIB_REQ_HANDOFF)
			break;
	}
	return n;
}
