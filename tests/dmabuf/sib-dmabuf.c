// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-dmabuf: MRs on dma-buf memory (ibv_reg_dmabuf_mr) of one device,
 * between two RC QPs of it. The dma-bufs come from two exporters, where
 * the kernel has them: the virtual GEM driver (vgem: a DRM device whose
 * dumb buffers are shmem pages that it exports as dma-bufs; Debian's 6.1
 * and 6.12 build it as a module) and the system dma-buf heap
 * (/dev/dma_heap/system: page allocations exported as dma-bufs; Debian's
 * 6.12 and softib's debug kernel have it, Debian's 6.1 not). At least one
 * is needed. Each case runs on every exporter found; its detail names
 * them. The program sees the
 * buffer's bytes through an mmap of the dma-buf, the view another user of
 * the buffer has.
 *
 *   write_read   WRITE 40 KiB into a dma-buf MR that starts 4 KiB into
 *                the buffer, at an iova of its own: the bytes land at that
 *                offset of the buffer, those around stay; READ them back
 *   local        the dma-buf MR as a local SGE: SEND from it, receive into
 *                it, WRITE from it (the path that lends pinned user pages
 *                to packets must copy here)
 *   atomic       FETCH_ADD and CMP_SWAP on a dma-buf MR, seen in the buffer
 *   in_page      an MR that starts 100 bytes into a page of the buffer, its
 *                iova 100 bytes into a page too (ib_core wants the two
 *                offsets equal): a WRITE lands at the right byte
 *   bounds       a WRITE that ends past the MR and a READ that starts
 *                before it: remote access errors, the buffer untouched
 *   fd_closed    the dma-buf's fd, its mmap and the GEM handle given up
 *                after registration: the MR still works (it holds the
 *                buffer), a new mmap of a re-exported fd sees its writes
 *   bad_input    refused with an errno: fd -1 (EBADF), an fd that is no
 *                dma-buf, a range past the buffer's end, an offset whose
 *                end wraps, length 0, an iova whose offset in its page is
 *                not the offset's, IBV_ACCESS_ON_DEMAND and ZERO_BASED
 *                (ib_core takes neither for dma-buf MRs), remote write
 *                without local write
 *
 * Prints "CASE dmabuf_<name> ok|FAIL <detail>" per case (an ok's detail:
 * the exporters it ran on); exit 0 iff all ok, 2 when the set-up failed
 * (no device, neither exporter). --list prints the case
 * names, one per line, and needs neither.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sibtest.h"

#define BUF_LEN		(64 * 1024)	/* the dma-buf */
#define MR_OFF		4096		/* the MR's first byte in it */
#define MR_LEN		(40 * 1024)
#define MR_IOVA		0x7a0000000ULL	/* what the peers address */
#define RW		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * The DRM interface vgem offers (include/uapi/drm/drm.h, drm_mode.h):
 * the layouts and ioctl numbers, declared here so that no DRM headers
 * need to be installed.
 */
