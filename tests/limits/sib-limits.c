// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-limits: the per-device limits of softib's module parameters, seen
 * from a verbs program (tests/vm/lifecycle.sh, cases limits_*).
 *
 *   sib-limits -d DEV -q QP_WR,CQE,SRQ_WR
 *	queue sizes: a QP whose send queue, and one whose receive queue,
 *	has QP_WR WRs is created with exactly that many; QP_WR + 1 fails
 *	with EINVAL; likewise a CQ of CQE entries (CQE + 1: EINVAL; resized to
 *	CQE + 1: EINVAL, to CQE: CQE) and an SRQ of SRQ_WR WRs (SRQ_WR + 1:
 *	EINVAL)
 *
 *   sib-limits -d DEV -g GID_INDEX KIND=FREE...
 *	object limits, KIND one of qp cq mr srq pd ah mw, FREE how many of
 *	that kind the device has left before this program starts (its limit
 *	less what the kernel holds). The program holds one PD and one CQ of
 *	its own throughout. For each kind: the objects it has left are
 *	created, each must succeed; the next two creates must fail with
 *	ENOMEM; one object is destroyed, a create then succeeds and the next
 *	fails with ENOMEM again. Prints "refused KIND N", the ENOMEM
 *	failures, for the caller to compare with the kind's
 *	<kind>_limit_exceeded counter.
 *
 *   sib-limits --list
 *	the KINDs, one per line (no device needed)
 *
 * Prints "ok ..." or "FAIL ..." per check; exit 0 iff all ok, 2 on usage
 * or setup errors.
 */
#include <infiniband/verbs.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sibtest.h"

#define MAX_OBJS 4096	/* far above the limits the test sets */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static void *page;
static int gid_index = -1;
static union ibv_gid gid;
static int failed;

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failed = 1;
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "success";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

/* ------------------------------------------------------------ objects */

static struct ibv_qp *qp_create(uint32_t send_wr, uint32_t recv_wr,
				struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (qp && cap)
		*cap = a.cap;
	return qp;
}

static struct ibv_srq *srq_create(uint32_t wr, uint32_t *got)
{
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = wr, .max_sge = 1 },
	};
	struct ibv_srq *srq = ibv_create_srq(pd, &a);

	if (srq && got)
		*got = a.attr.max_wr;
	return srq;
}

/* one kind of object: create one (errno set when NULL), destroy one */
struct kind {
	const char *name;
	int own;		/* of this kind the program holds throughout */
	void *(*create)(void);
	int (*destroy)(void *obj);
};

static void *mk_qp(void) { return qp_create(1, 1, NULL); }
static int rm_qp(void *o) { return ibv_destroy_qp(o); }
static void *mk_cq(void) { return ibv_create_cq(ctx, 1, NULL, NULL, 0); }
static int rm_cq(void *o) { return ibv_destroy_cq(o); }
static void *mk_mr(void) { return ibv_reg_mr(pd, page, 4096, IBV_ACCESS_LOCAL_WRITE); }
static int rm_mr(void *o) { return ibv_dereg_mr(o); }
static void *mk_srq(void) { return srq_create(1, NULL); }
static int rm_srq(void *o) { return ibv_destroy_srq(o); }
static void *mk_pd(void) { return ibv_alloc_pd(ctx); }
static int rm_pd(void *o) { return ibv_dealloc_pd(o); }
static int rm_ah(void *o) { return ibv_destroy_ah(o); }
static void *mk_mw(void) { return ibv_alloc_mw(pd, IBV_MW_TYPE_2); }
static int rm_mw(void *o) { return ibv_dealloc_mw(o); }

/* an AH to the device's own GID, as a UD sender to itself would make */
static void *mk_ah(void)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = gid, .sgid_index = gid_index, .hop_limit = 64 },
	};

	return ibv_create_ah(pd, &a);
}

