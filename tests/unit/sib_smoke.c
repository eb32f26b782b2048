// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib_smoke: exercise the provider on a real softib device (run it in the
 * VM: tools/vm-run -- tests/unit/sib_smoke sib0). Two RC QPs connected to
 * each other and two UD QPs on the same port move data through every
 * provider path: legacy and ex post APIs, legacy and ex CQ polling, inline
 * data, immediate data, RDMA WRITE/READ, ring wrap-around, CQ resize, and
 * the errors the provider itself reports. Ends with "N passed, M failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include "sibtest.h"

static unsigned int passed, failed;

static int check(int ok, const char *fmt, ...)
{
	va_list ap;

	ok ? passed++ : failed++;
	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

#define BUF 65536
#define DEPTH 64

struct ep {
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq_a, *cq_b;	/* cq_a is an ibv_cq_ex */
static struct ibv_cq_ex *cqx_a;
static int gid_idx = -1;
static union ibv_gid gid;

/* Poll one completion (legacy or ex CQ) with a 10 s timeout. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (cq == cq_a) {
			struct ibv_poll_cq_attr pa = {};

			n = ibv_start_poll(cqx_a, &pa);
			if (!n) {
				memset(wc, 0, sizeof(*wc));
				wc->wr_id = cqx_a->wr_id;
				wc->status = cqx_a->status;
				wc->opcode = ibv_wc_read_opcode(cqx_a);
				wc->byte_len = ibv_wc_read_byte_len(cqx_a);
				wc->wc_flags = ibv_wc_read_wc_flags(cqx_a);
				wc->imm_data = ibv_wc_read_imm_data(cqx_a);
				wc->qp_num = ibv_wc_read_qp_num(cqx_a);
				wc->src_qp = ibv_wc_read_src_qp(cqx_a);
				ibv_end_poll(cqx_a);
				return 1;
			}
			if (n != ENOENT)
				return -1;
		} else {
			n = ibv_poll_cq(cq, 1, wc);
			if (n)
				return n;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10)
			return 0;
	}
}

static int expect_wc(struct ibv_cq *cq, uint64_t wr_id, enum ibv_wc_opcode op,
		     uint32_t len, const char *what)
{
	struct ibv_wc wc;
	int n = poll_one(cq, &wc);

	if (!check(n == 1, "%s: completion arrives (n=%d)", what, n))
		return 0;
	return check(wc.status == IBV_WC_SUCCESS && wc.wr_id == wr_id &&
		     wc.opcode == op && (len == ~0U || wc.byte_len == len),
		     "%s: status %s wr_id %llu opcode %d len %u", what,
		     ibv_wc_status_str(wc.status),
		     (unsigned long long)wc.wr_id, wc.opcode, wc.byte_len);
}

static struct ibv_qp *make_qp(enum ibv_qp_type t, struct ibv_cq *cq, int ex)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = t, .pd = pd,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 128 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};

	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				   IBV_QP_EX_WITH_SEND_WITH_IMM |
				   IBV_QP_EX_WITH_RDMA_READ;
	}
	return ibv_create_qp_ex(ctx, &a);
}

/* RESET -> RTS: 0, or -1, -2, -3 when the modify to INIT, RTR, RTS failed */
static int to_rts(struct ibv_qp *qp, uint32_t dqpn)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_LOCAL_WRITE,
		.qkey = 0x11111111,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .rq_psn = 100,
		.dgid = gid, .sgid_index = (uint8_t)gid_idx,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 1,
		.sq_psn = 100, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 4,
	};

	return -sibt_qp_to_rts(qp, &c);
}

static int post_recv(struct ep *e, uint64_t id, uint32_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int post_send(struct ep *e, uint64_t id, enum ibv_wr_opcode op,
		     uint32_t off, uint32_t len, unsigned int flags,
		     uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge s = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1,
				  .opcode = op, .send_flags = flags,
				  .imm_data = htonl(0x1234abcd) };
	struct ibv_send_wr *bad;

	int ret;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = ibv_post_send(e->qp, &wr, &bad);
	if (ret)
		printf("     post_send(opcode %d): %s\n", op, strerror(ret));
	return ret;
}

static void fill(char *p, int len, int seed)
{
	int i;

	for (i = 0; i < len; i++)
		p[i] = (char)(seed + i * 7);
}

