// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-load: options, device and QP setup, device counters, the summary.
 * See docs/tools.md, "tools/load/sib-load", and man/sib-load.1.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "sibtest.h"

#define EXIT_VERIFY	1
#define EXIT_SETUP	2

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-load [OPTIONS]\n"
"\n"
"Connects N RC QP pairs inside one process and runs a mixed, verified workload on them:\n"
"RDMA WRITE, RDMA WRITE with immediate, RDMA READ, SEND, SEND with immediate and (when the\n"
"device has atomic_cap != NONE) ATOMIC CMP_AND_SWP / FETCH_AND_ADD, random sizes from 0 B to\n"
"--max-size (log-uniform, plus sizes around the path MTU), 1..max_sge SGEs at random offsets,\n"
"several WRs outstanding per QP.  Every byte and every completion is checked.\n"
"\n"
"  -d, --dev DEV            device of the first QP of each pair (default: sib0)\n"
"  -D, --peer-dev DEV       device of the second QP (default: the same device)\n"
"  -p, --port N             port (default 1)\n"
"  -g, --gid-index N        GID index on both devices (default: the RoCE v2 IPv4 GID)\n"
"  -q, --qps N              QP pairs (default 4)\n"
"  -n, --ops N              ops posted per requester QP (default 1000 when no -t/-b)\n"
"  -t, --time SEC           post for SEC seconds\n"
"  -b, --bytes SIZE         post until SIZE bytes in total (K/M/G suffixes)\n"
"  -M, --max-size SIZE      largest message (default 4M)\n"
"      --fixed-size         every message is exactly --max-size bytes\n"
"      --no-empty           no 0-byte messages (the smallest is 1 byte)\n"
"  -S, --max-sge N          most SGEs per WR (default: the device's max_sge, at most %d)\n"
"  -o, --depth N            WRs outstanding per QP (default 4)\n"
"  -s, --seed N             PRNG seed (default: random, printed)\n"
"  -T, --stall-timeout SEC  no completion for SEC seconds: the rest is lost (default 30)\n"
"      --ops-mix LIST       comma list of write,write_imm,read,send,send_imm,cmp_swp,\n"
"                           fetch_add (default: all; atomics only when supported)\n"
"      --one-way            only the first QP of each pair issues requests\n"
"      --signal-every K     signal one WR in K (default 1: all); the others complete implied\n"
"  -m, --mtu BYTES          path MTU 256..4096 (default: the port's active MTU)\n"
"      --ack-timeout N      local ACK timeout exponent, 4.096 us * 2^N (default 14)\n"
"      --retry-cnt N        retry_cnt (default 7)\n"
"      --rnr-retry N        rnr_retry, 7 = infinite (default 7)\n"
"      --min-rnr-timer N    min_rnr_timer encoding (default 12)\n"
"      --expect-status ST   fault tests: the status ST (e.g. retry-exceeded, rnr-retry-exceeded,\n"
"                           IBV_WC_RETRY_EXC_ERR or its ibv_wc_status_str text) must occur;\n"
"                           besides it only flush errors are allowed\n"
"      --recv-delay SEC     responders post their first receives SEC seconds late (RNR)\n"
"      --peer-error-after SEC  fault: move the second QP of every pair to ERROR after SEC\n"
"                           seconds (its peer must end with retry-exceeded)\n"
"      --json               also print one JSON line with the results\n"
"  -v, --verbose            progress every second, every error report\n"
"  -h, --help               this help\n"
"\n"
"Exit status: 0 when no byte mismatched, no completion was lost, duplicated, unknown or wrong\n"
"and no error status occurred (or only the expected one); 1 otherwise; 2 on setup errors\n"
"and usage errors (an unknown option, an option without its value, a bad number: one line\n"
"on stderr).\n",
		LOAD_MAX_SGE);
}

