// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-ucp: a UCP (UCX) client and server that check every byte they move.
 *
 * The two sides meet on a TCP socket (the control channel): the client sends
 * its settings, both exchange their UCP worker addresses and then only
 * phase markers and mismatch counts go over TCP; every byte under test goes
 * through UCP, on whatever transports UCX_TLS and UCX_NET_DEVICES leave it.
 *
 *   tag     every size 1 B .. --max-size (powers of two and some odd sizes),
 *           --iters messages each, client to server; the server checks each
 *           and sends it back (the echo), which the client checks too
 *   lat     --lat-iters 8-byte tagged round trips (checked): the median
 *   bw      --bw-msgs 1 MiB tagged messages in flight at once (checked)
 *   stream  a byte stream of about 3 MiB in chunks of odd sizes, received in
 *           chunks of other sizes (WAITALL), checked by offset, and back
 *   rma     the server maps a buffer (ucp_mem_map) and sends its address and
 *           packed rkey; the client puts every size at an odd offset (the
 *           server checks the whole region), then gets what the server wrote
 *
 * Each payload depends on the phase, the size, the iteration and the offset.
 * A mismatch is reported as "PHASE: size S iter I: byte B is X, expected Y"
 * and counted; at the end both sides exchange their counts and print
 * "sib-ucp: PASS ..." (exit 0) or "sib-ucp: FAIL ..." (exit 1).  --corrupt
 * flips one byte on purpose (a debug option: proves that the checks fail).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#define SIB_MAGIC 0x5349425543503031ULL /* "SIBUCP01" */
#define SIB_MIB (1024 * 1024)

enum sib_phase { PH_TAG = 1, PH_ECHO, PH_LAT, PH_LAT_BACK, PH_BW, PH_BW_ACK, PH_STREAM,
		 PH_STREAM_BACK, PH_PUT, PH_GET };

/* what --corrupt can flip: one byte, sent by the side that sends that data */
static const char *const sib_corrupt_names[] = { "none", "tag", "echo", "stream", "put", "get" };
enum sib_corrupt { CO_NONE, CO_TAG, CO_ECHO, CO_STREAM, CO_PUT, CO_GET, CO_NR };

struct sib_cfg {
	uint64_t iters, max_size, lat_iters, bw_msgs, corrupt;
};

static struct {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_ep_h ep;
	int fd;
	int timeout;
	int server;
	unsigned long mismatches;
	char first[200];
} sib;

static void sib_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sib-ucp: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static double sib_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ payloads */

static uint64_t sib_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t sib_seed(unsigned int phase, uint64_t size, uint64_t iter)
{
	return sib_mix(((uint64_t)phase << 56) ^ (size << 20) ^ iter);
}

/* byte OFF of the payload SEED: a stream's bytes depend on their offset only */
static void sib_fill(unsigned char *p, size_t len, uint64_t seed, uint64_t off)
{
	size_t i = 0;

	while (i < len) {
		uint64_t w = sib_mix(seed ^ ((off + i) / 8));
		size_t b = (off + i) % 8;

		for (; b < 8 && i < len; b++, i++)
			p[i] = (unsigned char)(w >> (8 * b));
	}
}

static unsigned char *sib_scratch;

/*
 * sib_check: compare P (LEN bytes) with the payload SEED at OFF byte by byte;
 * count and report the first wrong byte.  Returns 0 when all match.
 */
static int sib_check(const char *what, uint64_t size, uint64_t iter, const unsigned char *p,
		     size_t len, uint64_t seed, uint64_t off)
{
	size_t i, done;

	for (done = 0; done < len; done += i) {
		size_t n = len - done < SIB_MIB ? len - done : SIB_MIB;

		sib_fill(sib_scratch, n, seed, off + done);
		for (i = 0; i < n; i++) {
			if (p[done + i] == sib_scratch[i])
				continue;
			sib.mismatches++;
			snprintf(sib.first, sizeof(sib.first),
				 "%s: size %llu iter %llu: byte %zu is 0x%02x, expected 0x%02x", what,
				 (unsigned long long)size, (unsigned long long)iter, done + i,
				 p[done + i], sib_scratch[i]);
			fprintf(stderr, "sib-ucp: mismatch: %s\n", sib.first);
			return -1;
		}
	}
	return 0;
}

