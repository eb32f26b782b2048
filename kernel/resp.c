// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the responder (IBTA 9.7.4, 9.7.5). Checks each request's PSN
 * (duplicate, in order, or too far ahead), its place in the message,
 * keys, access and lengths; places SEND payload into a receive WQE
 * copied once from the RQ, RDMA WRITE payload into an MR; queues RDMA
 * READs and streams their responses; sends ACK, RNR NAK and NAK.
 * Errors follow the responder classes: RNR retries later, invalid
 * request / remote access / remote operational errors send a NAK and
 * move the QP to error. Runs only in the QP's work.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_ether.h>

#include "resp.h"
#include "hdr.h"
#include "psn.h"
#include "qpcore.h"
#include "sched.h"
#include "queue.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "loop.h"
#include "srq.h"
#include "tm.h"

enum sib_resp_res {
	SIB_RESP_OK,
	SIB_RESP_RNR,
	SIB_RESP_NAK_INV,
	SIB_RESP_NAK_ACC,
	SIB_RESP_NAK_OP,
};

/* the PD in which R_Keys are checked: an XRC target uses its SRQ's (14.2) */
static struct ib_pd *sib_resp_pd(struct sib_qp *qp)
{
	return qp->resp.xsrq ? qp->resp.xsrq->ibsrq.pd : qp->ibqp.pd;
}

/*
 * The PD in which a receive WQE's L_Keys are checked: the SRQ's when the
 * WQE came from one (its PD may be another than the QP's, 10.2.9), else
 * the QP's.
 */
static struct ib_pd *sib_rwqe_pd(struct sib_qp *qp)
{
	if (qp->resp.xsrq)
		return qp->resp.xsrq->ibsrq.pd;
	return qp->srq ? qp->srq->ibsrq.pd : qp->ibqp.pd;
}

/*
 * XRC target: the SRQ the XRCETH names (@srqn), for this packet only. It
 * must be an XRC SRQ of the target QP's XRC domain; otherwise resp.xsrq
 * stays NULL and the packet is answered with a NAK (invalid request).
 */
static void sib_resp_xrc_enter(struct sib_qp *qp, u32 srqn)
{
	struct sib_srq *srq = sib_xrc_srq_get(qp, srqn);

	if (!srq)
		sib_counter_inc(qp->dev, SIB_CNT_XRC_BAD_SRQ);
	qp->resp.xsrq = srq;
}

static void sib_resp_xrc_leave(struct sib_qp *qp)
{
	if (qp->resp.xsrq)
		sib_srq_put(qp->resp.xsrq);
	qp->resp.xsrq = NULL;
}

/*
 * XRC target: the packets of a message all name the SRQ its first packet
 * named (resp.xsrqn): its receive WQE came from that SRQ, its L_Keys are
 * checked in that SRQ's PD, and it completes on that SRQ's CQ
 * (sib_qp_recv_cqe(), IBTA 14.2). A later packet naming another SRQ (of
 * the same XRC domain: another consumer's) is an invalid request; the
 * error completion goes to the message's own SRQ's CQ. Context: the QP's
 * run, for a packet in sequence. Return: false when the packet is to be
 * NAKed as invalid.
 */
static bool sib_resp_xrc_ok(struct sib_qp *qp, struct sk_buff *skb, u32 flags)
{
	u32 srqn = sib_pkt(skb)->xrc_srqn;

	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return true;
	if (flags & SIB_OPF_START) {
		qp->resp.xsrqn = srqn;
	} else if (srqn != qp->resp.xsrqn) {
		sib_counter_inc(qp->dev, SIB_CNT_XRC_BAD_SRQ);
		return false;
	}
	return qp->resp.xsrq;
}

static void sib_resp_xmit_ack(struct sib_qp *qp, u8 syndrome, u32 psn)
{
	const struct sib_opcode_info *info = sib_opcode(SIB_OP_RC_ACK);
	struct sk_buff *skb;
	struct sib_aeth *aeth;

	if (sib_ack_xmit_loopback(qp, syndrome, psn))
		return;
	skb = sib_skb_alloc(qp->dev, info->hdr_len + SIB_ICRC_LEN);
	if (!skb)
		return;
	sib_zero(skb->data, info->hdr_len + SIB_ICRC_LEN);
	sib_bth_set((struct sib_bth *)skb->data, SIB_OP_RC_ACK, false, 0,
		    sib_qp_pkey(qp), qp->dest_qpn, false, psn);
	aeth = (struct sib_aeth *)(skb->data + info->off_aeth);
	sib_aeth_set(aeth, syndrome, qp->resp.msn);
	sib_pkt_xmit(qp, &qp->av, skb);
}

/**
 * sib_resp_ack_flush() - send the plain ACK the responder owes, if any
 * @qp: RC or XRC target QP
 *
 * A packet that asks for an ACK (or ends a message that a duplicate
 * repeats) does not get one at once: the ACK is owed, and one ACK of the
 * newest PSN placed answers all requests of the same batch (IBTA
 * 9.7.5.1.1: an ACK acknowledges every request up to its PSN). The
 * responder pays it before any other answer it sends (NAK, RNR NAK, READ
 * response, atomic ACK), so answers leave in PSN order, and its caller
 * when the batch of received packets ends.
 * Context: the QP's run (task.c) or a loopback delivery (loop.c).
 */
