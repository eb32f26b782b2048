/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsoftib: the rdma-core provider of the softib software RoCEv2 device.
 * Provider objects, the shared-ring helpers and, one section per file, the
 * functions that the provider's files use across each other. Files call
 * one way, down: softib.c | cq.c qp.c srq.c | qp_ex.c ring.c | device.c
 * doorbell.c pd.c wqe.c (docs/design.md, tests/file-graph).
 *
 * Rings (see include/uapi/rdma/softib-abi.h): a 128-byte header with a
 * free-running producer and consumer index, then 2^n fixed-size slots.
 * The provider produces into SQ/RQ/SRQ rings and consumes from CQ rings.
 * Each side keeps its own index in private memory and only publishes it;
 * the other side's index is always re-read with acquire ordering.
 */
#ifndef SIB_PROVIDER_H
#define SIB_PROVIDER_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <infiniband/verbs.h>
#include <rdma/softib-abi.h>
#include "sib_driver.h"

/* ------------------------------------------------------------------ */
/* ring index math (pure, unit tested)                                */
/* ------------------------------------------------------------------ */

/* Number of entries between a consumer and a producer index. */
static inline uint32_t sib_ring_used(uint32_t prod, uint32_t cons)
{
	return prod - cons;
}

/* True when @limit entries are outstanding (producer must not advance). */
static inline int sib_ring_full(uint32_t prod, uint32_t cons, uint32_t limit)
{
	return sib_ring_used(prod, cons) >= limit;
}

/* True when the consumer has caught up with the producer. */
static inline int sib_ring_empty(uint32_t prod, uint32_t cons)
{
	return prod == cons;
}

/* Address of slot @idx of a ring of @num (power of two) slots. */
static inline void *sib_ring_slot(void *ring, uint32_t idx, uint32_t num,
				  uint32_t stride)
{
	return (char *)ring + SIB_RING_HDR_SIZE +
	       (size_t)(idx & (num - 1)) * stride;
}

/* The smaller of @a and @b (ring limits: the kernel's size, the caller's cap). */
static inline uint32_t sib_min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Load the index written by the other side (pairs with its release). */
static inline uint32_t sib_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Publish our own index after the slot contents it covers. */
static inline void sib_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* A ring mapped from the kernel through the uverbs fd. */
struct sib_ring {
	void *buf;			/* mmap()ed area, header first */
	size_t map_size;
	uint32_t num;			/* slots, power of two */
	uint32_t stride;		/* bytes per slot */
	uint32_t limit;			/* max outstanding entries */
	uint32_t idx;			/* our private producer or consumer index */
	int check_magic;		/* the kernel keeps SIB_RING_MAGIC in the header */
};

/* The shared header of @r. */
static inline struct sib_ring_hdr *sib_ring_hdr(struct sib_ring *r)
{
	return (struct sib_ring_hdr *)r->buf;
}

/*
 * True when the kernel destroyed the object behind @r without us asking,
 * i.e. the device went away under this process: fail the verb with EIO.
 */
static inline int sib_ring_dead(struct sib_ring *r)
{
	return r->check_magic &&
	       sib_load_acquire(&sib_ring_hdr(r)->magic) != SIB_RING_MAGIC;
}

/* ------------------------------------------------------------------ */
/* provider objects                                                   */
/* ------------------------------------------------------------------ */

struct sib_device {
	struct verbs_device vdev;
	uint32_t abi_version;
};

#define SIB_DB_FD_UNTRIED (-2)

struct sib_context {
	struct verbs_context vctx;
	uint32_t cqe_size;
	uint32_t send_wqe_hdr_size;
	uint32_t recv_wqe_hdr_size;
	uint32_t max_inline_data;
	int ring_magic;			/* SIB_UCTX_RESP_F_RING_MAGIC */
	int db_ioctl;			/* SIB_UCTX_RESP_F_DB_IOCTL, not forced off */
	/*
	 * The bound doorbell file, -1 when there is none, SIB_DB_FD_UNTRIED
	 * while the kernel offers one and no QP has been created yet (read
	 * with acquire; set once, under db_lock)
	 */
	int db_fd;
	int db_fd_gone;			/* it answered ENOTCONN: unbound for good */
	pthread_mutex_t db_lock;	/* serializes that first open and bind */
	pthread_mutex_t caps_lock;
	int caps_known;			/* the fields below are valid */
	enum ibv_atomic_cap atomic_cap;
};