/* count a wrong byte seen outside sib_check's payloads */
static void sib_report(const char *what, uint64_t size, size_t at, unsigned int got,
		       unsigned int want)
{
	sib.mismatches++;
	snprintf(sib.first, sizeof(sib.first), "%s: size %llu: byte %zu is 0x%02x, expected 0x%02x",
		 what, (unsigned long long)size, at, got, want);
	fprintf(stderr, "sib-ucp: mismatch: %s\n", sib.first);
}

static void *sib_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		sib_die("out of memory (%zu bytes)", n);
	return p;
}

/* the sizes of the tag and RMA phases: powers of two and some odd ones */
static size_t sib_sizes(uint64_t max, uint64_t *out)
{
	static const uint64_t odd[] = { 3, 17, 1000, 4095, 4097, 65537, 1048575, 3000001 };
	size_t n = 0, o = 0;
	uint64_t s;

	for (s = 1; s <= max; s *= 2) {
		while (o < sizeof(odd) / sizeof(odd[0]) && odd[o] < s) {
			if (odd[o] <= max)
				out[n++] = odd[o];
			o++;
		}
		out[n++] = s;
	}
	for (; o < sizeof(odd) / sizeof(odd[0]); o++)
		if (odd[o] <= max)
			out[n++] = odd[o];
	return n;
}

/* ------------------------------------------------------------ control channel */

static void sib_ctl_write(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(sib.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			sib_die("control socket: write: %s", n ? strerror(errno) : "closed");
		p += n;
		len -= n;
	}
}

/*
 * sib_ctl_read: LEN bytes from the control socket; the worker makes progress
 * meanwhile (RMA that UCX emulates, over UD for one, needs the target's
 * progress while it waits here for the client's word).
 */
static void sib_ctl_read(void *buf, size_t len)
{
	struct pollfd pfd = { .fd = sib.fd, .events = POLLIN };
	double end = sib_now() + 2 * sib.timeout;
	char *p = buf;

	while (len) {
		ssize_t n;

		/* the peer's operations end within --timeout each, or it dies */
		if (poll(&pfd, 1, 0) == 0) {
			if (sib_now() > end)
				sib_die("control socket: no word from the peer in %d s (2 x --timeout)",
					2 * sib.timeout);
			if (sib.worker)
				ucp_worker_progress(sib.worker);
			else
				usleep(1000);
			continue;
		}
		n = read(sib.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			sib_die("control socket: read: %s", strerror(errno));
		if (n == 0)
			sib_die("control socket: the peer closed it (did it fail? see its output)");
		p += n;
		len -= n;
	}
}

static void sib_ctl_put(uint64_t v)
{
	v = htobe64(v);
	sib_ctl_write(&v, sizeof(v));
}

static uint64_t sib_ctl_get(void)
{
	uint64_t v;

	sib_ctl_read(&v, sizeof(v));
	return be64toh(v);
}

/* both sides reach marker PHASE; returns the peer's mismatch count so far */
static uint64_t sib_sync(unsigned int phase)
{
	uint64_t p, m;

	sib_ctl_put(phase);
	sib_ctl_put(sib.mismatches);
	p = sib_ctl_get();
	m = sib_ctl_get();
	if (p != phase)
		sib_die("control socket: at phase %u the peer is at phase %llu", phase,
			(unsigned long long)p);
	return m;
}

static void sib_ctl_blob_put(const void *p, size_t len)
{
	sib_ctl_put(len);
	sib_ctl_write(p, len);
}

static void *sib_ctl_blob_get(size_t *len)
{
	uint64_t n = sib_ctl_get();
	void *p;

	if (n > 1 << 20)
		sib_die("control socket: a blob of %llu bytes", (unsigned long long)n);
	p = sib_alloc(n);
	sib_ctl_read(p, n);
	*len = n;
	return p;
}

static int sib_listen_accept(const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *res, *ai;
	int fd = -1, one = 1, err, c;

	err = getaddrinfo(NULL, port, &hints, &res);
	if (err)
		sib_die("port %s: %s", port, gai_strerror(err));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 1))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		sib_die("cannot listen on TCP port %s: %s", port, strerror(errno));
	printf("sib-ucp: server listening on TCP port %s\n", port);
	fflush(stdout);
	c = accept(fd, NULL, NULL);
	if (c < 0)
		sib_die("accept: %s", strerror(errno));
	close(fd);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return c;
}