/* SEND, SEND with immediate + inline, RDMA WRITE (+imm), RDMA READ */
static void rc_tests(struct ep *a, struct ep *b)
{
	struct ibv_wc wc;
	int n;

	/* SEND a -> b */
	fill(a->buf, 100, 1);
	check(!post_recv(b, 1, 0, 4096), "post_recv");
	check(!post_send(a, 2, IBV_WR_SEND, 0, 100, IBV_SEND_SIGNALED, 0, 0),
	      "post_send SEND");
	expect_wc(cq_a, 2, IBV_WC_SEND, ~0U, "SEND requester");
	expect_wc(cq_b, 1, IBV_WC_RECV, 100, "SEND responder");
	check(!memcmp(a->buf, b->buf, 100), "SEND data");

	/* SEND with immediate, inline, b -> a (ex CQ receives) */
	fill(b->buf + 4096, 64, 2);
	check(!post_recv(a, 3, 8192, 4096), "post_recv on a");
	check(!post_send(b, 4, IBV_WR_SEND_WITH_IMM, 4096, 64,
			 IBV_SEND_SIGNALED | IBV_SEND_INLINE, 0, 0),
	      "post_send SEND_WITH_IMM inline");
	expect_wc(cq_b, 4, IBV_WC_SEND, ~0U, "SEND_IMM requester");
	n = poll_one(cq_a, &wc);
	check(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 3 &&
	      wc.byte_len == 64 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      wc.imm_data == htonl(0x1234abcd) && wc.qp_num == a->qp->qp_num,
	      "SEND_IMM responder via ibv_cq_ex: flags %#x imm %#x",
	      wc.wc_flags, ntohl(wc.imm_data));
	check(!memcmp(a->buf + 8192, b->buf + 4096, 64), "inline data");

	/* RDMA WRITE a -> b, 60000 bytes (several MTUs) */
	fill(a->buf, 60000, 3);
	check(!post_send(a, 5, IBV_WR_RDMA_WRITE, 0, 60000, IBV_SEND_SIGNALED,
			 (uintptr_t)b->buf, b->mr->rkey), "post RDMA WRITE");
	expect_wc(cq_a, 5, IBV_WC_RDMA_WRITE, ~0U, "RDMA WRITE");
	check(!memcmp(a->buf, b->buf, 60000), "RDMA WRITE data");

	/* RDMA WRITE with immediate consumes a receive */
	check(!post_recv(b, 6, 0, 0), "post_recv for WRITE_IMM");
	check(!post_send(a, 7, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 1000,
			 IBV_SEND_SIGNALED, (uintptr_t)b->buf + 1000,
			 b->mr->rkey), "post RDMA WRITE_WITH_IMM");
	expect_wc(cq_a, 7, IBV_WC_RDMA_WRITE, ~0U, "WRITE_IMM requester");
	expect_wc(cq_b, 6, IBV_WC_RECV_RDMA_WITH_IMM, 1000, "WRITE_IMM responder");

	/* RDMA READ a <- b */
	fill(b->buf + 10000, 30000, 4);
	check(!post_send(a, 8, IBV_WR_RDMA_READ, 20000, 30000, IBV_SEND_SIGNALED,
			 (uintptr_t)b->buf + 10000, b->mr->rkey), "post RDMA READ");
	expect_wc(cq_a, 8, IBV_WC_RDMA_READ, 30000, "RDMA READ");
	check(!memcmp(a->buf + 20000, b->buf + 10000, 30000), "RDMA READ data");

}