void sib_resp_ack_flush(struct sib_qp *qp)
{
	sib_assert_runner(qp);
	if (!qp->resp.ack_due)
		return;
	/* behind queued READ responses: sib_resp_reads() pays it after them */
	if (qp->resp.rd_tail != qp->resp.rd_head &&
	    sib_qp_state(qp) != IB_QPS_ERR)
		return;
	qp->resp.ack_due = false;
	sib_resp_xmit_ack(qp, SIB_AETH_ACK | SIB_AETH_NO_CREDIT,
			  qp->resp.ack_psn);
}

/*
 * Answers leave in PSN order (IBTA 9.7.5.1): READ responses still queued
 * for an earlier READ go before an answer to a later request. An ACK or
 * NAK that overtook them would acknowledge the READ without its data: the
 * requester must then ask for the READ again (an implied NAK), or, as
 * rdma_rxe does, take it for done. A plain ACK waits behind them instead
 * (sib_resp_ack_flush()): only NAKs and atomic ACKs drain them here, in
 * one go. Stops early only if the responses cannot be built now (no
 * memory).
 */
static void sib_resp_reads_drain(struct sib_qp *qp)
{
	while (qp->resp.rd_tail != qp->resp.rd_head &&
	       sib_resp_reads(qp, SIB_WORK_BUDGET) > 0)
		;
}

/* a plain ACK of @psn is owed; a later one replaces an earlier one */
static void sib_resp_ack_owe(struct sib_qp *qp, u32 psn)
{
	if (!qp->resp.ack_due || sib_psn_cmp(psn, qp->resp.ack_psn) > 0)
		qp->resp.ack_psn = psn;
	qp->resp.ack_due = true;
}

/* any other answer: queued READ responses and the owed ACK go first */
static void sib_resp_send_ack(struct sib_qp *qp, u8 syndrome, u32 psn)
{
	sib_resp_reads_drain(qp);
	sib_resp_ack_flush(qp);
	sib_resp_xmit_ack(qp, syndrome, psn);
}

static void sib_resp_recv_error(struct sib_qp *qp, u8 status)
{
	struct sib_cqe c __uninitialized;

	if (!qp->resp.have_rwqe)
		return;
	sib_cqe_clear(&c);
	c.wr_id = qp->resp.rwqe.wr_id;
	c.status = status;
	c.opcode = IB_WC_RECV;
	sib_qp_recv_cqe(qp, &c, false);
	qp->resp.have_rwqe = false;
	qp->resp.tm_kind = SIB_TM_NONE;
	qp->resp.tm_skip = 0;
}

/* make sure a receive WQE is at hand; RNR when the RQ is empty */
static enum sib_resp_res sib_resp_get_rwqe(struct sib_qp *qp)
{
	int r;

	if (qp->resp.have_rwqe)
		return SIB_RESP_OK;
	r = sib_rq_fetch(qp, &qp->resp.rwqe);
	if (r < 0)
		return SIB_RESP_NAK_OP;
	if (!r)
		return SIB_RESP_RNR;
	qp->resp.have_rwqe = true;
	qp->resp.recv_off = 0;
	return SIB_RESP_OK;
}

/*
 * Send with Invalidate: invalidate the R_Key of the IETH once the message
 * is placed (IBTA 9.4.1.1, 10.6.7.2.5); a key that cannot be invalidated
 * is an invalid request. The CQE reports the key.
 */
static enum sib_resp_res sib_resp_invalidate(struct sib_qp *qp,
					     struct sk_buff *skb,
					     struct sib_cqe *c)
{
	const struct sib_opcode_info *info = sib_opcode(sib_pkt(skb)->opcode);
	__be32 ieth;
	u32 rkey;

	memcpy(&ieth, skb->data + info->off_ieth, sizeof(ieth));
	rkey = be32_to_cpu(ieth);
	if (sib_key_invalidate(qp, rkey)) {
		sib_resp_recv_error(qp, IB_WC_REM_INV_REQ_ERR);
		return SIB_RESP_NAK_INV;
	}
	sib_counter_inc(qp->dev, SIB_CNT_REMOTE_INV);
	c->wc_flags |= SIB_WC_F_INV;
	c->ex = ieth;
	return SIB_RESP_OK;
}

/* an InfiniBand device's completion: the LRH's source (IBTA 11.4.2.1) */
static void sib_resp_cqe_lrh(struct sib_cqe *c, const struct sib_pkt *pkt)
{
	c->slid = pkt->slid;
	c->sl = pkt->sl;
	c->dlid_path_bits = pkt->dlid_path_bits;
}