static int sib_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1, one = 1, err, tries;

	err = getaddrinfo(host, port, &hints, &res);
	if (err)
		sib_die("%s port %s: %s", host, port, gai_strerror(err));
	/* the server may start a moment later: a refused connection is tried again */
	for (tries = 0; fd < 0 && tries < 10 * sib.timeout; tries++) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype, 0);
			if (fd < 0)
				continue;
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				break;
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			usleep(100000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		sib_die("cannot connect to %s port %s: %s", host, port, strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ------------------------------------------------------------------ UCP */

static void sib_ucp_check(ucs_status_t st, const char *what)
{
	if (st != UCS_OK)
		sib_die("%s: %s", what, ucs_status_string(st));
}

/*
 * sib_wait: progress the worker until REQ (from a *_nbx call) completes;
 * a tag receive's information goes to INFO.  Dies on an error or after
 * --timeout seconds, naming WHAT.
 */
static void sib_wait(ucs_status_ptr_t req, const char *what, ucp_tag_recv_info_t *info)
{
	double end = sib_now() + sib.timeout;
	ucs_status_t st;
	unsigned int n = 0;

	if (req == NULL)
		return;
	if (UCS_PTR_IS_ERR(req))
		sib_die("%s: %s", what, ucs_status_string(UCS_PTR_STATUS(req)));
	for (;;) {
		st = info ? ucp_tag_recv_request_test(req, info) : ucp_request_check_status(req);
		if (st != UCS_INPROGRESS)
			break;
		ucp_worker_progress(sib.worker);
		/* (one progress call can take milliseconds in a loaded guest) */
		if (!(++n & 0xf) && sib_now() > end)
			sib_die("%s: no completion in %d s (--timeout)", what, sib.timeout);
	}
	ucp_request_free(req);
	if (st != UCS_OK)
		sib_die("%s: %s", what, ucs_status_string(st));
}

static ucp_tag_t sib_tag(unsigned int phase, uint64_t size, uint64_t iter)
{
	return ((uint64_t)phase << 56) | (size << 24) | (iter & 0xffffff);
}

static void sib_tag_send(const void *p, size_t len, ucp_tag_t tag, const char *what)
{
	ucp_request_param_t prm = { .op_attr_mask = 0 };

	sib_wait(ucp_tag_send_nbx(sib.ep, p, len, tag, &prm), what, NULL);
}

/* a tagged message of exactly LEN bytes into P; its length checked */
static void sib_tag_recv(void *p, size_t len, ucp_tag_t tag, const char *what)
{
	ucp_tag_recv_info_t info = { 0 };
	/* a request always: ucp_tag_recv_request_test() says the length and tag */
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FLAG_NO_IMM_CMPL };
	ucs_status_ptr_t r = ucp_tag_recv_nbx(sib.worker, p, len, tag, ~(ucp_tag_t)0, &prm);

	if (!UCS_PTR_IS_PTR(r) && !UCS_PTR_IS_ERR(r))
		sib_die("%s: completed at once despite UCP_OP_ATTR_FLAG_NO_IMM_CMPL", what);
	sib_wait(r, what, &info);
	if (info.length != len || info.sender_tag != tag)
		sib_die("%s: received %zu bytes with tag 0x%llx, expected %zu with 0x%llx", what,
			info.length, (unsigned long long)info.sender_tag, len,
			(unsigned long long)tag);
}

static void sib_flip(unsigned char *p, size_t len, const char *what)
{
	if (!len)
		return;
	p[len / 2] ^= 0x5a;
	fprintf(stderr, "sib-ucp: --corrupt: flipped byte %zu of the %s payload (%zu bytes)\n",
		len / 2, what, len);
}

/* ------------------------------------------------------------------ phases */

/* which message --corrupt tag/echo flips: the first of at least 4 KiB */
static int sib_victim(uint64_t size, uint64_t iter, uint64_t max)
{
	return iter == 0 && size == (max < 4096 ? max : 4096);
}

static void sib_phase_tag(const struct sib_cfg *c, const uint64_t *sizes, size_t ns,
			  unsigned char *buf, unsigned char *back)
{
	size_t k;
	uint64_t it;

	for (k = 0; k < ns; k++) {
		uint64_t s = sizes[k];

		for (it = 0; it < c->iters; it++) {
			uint64_t seed = sib_seed(PH_TAG, s, it);
			char what[64];

			snprintf(what, sizeof(what), "tag and echo of %llu B, iter %llu",
				 (unsigned long long)s, (unsigned long long)it);
			if (!sib.server) {
				sib_fill(buf, s, seed, 0);
				if (c->corrupt == CO_TAG && sib_victim(s, it, c->max_size))
					sib_flip(buf, s, "tag");
				sib_tag_send(buf, s, sib_tag(PH_TAG, s, it), what);
				memset(back, 0xee, s);
				sib_tag_recv(back, s, sib_tag(PH_ECHO, s, it), what);
				sib_check("echo", s, it, back, s, seed, 0);
			} else {
				memset(buf, 0xee, s);
				sib_tag_recv(buf, s, sib_tag(PH_TAG, s, it), what);
				sib_check("tag", s, it, buf, s, seed, 0);
				if (c->corrupt == CO_ECHO && sib_victim(s, it, c->max_size))
					sib_flip(buf, s, "echo");
				sib_tag_send(buf, s, sib_tag(PH_ECHO, s, it), what);
			}
		}
	}
}

static int sib_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* 8-byte round trips; returns the median in microseconds (client) */
static double sib_phase_lat(const struct sib_cfg *c)
{
	unsigned char out[8], in[8];
	double *t = sib_alloc(c->lat_iters * sizeof(double)), med = 0;
	uint64_t it;
	const uint64_t warm = 10;

	for (it = 0; it < c->lat_iters + warm; it++) {
		uint64_t seed = sib_seed(PH_LAT, 8, it);
		double t0 = sib_now();

		if (!sib.server) {
			sib_fill(out, 8, seed, 0);
			sib_tag_send(out, 8, sib_tag(PH_LAT, 8, it), "latency send");
			sib_tag_recv(in, 8, sib_tag(PH_LAT_BACK, 8, it), "latency receive");
			if (it >= warm)
				t[it - warm] = sib_now() - t0;
			sib_check("lat", 8, it, in, 8, sib_seed(PH_LAT_BACK, 8, it), 0);
		} else {
			sib_tag_recv(in, 8, sib_tag(PH_LAT, 8, it), "latency receive");
			sib_fill(out, 8, sib_seed(PH_LAT_BACK, 8, it), 0);
			sib_tag_send(out, 8, sib_tag(PH_LAT_BACK, 8, it), "latency send");
			sib_check("lat", 8, it, in, 8, seed, 0);
		}
	}
	if (!sib.server && c->lat_iters) {
		qsort(t, c->lat_iters, sizeof(double), sib_cmp_dbl);
		med = t[c->lat_iters / 2] * 1e6;
	}
	free(t);
	return med;
}

/* --bw-msgs 1 MiB messages in flight together; returns MB/s (client) */
static double sib_phase_bw(const struct sib_cfg *c)
{
	size_t n = c->bw_msgs, i;
	ucs_status_ptr_t *req = sib_alloc(n * sizeof(*req));
	ucp_tag_recv_info_t *info = sib_alloc(n * sizeof(*info));
	unsigned char *buf = sib_alloc(n * SIB_MIB), ack[8] = { 0 };
	ucp_request_param_t prm = { .op_attr_mask = 0 };
	double t0 = sib_now(), mbs = 0;

	if (!sib.server) {
		for (i = 0; i < n; i++)
			sib_fill(buf + i * SIB_MIB, SIB_MIB, sib_seed(PH_BW, SIB_MIB, i), 0);
		sib_sync(PH_BW);
		t0 = sib_now();
		for (i = 0; i < n; i++)
			req[i] = ucp_tag_send_nbx(sib.ep, buf + i * SIB_MIB, SIB_MIB,
						  sib_tag(PH_BW, SIB_MIB, i), &prm);
		for (i = 0; i < n; i++)
			sib_wait(req[i], "bandwidth send", NULL);
		sib_tag_recv(ack, 8, sib_tag(PH_BW_ACK, 8, 0), "bandwidth ack");
		mbs = n * (double)SIB_MIB / (sib_now() - t0) / 1e6;
	} else {
		memset(buf, 0xee, n * SIB_MIB);
		for (i = 0; i < n; i++) {
			ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FLAG_NO_IMM_CMPL };

			req[i] = ucp_tag_recv_nbx(sib.worker, buf + i * SIB_MIB, SIB_MIB,
						  sib_tag(PH_BW, SIB_MIB, i), ~(ucp_tag_t)0, &rp);
		}
		sib_sync(PH_BW);
		for (i = 0; i < n; i++) {
			if (!UCS_PTR_IS_PTR(req[i]) && !UCS_PTR_IS_ERR(req[i]))
				sib_die("bandwidth receive: completed at once");
			sib_wait(req[i], "bandwidth receive", &info[i]);
			if (info[i].length != SIB_MIB)
				sib_die("bandwidth receive: message %zu has %zu bytes", i, info[i].length);
		}
		sib_tag_send(ack, 8, sib_tag(PH_BW_ACK, 8, 0), "bandwidth ack");
		for (i = 0; i < n; i++)
			sib_check("bw", SIB_MIB, i, buf + i * SIB_MIB, SIB_MIB,
				  sib_seed(PH_BW, SIB_MIB, i), 0);
	}
	free(buf);
	free(info);
	free(req);
	return mbs;
}