static const struct {
	enum ibv_wc_status st;
	const char *name, *alias;
} status_names[] = {
	{ IBV_WC_SUCCESS, "IBV_WC_SUCCESS", "success" },
	{ IBV_WC_LOC_LEN_ERR, "IBV_WC_LOC_LEN_ERR", "local-length" },
	{ IBV_WC_LOC_QP_OP_ERR, "IBV_WC_LOC_QP_OP_ERR", "local-qp-op" },
	{ IBV_WC_LOC_EEC_OP_ERR, "IBV_WC_LOC_EEC_OP_ERR", "local-eec-op" },
	{ IBV_WC_LOC_PROT_ERR, "IBV_WC_LOC_PROT_ERR", "local-protection" },
	{ IBV_WC_WR_FLUSH_ERR, "IBV_WC_WR_FLUSH_ERR", "flush" },
	{ IBV_WC_MW_BIND_ERR, "IBV_WC_MW_BIND_ERR", "mw-bind" },
	{ IBV_WC_BAD_RESP_ERR, "IBV_WC_BAD_RESP_ERR", "bad-response" },
	{ IBV_WC_LOC_ACCESS_ERR, "IBV_WC_LOC_ACCESS_ERR", "local-access" },
	{ IBV_WC_REM_INV_REQ_ERR, "IBV_WC_REM_INV_REQ_ERR", "remote-invalid-request" },
	{ IBV_WC_REM_ACCESS_ERR, "IBV_WC_REM_ACCESS_ERR", "remote-access" },
	{ IBV_WC_REM_OP_ERR, "IBV_WC_REM_OP_ERR", "remote-op" },
	{ IBV_WC_RETRY_EXC_ERR, "IBV_WC_RETRY_EXC_ERR", "retry-exceeded" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "IBV_WC_RNR_RETRY_EXC_ERR", "rnr-retry-exceeded" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "IBV_WC_LOC_RDD_VIOL_ERR", "local-rdd-violation" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, "IBV_WC_REM_INV_RD_REQ_ERR", "remote-invalid-rd-request" },
	{ IBV_WC_REM_ABORT_ERR, "IBV_WC_REM_ABORT_ERR", "remote-abort" },
	{ IBV_WC_INV_EECN_ERR, "IBV_WC_INV_EECN_ERR", "invalid-eecn" },
	{ IBV_WC_INV_EEC_STATE_ERR, "IBV_WC_INV_EEC_STATE_ERR", "invalid-eec-state" },
	{ IBV_WC_FATAL_ERR, "IBV_WC_FATAL_ERR", "fatal" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "IBV_WC_RESP_TIMEOUT_ERR", "response-timeout" },
	{ IBV_WC_GENERAL_ERR, "IBV_WC_GENERAL_ERR", "general" },
};

static int parse_status(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++) {
		const char *n = status_names[i].name;

		if (!strcasecmp(s, n) || !strcasecmp(s, n + strlen("IBV_WC_")) ||
		    !strcasecmp(s, status_names[i].alias) ||
		    !strcasecmp(s, ibv_wc_status_str(status_names[i].st)))
			return (int)status_names[i].st;
	}
	return -1;
}

