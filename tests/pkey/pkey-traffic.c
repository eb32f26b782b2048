// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pkey-traffic: one RC or UD QP on each of two verbs devices (-a, -b),
 * with chosen P_Key indices and Q_Keys; A sends N messages to B, one at
 * a time, and the program reports what arrived. Used by tests/vm/pkey.sh.
 *
 * One case per run, or many with --batch FILE (one case per line, the
 * same options, shell-like quoting; "#" lines are comments), which saves
 * the start-up of a verbs process per case on a slow guest.
 *
 * Per case it prints "CASE <name> exit=<e> sent=N send_ok=S received=R
 * status=<first error status of A's sends, blanks as _, or none>" then the
 * change of the devices' P_Key/Q_Key/packet counters during the case
 * (A.<counter>=<delta> ..., B....). e is 0 when all N arrived, 3 when
 * none did, 1 when some did, 2 on a setup error (then "setup=<verb>
 * errno=<name>" instead of the counts).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include "sibtest.h"

#define MSG 64
#define GRH 40

struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	int gid_index;
	union ibv_gid gid;
	uint16_t pkey_index;
	uint32_t qkey;
	long long cnt[8];
};

static const char *const counters[] = {
	"sent_pkts", "rcvd_pkts", "rcvd_pkey_err", "send_pkey_err",
	"rcvd_qkey_err", "retry_exceeded_err",
};
#define NCNT (sizeof(counters) / sizeof(counters[0]))

struct opts {
	const char *name;
	int ud, n, retry, timeout_ms, recv_wait_ms, pause_after;
	const char *pause_cmd, *pre_cmd;
	long wr_qkey;
};

static sigjmp_buf case_env;
static char setup_msg[128];

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case ENODEV: return "ENODEV";
	case EACCES: return "EACCES";
	default: return strerror(e);
	}
}