static const struct kind kinds[] = {
	{ "qp", 0, mk_qp, rm_qp },
	{ "cq", 1, mk_cq, rm_cq },
	{ "mr", 0, mk_mr, rm_mr },
	{ "srq", 0, mk_srq, rm_srq },
	{ "pd", 1, mk_pd, rm_pd },
	{ "ah", 0, mk_ah, rm_ah },
	{ "mw", 0, mk_mw, rm_mw },
};

/* a create that must fail with ENOMEM; counts it in *refused */
static void expect_enomem(const struct kind *k, void **objs, int n,
			  int *refused, const char *when)
{
	void *o;

	errno = 0;
	o = k->create();
	if (o) {
		check(0, "%s: create %s succeeded past the limit", k->name, when);
		objs[n] = o;	/* destroyed with the others */
		return;
	}
	(*refused)++;
	check(errno == ENOMEM, "%s: create %s fails with %s (want ENOMEM)",
	      k->name, when, errname(errno));
}

static void run_kind(const struct kind *k, int free_before)
{
	static void *objs[MAX_OBJS + 2];
	int want = free_before - k->own, n = 0, refused = 0, i;
	void *o;

	if (want < 1 || want > MAX_OBJS) {
		check(0, "%s: %d left to create: the test needs 1..%d", k->name,
		      want, MAX_OBJS);
		return;
	}
	memset(objs, 0, sizeof(objs));
	for (n = 0; n < want; n++) {
		errno = 0;
		objs[n] = k->create();
		if (!objs[n])
			break;
	}
	check(n == want, "%s: %d of %d created below the limit%s%s", k->name,
	      n, want, n == want ? "" : ", then ",
	      n == want ? "" : errname(errno));
	if (n == want) {
		expect_enomem(k, objs, n, &refused, "at the limit");
		if (!objs[n])
			expect_enomem(k, objs, n, &refused, "at the limit again");
		if (!objs[n]) {
			check(!k->destroy(objs[n - 1]), "%s: destroy one", k->name);
			errno = 0;
			objs[n - 1] = k->create();
			check(objs[n - 1] != NULL,
			      "%s: after it a create succeeds (%s)", k->name,
			      errname(objs[n - 1] ? 0 : errno));
			if (objs[n - 1])
				expect_enomem(k, objs, n, &refused,
					      "at the limit after that");
		}
	}
	for (i = 0; i < MAX_OBJS + 2; i++) {
		o = objs[i];
		if (o && k->destroy(o))
			check(0, "%s: destroy %d failed", k->name, i);
	}
	printf("refused %s %d\n", k->name, refused);
}

/* ------------------------------------------------------------ queue sizes */