struct drm_version_arg {
	int major, minor, patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct drm_create_dumb_arg {
	uint32_t height, width, bpp, flags;
	uint32_t handle, pitch;
	uint64_t size;
};
struct drm_prime_handle_arg {
	uint32_t handle, flags;
	int32_t fd;
};
struct drm_gem_close_arg {
	uint32_t handle, pad;
};
#define DRM_IOC_VERSION		_IOWR('d', 0x00, struct drm_version_arg)
#define DRM_IOC_GEM_CLOSE	_IOW('d', 0x09, struct drm_gem_close_arg)
#define DRM_IOC_PRIME_TO_FD	_IOWR('d', 0x2d, struct drm_prime_handle_arg)
#define DRM_IOC_CREATE_DUMB	_IOWR('d', 0xb2, struct drm_create_dumb_arg)
/* and the dma-buf heaps' (include/uapi/linux/dma-heap.h) */
struct dma_heap_alloc_arg {
	uint64_t len;
	uint32_t fd, fd_flags;
	uint64_t heap_flags;
};
#define DMA_HEAP_IOC_ALLOC	_IOWR('H', 0x0, struct dma_heap_alloc_arg)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct sibt_pair P;	/* P.a requests, P.b responds */
static const char *devname;
static int drm = -1;		/* vgem's DRM node */
static int heap = -1;		/* /dev/dma_heap/system, or -1 */
static enum { VGEM, HEAP } exporter;	/* the one the cases run on now */
static const char *const exporter_name[] = { "vgem", "system heap" };

#define die(msg)	sibt_die("sib-dmabuf", msg)
/* a failure, with the exporter it happened on */
#define fail(fmt, ...)	sibt_fail("%s: " fmt, exporter_name[exporter], \
				  ##__VA_ARGS__)

/* the DRM node of vgem, or -1 */
static int vgem_open(void)
{
	static const char *const dirs[] = { "/dev/dri" };
	struct dirent *de;
	DIR *d = opendir(dirs[0]);
	int fd = -1;

	while (d && (de = readdir(d))) {
		char path[300], name[32] = "";
		struct drm_version_arg v = { .name = name,
					     .name_len = sizeof(name) - 1 };

		if (strncmp(de->d_name, "card", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dirs[0], de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, DRM_IOC_VERSION, &v) && !strcmp(name, "vgem"))
			break;
		close(fd);
		fd = -1;
	}
	if (d)
		closedir(d);
	return fd;
}

/* a dma-buf of BUF_LEN bytes (zeroed by the exporter) */
struct dbuf {
	uint32_t handle;
	int fd;
	unsigned char *map;	/* the CPU's view: an mmap of the dma-buf */
};

static void dbuf_map(struct dbuf *b)
{
	b->map = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
		      b->fd, 0);
	if (b->map == MAP_FAILED)
		die("mmap of the dma-buf failed");
}

static void dbuf_new(struct dbuf *b)
{
	struct drm_create_dumb_arg c = {
		.height = BUF_LEN / 4096, .width = 1024, .bpp = 32,
	};
	struct drm_prime_handle_arg h = { .flags = O_RDWR | O_CLOEXEC };
	struct dma_heap_alloc_arg a = {
		.len = BUF_LEN, .fd_flags = O_RDWR | O_CLOEXEC,
	};

	memset(b, 0, sizeof(*b));
	if (exporter == HEAP) {
		if (ioctl(heap, DMA_HEAP_IOC_ALLOC, &a))
			die("system heap: allocation failed");
		b->fd = (int)a.fd;
		dbuf_map(b);
		/* the heap's pages come from the page allocator: clear them */
		memset(b->map, 0, BUF_LEN);
		return;
	}
	if (ioctl(drm, DRM_IOC_CREATE_DUMB, &c))
		die("vgem: create dumb buffer failed");
	if (c.size < BUF_LEN) {
		errno = EMSGSIZE;
		die("vgem: dumb buffer smaller than asked");
	}
	h.handle = c.handle;
	if (ioctl(drm, DRM_IOC_PRIME_TO_FD, &h))
		die("vgem: export as dma-buf failed");
	b->handle = c.handle;
	b->fd = h.fd;
	dbuf_map(b);
}

/* another fd of the same dma-buf (which keeps it alive, as the MR does) */
static int dbuf_second_fd(struct dbuf *b)
{
	struct drm_prime_handle_arg h = { .handle = b->handle,
					  .flags = O_RDWR | O_CLOEXEC };

	if (exporter == HEAP)
		return dup(b->fd);
	if (ioctl(drm, DRM_IOC_PRIME_TO_FD, &h))
		return -1;
	return h.fd;
}

