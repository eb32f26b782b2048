// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loop-check: RC traffic between two QPs of one device (same-device
 * loopback), in one thread, with every byte and completion checked.
 *
 *   data      SEND, SEND with immediate, inline SEND, RDMA WRITE and
 *             RDMA WRITE with immediate of 1..MTU bytes, both directions
 *   rnr       a SEND before its receive is posted (rnr_retry 7): it must
 *             arrive once the receive is there
 *   rnr_exc   the same with rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR
 *   bad_rkey  an RDMA WRITE with a wrong R_Key: IBV_WC_REM_ACCESS_ERR
 *   too_long  a SEND longer than the receive buffer: IBV_WC_REM_INV_REQ_ERR
 *             at the requester, IBV_WC_LOC_LEN_ERR at the responder
 *
 * Prints "CASE <name> ok|FAIL <detail>" per case; exit 0 iff all ok.
 * --list prints the case names, one per line, and needs no device.
 */
#include <infiniband/verbs.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sibtest.h"

#define BUF	4096
#define MTU	1024

struct side {
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *mr;
	char *buf;		/* [0, BUF): send source, [BUF, 2 * BUF): target */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gidx = 1, failed;
static char why[256];

static void die(const char *msg)
{
	fprintf(stderr, "loop-check: %s\n", msg);
	exit(2);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;		/* the first failure tells most */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static void side_init(struct side *s)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	s->scq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	s->rcq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	s->buf = calloc(2, BUF);
	if (!s->scq || !s->rcq || !s->buf)
		die("setup failed");
	s->mr = ibv_reg_mr(pd, s->buf, 2 * BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	ia.send_cq = s->scq;
	ia.recv_cq = s->rcq;
	s->qp = ibv_create_qp(pd, &ia);
	if (!s->mr || !s->qp)
		die("create_qp or reg_mr failed");
}

static void side_fini(struct side *s)
{
	ibv_destroy_qp(s->qp);
	ibv_dereg_mr(s->mr);
	ibv_destroy_cq(s->scq);
	ibv_destroy_cq(s->rcq);
	free(s->buf);
}

static void to_rts(struct ibv_qp *qp, uint32_t dqpn, int rnr_retry)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .dgid = gid,
		.sgid_index = gidx, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,		/* 0.01 ms */
		.timeout = 14, .retry_cnt = 7, .rnr_retry = rnr_retry,
		.max_rd_atomic = 1,
	};
	int st = sibt_qp_to_rts(qp, &c);

	if (st) {
		fprintf(stderr, "loop-check: modify to %s failed\n",
			sibt_qp_state_name(st));
		exit(2);
	}
}

static void pair_init(struct side *a, struct side *b, int rnr_retry)
{
	side_init(a);
	side_init(b);
	to_rts(a->qp, b->qp->qp_num, rnr_retry);
	to_rts(b->qp, a->qp->qp_num, rnr_retry);
}

/* one completion from @cq within 10 s; 0 when none came */
static int get_cqe(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = sibt_poll(cq, wc, 10, 0);

	if (n < 0)
		die("poll_cq failed");
	return n;
}

static void post_recv(struct side *s, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + BUF, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->qp, &wr, &bad))
		die("post_recv failed");
}

static void post_send(struct side *s, struct side *peer, enum ibv_wr_opcode op,
		      uint32_t len, unsigned int flags, uint64_t wr_id,
		      uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, len, s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htobe32((uint32_t)wr_id),
	}, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)peer->buf + BUF;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(s->qp, &wr, &bad))
		die("post_send failed");
}

static void expect_wc(struct ibv_cq *cq, const char *what, uint64_t wr_id,
		      enum ibv_wc_status st, int opcode, int byte_len)
{
	struct ibv_wc wc;