/*
 * Device memory (dm.c): the kernel's memory of the DM, mapped at @buf
 * (@mmap_size bytes, the first @length of them the DM's).
 */
struct sib_dm {
	struct verbs_dm vdm;
	void *buf;
	size_t mmap_size;
	uint64_t length;
};

static inline struct sib_dm *to_sib_dm(struct ibv_dm *dm)
{
	return (struct sib_dm *)dm;
}

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain) that
 * wraps one: then @protection_domain is the PD inside (whose kernel handle
 * the parent domain carries) and @alloc/@free, when set, allocate the
 * provider's per-object memory of QPs and CQs created on it.
 */
struct sib_pd {
	struct ibv_pd ibv_pd;
	struct sib_pd *protection_domain;	/* NULL for a plain PD */
	int refs;			/* atomic: parent domains / objects on it */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/*
 * resource_type values passed to a parent domain's alloc/free callbacks
 * (vendor specific, like mlx5dv's): the provider's state of a QP or CQ.
 */
#define SIB_RES_TYPE_QP ((uint64_t)SIB_DRIVER_ID << 32 | 1)
#define SIB_RES_TYPE_CQ ((uint64_t)SIB_DRIVER_ID << 32 | 2)

/* How an object's memory was obtained (sib_obj_calloc), to free it alike. */
struct sib_obj_mem {
	struct sib_pd *parent;		/* parent domain holding a ref, or NULL */
	uint64_t resource_type;		/* IBV_RES_TYPE_* */
	int custom;			/* from parent->alloc, not calloc */
};

/*
 * An address range of a CQ that has held a ring since its first resize:
 * the current ring is mapped at the start of one of them; the others are
 * spares, anonymous read-only mappings of zero pages (readable, backed by
 * no memory), where the next rings go. See sib_resize_cq().
 */
struct sib_ring_range {
	struct sib_ring_range *next;
	void *addr;
	size_t size;
};

/*
 * @lock: pollers and resize. @ring.buf and @ring.idx are also read without
 * it, by the empty check of sib_cq_peek_empty(): every address @ring.buf
 * ever held stays readable until destroy (@ranges, from the first resize
 * on), and @gen, odd while a resize swaps @ring, tells that check to
 * retry under the lock.
 */
struct sib_cq {
	struct verbs_cq vcq;
	struct sib_obj_mem mem;
	pthread_spinlock_t lock;
	struct sib_ring ring;
	uint32_t gen;
	struct sib_ring_range *ranges;
	uint64_t wc_flags;		/* ibv_cq_ex fields the user asked for */
	struct sib_cqe cur;		/* copy of the CQE an ex poll is on */
};

struct sib_wq {
	pthread_spinlock_t lock;
	struct sib_ring ring;
	uint32_t max_sge;
	uint32_t max_inline;
};

/* Initialise the lock of a QP's SQ or RQ, or of an SRQ. Return: 0 or errno. */
static inline int sib_wq_init(struct sib_wq *wq)
{
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

struct sib_qp {
	struct verbs_qp vqp;
	struct sib_obj_mem mem;
	struct sib_wq sq;
	struct sib_wq rq;
	int sq_sig_all;
	/* ibv_qp_ex post API state, valid between wr_start and complete */
	struct sib_send_wqe *cur_wqe;
	uint32_t ex_start_idx;
	int ex_err;
};

struct sib_srq {
	struct verbs_srq vsrq;
	struct sib_wq rq;
	uint32_t srq_num;
};

/* a receive WQ of RSS: a receive ring like an SRQ's */
struct sib_rwq {
	struct ibv_wq wq;
	struct sib_wq rq;
};

struct sib_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_num;
};

static inline struct sib_context *to_sib_ctx(struct ibv_context *ctx)
{
	return (struct sib_context *)sib_verbs_ctx(ctx);
}

static inline struct sib_pd *to_sib_pd(struct ibv_pd *pd)
{
	return (struct sib_pd *)pd;
}

static inline struct sib_cq *to_sib_cq(struct ibv_cq *cq)
{
	return (struct sib_cq *)cq;
}

static inline struct sib_cq *ex_to_sib_cq(struct ibv_cq_ex *cq)
{
	return (struct sib_cq *)cq;
}

static inline struct sib_qp *to_sib_qp(struct ibv_qp *qp)
{
	return (struct sib_qp *)qp;
}

static inline struct sib_qp *ex_to_sib_qp(struct ibv_qp_ex *qp)
{
	return (struct sib_qp *)qp;
}

static inline struct sib_srq *to_sib_srq(struct ibv_srq *srq)
{
	return (struct sib_srq *)srq;
}

static inline struct sib_ah *to_sib_ah(struct ibv_ah *ah)
{
	return (struct sib_ah *)ah;
}

/* ------------------------------------------------------------------ */
/* wqe.c: WQE and CQE translation (pure, unit tested)                 */
/* ------------------------------------------------------------------ */

/**
 * sib_opcode_valid() - may @opcode be posted on a QP of type @qpt?
 * Return: 1 if the send opcode is supported for the transport, else 0.
 */
int sib_opcode_valid(enum ibv_qp_type qpt, enum ibv_wr_opcode opcode);

/**
 * sib_build_send_wqe() - encode one ibv_send_wr into a send-queue slot.
 * @slot:	destination slot of the SQ ring (stride bytes, any content)
 * @stride:	slot size in bytes
 * @wr:		the work request (wr->next is ignored)
 * @qpt:	QP type, selects UD addressing and allowed opcodes
 * @max_sge:	QP's max_send_sge
 * @max_inline:	QP's max_inline_data
 * @sig_all:	QP was created with sq_sig_all
 *
 * Inline payload is copied into the slot, sge lists are copied as is.
 * Return: 0, or EINVAL for a bad opcode, flag, sge count, inline length or
 * missing AH. The slot may be partly written on error.
 */
int sib_build_send_wqe(void *slot, uint32_t stride,
		       const struct ibv_send_wr *wr, enum ibv_qp_type qpt,
		       uint32_t max_sge, uint32_t max_inline, int sig_all);

/**
 * sib_build_recv_wqe() - encode one ibv_recv_wr into a receive slot.
 * Return: 0, or EINVAL when num_sge exceeds @max_sge or the slot.
 */
int sib_build_recv_wqe(void *slot, uint32_t stride,
		       const struct ibv_recv_wr *wr, uint32_t max_sge);

/**
 * sib_wc_flags() - translate SIB_WC_F_* bits into enum ibv_wc_flags bits.
 */
unsigned int sib_wc_flags(uint16_t cqe_flags);

/**
 * sib_cqe_sl() - the sl of a CQE as an ibv_wc reports it: the SL of an IB
 * packet, and for a RoCEv2 datagram (which carries no SL) the type of its L3
 * header (SIB_WC_SL_ROCE_IPV4 or SIB_WC_SL_ROCE_IPV6), so that a user of the
 * GRH area knows where the destination address is (IPv4: the last 4 of the
 * 40 bytes; IPv6: the last 16).
 */
uint8_t sib_cqe_sl(const struct sib_cqe *cqe);
#define SIB_WC_SL_ROCE_IPV6	1
#define SIB_WC_SL_ROCE_IPV4	2

/**
 * sib_cqe_to_wc() - translate one CQE read from the CQ ring into an ibv_wc.
 */
void sib_cqe_to_wc(const struct sib_cqe *cqe, struct ibv_wc *wc);

/* ------------------------------------------------------------------ */
/* cross-file verbs                                                   */
/* ------------------------------------------------------------------ */

/* ring.c: rings shared with the kernel */
/**
 * sib_mmap_ring() - map a ring the kernel described in a create response.
 * Return: 0 or errno (ring->buf stays NULL on failure; size 0 maps nothing).
 */
int sib_mmap_ring(struct ibv_context *ctx, struct sib_ring *ring,
		  uint64_t offset, uint64_t size, uint32_t num,
		  uint32_t stride);
/**
 * sib_mmap_ring_at() - sib_mmap_ring() at @addr (MAP_FIXED: it replaces
 * whatever the process had mapped there, in one step) or, with @addr
 * NULL, where the kernel chooses. A failed MAP_FIXED mapping may leave
 * the range unmapped. Return: 0 or errno.
 */
int sib_mmap_ring_at(struct ibv_context *ctx, struct sib_ring *ring,
		     void *addr, uint64_t offset, uint64_t size, uint32_t num,
		     uint32_t stride);
/** sib_munmap_ring() - undo sib_mmap_ring(); safe on an unmapped ring. */
void sib_munmap_ring(struct sib_ring *ring);
/**
 * sib_post_recv_ring() - post a list of receive WRs into an RQ or SRQ ring.
 * @rq:		the QP's receive queue or the SRQ's queue
 * @wr:		the first WR of the list (not NULL)
 * @bad_wr:	out: the first WR not posted, left alone when all were
 *
 * Context: any thread; takes rq->lock. No system call: the producer index
 * is published with a release store.
 * Return: 0, EIO when the kernel destroyed the queue under the process
 * (device gone), ENOMEM when the ring is full, EINVAL for a bad WR.
 */
int sib_post_recv_ring(struct sib_wq *rq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

/* dm.c: device memory, MRs on it */
/**
 * sib_dm_attach() - make @dm the DM whose @length bytes are at @buf (a
 * mapping of @mmap_size bytes) in @ctx, with the copies of
 * ibv_memcpy_to_dm/from_dm: whole 4-byte words inside the DM (EINVAL for
 * an offset or length not a multiple of 4, EFAULT for a range beyond it).
 */
void sib_dm_attach(struct sib_dm *dm, struct ibv_context *ctx, void *buf,
		   size_t mmap_size, uint64_t length);
/** sib_alloc_dm() - ibv_alloc_dm verb. Return: the DM or NULL, errno set. */
struct ibv_dm *sib_alloc_dm(struct ibv_context *ctx,
			    struct ibv_alloc_dm_attr *attr);
/** sib_free_dm() - ibv_free_dm verb. Return: 0 or errno (EBUSY: MRs on it). */
int sib_free_dm(struct ibv_dm *dm);
/**
 * sib_import_dm() - ibv_import_dm verb: the DM of @dm_handle in the
 * (imported) context @ctx, mapped again. Return: the DM or NULL, errno set
 * (ENOENT: no DM of that handle).
 */
struct ibv_dm *sib_import_dm(struct ibv_context *ctx, uint32_t dm_handle);
/** sib_unimport_dm() - ibv_unimport_dm verb: unmap, the DM itself stays. */
void sib_unimport_dm(struct ibv_dm *dm);
/**
 * sib_reg_dm_mr() - ibv_reg_dm_mr verb: a zero-based MR on @length bytes of
 * @dm from @dm_offset. Return: the MR or NULL, errno set (EINVAL: access
 * flags other than zero based, local write, remote read/write/atomic, or a
 * range beyond the DM).
 */
struct ibv_mr *sib_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
			     uint64_t dm_offset, size_t length,
			     unsigned int access);

/* device.c: the device's attributes */
/** sib_query_device_ex() - ibv_query_device_ex verb (a uverbs command). */
int sib_query_device_ex(struct ibv_context *ctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size);
/** sib_query_port() - ibv_query_port verb (a uverbs command). */
int sib_query_port(struct ibv_context *ctx, uint8_t port,
		   struct ibv_port_attr *attr);
/**
 * sib_query_rt_values() - ibv_query_rt_values_ex verb: the device clock,
 * CLOCK_REALTIME in ns, read without a system call.
 * Return: 0 or the errno of clock_gettime().
 */
int sib_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values);
/**
 * sib_ctx_atomic_cap() - the device's atomic capability, queried from the
 * kernel once per context.
 * @ctx:	the context
 * @cap:	out: the capability
 *
 * Context: any thread; takes the context's caps_lock.
 * Return: 0 or errno; *cap set on success.
 */