static enum sib_resp_res sib_resp_send(struct sib_qp *qp, struct sk_buff *skb,
				       u32 flags)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	struct sib_resp_state *rs = &qp->resp;
	enum sib_resp_res res;
	struct sib_cqe c __uninitialized;
	u32 skip, len;

	if (flags & SIB_OPF_START) {
		/* a TM SRQ: the tag matching header decides where it goes */
		if (!qp->srq || !qp->srq->tm || sib_tm_recv_start(qp, skb)) {
			res = sib_resp_get_rwqe(qp);
			if (res != SIB_RESP_OK)
				return res;
		}
		rs->recv_off = 0;
		rs->cur = SIB_OPF_SEND;
	}
	/* FIRST/MIDDLE carry exactly, ONLY/LAST at most the path MTU (9.7.4.1.6) */
	if ((!(flags & SIB_OPF_END) && pkt->paylen != qp->mtu) ||
	    pkt->paylen > qp->mtu)
		return SIB_RESP_NAK_INV;
	/* a matched tag's message: its header (or all of it) is not placed */
	skip = min(rs->tm_skip, pkt->paylen);
	rs->tm_skip -= skip;
	len = pkt->paylen - skip;
	if (len > rs->rwqe.total_len - rs->recv_off) {
		sib_resp_recv_error(qp, IB_WC_LOC_LEN_ERR);
		return SIB_RESP_NAK_INV;
	}
	if (len && sib_sgl_copy_skb(qp->dev, &qp->mr_cache, sib_rwqe_pd(qp),
				    rs->rwqe.sge, rs->rwqe.num_sge, rs->recv_off,
				    skb, pkt->hdr_len + skip, len)) {
		sib_resp_recv_error(qp, IB_WC_LOC_PROT_ERR);
		return SIB_RESP_NAK_OP;
	}
	rs->recv_off += len;
	if (!(flags & SIB_OPF_END))
		return SIB_RESP_OK;
	sib_cqe_clear(&c);
	c.wr_id = rs->rwqe.wr_id;
	c.status = IB_WC_SUCCESS;
	c.opcode = IB_WC_RECV;
	c.byte_len = rs->recv_off;
	c.src_qp = qp->dest_qpn;
	sib_resp_cqe_lrh(&c, pkt);
	if (flags & SIB_OPF_IMM) {
		c.wc_flags |= SIB_WC_F_IMM;
		memcpy(&c.ex, skb->data + sib_opcode(pkt->opcode)->off_imm, 4);
	}
	if (flags & SIB_OPF_IETH) {
		res = sib_resp_invalidate(qp, skb, &c);
		if (res != SIB_RESP_OK)
			return res;
	}
	if (rs->tm_kind)
		sib_tm_recv_end(qp, &c, pkt->se);
	else
		sib_qp_recv_cqe(qp, &c, pkt->se);
	rs->have_rwqe = false;
	rs->cur = 0;
	rs->msn++;
	return SIB_RESP_OK;
}

static enum sib_resp_res sib_resp_write_start(struct sib_qp *qp,
					      struct sk_buff *skb)
{
	const struct sib_opcode_info *info = sib_opcode(sib_pkt(skb)->opcode);
	const struct sib_reth *reth = (void *)(skb->data + info->off_reth);
	struct sib_resp_state *rs = &qp->resp;

