// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * smc-xfer: one verified transfer over an AF_SMC socket (the kernel's SMC
 * protocol, net/smc), and a check of how the kernel carried it.
 *
 * The server (-s) accepts one connection on an AF_SMC socket; the client
 * (-c ADDR) connects to it and sends a header and N MiB of a pattern that
 * both sides compute from the byte offset and a seed. The server checks
 * every byte and replies with what it counted and a checksum, which the
 * client compares with its own. SMC falls back to TCP silently when it finds
 * no usable RDMA device (or the peer declines), so before closing, each side
 * asks the kernel how its own socket was carried (smc_diag over
 * NETLINK_SOCK_DIAG: mode SMC-R / SMC-D / TCP fallback with the fallback
 * reason, and the RDMA device of the link) and fails on a fallback unless
 * --allow-fallback is given.
 *
 * SMC-Rv2 (Linux 5.17+; the only SMC-R a RoCE v2 device can do: v1 needs a
 * RoCE v1 GID) is proposed only when a user-defined EID (UEID) is set, and
 * accepted only when the peer has the same one: --add-ueid / --del-ueid set
 * it through the SMC_GEN_NETLINK generic netlink family (what smc-tools'
 * `smcr ueid add` does).
 *
 * Once connected, each side prints how its socket is carried ("client:
 * connected ...", "server: accepted ..."), then one line of result:
 *   smc-xfer client: ok|FAIL <bytes> bytes ... mode SMCR dev sib1 port 1
 * Exit status: 0 when the data was verified (and carried by SMC unless
 * --allow-fallback); 1 on a failed check (a wrong byte, a reply that does
 * not match, a fallback); 2 on bad usage; 3 when the connection failed (connect,
 * read or write error, closed by the peer before the end) and every byte the
 * server had received was right; 4 on the timeout (-t). A connection cut by a
 * link failure thus ends 3 on both sides, never 0 with wrong data.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
/* the protocol argument of socket(AF_SMC, ...) for an IPv4 handshake
 * (SMCPROTO_SMC in net/smc/smc.h, not in uapi; 1 is IPv6) */
#define XFER_SMCPROTO_SMC	0	/* IPv4 */

#define XFER_MAGIC	"SMCXFER1"
#define XFER_OK		"SMCXOK\0\0"
#define XFER_BAD	"SMCXBAD\0"
#define XFER_CHUNK	(64 * 1024)
#define XFER_MAX_MIB	4096
#define XFER_EID_LEN	32	/* SMC_MAX_EID_LEN */

/* exit statuses (see the head comment) */
#define XFER_EXIT_OK		0
#define XFER_EXIT_CHECK		1
#define XFER_EXIT_USAGE		2
#define XFER_EXIT_CONN		3
#define XFER_EXIT_TIMEOUT	4

/* what the client sends first; all integers big-endian on the wire */
struct xfer_hdr {
	char magic[8];
	uint64_t bytes;
	uint64_t seed;
	uint64_t reserved;	/* 0 */
};

/* the server's answer */
struct xfer_reply {
	char magic[8];		/* XFER_OK or XFER_BAD */
	uint64_t bytes;		/* bytes received */
	uint64_t csum;		/* checksum of what was received */
	uint64_t bad_off;	/* first byte that differed, or UINT64_MAX */
};

static struct {
	bool server, allow_fallback;
	const char *addr;
	unsigned int port, mib, timeout;
	const char *ueid_add, *ueid_del;
} opt = { .port = 7771, .mib = 4, .timeout = 60 };

static const char *role = "smc-xfer";

/* the transfer's progress, for the timeout's message (read by on_alarm) */
static volatile uint64_t xfer_done, xfer_total;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: smc-xfer -s [-p PORT] [-t SECONDS] [--allow-fallback]\n"
"       smc-xfer -c ADDR [-p PORT] [-m MIB] [-t SECONDS] [--allow-fallback]\n"
"       smc-xfer --add-ueid EID | --del-ueid EID\n"
"\n"
"One transfer over an AF_SMC socket (the kernel's SMC, net/smc), verified byte\n"
"by byte, and a check that SMC carried it (not its silent TCP fallback).\n"
"  -s, --server          accept one connection on PORT, receive, verify, reply\n"
"  -c, --connect ADDR    connect to the server at IPv4 address ADDR and send\n"
"  -p, --port PORT       TCP port of the handshake (default 7771)\n"
"  -m, --mib N           MiB the client sends (1..%d, default 4)\n"
"  -t, --timeout S       give up after S seconds (1..3600, default 60)\n"
"  -a, --allow-fallback  pass when SMC fell back to TCP (the data is still checked)\n"
"      --add-ueid EID    add a user-defined EID (SMC-Rv2 is proposed only with one,\n"
"                        and accepted only when both hosts have the same): 1..32\n"
"                        characters A-Z 0-9 . -, beginning with A-Z or 0-9\n"
"      --del-ueid EID    remove it\n"
"  -h, --help            this text\n"
"Prints how the connection is carried once it is up (\"... connected|accepted ...;\n"
"mode SMCR dev <ibdev> port N\", or fallback TCP with the SMC decline reason),\n"
"then one result line (\"smc-xfer server|client: ok|FAIL ...\") with the bytes and\n"
"the MB/s. Exit status 0 iff the data was verified and (without -a) SMC carried\n"
"it; 1 on a wrong byte, a reply that does not match or a fallback; 2 on bad\n"
"usage; 3 when the connection failed (an error or an early close: a link\n"
"failure) with every byte the server received right (its line says how many);\n"
"4 on the timeout.\n",
		XFER_MAX_MIB);
}