int sib_ctx_atomic_cap(struct ibv_context *ctx, enum ibv_atomic_cap *cap);

/* pd.c: protection domains, parent domains, object memory */
/** sib_alloc_pd() - ibv_alloc_pd verb. */
struct ibv_pd *sib_alloc_pd(struct ibv_context *ctx);
/**
 * sib_alloc_parent_domain() - ibv_alloc_parent_domain verb: a PD with the
 * application's allocator for the QPs and CQs created on it (no thread
 * domains). Return: the parent domain, or NULL with errno set.
 */
struct ibv_pd *
sib_alloc_parent_domain(struct ibv_context *ctx,
			struct ibv_parent_domain_init_attr *attr);
/**
 * sib_dealloc_pd() - ibv_dealloc_pd verb, of a PD or a parent domain.
 * Return: 0, EBUSY while parent domains or objects use it, or the errno
 * of the command.
 */
int sib_dealloc_pd(struct ibv_pd *pd);
/**
 * sib_obj_calloc() - zeroed memory for a provider object created on @pd.
 * @pd:		the object's PD or parent domain (NULL: no domain)
 * @size:	bytes
 * @resource_type: SIB_RES_TYPE_QP or _CQ, passed to the allocator
 * @mem:	out: how to free it; copy into the object
 *
 * Uses the parent domain's alloc callback when it has one (falling back to
 * calloc when it answers IBV_ALLOCATOR_USE_DEFAULT) and then holds a
 * reference on the parent domain. Return: the memory or NULL (ENOMEM).
 */
