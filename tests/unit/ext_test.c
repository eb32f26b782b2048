// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Extended verbs without a device: parent-domain allocators (which memory
 * a QP's or CQ's provider state comes from, references on the domains)
 * and the ibv_cq_ex timestamp readers on a ring the test fills; the
 * device memory copies on a buffer standing in for the mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "softib.h"
#include "unit.h"

static struct {
	int allocs, frees, use_default;
	uint64_t last_type;
	size_t last_size, last_align;
	void *last_ptr;
	char pool[4096] __attribute__((aligned(64)));
} t_alloc;

static void *t_pd_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t alignment, uint64_t resource_type)
{
	(void)pd;
	t_alloc.allocs++;
	t_alloc.last_type = resource_type;
	t_alloc.last_size = size;
	t_alloc.last_align = alignment;
	if (t_alloc.use_default)
		return IBV_ALLOCATOR_USE_DEFAULT;
	memset(t_alloc.pool, 0xa5, sizeof(t_alloc.pool));	/* not zeroed */
	return pd_context;
}

static void t_pd_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t resource_type)
{
	(void)pd;
	(void)pd_context;
	t_alloc.frees++;
	t_alloc.last_ptr = ptr;
	t_alloc.last_type = resource_type;
}

static void test_parent_domain_alloc(void)
{
	struct sib_pd inner, parent, plain_parent;
	struct sib_obj_mem mem;
	struct sib_qp *qp;
	struct sib_cq *cq;

	memset(&inner, 0, sizeof(inner));
	memset(&parent, 0, sizeof(parent));
	memset(&plain_parent, 0, sizeof(plain_parent));
	parent.protection_domain = &inner;
	parent.alloc = t_pd_alloc;
	parent.free = t_pd_free;
	parent.pd_context = t_alloc.pool;
	plain_parent.protection_domain = &inner;

	/* a plain PD: calloc, no reference taken */
	qp = sib_obj_calloc(&inner.ibv_pd, sizeof(*qp), SIB_RES_TYPE_QP, &mem);
	SIB_CHECK(qp && !mem.custom && !mem.parent && !inner.refs &&
		  !t_alloc.allocs, "plain PD: calloc, no callback");
	sib_obj_free(qp, &mem);

	/* the parent domain's allocator, memory zeroed, a reference held */
	qp = sib_obj_calloc(&parent.ibv_pd, sizeof(*qp), SIB_RES_TYPE_QP, &mem);
	SIB_CHECK((void *)qp == t_alloc.pool && mem.custom &&
		  mem.parent == &parent && parent.refs == 1 &&
		  t_alloc.last_type == SIB_RES_TYPE_QP &&
		  t_alloc.last_size == sizeof(*qp) && t_alloc.last_align == 64,
		  "parent domain: alloc callback for the QP (type %#llx)",
		  (unsigned long long)t_alloc.last_type);
	SIB_CHECK(qp && qp->sq_sig_all == 0 && qp->cur_wqe == NULL,
		  "custom memory handed out zeroed");
	qp->mem = mem;
	sib_obj_free(qp, &qp->mem);
	SIB_CHECK(t_alloc.frees == 1 && t_alloc.last_ptr == t_alloc.pool &&
		  t_alloc.last_type == SIB_RES_TYPE_QP && parent.refs == 0,
		  "free callback with the same pointer and type, ref dropped");

	/* IBV_ALLOCATOR_USE_DEFAULT: calloc, still a reference, no free callback */
	t_alloc.use_default = 1;
	cq = sib_obj_calloc(&parent.ibv_pd, sizeof(*cq), SIB_RES_TYPE_CQ, &mem);
	SIB_CHECK(cq && (void *)cq != t_alloc.pool && !mem.custom &&
		  parent.refs == 1 && t_alloc.last_type == SIB_RES_TYPE_CQ,
		  "USE_DEFAULT falls back to calloc");
	sib_obj_free(cq, &mem);
	SIB_CHECK(t_alloc.frees == 1 && parent.refs == 0,
		  "default memory not given to the free callback");
	t_alloc.use_default = 0;

	/* a parent domain without allocators */
	cq = sib_obj_calloc(&plain_parent.ibv_pd, sizeof(*cq), SIB_RES_TYPE_CQ,
			    &mem);
	SIB_CHECK(cq && !mem.custom && plain_parent.refs == 1 &&
		  t_alloc.allocs == 2, "parent domain without allocators: calloc");
	sib_obj_free(cq, &mem);
	SIB_CHECK(plain_parent.refs == 0, "ref dropped");
}

