// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ring-tamper: garbage written straight into the rings that softib shares
 * with user space (SQ, RQ, SRQ, CQ), then the doorbell rung or a legit WR
 * posted. Each case checks that the kernel answers with an error
 * completion, the QP in the error state or a CQ error event, and that a
 * healthy RC QP pair on the same PD (and, where the tampered ring is not
 * a CQ, the same CQ) still moves verified data afterwards.
 *
 * Usage: ring-tamper --dev DEV [--gid N] [--results FILE] [--timeout SEC] [CASE...]
 *        ring-tamper --list      (the case names, one per line, no device needed)
 * Prints "RESULT wire_ring_<case> ok|FAIL <detail>" per case and
 * "ring-tamper: N/M ok"; exit status 0 iff all ok, 2 on setup errors.
 *
 * It reaches the rings through the provider's own object layout
 * (provider/softib.h), so it is built against the provider it runs with.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "softib.h"
#include "sibtest.h"

#define BUF_SIZE	65536
#define MSG		256

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;
static struct ibv_cq *cq;
static struct ibv_mr *mr, *mr2;
static char *buf, *buf2;
static int gid_index = -1;
static union ibv_gid gid;
static double timeout = 20;
static FILE *results;
static int nok, nfail;
static uint32_t seq;

/*
 * every case, for --list (tests/check expects a result of each); a result
 * of a name not here, or no result of a selected one, is a FAIL
 */
static const char *const case_names[] = {
	"sq_num_sge", "sq_sge_len", "sq_sge_len1", "sq_opcode", "sq_lkey_other_pd",
	"sq_lkey_garbage", "sq_inline_len", "sq_flags", "sq_local_inv_inline",
	"sq_prod_far", "sq_prod_back", "rq_prod_far", "rq_num_sge",
	"rq_lkey_other_pd", "rq_sge_len", "srq_prod_far", "srq_num_sge",
	"srq_lkey_other_pd", "cq_cons_beyond", "cq_cons_far_back", "cq_cons_back",
	"cq_overflow",
	"cmd_post_send_wr", "cmd_post_recv_wr", "ud_ah_num",
	"sq_doorbell_reset", "sq_doorbell_before_rts", "qp_access_undefined",
	"qp_access_memory_flags", "mr_zero_based", "cq_resize_many",
};

#define NCASES SIBT_ARRAY_SIZE(case_names)
static int reported[NCASES];
static const char *only_cases;	/* NULL: all */
/* the same test as the cases' WANT(), on the whole selection */
#define CASE_WANTED(n) (!only_cases || strstr(only_cases, n))

static double now(void)
{
	return sibt_now();
}

static void result(const char *name, int ok, const char *fmt, ...)
{
	char detail[512];
	va_list ap;
	int id = sibt_case_index(case_names, NCASES, name);

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (id < 0) {
		ok = 0;
		strcpy(detail, "a result of a case --list does not name");
	} else {
		reported[id]++;
	}
	printf("RESULT wire_ring_%s %s %s\n", name, ok ? "ok" : "FAIL", detail);
	fflush(stdout);
	if (results) {
		fprintf(results, "RESULT wire_ring_%s %s %s\n", name,
			ok ? "ok" : "FAIL", detail);
		fflush(results);
	}
	if (ok)
		nok++;
	else
		nfail++;
}

static struct ibv_qp *create_qp(struct ibv_cq *c, struct ibv_srq *srq,
				uint32_t max_inline)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c, .recv_cq = c, .srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = max_inline },
	};
	struct sibt_conn a = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_LOCAL_WRITE,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		return NULL;
	if (sibt_qp_init(qp, &a)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* the RTR and RTS attributes towards @peer on the same device (loopback) */
static struct sibt_conn conn_to(struct ibv_qp *peer)
{
	return (struct sibt_conn){
		.mtu = IBV_MTU_1024, .dest_qpn = peer->qp_num, .rq_psn = 1,
		.dgid = gid, .sgid_index = gid_index,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
		.sq_psn = 1, .timeout = 14, .retry_cnt = 2, .rnr_retry = 2,
		.max_rd_atomic = 1,
	};
}

/* INIT -> RTR towards @peer on the same device (loopback) */
static int rtr_qp(struct ibv_qp *qp, struct ibv_qp *peer)
{
	struct sibt_conn c = conn_to(peer);

	return sibt_qp_rtr(qp, &c) ? -1 : 0;
}

/* RTR -> RTS towards @peer */
static int rts_qp(struct ibv_qp *qp, struct ibv_qp *peer)
{
	struct sibt_conn c = conn_to(peer);

	return sibt_qp_rts(qp, &c);
}

/* INIT -> RTR -> RTS towards @peer on the same device (loopback) */
static int connect_qp(struct ibv_qp *qp, struct ibv_qp *peer)
{
	return rtr_qp(qp, peer) || rts_qp(qp, peer) ? -1 : 0;
}

struct pair {
	struct ibv_qp *a, *b;
};

static int make_pair(struct pair *p, struct ibv_cq *c, struct ibv_srq *srq)
{
	p->a = create_qp(c, NULL, 64);
	p->b = create_qp(c, srq, 64);
	if (!p->a || !p->b || connect_qp(p->a, p->b) || connect_qp(p->b, p->a)) {
		fprintf(stderr, "ring-tamper: QP setup failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void free_pair(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	p->a = p->b = NULL;
}

/* Completions of @c until one with @wr_id came or the time ran out. */
static int wait_wc(struct ibv_cq *c, uint64_t wr_id, struct ibv_wc *out,
		   double secs)
{
	double end = now() + secs;
	struct ibv_wc wc;

	while (sibt_poll(c, &wc, end - now(), 1000) > 0) {
		if (wc.wr_id == wr_id) {
			*out = wc;
			return 0;
		}
	}
	return -1;
}

static void drain(struct ibv_cq *c)
{
	struct ibv_wc wc;
	double end = now() + 0.2;

	while (now() < end)
		if (ibv_poll_cq(c, 1, &wc) <= 0)
			usleep(1000);
}

static int post_recv(struct ibv_qp *qp, struct ibv_srq *srq, uint64_t wr_id,
		     void *addr, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return srq ? ibv_post_srq_recv(srq, &wr, &bad) :
		     ibv_post_recv(qp, &wr, &bad);
}

static int post_send(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		     void *addr, uint32_t len, void *raddr)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = mr->rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	return (enum ibv_qp_state)sibt_qp_state(qp);
}

static int wait_state(struct ibv_qp *qp, enum ibv_qp_state want, double secs)
{
	double end = now() + secs;

	while (now() < end) {
		if (qp_state(qp) == want)
			return 1;
		usleep(5000);
	}
	return 0;
}

/*
 * The healthy pair: a SEND of a fresh pattern and an RDMA WRITE, both
 * checked byte for byte. Returns 1 when everything arrived.
 */
static struct pair healthy;

static int healthy_ok(char *why, size_t n)
{
	char *src = buf, *dst = buf + 4096, *wsrc = buf + 8192, *wdst = buf + 12288;
	struct ibv_wc wc;
	int i;

	seq++;
	for (i = 0; i < MSG; i++) {
		src[i] = (char)(seq * 7 + i);
		wsrc[i] = (char)(seq * 13 + i);
	}
	memset(dst, 0, MSG);
	memset(wdst, 0, MSG);
	if (post_recv(healthy.b, NULL, 900000 + seq, dst, MSG) ||
	    post_send(healthy.a, 800000 + seq, IBV_WR_SEND, src, MSG, NULL) ||
	    post_send(healthy.a, 700000 + seq, IBV_WR_RDMA_WRITE, wsrc, MSG, wdst)) {
		snprintf(why, n, "healthy pair: post failed: %s", strerror(errno));
		return 0;
	}
	/* completions of the three WRs, in any order, on the shared CQ */
	{
		double end = now() + timeout;
		int got = 0, bad = 0;

		while (got < 3 && now() < end) {
			int r = ibv_poll_cq(cq, 1, &wc);

			if (r <= 0) {
				usleep(1000);
				continue;
			}
			if (wc.wr_id == 900000 + seq || wc.wr_id == 800000 + seq ||
			    wc.wr_id == 700000 + seq) {
				got++;
				bad += wc.status != IBV_WC_SUCCESS;
			}
		}
		if (got < 3 || bad) {
			snprintf(why, n, "healthy pair: %d of 3 completions, %d in error",
				 got, bad);
			return 0;
		}
	}
	if (memcmp(src, dst, MSG) || memcmp(wsrc, wdst, MSG)) {
		snprintf(why, n, "healthy pair: data differ");
		return 0;
	}
	snprintf(why, n, "healthy pair moved verified data");
	return 1;
}

/* the provider's view of a QP's SQ / RQ and an SRQ's ring */
static struct sib_ring *sq_ring(struct ibv_qp *qp)
{
	return &to_sib_qp(qp)->sq.ring;
}

static struct sib_ring *rq_ring(struct ibv_qp *qp)
{
	return &to_sib_qp(qp)->rq.ring;
}

/* A zero-WR post_send command: what the provider writes as doorbell. */
static int doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = qp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return errno;
	return 0;
}

/* The ioctl doorbell (SIB_METHOD_QP_DOORBELL), what the provider rings. */
static int doorbell_ioctl(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr;
	} req;

	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req);
	req.hdr.object_id = UVERBS_OBJECT_QP;
	req.hdr.method_id = SIB_METHOD_QP_DOORBELL;
	req.hdr.num_attrs = 1;
	req.hdr.driver_id = SIB_DRIVER_ID;
	req.attr.attr_id = SIB_ATTR_QP_DOORBELL_HANDLE;
	req.attr.flags = UVERBS_ATTR_F_MANDATORY;
	req.attr.data = qp->handle;
	return ioctl(qp->context->cmd_fd, RDMA_VERBS_IOCTL, &req) ? errno : 0;
}