static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ------------------------------------------------------------ the pattern */

/* the 64-bit word at word index @w of the stream for @seed (splitmix64) */
static uint64_t pattern_word(uint64_t seed, uint64_t w)
{
	uint64_t z = seed + (w + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* fill @len bytes (a multiple of 8) of the stream from byte offset @off */
static void pattern_fill(unsigned char *buf, size_t len, uint64_t seed,
			 uint64_t off)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = pattern_word(seed, (off + i) / 8);

		memcpy(buf + i, &v, 8);
	}
}

/* a running checksum of the stream (FNV-1a over 64-bit words) */
static uint64_t csum_update(uint64_t h, const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v;

		memcpy(&v, buf + i, 8);
		h = (h ^ v) * 0x100000001b3ull;
	}
	return h;
}
#define CSUM_INIT 0xcbf29ce484222325ull

/* ------------------------------------------------------------ socket I/O */

/* 0, or -1 with errno; the bytes written into *@done when not NULL */
static int write_full(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;

	if (done)
		*done = 0;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
		if (done)
			*done += n;
	}
	return 0;
}

/* 0, or -1 with errno (0 when the peer closed first); the bytes read into
 * *@done when not NULL (what a failed read leaves is still checked) */
static int read_full(int fd, void *buf, size_t len, size_t *done)
{
	char *p = buf;

	if (done)
		*done = 0;
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
		if (done)
			*done += n;
	}
	return 0;
}

/* @v in decimal at the end of @end (async-signal-safe); its first character */
static char *u64_str(uint64_t v, char *end)
{
	*--end = '\0';
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

static void on_alarm(int sig)
{
	char m[160], n1[24], n2[24], n3[24];
	const char *parts[] = {
		role, ": FAIL timeout after ", u64_str(opt.timeout, n1 + sizeof(n1)),
		" s, ", u64_str(xfer_done, n2 + sizeof(n2)), " of ",
		u64_str(xfer_total, n3 + sizeof(n3)), " bytes\n",
	};
	size_t len = 0;

	(void)sig;
	/* async-signal-safe: no stdio, write and _exit only */
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strlen(parts[i]);

		if (len + l >= sizeof(m))
			break;
		memcpy(m + len, parts[i], l);
		len += l;
	}
	if (write(STDOUT_FILENO, m, len) < 0)
		_exit(XFER_EXIT_TIMEOUT);
	_exit(XFER_EXIT_TIMEOUT);
}

