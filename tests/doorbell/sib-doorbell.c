// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-doorbell: tests and cost of softib's send doorbells (the doorbell
 * file /dev/softib_db, the ioctl method SIB_METHOD_QP_DOORBELL and the
 * zero-WR post_send command, see include/uapi/rdma/softib-abi.h), on two
 * RC QPs of DEV connected to each other (loopback).
 *
 *   sib-doorbell -d DEV [-g GIDX] cases        checked cases, RESULT lines
 *   sib-doorbell --list                        the names of those cases, one per line
 *   sib-doorbell -d DEV [-g GIDX] bench [N]    cost of one doorbell of each kind
 *   sib-doorbell -d DEV [-g GIDX] hold         set up, print READY, wait for a line on
 *                                              stdin (the device is taken away meanwhile),
 *                                              then check that the ioctl and write
 *                                              doorbells and ibv_post_send fail with
 *                                              EIO, the doorbell file with ENOTCONN
 *
 * cases prints "RESULT doorbell_<case> ok|FAIL <detail>" per case and exits 0 iff all
 * are ok; bench prints "doorbell file X us/call, ioctl Y us/call, write Z us/call
 * (N calls each)".
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/softib-abi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "sibtest.h"

#define DIE(...) do { fprintf(stderr, "sib-doorbell: " __VA_ARGS__); \
		      fprintf(stderr, "\n"); exit(2); } while (0)

static const char *dev_name;
static int gidx = 1, nfail;

/* the cases of "cases", in the order they run (--list), and hold's one */
#define CASES(X) X(provider_uses_file) X(provider_uses_ioctl) X(ring_valid) \
	X(bogus_handle) X(cq_handle) X(other_context) X(file_unbound) \
	X(file_bind_bad_fd) X(file_ring_valid) X(file_bogus_qpn) \
	X(file_qpn_too_big) X(file_other_context) X(file_init_qp) \
	X(file_bind_busy) X(file_after_close) X(file_closed_first) \
	X(file_ring_teardown) X(file_lazy) X(file_emfile) X(forced_write) \
	X(ring_write) X(dup_after_close)
#define CASE_ENUM(n) DB_##n,
#define CASE_NAME(n) #n,
enum { CASES(CASE_ENUM) DB_NCASES, DB_after_removal = DB_NCASES };
static const char *const case_names[] = { CASES(CASE_NAME) "after_removal" };
static int reported[DB_NCASES + 1];

struct pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	char buf[64];
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static struct ibv_context *open_dev(void)
{
	struct ibv_context *ctx = sibt_open(dev_name);

	if (!ctx)
		DIE("cannot open %s", dev_name);
	return ctx;
}

static void to_rts(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .dgid = *gid,
		.sgid_index = gidx, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	int st = sibt_qp_to_rts(qp, &c);

	if (st)
		DIE("modify to %s failed", sibt_qp_state_name(st));
}

/* the context, PD, CQ and MR of a pair, no QP yet */
static void pair_open(struct pair *p)
{
	p->ctx = open_dev();
	p->pd = ibv_alloc_pd(p->ctx);
	p->cq = ibv_create_cq(p->ctx, 32, NULL, NULL, 0);
	if (!p->pd || !p->cq)
		DIE("pd/cq failed");
	p->mr = ibv_reg_mr(p->pd, p->buf, sizeof(p->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!p->mr)
		DIE("mr failed");
}

/* the pair's two QPs, created only */
static void pair_create_qps(struct pair *p)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .send_cq = p->cq, .recv_cq = p->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	p->qa = ibv_create_qp(p->pd, &ia);
	p->qb = ibv_create_qp(p->pd, &ia);
	if (!p->qa || !p->qb)
		DIE("create_qp failed: %s", strerror(errno));
}

/* the pair's QPs connected to each other, in RTS */
static void pair_connect(struct pair *p)
{
	union ibv_gid gid;

	if (ibv_query_gid(p->ctx, 1, gidx, &gid))
		DIE("query_gid %d failed", gidx);
	to_rts(p->qa, p->qb->qp_num, &gid);
	to_rts(p->qb, p->qa->qp_num, &gid);
}