/* Put @w (header) plus @tail bytes into the next SQ slot and publish it. */
static void sq_put_raw(struct ibv_qp *qp, const struct sib_send_wqe *w,
		       const void *tail, size_t tail_len)
{
	struct sib_ring *r = sq_ring(qp);
	char *slot = sib_ring_slot(r->buf, r->idx, r->num, r->stride);

	memcpy(slot, w, sizeof(*w));
	if (tail_len)
		memcpy(slot + SIB_SEND_WQE_HDR_SIZE, tail,
		       tail_len < r->stride - SIB_SEND_WQE_HDR_SIZE ?
		       tail_len : r->stride - SIB_SEND_WQE_HDR_SIZE);
	r->idx++;
	sib_store_release(&sib_ring_hdr(r)->producer, r->idx);
}

static const char *st(int s)
{
	return s < 0 ? "none" : ibv_wc_status_str(s);
}

/*
 * A garbage send WQE on a fresh pair's requester, then a legit SEND: the
 * garbage completes with @want (or any error when @want < 0), the legit
 * one is flushed, the QP is in error; the healthy pair keeps working.
 */
static void sq_case(const char *name, struct sib_send_wqe *w, const void *tail,
		    size_t tail_len, int want)
{
	struct pair p = {};
	struct ibv_wc wc;
	char why[256] = "";
	int s1 = -1, s2 = -1, err, ok, inerr, h;

	if (make_pair(&p, cq, NULL)) {
		result(name, 0, "setup failed");
		return;
	}
	w->wr_id = 0xbad0001;
	sq_put_raw(p.a, w, tail, tail_len);
	err = doorbell(p.a);
	post_recv(p.b, NULL, 0xbad0003, buf + 16384, MSG);
	post_send(p.a, 0xbad0002, IBV_WR_SEND, buf, 64, NULL);
	if (!wait_wc(cq, 0xbad0001, &wc, timeout))
		s1 = wc.status;
	if (!wait_wc(cq, 0xbad0002, &wc, timeout))
		s2 = wc.status;
	inerr = wait_state(p.a, IBV_QPS_ERR, timeout);
	ok = (want < 0 ? s1 > 0 : s1 == want) && s2 == IBV_WC_WR_FLUSH_ERR &&
	     inerr && !err;
	h = healthy_ok(why, sizeof(why));
	result(name, ok && h, "garbage WQE: %s (want %s), legit WQE after it: %s, QP in error %s, doorbell %s; %s",
	       st(s1), want < 0 ? "an error" : st(want), st(s2), inerr ? "yes" : "NO",
	       err ? strerror(err) : "ok", why);
	free_pair(&p);
	drain(cq);
}

static void base_wqe(struct sib_send_wqe *w, uint8_t opcode, uint16_t num_sge)
{
	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->num_sge = num_sge;
	w->send_flags = SIB_SEND_SIGNALED;
}

