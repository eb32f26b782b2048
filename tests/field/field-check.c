// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * field-check: verbs cases taken from public bug reports of rdma_rxe, siw
 * and rdma-core providers, run between two devices (softib and rdma_rxe,
 * or two softib devices) in one process, every byte and completion checked.
 * The first device is the requester, the second the responder; run it twice
 * with the devices swapped for both directions.
 *
 *   zero_len      SEND, SEND with immediate, RDMA WRITE, RDMA READ and
 *                 WRITE with immediate of 0 bytes with no SGE, WRITE and
 *                 READ with one SGE of length 0, then an 8-byte SEND (the
 *                 PSNs still agree)
 *   inline_max    QP creation probing max_inline_data downwards (as
 *                 libfabric's verbs provider does); an inline SEND and
 *                 WRITE of exactly max_inline bytes from unregistered
 *                 memory; max_inline + 1 refused at post time, QP intact
 *   wr_api        ibv_wr_*: an inline data list summing to max_inline
 *                 arrives whole, one summing past it is refused by
 *                 wr_complete; a SEND from a 3-SGE list of different
 *                 lengths arrives with the sum as byte_len
 *   srq_limit     responder QP on an SRQ with srq_limit armed: no event
 *                 while enough WQEs are left, one IBV_EVENT_SRQ_LIMIT_REACHED
 *                 when fewer than the limit are, limit disarmed (0), no
 *                 second event; a limit above max_wr refused
 *   srq_recv_cap  an SRQ QP created with max_recv_wr/max_recv_sge above the
 *                 device limits (ignored with an SRQ, ibv_create_qp(3))
 *   recv_reset, send_reset
 *                 ibv_post_recv / ibv_post_send on a QP in RESET fail with
 *                 a positive errno
 *   too_many_sge  post_send / post_recv with one SGE more than the QP's
 *                 max_send_sge / max_recv_sge refused (positive errno), the
 *                 QP then carries a SEND of max_send_sge SGEs
 *   ud_over_mtu   UD SEND of active MTU + 1 bytes completes successfully and
 *                 sends nothing (IBTA C10-93.1.1), one of MTU bytes arrives
 *                 with the GRH and the sender's QPN; a reply through
 *                 ibv_create_ah_from_wc() arrives; a 0-byte UD SEND made
 *                 with ibv_wr_set_sge(.., 0) arrives as the GRH alone
 *   solicited     the responder's receive CQ armed solicited-only gets no
 *                 event for a plain SEND, one for a SEND with the SE bit
 *   mw_inv        a WRITE through the responder's type 2 memory window, a
 *                 SEND with Invalidate of its R_Key (the receive completion
 *                 says so and names the key), then a WRITE through it fails
 *                 with a remote access error
 *   flush         modify to ERROR flushes posted receives in order; a
 *                 receive and a SEND posted in ERROR complete flushed
 *   sge_zero      a SEND from SGEs of 50, 0 and 200 bytes into a receive of
 *                 100, 0 and 200 bytes: byte_len, placement, nothing past
 *   atomics       CMP_SWAP (hit and miss) and FETCH_ADD: returned values
 *                 and the remote word
 *
 * Prints "CASE field_<case>_<req>_<resp> ok|FAIL <detail>" per pair case
 * and "CASE field_<case>_<dev> ..." per one-device case (inline_probe,
 * srq_recv_cap, recv_reset, send_reset: on the requester device); -o LIST
 * runs the named cases only ("local": the one-device ones); --list prints
 * the names -o takes, in the order they run, and needs no device; exit 0
 * iff all ok, 2 on setup errors.
 */
#include <infiniband/verbs.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sibtest.h"

#define BUF	(64 * 1024)	/* [0, BUF/2): source, [BUF/2, BUF): target */
#define TGT	(BUF / 2)
#define NRECV	32
#define SRQ_WR	16
#define SRQ_LIM	4

struct dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	union ibv_gid gid;
	int gidx;
};

struct ep {
	struct dev *d;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_cq *scq, *rcq;
	struct ibv_comp_channel *ch;	/* of rcq */
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t max_inline;
};

static struct dev dreq, dresp;
static char why[512];
static int nfail;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "field-check: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
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

static void report(const char *name, const char *okmsg)
{
	printf("CASE %s %s %s\n", name, why[0] ? "FAIL" : "ok",
	       why[0] ? why : okmsg);
	fflush(stdout);
	if (why[0])
		nfail++;
	why[0] = 0;
}

static void dev_open(struct dev *d, const char *name, int gidx)
{
	int fl;

	d->name = name;
	d->ctx = sibt_open(name);
	if (!d->ctx)
		die(errno == ENODEV ? "no device %s" : "cannot open %s", name);
	d->pd = ibv_alloc_pd(d->ctx);
	d->gidx = gidx;
	if (!d->pd || ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_gid(d->ctx, 1, gidx, &d->gid))
		die("%s: pd, query_device or query_gid failed", name);
	fl = fcntl(d->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(d->ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		die("async fd");
}

/* Create an RC QP; @inl: max_inline_data asked for; @srq: on an SRQ. */
static struct ibv_qp *qp_create(struct ep *e, uint32_t inl, int caps_over)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e->scq, .recv_cq = e->rcq, .srq = e->srq,
		.cap = { .max_send_wr = 64, .max_recv_wr = NRECV,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = inl },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->d->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};

	if (caps_over) {
		ia.cap.max_recv_wr = e->d->attr.max_qp_wr + 1;
		ia.cap.max_recv_sge = e->d->attr.max_sge + 1;
	}
	return ibv_create_qp_ex(e->d->ctx, &ia);
}

static void ep_init(struct ep *e, struct dev *d, int use_srq, uint32_t inl)
{
	int fl;

	memset(e, 0, sizeof(*e));
	e->d = d;
	e->ch = ibv_create_comp_channel(d->ctx);
	if (!e->ch)
		die("%s: completion channel", d->name);
	fl = fcntl(e->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(e->ch->fd, F_SETFL, fl | O_NONBLOCK))
		die("channel fd");
	e->scq = ibv_create_cq(d->ctx, 128, NULL, NULL, 0);
	e->rcq = ibv_create_cq(d->ctx, 128, NULL, e->ch, 0);
	e->buf = aligned_alloc(4096, BUF);
	if (!e->scq || !e->rcq || !e->buf)
		die("%s: cq or buffer", d->name);
	memset(e->buf, 0, BUF);
	e->mr = ibv_reg_mr(d->pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!e->mr)
		die("%s: reg_mr: %s", d->name, strerror(errno));
	if (use_srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
		};

		e->srq = ibv_create_srq(d->pd, &sa);
		if (!e->srq)
			die("%s: create_srq: %s", d->name, strerror(errno));
	}
	e->qp = qp_create(e, inl, 0);
	if (!e->qp)
		die("%s: create_qp: %s", d->name, strerror(errno));
	e->qpx = ibv_qp_to_qp_ex(e->qp);
	e->max_inline = inl;
	if (inl) {	/* what the device says it holds, maybe more */
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr qa;

		if (!ibv_query_qp(e->qp, &a, IBV_QP_CAP, &qa) &&
		    qa.cap.max_inline_data > inl)
			e->max_inline = qa.cap.max_inline_data;
	}
}

