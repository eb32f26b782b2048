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
 *                a WRITE across a 2 MiB boundary of its children; two implicit
 *                MRs in a row both get an even lkey (UCX 1.13 crashes closing
 *                a device whose global ODP MR has an odd one)
 *   implicit_unmapped  through an implicit MR's R_Key, a WRITE into an
 *                unmapped range and a WRITE and READ of a kernel address:
 *                REM_ACCESS_ERR; then a WRITE into mapped memory works
 *   lists_cap    16 GiB explicit ODP MRs over unmapped space until ENOMEM,
 *                within an eighth of RAM of ib_core's page lists
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
static const char *devname;

static struct sibt_pair P;	/* P.a requests, P.b responds */

#define die(msg)	sibt_die("sib-odp", msg)
#define fail		sibt_fail
#define pattern		sibt_pattern
#define bad_byte	sibt_bad_byte

/* a port counter; ib_core caches them for 10 ms: read after that */
static long long cnt(const char *name)
{
	usleep(30000);
	return sibt_counter(devname, 1, name);
}

/* a fresh connected pair (after an error left the last one in ERR) */
static void pair_new(void)
{
	const char *what;

	if (sibt_pair_new(&P, &what))
		die(what);
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

/* post one work request of P.a's and wait: its completion status or -1 */
static int rdma(enum ibv_wr_opcode op, void *local, uint32_t len,
		uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	int st = sibt_pair_rdma(&P, op, local, len, lkey, raddr, rkey);

	if (st == -2)
		die("post_send failed");
	return st;
}

static int atomic(enum ibv_wr_opcode op, uint64_t *res, uint32_t lkey,
		  uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		  uint64_t swap)
{
	int st = sibt_pair_atomic(&P, op, res, lkey, raddr, rkey, cmp_add,
				  swap);

	if (st == -2)
		die("post_send failed");
	return st;
}

static void expect_ok(int st, const char *what)
{
	if (st != IBV_WC_SUCCESS)
		fail("%s: %s", what, sibt_status_str(st));
}

static void expect_st(int st, int want, const char *what)
{
	if (st != want)
		fail("%s: %s, not %s", what, sibt_status_str(st),
		     ibv_wc_status_str((enum ibv_wc_status)want));
}

static void case_first_touch(void)
{
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	unsigned char *back = map_anon(LEN);
	struct ibv_mr *ms = reg(src, LEN, ODP_RW), *md = reg(dst, LEN, ODP_RW);
	struct ibv_mr *mb = reg(back, LEN, ODP_RW);
	long long f0 = cnt("odp_page_faults");
	long at;

	pattern(src, LEN, 1);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "WRITE");
	if (!sibt_case_failed() && (at = bad_byte(dst, LEN, 1)) >= 0)
		fail("WRITE: byte %ld of %d wrong", at, LEN);
	expect_ok(rdma(IBV_WR_RDMA_READ, back, LEN, mb->lkey,
		       (uintptr_t)dst, md->rkey), "READ");
	if (!sibt_case_failed() && (at = bad_byte(back, LEN, 1)) >= 0)
		fail("READ: byte %ld of %d wrong", at, LEN);
	if (!sibt_case_failed() && cnt("odp_page_faults") <= f0)
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
	if (!sibt_case_failed() && dst[100] != 0)
		fail("DONTNEED left data in the process's view");
	pattern(src, LEN, 3);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)dst, md->rkey), "WRITE after DONTNEED");
	if (!sibt_case_failed() && (at = bad_byte(dst, LEN, 3)) >= 0)
		fail("after DONTNEED the process reads byte %ld = %u, not the "
		     "new data (written into the discarded pages?)", at,
		     dst[at]);
	if (!sibt_case_failed() && cnt("odp_invalidations") <= i0)
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
	if (!sibt_case_failed() && st != IBV_WC_REM_ACCESS_ERR)
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
	if (!sibt_case_failed() && (at = bad_byte(dst, LEN, 5)) >= 0)
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
	if (!sibt_case_failed() && (at = bad_byte(back, LEN, 8)) >= 0)
		fail("READ after fork and copy-on-write: byte %ld is not the "
		     "parent's", at);
	pattern(src, LEN, 10);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey,
		       (uintptr_t)buf, mbuf->rkey), "WRITE after fork");
	if (!sibt_case_failed() && (at = bad_byte(buf, LEN, 10)) >= 0)
		fail("WRITE after fork: the parent reads byte %ld wrong", at);
	if (write(pipefd[1], "x", 1) != 1)
		die("write to pipe failed");
	close(pipefd[1]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid failed");
	if (!sibt_case_failed() && (!WIFEXITED(status) || WEXITSTATUS(status)))
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
	if (!sibt_case_failed() && (res[0] != 0 || tgt[LEN / 16] != 5))
		fail("FETCH_ADD on untouched memory: got %llu, memory %llu",
		     (unsigned long long)res[0],
		     (unsigned long long)tgt[LEN / 16]);
	expect_ok(atomic(IBV_WR_ATOMIC_CMP_AND_SWP, res, mr->lkey, raddr,
			 mt->rkey, 5, 77), "CMP_SWAP");
	if (!sibt_case_failed() && (res[0] != 5 || tgt[LEN / 16] != 77))
		fail("CMP_SWAP: got %llu, memory %llu",
		     (unsigned long long)res[0],
		     (unsigned long long)tgt[LEN / 16]);
	if (madvise(tgt, LEN, MADV_DONTNEED))
		die("madvise failed");
	expect_ok(atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, res, mr->lkey, raddr,
			 mt->rkey, 3, 0), "FETCH_ADD after DONTNEED");
	if (!sibt_case_failed() && (res[0] != 0 || tgt[LEN / 16] != 3))
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
	if (ibv_post_recv(P.b.qp, &rwr, &rbad) || ibv_post_send(P.a.qp, &swr, &sbad))
		die("post failed");
	expect_ok(sibt_side_wait(&P.a, &wc), "SEND");
	st = sibt_side_wait(&P.b, &wc);
	expect_ok(st, "receive");
	if (!sibt_case_failed() && wc.byte_len != off)
		fail("receive byte_len %u, not %zu", wc.byte_len, off);
	for (off = 0, i = 0; i < 3 && !sibt_case_failed(); i++) {
		size_t n = rs[i].length < 16192 - off ? rs[i].length :
			   16192 - off;

		memcpy(got + off, (void *)(uintptr_t)rs[i].addr, n);
		off += n;
	}
	if (!sibt_case_failed() && memcmp(msg, got, 16192))
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
	struct ibv_mr *imr2 = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_RW);

	if (!imr2)
		fail("second implicit reg_mr failed: %s", strerror(errno));
	else if ((imr->lkey | imr2->lkey) & 1)
		fail("implicit MRs' lkeys 0x%x and 0x%x: not both even", imr->lkey, imr2->lkey);
	if (imr2)
		ibv_dereg_mr(imr2);
	pattern(src, 128u << 10, 12);
	/* dst .. dst + 128 KiB crosses base + 4 MiB, a child boundary */
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, 128u << 10, imr->lkey,
		       (uintptr_t)dst, imr->rkey), "WRITE through implicit MR");
	if (!sibt_case_failed() && (at = bad_byte(dst, 128u << 10, 12)) >= 0)
		fail("implicit WRITE: byte %ld wrong", at);
	ibv_dereg_mr(imr);
	munmap(area, big);
}