static void cases_sq(const char *only)
{
	struct sib_send_wqe w;
	struct sib_sge sge[2];

#define WANT(n) (!only || strstr(only, n))
	if (WANT("sq_num_sge")) {
		base_wqe(&w, IBV_WR_SEND, 0xffff);
		sq_case("sq_num_sge", &w, NULL, 0, IBV_WC_LOC_QP_OP_ERR);
	}
	if (WANT("sq_sge_len")) {
		base_wqe(&w, IBV_WR_SEND, 2);
		sge[0] = (struct sib_sge){ (uintptr_t)buf, 0xffffffffu, mr->lkey };
		sge[1] = (struct sib_sge){ (uintptr_t)buf, 0xffffffffu, mr->lkey };
		sq_case("sq_sge_len", &w, sge, sizeof(sge), IBV_WC_LOC_LEN_ERR);
	}
	if (WANT("sq_sge_len1")) {
		/* one SGE of 2^32-1 bytes in a 64 KiB MR */
		base_wqe(&w, IBV_WR_RDMA_WRITE, 1);
		w.wr.rdma.remote_addr = (uintptr_t)buf + 4096;
		w.wr.rdma.rkey = mr->rkey;
		sge[0] = (struct sib_sge){ (uintptr_t)buf, 0xffffffffu, mr->lkey };
		sq_case("sq_sge_len1", &w, sge, sizeof(sge[0]), -1);
	}
	if (WANT("sq_opcode")) {
		base_wqe(&w, 0xee, 0);
		sq_case("sq_opcode", &w, NULL, 0, IBV_WC_LOC_QP_OP_ERR);
	}
	if (WANT("sq_lkey_other_pd")) {
		base_wqe(&w, IBV_WR_SEND, 1);
		sge[0] = (struct sib_sge){ (uintptr_t)buf2, 64, mr2->lkey };
		sq_case("sq_lkey_other_pd", &w, sge, sizeof(sge[0]), IBV_WC_LOC_PROT_ERR);
	}
	if (WANT("sq_lkey_garbage")) {
		base_wqe(&w, IBV_WR_SEND, 1);
		sge[0] = (struct sib_sge){ 0xdead0000ull, 64, 0x7fffff00 };
		sq_case("sq_lkey_garbage", &w, sge, sizeof(sge[0]), IBV_WC_LOC_PROT_ERR);
	}
	if (WANT("sq_inline_len")) {
		base_wqe(&w, IBV_WR_SEND, 0);
		w.send_flags |= SIB_SEND_INLINE;
		w.inline_len = 0xffffffffu;
		sq_case("sq_inline_len", &w, NULL, 0, IBV_WC_LOC_QP_OP_ERR);
	}
	if (WANT("sq_flags")) {
		base_wqe(&w, IBV_WR_SEND, 0);
		w.send_flags = 0xfff0 | SIB_SEND_SIGNALED;
		sq_case("sq_flags", &w, NULL, 0, IBV_WC_LOC_QP_OP_ERR);
	}
	if (WANT("sq_local_inv_inline")) {
		base_wqe(&w, IBV_WR_LOCAL_INV, 0);
		w.send_flags |= SIB_SEND_INLINE;
		sq_case("sq_local_inv_inline", &w, NULL, 0, IBV_WC_LOC_QP_OP_ERR);
	}
	if (WANT("sq_prod_far")) {
		/* producer index 100000 ahead of a 16-entry ring, doorbell */
		struct pair p = {};
		struct sib_ring *r;
		char why[256];
		int err, inerr, h;

		if (make_pair(&p, cq, NULL)) {
			result("sq_prod_far", 0, "setup failed");
			return;
		}
		r = sq_ring(p.a);
		sib_store_release(&sib_ring_hdr(r)->producer, r->idx + 100000);
		err = doorbell(p.a);
		inerr = wait_state(p.a, IBV_QPS_ERR, timeout);
		h = healthy_ok(why, sizeof(why));
		result("sq_prod_far", inerr && h, "QP in error %s, doorbell %s; %s",
		       inerr ? "yes" : "NO", err ? strerror(err) : "ok", why);
		free_pair(&p);
		drain(cq);
	}
	if (WANT("sq_prod_back")) {
		/* producer moved back behind the kernel's consumer */
		struct pair p = {};
		struct sib_ring *r;
		struct ibv_wc wc;
		char why[256];
		int err, inerr, h, s = -1;

		if (make_pair(&p, cq, NULL)) {
			result("sq_prod_back", 0, "setup failed");
			return;
		}
		post_recv(p.b, NULL, 0xbad0013, buf + 16384, MSG);
		post_send(p.a, 0xbad0012, IBV_WR_SEND, buf, 64, NULL);
		if (!wait_wc(cq, 0xbad0012, &wc, timeout))
			s = wc.status;
		r = sq_ring(p.a);
		sib_store_release(&sib_ring_hdr(r)->producer, r->idx - 5);
		err = doorbell(p.a);
		inerr = wait_state(p.a, IBV_QPS_ERR, timeout);
		h = healthy_ok(why, sizeof(why));
		result("sq_prod_back", s == 0 && inerr && h,
		       "first SEND %s, QP in error %s, doorbell %s; %s", st(s),
		       inerr ? "yes" : "NO", err ? strerror(err) : "ok", why);
		free_pair(&p);
		drain(cq);
	}
}

/*
 * Receive side garbage: @tamper writes into the RQ (or SRQ) ring of the
 * responder b; a. SEND then fails with an error (b's QP in error, a's
 * SEND answered by a NAK: remote operational / invalid request error, or
 * a retry error), nothing is written where the garbage WQE points.
 */
static void rq_case(const char *name, int use_srq,
		    void (*tamper)(struct sib_ring *r))
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_srq *srq = NULL;
	struct pair p = {};
	struct sib_ring *r;
	struct ibv_wc wc;
	char why[256];
	int s = -1, inerr, h, untouched;

	if (use_srq) {
		srq = ibv_create_srq(pd, &sa);
		if (!srq) {
			result(name, 0, "ibv_create_srq: %s", strerror(errno));
			return;
		}
	}
	if (make_pair(&p, cq, srq)) {
		result(name, 0, "setup failed");
		return;
	}
	memset(buf2, 0x5a, 4096);
	r = srq ? &to_sib_srq(srq)->rq.ring : rq_ring(p.b);
	tamper(r);
	post_send(p.a, 0xbad0022, IBV_WR_SEND, buf, 64, NULL);
	if (!wait_wc(cq, 0xbad0022, &wc, timeout * 2))
		s = wc.status;
	inerr = wait_state(p.b, IBV_QPS_ERR, timeout);
	untouched = buf2[0] == 0x5a && !memcmp(buf2, buf2 + 1, 4095);
	h = healthy_ok(why, sizeof(why));
	result(name, s > 0 && inerr && untouched && h,
	       "sender's SEND: %s, receiver QP in error %s, other PD's buffer %s; %s",
	       st(s), inerr ? "yes" : "NO", untouched ? "unchanged" : "WRITTEN", why);
	free_pair(&p);
	if (srq)
		ibv_destroy_srq(srq);
	drain(cq);
}