/* everything of the pair, the context last */
static void pair_close(struct pair *p)
{
	ibv_destroy_qp(p->qa);
	ibv_destroy_qp(p->qb);
	ibv_dereg_mr(p->mr);
	ibv_destroy_cq(p->cq);
	ibv_dealloc_pd(p->pd);
	ibv_close_device(p->ctx);
}

static void pair_setup(struct pair *p)
{
	pair_open(p);
	pair_create_qps(p);
	pair_connect(p);
}

/* one signaled SEND qa -> qb with its receive; 0 or the failing step's errno */
static int pair_send(struct pair *p)
{
	struct ibv_sge s = { (uintptr_t)p->buf, 8, p->mr->lkey };
	struct ibv_sge r = { (uintptr_t)p->buf + 32, 8, p->mr->lkey };
	struct ibv_recv_wr rw = { .sg_list = &r, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	double t0 = now_us();
	struct ibv_wc wc;
	int got = 0, n, err;

	err = ibv_post_recv(p->qb, &rw, &brw);
	if (err)
		return err;
	err = ibv_post_send(p->qa, &sw, &bsw);
	if (err)
		return err;
	while (got < 2) {
		n = ibv_poll_cq(p->cq, 1, &wc);
		if (n < 0)
			return EIO;
		if (n && wc.status != IBV_WC_SUCCESS)
			return EREMOTEIO;
		got += n;
		if (now_us() - t0 > 10e6)
			return ETIMEDOUT;
	}
	return 0;
}

/* a softib driver method with one inline attribute: 0 or errno */
static int driver_ioctl(int fd, uint16_t object, uint16_t method,
			uint16_t attr, uint64_t data)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr;
	} req;

	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req);
	req.hdr.object_id = object;
	req.hdr.method_id = method;
	req.hdr.num_attrs = 1;
	req.hdr.driver_id = SIB_DRIVER_ID;
	req.attr.attr_id = attr;
	req.attr.flags = UVERBS_ATTR_F_MANDATORY;
	req.attr.data = data;
	return ioctl(fd, RDMA_VERBS_IOCTL, &req) ? errno : 0;
}

/* the ioctl doorbell on @fd for object @handle: 0 or errno */
static int ring_ioctl(int fd, uint32_t handle)
{
	return driver_ioctl(fd, UVERBS_OBJECT_QP, SIB_METHOD_QP_DOORBELL,
			    SIB_ATTR_QP_DOORBELL_HANDLE, handle);
}

/* bind the doorbell file @dbf to the context of @cmd_fd: 0 or errno */
static int file_bind(int cmd_fd, int dbf)
{
	/* a raw fd attribute: the value itself */
	return driver_ioctl(cmd_fd, UVERBS_OBJECT_DEVICE, SIB_METHOD_DB_BIND,
			    SIB_ATTR_DB_BIND_FD, dbf);
}

/* the doorbell file's ring of QP number @qpn: 0 or errno */
static int ring_file(int dbf, unsigned long qpn)
{
	return ioctl(dbf, SIB_DBF_IOCTL_RING, qpn) ? errno : 0;
}

/*
 * A thread ringing a doorbell file in a loop (QP numbers qpn[0], qpn[1]
 * in turn, @pause_us between rings) until told to stop; it counts the
 * outcomes: a teardown under way must only ever give these errors.
 */
struct ringer {
	pthread_t thread;
	int fd, pause_us;
	uint32_t qpn[2];
	volatile int stop;
	long ok;		/* read by the main thread meanwhile */
	long enoent, einval, enotconn, other;
	int other_errno;
	volatile int last;
};

static void *ringer_main(void *arg)
{
	struct ringer *r = arg;
	long i;

	for (i = 0; !r->stop; i++) {
		int err = ioctl(r->fd, SIB_DBF_IOCTL_RING,
				(unsigned long)r->qpn[i & 1]) ? errno : 0;

		r->last = err;
		if (!err)
			__atomic_add_fetch(&r->ok, 1, __ATOMIC_RELAXED);
		else if (err == ENOENT)
			r->enoent++;
		else if (err == EINVAL)
			r->einval++;
		else if (err == ENOTCONN)
			r->enotconn++;
		else {
			r->other++;
			r->other_errno = err;
		}
		if (r->pause_us)
			usleep(r->pause_us);
	}
	return NULL;
}

