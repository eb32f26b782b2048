// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: tag matching, as the generic verbs define it (ibv_create_srq_ex
 * with IBV_SRQT_TM, ibv_post_srq_ops, the TM fields of extended CQs), for
 * RC QPs on a TM SRQ.
 *
 * A TM SRQ keeps a list of tagged buffers (ADD, DEL, SYNC through the
 * driver method SIB_METHOD_SRQ_TM_OP, one system call per operation).
 * Each SEND that arrives on a QP of the SRQ begins with a tag matching
 * header; its first packet decides (sib_tm_recv_start()):
 *  - an eager message whose tag matches a buffer (the oldest that does)
 *    is placed in that buffer without the header: one completion, MATCH
 *    and DATA_VALID;
 *  - a rendezvous request that matches completes at once with MATCH; the
 *    QP then READs the data the request names from the sender into the
 *    buffer and completes it again with DATA_VALID, and SENDs the sender
 *    a FIN message (a header with opcode FIN and the tag). The READ and
 *    the FIN are WQEs of the kernel's own in the QP's send queue, which
 *    keeps SIB_TM_QP_SLOTS slots for them; one rendezvous at a time per
 *    QP, the others wait in order;
 *  - a message with no tag, or whose tag matches nothing (unexpected,
 *    counted), takes the SRQ's next receive WQE whole, header included.
 * softib never stops matching, so it never asks for a sync (no
 * SYNC_REQ): operations apply whatever unexpected_cnt they carry.
 * Completions of all of these go to the SRQ's CQ.
 *
 * Locks: sib_tm.lock covers the list; the engines' side runs in the QP's
 * run, which owns the responder state and the QP's rendezvous queue.
 */
#include <linux/slab.h>
#define UVERBS_MODULE_NAME softib
#include <rdma/uverbs_named_ioctl.h>

#include "tm.h"
#include "cq.h"
#include "queue.h"
#include "qpcore.h"
#include "compat.h"

/**
 * sib_tm_caps() - what query_device reports for tag matching
 * @caps: out
 *
 * Context: any.
 */
void sib_tm_caps(struct ib_tm_caps *caps)
{
	caps->max_rndv_hdr_size = SIB_TM_RNDV_HDR;
	caps->max_num_tags = SIB_TM_MAX_TAGS;
	caps->flags = IB_TM_CAP_RNDV_RC;
	caps->max_ops = SIB_TM_MAX_OPS;
	caps->max_sge = SIB_TM_MAX_SGE;
}

/**
 * sib_tm_srq_init() - make a new SRQ a TM SRQ
 * @srq: the SRQ being created (user)
 * @init: IB_SRQT_TM attributes: max_num_tags, the CQ
 *
 * Context: process. Return: 0, -EINVAL (no CQ, tags 0 or above
 * SIB_TM_MAX_TAGS), -ENOMEM.
 */