static void ep_fini(struct ep *e)
{
	ibv_destroy_qp(e->qp);
	if (e->srq)
		ibv_destroy_srq(e->srq);
	ibv_dereg_mr(e->mr);
	ibv_destroy_cq(e->scq);
	ibv_destroy_cq(e->rcq);
	ibv_destroy_comp_channel(e->ch);
	free(e->buf);
}

static void to_rts(struct ep *e, struct ep *peer)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.mtu = IBV_MTU_1024, .dest_qpn = peer->qp->qp_num,
		.rq_psn = 0x100, .dgid = peer->d->gid, .sgid_index = e->d->gidx,
		.max_dest_rd_atomic = 4, .min_rnr_timer = 1,
		.sq_psn = 0x100, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 4,
	};
	int st = sibt_qp_to_rts(e->qp, &c);

	if (st)
		die("%s: modify to %s failed", e->d->name, sibt_qp_state_name(st));
}

/* one completion from @cq within 10 s; 0 when none came */
static int get_cqe(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n = sibt_poll(cq, wc, 10, 0);

	if (n < 0)
		die("poll_cq failed");
	return n;
}

/* nothing in @cq for @sec seconds */
static int cq_quiet(struct ibv_cq *cq, double sec, struct ibv_wc *wc)
{
	double t0 = sibt_now();

	do {
		if (ibv_poll_cq(cq, 1, wc))
			return 0;
	} while (sibt_now() - t0 < sec);
	return 1;
}

static void expect_wc(struct ibv_cq *cq, const char *what, uint64_t wr_id,
		      int opcode, uint32_t byte_len, int imm, uint32_t immv)
{
	struct ibv_wc wc;

	if (!get_cqe(cq, &wc)) {
		fail("no %s completion in 10 s", what);
		return;
	}
	if (wc.status != IBV_WC_SUCCESS)
		fail("%s: %s", what, ibv_wc_status_str(wc.status));
	else if (wc.wr_id != wr_id)
		fail("%s: wr_id %llu, not %llu", what,
		     (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
	else if ((int)wc.opcode != opcode)
		fail("%s: opcode %d, not %d", what, wc.opcode, opcode);
	else if (opcode != IBV_WC_RDMA_WRITE && wc.byte_len != byte_len)
		fail("%s: byte_len %u, not %u", what, wc.byte_len, byte_len);
	else if (imm >= 0 && !!(wc.wc_flags & IBV_WC_WITH_IMM) != imm)
		fail("%s: IBV_WC_WITH_IMM %s", what, imm ? "missing" :
		     "set");
	else if (imm > 0 && be32toh(wc.imm_data) != immv)
		fail("%s: immediate 0x%x, not 0x%x", what,
		     be32toh(wc.imm_data), immv);
}

static void post_recv(struct ep *e, uint64_t wr_id, uint32_t off,
		      uint32_t len, int nsge)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = nsge }, *bad;
	int ret = e->srq ? ibv_post_srq_recv(e->srq, &wr, &bad) :
			   ibv_post_recv(e->qp, &wr, &bad);

	if (ret)
		die("%s: post_recv: %s", e->d->name, strerror(ret));
}

static int post(struct ep *e, struct ep *peer, enum ibv_wr_opcode op,
		uint64_t wr_id, void *addr, uint32_t len, int nsge,
		unsigned int flags, uint32_t imm, uint64_t raddr)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = nsge, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htobe32(imm),
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = peer->mr->rkey;
	return ibv_post_send(e->qp, &wr, &bad);
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static uint64_t tgt(struct ep *e, uint32_t off)
{
	return (uintptr_t)e->buf + TGT + off;
}

/* ---- zero_len ---- */
static void case_zero_len(struct ep *r, struct ep *s)
{
	static const uint8_t canary[16] = { 0xa5, 0xa5, 0xa5, 0xa5 };

	memcpy(s->buf + TGT, canary, sizeof(canary));
	memset(r->buf + 100, 0x3c, 8);
	post_recv(s, 1, TGT + 1024, 0, 0);
	post_recv(s, 2, TGT + 1024, 256, 1);
	post_recv(s, 3, TGT + 1024, 256, 1);
	post_recv(s, 4, TGT + 2048, 256, 1);
	if (post(r, s, IBV_WR_SEND, 11, r->buf, 0, 0, 0, 0, 0) ||
	    post(r, s, IBV_WR_SEND_WITH_IMM, 12, r->buf, 0, 0, 0, 0x1234, 0) ||
	    post(r, s, IBV_WR_RDMA_WRITE, 13, r->buf, 0, 0, 0, 0, tgt(s, 0)) ||
	    post(r, s, IBV_WR_RDMA_READ, 14, r->buf, 0, 0, 0, 0, tgt(s, 0)) ||
	    post(r, s, IBV_WR_RDMA_WRITE_WITH_IMM, 15, r->buf, 0, 0, 0, 0x5678,
		 tgt(s, 0)) ||
	    post(r, s, IBV_WR_RDMA_WRITE, 17, r->buf, 0, 1, 0, 0, tgt(s, 0)) ||
	    post(r, s, IBV_WR_RDMA_READ, 18, r->buf + 100, 0, 1, 0, 0,
		 tgt(s, 0)) ||
	    post(r, s, IBV_WR_SEND, 16, r->buf + 100, 8, 1, 0, 0, 0)) {
		fail("post_send of a zero-length WR refused");
		return;
	}
	expect_wc(r->scq, "zero-length SEND", 11, IBV_WC_SEND, 0, -1, 0);
	expect_wc(r->scq, "zero-length SEND_IMM", 12, IBV_WC_SEND, 0, -1, 0);
	expect_wc(r->scq, "zero-length WRITE", 13, IBV_WC_RDMA_WRITE, 0, -1, 0);
	expect_wc(r->scq, "zero-length READ", 14, IBV_WC_RDMA_READ, 0, -1, 0);
	expect_wc(r->scq, "zero-length WRITE_IMM", 15, IBV_WC_RDMA_WRITE, 0,
		  -1, 0);
	expect_wc(r->scq, "zero-length WRITE with an SGE", 17, IBV_WC_RDMA_WRITE,
		  0, -1, 0);
	expect_wc(r->scq, "zero-length READ with an SGE", 18, IBV_WC_RDMA_READ,
		  0, -1, 0);
	expect_wc(r->scq, "8-byte SEND", 16, IBV_WC_SEND, 8, -1, 0);
	expect_wc(s->rcq, "receive of zero-length SEND", 1, IBV_WC_RECV, 0, 0,
		  0);
	expect_wc(s->rcq, "receive of zero-length SEND_IMM", 2, IBV_WC_RECV, 0,
		  1, 0x1234);
	expect_wc(s->rcq, "receive of zero-length WRITE_IMM", 3,
		  IBV_WC_RECV_RDMA_WITH_IMM, 0, 1, 0x5678);
	expect_wc(s->rcq, "receive of 8-byte SEND", 4, IBV_WC_RECV, 8, 0, 0);
	if (memcmp(s->buf + TGT + 2048, r->buf + 100, 8))
		fail("8-byte SEND after the zero-length ones: data differs");
	if (memcmp(s->buf + TGT, canary, sizeof(canary)))
		fail("a zero-length WRITE changed the target");
}