static void ringer_start(struct ringer *r, int fd, uint32_t q0, uint32_t q1,
			 int pause_us)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->qpn[0] = q0;
	r->qpn[1] = q1;
	r->pause_us = pause_us;
	if (pthread_create(&r->thread, NULL, ringer_main, r))
		DIE("pthread_create failed");
}

static void ringer_stop(struct ringer *r)
{
	r->stop = 1;
	pthread_join(r->thread, NULL);
}

static int file_open(void)
{
	int fd = open("/dev/" SIB_DBF_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		DIE("open /dev/%s: %s (softib_db.ko not loaded?)", SIB_DBF_NAME,
		    strerror(errno));
	return fd;
}

/* a context (and pair) set up with SOFTIB_DOORBELL=ioctl: no file bound */
static void pair_setup_ioctl(struct pair *p)
{
	setenv("SOFTIB_DOORBELL", "ioctl", 1);
	pair_setup(p);
	unsetenv("SOFTIB_DOORBELL");
}

/* the old doorbell, a zero-WR post_send command: 0 or errno */
static int ring_write(int fd, uint32_t handle)
{
	struct ib_uverbs_post_send_resp resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	return write(fd, &req, sizeof(req)) == sizeof(req) ? 0 : errno;
}

static long long counter(const char *name)
{
	long long v = sibt_counter(dev_name, 1, name);

	if (v < 0)
		DIE("cannot read /sys/class/infiniband/%s/ports/1/hw_counters/%s",
		    dev_name, name);
	return v;
}

struct snap { long long db, dbi, dbf; };

static struct snap snap(void)
{
	/* the core caches hw_counters for their lifespan (10 ms by default) */
	usleep(50000);
	return (struct snap){ counter("sq_doorbells"),
			      counter("sq_doorbells_ioctl"),
			      counter("sq_doorbells_file") };
}

static void result(int id, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void result(int id, int ok, const char *fmt, ...)
{
	va_list ap;

	reported[id]++;
	printf("RESULT doorbell_%s %s ", case_names[id], ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	nfail += !ok;
}

/* a refused ring: errno @want, no counter moved, the pair still works */
static void refused(int id, struct pair *p, int fd, uint32_t handle,
		    int want)
{
	struct snap a = snap(), b;
	int err = ring_ioctl(fd, handle), err2;

	b = snap();
	err2 = pair_send(p);
	result(id, err == want && a.db == b.db && a.dbi == b.dbi && !err2,
	       "handle %u: %s (want %s), sq_doorbells +%lld, sq_doorbells_ioctl +%lld, "
	       "a SEND afterwards: %s", handle, strerror(err), strerror(want),
	       b.db - a.db, b.dbi - a.dbi, err2 ? strerror(err2) : "ok");
}

/* a refused file ring: errno @want, no counter moved, the pair still works */
static void file_refused(int id, struct pair *p, int dbf,
			 unsigned long qpn, int want)
{
	struct snap a = snap(), b;
	int err = ring_file(dbf, qpn), err2;

	b = snap();
	err2 = pair_send(p);
	result(id, err == want && a.db == b.db && a.dbf == b.dbf && !err2,
	       "QP number %#lx: %s (want %s), sq_doorbells +%lld, sq_doorbells_file +%lld, "
	       "a SEND afterwards: %s", qpn, strerror(err), strerror(want),
	       b.db - a.db, b.dbf - a.dbf, err2 ? strerror(err2) : "ok");
}

/*
 * The doorbell file on @pi (a pair whose provider context has none bound)
 * and @p (a pair of another context, bound by its provider).
 */
static void file_cases(struct pair *pi, struct pair *p)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .send_cq = pi->cq, .recv_cq = pi->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_context *c3, *c4;
	struct ibv_qp *qinit;
	int f, f2, f3, nul, e1, e2, err;
	struct snap a, b;

	f = file_open();
	e1 = ring_file(f, pi->qa->qp_num);
	e2 = ioctl(f, _IO(SIB_DBF_IOC_TYPE, 2), 0) ? errno : 0;
	result(DB_file_unbound, e1 == ENOTCONN && e2 == ENOTTY,
	       "ring before the bind: %s (want ENOTCONN), another request: %s (want ENOTTY)",
	       strerror(e1), strerror(e2));

	nul = open("/dev/null", O_RDWR);
	e1 = file_bind(pi->ctx->cmd_fd, nul);
	e2 = file_bind(pi->ctx->cmd_fd, 100000);
	close(nul);
	result(DB_file_bind_bad_fd, e1 == EINVAL && e2 == EBADF,
	       "bind /dev/null: %s (want EINVAL), a closed fd: %s (want EBADF)",
	       strerror(e1), strerror(e2));

	err = file_bind(pi->ctx->cmd_fd, f);
	a = snap();
	e1 = ring_file(f, pi->qa->qp_num);
	b = snap();
	result(DB_file_ring_valid, !err && !e1 && b.db - a.db == 1 &&
	       b.dbf - a.dbf == 1 && b.dbi == a.dbi,
	       "bind: %s, ring: %s, sq_doorbells +%lld, sq_doorbells_file +%lld, "
	       "sq_doorbells_ioctl +%lld", err ? strerror(err) : "ok",
	       e1 ? strerror(e1) : "ok", b.db - a.db, b.dbf - a.dbf, b.dbi - a.dbi);

	/* the provider's own file serves p: f reaches no QP of p's context */
	file_refused(DB_file_bogus_qpn, pi, f, 0x7ffff0, ENOENT);
	file_refused(DB_file_qpn_too_big, pi, f, 0x1000000UL | pi->qa->qp_num, ENOENT);
	file_refused(DB_file_other_context, pi, f, p->qa->qp_num, ENOENT);
	qinit = ibv_create_qp(pi->pd, &ia);
	if (!qinit || ibv_modify_qp(qinit, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		DIE("QP in INIT failed");
	file_refused(DB_file_init_qp, pi, f, qinit->qp_num, EINVAL);
	ibv_destroy_qp(qinit);

	/* one file per context, one context per file */
	f2 = file_open();
	e1 = file_bind(pi->ctx->cmd_fd, f2);
	e2 = file_bind(p->ctx->cmd_fd, f2);
	setenv("SOFTIB_DOORBELL", "ioctl", 1);
	c3 = open_dev();
	unsetenv("SOFTIB_DOORBELL");
	err = file_bind(c3->cmd_fd, f);
	close(f2);
	result(DB_file_bind_busy, e1 == EBUSY && e2 == EBUSY && err == EBUSY,
	       "second file, same context: %s; p's context (bound by its provider): %s; "
	       "the bound file, to a context without one: %s (want EBUSY each)",
	       strerror(e1), strerror(e2), strerror(err));

	/*
	 * A context freed while its file is open: the file answers ENOTCONN
	 * and cannot be bound again (c3 is still without a file)
	 */
	setenv("SOFTIB_DOORBELL", "ioctl", 1);
	c4 = open_dev();
	unsetenv("SOFTIB_DOORBELL");
	f3 = file_open();
	err = file_bind(c4->cmd_fd, f3);
	ibv_close_device(c4);
	e1 = ring_file(f3, pi->qa->qp_num);
	e2 = file_bind(c3->cmd_fd, f3);
	close(f3);
	ibv_close_device(c3);
	result(DB_file_after_close, !err && e1 == ENOTCONN && e2 == EBUSY,
	       "bind: %s, ring after ibv_close_device: %s (want ENOTCONN), bound "
	       "again to another context: %s (want EBUSY)",
	       err ? strerror(err) : "ok", strerror(e1), strerror(e2));

	/* closing the bound file first: the context keeps it until it is freed */
	close(f);
	err = pair_send(pi);
	result(DB_file_closed_first, !err,
	       "the bound file closed, a SEND afterwards (ioctl doorbell): %s",
	       err ? strerror(err) : "ok");
}

/*
 * Rings from another thread, without pause, while the main thread sends,
 * then destroys the QPs, the other objects and the context: every ring
 * succeeds or fails with ENOENT (QP gone), EINVAL (QP not in a sending
 * state) or ENOTCONN (context gone), the last one ENOTCONN; the kernel log
 * (KASAN, lockdep on the debug kernel) is checked by the harness.
 */
static void file_teardown_case(void)
{
	struct ringer r;
	struct pair t;
	int f, err, i, serr = 0;

	pair_setup_ioctl(&t);
	f = file_open();
	err = file_bind(t.ctx->cmd_fd, f);
	if (err)
		DIE("bind: %s", strerror(err));
	ringer_start(&r, f, t.qa->qp_num, t.qb->qp_num, 0);
	/* the new thread may wait for a CPU: the teardown must overlap it */
	for (i = 0; i < 1000 && !__atomic_load_n(&r.ok, __ATOMIC_RELAXED); i++)
		usleep(1000);
	for (i = 0; i < 50 && !serr; i++)
		serr = pair_send(&t);
	pair_close(&t);
	/* the ringer sees the closed context before it is stopped */
	for (i = 0; i < 1000 && r.last != ENOTCONN; i++)
		usleep(1000);
	ringer_stop(&r);
	close(f);
	result(DB_file_ring_teardown, !serr && !r.other && r.ok > 0 &&
	       r.last == ENOTCONN,
	       "50 SENDs meanwhile: %s; rings ok %ld, ENOENT %ld, EINVAL %ld, "
	       "ENOTCONN %ld, other %ld (%s), last %s (want ENOTCONN)",
	       serr ? strerror(serr) : "ok", r.ok, r.enoent, r.einval,
	       r.enotconn, r.other, r.other ? strerror(r.other_errno) : "-",
	       strerror(r.last));
}

/* how many of this process's file descriptors are open on /dev/softib_db */
static int db_files(void)
{
	char path[64], target[64];
	int fd, n = 0;
	ssize_t len;

	for (fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = 0;
		n += !strcmp(target, "/dev/" SIB_DBF_NAME);
	}
	return n;
}

/*
 * The provider opens the doorbell file with a context's first QP, not
 * before (librdmacm opens every device; ibv_devinfo creates no QP), and
 * when that open fails (EMFILE here) the QP is still created and rings
 * with the ioctl doorbell.
 */
static void file_lazy_cases(void)
{
	struct rlimit old, tight;
	int base, n_open, n_qp, n_closed, fd, err, i;
	struct snap a, b;
	struct pair l, e;

	base = db_files();
	pair_open(&l);
	n_open = db_files() - base;
	pair_create_qps(&l);
	n_qp = db_files() - base;
	pair_connect(&l);
	err = pair_send(&l);
	pair_close(&l);
	n_closed = db_files() - base;
	result(DB_file_lazy, n_open == 0 && n_qp == 1 && !err && n_closed == 0,
	       "doorbell files: %d with context, PD, CQ, MR (want 0), %d with two QPs "
	       "(want 1), a SEND: %s, %d after ibv_close_device (want 0)",
	       n_open, n_qp, err ? strerror(err) : "ok", n_closed);

	/* no descriptor left for the file when the first QP is created */
	pair_open(&e);
	fd = dup(0);
	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &old))
		DIE("dup/getrlimit failed");
	close(fd);
	tight = old;
	tight.rlim_cur = fd;	/* every lower descriptor is taken */
	if (setrlimit(RLIMIT_NOFILE, &tight))
		DIE("setrlimit failed: %s", strerror(errno));
	fd = dup(0);
	pair_create_qps(&e);
	if (setrlimit(RLIMIT_NOFILE, &old))
		DIE("setrlimit back failed: %s", strerror(errno));
	if (fd >= 0)
		DIE("dup under RLIMIT_NOFILE %ld did not fail", (long)tight.rlim_cur);
	pair_connect(&e);
	a = snap();
	for (i = 0, err = 0; i < 20 && !err; i++)
		err = pair_send(&e);
	b = snap();
	result(DB_file_emfile, !err && b.db - a.db > 0 && b.dbi - a.dbi == b.db - a.db &&
	       b.dbf == a.dbf,
	       "QPs created with no fd free (RLIMIT_NOFILE %ld), 20 SENDs: %s, "
	       "sq_doorbells +%lld, sq_doorbells_ioctl +%lld, sq_doorbells_file +%lld",
	       (long)tight.rlim_cur, err ? strerror(err) : "ok", b.db - a.db,
	       b.dbi - a.dbi, b.dbf - a.dbf);
	pair_close(&e);
}

static int cases(void)
{
	struct pair p, pi, w;
	struct ibv_context *other;
	struct ibv_pd *opd;
	struct snap a, b;
	int err, i, dupfd;

	pair_setup(&p);
	pair_setup_ioctl(&pi);

	/* the provider rings the doorbell file: every doorbell is one */
	a = snap();
	for (i = 0, err = 0; i < 20 && !err; i++)
		err = pair_send(&p);
	b = snap();
	result(DB_provider_uses_file, !err && b.db - a.db > 0 &&
	       b.dbf - a.dbf == b.db - a.db && b.dbi == a.dbi,
	       "20 SENDs: %s, sq_doorbells +%lld, sq_doorbells_file +%lld, "
	       "sq_doorbells_ioctl +%lld", err ? strerror(err) : "ok",
	       b.db - a.db, b.dbf - a.dbf, b.dbi - a.dbi);

	/* SOFTIB_DOORBELL=ioctl: the ioctl doorbell */
	a = snap();
	for (i = 0, err = 0; i < 20 && !err; i++)
		err = pair_send(&pi);
	b = snap();
	result(DB_provider_uses_ioctl, !err && b.db - a.db > 0 &&
	       b.dbi - a.dbi == b.db - a.db && b.dbf == a.dbf,
	       "20 SENDs with SOFTIB_DOORBELL=ioctl: %s, sq_doorbells +%lld, "
	       "sq_doorbells_ioctl +%lld, sq_doorbells_file +%lld",
	       err ? strerror(err) : "ok", b.db - a.db, b.dbi - a.dbi,
	       b.dbf - a.dbf);

	/* a raw ring of a valid QP is counted once in each counter */
	a = snap();
	err = ring_ioctl(p.ctx->cmd_fd, p.qa->handle);
	b = snap();
	result(DB_ring_valid, !err && b.db - a.db == 1 && b.dbi - a.dbi == 1,
	       "%s, sq_doorbells +%lld, sq_doorbells_ioctl +%lld",
	       err ? strerror(err) : "ok", b.db - a.db, b.dbi - a.dbi);

	refused(DB_bogus_handle, &p, p.ctx->cmd_fd, 0x7ffff0u, ENOENT);
	refused(DB_cq_handle, &p, p.ctx->cmd_fd, p.cq->handle, EINVAL);
	/* another context of the same device cannot reach this one's QP */
	other = open_dev();
	opd = ibv_alloc_pd(other);
	if (!opd)
		DIE("alloc_pd failed");
	refused(DB_other_context, &p, other->cmd_fd, p.qa->handle, ENOENT);
	ibv_dealloc_pd(opd);
	ibv_close_device(other);

	file_cases(&pi, &p);
	file_teardown_case();
	file_lazy_cases();

	/* SOFTIB_DOORBELL=write forces the post_send command */
	setenv("SOFTIB_DOORBELL", "write", 1);
	pair_setup(&w);
	unsetenv("SOFTIB_DOORBELL");
	a = snap();
	for (i = 0, err = 0; i < 20 && !err; i++)
		err = pair_send(&w);
	b = snap();
	result(DB_forced_write, !err && b.db - a.db > 0 && b.dbi == a.dbi,
	       "20 SENDs with SOFTIB_DOORBELL=write: %s, sq_doorbells +%lld, "
	       "sq_doorbells_ioctl +%lld", err ? strerror(err) : "ok",
	       b.db - a.db, b.dbi - a.dbi);
	a = snap();
	err = ring_write(w.ctx->cmd_fd, w.qa->handle);
	b = snap();
	result(DB_ring_write, !err && b.db - a.db == 1 && b.dbi == a.dbi,
	       "post_send command: %s, sq_doorbells +%lld, sq_doorbells_ioctl +%lld",
	       err ? strerror(err) : "ok", b.db - a.db, b.dbi - a.dbi);

	/*
	 * The command fd outliving the provider's context: a dup of it keeps
	 * the uverbs file, its ucontext and its QPs; ringing through it after
	 * ibv_close_device works, closing it frees everything (klog and
	 * kmemleak checked by the harness).
	 */
	dupfd = dup(w.ctx->cmd_fd);
	if (dupfd < 0)
		DIE("dup failed");
	ibv_close_device(w.ctx);
	err = ring_ioctl(dupfd, w.qa->handle);
	i = ring_ioctl(dupfd, 0x7ffff0u);
	close(dupfd);
	result(DB_dup_after_close, !err && i == ENOENT,
	       "ring through a dup of the closed context's fd: %s, bogus handle: %s",
	       err ? strerror(err) : "ok", strerror(i));
	/* what --list names is what ran */
	for (i = 0; i < DB_NCASES; i++)
		if (!reported[i])
			result(i, 0, "no result: the case did not run");
	return nfail ? 1 : 0;
}

static int bench(int n)
{
	struct pair p;
	double t0, tf, ti, tw;
	int i, f;

	pair_setup_ioctl(&p);
	f = file_open();
	if (file_bind(p.ctx->cmd_fd, f))
		DIE("bind failed");
	for (i = 0; i < 200; i++)	/* warm up (TCG translates first) */
		if (ring_file(f, p.qa->qp_num) ||
		    ring_ioctl(p.ctx->cmd_fd, p.qa->handle) ||
		    ring_write(p.ctx->cmd_fd, p.qa->handle))
			DIE("ring failed");
	t0 = now_us();
	for (i = 0; i < n; i++)
		ring_file(f, p.qa->qp_num);
	tf = now_us() - t0;
	t0 = now_us();
	for (i = 0; i < n; i++)
		ring_ioctl(p.ctx->cmd_fd, p.qa->handle);
	ti = now_us() - t0;
	t0 = now_us();
	for (i = 0; i < n; i++)
		ring_write(p.ctx->cmd_fd, p.qa->handle);
	tw = now_us() - t0;
	printf("doorbell file %.2f us/call, ioctl %.2f us/call, write %.2f us/call "
	       "(%d calls each)\n", tf / n, ti / n, tw / n, n);
	return 0;
}

static int hold(void)
{
	struct ibv_sge s;
	struct ibv_send_wr sw = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bsw;
	struct pair p;
	char line[64];
	int ei, ew, ep, ef, f, err;
	struct ringer r;

	pair_setup_ioctl(&p);
	f = file_open();
	err = file_bind(p.ctx->cmd_fd, f);
	if (err)
		DIE("bind: %s", strerror(err));
	s = (struct ibv_sge){ (uintptr_t)p.buf, 8, p.mr->lkey };
	if (pair_send(&p))
		DIE("SEND before the removal failed");
	/* a ring every 200 us while the device goes away */
	ringer_start(&r, f, p.qa->qp_num, p.qb->qp_num, 200);
	printf("READY\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		DIE("no line on stdin");
	ei = ring_ioctl(p.ctx->cmd_fd, p.qa->handle);
	ew = ring_write(p.ctx->cmd_fd, p.qa->handle);
	ep = ibv_post_send(p.qa, &sw, &bsw);
	ef = ring_file(f, p.qa->qp_num);
	ringer_stop(&r);
	close(f);
	result(DB_after_removal, ei == EIO && ew == EIO && ep == EIO && ef == ENOTCONN &&
	       !r.other && r.ok > 0 && r.last == ENOTCONN,
	       "ioctl doorbell %s, post_send command %s, ibv_post_send %s (want EIO), "
	       "doorbell file %s (want ENOTCONN); a thread's rings meanwhile: ok %ld, "
	       "ENOENT %ld, EINVAL %ld, ENOTCONN %ld, other %ld (%s), last %s",
	       strerror(ei), strerror(ew), strerror(ep), strerror(ef), r.ok, r.enoent,
	       r.einval, r.enotconn, r.other, r.other ? strerror(r.other_errno) : "-",
	       strerror(r.last));
	/* the objects are gone in the kernel; the destroys must not crash */
	ibv_destroy_qp(p.qa);
	ibv_destroy_qp(p.qb);
	ibv_dereg_mr(p.mr);
	ibv_destroy_cq(p.cq);
	ibv_dealloc_pd(p.pd);
	ibv_close_device(p.ctx);
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	int c;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		sibt_list(case_names, DB_NCASES);
		return 0;
	}
	while ((c = getopt(argc, argv, "d:g:")) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 'g': gidx = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (!dev_name || optind >= argc)
		goto usage;
	if (!strcmp(argv[optind], "cases"))
		return cases();
	if (!strcmp(argv[optind], "bench"))
		return bench(optind + 1 < argc ? atoi(argv[optind + 1]) : 2000);
	if (!strcmp(argv[optind], "hold"))
		return hold();
usage:
	fprintf(stderr, "usage: sib-doorbell -d DEV [-g GIDX] cases|bench [N]|hold\n"
			"       sib-doorbell --list\n");
	return 2;
}
