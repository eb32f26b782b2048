// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-udprr: the UDP round trip of a link, the reference of the RDMA
 * latency figures (tools/bench-hosts). The server echoes each datagram it
 * gets; the client sends one datagram of SIZE bytes, waits for the echo,
 * and so on, busy-polling its socket as the perftest latency programs
 * poll their queues. With --spin the server busy-polls too, as the other side
 * of a perftest latency test does: both guests' CPUs then spin, as they do
 * under ib_send_lat and ib_write_lat. With --ack on both sides each side
 * also answers each datagram it gets with a 1-byte one before going on, as
 * an RC responder ACKs a signaled SEND or WRITE: the 4 frames per round
 * trip of ib_send_lat and ib_write_lat at queue depth 1.
 *
 *   sib-udprr -l [-p PORT] [--spin] [--ack]      server (until killed)
 *   sib-udprr -c HOST [-p PORT] [-s SIZE] [-n ITERS] [-w WARMUP] [--ack]
 *
 * The client prints one line:
 *   udp_rr <size> <iters> typical <median us> avg <us> p99 <us>
 * A datagram lost on the way is waited for 200 ms, counted and sent again
 * (the "lost" field follows when any was). Exit status 0, 1 on errors
 * (no answer after 50 tries), 2 on a usage error (one line on stderr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PERF_PROG "sib-udprr"
#include "perf-args.h"

#define MAX_SIZE 65507

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-udprr -l [-p PORT] [--spin] [--ack]\n"
"       sib-udprr -c HOST [-p PORT] [-s SIZE] [-n ITERS] [-w WARMUP] [--ack]\n"
"\n"
"The UDP round trip of a link (the reference of tools/bench-hosts' latency figures): the\n"
"server (-l) echoes every datagram until killed; the client sends one datagram of SIZE\n"
"bytes, waits for its echo, and so on, and prints\n"
"  udp_rr <size> <iters> typical <median us> avg <us> p99 <us> [lost <n>]\n"
"\n"
"  -l, --listen          be the server\n"
"  -S, --spin            (server) busy-poll the socket instead of blocking in recvfrom,\n"
"                        as the server of a perftest latency test polls its queues\n"
"  -a, --ack             (both sides) answer each datagram with a 1-byte one first, as an\n"
"                        RC responder ACKs a signaled SEND or WRITE (4 frames per round\n"
"                        trip); needs SIZE >= 2\n"
"  -c, --connect HOST    be the client of the server on HOST\n"
"  -p, --port PORT       UDP port 1..65535 (default 18620)\n"
"  -s, --size SIZE       bytes per datagram, 1..%d (default 2)\n"
"  -n, --iters N         timed exchanges, 1..10000000 (default 1000)\n"
"  -w, --warmup N        untimed exchanges first, 0..10000000 (default 50)\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0, 1 on errors (no answer after 50 tries of 200 ms, a socket error),\n"
"2 usage error (one line on stderr).\n", MAX_SIZE);
}

static int serve(const char *port, int spin, int ack)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
				  .ai_flags = AI_PASSIVE }, *ai;
	static char buf[MAX_SIZE];
	struct sockaddr_storage from;
	socklen_t flen;
	ssize_t n;
	int fd, on = 0;

	if (getaddrinfo(NULL, port, &hints, &ai) || !ai) {
		fprintf(stderr, "sib-udprr: bad port %s\n", port);
		return 1;
	}
	/* one socket for IPv4 and IPv6 when the first address is IPv6 */
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd >= 0 && ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen)) {
		perror("sib-udprr: bind");
		return 1;
	}
	freeaddrinfo(ai);
	for (;;) {
		flen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), spin ? MSG_DONTWAIT : 0,
			     (struct sockaddr *)&from, &flen);
		if (n < 0) {
			if (errno == EINTR || (spin && errno == EAGAIN))
				continue;
			perror("sib-udprr: recvfrom");
			return 1;
		}
		if (ack) {
			if (n == 1)
				continue;	/* the client's acknowledgement */
			sendto(fd, buf, 1, 0, (struct sockaddr *)&from, flen);
		}
		sendto(fd, buf, n, 0, (struct sockaddr *)&from, flen);
	}
}