/* ------------------------------------------------------------ smc_diag */

struct smc_mode {
	bool found;
	int mode;			/* SMC_DIAG_MODE_* */
	uint32_t reason, peer_diag;	/* SMC_DIAG_FALLBACK */
	bool have_link;
	char ibdev[IB_DEVICE_NAME_MAX + 1];
	unsigned int ibport;
	char err[128];
};

static void diag_parse(const struct nlmsghdr *nh, struct smc_mode *m)
{
	const struct smc_diag_msg *r = NLMSG_DATA(nh);
	size_t len = NLMSG_PAYLOAD(nh, 0), off = NLMSG_ALIGN(sizeof(*r));

	m->found = true;
	m->mode = r->diag_mode;
	while (off + sizeof(struct nlattr) <= len) {
		const struct nlattr *a = (const void *)((const char *)r + off);
		size_t alen = a->nla_len;
		const void *p = (const char *)a + NLA_HDRLEN;

		if (alen < NLA_HDRLEN || off + alen > len)
			break;
		alen -= NLA_HDRLEN;
		if (a->nla_type == SMC_DIAG_FALLBACK &&
		    alen >= sizeof(struct smc_diag_fallback)) {
			struct smc_diag_fallback fb;

			memcpy(&fb, p, sizeof(fb));
			m->reason = fb.reason;
			m->peer_diag = fb.peer_diagnosis;
		} else if (a->nla_type == SMC_DIAG_LGRINFO &&
			   alen >= sizeof(struct smc_diag_lgrinfo)) {
			struct smc_diag_lgrinfo li;

			memcpy(&li, p, sizeof(li));
			memcpy(m->ibdev, li.lnk[0].ibname, IB_DEVICE_NAME_MAX);
			m->ibdev[IB_DEVICE_NAME_MAX] = '\0';
			m->ibport = li.lnk[0].ibport;
			m->have_link = true;
		}
		off += NLA_ALIGN(a->nla_len);
	}
}

/* how the kernel carries the AF_SMC socket @fd: a dump of all SMC sockets
 * (smc_diag has no lookup of one), matched by inode */
static void smc_mode_of(int fd, struct smc_mode *m)
{
	struct {
		struct nlmsghdr nh;
		struct smc_diag_req req;
	} q = {
		.nh.nlmsg_len = sizeof(q),
		.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nh.nlmsg_seq = 1,
		.req.diag_family = AF_SMC,
		.req.diag_ext = (1 << (SMC_DIAG_LGRINFO - 1)) |
				(1 << (SMC_DIAG_FALLBACK - 1)),
	};
	static char buf[32768] __attribute__((aligned(8)));
	struct stat st;
	int nl;
	bool done = false;

	memset(m, 0, sizeof(*m));
	if (fstat(fd, &st)) {
		snprintf(m->err, sizeof(m->err), "fstat: %s", strerror(errno));
		return;
	}
	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0) {
		snprintf(m->err, sizeof(m->err), "NETLINK_SOCK_DIAG: %s",
			 strerror(errno));
		return;
	}
	if (send(nl, &q, sizeof(q), 0) < 0) {
		snprintf(m->err, sizeof(m->err), "smc_diag request: %s",
			 strerror(errno));
		goto out;
	}
	while (!done) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(m->err, sizeof(m->err), "smc_diag reply: %s",
				 n ? strerror(errno) : "none");
			goto out;
		}
		for (nh = (void *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				snprintf(m->err, sizeof(m->err),
					 "smc_diag: %s (is smc_diag loadable?)",
					 nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ?
					 strerror(-e->error) : "short error");
				goto out;
			}
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct smc_diag_msg)))
				continue;
			if (!m->found &&
			    ((const struct smc_diag_msg *)NLMSG_DATA(nh))->diag_inode ==
			    (uint64_t)st.st_ino)
				diag_parse(nh, m);
		}
	}
	if (!m->found)
		snprintf(m->err, sizeof(m->err),
			 "smc_diag lists no socket with inode %ju",
			 (uintmax_t)st.st_ino);
