// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-memuse: memory a verbs device spends per QP, per CQ entry and per MR
 * page, from /proc/meminfo deltas (MemFree, so kernel objects, rings mapped
 * into the process and the provider's own allocations all count).
 *
 *   sib-memuse -d DEV [-g GIDX] [-q NQP] [-c CQES] [-m MIB]
 *
 * QPs: NQP RC QPs (default 2048; send/recv queue 128 WRs, 1 SGE) in four
 * batches, each batch's cost per QP printed (a growing figure means the
 * per-QP cost grows with the number of QPs); then every QP is connected to
 * its neighbour (2i <-> 2i+1) and each one RDMA WRITEs 64 bytes to its
 * peer, every completion checked ("used").
 * CQs: four CQs of CQES entries (default 65536, at most max_cqe).
 * MRs: one registration of an MIB MiB (default 256) buffer already touched.
 * (CQs and MRs are measured first: objects destroyed earlier may be freed
 * lazily and would hide what is allocated.)
 * Prints lines "qp_bytes ...", "qp_used ...", "cqe_bytes ...", "mr_page_bytes
 * ..." and exits 0, or 1 with a message on the first failure; 2 on a usage
 * error (one line on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PERF_PROG "sib-memuse"
#include "perf-args.h"
#include "sibtest.h"

static long mem_free_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f;

	sync();
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#define DIE(...) do { fprintf(stderr, "sib-memuse: " __VA_ARGS__); \
		      fprintf(stderr, "\n"); exit(1); } while (0)

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-memuse -d DEV [-g GIDX] [-q NQP] [-c CQES] [-m MIB]\n"
"\n"
"Memory a verbs device spends per QP, per CQ entry and per MR page (MemFree deltas): NQP RC\n"
"QPs in four batches, then connected in pairs and used; four CQs of CQES entries; one MR of\n"
"MIB MiB.  Prints \"qp_bytes ...\", \"qp_used ...\", \"cqe_bytes ...\", \"mr_page_bytes ...\".\n"
"\n"
"  -d, --dev DEV         the verbs device (default sib0)\n"
"  -g, --gid-index N     GID index 0..255 of port 1 (default 1)\n"
"  -q, --qps NQP         QPs, 8..1048576, rounded down to a multiple of 8 (default 2048)\n"
"  -c, --cqes CQES       entries per CQ, 1..2147483647, at most the device's max_cqe\n"
"                        (default 65536)\n"
"  -m, --mr-mib MIB      MiB of the MR, 1..1048576 (default 256)\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0, 1 on the first failure (the message on stderr), 2 usage error (one line\n"
"on stderr).\n");
}

static int to_rts(struct ibv_qp *qp, uint32_t dqpn, union ibv_gid *gid,
		  int gidx, uint8_t port)
{
	struct sibt_conn c = {
		.port = port, .access = IBV_ACCESS_REMOTE_WRITE,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .rq_psn = 0,
		.dgid = *gid, .sgid_index = gidx,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.sq_psn = 0, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 1,
	};

	return sibt_qp_to_rts(qp, &c) ? -1 : 0;
}

