// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-odp: on-demand paging MRs (IBV_ACCESS_ON_DEMAND) of one device,
 * between two RC QPs of it, where a pinned MR would go wrong: memory the
 * process changes under the MR (madvise, munmap, fork's copy-on-write)
 * must be what the MR reads and writes afterwards, and memory that is
 * gone must fail the access, never reach freed pages.
 *
 *   first_touch  WRITE into and READ from never-touched ODP memory: data
 *                right, odp_page_faults rises
 *   dontneed     madvise(DONTNEED) of written ODP memory, WRITE again:
 *                the process sees the new bytes (a pinned MR would write
 *                into the discarded pages); odp_invalidations rises
 *   munmap       WRITE into an unmapped part of an ODP MR: REM_ACCESS_ERR,
 *                then, mapped again at the same address, new QPs write into
 *                the new mapping
 *   local_gone   SEND from an unmapped part of a local ODP SGE: LOC_PROT_ERR
 *   fork         after fork(), the parent writes its buffer (copy-on-write)
 *                and the child its own: READ through the parent's MR gives
 *                the parent's bytes; WRITE lands where the parent reads
 *   atomic       FETCH_ADD and CMP_SWAP on untouched ODP memory, again after
 *                DONTNEED (the counter reads 0 then)
 *   send_recv    SEND from and into ODP buffers, 3 SGEs across pages
 *   implicit     an implicit ODP MR (address 0, SIZE_MAX) as lkey and rkey,
 *                a WRITE across a 2 MiB boundary of its children
 *   storm        a thread discarding the target (DONTNEED) while 16 KiB
 *                WRITEs and READs go on: every byte read is the pattern or
 *                0, never anything else; after the storm one WRITE is whole
 *   advise       ibv_advise_mr: sync and async prefetch succeed; errors for a
 *                non-ODP MR, an unknown lkey, a range outside the MR, unknown
 *                flags (ib_core's check), PREFETCH_WRITE on a read-only MR
 *
 * Prints "CASE odp_<name> ok|FAIL <detail>" per case; exit 0 iff all ok.
 * --list prints the case names, one per line, and needs no device.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sibtest.h"

#define LEN	(64 * 1024)
#define ODP_RW	(IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE | \
		 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		 IBV_ACCESS_REMOTE_ATOMIC)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static const char *devname;
static int gidx = 1, failed;
static char why[256];

struct side {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
};

static struct side a, b;	/* a requests, b responds */

static void die(const char *msg)
{
	fprintf(stderr, "sib-odp: %s (%s)\n", msg, strerror(errno));
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

static void report(const char *name)
{
	printf("CASE odp_%s %s %s\n", name, why[0] ? "FAIL" : "ok", why);
	fflush(stdout);
	if (why[0])
		failed = 1;
	why[0] = 0;
}

/* a port counter; ib_core caches them for 10 ms: read after that */
static long long cnt(const char *name)
{
	usleep(30000);
	return sibt_counter(devname, 1, name);
}

static void side_init(struct side *s)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4 },
	};

	s->cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!s->cq)
		die("create_cq failed");
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(pd, &ia);
	if (!s->qp)
		die("create_qp failed");
}

static void to_rts(struct ibv_qp *qp, uint32_t dqpn)
{
	struct sibt_conn c = {
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.mtu = IBV_MTU_1024, .dest_qpn = dqpn, .dgid = gid,
		.sgid_index = gidx, .max_dest_rd_atomic = 4,
		.min_rnr_timer = 1, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .max_rd_atomic = 4,
	};

	if (sibt_qp_to_rts(qp, &c))
		die("modify to RTS failed");
}

/* a fresh connected pair (after an error left the last one in ERR) */
static void pair_new(void)
{
	if (a.qp) {
		ibv_destroy_qp(a.qp);
		ibv_destroy_qp(b.qp);
		ibv_destroy_cq(a.cq);
		ibv_destroy_cq(b.cq);
	}
	side_init(&a);
	side_init(&b);
	to_rts(a.qp, b.qp->qp_num);
	to_rts(b.qp, a.qp->qp_num);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap failed");
	return p;
}

static struct ibv_mr *reg(void *p, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, p, len, access);

	if (!mr)
		die("reg_mr failed");
	return mr;
}

/* one completion of @s within 10 s: its status, or -1 when none came */
static int wait_wc(struct side *s, struct ibv_wc *wc)
{
	int n = sibt_poll(s->cq, wc, 10, 0);

	if (n < 0)
		die("poll_cq failed");
	return n ? (int)wc->status : -1;
}