/* the stream's total length and the chunk sizes of sender and receiver */
#define SIB_STREAM_LEN (3 * SIB_MIB + 12345)
static const size_t sib_send_chunks[] = { 1, 7, 4096, 65536, 100000, 1, 524288, 3 };
static const size_t sib_recv_chunks[] = { 5, 65537, 2, 8192, 262143, 13, 1000001 };

static void sib_stream_send(unsigned char *buf, unsigned int phase, int corrupt)
{
	ucp_request_param_t prm = { .op_attr_mask = 0 };
	size_t off = 0, k = 0;

	sib_fill(buf, SIB_STREAM_LEN, sib_seed(phase, 0, 0), 0);
	if (corrupt)
		sib_flip(buf + SIB_STREAM_LEN / 3, 1, "stream");
	while (off < SIB_STREAM_LEN) {
		size_t n = sib_send_chunks[k++ % (sizeof(sib_send_chunks) / sizeof(size_t))];

		if (n > SIB_STREAM_LEN - off)
			n = SIB_STREAM_LEN - off;
		sib_wait(ucp_stream_send_nbx(sib.ep, buf + off, n, &prm), "stream send", NULL);
		off += n;
	}
}

static void sib_stream_recv(unsigned char *buf, unsigned int phase, const char *what)
{
	size_t off = 0, k = 0, len;
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				    .flags = UCP_STREAM_RECV_FLAG_WAITALL };
	ucs_status_ptr_t r;

	memset(buf, 0xee, SIB_STREAM_LEN);
	while (off < SIB_STREAM_LEN) {
		size_t n = sib_recv_chunks[k++ % (sizeof(sib_recv_chunks) / sizeof(size_t))];

		if (n > SIB_STREAM_LEN - off)
			n = SIB_STREAM_LEN - off;
		len = 0;
		r = ucp_stream_recv_nbx(sib.ep, buf + off, n, &len, &prm);
		if (UCS_PTR_IS_PTR(r)) {
			double end = sib_now() + sib.timeout;
			ucs_status_t st;

			while ((st = ucp_stream_recv_request_test(r, &len)) == UCS_INPROGRESS) {
				ucp_worker_progress(sib.worker);
				if (sib_now() > end)
					sib_die("stream receive: no completion in %d s", sib.timeout);
			}
			ucp_request_free(r);
			sib_ucp_check(st, "stream receive");
		} else {
			sib_ucp_check(UCS_PTR_STATUS(r), "stream receive");
		}
		if (len != n)
			sib_die("stream receive: %zu bytes at offset %zu, asked for %zu (WAITALL)",
				len, off, n);
		off += n;
	}
	sib_check(what, SIB_STREAM_LEN, 0, buf, SIB_STREAM_LEN, sib_seed(phase, 0, 0), 0);
}