	rs->w_va = be64_to_cpu(reth->va);
	rs->w_rkey = be32_to_cpu(reth->rkey);
	rs->w_len = be32_to_cpu(reth->dma_len);
	rs->w_off = 0;
	if (rs->w_len > SIB_MAX_MSG_SIZE)
		return SIB_RESP_NAK_INV;
	if (rs->w_len && !(qp->qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return SIB_RESP_NAK_ACC;
	/*
	 * The first packet checks the R_Key against the whole RETH range,
	 * so a refused WRITE changes no byte of the target (IBTA 9.7.4.1.8).
	 */
	if (rs->w_len) {
		struct sib_mr *mr = sib_rkey_get(qp, sib_resp_pd(qp),
						 rs->w_rkey,
						 IB_ACCESS_REMOTE_WRITE,
						 rs->w_va, rs->w_len);

		if (!mr)
			return SIB_RESP_NAK_ACC;
		sib_mr_put(mr);
	}
	rs->cur = SIB_OPF_WRITE;
	return SIB_RESP_OK;
}

static enum sib_resp_res sib_resp_write(struct sib_qp *qp, struct sk_buff *skb,
					u32 flags)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	struct sib_resp_state *rs = &qp->resp;
	enum sib_resp_res res;
	struct sib_cqe c __uninitialized;
	struct sib_mr *mr;
	int err;

	if (flags & SIB_OPF_START) {
		res = sib_resp_write_start(qp, skb);
		if (res != SIB_RESP_OK)
			return res;
	}
	if ((!(flags & SIB_OPF_END) && pkt->paylen != qp->mtu) ||
	    pkt->paylen > qp->mtu)
		return SIB_RESP_NAK_INV;
	if (pkt->paylen > rs->w_len - rs->w_off)
		return SIB_RESP_NAK_INV;
	if ((flags & SIB_OPF_END) && rs->w_off + pkt->paylen != rs->w_len)
		return SIB_RESP_NAK_INV;
	if (flags & SIB_OPF_RWQE) {
		res = sib_resp_get_rwqe(qp);
		if (res != SIB_RESP_OK) {
			/* RNR: the retried packet starts the message anew */
			if (flags & SIB_OPF_START)
				rs->cur = 0;
			return res;
		}
	}
	if (pkt->paylen) {
		mr = sib_rkey_get(qp, sib_resp_pd(qp), rs->w_rkey,
				  IB_ACCESS_REMOTE_WRITE,
				  rs->w_va + rs->w_off, pkt->paylen);
		if (!mr)
			return SIB_RESP_NAK_ACC;
		err = sib_mr_copy_skb(mr, rs->w_va + rs->w_off, skb,
				      pkt->hdr_len, pkt->paylen);
		sib_mr_put(mr);
		if (err)
			return SIB_RESP_NAK_ACC;
	}
	rs->w_off += pkt->paylen;
	if (!(flags & SIB_OPF_END))
		return SIB_RESP_OK;
	rs->cur = 0;
	rs->msn++;
	if (!(flags & SIB_OPF_RWQE))
		return SIB_RESP_OK;
	sib_cqe_clear(&c);
	c.wr_id = rs->rwqe.wr_id;
	c.status = IB_WC_SUCCESS;
	c.opcode = IB_WC_RECV_RDMA_WITH_IMM;
	c.byte_len = rs->w_len;
	c.src_qp = qp->dest_qpn;
	sib_resp_cqe_lrh(&c, pkt);
	c.wc_flags = SIB_WC_F_IMM;
	memcpy(&c.ex, skb->data + sib_opcode(pkt->opcode)->off_imm, 4);
	sib_qp_recv_cqe(qp, &c, pkt->se);
	rs->have_rwqe = false;
	return SIB_RESP_OK;
}

/*
 * The PSN a plain ACK may carry is that of the newest SEND or WRITE: the
 * PSNs of a READ belong to its responses and an atomic's to its atomic
 * ACK, and a requester may take a plain ACK with such a PSN for the
 * answer (rdma_rxe completes a READ whose last PSN an ACK names, without
 * its data). Duplicates are acknowledged at epsn - 1 - ack_lag. The lag
 * stops growing far below 2^23: such an ACK is merely old.
 */
#define SIB_ACK_LAG_MAX	(1U << 22)

static void sib_resp_ack_lag(struct sib_resp_state *rs, u32 npkts)
{
	rs->ack_lag = min(rs->ack_lag + npkts, SIB_ACK_LAG_MAX);
}

/*
 * A duplicate READ request for @psn: the requester went back to @psn and
 * will ask again for everything after it, so queued responses from there
 * on are dropped (IBTA 9.7.5.1.4 lets the responder drop them). When a
 * queued READ covers @psn, it is wound back (or kept running, if it has
 * not reached @psn yet) to answer from @psn. Returns true in that case.
 */
static bool sib_resp_read_rewind(struct sib_qp *qp, u32 psn)
{
	struct sib_resp_state *rs = &qp->resp;
	struct sib_read_op *op;
	u32 i, sent, start, npkts;

	for (i = rs->rd_tail; i != rs->rd_head; i++) {
		op = &rs->rdq[i % SIB_RDQ_SIZE];
		sent = op->off / qp->mtu;
		start = sib_psn_diff(op->psn, sent);
		npkts = max_t(u32, DIV_ROUND_UP(op->len, qp->mtu), 1);
		if (sib_psn_cmp(psn, start) < 0)
			break;
		if (sib_psn_cmp(psn, sib_psn_add(start, npkts - 1)) > 0)
			continue;
		if (sib_psn_cmp(op->psn, psn) > 0) {
			op->off = sib_psn_diff(psn, start) * qp->mtu;
			op->psn = psn;
		}
		rs->rd_head = i + 1;
		return true;
	}
	rs->rd_head = i;
	return false;
}

/* queue an RDMA READ (new or duplicate) for sib_resp_reads() */
static enum sib_resp_res sib_resp_read(struct sib_qp *qp, struct sk_buff *skb,
				       bool dup)
{
	const struct sib_opcode_info *info = sib_opcode(SIB_OP_RC_READ_REQ);
	const struct sib_reth *reth = (void *)(skb->data + info->off_reth);
	struct sib_resp_state *rs = &qp->resp;
	struct sib_read_op *op;
	struct sib_mr *mr;
	u32 i, len = be32_to_cpu(reth->dma_len);
	u64 va = be64_to_cpu(reth->va);
	u32 rkey = be32_to_cpu(reth->rkey);

	sib_resp_ack_flush(qp);		/* it answers earlier requests */
	if (dup && sib_resp_read_rewind(qp, sib_pkt(skb)->psn))
		return SIB_RESP_OK;
	if (rs->rd_head - rs->rd_tail >= SIB_RDQ_SIZE)
		return dup ? SIB_RESP_OK : SIB_RESP_NAK_INV;
	/* IRD: more new READs than max_dest_rd_atomic (IBTA 9.7.4.1.5) */
	if (!dup) {
		u32 n = 0;

		for (i = rs->rd_tail; i != rs->rd_head; i++)
			n += !rs->rdq[i % SIB_RDQ_SIZE].dup;
		if (n >= max_t(u32, qp->max_dest_rd_atomic, 1))
			return SIB_RESP_NAK_INV;
	}
	if (len > SIB_MAX_MSG_SIZE)
		return SIB_RESP_NAK_INV;
	if (len) {
		if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_READ))
			return SIB_RESP_NAK_ACC;
		mr = sib_rkey_get(qp, sib_resp_pd(qp), rkey,
				  IB_ACCESS_REMOTE_READ, va, len);
		/* sib_rkey_get() checked the whole range */
		if (!mr)
			return SIB_RESP_NAK_ACC;
		sib_mr_put(mr);
	}
	op = &rs->rdq[rs->rd_head % SIB_RDQ_SIZE];
	op->va = va;
	op->rkey = rkey;
	op->len = len;
	op->off = 0;
	op->psn = sib_pkt(skb)->psn;
	op->dup = dup;
	op->pd = sib_resp_pd(qp);
	if (!dup) {
		u32 npkts = max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1);

		rs->msn++;
		rs->epsn = sib_psn_add(rs->epsn, npkts);
		sib_resp_ack_lag(rs, npkts);
	}
	op->msn = rs->msn;
	rs->rd_head++;
	return SIB_RESP_OK;
}

static void sib_resp_send_atmack(struct sib_qp *qp, u32 psn, u64 orig)
{
	const struct sib_opcode_info *info = sib_opcode(SIB_OP_RC_ATOMIC_ACK);
	struct sib_atmack *ack;
	struct sk_buff *skb;

	sib_resp_reads_drain(qp);
	sib_resp_ack_flush(qp);
	skb = sib_skb_alloc(qp->dev, info->hdr_len + SIB_ICRC_LEN);
	if (!skb)
		return;
	sib_zero(skb->data, info->hdr_len + SIB_ICRC_LEN);
	sib_bth_set((struct sib_bth *)skb->data, SIB_OP_RC_ATOMIC_ACK, false, 0,
		    sib_qp_pkey(qp), qp->dest_qpn, false, psn);
	sib_aeth_set((void *)(skb->data + info->off_aeth),
		     SIB_AETH_ACK | SIB_AETH_NO_CREDIT, qp->resp.msn);
	ack = (struct sib_atmack *)(skb->data + info->off_atmack);
	ack->orig = cpu_to_be64(orig);
	sib_pkt_xmit(qp, &qp->av, skb);
}