out:
	close(nl);
}

/* a few SMC decline and fallback reasons by name (their values are the
 * wire's CLC decline codes, SMC_CLC_DECL_* in net/smc/smc_clc.h) */
static const char *smc_reason_name(uint32_t r)
{
	static const struct { uint32_t code; const char *name; } t[] = {
		{ 0x03010000, "peer did not propose SMC" },
		{ 0x03030000, "no SMC device found" },
		{ 0x03030002, "no SMC-R device found" },
		{ 0x03030004, "peer sent no v2 extension" },
		{ 0x03030008, "peer sent no UEID" },
		{ 0x03040000, "SMC modes do not match" },
		{ 0x03070000, "IP prefix or subnet mismatch" },
		{ 0x030c0000, "SMC version mismatch" },
		{ 0x030e0000, "SMC-Rv2 has no route to the peer" },
		{ 0x02010000, "timeout waiting for CONFIRM LINK" },
		{ 0x05000000, "the peer declined" },
		{ 0x09990000, "internal error" },
		{ 0x09990002, "ready link failed" },
		{ 0x09990003, "buffer registration failed" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].code == r)
			return t[i].name;
	return "";
}

/* "mode SMCR dev sib1 port 1" or "fallback TCP reason 0x..." into @s;
 * true when SMC (not TCP) carried the connection */
static bool smc_mode_str(const struct smc_mode *m, char *s, size_t n)
{
	if (!m->found) {
		snprintf(s, n, "mode unknown (%s)", m->err);
		return false;
	}
	switch (m->mode) {
	case SMC_DIAG_MODE_SMCR:
		if (m->have_link)
			snprintf(s, n, "mode SMCR dev %s port %u", m->ibdev,
				 m->ibport);
		else
			snprintf(s, n, "mode SMCR (no link information)");
		return true;
	case SMC_DIAG_MODE_SMCD:
		snprintf(s, n, "mode SMCD");
		return true;
	case SMC_DIAG_MODE_FALLBACK_TCP:
		snprintf(s, n,
			 "fallback TCP reason 0x%08" PRIx32 "%s%s%s peer 0x%08" PRIx32 "%s%s%s",
			 m->reason, *smc_reason_name(m->reason) ? " (" : "",
			 smc_reason_name(m->reason),
			 *smc_reason_name(m->reason) ? ")" : "", m->peer_diag,
			 *smc_reason_name(m->peer_diag) ? " (" : "",
			 smc_reason_name(m->peer_diag),
			 *smc_reason_name(m->peer_diag) ? ")" : "");
		return false;
	default:
		snprintf(s, n, "mode %d unknown", m->mode);
		return false;
	}
}

/* ------------------------------------------------------------ UEID */

/* the sequence number of the last request: a reply to an earlier one (the
 * ACK that follows CTRL_CMD_GETFAMILY's answer) is skipped */
static uint32_t genl_seq;

static int genl_send(int nl, uint16_t type, uint8_t cmd, uint16_t attr,
		     const void *data, size_t len)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr g;
		char a[NLA_HDRLEN + NLA_ALIGN(64)];
	} m;
	struct nlattr *a = (void *)m.a;

	if (len > 64)
		return -1;
	memset(&m, 0, sizeof(m));
	m.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_HDRLEN + NLA_ALIGN(len));
	m.nh.nlmsg_type = type;
	m.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.nh.nlmsg_seq = ++genl_seq;
	m.g.cmd = cmd;
	m.g.version = 1;
	a->nla_type = attr;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(m.a + NLA_HDRLEN, data, len);
	return send(nl, &m, m.nh.nlmsg_len, 0) < 0 ? -1 : 0;
}