static void sib_phase_stream(const struct sib_cfg *c)
{
	unsigned char *buf = sib_alloc(SIB_STREAM_LEN);

	if (!sib.server) {
		sib_stream_send(buf, PH_STREAM, c->corrupt == CO_STREAM);
		sib_stream_recv(buf, PH_STREAM_BACK, "stream back");
	} else {
		sib_stream_recv(buf, PH_STREAM, "stream");
		sib_stream_send(buf, PH_STREAM_BACK, 0);
	}
	free(buf);
}

static ucp_mem_h sib_map(void *p, size_t len)
{
	ucp_mem_map_params_t mp = {
		.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
		.address = p, .length = len,
	};
	ucp_mem_h mh;

	sib_ucp_check(ucp_mem_map(sib.ctx, &mp, &mh), "ucp_mem_map");
	return mh;
}

/* where size S goes in the remote region: an odd offset that keeps it inside */
static uint64_t sib_rma_off(uint64_t s, uint64_t region)
{
	uint64_t room = region - s;

	return room ? (s * 7 + 13) % (room < 4096 ? room + 1 : 4096) : 0;
}

static void sib_phase_rma(const struct sib_cfg *c, const uint64_t *sizes, size_t ns)
{
	uint64_t region = c->max_size + 4096, k, addr = 0;
	unsigned char *buf = sib_alloc(region);
	ucp_mem_h mh = sib_map(buf, region);
	ucp_request_param_t prm = { .op_attr_mask = 0 };
	ucp_rkey_h rkey = NULL;
	void *rk;
	size_t rklen;

	if (sib.server) {
		sib_ucp_check(ucp_rkey_pack(sib.ctx, mh, &rk, &rklen), "ucp_rkey_pack");
		sib_ctl_put((uintptr_t)buf);
		sib_ctl_blob_put(rk, rklen);
		ucp_rkey_buffer_release(rk);
	} else {
		addr = sib_ctl_get();
		rk = sib_ctl_blob_get(&rklen);
		sib_ucp_check(ucp_ep_rkey_unpack(sib.ep, rk, &rkey), "ucp_ep_rkey_unpack");
		free(rk);
	}
	for (k = 0; k < ns; k++) {
		uint64_t s = sizes[k], off = sib_rma_off(s, region);
		uint64_t pseed = sib_seed(PH_PUT, s, 0), gseed = sib_seed(PH_GET, s, 0);

		/* put: the client writes the payload at off; the server checks the region */
		if (sib.server) {
			memset(buf, 0xee, region);
			sib_sync(PH_PUT);
			if (sib_ctl_get() != 1) /* the client's put and flush are done */
				sib_die("control socket: no end of put");
			sib_check("put", s, 0, buf + off, s, pseed, 0);
			/* and nothing around the target was written */
			if (off && buf[off - 1] != 0xee)
				sib_report("put (the byte before)", s, off - 1, buf[off - 1], 0xee);
			if (off + s < region && buf[off + s] != 0xee)
				sib_report("put (the byte after)", s, off + s, buf[off + s], 0xee);
			/* get: the server writes the payload, the client reads it */
			sib_fill(buf + off, s, gseed, 0);
			if (c->corrupt == CO_GET && sib_victim(s, 0, c->max_size))
				sib_flip(buf + off, s, "get");
			sib_sync(PH_GET);
			if (sib_ctl_get() != 2) /* the client's get is done */
				sib_die("control socket: no end of get");
		} else {
			sib_fill(buf, s, pseed, 0);
			if (c->corrupt == CO_PUT && sib_victim(s, 0, c->max_size))
				sib_flip(buf, s, "put");
			sib_sync(PH_PUT);
			prm.op_attr_mask = UCP_OP_ATTR_FIELD_MEMH;
			prm.memh = mh;
			sib_wait(ucp_put_nbx(sib.ep, buf, s, addr + off, rkey, &prm), "put", NULL);
			prm.op_attr_mask = 0;
			sib_wait(ucp_ep_flush_nbx(sib.ep, &prm), "flush after put", NULL);
			sib_ctl_put(1);
			sib_sync(PH_GET);
			memset(buf, 0xee, s);
			prm.op_attr_mask = UCP_OP_ATTR_FIELD_MEMH;
			prm.memh = mh;
			sib_wait(ucp_get_nbx(sib.ep, buf, s, addr + off, rkey, &prm), "get", NULL);
			prm.op_attr_mask = 0;
			sib_ctl_put(2);
			sib_check("get", s, 0, buf, s, gseed, 0);
		}
	}
	sib_sync(PH_GET);
	if (rkey)
		ucp_rkey_destroy(rkey);
	ucp_mem_unmap(sib.ctx, mh);
	free(buf);
}