void *sib_obj_calloc(struct ibv_pd *pd, size_t size, uint64_t resource_type,
		     struct sib_obj_mem *mem);
/** sib_obj_free() - free @obj from sib_obj_calloc(); @mem may lie in @obj. */
void sib_obj_free(void *obj, const struct sib_obj_mem *mem);

/* doorbell.c: publishing the SQ, the send doorbells, the doorbell file */
#define SIB_IOCTL_MAX_ATTRS 4
/**
 * sib_uverbs_ioctl() - call a method of the uverbs ioctl interface
 * (RDMA_VERBS_IOCTL on @cmd_fd) with @num_attrs attributes, at most
 * SIB_IOCTL_MAX_ATTRS, built by the caller: for the driver methods and
 * attributes of softib-abi.h, which libibverbs has no wrapper for.
 * Return: 0 or the errno of ioctl() (EINVAL for too many attributes).
 */
struct ib_uverbs_attr;
int sib_uverbs_ioctl(int cmd_fd, uint16_t object, uint16_t method,
		     const struct ib_uverbs_attr *attrs, unsigned int num_attrs);
/**
 * sib_db_file_prepare() - open and bind the context's doorbell file the first
 * time a QP is created in it (an application that never creates a QP, such
 * as librdmacm opening every device, holds no extra file descriptor).
 * @ctx:	the context of the QP being created
 *
 * Context: any thread; takes ctx->db_lock. A failure (no /dev/softib_db,
 * EMFILE, ...) sets db_fd to -1 for good and leaves the doorbells on the
 * ioctl or write kinds; nothing is returned.
 */