static void put_rwqe(struct sib_ring *r, uint32_t num_sge, const struct sib_sge *sge,
		     int nsge)
{
	char *slot = sib_ring_slot(r->buf, r->idx, r->num, r->stride);
	struct sib_recv_wqe h = { .wr_id = 0xbad0021, .num_sge = num_sge };

	memcpy(slot, &h, sizeof(h));
	memcpy(slot + SIB_RECV_WQE_HDR_SIZE, sge, nsge * sizeof(*sge));
	r->idx++;
	sib_store_release(&sib_ring_hdr(r)->producer, r->idx);
}

static void t_prod_far(struct sib_ring *r)
{
	sib_store_release(&sib_ring_hdr(r)->producer, r->idx + 0x40000000);
}

static void t_num_sge(struct sib_ring *r)
{
	struct sib_sge sge = { (uintptr_t)buf + 16384, MSG, mr->lkey };

	put_rwqe(r, 0xffffffffu, &sge, 1);
}

static void t_lkey_other_pd(struct sib_ring *r)
{
	struct sib_sge sge = { (uintptr_t)buf2, MSG, mr2->lkey };

	put_rwqe(r, 1, &sge, 1);
}

static void t_sge_len(struct sib_ring *r)
{
	struct sib_sge sge[2] = {
		{ (uintptr_t)buf2, 0xffffffffu, mr2->lkey },
		{ (uintptr_t)buf2, 0xffffffffu, mr2->lkey },
	};

	put_rwqe(r, 2, sge, 2);
}

static void cases_rq(const char *only)
{
	if (WANT("rq_prod_far"))
		rq_case("rq_prod_far", 0, t_prod_far);
	if (WANT("rq_num_sge"))
		rq_case("rq_num_sge", 0, t_num_sge);
	if (WANT("rq_lkey_other_pd"))
		rq_case("rq_lkey_other_pd", 0, t_lkey_other_pd);
	if (WANT("rq_sge_len"))
		rq_case("rq_sge_len", 0, t_sge_len);
	if (WANT("srq_prod_far"))
		rq_case("srq_prod_far", 1, t_prod_far);
	if (WANT("srq_num_sge"))
		rq_case("srq_num_sge", 1, t_num_sge);
	if (WANT("srq_lkey_other_pd"))
		rq_case("srq_lkey_other_pd", 1, t_lkey_other_pd);
}

/* the next async event of @type within the time, others are acked and skipped */
static int wait_event(enum ibv_event_type type, double secs)
{
	double end = now() + secs;
	struct ibv_async_event ev;
	int found = 0;

	while (!found && now() < end) {
		if (ibv_get_async_event(ctx, &ev)) {
			usleep(5000);
			continue;
		}
		found = ev.event_type == type;
		ibv_ack_async_event(&ev);
	}
	return found;
}

/*
 * CQ consumer index garbage: the victim pair has its own CQ. The kernel
 * must not write over unconsumed entries: with the consumer index past the
 * producer (or far behind it) the next completion finds the CQ "full":
 * IBV_EVENT_CQ_ERR, no entry written; the healthy pair on its own CQ
 * works. With the consumer moved back by less than the ring, completions
 * go on.
 */
static void cq_case(const char *name, int64_t delta, int expect_err)
{
	struct ibv_cq *vcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct pair p = {};
	struct sib_ring *r;
	struct ibv_wc wc;
	char why[256];
	int s = -1, ev, h, i;
	uint32_t prod;

	if (!vcq || make_pair(&p, vcq, NULL)) {
		result(name, 0, "setup failed");
		return;
	}
	r = &to_sib_cq(vcq)->ring;
	/* two good completions first, so that "back" has room to go */
	for (i = 0; i < 2; i++) {
		post_recv(p.b, NULL, 0xc0 + i, buf + 16384, MSG);
		post_send(p.a, 0xd0 + i, IBV_WR_SEND, buf, 64, NULL);
		wait_wc(vcq, 0xd0 + i, &wc, timeout);
	}
	drain(vcq);
	prod = sib_load_acquire(&sib_ring_hdr(r)->producer);
	sib_store_release(&sib_ring_hdr(r)->consumer, (uint32_t)(prod + delta));
	post_recv(p.b, NULL, 0xbad0033, buf + 16384, MSG);
	post_send(p.a, 0xbad0032, IBV_WR_SEND, buf, 64, NULL);
	if (expect_err) {
		ev = wait_event(IBV_EVENT_CQ_ERR, timeout);
		h = healthy_ok(why, sizeof(why));
		result(name, ev && h, "IBV_EVENT_CQ_ERR %s, producer index %u -> %u; %s",
		       ev ? "seen" : "NOT seen", prod,
		       sib_load_acquire(&sib_ring_hdr(r)->producer), why);
	} else {
		if (!wait_wc(vcq, 0xbad0032, &wc, timeout))
			s = wc.status;
		h = healthy_ok(why, sizeof(why));
		result(name, s == 0 && h, "SEND after the consumer moved back: %s; %s",
		       st(s), why);
	}
	free_pair(&p);
	ibv_destroy_cq(vcq);
}

/*
 * No tampering: a careless consumer that does not poll. Eight signaled
 * SENDs into a CQ of two entries: the CQ overflows; the QPs whose
 * completions could not be written must not go on as if nothing happened
 * (consuming receive WQEs whose completions are lost): IBV_EVENT_CQ_ERR,
 * and the requester, whose completion was lost first, is in the error state.
 */