/* ------------------------------------------------------------------ setup */

static void sib_ucp_init(void)
{
	ucp_params_t p = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_TAG | UCP_FEATURE_STREAM | UCP_FEATURE_RMA,
	};
	ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	ucp_config_t *cfg;
	ucp_address_t *addr;
	size_t alen, plen;
	void *peer;
	ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS };

	sib_ucp_check(ucp_config_read(NULL, NULL, &cfg), "ucp_config_read");
	sib_ucp_check(ucp_init(&p, cfg, &sib.ctx), "ucp_init");
	ucp_config_release(cfg);
	sib_ucp_check(ucp_worker_create(sib.ctx, &wp, &sib.worker), "ucp_worker_create");
	sib_ucp_check(ucp_worker_get_address(sib.worker, &addr, &alen), "ucp_worker_get_address");
	sib_ctl_blob_put(addr, alen);
	peer = sib_ctl_blob_get(&plen);
	ucp_worker_release_address(sib.worker, addr);
	ep.address = peer;
	sib_ucp_check(ucp_ep_create(sib.worker, &ep, &sib.ep), "ucp_ep_create");
	free(peer);
}

static void sib_ucp_fini(void)
{
	ucp_request_param_t prm = { .op_attr_mask = 0 };

	sib_sync(PH_GET + 1);
	sib_wait(ucp_ep_close_nbx(sib.ep, &prm), "ucp_ep_close_nbx", NULL);
	sib_sync(PH_GET + 2);
	ucp_worker_destroy(sib.worker);
	ucp_cleanup(sib.ctx);
}