void sib_db_file_prepare(struct sib_context *ctx);
/**
 * sib_sq_publish() - make SQ slots up to the private producer index
 * visible to the kernel and ring the doorbell when the kernel is idle.
 * @qp:		the QP whose qp->sq.ring.idx is to be published
 *
 * Context: any thread; the caller holds qp->sq.lock.
 * Return: 0 (no doorbell needed, or it was rung) or the errno of the
 * doorbell system call.
 */
int sib_sq_publish(struct sib_qp *qp);

/**
 * sib_rq_published() - receive WQEs were published to the QP's RQ ring:
 * when the kernel says the QP is in the error state (the ring header's
 * qp_error), ring the QP's doorbell so that the kernel completes them with
 * IBV_WC_WR_FLUSH_ERR (IBTA 10.3.1); nothing otherwise.
 * @qp:		QP with an RQ ring
 *
 * Context: any thread, after the RQ producer's store. A failed doorbell
 * leaves the WQEs posted (the next run flushes them).
 */
void sib_rq_published(struct sib_qp *qp);

/* cq.c */
/** sib_create_cq() - ibv_create_cq verb. */
struct ibv_cq *sib_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector);
/** sib_create_cq_ex() - ibv_create_cq_ex verb with the ex poll API. */
struct ibv_cq_ex *sib_create_cq_ex(struct ibv_context *ctx,
				   struct ibv_cq_init_attr_ex *attr);