static void test_cq_timestamps(void)
{
	struct ibv_poll_cq_attr pa = { 0 };
	struct sib_ring_hdr *h;
	struct ibv_cq_ex *ex;
	struct sib_cqe *c;
	struct sib_cq cq;

	memset(&cq, 0, sizeof(cq));
	pthread_spin_init(&cq.lock, 0);
	cq.ring.buf = calloc(1, SIB_RING_HDR_SIZE + 4 * SIB_CQE_SIZE);
	cq.ring.num = 4;
	cq.ring.stride = SIB_CQE_SIZE;
	h = cq.ring.buf;
	c = sib_ring_slot(cq.ring.buf, 0, 4, SIB_CQE_SIZE);
	c->wr_id = 7;
	c->wc_flags = SIB_WC_F_TIMESTAMP;
	c->timestamp = 1700000000123456789ULL;
	h->producer = 1;

	ex = &cq.vcq.cq_ex;
	sib_cq_ex_setup(&cq, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			     IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	SIB_CHECK(ex->read_completion_ts && ex->read_completion_wallclock_ns,
		  "timestamp readers installed");
	SIB_CHECK(ex->start_poll(ex, &pa) == 0 && ex->wr_id == 7 &&
		  ex->read_completion_ts(ex) == 1700000000123456789ULL &&
		  ex->read_completion_wallclock_ns(ex) == 1700000000123456789ULL,
		  "raw and wall-clock timestamp: the CQE's ns");
	ex->end_poll(ex);
	free(cq.ring.buf);
}

static void test_dm_copies(void)
{
	uint8_t mem[4096], host[128], back[128];
	struct sib_dm dm;
	struct ibv_dm *d = &dm.vdm.dm;
	size_t i;

	memset(&dm, 0, sizeof(dm));
	memset(mem, 0xee, sizeof(mem));
	dm.vdm.handle = 5;
	sib_dm_attach(&dm, NULL, mem, sizeof(mem), 100);
	SIB_CHECK(d->handle == 5 && d->comp_mask == 0, "DM handle, comp_mask");
	for (i = 0; i < sizeof(host); i++)
		host[i] = (uint8_t)i;
	SIB_CHECK(d->memcpy_to_dm(d, 8, host, 92) == 0 &&
		  !memcmp(mem + 8, host, 92) && mem[7] == 0xee && mem[100] == 0xee,
		  "copy to DM up to its last byte, nothing around it");
	memset(back, 0, sizeof(back));
	SIB_CHECK(d->memcpy_from_dm(back, d, 8, 92) == 0 && !memcmp(back, host, 92),
		  "copy from DM");
	SIB_CHECK(d->memcpy_to_dm(d, 0, host, 0) == 0 &&
		  d->memcpy_from_dm(back, d, 100, 0) == 0, "0 bytes, also at the end");
	/* whole words only */
	SIB_CHECK(d->memcpy_to_dm(d, 1, host, 4) == EINVAL &&
		  d->memcpy_to_dm(d, 4, host, 3) == EINVAL &&
		  d->memcpy_from_dm(back, d, 2, 4) == EINVAL &&
		  d->memcpy_from_dm(back, d, 4, 6) == EINVAL,
		  "unaligned offset or length: EINVAL");
	/* inside the DM's 100 bytes, not the mapping's 4096 */
	SIB_CHECK(d->memcpy_to_dm(d, 0, host, 104) == EFAULT &&
		  d->memcpy_to_dm(d, 104, host, 4) == EFAULT &&
		  d->memcpy_from_dm(back, d, 100, 4) == EFAULT &&
		  d->memcpy_from_dm(back, d, 0xfffffffffffffffcULL, 8) == EFAULT,
		  "beyond the DM, wrapping ranges: EFAULT");
	SIB_CHECK(mem[100] == 0xee && mem[104] == 0xee, "refused copies wrote nothing");
}

void sib_ext_tests(void)
{
	test_parent_domain_alloc();
	test_cq_timestamps();
	test_dm_copies();
}