static const char *status_name(int st)
{
	size_t i;

	for (i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if ((int)status_names[i].st == st)
			return status_names[i].name;
	return "IBV_WC_?";
}

/* digits first: strtoull and strtol would take a sign ("-1" is ULLONG_MAX) or blanks */
static bool starts_with_digit(const char *s)
{
	return *s >= '0' && *s <= '9';
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!starts_with_digit(s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (v > (~0ULL >> shift))
		return -1;
	v <<= shift;
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	if (!starts_with_digit(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* seconds: a positive, finite decimal number (strtod, end pointer checked; atof took "12x") */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!starts_with_digit(s) && *s != '.')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

static const char *const mix_names[OP_NUM] = {
	"write", "write_imm", "read", "send", "send_imm", "cmp_swp", "fetch_add"
};

static int parse_mix(const char *s, unsigned *mask)
{
	char buf[256], *tok, *save;
	int i;

	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < OP_NUM; i++)
			if (!strcmp(tok, mix_names[i]))
				break;
		if (i == OP_NUM)
			return -1;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -1;
}

enum {
	OPT_MIX = 256, OPT_ONE_WAY, OPT_SIGNAL, OPT_ACK_TIMEOUT, OPT_RETRY, OPT_RNR_RETRY,
	OPT_MIN_RNR, OPT_EXPECT, OPT_JSON, OPT_RECV_DELAY, OPT_PEER_ERROR, OPT_FIXED, OPT_NO_EMPTY,
};

static const struct option long_opts[] = {
	{ "dev", required_argument, NULL, 'd' },
	{ "peer-dev", required_argument, NULL, 'D' },
	{ "port", required_argument, NULL, 'p' },
	{ "gid-index", required_argument, NULL, 'g' },
	{ "qps", required_argument, NULL, 'q' },
	{ "ops", required_argument, NULL, 'n' },
	{ "time", required_argument, NULL, 't' },
	{ "bytes", required_argument, NULL, 'b' },
	{ "max-size", required_argument, NULL, 'M' },
	{ "max-sge", required_argument, NULL, 'S' },
	{ "depth", required_argument, NULL, 'o' },
	{ "seed", required_argument, NULL, 's' },
	{ "stall-timeout", required_argument, NULL, 'T' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "ops-mix", required_argument, NULL, OPT_MIX },
	{ "one-way", no_argument, NULL, OPT_ONE_WAY },
	{ "fixed-size", no_argument, NULL, OPT_FIXED },
	{ "no-empty", no_argument, NULL, OPT_NO_EMPTY },
	{ "signal-every", required_argument, NULL, OPT_SIGNAL },
	{ "ack-timeout", required_argument, NULL, OPT_ACK_TIMEOUT },
	{ "retry-cnt", required_argument, NULL, OPT_RETRY },
	{ "rnr-retry", required_argument, NULL, OPT_RNR_RETRY },
	{ "min-rnr-timer", required_argument, NULL, OPT_MIN_RNR },
	{ "expect-status", required_argument, NULL, OPT_EXPECT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "recv-delay", required_argument, NULL, OPT_RECV_DELAY },
	{ "peer-error-after", required_argument, NULL, OPT_PEER_ERROR },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad_arg(const char *opt, const char *arg)
{
	fprintf(stderr, "sib-load: bad value '%s' for %s (see --help)\n", arg, opt);
	return -1;
}

static int parse_num_opt(int c, const char *arg, struct load_opts *o)
{
	uint64_t v;
	int mtu;

	switch (c) {
	case 'p': return parse_int(arg, 1, 255, &o->port) ? bad_arg("--port", arg) : 0;
	case 'g': return parse_int(arg, 0, 255, &o->gid_index) ? bad_arg("--gid-index", arg) : 0;
	case 'q': return parse_int(arg, 1, 1024, &o->qps) ? bad_arg("--qps", arg) : 0;
	case 'S': return parse_int(arg, 1, LOAD_MAX_SGE, &o->max_sge) ? bad_arg("--max-sge", arg) : 0;
	case 'o': return parse_int(arg, 1, 4096, &o->depth) ? bad_arg("--depth", arg) : 0;
	case 'n': return parse_size(arg, &o->ops_per_qp) ? bad_arg("--ops", arg) : 0;
	case 'b': return parse_size(arg, &o->total_bytes) ? bad_arg("--bytes", arg) : 0;
	case 's': return parse_size(arg, &o->seed) ? bad_arg("--seed", arg) : 0;
	case 'M':
		if (parse_size(arg, &v) || v > (1ULL << 30))
			return bad_arg("--max-size (at most 1G)", arg);
		o->max_size = v;
		return 0;
	case 't': return parse_seconds(arg, &o->seconds) ? bad_arg("--time", arg) : 0;
	case 'T':
		return parse_seconds(arg, &o->stall_timeout) ? bad_arg("--stall-timeout", arg) : 0;
	case 'm':
		if (parse_int(arg, 256, 4096, &mtu) || (mtu & (mtu - 1)))
			return bad_arg("--mtu", arg);
		for (o->mtu = IBV_MTU_256; (128 << o->mtu) < mtu; o->mtu++)
			;
		return 0;
	case OPT_RECV_DELAY:
		return parse_seconds(arg, &o->recv_delay) ? bad_arg("--recv-delay", arg) : 0;
	case OPT_PEER_ERROR:
		return parse_seconds(arg, &o->peer_error_after) ?
		       bad_arg("--peer-error-after", arg) : 0;
	case OPT_SIGNAL:
		return parse_int(arg, 1, 1 << 20, &o->signal_every) ? bad_arg("--signal-every", arg) : 0;
	case OPT_ACK_TIMEOUT:
		return parse_int(arg, 0, 31, &o->ack_timeout) ? bad_arg("--ack-timeout", arg) : 0;
	case OPT_RETRY: return parse_int(arg, 0, 7, &o->retry_cnt) ? bad_arg("--retry-cnt", arg) : 0;
	case OPT_RNR_RETRY:
		return parse_int(arg, 0, 7, &o->rnr_retry) ? bad_arg("--rnr-retry", arg) : 0;
	case OPT_MIN_RNR:
		return parse_int(arg, 0, 31, &o->min_rnr_timer) ? bad_arg("--min-rnr-timer", arg) : 0;
	}
	return bad_arg("?", arg);
}

/* returns 0, 1 (help printed) or -1 */
static int parse_args(int argc, char **argv, struct load_opts *o, bool *mix_given)
{
	int c;

	*o = (struct load_opts){
		.dev1 = "sib0", .port = 1, .gid_index = -1, .qps = 4, .max_size = 4 << 20,
		.depth = 4, .stall_timeout = 30, .op_mask = (1u << OP_NUM) - 1,
		.signal_every = 1, .ack_timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 12, .expect_status = -1,
		.seed = load_mix64((uint64_t)getpid() ^ ((uint64_t)(load_now() * 1e6) << 16)) & 0xffffffffffffULL,
	};
	*mix_given = false;
	opterr = 0;	/* our own messages: "sib-load: PROBLEM (see --help)" */
	while ((c = getopt_long(argc, argv, ":d:D:p:g:q:n:t:b:M:S:o:s:T:m:vh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd': o->dev1 = optarg; break;
		case 'D': o->dev2 = optarg; break;
		case 'v': o->verbose++; break;
		case 'h': usage(stdout); return 1;
		case OPT_ONE_WAY: o->one_way = true; break;
		case OPT_FIXED: o->fixed_size = true; break;
		case OPT_NO_EMPTY: o->no_empty = true; break;
		case OPT_JSON: o->json = true; break;
		case OPT_MIX:
			if (parse_mix(optarg, &o->op_mask))
				return bad_arg("--ops-mix", optarg);
			*mix_given = true;
			break;
		case OPT_EXPECT:
			o->expect_status = parse_status(optarg);
			if (o->expect_status <= 0)
				return bad_arg("--expect-status", optarg);
			break;
		case ':':
			fprintf(stderr, "sib-load: option %s needs a value (see --help)\n",
				argv[optind - 1]);
			return -1;
		case '?':
			if (optopt > 0 && optopt < 256)
				fprintf(stderr, "sib-load: unknown option '-%c' (see --help)\n", optopt);
			else
				fprintf(stderr, "sib-load: unknown option '%s' (see --help)\n",
					argv[optind - 1]);
			return -1;
		default:
			if (parse_num_opt(c, optarg, o))
				return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sib-load: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	if (!o->dev2)
		o->dev2 = o->dev1;
	if (!o->ops_per_qp && !o->seconds && !o->total_bytes)
		o->ops_per_qp = 1000;
	return 0;
}

/* ---- device counters (sysfs hw_counters) ---- */

static int read_counter(const char *dev, int port, const char *name, uint64_t *v)
{
	long long x = sibt_counter(dev, port, name);

	if (x < 0)
		return -1;
	*v = (uint64_t)x;
	return 0;
}

static void counters_init(struct load_dev *d, int port)
{
	char path[512];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters", d->name, port);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)))
		n++;
	d->counter_names = calloc((size_t)n, sizeof(char *));
	d->counters_before = calloc((size_t)n, sizeof(uint64_t));
	d->counters_after = calloc((size_t)n, sizeof(uint64_t));
	rewinddir(dir);
	while ((de = readdir(dir)) && d->ndev_counters < n) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan"))
			continue;
		if (read_counter(d->name, port, de->d_name, &d->counters_before[d->ndev_counters]))
			continue;
		d->counter_names[d->ndev_counters++] = strdup(de->d_name);
	}
	closedir(dir);
}

static void counters_read_after(struct load_dev *d, int port)
{
	int i;

	for (i = 0; i < d->ndev_counters; i++)
		if (read_counter(d->name, port, d->counter_names[i], &d->counters_after[i]))
			d->counters_after[i] = d->counters_before[i];
}

/* ---- devices, buffers, QPs ---- */

static int open_dev(struct load *l, struct load_dev *d, const char *name)
{
	int p = l->o.port;

	d->name = name;
	d->ctx = sibt_open(name);
	if (!d->ctx) {
		fprintf(stderr, "sib-load: cannot open RDMA device %s\n", name);
		return -1;
	}
	if (ibv_query_device(d->ctx, &d->attr) || ibv_query_port(d->ctx, (uint8_t)p, &d->port_attr)) {
		fprintf(stderr, "sib-load: cannot query %s port %d\n", name, p);
		return -1;
	}
	d->gid_index = l->o.gid_index;
	if (d->gid_index >= 0) {
		if (ibv_query_gid(d->ctx, (uint8_t)p, d->gid_index, &d->gid)) {
			fprintf(stderr, "sib-load: %s has no GID index %d\n", name, d->gid_index);
			return -1;
		}
	} else {
		d->gid_index = sibt_find_gid(d->ctx, (uint8_t)p, d->port_attr.gid_tbl_len, &d->gid);
		if (d->gid_index < 0) {
			fprintf(stderr, "sib-load: %s port %d has no RoCE v2 IPv4 GID (use -g)\n", name, p);
			return -1;
		}
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		fprintf(stderr, "sib-load: ibv_alloc_pd on %s failed\n", name);
		return -1;
	}
	counters_init(d, p);
	return 0;
}

static void *alloc_buf(uint64_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, size ? size : 8))
		return NULL;
	return p;
}

static struct ibv_mr *reg(struct load_ep *e, void *buf, uint64_t size, int access, const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(e->dev->pd, buf, size, access);

	if (!mr)
		fprintf(stderr, "sib-load: ibv_reg_mr of %s (%" PRIu64 " bytes) on %s failed: %s\n",
			what, size, e->dev->name, strerror(errno));
	return mr;
}

static int setup_bufs(struct load *l, struct load_ep *e)
{
	uint64_t d = (uint64_t)l->o.depth, i;
	int rw = IBV_ACCESS_LOCAL_WRITE;

	e->local = alloc_buf(d * l->slot_size);
	e->target = alloc_buf(d * l->slot_size);
	e->recv = alloc_buf(d * l->recv_size);
	e->atom = alloc_buf(LOAD_ATOM_WORDS * 8);
	e->result = alloc_buf(d * 8);
	e->recv_dirty = calloc(d, sizeof(uint32_t));
	e->wrs = calloc(d, sizeof(struct load_wr));
	e->expect = calloc(d, sizeof(struct load_expect));
	if (!e->local || !e->target || !e->recv || !e->atom || !e->result || !e->recv_dirty ||
	    !e->wrs || !e->expect) {
		fprintf(stderr, "sib-load: out of memory\n");
		return -1;
	}
	memset(e->recv, 0x5c, d * l->recv_size);	/* the engine's receive canary */
	for (i = 0; i < LOAD_ATOM_WORDS; i++)
		e->atom[i] = load_rng_next(&e->rng);
	e->local_mr = reg(e, e->local, d * l->slot_size, rw, "the local buffer");
	e->target_mr = reg(e, e->target, d * l->slot_size,
			   rw | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, "the target buffer");
	e->recv_mr = reg(e, e->recv, d * l->recv_size, rw, "the receive buffer");
	e->result_mr = reg(e, e->result, d * 8, rw, "the atomic results");
	e->atom_mr = reg(e, e->atom, LOAD_ATOM_WORDS * 8,
			 rw | (l->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0), "the atomic words");
	return e->local_mr && e->target_mr && e->recv_mr && e->result_mr && e->atom_mr ? 0 : -1;
}

static int create_qp(struct load *l, struct load_ep *e)
{
	struct ibv_qp_init_attr ia = {};
	int cqe = l->o.depth + 2;

	e->scq = ibv_create_cq(e->dev->ctx, cqe, NULL, NULL, 0);
	e->rcq = ibv_create_cq(e->dev->ctx, cqe, NULL, NULL, 0);
	if (!e->scq || !e->rcq) {
		fprintf(stderr, "sib-load: ibv_create_cq on %s failed\n", e->dev->name);
		return -1;
	}
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = (uint32_t)l->o.depth;
	ia.cap.max_recv_wr = (uint32_t)l->o.depth;
	ia.cap.max_send_sge = (uint32_t)l->sge_send;
	ia.cap.max_recv_sge = (uint32_t)l->sge_recv;
	e->qp = ibv_create_qp(e->dev->pd, &ia);
	if (!e->qp) {
		fprintf(stderr, "sib-load: ibv_create_qp (RC, %d WRs, %d/%d SGEs) on %s failed: %s\n",
			l->o.depth, l->sge_send, l->sge_recv, e->dev->name, strerror(errno));
		return -1;
	}
	/* half the QPs start close to the PSN wrap */
	e->sq_psn = load_rng_below(&e->rng, 2) ? 0xffffffu - (uint32_t)load_rng_below(&e->rng, 512)
					      : (uint32_t)load_rng_below(&e->rng, 1u << 24);
	return 0;
}

static int connect_qp(struct load *l, struct load_ep *e)
{
	struct load_ep *p = e->peer;
	struct load_dev *d = e->dev;
	struct sibt_conn c = {
		.port = (uint8_t)l->o.port,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | (l->atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0),
		.mtu = (enum ibv_mtu)l->path_mtu,
		.dest_qpn = p->qp->qp_num,
		.rq_psn = p->sq_psn,
		.dgid = p->dev->gid,
		.sgid_index = (uint8_t)d->gid_index,
		.max_dest_rd_atomic = (uint8_t)(d->attr.max_qp_rd_atom < 16 ? d->attr.max_qp_rd_atom : 16),
		.min_rnr_timer = (uint8_t)l->o.min_rnr_timer,
		.sq_psn = e->sq_psn,
		.timeout = (uint8_t)l->o.ack_timeout,
		.retry_cnt = (uint8_t)l->o.retry_cnt,
		.rnr_retry = (uint8_t)l->o.rnr_retry,
		.max_rd_atomic = (uint8_t)(d->attr.max_qp_init_rd_atom < 16 ? d->attr.max_qp_init_rd_atom : 16),
	};
	int st = sibt_qp_to_rts(e->qp, &c);

	if (!st)
		return 0;
	fprintf(stderr, "sib-load: ibv_modify_qp of QP 0x%x on %s to %s failed: %s\n", e->qp->qp_num,
		d->name, sibt_qp_state_name(st), strerror(errno));
	return -1;
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

/* capabilities of the device pair: SGE limits, atomics */
static void pick_caps(struct load *l, bool mix_given)
{
	struct ibv_device_attr *a = &l->devs[0].attr, *b = &l->devs[1].attr;
	unsigned atom = (1u << OP_CMP_SWP) | (1u << OP_FETCH_ADD);
	int sge = min_int(min_int(a->max_sge, b->max_sge), LOAD_MAX_SGE);
	int rd = min_int(a->max_sge_rd ? a->max_sge_rd : a->max_sge,
			 b->max_sge_rd ? b->max_sge_rd : b->max_sge);

	if (l->o.max_sge)
		sge = min_int(sge, l->o.max_sge);
	l->sge_send = l->sge_recv = sge;
	l->sge_rd = min_int(sge, rd);
	l->atomics = a->atomic_cap != IBV_ATOMIC_NONE && b->atomic_cap != IBV_ATOMIC_NONE;
	if (!l->atomics && (l->o.op_mask & atom)) {
		printf("atomics: skipped: atomic_cap is ATOMIC_NONE on %s\n",
		       a->atomic_cap == IBV_ATOMIC_NONE ? l->devs[0].name : l->devs[1].name);
		l->o.op_mask &= ~atom;
		if (mix_given && !l->o.op_mask)
			l->o.op_mask = 1u << OP_WRITE;
	}
	if (l->o.max_size > a->max_mr_size / 2)
		l->o.max_size = a->max_mr_size / 2;
}

static int setup(struct load *l, bool mix_given)
{
	int i;

	if (open_dev(l, &l->devs[0], l->o.dev1))
		return -1;
	if (strcmp(l->o.dev1, l->o.dev2)) {
		if (open_dev(l, &l->devs[1], l->o.dev2))
			return -1;
		l->ndevs = 2;
	} else {
		l->devs[1] = l->devs[0];
		l->ndevs = 1;
	}
	pick_caps(l, mix_given);
	l->path_mtu = l->o.mtu ? l->o.mtu : (int)l->devs[0].port_attr.active_mtu;
	l->slot_size = l->o.max_size + LOAD_GAP + 2 * LOAD_MARGIN;
	l->recv_size = l->o.max_size + LOAD_MARGIN;
	l->neps = 2 * l->o.qps;
	l->eps = calloc((size_t)l->neps, sizeof(*l->eps));
	if (!l->eps)
		return -1;
	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		e->id = i;
		e->dev = &l->devs[i & 1];
		e->peer = &l->eps[i ^ 1];
		e->active = !(l->o.one_way && (i & 1));
		load_rng_seed(&e->rng, load_op_key(l->o.seed, i, ~0ULL));
		if (setup_bufs(l, e) || create_qp(l, e))
			return -1;
	}
	for (i = 0; i < l->neps; i++) {
		memcpy(l->eps[i].shadow, l->eps[i].peer->atom, sizeof(l->eps[i].shadow));
		if (connect_qp(l, &l->eps[i]))
			return -1;
	}
	return 0;
}

/* ---- summary ---- */

static const char *verdict(struct load *l, char *why, size_t len)
{
	struct load_stats *s = &l->st;
	size_t n = 0;
	int i;

	why[0] = 0;
#define WHY(cond, ...) do { if ((cond) && n < len) n += (size_t)snprintf(why + n, len - n, __VA_ARGS__); } while (0)
	WHY(s->mismatches, " %" PRIu64 " mismatches;", s->mismatches);
	WHY(s->lost, " %" PRIu64 " lost completions;", s->lost);
	WHY(s->duplicated, " %" PRIu64 " duplicated completions;", s->duplicated);
	WHY(s->unknown, " %" PRIu64 " unknown completions;", s->unknown);
	WHY(s->bad_cqe, " %" PRIu64 " wrong completions;", s->bad_cqe);
	WHY(s->verb_errors, " %" PRIu64 " failed verb calls (post/poll);", s->verb_errors);
	for (i = 1; i < 32; i++) {
		if (!s->status[i] || i == l->o.expect_status)
			continue;
		if (l->o.expect_status > 0 && i == IBV_WC_WR_FLUSH_ERR)
			continue;
		WHY(1, " %" PRIu64 " x %s;", s->status[i], status_name(i));
	}
	WHY(l->o.expect_status > 0 && !s->status[l->o.expect_status],
	    " expected status %s did not occur;", status_name(l->o.expect_status));
#undef WHY
	return why[0] ? "FAIL" : "ok";
}

static void print_counters(struct load *l, bool json)
{
	int d, i;

	for (d = 0; d < l->ndevs; d++) {
		struct load_dev *dv = &l->devs[d];

		if (json) {
			printf("%s\"%s\":{", d ? "," : "", dv->name);
			for (i = 0; i < dv->ndev_counters; i++)
				printf("%s\"%s\":%" PRIu64, i ? "," : "", dv->counter_names[i],
				       dv->counters_after[i] - dv->counters_before[i]);
			printf("}");
			continue;
		}
		if (!dv->ndev_counters) {
			printf("counters     %s: no hw_counters in sysfs\n", dv->name);
			continue;
		}
		printf("counters     %s:", dv->name);
		for (i = 0; i < dv->ndev_counters; i++)
			printf(" %s=+%" PRIu64, dv->counter_names[i],
			       dv->counters_after[i] - dv->counters_before[i]);
		printf("\n");
	}
}

static void print_json(struct load *l, const char *res, const char *why)
{
	struct load_stats *s = &l->st;
	int i;

	printf("{\"tool\":\"sib-load\",\"result\":\"%s\",\"why\":\"%s\",\"seed\":%" PRIu64
	       ",\"dev\":\"%s\",\"peer_dev\":\"%s\",\"qps\":%d,\"depth\":%d,\"max_size\":%" PRIu64
	       ",\"ops\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"send_cqes\":%" PRIu64
	       ",\"recv_cqes\":%" PRIu64 ",\"mismatches\":%" PRIu64 ",\"bad_bytes\":%" PRIu64
	       ",\"lost\":%" PRIu64 ",\"duplicated\":%" PRIu64 ",\"unknown\":%" PRIu64
	       ",\"bad_cqe\":%" PRIu64 ",\"elapsed\":%.3f,\"mb_per_s\":%.2f,\"op_counts\":{",
	       res, why, l->o.seed, l->o.dev1, l->o.dev2, l->o.qps, l->o.depth, l->o.max_size,
	       s->posted, s->bytes, s->send_cqes, s->recv_cqes, s->mismatches, s->bad_bytes,
	       s->lost, s->duplicated, s->unknown, s->bad_cqe, s->elapsed,
	       s->elapsed > 0 ? (double)s->bytes / s->elapsed / 1e6 : 0.0);
	for (i = 0; i < OP_NUM; i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", mix_names[i], s->ops[i]);
	printf("},\"statuses\":{");
	for (i = 1, res = ""; i < 32; i++) {
		if (s->status[i]) {
			printf("%s\"%s\":%" PRIu64, res, status_name(i), s->status[i]);
			res = ",";
		}
	}
	printf("},\"counters\":{");
	print_counters(l, true);
	printf("}}\n");
}

static void print_header(struct load *l)
{
	int mtu = l->path_mtu;
	uint64_t mem = (uint64_t)l->neps * (uint64_t)l->o.depth * (2 * l->slot_size + l->recv_size);
	int i;

	printf("sib-load: seed %" PRIu64 " (--seed %" PRIu64 " repeats this run)\n", l->o.seed, l->o.seed);
	printf("setup        %s (GID index %d) <-> %s (GID index %d), %d RC QP pairs, %s, depth %d\n",
	       l->devs[0].name, l->devs[0].gid_index, l->devs[1].name, l->devs[1].gid_index,
	       l->o.qps, l->o.one_way ? "one way" : "both directions", l->o.depth);
	printf("workload     sizes 0..%" PRIu64 " B, SGEs 1..%d (READ 1..%d, receive 1..%d), path MTU %d, ",
	       l->o.max_size, l->sge_send, l->sge_rd, l->sge_recv, 128 << mtu);
	if (l->o.ops_per_qp)
		printf("%" PRIu64 " ops per QP ", l->o.ops_per_qp);
	if (l->o.seconds > 0)
		printf("%.1f s ", l->o.seconds);
	if (l->o.total_bytes)
		printf("%" PRIu64 " bytes ", l->o.total_bytes);
	printf("\nopcodes      ");
	for (i = 0; i < OP_NUM; i++)
		if (l->o.op_mask & (1u << i))
			printf("%s ", load_op_name((enum load_op)i));
	printf("(signal 1 in %d)\nmemory       %.1f MiB registered\n", l->o.signal_every,
	       (double)mem / (1 << 20));
	fflush(stdout);
}

static void print_summary(struct load *l, const char *res, const char *why)
{
	struct load_stats *s = &l->st;
	int i, any = 0;

	printf("ops          %" PRIu64 " posted, completed:", s->posted);
	for (i = 0; i < OP_NUM; i++)
		if (s->ops[i])
			printf(" %s %" PRIu64, load_op_name((enum load_op)i), s->ops[i]);
	printf("\nbytes        %" PRIu64 "\n", s->bytes);
	printf("completions  %" PRIu64 " (send %" PRIu64 ", recv %" PRIu64 ")\n",
	       s->send_cqes + s->recv_cqes, s->send_cqes, s->recv_cqes);
	printf("mismatches   %" PRIu64 " (%" PRIu64 " bad bytes)\n", s->mismatches, s->bad_bytes);
	printf("lost         %" PRIu64 "\n", s->lost);
	printf("duplicated   %" PRIu64 "\n", s->duplicated);
	printf("unknown      %" PRIu64 "\n", s->unknown);
	printf("wrong_cqe    %" PRIu64 "\n", s->bad_cqe);
	printf("statuses    ");
	for (i = 1; i < 32; i++) {
		if (s->status[i]) {
			printf(" %s (%s) x %" PRIu64 ";", ibv_wc_status_str((enum ibv_wc_status)i),
			       status_name(i), s->status[i]);
			any = 1;
		}
	}
	printf("%s\n", any ? "" : " none (all IBV_WC_SUCCESS)");
	printf("elapsed      %.3f s, %.2f MB/s\n", s->elapsed,
	       s->elapsed > 0 ? (double)s->bytes / s->elapsed / 1e6 : 0.0);
	print_counters(l, false);
	printf("result       %s%s%s (seed %" PRIu64 ")\n", res, why[0] ? ":" : "", why, l->o.seed);
}

int main(int argc, char **argv)
{
	struct load l = {};
	bool mix_given;
	char why[1024];
	const char *res;
	int rc, d;

	rc = parse_args(argc, argv, &l.o, &mix_given);
	if (rc)
		return rc > 0 ? 0 : EXIT_SETUP;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup(&l, mix_given))
		return EXIT_SETUP;
	print_header(&l);
	if (load_run(&l))
		return EXIT_SETUP;
	for (d = 0; d < l.ndevs; d++)
		counters_read_after(&l.devs[d], l.o.port);
	res = verdict(&l, why, sizeof(why));
	if (why[0] && why[strlen(why) - 1] == ';')
		why[strlen(why) - 1] = 0;
	print_summary(&l, res, why);
	if (l.o.json)
		print_json(&l, res, why[0] == ' ' ? why + 1 : why);
	return strcmp(res, "ok") ? EXIT_VERIFY : 0;
}