static void dbuf_free(struct dbuf *b)
{
	struct drm_gem_close_arg gc = { .handle = b->handle };

	if (b->map && b->map != MAP_FAILED)
		munmap(b->map, BUF_LEN);
	if (b->fd >= 0)
		close(b->fd);
	if (b->handle)
		ioctl(drm, DRM_IOC_GEM_CLOSE, &gc);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

static struct ibv_mr *dreg(struct dbuf *b, uint64_t off, size_t len,
			   uint64_t iova, int access)
{
	struct ibv_mr *mr = ibv_reg_dmabuf_mr(pd, off, len, iova, b->fd,
					      access);

	if (!mr)
		die("reg_dmabuf_mr failed");
	return mr;
}

static void *zalloc(size_t len)
{
	void *p = calloc(1, len);

	if (!p)
		die("calloc failed");
	return p;
}

static struct ibv_mr *reg(void *p, size_t len)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, p, len, RW);

	if (!mr)
		die("reg_mr failed");
	return mr;
}

static void pair_new(void)
{
	const char *what;

	if (sibt_pair_new(&P, &what))
		die(what);
}

static void expect(int st, int want, const char *what)
{
	if (st == -2)
		die("post or poll failed");
	if (st != want)
		fail("%s: %s, not %s", what, sibt_status_str(st),
			  ibv_wc_status_str((enum ibv_wc_status)want));
}

/* bytes [from, to) of @p are all zero */
static bool zero(const unsigned char *p, size_t from, size_t to)
{
	for (; from < to; from++)
		if (p[from])
			return false;
	return true;
}

static void case_write_read(void)
{
	struct dbuf b;
	unsigned char *src = zalloc(MR_LEN), *back = zalloc(MR_LEN);
	struct ibv_mr *ms = reg(src, MR_LEN), *mb = reg(back, MR_LEN), *md;
	long at;

	dbuf_new(&b);
	md = dreg(&b, MR_OFF, MR_LEN, MR_IOVA, RW);
	/* libibverbs reports the offset as the MR's addr */
	if (md->addr != (void *)(uintptr_t)MR_OFF || md->length != MR_LEN)
		fail("MR addr %p length %zu, not the offset and length",
			  md->addr, md->length);
	sibt_pattern(src, MR_LEN, 1);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_WRITE, src, MR_LEN, ms->lkey,
			      MR_IOVA, md->rkey), IBV_WC_SUCCESS, "WRITE");
	if (!sibt_case_failed() &&
	    (at = sibt_bad_byte(b.map + MR_OFF, MR_LEN, 1)) >= 0)
		fail("WRITE: byte %ld of the MR wrong in the buffer", at);
	if (!sibt_case_failed() && (!zero(b.map, 0, MR_OFF) ||
				    !zero(b.map, MR_OFF + MR_LEN, BUF_LEN)))
		fail("WRITE changed bytes outside the MR");
	/* the buffer's own writer changes it; a READ returns what it wrote */
	sibt_pattern(b.map + MR_OFF, MR_LEN, 2);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_READ, back, MR_LEN, mb->lkey,
			      MR_IOVA, md->rkey), IBV_WC_SUCCESS, "READ");
	if (!sibt_case_failed() && (at = sibt_bad_byte(back, MR_LEN, 2)) >= 0)
		fail("READ: byte %ld wrong", at);
	/* an unaligned piece in the middle */
	sibt_pattern(src, 3001, 3);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_WRITE, src, 3001, ms->lkey,
			      MR_IOVA + 4095, md->rkey), IBV_WC_SUCCESS,
	       "unaligned WRITE");
	if (!sibt_case_failed() &&
	    (at = sibt_bad_byte(b.map + MR_OFF + 4095, 3001, 3)) >= 0)
		fail("unaligned WRITE: byte %ld wrong", at);
	ibv_dereg_mr(md);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(mb);
	dbuf_free(&b);
	free(src);
	free(back);
}

