/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sibtest: the verbs set-up that softib's C test programs (tests/) and the
 * verbs tools under tools/ share: opening a device by name, finding its
 * RoCE v2 IPv4 GID, moving a QP RESET -> INIT -> RTR -> RTS with the
 * attributes a program names, polling a CQ with a timeout, reading a port
 * counter and printing a program's case names (--list). Plain libibverbs;
 * build tests/lib/sibtest.c into the program (see docs/testing.md).
 */
#ifndef SIBTEST_H
#define SIBTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define SIBT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* CLOCK_MONOTONIC in seconds */
double sibt_now(void);

/*
 * The device called @name opened (NULL: the last one ibv_get_device_list
 * gives); NULL with errno ENODEV when there is none, else ibv_open_device's
 * errno.
 */
struct ibv_context *sibt_open(const char *name);

/*
 * The first RoCE v2 GID of an IPv4 address (::ffff:a.b.c.d) among the
 * first @max entries of @port's GID table: its index (and *gid), or -1.
 */
int sibt_find_gid(struct ibv_context *ctx, uint8_t port, int max,
		  union ibv_gid *gid);

/*
 * The attributes of the three modifies. Zero means: port 1, P_Key index 0,
 * path MTU 1024, hop limit 64; every other field is used as given, so a
 * program names each value it relies on. The attribute masks follow the
 * QP type: RC (and XRC) INIT with access flags, RTR with the address
 * vector, path MTU, destination QPN, RQ PSN, max_dest_rd_atomic and
 * min_rnr_timer, RTS with the SQ PSN, timeout, retry_cnt, rnr_retry and
 * max_rd_atomic; UC the same less the RDMA READ and retry attributes; UD
 * INIT with the Q_Key, RTR with the state alone, RTS with the SQ PSN.
 */
struct sibt_conn {
	uint8_t port;
	uint16_t pkey_index;
	unsigned int access;		/* INIT: qp_access_flags (RC, UC) */
	uint32_t qkey;			/* INIT: Q_Key (UD) */
	/* RTR */
	enum ibv_mtu mtu;
	uint32_t dest_qpn, rq_psn;
	union ibv_gid dgid;
	uint8_t sgid_index, hop_limit;
	uint8_t max_dest_rd_atomic, min_rnr_timer;
	/* RTS */
	uint32_t sq_psn;
	uint8_t timeout, retry_cnt, rnr_retry, max_rd_atomic;
};

/* one modify each: 0 or ibv_modify_qp's error (also in errno) */
int sibt_qp_init(struct ibv_qp *qp, const struct sibt_conn *c);
int sibt_qp_rtr(struct ibv_qp *qp, const struct sibt_conn *c);
int sibt_qp_rts(struct ibv_qp *qp, const struct sibt_conn *c);

/*
 * RESET -> INIT -> RTR -> RTS: 0, or the state whose modify failed
 * (IBV_QPS_INIT, IBV_QPS_RTR or IBV_QPS_RTS) with errno set.
 */
int sibt_qp_to_rts(struct ibv_qp *qp, const struct sibt_conn *c);

/* "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" or "?" */
const char *sibt_qp_state_name(int state);

/* the QP's state (ibv_query_qp), or -1 */
int sibt_qp_state(struct ibv_qp *qp);

/*
 * One completion of @cq within @secs seconds, polling without pause or,
 * with @idle_us, sleeping that long whenever the CQ is empty: 1 (*wc
 * filled), 0 when none came, ibv_poll_cq's negative value when it failed.
 */
int sibt_poll(struct ibv_cq *cq, struct ibv_wc *wc, double secs,
	      unsigned int idle_us);

/*
 * The port counter /sys/class/infiniband/DEV/ports/PORT/hw_counters/NAME,
 * or -1 when it cannot be read.
 */
long long sibt_counter(const char *dev, int port, const char *name);

/*
 * --list: @names one per line on stdout. The same table names the cases a
 * program runs, so what it lists is what it can run.
 */
