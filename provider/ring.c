// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: the rings shared with the kernel, mapped through the uverbs
 * command fd, and the posting of receive WQEs into a QP's receive queue or
 * an SRQ (no system call: the kernel reads the producer index when a
 * packet needs a receive WQE).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "softib.h"

int sib_mmap_ring(struct ibv_context *ctx, struct sib_ring *ring,
		  uint64_t offset, uint64_t size, uint32_t num,
		  uint32_t stride)
{
	return sib_mmap_ring_at(ctx, ring, NULL, offset, size, num, stride);
}

int sib_mmap_ring_at(struct ibv_context *ctx, struct sib_ring *ring,
		     void *addr, uint64_t offset, uint64_t size, uint32_t num,
		     uint32_t stride)
{
	void *p;

	memset(ring, 0, sizeof(*ring));
	if (!size)
		return 0;
	/* the kernel must describe a ring that fits what it maps */
	if (!num || (num & (num - 1)) || !stride ||
	    size < SIB_RING_HDR_SIZE + (uint64_t)num * stride)
		return EINVAL;
	p = mmap(addr, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | (addr ? MAP_FIXED : 0), ctx->cmd_fd, (off_t)offset);
	if (p == MAP_FAILED)
		return errno;
	ring->buf = p;
	ring->map_size = size;
	ring->num = num;
	ring->stride = stride;
	ring->limit = num;
	ring->check_magic = to_sib_ctx(ctx)->ring_magic;
	return 0;
}

void sib_munmap_ring(struct sib_ring *ring)
{
	if (ring->buf)
		munmap(ring->buf, ring->map_size);
	ring->buf = NULL;
	ring->map_size = 0;
}

int sib_post_recv_ring(struct sib_wq *rq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct sib_ring_hdr *hdr = sib_ring_hdr(&rq->ring);
	uint32_t start;
	int err = 0;

	if (sib_ring_dead(&rq->ring)) {
		*bad_wr = wr;
		return EIO;
	}
	pthread_spin_lock(&rq->lock);
	start = rq->ring.idx;
	for (; wr; wr = wr->next) {
		uint32_t cons = sib_load_acquire(&hdr->consumer);

		if (sib_ring_full(rq->ring.idx, cons, rq->ring.limit)) {
			err = ENOMEM;
			break;
		}
		err = sib_build_recv_wqe(sib_ring_slot(rq->ring.buf,
						       rq->ring.idx,
						       rq->ring.num,
						       rq->ring.stride),
					 rq->ring.stride, wr, rq->max_sge);
		if (err)
			break;
		rq->ring.idx++;
	}
	if (rq->ring.idx != start)
		sib_store_release(&hdr->producer, rq->ring.idx);
	pthread_spin_unlock(&rq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}