static void case_local(void)
{
	struct dbuf b;
	unsigned char *peer = zalloc(BUF_LEN);
	struct ibv_mr *mp = reg(peer, BUF_LEN), *md;
	struct ibv_sge ss = { MR_IOVA, 20000, 0 };
	struct ibv_sge rs = { (uintptr_t)peer, 20000, mp->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 },
			   *rbad;
	struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_wc wc;
	long at;

	dbuf_new(&b);
	md = dreg(&b, MR_OFF, MR_LEN, MR_IOVA, RW);
	ss.lkey = md->lkey;
	/* SEND from the dma-buf MR */
	sibt_pattern(b.map + MR_OFF, 20000, 4);
	if (ibv_post_recv(P.b.qp, &rwr, &rbad) ||
	    ibv_post_send(P.a.qp, &swr, &sbad))
		die("post failed");
	expect(sibt_side_wait(&P.a, &wc), IBV_WC_SUCCESS, "SEND");
	expect(sibt_side_wait(&P.b, &wc), IBV_WC_SUCCESS, "receive");
	if (!sibt_case_failed() && (at = sibt_bad_byte(peer, 20000, 4)) >= 0)
		fail("SEND from the dma-buf: byte %ld wrong", at);
	/* receive into it: the responder side's SGE */
	sibt_pattern(peer, 20000, 5);
	rs = (struct ibv_sge){ MR_IOVA + 100, 20000, md->lkey };
	ss = (struct ibv_sge){ (uintptr_t)peer, 20000, mp->lkey };
	if (ibv_post_recv(P.b.qp, &rwr, &rbad) ||
	    ibv_post_send(P.a.qp, &swr, &sbad))
		die("post failed");
	expect(sibt_side_wait(&P.a, &wc), IBV_WC_SUCCESS, "SEND");
	expect(sibt_side_wait(&P.b, &wc), IBV_WC_SUCCESS,
	       "receive into the dma-buf");
	if (!sibt_case_failed() &&
	    (at = sibt_bad_byte(b.map + MR_OFF + 100, 20000, 5)) >= 0)
		fail("receive into the dma-buf: byte %ld wrong", at);
	/* WRITE from it: large enough for the zero-copy transmit path */
	sibt_pattern(b.map + MR_OFF, MR_LEN, 6);
	memset(peer, 0, BUF_LEN);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_WRITE,
			      (void *)(uintptr_t)MR_IOVA, MR_LEN, md->lkey,
			      (uintptr_t)peer, mp->rkey), IBV_WC_SUCCESS,
	       "WRITE from the dma-buf");
	if (!sibt_case_failed() && (at = sibt_bad_byte(peer, MR_LEN, 6)) >= 0)
		fail("WRITE from the dma-buf: byte %ld wrong", at);
	ibv_dereg_mr(md);
	ibv_dereg_mr(mp);
	dbuf_free(&b);
	free(peer);
}

static void case_atomic(void)
{
	struct dbuf b;
	uint64_t *res = zalloc(16), *tgt;
	struct ibv_mr *mr = reg(res, 16), *md;

	dbuf_new(&b);
	md = dreg(&b, MR_OFF, MR_LEN, MR_IOVA, RW);
	tgt = (uint64_t *)(b.map + MR_OFF + 512);
	*tgt = 40;
	expect(sibt_pair_atomic(&P, IBV_WR_ATOMIC_FETCH_AND_ADD, res, mr->lkey,
				MR_IOVA + 512, md->rkey, 2, 0),
	       IBV_WC_SUCCESS, "FETCH_ADD");
	if (!sibt_case_failed() && (res[0] != 40 || *tgt != 42))
		fail("FETCH_ADD: got %llu, buffer %llu (40, 42)",
			  (unsigned long long)res[0],
			  (unsigned long long)*tgt);
	expect(sibt_pair_atomic(&P, IBV_WR_ATOMIC_CMP_AND_SWP, res, mr->lkey,
				MR_IOVA + 512, md->rkey, 42, 7),
	       IBV_WC_SUCCESS, "CMP_SWAP");
	if (!sibt_case_failed() && (res[0] != 42 || *tgt != 7))
		fail("CMP_SWAP: got %llu, buffer %llu (42, 7)",
			  (unsigned long long)res[0],
			  (unsigned long long)*tgt);
	ibv_dereg_mr(md);
	ibv_dereg_mr(mr);
	dbuf_free(&b);
	free(res);
}