static void cq_overflow_case(void)
{
	struct ibv_cq *vcq = ibv_create_cq(ctx, 2, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct pair p = {};
	char why[256];
	int ev, h, i, nposted = 0, state = -1;

	if (!vcq || make_pair(&p, vcq, NULL)) {
		result("cq_overflow", 0, "setup failed");
		return;
	}
	for (i = 0; i < 8; i++) {
		if (post_recv(p.b, NULL, 0xc100 + i, buf + 16384, MSG) ||
		    post_send(p.a, 0xd100 + i, IBV_WR_SEND, buf, 64, NULL))
			break;
		nposted++;
	}
	ev = wait_event(IBV_EVENT_CQ_ERR, timeout);
	if (!ibv_query_qp(p.a, &qa, IBV_QP_STATE, &ia))
		state = qa.qp_state;
	h = healthy_ok(why, sizeof(why));
	result("cq_overflow", nposted == 8 && ev && state == IBV_QPS_ERR && h,
	       "%d SENDs posted, IBV_EVENT_CQ_ERR %s, requester QP state %d (want %d); %s",
	       nposted, ev ? "seen" : "NOT seen", state, IBV_QPS_ERR, why);
	free_pair(&p);
	ibv_destroy_cq(vcq);
}

static void cases_cq(const char *only)
{
	if (WANT("cq_overflow"))
		cq_overflow_case();
	if (WANT("cq_cons_beyond"))
		cq_case("cq_cons_beyond", 1000, 1);
	if (WANT("cq_cons_far_back"))
		cq_case("cq_cons_far_back", -100000, 1);
	if (WANT("cq_cons_back"))
		cq_case("cq_cons_back", -1, 0);
}

/*
 * The uverbs post_send / post_recv commands carrying work requests: a
 * softib QP takes WRs only through its rings, so the kernel refuses them
 * with an errno (seen: EINVAL from softib for post_send, EOPNOTSUPP from
 * the uverbs core for post_recv) and the QP keeps working.
 */
static int cmd_post(struct ibv_qp *qp, int recv)
{
	uint64_t m[32];		/* hdr, the command's head, one WR, one SGE */
	char *c = (char *)m;
	struct ib_uverbs_cmd_hdr *hdr = (void *)c;
	struct ib_uverbs_post_send *core = (void *)(c + sizeof(*hdr));
	char *wr = (char *)(core + 1);
	size_t wrsz = recv ? sizeof(struct ib_uverbs_recv_wr) :
			     sizeof(struct ib_uverbs_send_wr);
	struct ib_uverbs_sge *sge = (void *)(wr + wrsz);
	size_t len = (char *)(sge + 1) - c;
	struct ib_uverbs_post_send_resp resp;

	memset(m, 0, sizeof(m));
	hdr->command = recv ? IB_USER_VERBS_CMD_POST_RECV : IB_USER_VERBS_CMD_POST_SEND;
	hdr->in_words = len / 4;
	hdr->out_words = sizeof(resp) / 4;
	/* post_recv's head has the same layout as post_send's */
	core->response = (uintptr_t)&resp;
	core->qp_handle = qp->handle;
	core->wr_count = 1;
	core->sge_count = 1;
	core->wqe_size = wrsz;
	if (recv) {
		struct ib_uverbs_recv_wr *r = (void *)wr;

		r->wr_id = 0xc0de;
		r->num_sge = 1;
	} else {
		struct ib_uverbs_send_wr *w = (void *)wr;

		w->wr_id = 0xc0de;
		w->num_sge = 1;
		w->opcode = IB_UVERBS_WR_SEND;
		w->send_flags = IBV_SEND_SIGNALED;
	}
	sge->addr = (uintptr_t)buf;
	sge->length = 8;
	sge->lkey = mr->lkey;
	if (write(qp->context->cmd_fd, c, len) < 0)
		return errno;
	return 0;
}

static void cases_cmd(const char *only)
{
	static const char *const names[] = { "cmd_post_send_wr", "cmd_post_recv_wr" };
	int recv;

	for (recv = 0; recv < 2; recv++) {
		struct pair p = {};
		struct ibv_wc wc;
		char why[256];
		int err, s = -1, h;

		if (!WANT(names[recv]))
			continue;
		if (make_pair(&p, cq, NULL)) {
			result(names[recv], 0, "setup failed");
			continue;
		}
		err = cmd_post(recv ? p.b : p.a, recv);
		post_recv(p.b, NULL, 0xbad0043, buf + 16384, MSG);
		post_send(p.a, 0xbad0042, IBV_WR_SEND, buf, 64, NULL);
		if (!wait_wc(cq, 0xbad0042, &wc, timeout))
			s = wc.status;
		h = healthy_ok(why, sizeof(why));
		result(names[recv], err && s == 0 && h,
		       "command with a WR: %s (want an errno), a SEND afterwards: %s; %s",
		       err ? strerror(err) : "accepted", st(s), why);
		free_pair(&p);
		drain(cq);
	}
}

/*
 * A UD send WQE naming an address handle that does not exist: the WQE
 * completes with IBV_WC_LOC_QP_OP_ERR and the QP goes to error.
 */
static void case_ud_ah(const char *only)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct sibt_conn a = { .qkey = 0x1111 };
	struct sib_send_wqe w;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	char why[256];
	int s = -1, inerr, h, err;

	if (!WANT("ud_ah_num"))
		return;
	qp = ibv_create_qp(pd, &ia);
	if (!qp || sibt_qp_init(qp, &a)) {
		result("ud_ah_num", 0, "UD QP setup failed: %s", strerror(errno));
		return;
	}
	sibt_qp_rtr(qp, &a);
	sibt_qp_rts(qp, &a);
	base_wqe(&w, IBV_WR_SEND, 0);
	w.wr_id = 0xbad0051;
	w.wr.ud.ah_num = 0xdeadbeef;
	w.wr.ud.remote_qpn = 1;
	w.wr.ud.remote_qkey = 0x1111;
	sq_put_raw(qp, &w, NULL, 0);
	err = doorbell(qp);
	if (!wait_wc(cq, 0xbad0051, &wc, timeout))
		s = wc.status;
	inerr = wait_state(qp, IBV_QPS_ERR, timeout);
	h = healthy_ok(why, sizeof(why));
	result("ud_ah_num", s == IBV_WC_LOC_QP_OP_ERR && inerr && !err && h,
	       "WQE: %s (want local QP operation error), QP in error %s; %s",
	       st(s), inerr ? "yes" : "NO", why);
	ibv_destroy_qp(qp);
	drain(cq);
}

/* a legit signaled SEND WQE of @len bytes from @addr, written raw */
static void sq_put_send(struct ibv_qp *qp, uint64_t wr_id, void *addr,
			uint32_t len)
{
	struct sib_send_wqe w;
	struct sib_sge sge = { (uintptr_t)addr, len, mr->lkey };

	base_wqe(&w, IBV_WR_SEND, 1);
	w.wr_id = wr_id;
	sq_put_raw(qp, &w, &sge, sizeof(sge));
}

static uint32_t sq_consumer(struct ibv_qp *qp)
{
	return sib_load_acquire(&sib_ring_hdr(sq_ring(qp))->consumer);
}

static const char *eno(int e)
{
	return e ? strerror(e) : "accepted";
}

/*
 * Send doorbells of a QP whose state allows no send WR (IBTA 10.3.1):
 * RESET, then INIT and RTR with a SEND WQE written into the ring (the
 * provider's ibv_post_send refuses these states itself). Both doorbells
 * must fail with EINVAL and take nothing (the ring's consumer index stays);
 * the WQE stays in the ring and is sent once the QP is in RTS.
 */
