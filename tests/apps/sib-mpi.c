// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-mpi: an MPI program that checks every result it gets.
 *
 * Point-to-point (sizes 0 B .. --max: each 2^k - 1, 2^k and 2^k + 1; each
 * byte of a pattern that depends on the sender, the size and the offset),
 * collectives (MPI_Allreduce of doubles,
 * MPI_Alltoall, MPI_Bcast, MPI_Barrier) and one-sided operations (MPI_Put,
 * MPI_Get, MPI_Accumulate between fences), then the latency of an 8-byte
 * ping-pong and the bandwidth of 1 MiB messages between rank 0 and rank n/2
 * (with ranks placed by slot on two hosts, the two hosts).
 *
 * Rank 0 prints one "SIBMPI <part> ok <detail>" line per part and at the end
 * "SIBMPI PASS ranks N lat8 X us bw1m Y MB/s"; any wrong byte ends the job
 * with MPI_Abort (exit status 1) after a "SIBMPI <part> FAIL" line.
 *
 * Usage: sib-mpi [--max BYTES] [--iters N]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sib_rank, sib_size;

static void sib_fail(const char *part, const char *fmt, long a, long b)
{
	fprintf(stdout, "SIBMPI %s FAIL rank %d: ", part, sib_rank);
	fprintf(stdout, fmt, a, b);
	fputc('\n', stdout);
	fflush(stdout);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void sib_note(const char *part, const char *detail)
{
	if (sib_rank == 0) {
		printf("SIBMPI %s ok %s\n", part, detail);
		fflush(stdout);
	}
}

static unsigned char sib_pat(int src, size_t size, size_t i)
{
	return (unsigned char)(src * 31 + size * 7 + i * 13 + (i >> 8));
}

static void *sib_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		sib_fail("alloc", "malloc of %ld bytes (%ld)", (long)n, 0);
	return p;
}

/* the next size of sib_p2p after SIZE: 0, 1, 2, 3, then 2^k - 1, 2^k and
 * 2^k + 1 for every power of two (the edges of every protocol threshold),
 * ending with MAX */
static size_t sib_next_size(size_t size, size_t max)
{
	size_t q = 4, next;

	if (size <= 3)
		next = size + 1;
	else {
		while (q * 2 <= size + 1)
			q *= 2;
		next = size == q - 1 ? q : size == q ? q + 1 : 2 * q - 1;
	}
	return next > max ? max : next;
}

static void sib_p2p(size_t max)
{
	int peer = (sib_rank + sib_size / 2) % sib_size;
	unsigned char *s = sib_alloc(max), *r = sib_alloc(max);
	size_t size, i, nsizes = 0;
	char d[128];

	for (size = 0; ; size = sib_next_size(size, max)) {
		for (i = 0; i < size; i++)
			s[i] = sib_pat(sib_rank, size, i);
		memset(r, 0, size);
		MPI_Sendrecv(s, (int)size, MPI_BYTE, peer, 1, r, (int)size,
			     MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < size; i++)
			if (r[i] != sib_pat(peer, size, i))
				sib_fail("p2p", "size %ld: byte %ld differs",
					 (long)size, (long)i);
		nsizes++;
		if (size == max)
			break;
	}
	snprintf(d, sizeof(d), "%zu sizes 0..%zu B (2^k - 1, 2^k, 2^k + 1) with rank+%d, every byte",
		 nsizes, max, sib_size / 2);
	sib_note("p2p", d);
	free(s);
	free(r);
}

