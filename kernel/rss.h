/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_RSS_H
#define SIB_RSS_H

#include "softib.h"

/*
 * struct sib_rwq - a receive WQ (rss.c)
 * @ibwq: the core's object
 * @dev: device
 * @lock: @kcons and @state
 * @ring: receive WQEs, posted by user space
 * @max_sge: SGEs per WQE
 * @kcons: consumer index
 * @state: IB_WQS_RESET, _RDY or _ERR
 * @cq: where its completions go
 */
struct sib_rwq {
	struct ib_wq ibwq;
	struct sib_dev *dev;
	spinlock_t lock;
	struct mutex flush_lock;	/* one flush at a time: CQEs in order */
	struct sib_ring ring;
	u32 max_sge;
	u32 kcons;
	enum ib_wq_state state;
	struct sib_cq *cq;
};

/* the core's indirection table, nothing of ours beside it */
struct sib_rwq_ind_table {
	struct ib_rwq_ind_table ibtbl;
};

/*
 * struct sib_rss - what an RSS QP hashes and where it places frames
 * @tbl: the indirection table (held by the QP: the core's usecnt)
 * @fields: SIB_RX_HASH_* fields hashed
 * @key: Toeplitz key
 */
struct sib_rss {
	struct ib_rwq_ind_table *tbl;
	u64 fields;
	u8 key[SIB_RX_HASH_KEY_LEN];
};

struct ib_wq *sib_create_wq(struct ib_pd *pd, struct ib_wq_init_attr *init,
			    struct ib_udata *udata);
int sib_modify_wq(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		  struct ib_udata *udata);
int sib_destroy_wq(struct ib_wq *ibwq, struct ib_udata *udata);
int sib_create_rwq_ind_table(struct ib_rwq_ind_table *ibtbl,
			     struct ib_rwq_ind_table_init_attr *init,
			     struct ib_udata *udata);
int sib_destroy_rwq_ind_table(struct ib_rwq_ind_table *ibtbl);
int sib_rss_qp_setup(struct sib_qp *qp, struct ib_qp_init_attr *init,
		     const struct sib_create_qp_cmd *cmd);
void sib_rss_rcv(struct sib_qp *qp, struct sk_buff *skb);

#endif /* SIB_RSS_H */