static void case_db_reset(const char *only)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp *qp;
	char why[256];
	int e1, e2, h;
	uint32_t c;

	if (!WANT("sq_doorbell_reset"))
		return;
	qp = ibv_create_qp(pd, &ia);
	if (!qp) {
		result("sq_doorbell_reset", 0, "create_qp: %s", strerror(errno));
		return;
	}
	sq_put_send(qp, 0xbad0061, buf, 64);
	e1 = doorbell(qp);
	e2 = doorbell_ioctl(qp);
	c = sq_consumer(qp);
	h = healthy_ok(why, sizeof(why));
	result("sq_doorbell_reset", e1 == EINVAL && e2 == EINVAL && c == 0 && h,
	       "QP in RESET: post_send doorbell %s, ioctl doorbell %s (want EINVAL), WQEs taken %u (want 0); %s",
	       eno(e1), eno(e2), c, why);
	ibv_destroy_qp(qp);
	drain(cq);
}

static void case_db_before_rts(const char *only)
{
	char *src = buf + 20480, *dst = buf + 24576, why[256];
	int e1, e2, e3, e4, s = -1, h, i, same;
	uint32_t c1, c2, c3;
	struct pair p = {};
	struct ibv_wc wc;

	if (!WANT("sq_doorbell_before_rts"))
		return;
	p.a = create_qp(cq, NULL, 64);
	p.b = create_qp(cq, NULL, 64);
	if (!p.a || !p.b || connect_qp(p.b, p.a)) {
		result("sq_doorbell_before_rts", 0, "setup failed: %s", strerror(errno));
		free_pair(&p);
		return;
	}
	for (i = 0; i < 64; i++)
		src[i] = (char)(0x40 + i);
	memset(dst, 0, 64);
	sq_put_send(p.a, 0xbad0062, src, 64);
	e1 = doorbell(p.a);
	e2 = doorbell_ioctl(p.a);
	c1 = sq_consumer(p.a);
	if (rtr_qp(p.a, p.b)) {
		result("sq_doorbell_before_rts", 0, "modify to RTR failed: %s", strerror(errno));
		free_pair(&p);
		return;
	}
	e3 = doorbell(p.a);
	e4 = doorbell_ioctl(p.a);
	c2 = sq_consumer(p.a);
	post_recv(p.b, NULL, 0xbad0063, dst, 64);
	if (rts_qp(p.a, p.b)) {
		result("sq_doorbell_before_rts", 0, "modify to RTS failed: %s", strerror(errno));
		free_pair(&p);
		return;
	}
	if (!wait_wc(cq, 0xbad0062, &wc, timeout))
		s = wc.status;
	c3 = sq_consumer(p.a);
	same = !memcmp(src, dst, 64);
	h = healthy_ok(why, sizeof(why));
	result("sq_doorbell_before_rts",
	       e1 == EINVAL && e2 == EINVAL && e3 == EINVAL && e4 == EINVAL &&
	       !c1 && !c2 && s == IBV_WC_SUCCESS && c3 == 1 && same && h,
	       "INIT: doorbells %s/%s, RTR: %s/%s (want EINVAL), WQEs taken %u/%u (want 0); in RTS the WQE left in the ring: %s, taken %u, data %s; %s",
	       eno(e1), eno(e2), eno(e3), eno(e4), c1, c2, st(s), c3,
	       same ? "arrived" : "DIFFER", why);
	free_pair(&p);
	drain(cq);
}

/*
 * modify_qp's access flags: bits no IBV_ACCESS_* flag names are refused
 * with EINVAL (the QP stays in RESET); flags that only describe memory
 * (ON_DEMAND, ZERO_BASED, MW_BIND, HUGETLB, RELAXED_ORDERING) are accepted
 * and dropped, and the remote rights still mean what they say: with
 * REMOTE_READ only, a peer's READ works and its WRITE is refused.
 */
static void case_qp_access(const char *only)
{
	const unsigned int mem_flags = IBV_ACCESS_ON_DEMAND |
		IBV_ACCESS_ZERO_BASED | IBV_ACCESS_MW_BIND |
		IBV_ACCESS_HUGETLB | IBV_ACCESS_RELAXED_ORDERING;
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	const int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_ACCESS_FLAGS;
	char *rd = buf + 28672, *tgt = buf + 32768, why[256];
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qa;
	struct pair p = {};
	struct ibv_wc wc;
	int e, e2, sr = -1, sw = -1, h, i, got = -1, same, untouched;
	enum ibv_qp_state st1;

	if (WANT("qp_access_undefined")) {
		struct ibv_qp *qp = ibv_create_qp(pd, &ia);

		a.qp_access_flags = 0xffff;
		e = qp ? ibv_modify_qp(qp, &a, mask) : errno;
		st1 = qp ? qp_state(qp) : (enum ibv_qp_state)-1;
		a.qp_access_flags = 1u << 15;
		e2 = qp ? ibv_modify_qp(qp, &a, mask) : errno;
		h = healthy_ok(why, sizeof(why));
		result("qp_access_undefined",
		       e == EINVAL && e2 == EINVAL && st1 == IBV_QPS_RESET && h,
		       "RESET->INIT with qp_access_flags 0xffff: %s, 0x8000: %s (want EINVAL), state %d (want 0, RESET); %s",
		       eno(e), eno(e2), (int)st1, why);
		if (qp)
			ibv_destroy_qp(qp);
	}
	if (!WANT("qp_access_memory_flags"))
		return;
	p.a = create_qp(cq, NULL, 64);
	p.b = ibv_create_qp(pd, &ia);
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			    mem_flags;
	e = p.b ? ibv_modify_qp(p.b, &a, mask) : errno;
	if (!e && !ibv_query_qp(p.b, &qa, IBV_QP_ACCESS_FLAGS, &qia))
		got = qa.qp_access_flags;
	if (e || !p.a || connect_qp(p.a, p.b) || connect_qp(p.b, p.a)) {
		result("qp_access_memory_flags", 0, "setup: modify %s, %s", eno(e),
		       strerror(errno));
		free_pair(&p);
		return;
	}
	for (i = 0; i < 64; i++)
		tgt[i] = (char)(0x70 + i);
	memset(rd, 0, 64);
	/* a READ from p.b (allowed), then a WRITE to it (not allowed) */
	post_send(p.a, 0xbad0071, IBV_WR_RDMA_READ, rd, 64, tgt);
	if (!wait_wc(cq, 0xbad0071, &wc, timeout))
		sr = wc.status;
	same = !memcmp(rd, tgt, 64);
	memset(rd + 64, 0x33, 64);
	post_send(p.a, 0xbad0072, IBV_WR_RDMA_WRITE, rd + 64, 64, tgt);
	if (!wait_wc(cq, 0xbad0072, &wc, timeout))
		sw = wc.status;
	untouched = tgt[0] == 0x70 && tgt[63] == (char)(0x70 + 63);
	h = healthy_ok(why, sizeof(why));
	result("qp_access_memory_flags",
	       got == (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) &&
	       sr == IBV_WC_SUCCESS && same && sw == IBV_WC_REM_ACCESS_ERR &&
	       untouched && h,
	       "LOCAL_WRITE|REMOTE_READ|0x%x accepted, query_qp 0x%x (want 0x%x); a peer's READ %s (%s), its WRITE %s (want %s), target %s; %s",
	       mem_flags, got, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
	       st(sr), same ? "data right" : "DATA WRONG", st(sw),
	       st(IBV_WC_REM_ACCESS_ERR), untouched ? "untouched" : "WRITTEN",
	       why);
	free_pair(&p);
	drain(cq);
}