/* post one work request of a's and wait: its completion status or -1 */
static int rdma(enum ibv_wr_opcode op, void *local, uint32_t len,
		uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(a.qp, &wr, &bad))
		die("post_send failed");
	return wait_wc(&a, &wc);
}

static int atomic(enum ibv_wr_opcode op, uint64_t *res, uint32_t lkey,
		  uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		  uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)res, 8, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	if (ibv_post_send(a.qp, &wr, &bad))
		die("post_send failed");
	return wait_wc(&a, &wc);
}

static void pattern(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 10) + 1);
}

/* the first byte where @p differs from pattern @seed, or -1 */
static long bad_byte(const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 10) + 1))
			return (long)i;
	return -1;
}

static void expect_ok(int st, const char *what)
{
	if (st != IBV_WC_SUCCESS)
		fail("%s: %s", what, st < 0 ? "no completion in 10 s" :
		     ibv_wc_status_str(st));
}

static void case_first_touch(void)
{
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	unsigned char *back = map_anon(LEN);
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	struct ibv_mr *mb = reg(back, LEN, ODP_RW);
	long long f0 = cnt("odp_page_faults"), at;

	pattern(src, LEN, 1);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "WRITE");
	if (!why[0] && (at = bad_byte(dst, LEN, 1)) >= 0)
		fail("WRITE: byte %ld of %d wrong", at, LEN);
	expect_ok(rdma(IBV_WR_RDMA_READ, back, LEN, mb->lkey,
		       (uintptr_t)dst, md->rkey), "READ");
	if (!why[0] && (at = bad_byte(back, LEN, 1)) >= 0)
		fail("READ: byte %ld of %d wrong", at, LEN);
	if (!why[0] && cnt("odp_page_faults") <= f0)
		fail("odp_page_faults did not rise (%lld)", f0);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	ibv_dereg_mr(mb);
	munmap(src, LEN);
	munmap(dst, LEN);
	munmap(back, LEN);
}

static void case_dontneed(void)
{
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	long long i0;
	long at;

	pattern(src, LEN, 2);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "first WRITE");
	i0 = cnt("odp_invalidations");
	if (madvise(dst, LEN, MADV_DONTNEED))
		die("madvise failed");
	if (!why[0] && dst[100] != 0)
		fail("DONTNEED left data in the process's view");
	pattern(src, LEN, 3);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "WRITE after DONTNEED");
	if (!why[0] && (at = bad_byte(dst, LEN, 3)) >= 0)
		fail("after DONTNEED the process reads byte %ld = %u, not the "
		     "new data (written into the discarded pages?)", at,
		     dst[at]);
	if (!why[0] && cnt("odp_invalidations") <= i0)
		fail("odp_invalidations did not rise");
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	munmap(src, LEN);
	munmap(dst, LEN);
}

static void case_munmap(void)
{
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN), *p;
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	int st;
	long at;

	pattern(src, LEN, 4);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "WRITE");
	if (munmap(dst + LEN / 2, LEN / 2))
		die("munmap failed");
	st = rdma(IBV_WR_RDMA_WRITE, src, LEN / 2, ms->lkey,
		  (uintptr_t)dst + LEN / 2, md->rkey);
	if (!why[0] && st != IBV_WC_REM_ACCESS_ERR)
		fail("WRITE into unmapped memory: %s, not REM_ACCESS_ERR",
		     st < 0 ? "no completion" : ibv_wc_status_str(st));
	pair_new();
	p = mmap(dst + LEN / 2, LEN / 2, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != dst + LEN / 2)
		die("mmap MAP_FIXED failed");
	pattern(src, LEN, 5);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "WRITE after mapping again");
	if (!why[0] && (at = bad_byte(dst, LEN, 5)) >= 0)
		fail("after mapping again byte %ld wrong", at);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	munmap(src, LEN);
	munmap(dst, LEN);
}

static void case_local_gone(void)
{
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	int st;

	pattern(src, LEN, 6);
	if (munmap(src, LEN / 2))
		die("munmap failed");
	st = rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey, (uintptr_t)dst,
		  md->rkey);
	if (st != IBV_WC_LOC_PROT_ERR)
		fail("WRITE from unmapped local memory: %s, not LOC_PROT_ERR",
		     st < 0 ? "no completion" : ibv_wc_status_str(st));
	pair_new();
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	munmap(src + LEN / 2, LEN / 2);
	munmap(dst, LEN);
}