/**
 * sib_cq_ex_setup() - install the ibv_cq_ex poll functions; the read_*
 * functions only for the fields in @wc_flags (IBV_WC_EX_WITH_*).
 */
void sib_cq_ex_setup(struct sib_cq *cq, uint64_t wc_flags);
/** sib_poll_cq() - poll up to @ne CQEs from the shared ring, no syscall. */
int sib_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
/** sib_req_notify_cq() - arm the CQ through the kernel. */
int sib_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
/** sib_resize_cq() - resize; the kernel answers with a new ring. */
int sib_resize_cq(struct ibv_cq *ibcq, int cqe);
/** sib_destroy_cq() - destroy the CQ and unmap its ring. */
int sib_destroy_cq(struct ibv_cq *ibcq);

/* qp.c */
/** sib_create_qp() - ibv_create_qp verb. */
struct ibv_qp *sib_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
/** sib_create_qp_ex() - ibv_create_qp_ex verb (ibv_qp_ex post API too). */
struct ibv_qp *sib_create_qp_ex(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr);
/** sib_modify_qp() - ibv_modify_qp verb. */
int sib_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
/** sib_query_qp() - ibv_query_qp verb. */
int sib_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init);
/** sib_destroy_qp() - destroy the QP and unmap its rings. */
int sib_destroy_qp(struct ibv_qp *qp);
/** sib_post_send() - write WQEs into the SQ ring; doorbell if idle. */
int sib_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
/** sib_post_recv() - write WQEs into the RQ ring, no syscall. */
int sib_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
/** sib_bind_mw() - bind a type 1 MW by posting a BIND_MW WQE. */
int sib_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		struct ibv_mw_bind *bind);

/* qp_ex.c */
/** sib_qp_ex_setup() - install the ibv_qp_ex wr_* functions on @qp. */
void sib_qp_ex_setup(struct sib_qp *qp, uint64_t send_ops_flags);

/* srq.c: shared receive queues and XRC domains */
/** sib_create_srq() - ibv_create_srq verb. */
struct ibv_srq *sib_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr);
/** sib_create_srq_ex() - ibv_create_srq_ex verb: basic and XRC SRQs. */
struct ibv_srq *sib_create_srq_ex(struct ibv_context *ctx,
				  struct ibv_srq_init_attr_ex *attr);
/** sib_open_xrcd() - ibv_open_xrcd verb. */
struct ibv_xrcd *sib_open_xrcd(struct ibv_context *ctx,
			       struct ibv_xrcd_init_attr *attr);
/** sib_close_xrcd() - ibv_close_xrcd verb. */
int sib_close_xrcd(struct ibv_xrcd *xrcd);
/** sib_modify_srq() - ibv_modify_srq verb. */
int sib_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
/** sib_query_srq() - ibv_query_srq verb. */
int sib_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
/** sib_destroy_srq() - destroy the SRQ and unmap its ring. */
int sib_destroy_srq(struct ibv_srq *srq);
/** sib_post_srq_recv() - write WQEs into the SRQ ring, no syscall. */
int sib_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
/** sib_post_srq_ops() - ibv_post_srq_ops verb: a TM SRQ's tag list. */
int sib_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
		     struct ibv_ops_wr **bad_op);
/** sib_get_srq_num() - the SRQ number the kernel assigned. */
int sib_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
/** sib_create_wq() - ibv_create_wq verb: a receive WQ for RSS. */
struct ibv_wq *sib_create_wq(struct ibv_context *ctx,
			     struct ibv_wq_init_attr *attr);
/** sib_modify_wq() - ibv_modify_wq verb: the WQ's state. */
int sib_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr);
/** sib_destroy_wq() - destroy the WQ and unmap its ring. */
int sib_destroy_wq(struct ibv_wq *wq);
/** sib_create_rwq_ind_table() - ibv_create_rwq_ind_table verb. */
struct ibv_rwq_ind_table *
sib_create_rwq_ind_table(struct ibv_context *ctx,
			 struct ibv_rwq_ind_table_init_attr *attr);
/** sib_destroy_rwq_ind_table() - ibv_destroy_rwq_ind_table verb. */
int sib_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl);

#endif /* SIB_PROVIDER_H */