/* CTRL_ATTR_FAMILY_ID of a CTRL_CMD_NEWFAMILY message: 0 or -EPROTO */
static int genl_family_id(const struct nlmsghdr *nh, uint16_t *family_id)
{
	size_t len = NLMSG_PAYLOAD(nh, 0), off = GENL_HDRLEN;
	const char *p = NLMSG_DATA(nh);

	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const void *)(p + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			break;
		if (a->nla_type == CTRL_ATTR_FAMILY_ID &&
		    a->nla_len >= NLA_HDRLEN + 2) {
			memcpy(family_id, p + off + NLA_HDRLEN, 2);
			return 0;
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return -EPROTO;
}

/* the reply to the last genl request: the family ID for CTRL_CMD_GETFAMILY
 * (into @family_id when not NULL), 0 for an ACK; -errno */
static int genl_recv(int nl, uint16_t *family_id)
{
	static char buf[8192] __attribute__((aligned(8)));

	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (nh = (void *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != genl_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				if (e->error || !family_id)
					return e->error;
				continue;	/* an ACK before the family */
			}
			if (nh->nlmsg_type == GENL_ID_CTRL && family_id)
				return genl_family_id(nh, family_id);
		}
	}
}

static bool ueid_valid(const char *e)
{
	size_t n = strlen(e);

	if (n < 1 || n > XFER_EID_LEN || !(isupper((unsigned char)e[0]) ||
					    isdigit((unsigned char)e[0])))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isupper((unsigned char)e[i]) &&
		    !isdigit((unsigned char)e[i]) && e[i] != '.' && e[i] != '-')
			return false;
	return true;
}

/* add (@add) or remove the UEID @eid: 0 or 1 */
static int ueid_cmd(const char *eid, bool add)
{
	static const char fam[] = SMC_GENL_FAMILY_NAME;
	char entry[XFER_EID_LEN + 1];
	uint16_t id = 0;
	int nl, err;

	if (!ueid_valid(eid)) {
		fprintf(stderr, "smc-xfer: bad EID \"%s\": 1..32 of A-Z 0-9 . -, beginning with A-Z or 0-9\n",
			eid);
		return 2;
	}
	/* the kernel's table holds 32 characters padded with blanks */
	memset(entry, ' ', XFER_EID_LEN);
	memcpy(entry, eid, strlen(eid));
	entry[XFER_EID_LEN] = '\0';
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl < 0) {
		fprintf(stderr, "smc-xfer: NETLINK_GENERIC: %s\n", strerror(errno));
		return 1;
	}
	/* a reply that never comes ends in EAGAIN, not a hang */
	setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO,
		   &(struct timeval){ .tv_sec = 5 }, sizeof(struct timeval));
	err = genl_send(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			CTRL_ATTR_FAMILY_NAME, fam, sizeof(fam)) ? -errno :
	      genl_recv(nl, &id);
	if (err) {
		fprintf(stderr, "smc-xfer: generic netlink family %s: %s (is the smc module loaded?)\n",
			fam, strerror(-err));
		close(nl);
		return 1;
	}
	err = genl_send(nl, id, add ? SMC_NETLINK_ADD_UEID : SMC_NETLINK_REMOVE_UEID,
			SMC_NLA_EID_TABLE_ENTRY, entry, sizeof(entry)) ? -errno :
	      genl_recv(nl, NULL);
	close(nl);
	if (add && err == -EEXIST) {
		printf("smc-xfer: UEID %s already set\n", eid);
		return 0;
	}
	if (err) {
		fprintf(stderr, "smc-xfer: %s UEID %s: %s\n",
			add ? "add" : "remove", eid, strerror(-err));
		return 1;
	}
	printf("smc-xfer: UEID %s %s\n", eid, add ? "set" : "removed");
	return 0;
}

/* ------------------------------------------------------------ the transfer */

