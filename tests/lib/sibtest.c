// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sibtest: see sibtest.h */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sibtest.h"

double sibt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ibv_context *sibt_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			dev = list[i];
	if (!dev) {
		if (list)
			ibv_free_device_list(list);
		errno = ENODEV;
		return NULL;
	}
	ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	return ctx;
}

int sibt_find_gid(struct ibv_context *ctx, uint8_t port, int max,
		  union ibv_gid *gid)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < max; i++) {
		if (ibv_query_gid_ex(ctx, port, i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    memcmp(e.gid.raw, v4map, sizeof(v4map)))
			continue;
		*gid = e.gid;
		return i;
	}
	return -1;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		errno = ret;
	return ret;
}

static int connected(const struct ibv_qp *qp)
{
	return qp->qp_type != IBV_QPT_UD;
}

static int reliable(const struct ibv_qp *qp)
{
	return qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_XRC_SEND ||
	       qp->qp_type == IBV_QPT_XRC_RECV;
}

int sibt_qp_init(struct ibv_qp *qp, const struct sibt_conn *c)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = c->port ? c->port : 1;
	a.pkey_index = c->pkey_index;
	if (connected(qp)) {
		a.qp_access_flags = c->access;
		mask |= IBV_QP_ACCESS_FLAGS;
	} else {
		a.qkey = c->qkey;
		mask |= IBV_QP_QKEY;
	}
	return modify(qp, &a, mask);
}

int sibt_qp_rtr(struct ibv_qp *qp, const struct sibt_conn *c)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (connected(qp)) {
		a.path_mtu = c->mtu ? c->mtu : IBV_MTU_1024;
		a.dest_qp_num = c->dest_qpn;
		a.rq_psn = c->rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = c->dgid;
		a.ah_attr.grh.sgid_index = c->sgid_index;
		a.ah_attr.grh.hop_limit = c->hop_limit ? c->hop_limit : 64;
		a.ah_attr.port_num = c->port ? c->port : 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	}
	if (reliable(qp)) {
		a.max_dest_rd_atomic = c->max_dest_rd_atomic;
		a.min_rnr_timer = c->min_rnr_timer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return modify(qp, &a, mask);
}

int sibt_qp_rts(struct ibv_qp *qp, const struct sibt_conn *c)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->sq_psn;
	if (reliable(qp)) {
		a.timeout = c->timeout;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.max_rd_atomic = c->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return modify(qp, &a, mask);
}

int sibt_qp_to_rts(struct ibv_qp *qp, const struct sibt_conn *c)
{
	if (sibt_qp_init(qp, c))
		return IBV_QPS_INIT;
	if (sibt_qp_rtr(qp, c))
		return IBV_QPS_RTR;
	if (sibt_qp_rts(qp, c))
		return IBV_QPS_RTS;
	return 0;
}

const char *sibt_qp_state_name(int state)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if (state < 0 || state >= (int)SIBT_ARRAY_SIZE(names) || !names[state])
		return "?";
	return names[state];
}

int sibt_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

int sibt_poll(struct ibv_cq *cq, struct ibv_wc *wc, double secs,
	      unsigned int idle_us)
{
	double end = sibt_now() + secs;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		if (sibt_now() >= end)
			return 0;
		if (idle_us)
			usleep(idle_us);
	}
}

long long sibt_counter(const char *dev, int port, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/hw_counters/%s", dev, port,
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void sibt_list(const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	fflush(stdout);
}

int sibt_case_index(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

static char case_why[256], case_ok[256];
static int any_failed;

void sibt_ok_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(case_ok, sizeof(case_ok), fmt, ap);
	va_end(ap);
}

void sibt_fail(const char *fmt, ...)
{
	va_list ap;

	if (case_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(case_why, sizeof(case_why), fmt, ap);
	va_end(ap);
	if (!case_why[0])
		snprintf(case_why, sizeof(case_why), "failed");
}

int sibt_case_failed(void)
{
	return case_why[0] != 0;
}

void sibt_report(const char *prefix, const char *name)
{
	printf("CASE %s%s %s %s\n", prefix, name, case_why[0] ? "FAIL" : "ok",
	       case_why[0] ? case_why : case_ok);
	fflush(stdout);
	if (case_why[0])
		any_failed = 1;
	case_why[0] = 0;
	case_ok[0] = 0;
}

int sibt_any_failed(void)
{
	return any_failed;
}

void sibt_die(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: %s (%s)\n", prog, msg, strerror(errno));
	exit(2);
}

static unsigned char pattern_byte(size_t i, unsigned int seed)
{
	return (unsigned char)(seed * 131 + i * 7 + (i >> 10) + 1);
}

void sibt_pattern(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern_byte(i, seed);
}

long sibt_bad_byte(const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern_byte(i, seed))
			return (long)i;
	return -1;
}

static int side_init(struct sibt_pair *p, struct sibt_side *s,
		     const char **what)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4 },
	};

	s->cq = ibv_create_cq(p->ctx, 256, NULL, NULL, 0);
	if (!s->cq) {
		*what = "create_cq failed";
		return -1;
	}
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(p->pd, &ia);
	if (!s->qp) {
		*what = "create_qp failed";
		return -1;
	}
	return 0;
}