int sib_tm_srq_init(struct sib_srq *srq, struct ib_srq_init_attr *init)
{
	u32 n = init->ext.tag_matching.max_num_tags;
	struct sib_tm *tm;
	u32 i;

	if (!init->ext.cq || !n || n > SIB_TM_MAX_TAGS)
		return -EINVAL;
	tm = kzalloc(sizeof(*tm), GFP_KERNEL);
	if (!tm)
		return -ENOMEM;
	tm->tags = kcalloc(n, sizeof(*tm->tags), GFP_KERNEL);
	if (!tm->tags) {
		kfree(tm);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		INIT_LIST_HEAD(&tm->tags[i].node);
	spin_lock_init(&tm->lock);
	INIT_LIST_HEAD(&tm->posted);
	tm->max_tags = n;
	tm->cq = to_sib_cq(init->ext.cq);
	srq->tm = tm;
	return 0;
}

/**
 * sib_tm_srq_free() - free a TM SRQ's list (no QP uses the SRQ any more)
 * @srq: SRQ, TM or not
 *
 * Context: process.
 */
void sib_tm_srq_free(struct sib_srq *srq)
{
	if (!srq->tm)
		return;
	kfree(srq->tm->tags);
	kfree(srq->tm);
	srq->tm = NULL;
}

/* post a completion to the TM SRQ's CQ */
static void sib_tm_cqe(struct sib_tm *tm, struct sib_cqe *c, u32 qpn)
{
	c->qp_num = qpn;
	c->port_num = 1;
	sib_cq_post(tm->cq, c, NULL, false);
}

static int sib_tm_op(struct sib_tm *tm, const struct sib_tm_op *op,
		     u32 *handle)
{
	struct sib_tm_tag *t;
	struct sib_cqe c;
	u8 opcode;
	u32 i;

	if (op->flags & ~(SIB_TM_OPF_SIGNALED | SIB_TM_OPF_SYNC))
		return -EINVAL;
	switch (op->opcode) {
	case SIB_TM_OP_ADD:
		if (op->num_sge > SIB_TM_MAX_SGE)
			return -EINVAL;
		spin_lock_irq(&tm->lock);
		for (i = 0; i < tm->max_tags && tm->tags[i].used; i++)
			;
		if (i == tm->max_tags) {
			spin_unlock_irq(&tm->lock);
			return -ENOSPC;
		}
		t = &tm->tags[i];
		t->used = true;
		t->tag = op->tag;
		t->mask = op->mask;
		t->wr_id = op->recv_wr_id;
		memset(&t->sge, 0, sizeof(t->sge));
		if (op->num_sge)
			t->sge = op->sge;
		list_add_tail(&t->node, &tm->posted);
		spin_unlock_irq(&tm->lock);
		*handle = i;
		opcode = SIB_WC_TM_ADD;
		break;
	case SIB_TM_OP_DEL:
		if (op->handle >= tm->max_tags)
			return -ENOENT;
		spin_lock_irq(&tm->lock);
		t = &tm->tags[op->handle];
		if (!t->used) {
			spin_unlock_irq(&tm->lock);
			return -ENOENT;
		}
		list_del_init(&t->node);
		t->used = false;
		spin_unlock_irq(&tm->lock);
		opcode = SIB_WC_TM_DEL;
		break;
	case SIB_TM_OP_SYNC:
		opcode = SIB_WC_TM_SYNC;
		break;
	default:
		return -EINVAL;
	}
	if (op->flags & SIB_TM_OPF_SIGNALED) {
		sib_cqe_clear(&c);
		c.wr_id = op->wr_id;
		c.status = IB_WC_SUCCESS;
		c.opcode = opcode;
		sib_tm_cqe(tm, &c, 0);
	}
	return 0;
}

static int UVERBS_HANDLER(SIB_METHOD_SRQ_TM_OP)(struct uverbs_attr_bundle *attrs)
{
	struct ib_srq *ibsrq = uverbs_attr_get_obj(attrs, SIB_ATTR_TM_OP_HANDLE);
	struct sib_tm_op_resp resp = {};
	struct sib_tm_op op;
	struct sib_srq *srq;
	int err;

	if (IS_ERR(ibsrq))
		return PTR_ERR(ibsrq);
	srq = to_sib_srq(ibsrq);
	if (!srq->tm)
		return -EINVAL;
	err = uverbs_copy_from(&op, attrs, SIB_ATTR_TM_OP_CMD);
	if (err)
		return err;
	err = sib_tm_op(srq->tm, &op, &resp.handle);
	if (err)
		return err;
	return uverbs_copy_to(attrs, SIB_ATTR_TM_OP_RESP, &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(
	SIB_METHOD_SRQ_TM_OP,
	UVERBS_ATTR_IDR(SIB_ATTR_TM_OP_HANDLE, UVERBS_OBJECT_SRQ,
			UVERBS_ACCESS_READ, UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(SIB_ATTR_TM_OP_CMD,
			   UVERBS_ATTR_STRUCT(struct sib_tm_op, reserved),
			   UA_MANDATORY),
	UVERBS_ATTR_PTR_OUT(SIB_ATTR_TM_OP_RESP,
			    UVERBS_ATTR_STRUCT(struct sib_tm_op_resp, reserved),
			    UA_MANDATORY));

ADD_UVERBS_METHODS(sib_srq_methods, UVERBS_OBJECT_SRQ,
		   &UVERBS_METHOD(SIB_METHOD_SRQ_TM_OP));

const struct uapi_definition sib_tm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_SRQ, &sib_srq_methods),
	{},
};

/**
 * sib_tm_qp_init() - a new QP on a TM SRQ gets its rendezvous queue
 * @qp: QP being created
 *
 * Context: process. Return: 0, -ENOMEM.
 */
int sib_tm_qp_init(struct sib_qp *qp)
{
	qp->tmq = kzalloc(sizeof(*qp->tmq), GFP_KERNEL);
	if (!qp->tmq)
		return -ENOMEM;
	INIT_LIST_HEAD(&qp->tmq->pending);
	return 0;
}

/**
 * sib_tm_qp_reset() - forget the rendezvous requests of a QP (RESET)
 * @qp: QP whose engines are stopped, or NULL tmq
 *
 * Context: process, no run of the QP.
 */
void sib_tm_qp_reset(struct sib_qp *qp)
{
	struct sib_tm_rndv *r, *n;

	if (!qp->tmq)
		return;
	list_for_each_entry_safe(r, n, &qp->tmq->pending, node)
		kfree(r);
	INIT_LIST_HEAD(&qp->tmq->pending);
	kfree(qp->tmq->cur);
	qp->tmq->cur = NULL;
}

/**
 * sib_tm_qp_free() - free a QP's rendezvous queue
 * @qp: QP being destroyed
 *
 * Context: process, no run of the QP.
 */
void sib_tm_qp_free(struct sib_qp *qp)
{
	sib_tm_qp_reset(qp);
	kfree(qp->tmq);
	qp->tmq = NULL;
}

/**
 * sib_tm_recv_start() - the first packet of a SEND to a QP on a TM SRQ
 * @qp: QP (its SRQ has a matching list)
 * @skb: the packet; its payload begins with the tag matching header
 *
 * Matches the header's tag: a matched eager message gets the tag's
 * buffer as its receive WQE, a matched rendezvous request one that
 * places nothing (its data is READ when the message ends).
 * Context: the QP's run. Return: true when the message takes a receive
 * WQE of the SRQ's ring instead (no header, no tag, no match), which the
 * caller fetches; qp->resp.tm_kind says which.
 */
bool sib_tm_recv_start(struct sib_qp *qp, struct sk_buff *skb)
{
	struct sib_resp_state *rs = &qp->resp;
	struct sib_pkt *pkt = sib_pkt(skb);
	struct sib_tm *tm = qp->srq->tm;
	u8 h[SIB_TMH_LEN + SIB_RVH_LEN];
	struct sib_tm_tag *t, found;
	u32 have = min_t(u32, pkt->paylen, sizeof(h));
	unsigned long flags;
	bool hit = false;

	rs->tm_kind = SIB_TM_PLAIN;
	rs->tm_op = 0xff;
	rs->tm_skip = 0;
	if (have < SIB_TMH_LEN ||
	    skb_copy_bits(skb, pkt->hdr_len, h, have))
		return true;
	rs->tm_op = h[0];
	memcpy(&rs->tm_ctx, h + 4, 4);
	rs->tm_tag = get_unaligned_be64(h + 8);
	if ((rs->tm_op != SIB_TMH_EAGER && rs->tm_op != SIB_TMH_RNDV) ||
	    (rs->tm_op == SIB_TMH_RNDV && have < SIB_TMH_LEN + SIB_RVH_LEN))
		return true;
	/* a receive WQE already at hand (a message dropped half way) serves */
	rs->tm_kind = SIB_TM_UNEXPECTED;
	if (rs->have_rwqe)
		return true;
	spin_lock_irqsave(&tm->lock, flags);
	list_for_each_entry(t, &tm->posted, node) {
		if ((rs->tm_tag ^ t->tag) & t->mask)
			continue;
		found = *t;
		list_del_init(&t->node);
		t->used = false;
		hit = true;
		break;
	}
	spin_unlock_irqrestore(&tm->lock, flags);
	if (!hit)
		return true;
	rs->rwqe.wr_id = found.wr_id;
	rs->rwqe.num_sge = found.sge.length ? 1 : 0;
	rs->rwqe.sge[0] = found.sge;
	if (rs->tm_op == SIB_TMH_EAGER) {
		rs->tm_kind = SIB_TM_EAGER;
		rs->tm_skip = SIB_TMH_LEN;
		rs->rwqe.total_len = found.sge.length;
	} else {
		rs->tm_kind = SIB_TM_RNDV;
		rs->tm_skip = U32_MAX;		/* nothing of it is placed */
		rs->rwqe.total_len = 0;
		rs->tm_va = get_unaligned_be64(h + SIB_TMH_LEN);
		rs->tm_rkey = get_unaligned_be32(h + SIB_TMH_LEN + 8);
		rs->tm_len = get_unaligned_be32(h + SIB_TMH_LEN + 12);
		rs->tm_sge = found.sge;
	}
	rs->have_rwqe = true;
	return false;
}

/* a WQE of the kernel's own at the end of the shadow SQ; sq.lock held */
static struct sib_swqe *sib_tm_sq_add(struct sib_qp *qp, u8 kind)
{
	struct sib_swqe *sw;

	if (qp->sq.kprod - READ_ONCE(qp->sq.comp) >= qp->sq.num)
		return NULL;
	sw = sib_swqe_at(qp, qp->sq.kprod);
	sib_swqe_reset(sw);
	memset(&sw->wqe, 0, sizeof(sw->wqe));
	sw->internal = kind;
	sw->wqe.send_flags = SIB_SEND_SIGNALED;
	return sw;
}

/* the FIN of @r, to the sender; false when the SQ has no room */
static bool sib_tm_fin(struct sib_qp *qp, struct sib_tm_rndv *r)
{
	struct sib_swqe *sw;
	u8 *h;

	spin_lock_irq(&qp->sq.lock);
	sw = sib_tm_sq_add(qp, SIB_SWQE_TM_FIN);
	if (sw) {
		sw->wqe.wr_id = r->wr_id;
		sw->wqe.opcode = IB_WR_SEND;
		sw->wqe.send_flags |= SIB_SEND_INLINE;
		sw->wqe.inline_len = SIB_TMH_LEN;
		h = sw->inline_data;
		memset(h, 0, SIB_TMH_LEN);
		h[0] = SIB_TMH_FIN;
		memcpy(h + 4, &r->app_ctx, 4);
		put_unaligned_be64(r->tag, h + 8);
		sw->total_len = SIB_TMH_LEN;
		smp_store_release(&qp->sq.kprod, qp->sq.kprod + 1);
	}
	spin_unlock_irq(&qp->sq.lock);
	return sw;
}

/* the DATA_VALID completion of @r's buffer (the tag was in its MATCH one) */
static void sib_tm_rndv_cqe(struct sib_qp *qp, struct sib_tm_rndv *r, u8 status)
{
	struct sib_cqe c;

	sib_cqe_clear(&c);
	c.wr_id = r->wr_id;
	c.status = status;
	if (status == IB_WC_SUCCESS && r->truncated)
		c.status = SIB_WC_TM_RNDV_INCOMPLETE;
	c.opcode = SIB_WC_TM_RECV;
	c.wc_flags = SIB_WC_F_TM_DATA_VALID;
	c.byte_len = r->len;
	/* the tag came with the MATCH completion; this one has none */
	c.src_qp = qp->dest_qpn;
	sib_tm_cqe(qp->srq->tm, &c, qp->ibqp.qp_num);
}

/* start the oldest waiting rendezvous when none is under way */
static void sib_tm_rndv_next(struct sib_qp *qp)
{
	struct sib_tm_qp *tq = qp->tmq;
	struct sib_tm_rndv *r;
	struct sib_swqe *sw;

	if (tq->cur || list_empty(&tq->pending))
		return;
	r = list_first_entry(&tq->pending, struct sib_tm_rndv, node);
	list_del(&r->node);
	tq->cur = r;
	if (!r->len) {
		/* nothing to READ: the data is all there, the FIN goes */
		sib_tm_rndv_cqe(qp, r, IB_WC_SUCCESS);
		sib_tm_fin(qp, r);
		return;
	}
	/* the slots kept for us are free while no rendezvous is under way */
	spin_lock_irq(&qp->sq.lock);
	sw = sib_tm_sq_add(qp, SIB_SWQE_TM_READ);
	if (sw) {
		sw->wqe.wr_id = r->wr_id;
		sw->wqe.opcode = IB_WR_RDMA_READ;
		sw->wqe.num_sge = 1;
		sw->wqe.wr.rdma.remote_addr = r->va;
		sw->wqe.wr.rdma.rkey = r->rkey;
		sw->sge[0] = r->sge;
		sw->sge[0].length = r->len;
		sw->total_len = r->len;
		smp_store_release(&qp->sq.kprod, qp->sq.kprod + 1);
	}
	spin_unlock_irq(&qp->sq.lock);
}

/**
 * sib_tm_recv_end() - complete a message of a TM SRQ
 * @qp: QP
 * @c: its completion as resp.c built it (wr_id, status, byte_len, ...)
 * @solicited: the message had the SE bit
 *
 * Gives the completion its TM opcode and flags and posts it to the SRQ's
 * CQ; a matched rendezvous request is queued for its READ.
 * Context: the QP's run.
 */
void sib_tm_recv_end(struct sib_qp *qp, struct sib_cqe *c, bool solicited)
{
	struct sib_resp_state *rs = &qp->resp;
	struct sib_tm *tm = qp->srq->tm;
	struct sib_tm_rndv *r;

	switch (rs->tm_kind) {
	case SIB_TM_PLAIN:
		if (rs->tm_op == SIB_TMH_NO_TAG)
			c->opcode = SIB_WC_TM_NO_TAG;
		break;
	case SIB_TM_UNEXPECTED:
		c->opcode = SIB_WC_TM_RECV;
		spin_lock_irq(&tm->lock);
		tm->unexpected++;
		spin_unlock_irq(&tm->lock);
		break;
	case SIB_TM_EAGER:
		c->opcode = SIB_WC_TM_RECV;
		c->wc_flags |= SIB_WC_F_TM_MATCH | SIB_WC_F_TM_DATA_VALID;
		c->tm_tag = rs->tm_tag;
		c->ex = rs->tm_ctx;
		break;
	case SIB_TM_RNDV:
		c->opcode = SIB_WC_TM_RECV;
		c->wc_flags |= SIB_WC_F_TM_MATCH;
		c->tm_tag = rs->tm_tag;
		c->ex = rs->tm_ctx;
		c->byte_len = 0;
		r = kzalloc(sizeof(*r), GFP_ATOMIC);
		if (!r) {
			c->status = IB_WC_LOC_QP_OP_ERR;
			break;
		}
		r->va = rs->tm_va;
		r->rkey = rs->tm_rkey;
		r->len = min(rs->tm_len, rs->tm_sge.length);
		r->truncated = rs->tm_len > rs->tm_sge.length;
		r->wr_id = c->wr_id;
		r->tag = rs->tm_tag;
		r->app_ctx = rs->tm_ctx;
		r->sge = rs->tm_sge;
		list_add_tail(&r->node, &qp->tmq->pending);
		break;
	default:
		break;
	}
	rs->tm_kind = SIB_TM_NONE;
	c->qp_num = qp->ibqp.qp_num;
	c->port_num = 1;
	sib_cq_post(tm->cq, c, NULL, solicited);
	sib_tm_rndv_next(qp);
}

/**
 * sib_tm_wqe_done() - one of the kernel's own WQEs completed
 * @qp: QP
 * @sw: its rendezvous READ or FIN
 * @status: IB_WC_* (IB_WC_WR_FLUSH_ERR when the QP failed)
 *
 * The READ's end completes the buffer (DATA_VALID) and sends the FIN; the
 * FIN's end lets the next rendezvous start. No completion of the QP's
 * own send CQ: these are not the application's WRs.
 * Context: the QP's run.
 */
void sib_tm_wqe_done(struct sib_qp *qp, struct sib_swqe *sw, u8 status)
{
	struct sib_tm_qp *tq = qp->tmq;
	struct sib_tm_rndv *r = tq ? tq->cur : NULL;

	if (!r)
		return;
	if (sw->internal == SIB_SWQE_TM_READ) {
		sib_tm_rndv_cqe(qp, r, status);
		if (status == IB_WC_SUCCESS && sib_tm_fin(qp, r))
			return;
	}
	tq->cur = NULL;
	kfree(r);
	if (status == IB_WC_SUCCESS)
		sib_tm_rndv_next(qp);
}