static double mbps(uint64_t bytes, uint64_t ns)
{
	return ns ? bytes / 1e6 / (ns / 1e9) : 0;
}

static int finish(int fd, bool data_ok, const char *what)
{
	struct smc_mode m;
	char ms[200];
	bool smc;

	smc_mode_of(fd, &m);
	smc = smc_mode_str(&m, ms, sizeof(ms));
	if (data_ok && !smc && !opt.allow_fallback) {
		printf("%s: FAIL %s; but SMC did not carry it: %s\n", role, what, ms);
		return XFER_EXIT_CHECK;
	}
	printf("%s: %s %s; %s\n", role, data_ok ? "ok" : "FAIL", what, ms);
	return data_ok ? XFER_EXIT_OK : XFER_EXIT_CHECK;
}

/* how the new connection @fd is carried, printed after @what ("connected to
 * ...") and kept in @ms for a later error: a connection cut later leaves
 * smc_diag's dump or loses its link group */
static void report_mode(int fd, const char *what, char *ms, size_t n)
{
	struct smc_mode m;

	smc_mode_of(fd, &m);
	smc_mode_str(&m, ms, n);
	printf("%s: %s; %s\n", role, what, ms);
}

/* the result line of a transfer that a connection error ended */
static int conn_failed(const char *what, int err, const char *ms)
{
	printf("%s: FAIL connection error %s: %s; at connect: %s\n", role, what,
	       err ? strerror(err) : "connection closed by the peer", ms);
	return XFER_EXIT_CONN;
}