static void case_fork(void)
{
	unsigned char *buf = map_anon(LEN), *src = map_anon(LEN);
	unsigned char *back = map_anon(LEN);
	struct ibv_mr *mbuf = reg(buf, LEN, ODP_RW), *ms = reg(src, LEN, ODP_RW);
	struct ibv_mr *mb = reg(back, LEN, ODP_RW);
	int pipefd[2], status;
	pid_t pid;
	char c;
	long at;

	/* no MADV_DONTFORK: ODP needs none, the child gets a copy */
	pattern(buf, LEN, 7);
	expect_ok(rdma(IBV_WR_RDMA_READ, back, LEN, mb->lkey,
		       (uintptr_t)buf, mbuf->rkey), "READ before fork");
	if (pipe(pipefd))
		die("pipe failed");
	pid = fork();
	if (pid < 0)
		die("fork failed");
	if (!pid) {
		/* the child writes its own copy and waits for the parent */
		pattern(buf, LEN, 9);
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) < 0)
			_exit(1);
		_exit(bad_byte(buf, LEN, 9) >= 0);
	}
	close(pipefd[0]);
	pattern(buf, LEN, 8);		/* copy-on-write in the parent */
	expect_ok(rdma(IBV_WR_RDMA_READ, back, LEN, mb->lkey,
		       (uintptr_t)buf, mbuf->rkey), "READ after fork");
	if (!why[0] && (at = bad_byte(back, LEN, 8)) >= 0)
		fail("READ after fork and copy-on-write: byte %ld is not the "
		     "parent's", at);
	pattern(src, LEN, 10);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)buf, mbuf->rkey), "WRITE after fork");
	if (!why[0] && (at = bad_byte(buf, LEN, 10)) >= 0)
		fail("WRITE after fork: the parent reads byte %ld wrong", at);
	if (write(pipefd[1], "x", 1) != 1)
		die("write to pipe failed");
	close(pipefd[1]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid failed");
	if (!why[0] && (!WIFEXITED(status) || WEXITSTATUS(status)))
		fail("the child's copy changed under it (status %d)", status);
	ibv_dereg_mr(mbuf);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(mb);
	munmap(buf, LEN);
	munmap(src, LEN);
	munmap(back, LEN);
}

static void case_atomic(void)
{
	uint64_t *tgt = map_anon(LEN), *res = map_anon(LEN);
	struct ibv_mr *mt = reg(tgt, LEN, ODP_RW), *mr = reg(res, LEN, ODP_RW);
	uint64_t raddr = (uintptr_t)&tgt[LEN / 16];

	expect_ok(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, res, mr->lkey, raddr,
			 mt->rkey, 5, 0), "FETCH_ADD");
	if (!why[0] && (res[0] != 0 || tgt[LEN / 16] != 5))
		fail("FETCH_ADD on untouched memory: got %llu, memory %llu",
		     (unsigned long long)res[0],
		     (unsigned long long)tgt[LEN / 16]);
	expect_ok(atomic(IBV_WR_ATOMIC_CMP_AND_SWP, res, mr->lkey, raddr,
			 mt->rkey, 5, 77), "CMP_SWAP");
	if (!why[0] && (res[0] != 5 || tgt[LEN / 16] != 77))
		fail("CMP_SWAP: got %llu, memory %llu",
		     (unsigned long long)res[0],
		     (unsigned long long)tgt[LEN / 16]);
	if (madvise(tgt, LEN, MADV_DONTNEED))
		die("madvise failed");
	expect_ok(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, res, mr->lkey, raddr,
			 mt->rkey, 3, 0), "FETCH_ADD after DONTNEED");
	if (!why[0] && (res[0] != 0 || tgt[LEN / 16] != 3))
		fail("FETCH_ADD after DONTNEED: got %llu (not 0), memory %llu",
		     (unsigned long long)res[0],
		     (unsigned long long)tgt[LEN / 16]);
	ibv_dereg_mr(mt);
	ibv_dereg_mr(mr);
	munmap(tgt, LEN);
	munmap(res, LEN);
}