static uint64_t sib_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'k' || *end == 'K')
		mul = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mul = SIB_MIB, end++;
	if (errno || end == s || *end || *s == '-' || v > max / mul || v * mul < min)
		sib_die("--%s %s: not a number from %llu to %llu", opt, s, (unsigned long long)min,
			(unsigned long long)max);
	return v * mul;
}

/* one line per phase: how far a run got, and when */
static void sib_done(const char *phase, double t0)
{
	printf("sib-ucp: %s done at %.1f s, %lu mismatch(es) so far\n", phase, sib_now() - t0,
	       sib.mismatches);
}

static void sib_usage(FILE *f)
{
	fprintf(f,
		"Usage: sib-ucp --server [--port N] [--timeout S] [--info]\n"
		"       sib-ucp --client HOST [--port N] [--timeout S] [--iters N] [--max-size BYTES]\n"
		"               [--lat-iters N] [--bw-msgs N] [--corrupt tag|echo|stream|put|get] [--info]\n"
		"Moves checked data over UCP between a server and a client that meet on TCP port N\n"
		"(default 13339): tagged messages of every size 1 B .. --max-size (default 4M) with\n"
		"an echo (--iters each, default 4), 8-byte round trips (--lat-iters, default 1000),\n"
		"1 MiB messages in flight (--bw-msgs, default 16), a stream of 3 MiB both ways, and\n"
		"RMA put and get into a buffer the server maps.  The client's settings apply to both\n"
		"sides.  UCX_TLS and UCX_NET_DEVICES choose the transports.  --corrupt flips one\n"
		"byte of that kind of payload on purpose (the checks must then fail); --info prints\n"
		"the endpoint's lanes (ucp_ep_print_info: which transport and device carried what).\n"
		"Prints \"sib-ucp: PASS ...\" and exits 0, or \"sib-ucp: FAIL ...\" (a mismatch: where)\n"
		"and exits 1; 2 on a usage or setup error.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", no_argument, NULL, 's' },  { "client", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' }, { "timeout", required_argument, NULL, 't' },
		{ "iters", required_argument, NULL, 'i' }, { "max-size", required_argument, NULL, 'm' },
		{ "lat-iters", required_argument, NULL, 'l' }, { "bw-msgs", required_argument, NULL, 'b' },
		{ "corrupt", required_argument, NULL, 'x' }, { "info", no_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sib_cfg c = { .iters = 4, .max_size = 4 * SIB_MIB, .lat_iters = 1000, .bw_msgs = 16 };
	const char *host = NULL, *port = "13339";
	uint64_t sizes[64], peer_bad, v;
	size_t ns;
	unsigned char *buf, *back;
	double lat, mbs, t0;
	int o, i, role = 0, info = 0;
	char *peer_first;
	size_t plen;

	sib.timeout = 60;
	opterr = 0;
	/* a line at a time: a run killed from outside still shows how far it got */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "sc:p:t:i:m:l:b:x:Ih", opts, NULL)) != -1) {
		switch (o) {
		case 's': role |= 1; break;
		case 'c': role |= 2; host = optarg; break;
		case 'p': sib_num("port", optarg, 1, 65535); port = optarg; break;
		case 't': sib.timeout = sib_num("timeout", optarg, 1, 3600); break;
		case 'i': c.iters = sib_num("iters", optarg, 1, 1000); break;
		case 'm': c.max_size = sib_num("max-size", optarg, 1, 64 * SIB_MIB); break;
		case 'l': c.lat_iters = sib_num("lat-iters", optarg, 1, 1000000); break;
		case 'b': c.bw_msgs = sib_num("bw-msgs", optarg, 1, 256); break;
		case 'x':
			for (i = 1; i < CO_NR && strcmp(optarg, sib_corrupt_names[i]); i++)
				;
			if (i == CO_NR)
				sib_die("--corrupt %s: not one of tag, echo, stream, put, get", optarg);
			c.corrupt = i;
			break;
		case 'I': info = 1; break;
		case 'h': sib_usage(stdout); return 0;
		default:
			if (optopt && strchr("cptimlbx", optopt))
				fprintf(stderr, "sib-ucp: %s needs a value (--help)\n", argv[optind - 1]);
			else
				fprintf(stderr, "sib-ucp: unknown option '%s' or no value for it (--help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc || (role != 1 && role != 2)) {
		if (optind < argc)
			fprintf(stderr, "sib-ucp: unexpected argument '%s' (--help)\n", argv[optind]);
		else
			fprintf(stderr, "sib-ucp: give one of --server and --client HOST (--help)\n");
		return 2;
	}
	sib.server = role == 1;
	if (sib.server && (c.corrupt || c.iters != 4 || c.max_size != 4 * SIB_MIB))
		fprintf(stderr, "sib-ucp: the server takes its settings from the client\n");

	sib.fd = sib.server ? sib_listen_accept(port) : sib_connect(host, port);
	if (sib.server) {
		if (sib_ctl_get() != SIB_MAGIC)
			sib_die("control socket: the peer is not a sib-ucp client");
		c.iters = sib_ctl_get();
		c.max_size = sib_ctl_get();
		c.lat_iters = sib_ctl_get();
		c.bw_msgs = sib_ctl_get();
		c.corrupt = sib_ctl_get();
		if (!c.iters || c.iters > 1000 || !c.max_size || c.max_size > 64 * SIB_MIB ||
		    !c.lat_iters || c.lat_iters > 1000000 || !c.bw_msgs || c.bw_msgs > 256 ||
		    c.corrupt >= CO_NR)
			sib_die("control socket: the client's settings are out of range");
	} else {
		sib_ctl_put(SIB_MAGIC);
		sib_ctl_put(c.iters);
		sib_ctl_put(c.max_size);
		sib_ctl_put(c.lat_iters);
		sib_ctl_put(c.bw_msgs);
		sib_ctl_put(c.corrupt);
	}
	ns = sib_sizes(c.max_size, sizes);
	sib_scratch = sib_alloc(SIB_MIB);
	buf = sib_alloc(c.max_size);
	back = sib_alloc(c.max_size);

	sib_ucp_init();
	t0 = sib_now();
	sib_sync(PH_TAG);
	sib_phase_tag(&c, sizes, ns, buf, back);
	sib_done("tag and echo", t0);
	sib_sync(PH_LAT);
	lat = sib_phase_lat(&c);
	sib_done("8 B round trips", t0);
	mbs = sib_phase_bw(&c);
	sib_done("1 MiB bandwidth", t0);
	sib_sync(PH_STREAM);
	sib_phase_stream(&c);
	sib_done("stream", t0);
	sib_sync(PH_PUT - 1);
	sib_phase_rma(&c, sizes, ns);
	sib_done("put and get", t0);
	peer_bad = sib_sync(PH_GET + 3);
	v = (uint64_t)(sib_now() - t0);
	if (info)
		ucp_ep_print_info(sib.ep, stdout);
	/* each side says where its first mismatch was */
	sib_ctl_blob_put(sib.first, strlen(sib.first) + 1);
	peer_first = sib_ctl_blob_get(&plen);
	peer_first[plen ? plen - 1 : 0] = 0;
	sib_ucp_fini();

	if (sib.mismatches || peer_bad) {
		printf("sib-ucp: FAIL %s: %lu mismatch(es) here, %llu on the %s; first: %s\n",
		       sib.server ? "server" : "client", sib.mismatches,
		       (unsigned long long)peer_bad, sib.server ? "client" : "server",
		       sib.mismatches ? sib.first : peer_first);
		return 1;
	}
	free(peer_first);
	if (sib.server)
		printf("sib-ucp: PASS server: every byte received matched (%zu sizes to %llu B)\n",
		       ns, (unsigned long long)c.max_size);
	else
		printf("sib-ucp: PASS tag %zu sizes 1 B..%llu B x %llu + echo, stream %d B both ways, "
		       "put/get %zu sizes; 8 B round trip %.1f us, 1 MiB tag %.1f MB/s (%llu s)\n",
		       ns, (unsigned long long)c.max_size, (unsigned long long)c.iters,
		       SIB_STREAM_LEN, ns, lat, mbs, (unsigned long long)v);
	free(buf);
	free(back);
	free(sib_scratch);
	close(sib.fd);
	return 0;
}