static int run_server(void)
{
	static unsigned char buf[XFER_CHUNK], want[XFER_CHUNK];
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_port = htons(opt.port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	struct xfer_hdr h;
	struct xfer_reply r = { .bad_off = UINT64_MAX };
	uint64_t bytes, seed, got = 0, csum = CSUM_INIT, t0;
	char what[240], ms[200], pa[INET6_ADDRSTRLEN] = "?";
	int ls, fd, one = 1, rc;
	size_t n;

	role = "smc-xfer server";
	/* IPv4 only: SMC-Rv2 proposes itself only on an AF_INET handshake
	 * (af_smc.c), and an IPv6 socket would see IPv4 clients as
	 * ::ffff:a.b.c.d */
	ls = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, XFER_SMCPROTO_SMC);
	if (ls < 0) {
		printf("%s: FAIL socket(AF_SMC): %s\n", role, strerror(errno));
		return XFER_EXIT_CHECK;
	}
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&any, sizeof(any)) || listen(ls, 1)) {
		printf("%s: FAIL bind/listen on port %u: %s\n", role, opt.port,
		       strerror(errno));
		return XFER_EXIT_CHECK;
	}
	printf("%s: listening on port %u\n", role, opt.port);
	fflush(stdout);
	fd = accept(ls, (struct sockaddr *)&peer, &plen);
	if (fd < 0) {
		printf("%s: FAIL accept: %s\n", role, strerror(errno));
		return XFER_EXIT_CHECK;
	}
	close(ls);
	if (peer.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, pa,
			  sizeof(pa));
	snprintf(what, sizeof(what), "accepted from %s", pa);
	report_mode(fd, what, ms, sizeof(ms));
	if (read_full(fd, &h, sizeof(h), NULL))
		return conn_failed("reading the header", errno, ms);
	bytes = be64toh(h.bytes);
	seed = be64toh(h.seed);
	if (memcmp(h.magic, XFER_MAGIC, 8) || h.reserved || !bytes ||
	    bytes % XFER_CHUNK || bytes > (uint64_t)XFER_MAX_MIB << 20) {
		printf("%s: FAIL bad header from %s (not smc-xfer, or a length of %" PRIu64 ")\n",
		       role, pa, bytes);
		return XFER_EXIT_CHECK;
	}
	xfer_total = bytes;
	t0 = now_ns();
	while (got < bytes) {
		int rerr = read_full(fd, buf, XFER_CHUNK, &n) ? errno : -1;

		/* what came before an error is checked too */
		pattern_fill(want, XFER_CHUNK, seed, got);
		if (r.bad_off == UINT64_MAX && memcmp(buf, want, n)) {
			size_t i = 0;

			while (buf[i] == want[i])
				i++;
			r.bad_off = got + i;
		}
		if (rerr >= 0) {
			if (r.bad_off != UINT64_MAX) {
				printf("%s: FAIL connection error after %" PRIu64 " of %" PRIu64 " bytes, first wrong byte at offset %" PRIu64 ": %s; at connect: %s\n",
				       role, got + n, bytes, r.bad_off,
				       rerr ? strerror(rerr) : "connection closed by the peer",
				       ms);
				return XFER_EXIT_CHECK;
			}
			snprintf(what, sizeof(what),
				 "after %" PRIu64 " of %" PRIu64 " bytes, all %" PRIu64 " verified",
				 got + n, bytes, got + n);
			return conn_failed(what, rerr, ms);
		}
		csum = csum_update(csum, buf, XFER_CHUNK);
		got += XFER_CHUNK;
		xfer_done = got;
	}
	t0 = now_ns() - t0;
	memcpy(r.magic, r.bad_off == UINT64_MAX ? XFER_OK : XFER_BAD, 8);
	r.bytes = htobe64(got);
	r.csum = htobe64(csum);
	if (r.bad_off == UINT64_MAX)
		snprintf(what, sizeof(what),
			 "%" PRIu64 " bytes from %s verified, %.1f MB/s, checksum %016" PRIx64,
			 got, pa, mbps(got, t0), csum);
	else
		snprintf(what, sizeof(what),
			 "%" PRIu64 " bytes from %s, first wrong byte at offset %" PRIu64,
			 got, pa, r.bad_off);
	rc = r.bad_off == UINT64_MAX;
	r.bad_off = htobe64(r.bad_off);
	if (write_full(fd, &r, sizeof(r), NULL)) {
		if (!rc) {	/* wrong data stays a failed check */
			printf("%s: FAIL %s; sending the reply: %s\n", role,
			       what, strerror(errno));
			return XFER_EXIT_CHECK;
		}
		snprintf(what, sizeof(what),
			 "sending the reply after %" PRIu64 " bytes, all verified",
			 got);
		return conn_failed(what, errno, ms);
	}
	/* the mode before close: a closed socket leaves the dump */
	rc = finish(fd, rc, what);
	/* the client closes first (it has read the reply) */
	(void)!read(fd, buf, 1);
	close(fd);
	return rc;
}