/*
 * A zero-based MR (IBV_ACCESS_ZERO_BASED): its addresses are offsets, 0 its
 * first byte, for remote (R_Key) and local (L_Key) accesses. The MR starts
 * 100 bytes into a page and spans three pages: an RDMA WRITE at offset 16,
 * an RDMA READ at 4000 (across a page), a SEND from offset 200 through its
 * L_Key; then a WRITE at the MR's process address is out of its range
 * (remote access error, nothing written); rereg toggling ZERO_BASED
 * without a new translation is refused with EINVAL.
 */
static void case_mr_zero_based(const char *only)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ;
	char *zb, *start, *src = buf + 20480, *rd = buf + 24576,
	     *rcv = buf + 28672, *copy, why[256];
	int sw = -1, sr = -1, ss = -1, sbad = -1, wok, rok, sok, bad_ok, h, i;
	int rr = 0, rerr = 0;
	const size_t len = 8192;
	struct ibv_mr *zmr;
	struct pair p = {};
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;

	if (!WANT("mr_zero_based"))
		return;
	zb = aligned_alloc(4096, 3 * 4096);
	copy = malloc(len);
	if (!zb || !copy) {
		result("mr_zero_based", 0, "out of memory");
		return;
	}
	start = zb + 100;
	for (i = 0; i < (int)len; i++)
		start[i] = (char)(i * 31 + 7);
	zmr = ibv_reg_mr(pd, start, len, acc | IBV_ACCESS_ZERO_BASED);
	if (!zmr || make_pair(&p, cq, NULL)) {
		result("mr_zero_based", 0, "reg_mr with IBV_ACCESS_ZERO_BASED: %s",
		       strerror(errno));
		goto out;
	}
	memcpy(copy, start, len);
	for (i = 0; i < 64; i++)
		src[i] = (char)(0xa0 + i);
	memset(rd, 0, 64);
	memset(rcv, 0, 64);

	/* RDMA WRITE of 64 bytes at offset 16 */
	memset(&wr, 0, sizeof(wr));
	sge = (struct ibv_sge){ (uintptr_t)src, 64, mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 0xbad0081, .sg_list = &sge,
				   .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = 16;
	wr.wr.rdma.rkey = zmr->rkey;
	if (!ibv_post_send(p.a, &wr, &bad) && !wait_wc(cq, 0xbad0081, &wc, timeout))
		sw = wc.status;
	memcpy(copy + 16, src, 64);
	wok = sw == IBV_WC_SUCCESS && !memcmp(start, copy, len);

	/* RDMA READ of 64 bytes at offset 4000 (the MR's first page ends at 3996) */
	sge = (struct ibv_sge){ (uintptr_t)rd, 64, mr->lkey };
	wr.wr_id = 0xbad0082;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 4000;
	if (!ibv_post_send(p.a, &wr, &bad) && !wait_wc(cq, 0xbad0082, &wc, timeout))
		sr = wc.status;
	rok = sr == IBV_WC_SUCCESS && !memcmp(rd, start + 4000, 64);

	/* a SEND whose SGE is offset 200 of the zero-based MR (L_Key) */
	post_recv(p.b, NULL, 0xbad0083, rcv, 64);
	sge = (struct ibv_sge){ 200, 64, zmr->lkey };
	wr.wr_id = 0xbad0084;
	wr.opcode = IBV_WR_SEND;
	if (!ibv_post_send(p.a, &wr, &bad) && !wait_wc(cq, 0xbad0084, &wc, timeout))
		ss = wc.status;
	sok = ss == IBV_WC_SUCCESS && !memcmp(rcv, start + 200, 64);

	/* rereg toggling ZERO_BASED in place: refused */
	errno = 0;
	rr = ibv_rereg_mr(zmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, acc);
	rerr = errno;

	/* a WRITE at the process address: beyond offsets 0..8191 */
	sge = (struct ibv_sge){ (uintptr_t)src, 64, mr->lkey };
	wr.wr_id = 0xbad0085;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)start + 64;
	memset(src, 0xee, 64);
	if (!ibv_post_send(p.a, &wr, &bad) && !wait_wc(cq, 0xbad0085, &wc, timeout))
		sbad = wc.status;
	bad_ok = sbad == IBV_WC_REM_ACCESS_ERR && !memcmp(start, copy, len);
	h = healthy_ok(why, sizeof(why));
	result("mr_zero_based", wok && rok && sok && bad_ok && rr && rerr == EINVAL && h,
	       "WRITE at 16: %s%s, READ at 4000: %s%s, SEND from L_Key offset 200: %s%s, WRITE at the process address: %s (want %s)%s, rereg without ZERO_BASED: %s (want EINVAL); %s",
	       st(sw), wok || sw ? "" : " DATA WRONG", st(sr),
	       rok || sr ? "" : " DATA WRONG", st(ss), sok || ss ? "" : " DATA WRONG",
	       st(sbad), st(IBV_WC_REM_ACCESS_ERR),
	       bad_ok || sbad != IBV_WC_REM_ACCESS_ERR ? "" : " MEMORY CHANGED",
	       rr ? strerror(rerr) : "accepted", why);
out:
	free_pair(&p);
	drain(cq);
	if (zmr)
		ibv_dereg_mr(zmr);
	free(zb);
	free(copy);
}

/* mappings of the process: all of them, and those of an RDMA device file */
static void count_maps(int *all, int *dev, long *dev_kb)
{
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	*all = *dev = 0;
	*dev_kb = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		(*all)++;
		if (strstr(line, "/dev/infiniband/") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			(*dev)++;
			*dev_kb += (long)((hi - lo) / 1024);
		}
	}
	fclose(f);
}

struct resize_poller {
	struct ibv_cq *cq;
	volatile int stop;
	volatile long got;
	long polls, empty, errors, bad_status;
};

/* busy-polls the CQ (its empty check takes no lock) until told to stop */
static void *resize_poll_thread(void *arg)
{
	struct resize_poller *rp = arg;
	struct ibv_wc wc[4];
	int n, i;

	while (!rp->stop) {
		n = ibv_poll_cq(rp->cq, 4, wc);
		rp->polls++;
		if (n < 0) {
			rp->errors++;
			continue;
		}
		if (!n)
			rp->empty++;
		for (i = 0; i < n; i++)
			rp->bad_status += wc[i].status != IBV_WC_SUCCESS;
		__atomic_add_fetch(&rp->got, n, __ATOMIC_RELEASE);
	}
	return NULL;
}