static void case_implicit_unmapped(void)
{
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, ODP_RW);
	unsigned char *src = map_anon(LEN), *dst = map_anon(LEN);
	unsigned char *hole = map_anon(4u << 20);
	/* a kernel address: above every user mapping */
	const uint64_t high = 0xffff888000000000ULL;
	long at;

	if (!imr) {
		fail("implicit reg_mr failed: %s", strerror(errno));
		goto out;
	}
	if (munmap(hole, 4u << 20))
		die("munmap failed");
	pattern(src, LEN, 13);
	expect_st(rdma(IBV_WR_RDMA_WRITE, src, LEN, imr->lkey,
		       (uintptr_t)hole + 4096, imr->rkey),
		  IBV_WC_REM_ACCESS_ERR, "WRITE into an unmapped range");
	pair_new();
	expect_st(rdma(IBV_WR_RDMA_WRITE, src, 64, imr->lkey, high, imr->rkey),
		  IBV_WC_REM_ACCESS_ERR, "WRITE to a kernel address");
	pair_new();
	expect_st(rdma(IBV_WR_RDMA_READ, dst, 64, imr->lkey, high, imr->rkey),
		  IBV_WC_REM_ACCESS_ERR, "READ of a kernel address");
	pair_new();
	/* the MR still serves mapped memory */
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, imr->lkey,
		       (uintptr_t)dst, imr->rkey), "WRITE after the refusals");
	if (!sibt_case_failed() && (at = bad_byte(dst, LEN, 13)) >= 0)
		fail("WRITE after the refusals: byte %ld wrong", at);
	ibv_dereg_mr(imr);