static int run_client(void)
{
	static unsigned char buf[XFER_CHUNK];
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(opt.port),
	};
	struct xfer_hdr h = { .magic = XFER_MAGIC };
	struct xfer_reply r;
	uint64_t bytes = (uint64_t)opt.mib << 20, seed, sent = 0,
		 csum = CSUM_INIT, t0, t;
	char what[240], ms[200];
	int fd, rc;
	size_t n;
	bool ok;

	role = "smc-xfer client";
	if (inet_pton(AF_INET, opt.addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "smc-xfer: -c %s: not an IPv4 address\n",
			opt.addr);
		return XFER_EXIT_USAGE;
	}
	xfer_total = bytes;
	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, XFER_SMCPROTO_SMC);
	if (fd < 0) {
		printf("%s: FAIL socket(AF_SMC): %s\n", role, strerror(errno));
		return XFER_EXIT_CHECK;
	}
	t0 = now_ns();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("%s: FAIL connection error: connect to %s port %u: %s\n",
		       role, opt.addr, opt.port, strerror(errno));
		return XFER_EXIT_CONN;
	}
	t = now_ns() - t0;
	snprintf(what, sizeof(what), "connected to %s port %u in %.1f ms",
		 opt.addr, opt.port, t / 1e6);
	report_mode(fd, what, ms, sizeof(ms));
	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	h.bytes = htobe64(bytes);
	h.seed = htobe64(seed);
	if (write_full(fd, &h, sizeof(h), NULL))
		return conn_failed("sending the header", errno, ms);
	t0 = now_ns();
	while (sent < bytes) {
		pattern_fill(buf, XFER_CHUNK, seed, sent);
		csum = csum_update(csum, buf, XFER_CHUNK);
		if (write_full(fd, buf, XFER_CHUNK, &n)) {
			snprintf(what, sizeof(what),
				 "after %" PRIu64 " of %" PRIu64 " bytes sent",
				 sent + n, bytes);
			return conn_failed(what, errno, ms);
		}
		sent += XFER_CHUNK;
		xfer_done = sent;
	}
	if (read_full(fd, &r, sizeof(r), NULL)) {
		snprintf(what, sizeof(what),
			 "waiting for the reply after all %" PRIu64 " bytes sent",
			 sent);
		return conn_failed(what, errno, ms);
	}
	t0 = now_ns() - t0;
	ok = !memcmp(r.magic, XFER_OK, 8) && be64toh(r.bytes) == bytes &&
	     be64toh(r.csum) == csum;
	if (ok)
		snprintf(what, sizeof(what),
			 "%" PRIu64 " bytes to %s verified by the server, %.1f MB/s, connect %.1f ms, checksum %016" PRIx64,
			 bytes, opt.addr, mbps(bytes, t0), t / 1e6, csum);
	else if (!memcmp(r.magic, XFER_BAD, 8))
		snprintf(what, sizeof(what),
			 "server got %" PRIu64 " bytes, first wrong byte at offset %" PRIu64,
			 be64toh(r.bytes), be64toh(r.bad_off));
	else
		snprintf(what, sizeof(what),
			 "reply does not match: %" PRIu64 " bytes, checksum %016" PRIx64 " (sent %" PRIu64 ", %016" PRIx64 ")",
			 be64toh(r.bytes), be64toh(r.csum), bytes, csum);
	rc = finish(fd, ok, what);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },
		{ "connect", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "mib", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "allow-fallback", no_argument, NULL, 'a' },
		{ "add-ueid", required_argument, NULL, 'U' },
		{ "del-ueid", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct sigaction sa = { .sa_handler = on_alarm };
	int c, modes;

	while ((c = getopt_long(argc, argv, "sc:p:m:t:ah", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.server = true; break;
		case 'c': opt.addr = optarg; break;
		case 'a': opt.allow_fallback = true; break;
		case 'U': opt.ueid_add = optarg; break;
		case 'D': opt.ueid_del = optarg; break;
		case 'p':
			if (parse_uint(optarg, 1, 65535, &opt.port))
				goto bad_num;
			break;
		case 'm':
			if (parse_uint(optarg, 1, XFER_MAX_MIB, &opt.mib))
				goto bad_num;
			break;
		case 't':
			if (parse_uint(optarg, 1, 3600, &opt.timeout))
				goto bad_num;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return XFER_EXIT_USAGE;
		}
		continue;
bad_num:
		fprintf(stderr, "smc-xfer: -%c %s: out of range or not a number\n",
			c, optarg);
		return XFER_EXIT_USAGE;
	}
	modes = opt.server + !!opt.addr + !!opt.ueid_add + !!opt.ueid_del;
	if (optind < argc || modes != 1) {
		if (optind < argc)
			fprintf(stderr, "smc-xfer: unexpected argument %s\n",
				argv[optind]);
		else
			fprintf(stderr, "smc-xfer: give one of -s, -c ADDR, --add-ueid, --del-ueid\n");
		usage(stderr);
		return XFER_EXIT_USAGE;
	}
	if (opt.ueid_add || opt.ueid_del)
		return ueid_cmd(opt.ueid_add ?: opt.ueid_del, !!opt.ueid_add);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGALRM, &sa, NULL);
	alarm(opt.timeout);
	return opt.server ? run_server() : run_client();
}