/* a verb failed: abandon the case */
static void setup_err(const char *step, int e)
{
	snprintf(setup_msg, sizeof(setup_msg), "setup=%s errno=%s", step, errname(e));
	siglongjmp(case_env, 1);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void read_counters(struct side *s)
{
	unsigned int i;

	for (i = 0; i < NCNT; i++)
		s->cnt[i] = sibt_counter(s->name, 1, counters[i]);
}

static void print_deltas(struct side *s, const char *tag)
{
	long long before[NCNT];
	unsigned int i;

	memcpy(before, s->cnt, sizeof(before));
	read_counters(s);
	for (i = 0; i < NCNT; i++)
		if (before[i] >= 0 && s->cnt[i] >= 0)
			printf(" %s.%s=%lld", tag, counters[i], s->cnt[i] - before[i]);
}

/* the RoCE v2 GID of an IPv4 address */
static int find_gid(struct side *s)
{
	s->gid_index = sibt_find_gid(s->ctx, 1, 32, &s->gid);
	return s->gid_index < 0 ? -1 : 0;
}

static void open_side(struct side *s, const struct opts *o)
{
	struct ibv_qp_init_attr ia = {};
	struct sibt_conn c = {};

	s->ctx = sibt_open(s->name);
	if (!s->ctx)
		setup_err("open_device", ENODEV);
	if (find_gid(s))
		setup_err("find_roce_v2_ipv4_gid", ENODEV);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		setup_err("alloc_pd", errno);
	s->cq = ibv_create_cq(s->ctx, 2 * o->n + 8, NULL, NULL, 0);
	if (!s->cq)
		setup_err("create_cq", errno);
	s->buf = calloc(o->n + 1, MSG + GRH);
	if (!s->buf)
		setup_err("calloc", errno);
	s->mr = ibv_reg_mr(s->pd, s->buf, (o->n + 1) * (MSG + GRH),
			   IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr)
		setup_err("reg_mr", errno);
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = o->ud ? IBV_QPT_UD : IBV_QPT_RC;
	ia.cap.max_send_wr = o->n + 1;
	ia.cap.max_recv_wr = o->n + 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.sq_sig_all = 1;
	s->qp = ibv_create_qp(s->pd, &ia);
	if (!s->qp)
		setup_err("create_qp", errno);
	c.pkey_index = s->pkey_index;
	c.qkey = s->qkey;			/* UD */
	c.access = IBV_ACCESS_REMOTE_WRITE;	/* RC */
	if (sibt_qp_init(s->qp, &c))
		setup_err("modify_qp_init", errno);
}

static void to_rts(struct side *s, struct side *peer, const struct opts *o)
{
	struct sibt_conn c = {
		.pkey_index = s->pkey_index,
		.mtu = IBV_MTU_1024, .dest_qpn = peer->qp->qp_num, .rq_psn = 100,
		.dgid = peer->gid, .sgid_index = s->gid_index,
		.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
		.sq_psn = 100,
		.timeout = 12,		/* 16.8 ms */
		.retry_cnt = o->retry, .rnr_retry = 7, .max_rd_atomic = 1,
	};

	if (sibt_qp_rtr(s->qp, &c))
		setup_err("modify_qp_rtr", errno);
	if (sibt_qp_rts(s->qp, &c))
		setup_err("modify_qp_rts", errno);
}

static void post_recv(struct side *s, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + i * (MSG + GRH),
		.length = MSG + GRH,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	errno = ibv_post_recv(s->qp, &wr, &bad);
	if (errno)
		setup_err("post_recv", errno);
}

static void close_side(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
	free(s->buf);
	s->qp = NULL, s->mr = NULL, s->cq = NULL, s->pd = NULL;
	s->ctx = NULL, s->buf = NULL;
}

/* the P_Key table as libibverbs sees it (ibv_query_pkey: sysfs) */
static int show_pkeys(const char *name)
{
	struct ibv_context *ctx = sibt_open(name);
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	__be16 pkey;
	int i;

	if (!ctx || ibv_query_device(ctx, &da) || ibv_query_port(ctx, 1, &pa)) {
		printf("SHOW %s failed\n", name);
		return 2;
	}
	printf("MAX_PKEYS %s %u\nPKEY_TBL_LEN %s %u\n", name, da.max_pkeys,
	       name, pa.pkey_tbl_len);
	for (i = 0; i < pa.pkey_tbl_len; i++) {
		if (ibv_query_pkey(ctx, 1, i, &pkey)) {
			printf("SHOW %s query_pkey %d failed\n", name, i);
			break;
		}
		if (pkey)
			printf("PKEY %s %d 0x%04x\n", name, i, ntohs(pkey));
	}
	ibv_close_device(ctx);
	return 0;
}

/* print the async events that arrive on @s within @ms */
static void drain_events(struct side *s, const char *tag, int ms)
{
	struct pollfd p = { .fd = s->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	while (poll(&p, 1, ms) == 1) {
		if (ibv_get_async_event(s->ctx, &ev))
			break;
		printf("ASYNC_EVENT %s %s\n", tag, ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		ms = 50;
	}
}

/* A sends o->n messages to B; returns the case's exit code */
static int traffic(struct side *a, struct side *b, const struct opts *o,
		   int *sent, int *send_ok, int *received, int *status)
{
	struct ibv_ah *ah = NULL;
	int i, last = -1;
	long deadline;

	open_side(a, o);
	open_side(b, o);
	to_rts(a, b, o);
	to_rts(b, a, o);
	for (i = 0; i < o->n; i++)
		post_recv(b, i);
	if (o->ud) {
		struct ibv_ah_attr aa = {
			.is_global = 1,
			.grh = { .dgid = b->gid, .sgid_index = a->gid_index, .hop_limit = 64 },
			.port_num = 1,
		};

		ah = ibv_create_ah(a->pd, &aa);
		if (!ah)
			setup_err("create_ah", errno);
	}
	for (i = 0; i < o->n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)a->buf + i * (MSG + GRH),
			.length = MSG,
			.lkey = a->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND,
		}, *bad;
		struct ibv_wc wc;

		memset(a->buf + i * (MSG + GRH), 'a' + i % 26, MSG);
		if (o->ud) {
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = b->qp->qp_num;
			wr.wr.ud.remote_qkey = o->wr_qkey >= 0 ? (uint32_t)o->wr_qkey : b->qkey;
		}
		if (i == o->pause_after && o->pause_cmd) {
			fflush(stdout);
			if (system(o->pause_cmd))
				printf("NOTE pause command failed: %s\n", o->pause_cmd);
			drain_events(a, "A", 1000);
			drain_events(b, "B", 200);
		}
		errno = ibv_post_send(a->qp, &wr, &bad);
		if (errno)
			setup_err("post_send", errno);
		(*sent)++;
		/* one message at a time: wait for its completion on A */
		deadline = now_ms() + o->timeout_ms;
		for (;;) {
			int n = ibv_poll_cq(a->cq, 1, &wc);

			if (n < 0)
				setup_err("poll_cq", EIO);
			if (n == 1 && wc.opcode == IBV_WC_SEND) {
				if (wc.status == IBV_WC_SUCCESS)
					(*send_ok)++;
				else if (*status < 0)
					*status = wc.status;
				break;
			}
			if (n == 1)
				continue;
			if (now_ms() > deadline) {
				printf("NOTE send %d: no completion after %d ms\n", i, o->timeout_ms);
				break;
			}
			usleep(200);
		}
		if (*status >= 0)
			break;
	}
	/* then collect what reached B */
	deadline = now_ms() + o->recv_wait_ms;
	while (*received < o->n && now_ms() < deadline) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(b->cq, 1, &wc);
		/* message i is filled with 'a' + i % 26; they arrive in order */
		int m = n == 1 ? b->buf[wc.wr_id * (MSG + GRH) + (o->ud ? GRH : 0)] - 'a' : -1;

		if (n == 1 && wc.status == IBV_WC_SUCCESS &&
		    (wc.opcode & IBV_WC_RECV) &&
		    wc.byte_len == MSG + (o->ud ? GRH : 0) && m > last && m < 26) {
			(*received)++;
			last = m;
		} else if (n == 1) {
			printf("NOTE B completion: status %s opcode %d len %u\n",
			       ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		} else {
			usleep(500);
		}
	}
	if (ah)
		ibv_destroy_ah(ah);
	return *received == o->n ? 0 : *received ? 1 : 3;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: pkey-traffic [--name NAME] --type rc|ud -a DEV -b DEV [--index-a I] [--index-b I]\n"
"         [--qkey-a Q] [--qkey-b Q] [--wr-qkey Q] [-n N] [-r RETRY] [--timeout-ms T]\n"
"         [--recv-wait-ms T] [--pre-cmd CMD] [--pause-after K --pause-cmd CMD]\n"
"       pkey-traffic --show-pkeys DEV\n"
"       pkey-traffic --batch FILE      (one case per line, same options)\n");
}