/* execute one atomic on 8 aligned bytes of @mr (IBTA 9.4.5) */
static int sib_resp_do_atomic(struct sib_mr *mr, u8 opcode,
			      const struct sib_atmeth *atm, u64 *orig)
{
	struct sib_atomic_op op = {
		.kind = opcode == SIB_OP_RC_CMP_SWAP ? SIB_ATOMIC_CMP_SWAP :
						       SIB_ATOMIC_FETCH_ADD,
		.compare = be64_to_cpu(atm->compare),
		.val = be64_to_cpu(atm->swap_add),
	};
	int err = sib_mr_atomic(mr, be64_to_cpu(atm->va), &op);

	*orig = op.orig;
	return err;
}

static enum sib_resp_res sib_resp_atomic(struct sib_qp *qp, struct sk_buff *skb,
					 bool dup)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	const struct sib_opcode_info *info = sib_opcode(pkt->opcode);
	const struct sib_atmeth *atm = (void *)(skb->data + info->off_atmeth);
	struct sib_resp_state *rs = &qp->resp;
	struct sib_atom_res *res;
	struct sib_mr *mr;
	u64 orig;
	int i, err;

	if (dup) {
		/* replay the saved result, never execute twice */
		for (i = 0; i < SIB_ATOM_CACHE; i++)
			if (rs->atom[i].valid && rs->atom[i].psn == pkt->psn) {
				sib_resp_send_atmack(qp, pkt->psn,
						     rs->atom[i].orig);
				break;
			}
		return SIB_RESP_OK;
	}
	if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC))
		return SIB_RESP_NAK_ACC;
	if (be64_to_cpu(atm->va) & 7)
		return SIB_RESP_NAK_INV;
	mr = sib_rkey_get(qp, sib_resp_pd(qp), be32_to_cpu(atm->rkey),
			  IB_ACCESS_REMOTE_ATOMIC,
			  be64_to_cpu(atm->va), sizeof(u64));
	if (!mr)
		return SIB_RESP_NAK_ACC;
	err = sib_resp_do_atomic(mr, pkt->opcode, atm, &orig);
	sib_mr_put(mr);
	if (err)
		return SIB_RESP_NAK_ACC;
	/* one result per PSN: one saved 2^24 PSNs ago is no answer now */
	for (i = 0; i < SIB_ATOM_CACHE; i++)
		if (rs->atom[i].psn == pkt->psn)
			rs->atom[i].valid = false;
	res = &rs->atom[rs->atom_next++ % SIB_ATOM_CACHE];
	res->psn = pkt->psn;
	res->orig = orig;
	res->valid = true;
	rs->msn++;
	sib_resp_send_atmack(qp, pkt->psn, orig);
	return SIB_RESP_OK;
}

/*
 * IBA 1.5 ATOMIC WRITE: 8 bytes at an 8-byte aligned address, stored
 * under the same lock as the other atomics so no atomic of any QP or
 * device sees half of it; acknowledged like an RDMA WRITE.
 */
static enum sib_resp_res sib_resp_atomic_write(struct sib_qp *qp,
					       struct sk_buff *skb)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	const struct sib_opcode_info *info = sib_opcode(pkt->opcode);
	const struct sib_reth *reth = (void *)(skb->data + info->off_reth);
	u64 va = be64_to_cpu(reth->va), val;
	struct sib_mr *mr;
	int err;

	if (pkt->paylen != sizeof(val) ||
	    be32_to_cpu(reth->dma_len) != sizeof(val) || (va & 7))
		return SIB_RESP_NAK_INV;
	if (!(qp->qp_access_flags & IB_ACCESS_REMOTE_WRITE))
		return SIB_RESP_NAK_ACC;
	mr = sib_rkey_get(qp, sib_resp_pd(qp), be32_to_cpu(reth->rkey),
			  IB_ACCESS_REMOTE_WRITE,
			  va, sizeof(val));
	if (!mr)
		return SIB_RESP_NAK_ACC;
	if (skb_copy_bits(skb, pkt->hdr_len, &val, sizeof(val))) {
		sib_mr_put(mr);
		return SIB_RESP_NAK_INV;
	}
	{
		struct sib_atomic_op op = { .kind = SIB_ATOMIC_WRITE, .val = val };

		err = sib_mr_atomic(mr, va, &op);
	}
	sib_mr_put(mr);
	if (err)
		return SIB_RESP_NAK_ACC;
	qp->resp.msn++;
	return SIB_RESP_OK;
}

static u8 sib_rresp_opcode(bool first, bool last)
{
	if (first && last)
		return SIB_OP_RC_READ_RESP_ONLY;
	if (first)
		return SIB_OP_RC_READ_RESP_FIRST;
	if (last)
		return SIB_OP_RC_READ_RESP_LAST;
	return SIB_OP_RC_READ_RESP_MIDDLE;
}

/*
 * A READ response packet: @hdr_len header bytes, @len bytes of @mr at
 * @iova, @pad and room for the ICRC. Pages of user MRs are referenced
 * as fragments (see sib_mr_add_frags()); other MRs and small payloads
 * are copied. Return: the packet (header zeroed), NULL when out of
 * memory, ERR_PTR(-EFAULT) when the range is not in @mr.
 */