int main(int argc, char **argv)
{
	int nqp = 2048, cqes = 65536, mib = 256, gidx = 1, c, i, b, n;
	const char *devname = "sib0";
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp **qps;
	struct ibv_cq *cq, *big[4];
	struct ibv_pd *pd;
	struct ibv_mr *mr, *bufmr;
	union ibv_gid gid;
	char *buf, *mbuf;
	long m0, m1;
	double t0;
	struct timespec ts;

	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "qps", required_argument, NULL, 'q' },
		{ "cqes", required_argument, NULL, 'c' },
		{ "mr-mib", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:g:q:c:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': devname = optarg; break;
		case 'g':
			if (parse_int(optarg, 0, 255, &gidx))
				return usage_error("-g '%s': not a GID index 0..255", optarg);
			break;
		case 'q':
			if (parse_int(optarg, 8, 1 << 20, &nqp))
				return usage_error("-q '%s': not a number of QPs 8..1048576", optarg);
			nqp &= ~7;
			break;
		case 'c':
			if (parse_int(optarg, 1, 0x7fffffff, &cqes))
				return usage_error("-c '%s': not a number of CQ entries 1..2147483647",
						   optarg);
			break;
		case 'm':
			if (parse_int(optarg, 1, 1 << 20, &mib))
				return usage_error("-m '%s': not a number of MiB 1..1048576", optarg);
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
	ctx = sibt_open(devname);
	if (!ctx && errno == ENODEV)
		DIE("no device %s", devname);
	if (!ctx || ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &pa) ||
	    ibv_query_gid(ctx, 1, gidx, &gid))
		DIE("cannot open/query %s", devname);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
	buf = calloc(nqp, 64);
	qps = calloc(nqp, sizeof(*qps));
	if (!pd || !cq || !buf || !qps)
		DIE("setup failed");
	bufmr = ibv_reg_mr(pd, buf, (size_t)nqp * 64, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!bufmr)
		DIE("reg_mr of the QP buffers failed");

	/* CQ entries */
	if (cqes > da.max_cqe)
		cqes = da.max_cqe;
	m0 = mem_free_kb();
	for (i = 0; i < 4; i++)
		if (!(big[i] = ibv_create_cq(ctx, cqes, NULL, NULL, 0)))
			DIE("create_cq of %d entries failed", cqes);
	m1 = mem_free_kb();
	printf("cqe_bytes %s %.1f (4 CQs of %d entries)\n", devname,
	       (m0 - m1) * 1024.0 / (4.0 * cqes), cqes);
	for (i = 0; i < 4; i++)
		ibv_destroy_cq(big[i]);

	/* MR pages */
	mbuf = aligned_alloc(4096, (size_t)mib << 20);
	if (!mbuf)
		DIE("cannot allocate %d MiB", mib);
	memset(mbuf, 1, (size_t)mib << 20);
	m0 = mem_free_kb();
	mr = ibv_reg_mr(pd, mbuf, (size_t)mib << 20, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		DIE("reg_mr of %d MiB failed: %m", mib);
	m1 = mem_free_kb();
	printf("mr_page_bytes %s %.2f (one %d MiB MR, 4 KiB pages)\n", devname,
	       (m0 - m1) * 1024.0 / ((double)mib * 256), mib);
	ibv_dereg_mr(mr);
	/* QPs in four batches */
	printf("qp_bytes %s", devname);
	for (b = 0; b < 4; b++) {
		m0 = mem_free_kb();
		for (i = b * nqp / 4; i < (b + 1) * nqp / 4; i++) {
			struct ibv_qp_init_attr qa = {
				.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 128, .max_recv_wr = 128,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			};

			qps[i] = ibv_create_qp(pd, &qa);
			if (!qps[i])
				DIE("create_qp %d failed: %m", i);
		}
		m1 = mem_free_kb();
		printf(" batch%d=%ld", b + 1, (m0 - m1) * 1024 / (nqp / 4));
	}
	printf(" (%d QPs, 128 send + 128 recv WRs, 1 SGE)\n", nqp);
	fflush(stdout);

	/* use them: 2i <-> 2i+1, one 64-byte WRITE each */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	for (i = 0; i < nqp; i++)
		if (to_rts(qps[i], qps[i ^ 1]->qp_num, &gid, gidx, 1))
			DIE("connect QP %d failed: %m", i);
	memset(buf, 0, (size_t)nqp * 64);
	for (i = 0, n = 0; i < nqp || n < nqp; ) {
		struct ibv_wc wc[16];
		int k;

		if (i < nqp && i - n < 1024) {
			struct ibv_sge sge = {
				.addr = (uintptr_t)buf + (size_t)i * 64 + 32,
				.length = 32, .lkey = bufmr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = i, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma.remote_addr = (uintptr_t)buf + (size_t)(i ^ 1) * 64,
				.wr.rdma.rkey = bufmr->rkey,
			}, *bad;

			memset(buf + (size_t)i * 64 + 32, 0x40 + (i & 63), 32);
			if (ibv_post_send(qps[i], &wr, &bad))
				DIE("post_send on QP %d failed", i);
			i++;
		}
		k = ibv_poll_cq(cq, 16, wc);
		if (k < 0)
			DIE("poll_cq failed");
		for (c = 0; c < k; c++)
			if (wc[c].status != IBV_WC_SUCCESS)
				DIE("QP of wr %lu: %s", (unsigned long)wc[c].wr_id,
				    ibv_wc_status_str(wc[c].status));
		n += k;
	}
	for (i = 0; i < nqp; i++)
		for (c = 0; c < 32; c++)
			if (buf[(size_t)i * 64 + c] != 0x40 + ((i ^ 1) & 63))
				DIE("QP %d: WRITE from its peer did not land (byte %d)", i, c);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("qp_used %s %d QPs connected, one 32-byte WRITE each, all checked, %.2f s\n",
	       devname, nqp, ts.tv_sec + ts.tv_nsec / 1e9 - t0);
	for (i = 0; i < nqp; i++)
		if (ibv_destroy_qp(qps[i]))
			DIE("destroy_qp %d failed", i);

	ibv_dereg_mr(bufmr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