/* ---- sge_zero: zero-length SGEs among others, send and receive side ---- */
static void case_sge_zero(struct ep *r, struct ep *s)
{
	struct ibv_sge ss[3] = {
		{ (uintptr_t)r->buf + 1000, 50, r->mr->lkey },
		{ (uintptr_t)r->buf + 2000, 0, r->mr->lkey },
		{ (uintptr_t)r->buf + 3000, 200, r->mr->lkey },
	};
	struct ibv_sge rs[3] = {
		{ (uintptr_t)s->buf + TGT + 1000, 100, s->mr->lkey },
		{ (uintptr_t)s->buf + TGT + 2000, 0, s->mr->lkey },
		{ (uintptr_t)s->buf + TGT + 3000, 200, s->mr->lkey },
	};
	struct ibv_send_wr wr = { .wr_id = 701, .sg_list = ss, .num_sge = 3,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rw = { .wr_id = 702, .sg_list = rs, .num_sge = 3 },
			   *rbad;
	uint8_t want[250];
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr qa;

	if (ibv_query_qp(s->qp, &a, IBV_QP_CAP, &qa) || qa.cap.max_recv_sge < 3 ||
	    ibv_query_qp(r->qp, &a, IBV_QP_CAP, &qa) || qa.cap.max_send_sge < 3) {
		fail("QPs with fewer than 3 SGEs");
		return;
	}
	fill(r->buf + 1000, 50, 21);
	fill(r->buf + 3000, 200, 22);
	memcpy(want, r->buf + 1000, 50);
	memcpy(want + 50, r->buf + 3000, 200);
	memset(s->buf + TGT + 1000, 0xee, 4096);
	if (ibv_post_recv(s->qp, &rw, &rbad)) {
		fail("post_recv with a zero-length SGE among 3 refused");
		return;
	}
	if (ibv_post_send(r->qp, &wr, &bad)) {
		fail("post_send with a zero-length SGE among 3 refused");
		return;
	}
	expect_wc(r->scq, "SEND of 50+0+200 B", 701, IBV_WC_SEND, 250, -1, 0);
	expect_wc(s->rcq, "receive into 100+0+200 B", 702, IBV_WC_RECV, 250, 0,
		  0);
	if (memcmp(s->buf + TGT + 1000, want, 100) ||
	    memcmp(s->buf + TGT + 3000, want + 100, 150))
		fail("data not placed across the SGEs as posted");
	if (s->buf[TGT + 3150] != 0xee || s->buf[TGT + 1100] != 0xee)
		fail("bytes written past an SGE");
}

/* ---- inline_max ---- */
static void case_inline_max(struct ep *r, struct ep *s)
{
	uint32_t n = r->max_inline;
	uint8_t *src = malloc(n + 1);	/* not registered */
	struct ibv_wc wc;

	if (!src || !n) {
		fail("no inline data (max_inline %u)", n);
		free(src);
		return;
	}
	fill(src, n + 1, 7);
	post_recv(s, 21, TGT + 4096, 4096, 1);
	post_recv(s, 22, TGT + 8192, 4096, 1);
	memset(s->buf + TGT + 12288, 0, n + 64);
	if (post(r, s, IBV_WR_SEND, 31, src, n, 1, IBV_SEND_INLINE, 0, 0) ||
	    post(r, s, IBV_WR_RDMA_WRITE, 32, src, n, 1, IBV_SEND_INLINE, 0,
		 tgt(s, 12288))) {
		fail("inline post of max_inline (%u) bytes refused", n);
		free(src);
		return;
	}
	memset(src, 0, n + 1);	/* inline: the data was taken at post time */
	if (!post(r, s, IBV_WR_SEND, 33, src, n + 1, 1, IBV_SEND_INLINE, 0, 0))
		fail("inline SEND of max_inline + 1 (%u) bytes accepted", n + 1);
	fill(src, n + 1, 7);
	expect_wc(r->scq, "inline SEND", 31, IBV_WC_SEND, n, -1, 0);
	expect_wc(r->scq, "inline WRITE", 32, IBV_WC_RDMA_WRITE, n, -1, 0);
	expect_wc(s->rcq, "receive of inline SEND", 21, IBV_WC_RECV, n, 0, 0);
	if (memcmp(s->buf + TGT + 4096, src, n))
		fail("inline SEND: data differs");
	if (memcmp(s->buf + TGT + 12288, src, n) ||
	    s->buf[TGT + 12288 + n] != 0)
		fail("inline WRITE: data differs");
	/* the QP still works and the refused WR left nothing behind */
	if (post(r, s, IBV_WR_SEND, 34, src, 1, 1, IBV_SEND_INLINE, 0, 0))
		fail("1-byte inline SEND refused");
	expect_wc(r->scq, "1-byte inline SEND", 34, IBV_WC_SEND, 1, -1, 0);
	expect_wc(s->rcq, "receive of 1-byte SEND", 22, IBV_WC_RECV, 1, 0, 0);
	if (!cq_quiet(r->scq, 0.2, &wc))
		fail("extra send completion (wr_id %llu)",
		     (unsigned long long)wc.wr_id);
	free(src);
}

/* ---- wr_api ---- */
static void case_wr_api(struct ep *r, struct ep *s)
{
	uint32_t n = r->max_inline, h = n / 2;
	uint8_t *src = malloc(2 * n + 2);
	struct ibv_data_buf bl[2];
	struct ibv_sge sl[3];
	struct ibv_wc wc;
	int ret;

	if (!src || n < 2) {
		fail("max_inline %u", n);
		free(src);
		return;
	}
	fill(src, 2 * n + 2, 9);
	post_recv(s, 41, TGT + 4096, 4096, 1);
	post_recv(s, 42, TGT + 8192, 4096, 1);
	/* list summing to max_inline: arrives whole */
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 51;
	r->qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(r->qpx);
	bl[0] = (struct ibv_data_buf){ src, h };
	bl[1] = (struct ibv_data_buf){ src + h, n - h };
	ibv_wr_set_inline_data_list(r->qpx, 2, bl);
	ret = ibv_wr_complete(r->qpx);
	if (ret)
		fail("inline list of %u bytes: wr_complete %d", n, ret);
	/* list summing past max_inline (each part within it): refused */
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 52;
	r->qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(r->qpx);
	bl[0] = (struct ibv_data_buf){ src + n, h + 1 };
	bl[1] = (struct ibv_data_buf){ src + n, n - h };
	ibv_wr_set_inline_data_list(r->qpx, 2, bl);
	if (!ibv_wr_complete(r->qpx))
		fail("inline list of %u bytes (max_inline %u) accepted",
		     n + 1, n);
	/* SGE list of three lengths: byte_len is their sum */
	memcpy(r->buf + 1000, src, 100);
	memcpy(r->buf + 3000, src + 100, 200);
	memcpy(r->buf + 5000, src + 300, 300);
	sl[0] = (struct ibv_sge){ (uintptr_t)r->buf + 1000, 100, r->mr->lkey };
	sl[1] = (struct ibv_sge){ (uintptr_t)r->buf + 3000, 200, r->mr->lkey };
	sl[2] = (struct ibv_sge){ (uintptr_t)r->buf + 5000, 300, r->mr->lkey };
	ibv_wr_start(r->qpx);
	r->qpx->wr_id = 53;
	r->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(r->qpx);
	ibv_wr_set_sge_list(r->qpx, 3, sl);
	ret = ibv_wr_complete(r->qpx);
	if (ret)
		fail("3-SGE send: wr_complete %d", ret);
	expect_wc(r->scq, "inline list SEND", 51, IBV_WC_SEND, n, -1, 0);
	expect_wc(r->scq, "3-SGE SEND", 53, IBV_WC_SEND, 600, -1, 0);
	expect_wc(s->rcq, "receive of inline list", 41, IBV_WC_RECV, n, 0, 0);
	expect_wc(s->rcq, "receive of 3-SGE SEND", 42, IBV_WC_RECV, 600, 0, 0);
	if (memcmp(s->buf + TGT + 4096, src, n))
		fail("inline list: data differs");
	if (memcmp(s->buf + TGT + 8192, src, 600))
		fail("3-SGE SEND: data differs");
	if (!cq_quiet(r->scq, 0.2, &wc))
		fail("extra send completion (wr_id %llu)",
		     (unsigned long long)wc.wr_id);
	free(src);
}

/* ---- atomics ---- */
static void case_atomics(struct ep *r, struct ep *s)
{
	uint64_t *word = (uint64_t *)(s->buf + TGT + 16384);
	uint64_t *res = (uint64_t *)(r->buf + 200);
	struct ibv_sge sge = { (uintptr_t)res, 8, r->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	static const struct { int op; uint64_t a, b, ret, after; } t[] = {
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 1000, 7, 1000, 7 },	/* hit */
		{ IBV_WR_ATOMIC_CMP_AND_SWP, 1000, 9, 7, 7 },		/* miss */
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 0xfffffffffffffff0ull, 0, 7,
		  0xfffffffffffffff7ull },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 0x10, 0, 0xfffffffffffffff7ull,
		  7 },						/* wraps */
	};
	unsigned int i;

	if (r->d->attr.atomic_cap == IBV_ATOMIC_NONE ||
	    s->d->attr.atomic_cap == IBV_ATOMIC_NONE) {
		fail("atomic_cap NONE on %s or %s", r->d->name, s->d->name);
		return;
	}
	*word = 1000;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		*res = 0x5a5a5a5a5a5a5a5aull;
		wr.wr_id = 60 + i;
		wr.opcode = t[i].op;
		wr.wr.atomic.remote_addr = (uintptr_t)word;
		wr.wr.atomic.rkey = s->mr->rkey;
		wr.wr.atomic.compare_add = t[i].a;
		wr.wr.atomic.swap = t[i].b;
		if (ibv_post_send(r->qp, &wr, &bad)) {
			fail("atomic %u: post refused", i);
			return;
		}
		expect_wc(r->scq, "atomic", 60 + i, t[i].op ==
			  IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
			  IBV_WC_FETCH_ADD, 8, -1, 0);
		if (*res != t[i].ret)
			fail("atomic %u: returned 0x%llx, not 0x%llx", i,
			     (unsigned long long)*res,
			     (unsigned long long)t[i].ret);
		if (*word != t[i].after)
			fail("atomic %u: remote word 0x%llx, not 0x%llx", i,
			     (unsigned long long)*word,
			     (unsigned long long)t[i].after);
		if (why[0])
			return;
	}
}

