// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-lat1: the cost of one RC operation on a verbs device, measured in a
 * single thread, free of any second CPU: two RC QPs of the same device
 * connected to each other (loopback), and per iteration one signaled
 * SEND (with a receive posted on the other QP), RDMA WRITE or RDMA READ
 * of SIZE bytes, timed (TSC) from just before ibv_post_send() until its
 * completions were polled (for SEND also the receive completion).
 *
 *   sib-lat1 -d DEV [-g GIDX] [-o send|write|read] [-s SIZE] [-n ITERS]
 *
 * Prints one line:
 *   <op> <size> B <iters> iters: min X median Y p90 Z us, post W us, cpu C us/op
 * where post is the median time spent inside ibv_post_send() and cpu the
 * process's user+system CPU time per operation. Exit status 0, 1 on any
 * failure (a verb failed, an error completion, no completion in 10 s), 2 on
 * a usage error (one line on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PERF_PROG "sib-lat1"
#include "perf-args.h"
#include "sibtest.h"

#define DIE(...) do { fprintf(stderr, "sib-lat1: " __VA_ARGS__); \
		      fprintf(stderr, "\n"); exit(1); } while (0)

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-lat1 -d DEV [-g GIDX] [-o send|write|read] [-s SIZE] [-n ITERS]\n"
"\n"
"The cost of one RC operation, in one thread: two RC QPs of DEV connected to each other,\n"
"one signaled operation of SIZE bytes at a time, timed until its completions were polled.\n"
"Prints \"<op> <size> B <iters> iters: min X median Y p90 Z us, post W us, cpu C us/op\".\n"
"\n"
"  -d, --dev DEV         the verbs device (default: the last one listed)\n"
"  -g, --gid-index N     GID index 0..255 (default 1)\n"
"  -o, --op OP           send, write or read (default send)\n"
"  -s, --size SIZE       bytes per operation, 1..1073741824 (default 2)\n"
"  -n, --iters N         iterations, 1..100000000 (default 1000)\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0, 1 on a failure (a verb failed, an error completion, no completion in\n"
"10 s), 2 usage error (one line on stderr).\n");
}

static double clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The timestamps come from the TSC, calibrated once against
 * CLOCK_MONOTONIC: a guest whose clocksource is the emulated HPET pays a
 * system call of several microseconds for each clock_gettime(), which
 * would be counted in every figure (perftest reads the TSC as well).
 */
static double tsc_per_us;

static void tsc_calibrate(void)
{
	double c0 = clock_us(), c1;
	unsigned long long t0 = __builtin_ia32_rdtsc(), t1;

	do
		c1 = clock_us();
	while (c1 - c0 < 100000);
	t1 = __builtin_ia32_rdtsc();
	tsc_per_us = (t1 - t0) / (c1 - c0);
	if (tsc_per_us <= 0)
		DIE("TSC calibration failed");
}

static double now_us(void)
{
	return __builtin_ia32_rdtsc() / tsc_per_us;
}

static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void to_rts(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid,
		   int gidx)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .rq_psn = 0,
		.dgid = *gid, .sgid_index = gidx,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.sq_psn = 0, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	int st = sibt_qp_to_rts(qp, &c);

	if (st)
		DIE("modify to %s failed", sibt_qp_state_name(st));
}

static void wait_cqe(struct ibv_cq *cq, const char *what)
{
	double t0 = now_us();
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			DIE("poll %s failed", what);
		if (n == 1)
			break;
		if (now_us() - t0 > 10e6)
			DIE("no %s completion in 10 s", what);
	}
	if (wc.status != IBV_WC_SUCCESS)
		DIE("%s completion: %s", what, ibv_wc_status_str(wc.status));
}

int main(int argc, char **argv)
{
	const char *dev_name = NULL, *op = "send";
	int gidx = 1, size = 2, iters = 1000, c, i;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mra, *mrb;
	union ibv_gid gid;
	double *lat, *post, c0, c1;
	char *bufa, *bufb;

	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "op", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:g:o:s:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 'g':
			if (parse_int(optarg, 0, 255, &gidx))
				return usage_error("-g '%s': not a GID index 0..255", optarg);
			break;
		case 'o':
			op = optarg;
			if (strcmp(op, "send") && strcmp(op, "write") && strcmp(op, "read"))
				return usage_error("-o '%s': not send, write or read", optarg);
			break;
		case 's':
			if (parse_int(optarg, 1, 1L << 30, &size))
				return usage_error("-s '%s': not a size 1..1073741824", optarg);
			break;
		case 'n':
			if (parse_int(optarg, 1, 100000000, &iters))
				return usage_error("-n '%s': not a number of iterations 1..100000000",
						   optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return getopt_error(c, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	ctx = sibt_open(dev_name);	/* no -d: the last device */
	if (!ctx)
		DIE("cannot open device %s", dev_name ? dev_name : "(any)");
	if (ibv_query_gid(ctx, 1, gidx, &gid))
		DIE("query_gid %d failed", gidx);
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	bufa = calloc(1, size);
	bufb = calloc(1, size);
	lat = calloc(iters, sizeof(*lat));
	post = calloc(iters, sizeof(*post));
	if (!pd || !scq || !rcq || !bufa || !bufb || !lat || !post)
		DIE("setup failed");
	mra = ibv_reg_mr(pd, bufa, size, IBV_ACCESS_LOCAL_WRITE);
	mrb = ibv_reg_mr(pd, bufb, size, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mra || !mrb)
		DIE("reg_mr failed");
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qa = ibv_create_qp(pd, &ia);
		qb = ibv_create_qp(pd, &ia);
		if (!qa || !qb)
			DIE("create_qp failed");
	}
	to_rts(qa, qb->qp_num, &gid, gidx);
	to_rts(qb, qa->qp_num, &gid, gidx);

	tsc_calibrate();
	c0 = cpu_us();
	for (i = 0; i < iters; i++) {
		struct ibv_sge sa = { (uintptr_t)bufa, size, mra->lkey };
		struct ibv_sge sb = { (uintptr_t)bufb, size, mrb->lkey };
		struct ibv_recv_wr rw = { .sg_list = &sb, .num_sge = 1 }, *brw;
		struct ibv_send_wr sw = {
			.sg_list = &sa, .num_sge = 1,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bsw;
		double t0, t1;

		if (!strcmp(op, "send")) {
			sw.opcode = IBV_WR_SEND;
			if (ibv_post_recv(qb, &rw, &brw))
				DIE("post_recv failed");
		} else {
			sw.opcode = strcmp(op, "read") ? IBV_WR_RDMA_WRITE :
							IBV_WR_RDMA_READ;
			sw.wr.rdma.remote_addr = (uintptr_t)bufb;
			sw.wr.rdma.rkey = mrb->rkey;
		}
		t0 = now_us();
		if (ibv_post_send(qa, &sw, &bsw))
			DIE("post_send failed");
		t1 = now_us();
		if (!strcmp(op, "send"))
			wait_cqe(rcq, "receive");
		wait_cqe(scq, "send");
		lat[i] = now_us() - t0;
		post[i] = t1 - t0;
	}
	c1 = cpu_us();
	qsort(lat, iters, sizeof(*lat), cmp_double);
	qsort(post, iters, sizeof(*post), cmp_double);
	printf("%s %d B %d iters: min %.2f median %.2f p90 %.2f us, post %.2f us, cpu %.2f us/op\n",
	       op, size, iters, lat[0], lat[iters / 2], lat[iters * 9 / 10],
	       post[iters / 2], (c1 - c0) / iters);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_dereg_mr(mra);
	ibv_dereg_mr(mrb);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