static struct sk_buff *sib_rresp_skb(struct sib_qp *qp, struct sib_mr *mr,
				     u64 iova, unsigned int hdr_len, u32 len,
				     u8 pad)
{
	struct sk_buff *skb;
	int err;

	if (len >= SIB_ZCOPY_MIN && sib_mr_has_pages(mr) &&
	    sib_net_frags_ok(qp)) {
		skb = sib_skb_alloc(qp->dev, hdr_len);
		if (!skb)
			return NULL;
		sib_zero(skb->data, hdr_len);
		err = sib_mr_add_frags(mr, iova, skb, len);
		if (!err)
			err = sib_skb_add_trailer(skb, pad + SIB_ICRC_LEN);
		if (!err) {
			/* user pages: their bytes may change under the skb */
			skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
			sib_counter_inc(qp->dev, SIB_CNT_ZCOPY_READ_PKTS);
			return skb;
		}
		kfree_skb(skb);
		if (err != -EMSGSIZE && err != -EOPNOTSUPP && err != -ENOMEM)
			return ERR_PTR(err);
	}
	skb = sib_skb_alloc(qp->dev, hdr_len + len + pad + SIB_ICRC_LEN);
	if (!skb)
		return NULL;
	sib_zero(skb->data, hdr_len);
	sib_zero(skb->data + hdr_len + len, pad + SIB_ICRC_LEN);
	err = len ? sib_mr_copy(mr, iova, skb->data + hdr_len, len, false) : 0;
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/*
 * Send the next response packet of @op. Return: false when nothing could
 * be done (no memory: a later round tries again) or the QP failed.
 */
static bool sib_resp_read_pkt(struct sib_qp *qp, struct sib_read_op *op)
{
	u32 paylen = min(qp->mtu, op->len - op->off);
	bool first = op->off == 0, last = op->off + paylen == op->len;
	u8 opcode = sib_rresp_opcode(first, last);
	const struct sib_opcode_info *info = sib_opcode(opcode);
	u8 pad = (4 - (paylen & 3)) & 3;
	struct sk_buff *skb;
	struct sib_mr *mr = NULL;

	if (paylen) {
		mr = sib_rkey_get(qp, op->pd, op->rkey, IB_ACCESS_REMOTE_READ,
				  op->va + op->off, paylen);
		if (!mr)
			goto access_err;
		skb = sib_rresp_skb(qp, mr, op->va + op->off, info->hdr_len,
				    paylen, pad);
		sib_mr_put(mr);
	} else {
		skb = sib_skb_alloc(qp->dev, info->hdr_len + SIB_ICRC_LEN);
		if (skb)
			sib_zero(skb->data, info->hdr_len + SIB_ICRC_LEN);
	}
	if (!skb)
		return false;
	if (IS_ERR(skb))
		goto access_err;
	sib_bth_set((struct sib_bth *)skb->data, opcode, false, pad,
		    sib_qp_pkey(qp), qp->dest_qpn, false, op->psn);
	if (info->flags & SIB_OPF_AETH)
		sib_aeth_set((void *)(skb->data + info->off_aeth),
			     SIB_AETH_ACK | SIB_AETH_NO_CREDIT, op->msn);
	sib_pkt_xmit(qp, &qp->av, skb);
	op->off += paylen;
	op->psn = sib_psn_add(op->psn, 1);
	if (last)
		qp->resp.rd_tail++;
	return true;

access_err:
	/*
	 * A repeated READ whose key went invalid after it was queued: a
	 * later request of the same batch invalidated it (nvmet answers a
	 * command with Send with Invalidate once the READ of its data is
	 * complete, and a loss probe repeats that READ just before). Treated
	 * as sib_resp_read() treats a repeat whose key is already invalid:
	 * dropped, without a NAK that would name a PSN the requester has
	 * acknowledged and without failing the QP; a requester that really
	 * lacks the data asks again and runs out of retries.
	 */
	if (op->dup) {
		qp->resp.rd_tail++;
		return true;
	}
	/* (the NAK answers this READ: later ones are dropped) */
	sib_resp_xmit_ack(qp, SIB_AETH_NAK | SIB_NAK_REM_ACCESS_ERR, op->psn);
	qp->resp.rd_tail = qp->resp.rd_head;
	sib_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
	return false;
}

/**
 * sib_resp_reads() - stream RDMA READ responses
 * @qp: RC QP
 * @budget: at most this many packets
 *
 * Context: the QP's run. Return: packets sent.
 */
int sib_resp_reads(struct sib_qp *qp, int budget)
{
	struct sib_resp_state *rs = &qp->resp;
	int n = 0;

	sib_assert_runner(qp);
	while (n < budget && rs->rd_tail != rs->rd_head &&
	       sib_qp_state(qp) != IB_QPS_ERR) {
		if (!sib_resp_read_pkt(qp, &rs->rdq[rs->rd_tail % SIB_RDQ_SIZE]))
			break;
		n++;
	}
	/* the ACK owed for requests behind them (sib_resp_ack_flush()) */
	if (rs->rd_tail == rs->rd_head)
		sib_resp_ack_flush(qp);
	return n;
}

static void sib_resp_ud(struct sib_qp *qp, struct sk_buff *skb)
{
	const struct sib_opcode_info *info;
	struct sib_pkt *pkt = sib_pkt(skb);
	struct sib_rwqe *rw = &qp->resp.rwqe;
	const struct sib_deth *deth;
	struct sib_cqe c __uninitialized;
	u8 grh[40] = {};
	int r;

	info = sib_opcode(pkt->opcode);
	deth = (void *)(skb->data + info->off_deth);
	if (be32_to_cpu(deth->qkey) != qp->qkey) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_QKEY);
		return;
	}
	r = sib_rq_fetch(qp, rw);
	if (r <= 0) {
		if (r < 0)
			sib_qp_error(qp, IB_EVENT_QP_FATAL);
		sib_counter_inc(qp->dev, SIB_CNT_UD_NO_RWQE);
		return;
	}
	sib_cqe_clear(&c);
	c.wr_id = rw->wr_id;
	c.opcode = IB_WC_RECV;
	c.byte_len = sizeof(grh) + pkt->paylen;
	if (pkt->net_type == RDMA_NETWORK_IB) {
		/* the first 40 bytes hold the GRH if one came, else zeros */
		if (pkt->grh)
			memcpy(grh, skb_network_header(skb), sizeof(grh));
		c.network_hdr_type = SIB_NET_HDR_IB;
	} else if (pkt->net_type == RDMA_NETWORK_IPV4) {
		memcpy(grh + 20, skb_network_header(skb), 20);
		c.network_hdr_type = SIB_NET_HDR_IPV4;
	} else {
		memcpy(grh, skb_network_header(skb), 40);
		c.network_hdr_type = SIB_NET_HDR_IPV6;
	}
	if (rw->total_len < c.byte_len) {
		c.status = IB_WC_LOC_LEN_ERR;
	} else if (sib_sgl_copy(qp->dev, &qp->mr_cache, sib_rwqe_pd(qp),
				rw->sge, rw->num_sge, 0, grh, sizeof(grh),
				true) ||
		   sib_sgl_copy_skb(qp->dev, &qp->mr_cache, sib_rwqe_pd(qp),
				    rw->sge, rw->num_sge, sizeof(grh), skb,
				    pkt->hdr_len, pkt->paylen)) {
		c.status = IB_WC_LOC_PROT_ERR;
	} else {
		c.status = IB_WC_SUCCESS;
	}
	c.wc_flags = pkt->net_type != RDMA_NETWORK_IB || pkt->grh ?
		     SIB_WC_F_GRH : 0;
	sib_resp_cqe_lrh(&c, pkt);	/* 0s on RoCE */
	if (info->flags & SIB_OPF_IMM) {
		c.wc_flags |= SIB_WC_F_IMM;
		memcpy(&c.ex, skb->data + info->off_imm, 4);
	}
	c.src_qp = sib_deth_sqp(deth);
	if (qp->ibqp.qp_type == IB_QPT_GSI || qp->ibqp.qp_type == IB_QPT_SMI)
		c.pkey_index = sib_pkey_find(&qp->dev->pkey, pkt->pkey);
	if (!pkt->loopback && skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= ETH_HLEN)
		memcpy(c.smac, eth_hdr(skb)->h_source, ETH_ALEN);
	else
		memcpy(c.smac, qp->dev->ndev->dev_addr, ETH_ALEN);
	sib_qp_recv_cqe(qp, &c, pkt->se);
}