static void run_queues(uint32_t qp_wr, uint32_t cqe, uint32_t srq_wr)
{
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;
	struct ibv_cq *c;
	struct ibv_srq *srq;
	uint32_t got = 0;
	int e;

	qp = qp_create(qp_wr, 1, &cap);
	check(qp && cap.max_send_wr == qp_wr,
	      "qp: max_send_wr %u: %s, got %u", qp_wr,
	      errname(qp ? 0 : errno), qp ? cap.max_send_wr : 0);
	if (qp)
		ibv_destroy_qp(qp);
	qp = qp_create(1, qp_wr, &cap);
	check(qp && cap.max_recv_wr == qp_wr,
	      "qp: max_recv_wr %u: %s, got %u", qp_wr,
	      errname(qp ? 0 : errno), qp ? cap.max_recv_wr : 0);
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = qp_create(qp_wr + 1, 1, NULL);
	check(!qp && errno == EINVAL, "qp: max_send_wr %u fails with %s (want EINVAL)",
	      qp_wr + 1, qp ? "success" : errname(errno));
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = qp_create(1, qp_wr + 1, NULL);
	check(!qp && errno == EINVAL, "qp: max_recv_wr %u fails with %s (want EINVAL)",
	      qp_wr + 1, qp ? "success" : errname(errno));
	if (qp)
		ibv_destroy_qp(qp);

	c = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
	check(c && (uint32_t)c->cqe == cqe, "cq: cqe %u: %s, got %d", cqe,
	      errname(c ? 0 : errno), c ? c->cqe : 0);
	if (c)
		ibv_destroy_cq(c);
	/* resize_cq checks the same limit */
	c = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	if (c) {
		e = ibv_resize_cq(c, cqe + 1);
		check(e == EINVAL, "cq: resize to %u fails with %s (want EINVAL)",
		      cqe + 1, errname(e));
		e = ibv_resize_cq(c, cqe);
		check(!e && (uint32_t)c->cqe == cqe, "cq: resize to %u: %s, got %d",
		      cqe, errname(e), c->cqe);
		ibv_destroy_cq(c);
	} else {
		check(0, "cq: cqe 1: %s", errname(errno));
	}
	errno = 0;
	c = ibv_create_cq(ctx, cqe + 1, NULL, NULL, 0);
	check(!c && errno == EINVAL, "cq: cqe %u fails with %s (want EINVAL)",
	      cqe + 1, c ? "success" : errname(errno));
	if (c)
		ibv_destroy_cq(c);

	srq = srq_create(srq_wr, &got);
	check(srq && got == srq_wr, "srq: max_wr %u: %s, got %u", srq_wr,
	      errname(srq ? 0 : errno), got);
	if (srq)
		ibv_destroy_srq(srq);
	errno = 0;
	srq = srq_create(srq_wr + 1, NULL);
	check(!srq && errno == EINVAL, "srq: max_wr %u fails with %s (want EINVAL)",
	      srq_wr + 1, srq ? "success" : errname(errno));
	if (srq)
		ibv_destroy_srq(srq);
}

/* ------------------------------------------------------------ main */

static int usage(void)
{
	fprintf(stderr,
		"usage: sib-limits -d DEV -q QP_WR,CQE,SRQ_WR\n"
		"       sib-limits -d DEV -g GID_INDEX KIND=FREE... (KIND: qp cq mr srq pd ah mw)\n"
		"       sib-limits --list\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *queues = NULL;
	unsigned int qp_wr, cqe, srq_wr;
	int opt, i, j, n;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (j = 0; j < (int)SIBT_ARRAY_SIZE(kinds); j++)
			printf("%s\n", kinds[j].name);
		return 0;
	}
	while ((opt = getopt(argc, argv, "d:g:q:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'q': queues = optarg; break;
		default: return usage();
		}
	}
	if (!dev || (!queues && optind == argc))
		return usage();
	ctx = sibt_open(dev);
	if (!ctx) {
		fprintf(stderr, "sib-limits: cannot open %s\n", dev);
		return 2;
	}
	page = aligned_alloc(4096, 4096);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!page || !pd || !cq) {
		fprintf(stderr, "sib-limits: setup: %s\n", strerror(errno));
		return 2;
	}
	if (gid_index >= 0 && ibv_query_gid(ctx, 1, gid_index, &gid)) {
		fprintf(stderr, "sib-limits: GID %d: %s\n", gid_index, strerror(errno));
		return 2;
	}
	if (queues) {
		if (sscanf(queues, "%u,%u,%u", &qp_wr, &cqe, &srq_wr) != 3)
			return usage();
		run_queues(qp_wr, cqe, srq_wr);
	}
	for (i = optind; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		for (j = 0; eq && j < (int)SIBT_ARRAY_SIZE(kinds); j++)
			if (strlen(kinds[j].name) == (size_t)(eq - argv[i]) &&
			    !strncmp(kinds[j].name, argv[i], eq - argv[i]))
				break;
		if (!eq || j == (int)SIBT_ARRAY_SIZE(kinds))
			return usage();
		if (!strcmp(kinds[j].name, "ah") && gid_index < 0) {
			fprintf(stderr, "sib-limits: ah needs -g GID_INDEX\n");
			return 2;
		}
		n = atoi(eq + 1);
		run_kind(&kinds[j], n);
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(page);
	return failed;
}
