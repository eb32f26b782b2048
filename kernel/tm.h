/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_TM_H
#define SIB_TM_H

#include <rdma/uverbs_ioctl.h>

#include "softib.h"

/* what softib offers (struct ib_tm_caps) */
#define SIB_TM_MAX_TAGS		256
#define SIB_TM_MAX_OPS		1024
#define SIB_TM_MAX_SGE		1
#define SIB_TM_RNDV_HDR		64	/* TMH + RVH + 32 bytes of the application's */
/* shadow SQ slots a QP on a TM SRQ keeps for its rendezvous READ and FIN */
#define SIB_TM_QP_SLOTS		2

/* struct sib_swqe.internal: a WQE the kernel put in the SQ itself */
enum {
	SIB_SWQE_USER,
	SIB_SWQE_TM_READ,		/* rendezvous: the data, from the sender */
	SIB_SWQE_TM_FIN,		/* rendezvous: the FIN to the sender */
};

/* struct sib_resp_state.tm_kind: what the message at hand is to the SRQ */
enum {
	SIB_TM_NONE,			/* not a TM SRQ */
	SIB_TM_PLAIN,			/* no tag (or no TMH): a receive WQE */
	SIB_TM_UNEXPECTED,		/* a tag no buffer matched: a receive WQE */
	SIB_TM_EAGER,			/* matched: data after the TMH to the tag's buffer */
	SIB_TM_RNDV,			/* matched rendezvous: the data is READ later */
};

/*
 * struct sib_tm_tag - a tagged buffer of a TM SRQ
 * @node: in sib_tm.posted while it waits for a message, in ADD order
 * @tag, @mask: a message's tag matches when (tag ^ @tag) & @mask is 0
 * @wr_id: its completions' wr_id
 * @sge: the buffer (or length 0)
 * @used: the handle is taken
 */
struct sib_tm_tag {
	struct list_head node;
	u64 tag;
	u64 mask;
	u64 wr_id;
	struct sib_sge sge;
	bool used;
};

/*
 * struct sib_tm - a TM SRQ's matching list
 * @lock: everything below
 * @posted: tags waiting for a message
 * @tags: all handles, @max_tags of them
 * @unexpected: messages that found no tag
 * @cq: the SRQ's CQ: list operation and message completions
 */
struct sib_tm {
	spinlock_t lock;
	struct list_head posted;
	struct sib_tm_tag *tags;
	u32 max_tags;
	u32 unexpected;
	struct sib_cq *cq;
};

/*
 * struct sib_tm_rndv - a matched rendezvous request waiting for the QP's
 * send queue (one at a time: its READ, then its FIN)
 */
struct sib_tm_rndv {
	struct list_head node;
	u64 va;
	u32 rkey;
	u32 len;			/* bytes to READ (the buffer's, at most) */
	bool truncated;			/* the sender offered more than fits */
	u64 wr_id;
	u64 tag;
	__be32 app_ctx;
	struct sib_sge sge;
};

/* struct sib_qp.tmq: a QP whose SRQ matches tags */
struct sib_tm_qp {
	struct list_head pending;	/* struct sib_tm_rndv, oldest first */
	struct sib_tm_rndv *cur;	/* its READ or FIN is in the SQ */
};

extern const struct uapi_definition sib_tm_uapi_defs[];

int sib_tm_srq_init(struct sib_srq *srq, struct ib_srq_init_attr *init);
void sib_tm_srq_free(struct sib_srq *srq);
int sib_tm_qp_init(struct sib_qp *qp);
void sib_tm_qp_free(struct sib_qp *qp);
bool sib_tm_recv_start(struct sib_qp *qp, struct sk_buff *skb);
void sib_tm_recv_end(struct sib_qp *qp, struct sib_cqe *c, bool solicited);
void sib_tm_qp_reset(struct sib_qp *qp);
void sib_tm_wqe_done(struct sib_qp *qp, struct sib_swqe *sw, u8 status);
void sib_tm_caps(struct ib_tm_caps *caps);

#endif /* SIB_TM_H */