/*
 * ibv_resize_cq 1000 times (64 <-> 2048 entries) while another thread
 * busy-polls the CQ and a QP pair on it sends: every completion arrives,
 * no poll fails, and the process's mappings stay bounded (a replaced ring
 * must not stay mapped: before, each one held its kernel memory until
 * ibv_destroy_cq).
 */
static void case_cq_resize_many(const char *only)
{
	const int iters = 1000;
	int all0, dev0, all1, dev1, i, resize_err = 0, post_err = 0, h;
	long kb0, kb1, want;
	struct resize_poller rp = {};
	struct pair p = {};
	struct ibv_cq *c;
	pthread_t th;
	char why[256];
	double end;

	if (!WANT("cq_resize_many"))
		return;
	c = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!c || make_pair(&p, c, NULL)) {
		result("cq_resize_many", 0, "setup failed: %s", strerror(errno));
		free_pair(&p);
		if (c)
			ibv_destroy_cq(c);
		return;
	}
	count_maps(&all0, &dev0, &kb0);
	rp.cq = c;
	if (pthread_create(&th, NULL, resize_poll_thread, &rp)) {
		result("cq_resize_many", 0, "pthread_create failed");
		free_pair(&p);
		ibv_destroy_cq(c);
		return;
	}
	end = now() + 10 * timeout;
	for (i = 0; i < iters && now() < end; i++) {
		/* at most 4 messages (8 completions) outstanding */
		while (__atomic_load_n(&rp.got, __ATOMIC_ACQUIRE) < 2L * (i - 4) &&
		       now() < end)
			usleep(50);
		if (post_recv(p.b, NULL, 0xc0000000u + i, buf + 36864, 64) ||
		    post_send(p.a, 0xd0000000u + i, IBV_WR_SEND, buf + 40960, 8, NULL))
			post_err++;
		if (ibv_resize_cq(c, i & 1 ? 64 : 2048))
			resize_err++;
	}
	want = 2L * i;
	while (__atomic_load_n(&rp.got, __ATOMIC_ACQUIRE) < want && now() < end)
		usleep(1000);
	rp.stop = 1;
	pthread_join(th, NULL);
	count_maps(&all1, &dev1, &kb1);
	h = healthy_ok(why, sizeof(why));
	result("cq_resize_many",
	       i == iters && !resize_err && !post_err && rp.got == want &&
	       !rp.errors && !rp.bad_status && rp.empty > 0 &&
	       dev1 <= dev0 && all1 <= all0 + 8 && h,
	       "%d resizes (%d failed), %ld of %ld completions polled by the other thread (%ld polls, %ld empty, %ld errors, %ld bad statuses, %d posts failed); device mappings %d -> %d (%ld -> %ld KiB), all mappings %d -> %d; %s",
	       i, resize_err, rp.got, want, rp.polls, rp.empty, rp.errors,
	       rp.bad_status, post_err, dev0, dev1, kb0, kb1, all0, all1, why);
	free_pair(&p);
	ibv_destroy_cq(c);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", 1, NULL, 'd' }, { "gid", 1, NULL, 'g' },
		{ "results", 1, NULL, 'r' }, { "timeout", 1, NULL, 't' },
		{ "list", 0, NULL, 'l' }, { "help", 0, NULL, 'h' }, { 0 }
	};
	const char *dev = "sib0";
	char only[1024] = "", why[256];
	int c, i, fl;

	while ((c = getopt_long(argc, argv, "d:g:r:t:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'r':
			results = fopen(optarg, "a");
			if (!results) {
				perror(optarg);
				return 2;
			}
			break;
		case 't': timeout = atof(optarg); break;
		case 'l':
			sibt_list(case_names, NCASES);
			return 0;
		default:
			printf("Usage: ring-tamper --dev DEV [--gid N] [--results FILE] [--timeout SEC] [--list] [CASE...]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	for (i = optind; i < argc; i++) {
		strncat(only, argv[i], sizeof(only) - strlen(only) - 2);
		strcat(only, " ");
	}
	ctx = sibt_open(dev);
	if (!ctx) {
		fprintf(stderr, "ring-tamper: cannot open %s\n", dev);
		return 2;
	}
	if (gid_index < 0)	/* the first IPv4-mapped GID */
		gid_index = sibt_find_gid(ctx, 1, 16, &gid);
	if (gid_index < 0 || ibv_query_gid(ctx, 1, gid_index, &gid)) {
		fprintf(stderr, "ring-tamper: no usable GID on %s\n", dev);
		return 2;
	}
	fl = fcntl(ctx->async_fd, F_GETFL);
	fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF_SIZE);
	buf2 = aligned_alloc(4096, BUF_SIZE);
	if (!pd || !pd2 || !cq || !buf || !buf2) {
		fprintf(stderr, "ring-tamper: setup: %s\n", strerror(errno));
		return 2;
	}
	memset(buf, 0, BUF_SIZE);
	memset(buf2, 0x5a, BUF_SIZE);
	mr = ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	mr2 = ibv_reg_mr(pd2, buf2, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr || !mr2 || make_pair(&healthy, cq, NULL)) {
		fprintf(stderr, "ring-tamper: setup: %s\n", strerror(errno));
		return 2;
	}
	if (!healthy_ok(why, sizeof(why))) {
		fprintf(stderr, "ring-tamper: before any tampering: %s\n", why);
		return 2;
	}
	only_cases = only[0] ? only : NULL;
	cases_sq(only[0] ? only : NULL);
	cases_rq(only[0] ? only : NULL);
	cases_cq(only[0] ? only : NULL);
	cases_cmd(only[0] ? only : NULL);
	case_ud_ah(only[0] ? only : NULL);
	case_db_reset(only[0] ? only : NULL);
	case_db_before_rts(only[0] ? only : NULL);
	case_qp_access(only[0] ? only : NULL);
	case_mr_zero_based(only[0] ? only : NULL);
	case_cq_resize_many(only[0] ? only : NULL);
	for (i = 0; i < (int)NCASES; i++)
		if (CASE_WANTED(case_names[i]) && !reported[i])
			result(case_names[i], 0, "no result: the case did not run");
	printf("ring-tamper: %d/%d ok\n", nok, nok + nfail);
	free_pair(&healthy);
	ibv_dereg_mr(mr);
	ibv_dereg_mr(mr2);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_dealloc_pd(pd2);
	ibv_close_device(ctx);
	return nfail ? 1 : 0;
}
