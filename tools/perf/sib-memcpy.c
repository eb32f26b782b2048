// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-memcpy: single-thread memcpy bandwidth, the yardstick of tools/bench.
 *
 *   sib-memcpy [-s BYTES] [-t SECONDS]
 *
 * Copies a BYTES buffer (default 64 MiB, larger than the caches) into
 * another for about SECONDS (default 1) and prints
 * "memcpy_gbps <Gb/s> bytes <copied> seconds <elapsed>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

	while ((c = getopt(argc, argv, "s:t:h")) != -1) {
		switch (c) {
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: sib-memcpy [-s BYTES] [-t SECONDS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
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