/* one exchange; returns its time in us, or -1 after 50 lost tries */
static double exchange(int fd, char *out, char *in, size_t size, unsigned int seq,
		       int ack, unsigned long *lost)
{
	double t0, deadline;
	ssize_t n;
	int tries;

	memcpy(out, &seq, sizeof(seq) <= size ? sizeof(seq) : size);
	for (tries = 0; tries < 50; tries++) {
		t0 = now_us();
		if (send(fd, out, size, 0) < 0 && errno != ECONNREFUSED)
			return -1;
		deadline = t0 + 200000;
		while (now_us() < deadline) {
			n = recv(fd, in, size, MSG_DONTWAIT);
			if (n < 0)
				continue;
			/* an echo of an earlier, timed-out try is stale */
			if ((size_t)n == size &&
			    (size < sizeof(seq) || !memcmp(in, &seq, sizeof(seq)))) {
				/* acknowledged before the echo is taken as arrived */
				if (ack && send(fd, out, 1, 0) < 0 && errno != ECONNREFUSED)
					return -1;
				return now_us() - t0;
			}
		}
		(*lost)++;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *host = NULL, *port = "18620";
	unsigned long size = 2, iters = 1000, warm = 50, lost = 0, i;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM }, *ai;
	double *t, sum = 0;
	char *out, *in;
	int c, fd, listen_mode = 0, spin = 0, ack = 0;

	static const struct option opts[] = {
		{ "listen", no_argument, NULL, 'l' },
		{ "spin", no_argument, NULL, 'S' },
		{ "ack", no_argument, NULL, 'a' },
		{ "connect", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned long v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":lSac:p:s:n:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l': listen_mode = 1; break;
		case 'S': spin = 1; break;
		case 'a': ack = 1; break;
		case 'c': host = optarg; break;
		case 'p':
			if (parse_ulong(optarg, 10, 1, 65535, &v))
				return usage_error("-p '%s': not a UDP port 1..65535", optarg);
			port = optarg;
			break;
		case 's':
			if (parse_ulong(optarg, 0, 1, MAX_SIZE, &size))
				return usage_error("-s '%s': not a size 1..%d", optarg, MAX_SIZE);
			break;
		case 'n':
			if (parse_ulong(optarg, 0, 1, 10000000, &iters))
				return usage_error("-n '%s': not a number of iterations 1..10000000",
						   optarg);
			break;
		case 'w':
			if (parse_ulong(optarg, 0, 0, 10000000, &warm))
				return usage_error("-w '%s': not a number of iterations 0..10000000",
						   optarg);
			break;
		case 'h': usage(stdout); return 0;
		default:
			return getopt_error(c, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (listen_mode && host)
		return usage_error("-l and -c exclude each other");
	if (spin && !listen_mode)
		return usage_error("--spin is an option of the server (-l)");
	if (ack && !listen_mode && size < 2)
		return usage_error("--ack needs a SIZE of 2 or more (1-byte datagrams are the acknowledgements)");
	if (listen_mode)
		return serve(port, spin, ack);
	if (!host)
		return usage_error("either -l (server) or -c HOST (client)");
	if (getaddrinfo(host, port, &hints, &ai) || !ai) {
		fprintf(stderr, "sib-udprr: cannot resolve %s\n", host);
		return 1;
	}
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		perror("sib-udprr: connect");
		return 1;
	}
	freeaddrinfo(ai);
	out = calloc(1, size);
	in = calloc(1, size);
	t = calloc(iters, sizeof(*t));
	if (!out || !in || !t)
		return 1;
	for (i = 0; i < warm + iters; i++) {
		double us = exchange(fd, out, in, size, (unsigned int)i, ack, &lost);

		if (us < 0) {
			fprintf(stderr, "sib-udprr: no answer from %s port %s\n", host, port);
			return 1;
		}
		if (i >= warm) {
			t[i - warm] = us;
			sum += us;
		}
	}
	qsort(t, iters, sizeof(*t), cmp_double);
	printf("udp_rr %lu %lu typical %.2f avg %.2f p99 %.2f", size, iters, t[iters / 2],
	       sum / iters, t[(iters * 99) / 100 < iters ? (iters * 99) / 100 : iters - 1]);
	if (lost)
		printf(" lost %lu", lost);
	printf("\n");
	return 0;
}