/* ibv_qp_ex post API, ring wrap-around, bursts and CQ resize */
static void rc_ring_tests(struct ep *a, struct ep *b)
{
	struct timespec t0, t1;
	struct ibv_wc wc;
	int i, ok, n;

	/* ibv_qp_ex batch on a: WRITE then SEND */
	{
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(a->qp);

		check(!post_recv(b, 9, 0, 4096), "post_recv for ex send");
		ibv_wr_start(x);
		x->wr_id = 10;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)b->buf + 5000);
		ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 500);
		x->wr_id = 11;
		ibv_wr_send(x);
		ibv_wr_set_inline_data(x, "hello softib", 12);
		check(!ibv_wr_complete(x), "ex batch complete");
		expect_wc(cq_a, 10, IBV_WC_RDMA_WRITE, ~0U, "ex WRITE");
		expect_wc(cq_a, 11, IBV_WC_SEND, ~0U, "ex SEND");
		expect_wc(cq_b, 9, IBV_WC_RECV, 12, "ex SEND responder");
		check(!memcmp(b->buf, "hello softib", 12), "ex inline data");
	}

	/* many small sends: SQ/RQ/CQ wrap, doorbell on idle kernel */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok = 1;
	for (i = 0; i < 1000 && ok; i++) {
		ok &= !post_recv(b, 1000 + i, 0, 64);
		ok &= !post_send(a, 2000 + i, IBV_WR_SEND, 0, 64,
				 IBV_SEND_SIGNALED, 0, 0);
		if (!ok)
			break;
		ok &= poll_one(cq_a, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		      wc.wr_id == (uint64_t)2000 + i;
		ok &= poll_one(cq_b, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
		      wc.wr_id == (uint64_t)1000 + i;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	check(ok, "1000 send/recv round trips through the rings (stopped at %d, %.1f us each)",
	      i, ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	      1e3 / (i ? i : 1));

	/* bursts of DEPTH sends, unsignaled except the last */
	ok = 1;
	for (i = 0; i < DEPTH; i++)
		ok &= !post_recv(b, 5000 + i, 0, 64);
	for (i = 0; i < DEPTH; i++)
		ok &= !post_send(a, 6000 + i, IBV_WR_SEND, 0, 64,
				 i == DEPTH - 1 ? IBV_SEND_SIGNALED : 0, 0, 0);
	check(ok, "burst of %d posts accepted", DEPTH);
	expect_wc(cq_a, 6000 + DEPTH - 1, IBV_WC_SEND, ~0U, "burst last send");
	for (i = 0; i < DEPTH; i++)
		if (poll_one(cq_b, &wc) != 1 || wc.wr_id != (uint64_t)5000 + i ||
		    wc.status)
			break;
	check(i == DEPTH, "burst: %d receives in order", i);

	/* resize cq_b, then traffic again */
	n = ibv_resize_cq(cq_b, 500);
	check(!n && cq_b->cqe >= 500,
	      "resize_cq to 500 (cqe %d)", cq_b->cqe);
	check(!post_recv(b, 7000, 0, 64), "post_recv after resize");
	check(!post_send(a, 7001, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED, 0, 0),
	      "send after resize");
	expect_wc(cq_a, 7001, IBV_WC_SEND, ~0U, "send after resize");
	expect_wc(cq_b, 7000, IBV_WC_RECV, 64, "recv after resize");
}

static void ud_tests(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ep u1 = {}, u2 = {};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge s;
	struct ibv_wc wc;
	struct ibv_ah *ah;
	int n;

	u1.buf = calloc(1, 8192);
	u2.buf = calloc(1, 8192);
	u1.mr = ibv_reg_mr(pd, u1.buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	u2.mr = ibv_reg_mr(pd, u2.buf, 8192, IBV_ACCESS_LOCAL_WRITE);
	u1.qp = make_qp(IBV_QPT_UD, cq, 0);
	u2.qp = make_qp(IBV_QPT_UD, cq, 0);
	if (!check(cq && u1.mr && u2.mr && u1.qp && u2.qp, "UD objects"))
		return;
	check(!to_rts(u1.qp, 0) && !to_rts(u2.qp, 0), "UD QPs to RTS");
	aa.grh.dgid = gid;
	aa.grh.sgid_index = (uint8_t)gid_idx;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	if (!check(ah != NULL, "create_ah (errno %d)", errno))
		return;
	check(!post_recv(&u2, 21, 0, 40 + 512), "UD post_recv");
	fill(u1.buf, 512, 5);
	s = (struct ibv_sge){ (uintptr_t)u1.buf, 512, u1.mr->lkey };
	wr.wr_id = 22;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(77);
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = u2.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	check(!ibv_post_send(u1.qp, &wr, &bad), "UD post_send");
	n = poll_one(cq, &wc);
	check(n == 1 && wc.status == IBV_WC_SUCCESS, "UD first completion (%s)",
	      n == 1 ? ibv_wc_status_str(wc.status) : "none");
	if (wc.opcode != IBV_WC_RECV)
		n = poll_one(cq, &wc);
	check(n == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 21 &&
	      wc.byte_len == 40 + 512 && (wc.wc_flags & IBV_WC_GRH) &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) == 77 &&
	      wc.src_qp == u1.qp->qp_num,
	      "UD receive: len %u flags %#x src_qp %#x", wc.byte_len,
	      wc.wc_flags, wc.src_qp);
	check(!memcmp(u2.buf + 40, u1.buf, 512), "UD payload after 40-byte GRH");
	wr.opcode = IBV_WR_RDMA_WRITE;
	check(ibv_post_send(u1.qp, &wr, &bad) == EINVAL, "RDMA WRITE on UD is EINVAL");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(u1.qp);
	ibv_destroy_qp(u2.qp);
	ibv_dereg_mr(u1.mr);
	ibv_dereg_mr(u2.mr);
	ibv_destroy_cq(cq);
}

static void error_tests(struct ep *a)
{
	struct ibv_sge s[5] = {};
	struct ibv_recv_wr r = { .sg_list = s, .num_sge = 5 }, *rbad;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp_init_attr ia;
	int ret;

	ret = ibv_post_recv(a->qp, &r, &rbad);
	check(ret == EINVAL && rbad == &r, "post_recv num_sge > max: %d", ret);
	ret = ibv_query_qp(a->qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &ia);
	check(!ret && qa.qp_state == IBV_QPS_RTS && qa.cap.max_send_wr >= DEPTH,
	      "query_qp: state %d max_send_wr %u", qa.qp_state,
	      qa.cap.max_send_wr);
	qa.qp_state = IBV_QPS_RESET;
	check(!ibv_modify_qp(a->qp, &qa, IBV_QP_STATE), "modify to RESET");
	r.num_sge = 1;
	ret = ibv_post_recv(a->qp, &r, &rbad);
	check(ret == EINVAL, "post_recv in RESET is EINVAL (%d)", ret);
	ret = post_send(a, 1, IBV_WR_SEND, 0, 1, 0, 0, 0);
	check(ret == EINVAL, "post_send in RESET is EINVAL (%d)", ret);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "sib0";
	struct ibv_cq_init_attr_ex cqa = { .cqe = 256,
					   .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_device_attr_ex dattr;
	struct ibv_port_attr pattr;
	struct ep a = {}, b = {};
	int i, n;

	ctx = sibt_open(name);
	if (!check(ctx != NULL, "open %s", name))
		goto out;
	n = ibv_query_device_ex(ctx, NULL, &dattr);
	check(!n && dattr.orig_attr.max_qp > 0,
	      "query_device_ex: max_qp %d max_cqe %d", dattr.orig_attr.max_qp,
	      dattr.orig_attr.max_cqe);
	n = ibv_query_port(ctx, 1, &pattr);
	check(!n && pattr.state == IBV_PORT_ACTIVE,
	      "query_port: state %d active_mtu %d", pattr.state,
	      pattr.active_mtu);
	gid_idx = sibt_find_gid(ctx, 1, 32, &gid);
	if (!check(gid_idx >= 0, "RoCEv2 IPv4 GID at index %d", gid_idx))
		goto out;
	pd = ibv_alloc_pd(ctx);
	cqx_a = ibv_create_cq_ex(ctx, &cqa);
	cq_a = cqx_a ? ibv_cq_ex_to_cq(cqx_a) : NULL;
	cq_b = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!check(pd && cq_a && cq_b, "PD and CQs (errno %d)", errno))
		goto out;
	a.buf = calloc(1, BUF);
	b.buf = calloc(1, BUF);
	a.mr = ibv_reg_mr(pd, a.buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	b.mr = ibv_reg_mr(pd, b.buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	a.qp = make_qp(IBV_QPT_RC, cq_a, 1);
	b.qp = make_qp(IBV_QPT_RC, cq_b, 0);
	if (!check(a.mr && b.mr && a.qp && b.qp, "MRs and RC QPs (errno %d)", errno))
		goto out;
	n = to_rts(a.qp, b.qp->qp_num);
	i = to_rts(b.qp, a.qp->qp_num);
	if (!check(!n && !i, "RC QPs to RTS (%d %d, errno %d)", n, i, errno))
		goto out;
	rc_tests(&a, &b);
	rc_ring_tests(&a, &b);
	ud_tests();
	error_tests(&a);
	check(!ibv_destroy_qp(a.qp) && !ibv_destroy_qp(b.qp), "destroy QPs");
	check(!ibv_dereg_mr(a.mr) && !ibv_dereg_mr(b.mr), "dereg MRs");
	check(!ibv_destroy_cq(cq_a) && !ibv_destroy_cq(cq_b), "destroy CQs");
	check(!ibv_dealloc_pd(pd), "dealloc PD");
	check(!ibv_close_device(ctx), "close device");
out:
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