/* a CQ event on @e's receive channel within @sec s (acknowledged); 0 when none */
static int get_cq_event(struct ep *e, double sec)
{
	struct pollfd p = { .fd = e->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cctx;

	if (poll(&p, 1, (int)(sec * 1000)) <= 0)
		return 0;
	if (ibv_get_cq_event(e->ch, &cq, &cctx))
		return 0;
	ibv_ack_cq_events(cq, 1);
	return cq == e->rcq;
}

/* ---- solicited: solicited-only notification on the responder ---- */
static void case_solicited(struct ep *r, struct ep *s)
{
	fill(r->buf, 64, 11);
	post_recv(s, 501, TGT, 256, 1);
	post_recv(s, 502, TGT + 256, 256, 1);
	post_recv(s, 503, TGT + 512, 256, 1);
	if (ibv_req_notify_cq(s->rcq, 1)) {
		fail("req_notify_cq(solicited_only) failed");
		return;
	}
	/* not solicited: a completion but no event */
	if (post(r, s, IBV_WR_SEND, 511, r->buf, 64, 1, 0, 0, 0))
		die("post_send");
	expect_wc(r->scq, "unsolicited SEND", 511, IBV_WC_SEND, 64, -1, 0);
	expect_wc(s->rcq, "receive of the unsolicited SEND", 501, IBV_WC_RECV,
		  64, 0, 0);
	if (get_cq_event(s, 0.5))
		fail("CQ event for an unsolicited SEND with solicited_only");
	/* solicited: the event */
	if (post(r, s, IBV_WR_SEND, 512, r->buf, 64, 1, IBV_SEND_SOLICITED, 0,
		 0))
		die("post_send");
	expect_wc(r->scq, "solicited SEND", 512, IBV_WC_SEND, 64, -1, 0);
	if (!get_cq_event(s, 5))
		fail("no CQ event for a solicited SEND in 5 s");
	expect_wc(s->rcq, "receive of the solicited SEND", 502, IBV_WC_RECV,
		  64, 0, 0);
	/* armed for any completion: an unsolicited SEND raises the event */
	if (ibv_req_notify_cq(s->rcq, 0))
		fail("req_notify_cq failed");
	if (post(r, s, IBV_WR_SEND, 513, r->buf, 64, 1, 0, 0, 0))
		die("post_send");
	expect_wc(r->scq, "third SEND", 513, IBV_WC_SEND, 64, -1, 0);
	if (!get_cq_event(s, 5))
		fail("no CQ event for a SEND with the CQ armed for all");
	expect_wc(s->rcq, "receive of the third SEND", 503, IBV_WC_RECV, 64, 0,
		  0);
}

/* ---- mw_inv: a type 2 window of the responder, written, then invalidated
 * by the requester's SEND with Invalidate (IETH across the pair); leaves
 * both QPs in the error state: run it last but flush ---- */
static void case_mw_inv(struct ep *r, struct ep *s)
{
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_send_wr bw = { .wr_id = 801, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	uint32_t rkey;
	int ret;

	mr = ibv_reg_mr(s->d->pd, s->buf + TGT + 16384, 8192,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(s->d->pd, IBV_MW_TYPE_2);
	if (!mr || !mw) {
		fail("%s: reg_mr with MW_BIND or alloc_mw type 2: %s",
		     s->d->name, strerror(errno));
		goto out;
	}
	rkey = ibv_inc_rkey(mw->rkey);
	bw.bind_mw.mw = mw;
	bw.bind_mw.rkey = rkey;
	bw.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = mr, .addr = (uintptr_t)s->buf + TGT + 16384 + 1024,
		.length = 4096, .mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	ret = ibv_post_send(s->qp, &bw, &bad);
	if (ret) {
		fail("%s: bind of a type 2 window refused: %d", s->d->name, ret);
		goto out;
	}
	if (!get_cqe(s->scq, &wc) || wc.status != IBV_WC_SUCCESS ||
	    wc.wr_id != 801) {
		fail("%s: bind completion: %s", s->d->name,
		     ibv_wc_status_str(wc.status));
		goto out;
	}
	/* WRITE through the window */
	fill(r->buf, 64, 17);
	{
		struct ibv_sge sge = { (uintptr_t)r->buf, 64, r->mr->lkey };
		struct ibv_send_wr w = {
			.wr_id = 802, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		};

		w.wr.rdma.remote_addr = (uintptr_t)s->buf + TGT + 16384 + 1024;
		w.wr.rdma.rkey = rkey;
		if (ibv_post_send(r->qp, &w, &bad))
			die("post_send");
		expect_wc(r->scq, "WRITE through the window", 802,
			  IBV_WC_RDMA_WRITE, 64, -1, 0);
		if (!why[0] && memcmp(s->buf + TGT + 16384 + 1024, r->buf, 64))
			fail("WRITE through the window: data differs");
		if (why[0])
			goto out;
		/* SEND with Invalidate of the window's R_Key */
		post_recv(s, 803, TGT, 256, 1);
		w.wr_id = 804;
		w.opcode = IBV_WR_SEND_WITH_INV;
		w.invalidate_rkey = rkey;
		sge.length = 8;
		if (ibv_post_send(r->qp, &w, &bad))
			die("post_send");
		expect_wc(r->scq, "SEND with Invalidate", 804, IBV_WC_SEND, 8,
			  -1, 0);
		if (!get_cqe(s->rcq, &wc) || wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != 803 || !(wc.wc_flags & IBV_WC_WITH_INV) ||
		    wc.invalidated_rkey != rkey) {
			fail("receive of SEND with Invalidate: %s, wr_id %llu, "
			     "WITH_INV %d, key 0x%x (want 0x%x)",
			     ibv_wc_status_str(wc.status),
			     (unsigned long long)wc.wr_id,
			     !!(wc.wc_flags & IBV_WC_WITH_INV),
			     wc.invalidated_rkey, rkey);
			goto out;
		}
		/* the window no longer grants access */
		memset(s->buf + TGT + 16384 + 1024, 0, 64);
		w.wr_id = 805;
		w.opcode = IBV_WR_RDMA_WRITE;
		sge.length = 64;
		if (ibv_post_send(r->qp, &w, &bad))
			die("post_send");
		if (!get_cqe(r->scq, &wc) || wc.wr_id != 805 ||
		    wc.status != IBV_WC_REM_ACCESS_ERR)
			fail("WRITE through the invalidated window: %s, not "
			     "remote access error", ibv_wc_status_str(wc.status));
		else if (s->buf[TGT + 16384 + 1024] != 0)
			fail("WRITE through the invalidated window placed data");
	}
out:
	/* the responder QP saw the access error: drain its flushes */
	while (ibv_poll_cq(s->scq, 1, &wc) > 0)
		;
	if (mw)
		ibv_dealloc_mw(mw);
	if (mr)
		ibv_dereg_mr(mr);
}

/* ---- flush: the requester's QP moved to ERROR; last on a pair ---- */
static void case_flush(struct ep *r, struct ep *s)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_init_attr qa;
	struct ibv_wc wc;
	uint64_t i;
	int ret;

	(void)s;
	for (i = 0; i < 4; i++)
		post_recv(r, 601 + i, TGT + 256 * i, 256, 1);
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE)) {
		fail("modify to ERR failed");
		return;
	}
	for (i = 0; i < 4; i++) {
		if (!get_cqe(r->rcq, &wc)) {
			fail("%llu of 4 posted receives flushed",
			     (unsigned long long)i);
			return;
		}
		if (wc.status != IBV_WC_WR_FLUSH_ERR || wc.wr_id != 601 + i) {
			fail("flushed receive %llu: wr_id %llu, %s",
			     (unsigned long long)i,
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
			return;
		}
	}
	/*
	 * WRs posted in the error state complete flushed (IBTA 10.3.1): a
	 * receive on its own (no send posted behind it to run the QP), then
	 * a SEND
	 */
	post_recv(r, 605, TGT, 256, 1);
	if (!get_cqe(r->rcq, &wc) || wc.wr_id != 605 ||
	    wc.status != IBV_WC_WR_FLUSH_ERR)
		fail("receive posted in ERR (nothing posted after it) not completed with WR_FLUSH_ERR");
	ret = post(r, s, IBV_WR_SEND, 606, r->buf, 8, 1, 0, 0, 0);
	if (ret)
		fail("post_send in ERR refused (%d), not flushed", ret);
	if (!ret && (!get_cqe(r->scq, &wc) || wc.wr_id != 606 ||
		     wc.status != IBV_WC_WR_FLUSH_ERR))
		fail("SEND posted in ERR not completed with WR_FLUSH_ERR");
	if (ibv_query_qp(r->qp, &a, IBV_QP_STATE, &qa) ||
	    a.qp_state != IBV_QPS_ERR)
		fail("query_qp: state %d, not ERR", a.qp_state);
}

/* ---- ud_over_mtu: UD QPs of their own ---- */
static struct ibv_qp *ud_qp(struct dev *d, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct sibt_conn c = { .qkey = 0x11111111, .sq_psn = 0 };
	struct ibv_qp_init_attr_ex iax = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = ia.cap, .pd = d->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(d->ctx, &iax);

	if (!qp || sibt_qp_init(qp, &c))
		die("%s: UD QP", d->name);
	if (sibt_qp_rtr(qp, &c))
		die("%s: UD QP to RTR", d->name);
	if (sibt_qp_rts(qp, &c))
		die("%s: UD QP to RTS", d->name);
	return qp;
}

static void case_ud_over_mtu(struct ep *r, struct ep *s)
{
	struct ibv_port_attr pa;
	struct ibv_cq *rcq = ibv_create_cq(r->d->ctx, 16, NULL, NULL, 0);
	struct ibv_cq *scq = ibv_create_cq(s->d->ctx, 16, NULL, NULL, 0);
	struct ibv_qp *rq, *sq;
	struct ibv_ah *ah, *sah = NULL;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	static const uint32_t extra[] = { 1, 0 };
	uint32_t mtu, len, i;
	struct ibv_wc wc;

	if (!rcq || !scq || ibv_query_port(r->d->ctx, 1, &pa))
		die("UD setup");
	mtu = 128u << pa.active_mtu;
	rq = ud_qp(r->d, rcq);
	sq = ud_qp(s->d, scq);
	aa.grh.dgid = s->d->gid;
	aa.grh.sgid_index = (uint8_t)r->d->gidx;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(r->d->pd, &aa);
	if (!ah)
		die("%s: create_ah", r->d->name);
	fill(r->buf, mtu + 1, 5);
	for (i = 0; i < 3; i++) {
		struct ibv_recv_wr rw = { .wr_id = 91 + i, .sg_list = &sge,
					  .num_sge = 1 }, *rbad;

		sge = (struct ibv_sge){ (uintptr_t)s->buf + TGT + 8192 * i,
					8192, s->mr->lkey };
		if (ibv_post_recv(sq, &rw, &rbad))
			die("UD post_recv");
	}
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = sq->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	/* mtu + 1 bytes: no packet and no error (IBTA C10-93.1.1); then
	 * exactly mtu bytes, which must arrive */
	for (i = 0; i < 2; i++) {
		len = mtu + extra[i];
		sge = (struct ibv_sge){ (uintptr_t)r->buf, len, r->mr->lkey };
		wr.wr_id = 81 + i;
		if (ibv_post_send(rq, &wr, &bad)) {
			fail("UD post_send of %u B refused", len);
			goto out;
		}
		if (!get_cqe(rcq, &wc)) {
			fail("no completion for the UD SEND of %u B", len);
			goto out;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 81 + i) {
			fail("UD SEND of %u B (active MTU %u): %s%s", len, mtu,
			     ibv_wc_status_str(wc.status), extra[i] ?
			     " (IBTA C10-93.1.1: no packet and no error)" : "");
			goto out;
		}
	}
	if (!get_cqe(scq, &wc) || wc.status != IBV_WC_SUCCESS ||
	    wc.wr_id != 91 || wc.byte_len != mtu + 40 ||
	    !(wc.wc_flags & IBV_WC_GRH) || wc.src_qp != rq->qp_num) {
		fail("receive of the UD SEND of MTU bytes: wr_id %llu %s, "
		     "byte_len %u (want %u), GRH %d, src_qp 0x%x (want 0x%x)",
		     (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status), wc.byte_len, mtu + 40,
		     !!(wc.wc_flags & IBV_WC_GRH), wc.src_qp, rq->qp_num);
		goto out;
	}
	if (memcmp(s->buf + TGT + 40, r->buf, mtu))
		fail("UD SEND of MTU bytes: data differs");
	/* answer through an AH made from that completion and its GRH */
	sah = ibv_create_ah_from_wc(s->d->pd, &wc,
				    (struct ibv_grh *)(s->buf + TGT), 1);
	if (!sah) {
		fail("ibv_create_ah_from_wc on %s: %s", s->d->name,
		     strerror(errno));
		goto out;
	}
	{
		struct ibv_recv_wr rw = { .wr_id = 95, .sg_list = &sge,
					  .num_sge = 1 }, *rbad;

		sge = (struct ibv_sge){ (uintptr_t)r->buf + TGT, 8192,
					r->mr->lkey };
		if (ibv_post_recv(rq, &rw, &rbad))
			die("UD post_recv");
	}
	fill(s->buf, 32, 13);
	sge = (struct ibv_sge){ (uintptr_t)s->buf, 32, s->mr->lkey };
	wr.wr_id = 85;
	wr.wr.ud.ah = sah;
	wr.wr.ud.remote_qpn = wc.src_qp;
	if (ibv_post_send(sq, &wr, &bad))
		die("UD post_send");
	expect_wc(scq, "UD reply", 85, IBV_WC_SEND, 32, -1, 0);
	expect_wc(rcq, "receive of the UD reply", 95, IBV_WC_RECV, 72, 0, 0);
	if (!why[0] && memcmp(r->buf + TGT + 40, s->buf, 32))
		fail("UD reply: data differs");
	/* a 0-byte UD SEND through the ibv_wr API with an SGE of length 0
	 * (rdma-core PR #1742): the receive holds the GRH only */
	if (!why[0]) {
		struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(rq);

		ibv_wr_start(qx);
		qx->wr_id = 86;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ibv_wr_set_ud_addr(qx, ah, sq->qp_num, 0x11111111);
		ibv_wr_set_sge(qx, r->mr->lkey, (uintptr_t)r->buf, 0);
		if (ibv_wr_complete(qx))
			fail("0-byte UD SEND (ibv_wr_*) refused");
		expect_wc(rcq, "0-byte UD SEND", 86, IBV_WC_SEND, 0, -1, 0);
		expect_wc(scq, "receive of the 0-byte UD SEND", 92, IBV_WC_RECV,
			  40, 0, 0);
	}
	if (!why[0] && !cq_quiet(scq, 0.3, &wc))
		fail("a second UD receive (wr_id %llu, %u B): the oversized "
		     "message was sent", (unsigned long long)wc.wr_id,
		     wc.byte_len);
out:
	if (sah)
		ibv_destroy_ah(sah);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(rq);
	ibv_destroy_qp(sq);
	ibv_destroy_cq(rcq);
	ibv_destroy_cq(scq);
}

/* next async event of @d within @sec s; 0 when none */
static int get_event(struct dev *d, double sec, struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = d->ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, (int)(sec * 1000)) <= 0)
		return 0;
	if (ibv_get_async_event(d->ctx, ev))
		return 0;
	return 1;
}

