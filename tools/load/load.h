/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sib-load: a verifying RC load generator for RDMA devices.
 *
 * Terms: an "endpoint" is one RC QP with its CQs and buffers. QP pair i is
 * endpoints 2i (on the first device) and 2i+1 (on the peer device). Each
 * endpoint is a requester towards its peer (unless --one-way: then only the
 * even endpoints issue work) and a responder for its peer's requests.
 */
#ifndef SIB_LOAD_H
#define SIB_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define LOAD_MAX_SGE		32	/* SGEs per WR the tool ever builds */
#define LOAD_ATOM_WORDS		8	/* 64-bit atomic targets per flow */
#define LOAD_MARGIN		64	/* guard bytes around every region */
#define LOAD_GAP		4096	/* room for random gaps between SGEs */
#define LOAD_MAX_MISMATCH_LOG	10	/* detailed mismatch reports printed */
#define LOAD_RECV_FLAG		(1ULL << 63)
#define LOAD_EP_SHIFT		48
#define LOAD_SEQ_MASK		((1ULL << LOAD_EP_SHIFT) - 1)

enum load_op {
	OP_WRITE,
	OP_WRITE_IMM,
	OP_READ,
	OP_SEND,
	OP_SEND_IMM,
	OP_CMP_SWP,
	OP_FETCH_ADD,
	OP_NUM
};

struct load_rng {
	uint64_t s[4];
};

/* one local SGE: offset in the requester's slot region and its length */
struct load_piece {
	uint32_t off;
	uint32_t len;
};

/* one posted send-queue WR, kept until it is known to be complete */
struct load_wr {
	uint64_t seq;
	enum load_op op;
	uint32_t len;		/* message length (8 for atomics) */
	uint32_t roff;		/* offset in the responder's slot region / atomic word */
	uint32_t nsge;
	struct load_piece sge[LOAD_MAX_SGE];
	uint32_t imm;
	uint64_t compare, swap_add;	/* atomics */
	uint64_t expect_orig;		/* atomics: original value by the shadow model */
	bool signaled;
};

/* a receive-consuming message the responder must see, in order */
struct load_expect {
	uint64_t seq;		/* requester's op sequence */
	enum load_op op;
	uint32_t len;
	uint32_t imm;
};

struct load_dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port_attr;
	int gid_index;
	union ibv_gid gid;
	int ndev_counters;
	char **counter_names;
	uint64_t *counters_before;
	uint64_t *counters_after;
};

struct load_ep {
	int id;
	struct load_dev *dev;
	struct load_ep *peer;
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	uint32_t sq_psn;

	/* requester side: slot s of local[] belongs to the WR with seq % depth == s */
	uint8_t *local;
	struct ibv_mr *local_mr;
	uint64_t *result;	/* atomic results, one word per slot */
	struct ibv_mr *result_mr;

	/* responder side (targets of the peer's requests) */
	uint8_t *target;
	struct ibv_mr *target_mr;
	uint64_t *atom;
	struct ibv_mr *atom_mr;
	uint8_t *recv;
	struct ibv_mr *recv_mr;
	uint32_t *recv_dirty;	/* per receive slot: bytes to re-canary */
	uint64_t recv_posted, recv_done;
	struct load_expect *expect;	/* ring of depth entries */
	uint64_t expect_head, expect_tail;

	/* requester state */
	bool active;		/* issues requests */
	bool dead;		/* saw an error completion: posts no more */
	uint64_t dead_seq;	/* first seq that did not complete successfully */
	bool recv_dead;		/* its receive queue was flushed */
	struct load_rng rng;
	struct load_wr *wrs;	/* ring of depth entries */
	uint64_t post_seq, done_seq;
	struct load_wr next;	/* generated, waiting to be posted */
	bool have_next;
	uint32_t since_signal;
	uint64_t shadow[LOAD_ATOM_WORDS];
	uint32_t pending[LOAD_ATOM_WORDS];
};

struct load_opts {
	const char *dev1, *dev2;
	int port;
	int gid_index;
	int qps;
	uint64_t ops_per_qp;
	double seconds;
	uint64_t total_bytes;
	uint64_t max_size;
	int max_sge;
	int depth;
	uint64_t seed;
	double stall_timeout;
	unsigned op_mask;
	bool one_way;
	bool fixed_size;	/* every message is max_size bytes */
	bool no_empty;		/* no 0-byte messages */
	int signal_every;
	int mtu;		/* enum ibv_mtu, 0 = active MTU */
	int ack_timeout, retry_cnt, rnr_retry, min_rnr_timer;
	int expect_status;	/* -1: none */
	double recv_delay;	/* post the first receives this late */
	double peer_error_after;	/* move the second QPs to ERROR then */
	bool json;
	int verbose;
};

struct load_stats {
	uint64_t ops[OP_NUM];		/* completed successfully */
	uint64_t posted;
	uint64_t bytes;
	uint64_t bytes_posted;
	uint64_t send_cqes, recv_cqes;
	uint64_t mismatches, bad_bytes;
	uint64_t lost, duplicated, unknown, bad_cqe;
	uint64_t status[32];		/* by enum ibv_wc_status (bounded) */
	uint64_t flushed_recv;
	uint64_t verb_errors;		/* failed ibv_post_send/recv, ibv_poll_cq < 0 */
	double elapsed;
};

struct load {
	struct load_opts o;
	struct load_dev devs[2];
	int ndevs;
	struct load_ep *eps;
	int neps;
	uint64_t slot_size;	/* requester / target slot region */
	uint64_t recv_size;	/* receive slot region */
	int sge_send, sge_recv, sge_rd;
	int path_mtu;		/* enum ibv_mtu in use */
	bool atomics;
	struct load_stats st;
	int mismatch_logged;
	double t_start;
	bool recvs_posted, peers_killed;
};

/* pattern.c */
uint64_t load_mix64(uint64_t x);
void load_rng_seed(struct load_rng *r, uint64_t seed);
uint64_t load_rng_next(struct load_rng *r);
uint64_t load_rng_below(struct load_rng *r, uint64_t n);
uint64_t load_op_key(uint64_t seed, int ep, uint64_t seq);
void load_pat_fill(uint8_t *dst, uint64_t key, uint64_t off, size_t len);
size_t load_pat_check(const uint8_t *buf, uint64_t key, uint64_t off, size_t len,
		      size_t *first_bad, uint8_t *got, uint8_t *want);
size_t load_byte_check(const uint8_t *buf, uint8_t val, size_t len, size_t *first_bad);
double load_now(void);

/* engine.c */
const char *load_op_name(enum load_op op);
int load_run(struct load *l);

#endif /* SIB_LOAD_H */