static int side_rts(struct sibt_pair *p, struct ibv_qp *qp, uint32_t dqpn)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .dgid = p->gid,
		.sgid_index = (uint8_t)p->gidx, .max_dest_rd_atomic = 4,
		.min_rnr_timer = 1, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .max_rd_atomic = 4,
	};

	return sibt_qp_to_rts(qp, &c) ? -1 : 0;
}

void sibt_pair_free(struct sibt_pair *p)
{
	struct sibt_side *s[2] = { &p->a, &p->b };
	int i;

	for (i = 0; i < 2; i++) {
		if (s[i]->qp)
			ibv_destroy_qp(s[i]->qp);
		if (s[i]->cq)
			ibv_destroy_cq(s[i]->cq);
		s[i]->qp = NULL;
		s[i]->cq = NULL;
	}
}

int sibt_pair_new(struct sibt_pair *p, const char **what)
{
	sibt_pair_free(p);
	if (side_init(p, &p->a, what) || side_init(p, &p->b, what))
		return -1;
	if (side_rts(p, p->a.qp, p->b.qp->qp_num) ||
	    side_rts(p, p->b.qp, p->a.qp->qp_num)) {
		*what = "modify to RTS failed";
		return -1;
	}
	return 0;
}

int sibt_pair_setup(struct sibt_pair *p, struct ibv_context *ctx,
		    const char **what)
{
	p->ctx = ctx;
	p->pd = ibv_alloc_pd(ctx);
	if (!p->pd) {
		*what = "alloc_pd failed";
		return -1;
	}
	p->gidx = sibt_find_gid(ctx, 1, 16, &p->gid);
	if (p->gidx < 0) {
		*what = "no RoCE v2 IPv4 GID";
		errno = ENODEV;
		return -1;
	}
	return sibt_pair_new(p, what);
}

int sibt_side_wait(struct sibt_side *s, struct ibv_wc *wc)
{
	int n = sibt_poll(s->cq, wc, 10, 0);

	if (n < 0)
		return -2;
	return n ? (int)wc->status : -1;
}

static int post_wait(struct sibt_pair *p, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	if (ibv_post_send(p->a.qp, wr, &bad))
		return -2;
	return sibt_side_wait(&p->a, &wc);
}

int sibt_pair_rdma(struct sibt_pair *p, enum ibv_wr_opcode op, void *local,
		   uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return post_wait(p, &wr);
}

int sibt_pair_atomic(struct sibt_pair *p, enum ibv_wr_opcode op,
		     uint64_t *res, uint32_t lkey, uint64_t raddr,
		     uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)res, 8, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return post_wait(p, &wr);
}

const char *sibt_status_str(int st)
{
	if (st == -1)
		return "no completion in 10 s";
	if (st == -2)
		return "post or poll failed";
	return ibv_wc_status_str((enum ibv_wc_status)st);
}

static void case_usage(FILE *f, const char *prog, const char *note)
{
	fprintf(f, "Usage: %s [-d DEV] [-o CASE]... | --list | --help\n"
		"  -d, --dev DEV    the device (default: the last one)\n"
		"  -o, --only CASE  run this case only (repeatable)\n"
		"  -l, --list       print the case names\n%s%s", prog,
		note ? note : "", note ? "\n" : "");
}

int sibt_case_args(int argc, char **argv, const char *prog, const char *note,
		   const char *const *names, size_t n, bool *only,
		   const char **dev)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "only", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, k;

	*dev = NULL;
	memset(only, 0, n * sizeof(*only));
	while ((c = getopt_long(argc, argv, "d:o:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			*dev = optarg;
			break;
		case 'o':
			k = sibt_case_index(names, n, optarg);
			if (k < 0) {
				fprintf(stderr, "%s: unknown case %s\n", prog,
					optarg);
				return 2;
			}
			only[k] = true;
			break;
		case 'l':
			sibt_list(names, n);
			return 0;
		case 'h':
			case_usage(stdout, prog, note);
			return 0;
		default:
			case_usage(stderr, prog, note);
			return 2;
		}
	}
	if (optind != argc) {
		case_usage(stderr, prog, note);
		return 2;
	}
	return -1;
}

void sibt_run_cases(const char *prefix, const char *const *names,
		    void (*const *funcs)(void), size_t n, const bool *only)
{
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++)
		any |= only[i];
	for (i = 0; i < n; i++) {
		if (any && !only[i])
			continue;
		funcs[i]();
		sibt_report(prefix, names[i]);
	}
}