/* ---- srq_limit (s has the SRQ) ---- */
static void case_srq_limit(struct ep *r, struct ep *s)
{
	struct ibv_async_event ev;
	struct ibv_srq_attr sa;
	unsigned int i;
	int got = 0;

	while (get_event(s->d, 0, &ev))		/* stale ones */
		ibv_ack_async_event(&ev);
	for (i = 0; i < SRQ_WR; i++)
		post_recv(s, 100 + i, TGT + 256 * i, 256, 1);
	if (ibv_query_srq(s->srq, &sa) || sa.max_wr < SRQ_WR) {
		fail("query_srq: max_wr %u, asked for %u", sa.max_wr, SRQ_WR);
		return;
	}
	sa.srq_limit = sa.max_wr + 1;
	if (!ibv_modify_srq(s->srq, &sa, IBV_SRQ_LIMIT))
		fail("srq_limit %u above max_wr %u accepted", sa.max_wr + 1,
		     sa.max_wr);
	sa.srq_limit = SRQ_LIM;
	if (ibv_modify_srq(s->srq, &sa, IBV_SRQ_LIMIT)) {
		fail("arming srq_limit %u refused", SRQ_LIM);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	if (ibv_query_srq(s->srq, &sa) || sa.srq_limit != SRQ_LIM)
		fail("query_srq: srq_limit %u after arming %u", sa.srq_limit,
		     SRQ_LIM);
	fill(r->buf, 64, 3);
	/* SRQ_WR - SRQ_LIM messages leave SRQ_LIM WQEs: no event yet */
	for (i = 0; i < SRQ_WR - SRQ_LIM; i++) {
		if (post(r, s, IBV_WR_SEND, 200 + i, r->buf, 64, 1, 0, 0, 0))
			die("post_send");
		expect_wc(r->scq, "SEND to the SRQ", 200 + i, IBV_WC_SEND, 64,
			  -1, 0);
		expect_wc(s->rcq, "SRQ receive", 100 + i, IBV_WC_RECV, 64, 0,
			  0);
	}
	if (get_event(s->d, 0.5, &ev)) {
		fail("event %s with %u WQEs left, limit %u",
		     ibv_event_type_str(ev.event_type), SRQ_LIM, SRQ_LIM);
		ibv_ack_async_event(&ev);
	}
	/* one more: fewer than the limit */
	for (; i < SRQ_WR - SRQ_LIM + 2; i++) {
		if (post(r, s, IBV_WR_SEND, 200 + i, r->buf, 64, 1, 0, 0, 0))
			die("post_send");
		expect_wc(r->scq, "SEND to the SRQ", 200 + i, IBV_WC_SEND, 64,
			  -1, 0);
		expect_wc(s->rcq, "SRQ receive", 100 + i, IBV_WC_RECV, 64, 0,
			  0);
	}
	while (get_event(s->d, 2, &ev)) {
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == s->srq)
			got++;
		else
			fail("unexpected event %s",
			     ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	if (got != 1)
		fail("%d IBV_EVENT_SRQ_LIMIT_REACHED events, not 1", got);
	memset(&sa, 0xff, sizeof(sa));
	if (ibv_query_srq(s->srq, &sa) || sa.srq_limit != 0)
		fail("srq_limit %u after the event, not 0 (disarmed)",
		     sa.srq_limit);
	/* drain the rest; no new event while disarmed */
	for (; i < SRQ_WR; i++) {
		if (post(r, s, IBV_WR_SEND, 200 + i, r->buf, 64, 1, 0, 0, 0))
			die("post_send");
		expect_wc(r->scq, "SEND to the SRQ", 200 + i, IBV_WC_SEND, 64,
			  -1, 0);
		expect_wc(s->rcq, "SRQ receive", 100 + i, IBV_WC_RECV, 64, 0,
			  0);
	}
	if (get_event(s->d, 0.3, &ev)) {
		fail("event %s after disarming",
		     ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	if (memcmp(s->buf + TGT + 256 * (SRQ_WR - 1), r->buf, 64))
		fail("SRQ receive data differs");
}

/* ---- srq_recv_cap and recv_reset (one device) ---- */
static void case_local(struct dev *d)
{
	struct ep e;
	struct ibv_qp *qp;
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 },
			   *bad;
	char name[64];
	int ret;

	ep_init(&e, d, 1, 0);
	qp = qp_create(&e, 0, 1);
	if (!qp)
		fail("create_qp on an SRQ with max_recv_wr %u, max_recv_sge %u: %s",
		     d->attr.max_qp_wr + 1, d->attr.max_sge + 1,
		     strerror(errno));
	else
		ibv_destroy_qp(qp);
	snprintf(name, sizeof(name), "field_srq_recv_cap_%s", d->name);
	report(name, "created (receive caps ignored with an SRQ)");
	ep_fini(&e);

	ep_init(&e, d, 0, 0);
	sge = (struct ibv_sge){ (uintptr_t)e.buf, 64, e.mr->lkey };
	ret = ibv_post_recv(e.qp, &wr, &bad);
	if (!ret)
		fail("post_recv in RESET accepted");
	else if (ret < 0)
		fail("post_recv in RESET returned %d (negative)", ret);
	snprintf(name, sizeof(name), "field_recv_reset_%s", d->name);
	report(name, "refused with a positive errno");
	ret = post(&e, &e, IBV_WR_SEND, 1, e.buf, 64, 1, 0, 0, 0);
	if (!ret)
		fail("post_send in RESET accepted");
	else if (ret < 0)
		fail("post_send in RESET returned %d (negative)", ret);
	snprintf(name, sizeof(name), "field_send_reset_%s", d->name);
	report(name, "refused with a positive errno");
	ep_fini(&e);
}

/* ---- too_many_sge: num_sge above the QP's caps, on a live QP ---- */
static void case_too_many_sge(struct ep *r, struct ep *s)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr qa;
	struct ibv_sge sge[64];
	struct ibv_send_wr wr = { .wr_id = 71, .sg_list = sge,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 72, .sg_list = sge }, *rbad;
	unsigned int i;
	int ret;

	if (ibv_query_qp(r->qp, &a, IBV_QP_CAP, &qa) ||
	    qa.cap.max_send_sge >= 64 || qa.cap.max_recv_sge >= 64) {
		fail("query_qp caps");
		return;
	}
	for (i = 0; i < 64; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)r->buf + 8 * i, 8,
					   r->mr->lkey };
	wr.num_sge = (int)qa.cap.max_send_sge + 1;
	ret = ibv_post_send(r->qp, &wr, &bad);
	if (ret <= 0)
		fail("post_send with %d SGEs (max %u): %d", wr.num_sge,
		     qa.cap.max_send_sge, ret);
	rwr.num_sge = (int)qa.cap.max_recv_sge + 1;
	ret = ibv_post_recv(r->qp, &rwr, &rbad);
	if (ret <= 0)
		fail("post_recv with %d SGEs (max %u): %d", rwr.num_sge,
		     qa.cap.max_recv_sge, ret);
	/* the QP is unharmed: a SEND of max_send_sge SGEs gets through */
	wr.num_sge = (int)qa.cap.max_send_sge;
	wr.wr_id = 73;
	post_recv(s, 74, TGT, 4096, 1);
	if (ibv_post_send(r->qp, &wr, &bad))
		fail("post_send with max_send_sge SGEs refused");
	expect_wc(r->scq, "SEND after refused WRs", 73, IBV_WC_SEND,
		  8 * qa.cap.max_send_sge, -1, 0);
	expect_wc(s->rcq, "its receive", 74, IBV_WC_RECV,
		  8 * qa.cap.max_send_sge, 0, 0);
	if (memcmp(s->buf + TGT, r->buf, 8 * qa.cap.max_send_sge))
		fail("SEND after refused WRs: data differs");
}

static uint32_t probe_inline(struct dev *d)
{
	static const uint32_t try[] = { 4096, 2048, 1024, 512, 256, 128, 64 };
	struct ep e;
	unsigned int i;

	for (i = 0; i < sizeof(try) / sizeof(try[0]); i++) {
		memset(&e, 0, sizeof(e));
		e.d = d;
		e.scq = e.rcq = ibv_create_cq(d->ctx, 4, NULL, NULL, 0);
		if (!e.scq)
			die("create_cq");
		e.qp = qp_create(&e, try[i], 0);
		if (e.qp) {
			struct ibv_qp_attr a;
			struct ibv_qp_init_attr ia;
			uint32_t got = try[i];

			if (!ibv_query_qp(e.qp, &a, IBV_QP_CAP, &ia) &&
			    ia.cap.max_inline_data < got)
				fail("%s: query_qp max_inline_data %u < %u asked",
				     d->name, ia.cap.max_inline_data, got);
			ibv_destroy_qp(e.qp);
			ibv_destroy_cq(e.scq);
			return got;
		}
		ibv_destroy_cq(e.scq);
	}
	return 0;
}

/*
 * The cases -o names, in the order they run (--list): the pair cases on one
 * requester/responder pair, srq_limit on a pair of its own (the responder on
 * an SRQ), local on the requester device alone. @ok: the detail of an ok
 * result (NULL: made in main).
 */
enum { ON_PAIR, ON_SRQ_PAIR, ON_DEVICE };
static const struct fcase {
	const char *name;
	int on;
	void (*run)(struct ep *r, struct ep *s);
	const char *ok;
} cases[] = {
	{ "zero_len", ON_PAIR, case_zero_len, "0-byte SEND, SEND_IMM, WRITE, READ, "
	  "WRITE_IMM (no SGE), WRITE, READ (one 0-byte SGE), an 8-byte SEND: "
	  "completions, immediates, data" },
	{ "inline_max", ON_PAIR, case_inline_max, NULL },
	{ "sge_zero", ON_PAIR, case_sge_zero, "SEND from 50+0+200 B SGEs into "
	  "100+0+200 B SGEs: byte_len 250, placement, nothing beyond" },
	{ "atomics", ON_PAIR, case_atomics, "CMP_SWAP hit/miss, FETCH_ADD with wrap: "
	  "returned values and remote word" },
	{ "too_many_sge", ON_PAIR, case_too_many_sge, "max_sge + 1 refused on SQ and "
	  "RQ, then a max_sge SEND arrives" },
	{ "wr_api", ON_PAIR, case_wr_api, "inline list of max_inline arrives, one past "
	  "it refused; 3-SGE SEND byte_len 600" },
	{ "ud_over_mtu", ON_PAIR, case_ud_over_mtu, "UD SEND of active MTU + 1 B: "
	  "success, nothing sent; MTU B arrive with GRH and src_qp; reply "
	  "via ibv_create_ah_from_wc arrives; 0-byte UD SEND arrives" },
	{ "solicited", ON_PAIR, case_solicited, "solicited_only: no event for an "
	  "unsolicited SEND, one for a solicited; armed for all: one" },
	{ "mw_inv", ON_PAIR, case_mw_inv, "WRITE through a type 2 window, SEND with "
	  "Invalidate of its R_Key (WITH_INV, key), then REM_ACCESS_ERR" },
	{ "flush", ON_PAIR, case_flush, "4 receives flushed in order by modify to "
	  "ERR; WRs posted in ERR complete flushed" },
	{ "srq_limit", ON_SRQ_PAIR, case_srq_limit, "one SRQ_LIMIT_REACHED "
	  "below the limit, disarmed after, limit > max_wr refused" },
	{ "local", ON_DEVICE, NULL, NULL },
};

int main(int argc, char **argv)
{
	const char *only = NULL;
	const char *names[SIBT_ARRAY_SIZE(cases)];
	struct ep r, s;
	char name[128], ok[128];
	uint32_t inl;
	unsigned int i;
	int opt;
	const char *dn = NULL, *Dn = NULL;
	int g = -1, G = -1;

	for (i = 0; i < SIBT_ARRAY_SIZE(cases); i++)
		names[i] = cases[i].name;
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		sibt_list(names, SIBT_ARRAY_SIZE(names));
		return 0;
	}
	while ((opt = getopt(argc, argv, "d:D:g:G:o:h")) != -1) {
		switch (opt) {
		case 'd': dn = optarg; break;
		case 'D': Dn = optarg; break;
		case 'g': g = atoi(optarg); break;
		case 'G': G = atoi(optarg); break;
		case 'o': only = optarg; break;
		default:
			fprintf(stderr, "usage: field-check -d REQ_DEV -g GIDX -D RESP_DEV -G GIDX [-o CASE]\n"
				"       field-check --list\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!dn || !Dn || g < 0 || G < 0)
		die("need -d, -g, -D and -G (try -h)");
	dev_open(&dreq, dn, g);
	dev_open(&dresp, Dn, G);
#define RUN(n) (!only || strstr(only, n))

	inl = probe_inline(&dreq);
	snprintf(name, sizeof(name), "field_inline_probe_%s", dn);
	snprintf(ok, sizeof(ok), "max_inline_data %u", inl);
	if (!inl)
		fail("no QP with max_inline_data >= 64");
	report(name, ok);
	if (!inl)
		return 1;

	ep_init(&r, &dreq, 0, inl);
	ep_init(&s, &dresp, 0, 0);
	to_rts(&r, &s);
	to_rts(&s, &r);
	snprintf(ok, sizeof(ok), "inline SEND and WRITE of %u B, %u B refused",
		 r.max_inline, r.max_inline + 1);
	for (i = 0; i < SIBT_ARRAY_SIZE(cases); i++) {
		if (cases[i].on != ON_PAIR || !RUN(cases[i].name))
			continue;
		snprintf(name, sizeof(name), "field_%s_%s_%s", cases[i].name, dn, Dn);
		cases[i].run(&r, &s);
		report(name, cases[i].ok ? cases[i].ok : ok);
	}
	ep_fini(&r);
	ep_fini(&s);

	for (i = 0; i < SIBT_ARRAY_SIZE(cases); i++) {
		if (cases[i].on == ON_PAIR || !RUN(cases[i].name))
			continue;
		if (cases[i].on == ON_DEVICE) {
			case_local(&dreq);
			continue;
		}
		ep_init(&r, &dreq, 0, 0);
		ep_init(&s, &dresp, 1, 0);
		to_rts(&r, &s);
		to_rts(&s, &r);
		snprintf(name, sizeof(name), "field_%s_%s_%s", cases[i].name, dn, Dn);
		cases[i].run(&r, &s);
		report(name, cases[i].ok);
		ep_fini(&r);
		ep_fini(&s);
	}
	printf("field-check: %s\n", nfail ? "FAIL" : "ok");
	return nfail ? 1 : 0;
}