static void case_send_recv(void)
{
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	/* 3 SGEs each side, crossing page boundaries */
	struct ibv_sge ss[3] = {
		{ (uintptr_t)src + 100, 5000, ms->lkey },
		{ (uintptr_t)src + 9000, 3000, ms->lkey },
		{ (uintptr_t)src + 20000, 8192, ms->lkey },
	};
	struct ibv_sge rs[3] = {
		{ (uintptr_t)dst + 4000, 200, md->lkey },
		{ (uintptr_t)dst + 8190, 10000, md->lkey },
		{ (uintptr_t)dst + 30000, 8000, md->lkey },
	};
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = rs, .num_sge = 3 },
			   *rbad;
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = ss, .num_sge = 3,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	unsigned char *msg = malloc(16192), *got = malloc(16192);
	struct ibv_wc wc;
	size_t off = 0;
	int i, st;

	if (!msg || !got)
		die("malloc failed");
	pattern(src, LEN, 11);
	for (i = 0; i < 3; i++) {
		memcpy(msg + off, (void *)(uintptr_t)ss[i].addr, ss[i].length);
		off += ss[i].length;
	}
	if (ibv_post_recv(b.qp, &rwr, &rbad) || ibv_post_send(a.qp, &swr, &sbad))
		die("post failed");
	expect_ok(wait_wc(&a, &wc), "SEND");
	st = wait_wc(&b, &wc);
	expect_ok(st, "receive");
	if (!why[0] && wc.byte_len != off)
		fail("receive byte_len %u, not %zu", wc.byte_len, off);
	for (off = 0, i = 0; i < 3 && !why[0]; i++) {
		size_t n = rs[i].length < 16192 - off ? rs[i].length :
			   16192 - off;

		memcpy(got + off, (void *)(uintptr_t)rs[i].addr, n);
		off += n;
	}
	if (!why[0] && memcmp(msg, got, 16192))
		fail("received bytes differ from the sent ones");
	free(msg);
	free(got);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	munmap(src, LEN);
	munmap(dst, LEN);
}

static void case_implicit(void)
{
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_RW);
	/* 4 MiB aligned to 2 MiB: a WRITE from 1 MiB before to 1 MiB after */
	size_t big = 8u << 20;
	unsigned char *area = map_anon(big);
	unsigned char *base = (unsigned char *)(((uintptr_t)area + (2u << 20) - 1) &
						~(uintptr_t)((2u << 20) - 1));
	unsigned char *src = base + (1u << 20), *dst = base + (4u << 20) -
						      (64u << 10);
	long at;

	if (!imr) {
		fail("implicit reg_mr failed: %s", strerror(errno));
		munmap(area, big);
		return;
	}
	pattern(src, 128u << 10, 12);
	/* dst .. dst + 128 KiB crosses base + 4 MiB, a child boundary */
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, 128u << 10, imr->lkey,
		       (uintptr_t)dst, imr->rkey), "WRITE through implicit MR");
	if (!why[0] && (at = bad_byte(dst, 128u << 10, 12)) >= 0)
		fail("implicit WRITE: byte %ld wrong", at);
	ibv_dereg_mr(imr);
	munmap(area, big);
}

struct storm {
	void *p;
	size_t len;
	volatile bool stop;
	unsigned long rounds;
};

static void *storm_thread(void *arg)
{
	struct storm *s = arg;

	while (!s->stop) {
		madvise(s->p, s->len, MADV_DONTNEED);
		s->rounds++;
		usleep(200);
	}
	return NULL;
}

static void case_storm(void)
{
	const size_t n = 16384;
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	unsigned char *back = map_anon(LEN);
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	struct ibv_mr *mb = reg(back, LEN, ODP_RW);
	struct storm s = { .p = dst, .len = LEN };
	pthread_t t;
	size_t i;
	int k;
	long at;

	pattern(src, LEN, 13);
	if (pthread_create(&t, NULL, storm_thread, &s))
		die("pthread_create failed");
	for (k = 0; k < 300 && !why[0]; k++) {
		uint64_t off = (k % 4) * n;

		expect_ok(rdma(IBV_WR_RDMA_WRITE, src + off, n, ms->lkey,
			       (uintptr_t)dst + off, md->rkey), "WRITE in storm");
		expect_ok(rdma(IBV_WR_RDMA_READ, back, n, mb->lkey,
			       (uintptr_t)dst + off, md->rkey), "READ in storm");
		for (i = 0; i < n && !why[0]; i++)
			if (back[i] && back[i] != src[off + i])
				fail("READ in storm: byte %zu is %u, neither the "
				     "data nor 0", off + i, back[i]);
	}
	s.stop = true;
	pthread_join(t, NULL);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey, (uintptr_t)dst,
		       md->rkey), "WRITE after storm");
	if (!why[0] && (at = bad_byte(dst, LEN, 13)) >= 0)
		fail("after the storm byte %ld wrong", at);
	if (!why[0] && s.rounds < 10)
		fail("the storm thread ran only %lu rounds", s.rounds);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(md);
	ibv_dereg_mr(mb);
	munmap(src, LEN);
	munmap(dst, LEN);
	munmap(back, LEN);
}

static void advise_expect(struct ibv_mr *mr, uint32_t lkey, uint64_t addr,
			  uint32_t len, int advice, uint32_t flags, int want,
			  const char *what)
{
	struct ibv_sge sge = { addr, len, lkey };
	int ret = ibv_advise_mr(pd, advice, flags, &sge, 1);

	(void)mr;
	if (ret != want)
		fail("advise_mr %s: %d (%s), not %d", what, ret,
		     strerror(ret < 0 ? -ret : ret), want);
}