static void case_in_page(void)
{
	struct dbuf b;
	unsigned char *src = zalloc(8192);
	struct ibv_mr *ms = reg(src, 8192), *md;
	long at;

	dbuf_new(&b);
	md = dreg(&b, MR_OFF + 100, MR_LEN, MR_IOVA + 100, RW);
	sibt_pattern(src, 8192, 7);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_WRITE, src, 8192, ms->lkey,
			      MR_IOVA + 1000, md->rkey), IBV_WC_SUCCESS,
	       "WRITE at iova + 1000");
	if (!sibt_case_failed() &&
	    (at = sibt_bad_byte(b.map + MR_OFF + 1000, 8192, 7)) >= 0)
		fail("byte %ld not at the buffer's offset %d", at,
			  MR_OFF + 1000);
	if (!sibt_case_failed() && !zero(b.map, 0, MR_OFF + 1000))
		fail("bytes before the buffer's offset %d changed",
			  MR_OFF + 1000);
	ibv_dereg_mr(md);
	ibv_dereg_mr(ms);
	dbuf_free(&b);
	free(src);
}

static void case_bounds(void)
{
	struct dbuf b;
	unsigned char *src = zalloc(8192);
	struct ibv_mr *ms = reg(src, 8192), *md;

	dbuf_new(&b);
	md = dreg(&b, MR_OFF, MR_LEN, MR_IOVA, RW);
	memset(src, 0xa5, 8192);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_WRITE, src, 8192, ms->lkey,
			      MR_IOVA + MR_LEN - 4096, md->rkey),
	       IBV_WC_REM_ACCESS_ERR, "WRITE past the MR's end");
	pair_new();
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_READ, src, 64, ms->lkey,
			      MR_IOVA - 32, md->rkey),
	       IBV_WC_REM_ACCESS_ERR, "READ before the MR's start");
	pair_new();
	if (!sibt_case_failed() && !zero(b.map, 0, BUF_LEN))
		fail("a refused access changed the buffer");
	ibv_dereg_mr(md);
	ibv_dereg_mr(ms);
	dbuf_free(&b);
	free(src);
}

static void case_fd_closed(void)
{
	struct dbuf b;
	unsigned char *src = zalloc(MR_LEN), *back = zalloc(MR_LEN);
	struct ibv_mr *ms = reg(src, MR_LEN), *mb = reg(back, MR_LEN), *md;
	unsigned char *map;
	int fd2;
	long at;

	dbuf_new(&b);
	md = dreg(&b, MR_OFF, MR_LEN, MR_IOVA, RW);
	/* a second reference, only to look at the bytes afterwards */
	fd2 = dbuf_second_fd(&b);
	if (fd2 < 0)
		die("a second fd of the dma-buf failed");
	dbuf_free(&b);
	sibt_pattern(src, MR_LEN, 8);
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_WRITE, src, MR_LEN, ms->lkey,
			      MR_IOVA, md->rkey), IBV_WC_SUCCESS,
	       "WRITE after close");
	expect(sibt_pair_rdma(&P, IBV_WR_RDMA_READ, back, MR_LEN, mb->lkey,
			      MR_IOVA, md->rkey), IBV_WC_SUCCESS,
	       "READ after close");
	if (!sibt_case_failed() && (at = sibt_bad_byte(back, MR_LEN, 8)) >= 0)
		fail("READ after close: byte %ld wrong", at);
	map = mmap(NULL, BUF_LEN, PROT_READ, MAP_SHARED, fd2, 0);
	if (map == MAP_FAILED)
		die("mmap of the re-exported dma-buf failed");
	if (!sibt_case_failed() &&
	    (at = sibt_bad_byte(map + MR_OFF, MR_LEN, 8)) >= 0)
		fail("the buffer's byte %ld is not what was written", at);
	ibv_dereg_mr(md);
	munmap(map, BUF_LEN);
	close(fd2);
	ibv_dereg_mr(ms);
	ibv_dereg_mr(mb);
	free(src);
	free(back);
}