/* in order in the message? (IBTA 9.7.4.1.4 opcode sequence check) */
static bool sib_resp_seq_ok(struct sib_qp *qp, u32 flags)
{
	if (qp->resp.cur == SIB_OPF_SEND)
		return (flags & SIB_OPF_SEND) && !(flags & SIB_OPF_START);
	if (qp->resp.cur == SIB_OPF_WRITE)
		return (flags & SIB_OPF_WRITE) && !(flags & SIB_OPF_START);
	return flags & SIB_OPF_START;
}

static void sib_resp_duplicate(struct sib_qp *qp, struct sk_buff *skb,
			       u32 flags)
{
	sib_counter_inc(qp->dev, SIB_CNT_DUP_REQ);
	if (flags & SIB_OPF_READ) {
		sib_resp_read(qp, skb, true);
		return;
	}
	if (flags & SIB_OPF_ATOMIC) {
		sib_resp_atomic(qp, skb, true);
		return;
	}
	if (sib_pkt(skb)->ackreq || (flags & SIB_OPF_END))
		sib_resp_ack_owe(qp, sib_psn_add(qp->resp.epsn,
						 SIB_PSN_MASK - qp->resp.ack_lag));
}

static void sib_resp_finish(struct sib_qp *qp, struct sk_buff *skb, u32 flags,
			    enum sib_resp_res res)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	u8 code;

	switch (res) {
	case SIB_RESP_OK:
		if (flags & SIB_OPF_READ)
			return;		/* epsn moved, responses follow */
		qp->resp.epsn = sib_psn_add(qp->resp.epsn, 1);
		if (flags & SIB_OPF_ATOMIC)
			sib_resp_ack_lag(&qp->resp, 1);
		else
			qp->resp.ack_lag = 0;
		/* owed, or owed already: the newest PSN placed answers */
		if (!(flags & SIB_OPF_ATOMIC) &&
		    (pkt->ackreq || qp->resp.ack_due))
			sib_resp_ack_owe(qp, pkt->psn);
		return;
	case SIB_RESP_RNR:
		sib_counter_inc(qp->dev, SIB_CNT_RNR_NAK_SENT);
		sib_resp_send_ack(qp, SIB_AETH_RNR_NAK | qp->min_rnr_timer,
				  pkt->psn);
		/*
		 * The requester resends from this PSN after its RNR delay; the
		 * packets it had sent behind it are dropped without a sequence
		 * NAK for the same PSN. One NAK per gap, as for sequence errors
		 * (IBTA 9.7.5.1.2): a second one tells the requester nothing
		 * new, and one that retries at once on a sequence NAK (rdma_rxe)
		 * counts it against retry_cnt: with retry_cnt 0 a single RNR
		 * wait would end in IB_WC_RETRY_EXC_ERR.
		 */
		qp->resp.nak_sent = true;
		return;
	case SIB_RESP_NAK_INV:
		code = SIB_NAK_INVALID_REQ;
		break;
	case SIB_RESP_NAK_ACC:
		code = SIB_NAK_REM_ACCESS_ERR;
		break;
	default:
		code = SIB_NAK_REM_OP_ERR;
		break;
	}
	sib_resp_send_ack(qp, SIB_AETH_NAK | code, pkt->psn);
	sib_resp_recv_error(qp, code == SIB_NAK_REM_ACCESS_ERR ?
			    IB_WC_REM_ACCESS_ERR : IB_WC_REM_INV_REQ_ERR);
	sib_qp_error(qp, code == SIB_NAK_REM_ACCESS_ERR ?
		     IB_EVENT_QP_ACCESS_ERR : IB_EVENT_QP_REQ_ERR);
}