static void case_advise(void)
{
	unsigned char *buf = map_anon(LEN), *pin = malloc(LEN);
	struct ibv_mr *mo = reg(buf, LEN, ODP_RW);
	struct ibv_mr *mro = reg(buf, LEN, IBV_ACCESS_ON_DEMAND);
	struct ibv_mr *mp;
	long long f0 = cnt("odp_prefetches");

	if (!pin)
		die("malloc failed");
	mp = reg(pin, LEN, IBV_ACCESS_LOCAL_WRITE);
	advise_expect(mo, mo->lkey, (uintptr_t)buf, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
		      IBV_ADVISE_MR_FLAG_FLUSH, 0, "sync PREFETCH_WRITE");
	advise_expect(mo, mo->lkey, (uintptr_t)buf, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH, 0, 0, "async PREFETCH");
	advise_expect(mo, mo->lkey, (uintptr_t)buf, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
		      IBV_ADVISE_MR_FLAG_FLUSH, 0, "sync PREFETCH_NO_FAULT");
	advise_expect(mp, mp->lkey, (uintptr_t)pin, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		      EINVAL, "on a pinned MR");
	advise_expect(mo, mo->lkey ^ 0x100, (uintptr_t)buf, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		      EINVAL, "with an unknown lkey");
	advise_expect(mo, mo->lkey, (uintptr_t)buf + 4096, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		      EFAULT, "past the MR's end");
	advise_expect(mo, mo->lkey, (uintptr_t)buf, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH, 0x80, EINVAL,
		      "with unknown flags");
	advise_expect(mro, mro->lkey, (uintptr_t)buf, LEN,
		      IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
		      IBV_ADVISE_MR_FLAG_FLUSH, EINVAL,
		      "PREFETCH_WRITE on a read-only MR");
	if (!why[0] && cnt("odp_prefetches") < f0 + 2)
		fail("odp_prefetches rose by %lld, not >= 2",
		     cnt("odp_prefetches") - f0);
	ibv_dereg_mr(mo);
	ibv_dereg_mr(mro);
	ibv_dereg_mr(mp);
	munmap(buf, LEN);
	free(pin);
}

static const char *const names[] = {
	"first_touch", "dontneed", "munmap", "local_gone", "fork", "atomic",
	"send_recv", "implicit", "storm", "advise",
};
static void (*const funcs[])(void) = {
	case_first_touch, case_dontneed, case_munmap, case_local_gone,
	case_fork, case_atomic, case_send_recv, case_implicit, case_storm,
	case_advise,
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: sib-odp [-d DEV] [-o CASE]... | --list | --help\n"
		"  -d, --dev DEV    the device (default: the last one)\n"
		"  -o, --only CASE  run this case only (repeatable)\n"
		"  -l, --list       print the case names\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "only", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool only[SIBT_ARRAY_SIZE(names)] = { 0 }, any = false;
	struct ibv_device_attr_ex attr;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "d:o:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'o': {
			int k = sibt_case_index(names, SIBT_ARRAY_SIZE(names),
						optarg);

			if (k < 0) {
				fprintf(stderr, "sib-odp: unknown case %s\n",
					optarg);
				return 2;
			}
			only[k] = any = true;
			break;
		}
		case 'l':
			sibt_list(names, SIBT_ARRAY_SIZE(names));
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	ctx = sibt_open(devname);
	if (!ctx)
		die("cannot open the device");
	devname = ibv_get_device_name(ctx->device);
	if (ibv_query_device_ex(ctx, NULL, &attr))
		die("query_device_ex failed");
	if (!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT) ||
	    (attr.odp_caps.per_transport_caps.rc_odp_caps & 0x3f) != 0x3f) {
		printf("CASE odp_caps FAIL general 0x%llx rc 0x%x\n",
		       (unsigned long long)attr.odp_caps.general_caps,
		       attr.odp_caps.per_transport_caps.rc_odp_caps);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("alloc_pd failed");
	gidx = sibt_find_gid(ctx, 1, 16, &gid);
	if (gidx < 0)
		die("no RoCE v2 IPv4 GID");
	pair_new();
	for (i = 0; i < SIBT_ARRAY_SIZE(names); i++) {
		if (any && !only[i])
			continue;
		funcs[i]();
		report(names[i]);
	}
	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
	ibv_destroy_cq(a.cq);
	ibv_destroy_cq(b.cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return failed;
}