static void sib_collectives(size_t max)
{
	size_t n, i, maxd = max / sizeof(double) / 4;
	double *a = sib_alloc(maxd * sizeof(double));
	double *b = sib_alloc(maxd * sizeof(double));
	int *x, *y, cnt, k;
	unsigned char *c;
	char d[160];

	for (n = 1; n <= maxd; n *= 8) {
		for (i = 0; i < n; i++)
			a[i] = sib_rank * 1000.0 + (double)i;
		MPI_Allreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		for (i = 0; i < n; i++)
			if (b[i] != 1000.0 * sib_size * (sib_size - 1) / 2 +
				    (double)i * sib_size)
				sib_fail("allreduce", "count %ld: element %ld",
					 (long)n, (long)i);
	}
	for (cnt = 1; cnt <= 16384; cnt *= 128) {
		x = sib_alloc(sizeof(int) * cnt * sib_size);
		y = sib_alloc(sizeof(int) * cnt * sib_size);
		for (k = 0; k < cnt * sib_size; k++)
			x[k] = sib_rank * 1000003 + k;
		MPI_Alltoall(x, cnt, MPI_INT, y, cnt, MPI_INT, MPI_COMM_WORLD);
		for (k = 0; k < cnt * sib_size; k++) {
			int from = k / cnt;

			if (y[k] != from * 1000003 + sib_rank * cnt + k % cnt)
				sib_fail("alltoall", "count %ld: element %ld",
					 (long)cnt, (long)k);
		}
		free(x);
		free(y);
	}
	c = sib_alloc(max);
	for (n = 1; ; n = n * 16 > max ? max : n * 16) {
		int root = (int)(n % (size_t)sib_size);

		for (i = 0; i < n; i++)
			c[i] = sib_rank == root ? sib_pat(root, n, i) : 0;
		MPI_Bcast(c, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
		for (i = 0; i < n; i++)
			if (c[i] != sib_pat(root, n, i))
				sib_fail("bcast", "size %ld: byte %ld", (long)n, (long)i);
		if (n == max)
			break;
	}
	for (k = 0; k < 10; k++)
		MPI_Barrier(MPI_COMM_WORLD);
	snprintf(d, sizeof(d), "allreduce 1..%zu doubles, alltoall 1..16384 ints, "
		 "bcast 1..%zu B, 10 barriers", maxd, max);
	sib_note("collectives", d);
	free(a);
	free(b);
	free(c);
}

static void sib_onesided(size_t max)
{
	int n = (int)(max / 4 / sizeof(int)), i, right = (sib_rank + 1) % sib_size,
	    left = (sib_rank + sib_size - 1) % sib_size;
	int *win_mem, *buf = sib_alloc(sizeof(int) * n);
	MPI_Win win;
	char d[128];

	MPI_Win_allocate((MPI_Aint)(sizeof(int) * n), sizeof(int), MPI_INFO_NULL,
			 MPI_COMM_WORLD, &win_mem, &win);
	for (i = 0; i < n; i++) {
		win_mem[i] = -1;
		buf[i] = sib_rank * 7919 + i;
	}
	MPI_Win_fence(0, win);
	MPI_Put(buf, n, MPI_INT, right, 0, n, MPI_INT, win);
	MPI_Win_fence(0, win);
	for (i = 0; i < n; i++)
		if (win_mem[i] != left * 7919 + i)
			sib_fail("onesided", "put: element %ld is %ld", i, win_mem[i]);
	memset(buf, 0, sizeof(int) * n);
	MPI_Win_fence(0, win);
	MPI_Get(buf, n, MPI_INT, right, 0, n, MPI_INT, win);
	MPI_Win_fence(0, win);
	/* right's window holds what rank right's left (this rank) put there */
	for (i = 0; i < n; i++)
		if (buf[i] != sib_rank * 7919 + i)
			sib_fail("onesided", "get: element %ld is %ld", i, buf[i]);
	for (i = 0; i < n; i++)
		buf[i] = sib_rank + 1;
	MPI_Win_fence(0, win);
	MPI_Accumulate(buf, n, MPI_INT, 0, 0, n, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);
	if (sib_rank == 0)
		for (i = 0; i < n; i++)
			if (win_mem[i] != (sib_size - 1) * 7919 + i +
					  sib_size * (sib_size + 1) / 2)
				sib_fail("onesided", "accumulate: element %ld is %ld",
					 i, win_mem[i]);
	MPI_Win_free(&win);
	snprintf(d, sizeof(d), "put, get, accumulate of %d ints with fences", n);
	sib_note("onesided", d);
	free(buf);
}

static void sib_perf(int iters, double *lat, double *bw)
{
	int peer = sib_size / 2, i, mb = 1 << 20, nbw = iters / 4 + 1;
	char *b = sib_alloc((size_t)mb);
	double t;

	memset(b, sib_rank, (size_t)mb);
	*lat = *bw = 0;
	for (int pass = 0; pass < 2; pass++) { /* the first warms up */
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		/* every 8-byte message carries its number, the echo one more */
		for (i = 0; i < iters; i++) {
			long v;

			if (sib_rank == 0) {
				v = (long)pass << 32 | i;
				memcpy(b, &v, 8);
				MPI_Send(b, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
				MPI_Recv(b, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				memcpy(&v, b, 8);
				if (v != ((long)pass << 32 | i) + 1)
					sib_fail("lat", "echo %ld carries %ld", i, v);
			} else if (sib_rank == peer) {
				MPI_Recv(b, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				memcpy(&v, b, 8);
				if (v != ((long)pass << 32 | i))
					sib_fail("lat", "message %ld carries %ld", i, v);
				v++;
				memcpy(b, &v, 8);
				MPI_Send(b, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
			}
		}
		*lat = (MPI_Wtime() - t) * 1e6 / iters / 2;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	/* every 1 MiB message filled with its number and checked whole */
	for (i = 0; i < nbw; i++) {
		if (sib_rank == 0) {
			memset(b, (i + 1) & 0x7f, (size_t)mb);
			MPI_Send(b, mb, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
		} else if (sib_rank == peer) {
			long k;

			MPI_Recv(b, mb, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (k = 0; k < mb; k++)
				if (b[k] != ((i + 1) & 0x7f))
					sib_fail("bw", "1 MiB message %ld: byte %ld differs", i, k);
		}
	}
	if (sib_rank == 0)
		MPI_Recv(b, 1, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	else if (sib_rank == peer)
		MPI_Send(b, 1, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
	*bw = (double)mb * nbw / (MPI_Wtime() - t) / 1e6;
	free(b);
}

int main(int argc, char **argv)
{
	size_t max = 4 << 20;
	int iters = 20, i;
	double lat, bw;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &sib_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &sib_size);
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--max"))
			max = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--iters"))
			iters = atoi(argv[i + 1]);
	}
	if (max < 64 || iters < 1 || sib_size < 2) {
		if (sib_rank == 0)
			fprintf(stderr, "usage: mpirun -np N(>=2) sib-mpi [--max BYTES(>=64)] [--iters N]\n");
		MPI_Finalize();
		return 2;
	}
	sib_p2p(max);
	sib_collectives(max);
	sib_onesided(max);
	sib_perf(iters, &lat, &bw);
	if (sib_rank == 0)
		printf("SIBMPI PASS ranks %d lat8 %.1f us bw1m %.1f MB/s\n",
		       sib_size, lat, bw);
	MPI_Finalize();
	return 0;
}