/* run one case from its argument vector; returns its exit code */
static int run_case(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "name", required_argument, NULL, 'N' },
		{ "type", required_argument, NULL, 't' },
		{ "dev-a", required_argument, NULL, 'a' },
		{ "dev-b", required_argument, NULL, 'b' },
		{ "index-a", required_argument, NULL, 'A' },
		{ "index-b", required_argument, NULL, 'B' },
		{ "qkey-a", required_argument, NULL, 'q' },
		{ "qkey-b", required_argument, NULL, 'Q' },
		{ "wr-qkey", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "retry-cnt", required_argument, NULL, 'r' },
		{ "timeout-ms", required_argument, NULL, 'T' },
		{ "recv-wait-ms", required_argument, NULL, 'W' },
		{ "pre-cmd", required_argument, NULL, 'p' },
		{ "pause-after", required_argument, NULL, 'P' },
		{ "pause-cmd", required_argument, NULL, 'C' },
		{ "show-pkeys", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct opts o = { .name = "case", .n = 4, .retry = 2, .timeout_ms = 3000,
			  .recv_wait_ms = 1500, .pause_after = -1, .wr_qkey = -1 };
	static struct side a, b;
	static int sent, send_ok, received, status;	/* survive siglongjmp */
	int c, rc;

	sent = send_ok = received = 0;
	status = -1;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.name = "sibA", b.name = "sibB";
	a.qkey = b.qkey = 0x11111111;
	optind = 0;
	while ((c = getopt_long(argc, argv, "t:a:b:n:r:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'N': o.name = optarg; break;
		case 't': o.ud = !strcmp(optarg, "ud"); break;
		case 'a': a.name = optarg; break;
		case 'b': b.name = optarg; break;
		case 'A': a.pkey_index = strtoul(optarg, NULL, 0); break;
		case 'B': b.pkey_index = strtoul(optarg, NULL, 0); break;
		case 'q': a.qkey = strtoul(optarg, NULL, 0); break;
		case 'Q': b.qkey = strtoul(optarg, NULL, 0); break;
		case 'w': o.wr_qkey = strtol(optarg, NULL, 0); break;
		case 'n': o.n = atoi(optarg); break;
		case 'r': o.retry = atoi(optarg); break;
		case 'T': o.timeout_ms = atoi(optarg); break;
		case 'W': o.recv_wait_ms = atoi(optarg); break;
		case 'p': o.pre_cmd = optarg; break;
		case 'P': o.pause_after = atoi(optarg); break;
		case 'C': o.pause_cmd = optarg; break;
		case 'S': return show_pkeys(optarg);
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (o.n < 1 || o.n > 26)
		o.n = 4;
	if (o.pre_cmd && system(o.pre_cmd))
		printf("NOTE pre command failed: %s\n", o.pre_cmd);
	/* ib_core serves hw_counters from a cache for 10 ms: outwait it */
	usleep(30000);
	read_counters(&a);
	read_counters(&b);
	if (sigsetjmp(case_env, 0)) {
		rc = 2;
		printf("CASE %s exit=2 %s", o.name, setup_msg);
	} else {
		rc = traffic(&a, &b, &o, &sent, &send_ok, &received, &status);
		char st[64], *p;

		snprintf(st, sizeof(st), "%s",
			 status < 0 ? "none" : ibv_wc_status_str(status));
		for (p = st; *p; p++)
			if (*p == ' ')
				*p = '_';
		printf("CASE %s exit=%d sent=%d send_ok=%d received=%d status=%s",
		       o.name, rc, sent, send_ok, received, st);
	}
	close_side(&a);
	close_side(&b);
	usleep(30000);
	print_deltas(&a, "A");
	print_deltas(&b, "B");
	printf("\n");
	fflush(stdout);
	return rc;
}

static int run_batch(const char *path)
{
	char line[4096];
	int worst = 0, rc;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		wordexp_t we;
		char **argv;

		line[strcspn(line, "\n")] = 0;
		if (!line[strspn(line, " \t")] || line[strspn(line, " \t")] == '#')
			continue;
		if (wordexp(line, &we, WRDE_NOCMD | WRDE_UNDEF)) {
			printf("BATCH bad line: %s\n", line);
			worst = 2;
			continue;
		}
		/* argv[0] for getopt */
		argv = calloc(we.we_wordc + 2, sizeof(*argv));
		if (!argv)
			return 2;
		argv[0] = "pkey-traffic";
		memcpy(argv + 1, we.we_wordv, we.we_wordc * sizeof(*argv));
		rc = run_case(we.we_wordc + 1, argv);
		worst = rc > worst ? rc : worst;
		free(argv);
		wordfree(&we);
	}
	fclose(f);
	return worst;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--batch"))
		return run_batch(argv[2]);
	return run_case(argc, argv);
}