/* a registration that must fail with @want (0: with any errno) */
static void refused(uint64_t off, size_t len, int fd, int access, int want,
		    const char *what)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, off, len, MR_IOVA, fd, access);
	if (mr) {
		fail("%s: registered", what);
		ibv_dereg_mr(mr);
	} else if (want && errno != want) {
		fail("%s: errno %d (%s), not %s", what, errno,
			  strerror(errno), strerror(want));
	} else if (!errno) {
		fail("%s: failed without an errno", what);
	}
}

static void case_bad_input(void)
{
	struct dbuf b;
	int memfd = memfd_create("sib-dmabuf", MFD_CLOEXEC);

	if (memfd < 0 || ftruncate(memfd, BUF_LEN))
		die("memfd failed");
	dbuf_new(&b);
	refused(0, 4096, -1, RW, EBADF, "fd -1");
	refused(0, 4096, memfd, RW, EINVAL, "a memfd");
	refused(BUF_LEN - 4096, 8192, b.fd, RW, EINVAL, "past the end");
	refused(UINT64_MAX - 4095, 8192, b.fd, RW, EINVAL, "a wrapping end");
	refused(0, 0, b.fd, RW, EINVAL, "length 0");
	errno = 0;
	if (ibv_reg_dmabuf_mr(pd, 0, 4096, MR_IOVA + 8, b.fd, RW) ||
	    errno != EINVAL)
		fail("iova 8 bytes into a page, offset 0: %s",
			  errno ? strerror(errno) : "registered");
	refused(0, 4096, b.fd, RW | IBV_ACCESS_ON_DEMAND, EINVAL, "ON_DEMAND");
	refused(0, 4096, b.fd, RW | IBV_ACCESS_ZERO_BASED, EINVAL,
		"ZERO_BASED");
	refused(0, 4096, b.fd, IBV_ACCESS_REMOTE_WRITE, EINVAL,
		"remote write without local write");
	/* and the device still registers a good one afterwards */
	ibv_dereg_mr(dreg(&b, 0, BUF_LEN, MR_IOVA, RW));
	dbuf_free(&b);
	close(memfd);
}

static const char *const names[] = {
	"write_read", "local", "atomic", "in_page", "bounds", "fd_closed",
	"bad_input",
};
static void (*const funcs[])(void) = {
	case_write_read, case_local, case_atomic, case_in_page,
	case_bounds, case_fd_closed, case_bad_input,
};

/* each selected case on each exporter found, then its one report */
static void run_cases(const bool *only)
{
	bool any = false;
	size_t i;

	for (i = 0; i < SIBT_ARRAY_SIZE(names); i++)
		any |= only[i];
	for (i = 0; i < SIBT_ARRAY_SIZE(names); i++) {
		if (any && !only[i])
			continue;
		if (drm >= 0) {
			exporter = VGEM;
			funcs[i]();
		}
		if (heap >= 0 && !sibt_case_failed()) {
			exporter = HEAP;
			funcs[i]();
		}
		sibt_ok_detail("%s", drm < 0 ? "system heap" :
			       heap >= 0 ? "vgem, system heap" : "vgem");
		sibt_report("dmabuf_", names[i]);
	}
}

int main(int argc, char **argv)
{
	bool only[SIBT_ARRAY_SIZE(names)];
	const char *what;
	int rc = sibt_case_args(argc, argv, "sib-dmabuf",
				"Needs vgem (modprobe vgem) or the system dma-buf heap.",
				names,
				SIBT_ARRAY_SIZE(names), only, &devname);

	if (rc >= 0)
		return rc;
	drm = vgem_open();
	heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC);
	if (drm < 0 && heap < 0) {
		errno = ENODEV;
		die("no dma-buf exporter: no vgem DRM node under /dev/dri (modprobe vgem), no /dev/dma_heap/system");
	}
	ctx = sibt_open(devname);
	if (!ctx)
		die("cannot open the device");
	if (sibt_pair_setup(&P, ctx, &what))
		die(what);
	pd = P.pd;
	run_cases(only);
	sibt_pair_free(&P);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	if (drm >= 0)
		close(drm);
	if (heap >= 0)
		close(heap);
	return sibt_any_failed();
}