void sibt_list(const char *const *names, size_t n);

/* the index of @name in @names, or -1 */
int sibt_case_index(const char *const *names, size_t n, const char *name);

/*
 * Case results. A case calls sibt_fail() for what went wrong (the first
 * call of a case is kept: it tells most) and ends with sibt_report(),
 * which prints "CASE <prefix><name> ok|FAIL <reason>" and starts the next
 * case clean (an ok prints what sibt_ok_detail() set, if anything).
 * sibt_case_failed(): whether the running case failed so far;
 * sibt_any_failed(): whether any reported case failed.
 */
void sibt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the detail an ok of the running case prints (the last call counts) */
void sibt_ok_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int sibt_case_failed(void);
void sibt_report(const char *prefix, const char *name);
int sibt_any_failed(void);

/*
 * The command line of a program with named cases: "PROG [-d DEV] [-o
 * CASE]... | --list | --help" (--dev, --only, --list, --help); @note is a
 * line for the usage text or NULL. Fills *dev (NULL: not given) and
 * only[i] for each -o (none: all zero). Return: -1 to go on and run the
 * cases, else the exit status (0 after --list/--help, 2 on a bad option
 * or an unknown case, after a message on stderr).
 */
int sibt_case_args(int argc, char **argv, const char *prog, const char *note,
		   const char *const *names, size_t n, bool *only,
		   const char **dev);

/*
 * Runs funcs[i] of each case that @only selects (all when none is), each
 * followed by sibt_report(@prefix, names[i]).
 */
void sibt_run_cases(const char *prefix, const char *const *names,
		    void (*const *funcs)(void), size_t n, const bool *only);

/* a set-up step failed: "<prog>: <msg> (<errno text>)" on stderr, exit 2 */
void sibt_die(const char *prog, const char *msg) __attribute__((noreturn));

/* @len bytes of pattern @seed; the first byte that differs from it or -1 */
void sibt_pattern(unsigned char *p, size_t len, unsigned int seed);
long sibt_bad_byte(const unsigned char *p, size_t len, unsigned int seed);

/*
 * Two RC QPs of one device connected to each other (the requester @a, the
 * responder @b), each with its own CQ, through the GID @gidx of port 1:
 * path MTU 1024, remote write, read and atomic access, 4 reads in flight,
 * 64 WRs and 4 SGEs each way. sibt_pair_new() makes a fresh pair (after an
 * error left the last one in ERR), sibt_pair_free() frees it. They return
 * 0, or -1 with errno (and what failed in *what).
 */
struct sibt_side {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
};
struct sibt_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	int gidx;
	struct sibt_side a, b;
};
int sibt_pair_new(struct sibt_pair *p, const char **what);
/* p->ctx = @ctx, a new PD, the first RoCE v2 IPv4 GID, then sibt_pair_new() */
int sibt_pair_setup(struct sibt_pair *p, struct ibv_context *ctx,
		    const char **what);
void sibt_pair_free(struct sibt_pair *p);

/*
 * One signaled work request of @p->a and its completion within 10 s: the
 * completion's status, -1 when none came, -2 when posting or polling
 * failed (errno). sibt_pair_rdma(): RDMA WRITE/READ (or SEND) of one SGE;
 * sibt_pair_atomic(): FETCH_ADD/CMP_SWAP into the 8 bytes at @res.
 */
int sibt_pair_rdma(struct sibt_pair *p, enum ibv_wr_opcode op, void *local,
		   uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey);
int sibt_pair_atomic(struct sibt_pair *p, enum ibv_wr_opcode op,
		     uint64_t *res, uint32_t lkey, uint64_t raddr,
		     uint32_t rkey, uint64_t cmp_add, uint64_t swap);
/* one completion of @s within 10 s: its status, -1 none, -2 poll failed */
int sibt_side_wait(struct sibt_side *s, struct ibv_wc *wc);

/* a status from the calls above as text ("no completion in 10 s"...) */
const char *sibt_status_str(int st);

#endif