out:
	munmap(src, LEN);
	munmap(dst, LEN);
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
	for (k = 0; k < 300 && !sibt_case_failed(); k++) {
		uint64_t off = (k % 4) * n;

		expect_ok(rdma(IBV_WR_RDMA_WRITE, src + off, n, ms->lkey,
			       (uintptr_t)dst + off, md->rkey), "WRITE in storm");
		expect_ok(rdma(IBV_WR_RDMA_READ, back, n, mb->lkey,
			       (uintptr_t)dst + off, md->rkey), "READ in storm");
		for (i = 0; i < n && !sibt_case_failed(); i++)
			if (back[i] && back[i] != src[off + i])
				fail("READ in storm: byte %zu is %u, neither the "
				     "data nor 0", off + i, back[i]);
	}
	s.stop = true;
	pthread_join(t, NULL);
	expect_ok(rdma(IBV_WR_RDMA_WRITE, src, LEN, ms->lkey, (uintptr_t)dst,
		       md->rkey), "WRITE after storm");
	if (!sibt_case_failed() && (at = bad_byte(dst, LEN, 13)) >= 0)
		fail("after the storm byte %ld wrong", at);
	if (!sibt_case_failed() && s.rounds < 10)
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
	if (!sibt_case_failed() && cnt("odp_prefetches") < f0 + 2)
		fail("odp_prefetches rose by %lld, not >= 2",
		     cnt("odp_prefetches") - f0);
	ibv_dereg_mr(mo);
	ibv_dereg_mr(mro);
	ibv_dereg_mr(mp);
	munmap(buf, LEN);
	free(pin);
}

/*
 * An explicit ODP MR over 2^40 - 8 KiB of address space: ib_core would keep
 * 4 GiB of page lists for it, more than the kernel can spare in a guest; the
 * registration fails with ENOMEM instead of the OOM killer running.
 */
static void case_huge(void)
{
	size_t len = (1ULL << 40) - 8192;
	unsigned char *buf = map_anon(4096);
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(pd, buf, len, ODP_RW);
	if (mr) {
		fail("a %zu-byte explicit ODP MR was registered", len);
		ibv_dereg_mr(mr);
	} else if (errno != ENOMEM) {
		fail("a %zu-byte explicit ODP MR: errno %d, not ENOMEM", len,
		     errno);
	}
	munmap(buf, 4096);
}

/*
 * Many explicit ODP MRs of 16 GiB over address space nobody mapped (64 MiB
 * of page lists each in ib_core): the device's ODP MRs together may hold
 * lists of at most an eighth of RAM, so one of them fails with ENOMEM long
 * before the OOM killer would run (a field case: an unprivileged process
 * filled a 4 GiB guest so); after the deregistrations one fits again.
 */
static void case_lists_cap(void)
{
	const size_t len = 16ULL << 30, max = 128;
	const uint64_t lists = ((len >> 12) + 2) * 16;
	uint64_t cap = (uint64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) / 8;
	const uintptr_t base = 0x200000000000ULL;	/* 32 TiB: no mapping there */
	struct ibv_mr *mrs[128], *mr;
	size_t n = 0, i;

	while (n < max) {
		mrs[n] = ibv_reg_mr(pd, (void *)(base + n * len), len, ODP_RW);
		if (!mrs[n])
			break;
		n++;
	}
	if (n == max)
		fail("%zu explicit ODP MRs of 16 GiB (%llu MiB of page lists) registered",
		     n, (unsigned long long)(n * lists >> 20));
	else if (errno != ENOMEM)
		fail("ODP MR %zu of 16 GiB: %s, not ENOMEM", n, strerror(errno));
	else if (n * lists > cap)
		fail("%zu MRs hold %llu MiB of page lists, above an eighth of RAM (%llu MiB)",
		     n, (unsigned long long)(n * lists >> 20),
		     (unsigned long long)(cap >> 20));
	for (i = 0; i < n; i++)
		ibv_dereg_mr(mrs[i]);
	mr = ibv_reg_mr(pd, (void *)base, len, ODP_RW);
	if (!mr)
		fail("after the deregistrations a 16 GiB ODP MR: %s", strerror(errno));
	else
		ibv_dereg_mr(mr);
	if (!sibt_case_failed())
		sibt_ok_detail("%zu MRs of 16 GiB, then ENOMEM (%llu of %llu MiB of page lists)",
			       n, (unsigned long long)(n * lists >> 20),
			       (unsigned long long)(cap >> 20));
}

static const char *const names[] = {
	"first_touch", "dontneed", "munmap", "local_gone", "fork", "atomic",
	"send_recv", "implicit", "implicit_unmapped", "storm", "advise",
	"huge", "lists_cap",
};
static void (*const funcs[])(void) = {
	case_first_touch, case_dontneed, case_munmap, case_local_gone,
	case_fork, case_atomic, case_send_recv, case_implicit,
	case_implicit_unmapped, case_storm,
	case_advise, case_huge, case_lists_cap,
};

int main(int argc, char **argv)
{
	bool only[SIBT_ARRAY_SIZE(names)];
	const char *what;
	struct ibv_device_attr_ex attr;
	int rc = sibt_case_args(argc, argv, "sib-odp", NULL, names,
				SIBT_ARRAY_SIZE(names), only, &devname);

	if (rc >= 0)
		return rc;
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
	if (sibt_pair_setup(&P, ctx, &what))
		die(what);
	pd = P.pd;
	sibt_run_cases("odp_", names, funcs, SIBT_ARRAY_SIZE(names), only);
	sibt_pair_free(&P);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return sibt_any_failed();
}
