// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-memcpy: single-thread memcpy bandwidth, the yardstick of tools/bench.
 *
 *   sib-memcpy [-s BYTES] [-t SECONDS]
 *
 * Copies a BYTES buffer (default 64 MiB, larger than the caches) into
 * another for about SECONDS (default 1) and prints
 * "memcpy_gbps <Gb/s> bytes <copied> seconds <elapsed>".
 * Exit status 0, 1 when the buffers cannot be allocated, 2 on a usage
 * error (one line on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PERF_PROG "sib-memcpy"
#include "perf-args.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-memcpy [-s BYTES] [-t SECONDS]\n"
"\n"
"Single-thread memcpy bandwidth (the yardstick of tools/bench): copies a BYTES buffer into\n"
"another for about SECONDS and prints \"memcpy_gbps <Gb/s> bytes <copied> seconds <elapsed>\".\n"
"\n"
"  -s, --size BYTES    buffer size, 1..2^40 (default 67108864, 64 MiB: larger than the caches)\n"
"  -t, --time SECONDS  how long to copy, more than 0, at most 86400 (default 1)\n"
"  -h, --help          this help\n"
"\n"
"Exit status: 0, 1 when the buffers cannot be allocated, 2 usage error (one line on stderr).\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t size = 64UL << 20, copied = 0;
	double secs = 1, t0, t;
	char *a, *b;
	int c;

	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned long v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_ulong(optarg, 0, 1, 1UL << 40, &v))
				return usage_error("-s '%s': not a number of bytes 1..2^40", optarg);
			size = v;
			break;
		case 't':
			if (parse_seconds(optarg, 86400, &secs))
				return usage_error("-t '%s': not a number of seconds (0..86400]", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return getopt_error(c, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	a = malloc(size);
	b = malloc(size);
	if (!a || !b || size == 0) {
		fprintf(stderr, "sib-memcpy: cannot allocate 2 x %zu bytes\n", size);
		return 1;
	}
	memset(a, 1, size);
	memset(b, 2, size);
	memcpy(b, a, size);	/* warm up */
	t0 = now();
	do {
		memcpy(b, a, size);
		copied += size;
		a[copied % size] ^= b[(copied / 7) % size];
		t = now() - t0;
	} while (t < secs);
	printf("memcpy_gbps %.2f bytes %zu seconds %.3f\n", copied * 8 / t / 1e9,
	       copied, t);
	return 0;
}