	if (!get_cqe(cq, &wc)) {
		fail("no %s completion in 10 s", what);
		return;
	}
	if (wc.status != st)
		fail("%s completion: %s, not %s", what,
		     ibv_wc_status_str(wc.status), ibv_wc_status_str(st));
	else if (wc.wr_id != wr_id)
		fail("%s completion: wr_id %llu, not %llu", what,
		     (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	else if (st == IBV_WC_SUCCESS && opcode >= 0 && (int)wc.opcode != opcode)
		fail("%s completion: opcode %d, not %d", what, wc.opcode, opcode);
	else if (st == IBV_WC_SUCCESS && byte_len >= 0 &&
		 (int)wc.byte_len != byte_len)
		fail("%s completion: byte_len %u, not %d", what, wc.byte_len,
		     byte_len);
	else if (st == IBV_WC_SUCCESS && (wc.wc_flags & IBV_WC_WITH_IMM) &&
		 be32toh(wc.imm_data) != (uint32_t)wr_id)
		fail("%s completion: wrong immediate", what);
}

static void report(const char *name)
{
	printf("CASE %s %s %s\n", name, why[0] ? "FAIL" : "ok", why);
	if (why[0])
		failed = 1;
	why[0] = 0;
}

static void fill(struct side *s, uint32_t len, unsigned int seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		s->buf[i] = (char)(seed * 31 + i * 7 + 1);
}

/* one message @from -> @to of @len bytes with @op; every effect checked */
static void one(struct side *from, struct side *to, int op, uint32_t len,
		uint64_t id)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND,
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	static const int wc_send[] = {
		IBV_WC_SEND, IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE,
		IBV_WC_RDMA_WRITE,
	};
	bool recv = op != 3, inl = op == 2;

	if (inl && len > 64)
		len = 64;
	fill(from, len, (unsigned int)id);
	memset(to->buf + BUF, 0, len + 16);
	if (recv)
		post_recv(to, id, BUF);
	post_send(from, to, ops[op], len, inl ? IBV_SEND_INLINE : 0, id,
		  to->mr->rkey);
	expect_wc(from->scq, "send", id, IBV_WC_SUCCESS, wc_send[op], -1);
	if (recv)
		expect_wc(to->rcq, "receive", id, IBV_WC_SUCCESS,
			  op == 4 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
			  op == 4 ? -1 : (int)len);
	if (memcmp(from->buf, to->buf + BUF, len))
		fail("message %llu (op %d, %u B): data differ",
		     (unsigned long long)id, op, len);
	if (to->buf[BUF + len])
		fail("message %llu: byte after the data written", (unsigned long long)id);
}

static int iters = 2000;

static void case_data(void)
{
	struct side a, b;
	int i;

	pair_init(&a, &b, 7);
	for (i = 0; i < iters && !why[0]; i++) {
		uint32_t len = 1 + (uint32_t)rand() % MTU;

		one(i & 1 ? &b : &a, i & 1 ? &a : &b, rand() % 5, len, i + 1);
	}
	side_fini(&a);
	side_fini(&b);
}

static void case_rnr(void)
{
	struct side a, b;

	pair_init(&a, &b, 7);
	fill(&a, 100, 5);
	post_send(&a, &b, IBV_WR_SEND, 100, 0, 1, 0);
	usleep(50000);
	post_recv(&b, 2, BUF);
	expect_wc(a.scq, "send", 1, IBV_WC_SUCCESS, IBV_WC_SEND, -1);
	expect_wc(b.rcq, "receive", 2, IBV_WC_SUCCESS, IBV_WC_RECV, 100);
	if (!why[0] && memcmp(a.buf, b.buf + BUF, 100))
		fail("data differ");
	side_fini(&a);
	side_fini(&b);
}

static void case_rnr_exc(void)
{
	struct side a, b;

	pair_init(&a, &b, 0);
	post_send(&a, &b, IBV_WR_SEND, 8, 0, 1, 0);
	expect_wc(a.scq, "send", 1, IBV_WC_RNR_RETRY_EXC_ERR, -1, -1);
	side_fini(&a);
	side_fini(&b);
}

static void case_bad_rkey(void)
{
	struct side a, b;

	pair_init(&a, &b, 7);
	post_send(&a, &b, IBV_WR_RDMA_WRITE, 8, 0, 1, b.mr->rkey ^ 0x5a00);
	expect_wc(a.scq, "write", 1, IBV_WC_REM_ACCESS_ERR, -1, -1);
	if (!why[0] && b.buf[BUF])
		fail("the WRITE changed the target");
	side_fini(&a);
	side_fini(&b);
}

static void case_too_long(void)
{
	struct side a, b;

	pair_init(&a, &b, 7);
	post_recv(&b, 2, 16);
	post_send(&a, &b, IBV_WR_SEND, 64, 0, 1, 0);
	expect_wc(a.scq, "send", 1, IBV_WC_REM_INV_REQ_ERR, -1, -1);
	expect_wc(b.rcq, "receive", 2, IBV_WC_LOC_LEN_ERR, -1, -1);
	side_fini(&a);
	side_fini(&b);
}

/* the cases, in the order they run */
static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "data", case_data },
	{ "rnr", case_rnr },
	{ "rnr_exc", case_rnr_exc },
	{ "bad_rkey", case_bad_rkey },
	{ "too_long", case_too_long },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", 0, NULL, 'l' }, { 0 }
	};
	const char *dev_name = "sib0";
	const char *names[SIBT_ARRAY_SIZE(cases)];
	unsigned int i;
	int c;

	for (i = 0; i < SIBT_ARRAY_SIZE(cases); i++)
		names[i] = cases[i].name;
	while ((c = getopt_long(argc, argv, "d:g:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'l':
			sibt_list(names, SIBT_ARRAY_SIZE(names));
			return 0;
		default:
			fprintf(stderr, "usage: loop-check [-d DEV] [-g GIDX] [-n ITERS] [--list]\n");
			return 2;
		}
	}
	ctx = sibt_open(dev_name);
	if (!ctx)
		die("cannot open the device");
	if (ibv_query_gid(ctx, 1, gidx, &gid))
		die("query_gid failed");
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("alloc_pd failed");
	srand(1);
	for (i = 0; i < SIBT_ARRAY_SIZE(cases); i++) {
		cases[i].run();
		report(cases[i].name);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return failed;
}