/*
 * UC (IBTA 9.8.3): nothing is acknowledged, NAKed or retried. A packet out
 * of sequence (a gap, or a FIRST/ONLY where a message was in progress) ends
 * the message in progress; packets are then dropped up to the next FIRST or
 * ONLY, where the responder resyncs. A receive WQE a dropped SEND had begun
 * to fill stays at hand for the next SEND. Remote errors (rkey, length) and
 * a missing receive WQE drop the message silently; a local failure of the
 * responder (its receive ring is garbage, an lkey fails) fails the QP.
 */
static void sib_resp_uc(struct sib_qp *qp, struct sk_buff *skb, u32 flags)
{
	struct sib_resp_state *rs = &qp->resp;
	struct sib_pkt *pkt = sib_pkt(skb);
	enum sib_resp_res res;

	if (pkt->psn != rs->epsn || (flags & SIB_OPF_START))
		rs->cur = 0;
	rs->epsn = sib_psn_add(pkt->psn, 1);
	if (!sib_resp_seq_ok(qp, flags)) {
		sib_counter_inc(qp->dev, SIB_CNT_UC_DROP);
		return;
	}
	if (flags & SIB_OPF_SEND)
		res = sib_resp_send(qp, skb, flags);
	else
		res = sib_resp_write(qp, skb, flags);
	if (res == SIB_RESP_OK)
		return;
	rs->cur = 0;
	sib_counter_inc(qp->dev, SIB_CNT_UC_DROP);
	if (res == SIB_RESP_NAK_OP) {
		sib_resp_recv_error(qp, IB_WC_LOC_QP_OP_ERR);
		sib_qp_error(qp, IB_EVENT_QP_FATAL);
	}
}

/**
 * sib_resp_rcv() - handle one request packet
 * @qp: RC, UC, UD, GSI or XRC target QP
 * @skb: validated packet; consumed
 *
 * A plain ACK it owes is sent by the next answer or by
 * sib_resp_ack_flush(), which the caller calls after its batch.
 * Context: the QP's run.
 */
void sib_resp_rcv(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sib_pkt *pkt = sib_pkt(skb);
	u32 flags = sib_opcode(pkt->opcode)->flags;
	enum ib_qp_state state = sib_qp_state(qp);
	enum sib_resp_res res;
	int d;

	sib_assert_runner(qp);
	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD && state != IB_QPS_SQE) {
		sib_counter_inc(qp->dev, SIB_CNT_DROP_QP_STATE);
		goto out;
	}
	if (flags & SIB_OPF_UD) {
		sib_resp_ud(qp, skb);
		goto out;
	}
	if (flags & SIB_OPF_UC) {
		sib_resp_uc(qp, skb, flags);
		goto out;
	}
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		sib_resp_xrc_enter(qp, pkt->xrc_srqn);
	d = sib_psn_cmp(pkt->psn, qp->resp.epsn);
	if (d < 0) {
		sib_resp_duplicate(qp, skb, flags);
		goto out;
	}
	if (d > 0) {
		/* out of sequence: dropped, NAKed once per gap (IBTA 9.7.5.1.2) */
		sib_counter_inc(qp->dev, SIB_CNT_DROP_OUT_OF_SEQ);
		if (!qp->resp.nak_sent) {
			sib_counter_inc(qp->dev, SIB_CNT_SEQ_NAK_SENT);
			sib_resp_send_ack(qp, SIB_AETH_NAK | SIB_NAK_PSN_SEQ_ERR,
					  qp->resp.epsn);
			qp->resp.nak_sent = true;
		}
		goto out;
	}
	qp->resp.nak_sent = false;
	if (!sib_resp_seq_ok(qp, flags) || !sib_resp_xrc_ok(qp, skb, flags))
		res = SIB_RESP_NAK_INV;
	else if (flags & SIB_OPF_SEND)
		res = sib_resp_send(qp, skb, flags);
	else if (flags & SIB_OPF_WRITE)
		res = sib_resp_write(qp, skb, flags);
	else if (flags & SIB_OPF_ATOMIC)
		res = sib_resp_atomic(qp, skb, false);
	else if (flags & SIB_OPF_AWRITE)
		res = sib_resp_atomic_write(qp, skb);
	else
		res = sib_resp_read(qp, skb, false);
	sib_resp_finish(qp, skb, flags, res);
out:
	sib_resp_xrc_leave(qp);
	kfree_skb(skb);
}
