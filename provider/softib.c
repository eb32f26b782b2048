// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: registration with libibverbs, device and context, and the
 * verbs that are plain uverbs commands (query, PD, MR, MW, AH, multicast).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "softib.h"

static const struct verbs_match_ent sib_match_table[] = {
	VERBS_DRIVER_ID(SIB_DRIVER_ID),
	VERBS_NAME_MATCH(SIB_NAME_PREFIX, NULL),
	{},
};

static int sib_query_device_ex(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);

	return ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
					&resp_size);
}

int sib_ctx_atomic_cap(struct ibv_context *ibctx, enum ibv_atomic_cap *cap)
{
	struct sib_context *ctx = to_sib_ctx(ibctx);
	struct ibv_device_attr_ex attr;
	int ret = 0;

	pthread_mutex_lock(&ctx->caps_lock);
	if (!ctx->caps_known) {
		ret = sib_query_device_ex(ibctx, NULL, &attr, sizeof(attr));
		if (!ret) {
			ctx->atomic_cap = attr.orig_attr.atomic_cap;
			ctx->caps_known = 1;
		}
	}
	*cap = ctx->atomic_cap;
	pthread_mutex_unlock(&ctx->caps_lock);
	return ret;
}

static int sib_query_port(struct ibv_context *ctx, uint8_t port,
			  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *sib_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct sib_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_pd(ctx, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * A parent domain is provider-only state around an existing PD: the
 * kernel only ever sees the PD's handle, which the parent domain copies.
 */
static struct ibv_pd *
sib_alloc_parent_domain(struct ibv_context *ctx,
			struct ibv_parent_domain_init_attr *attr)
{
	struct sib_pd *pd, *inner;

	if (!attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	inner = to_sib_pd(attr->pd);
	if (attr->pd->context != ctx || inner->protection_domain ||
	    attr->td ||
	    (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))) {
		/* no thread domains: softib has no doorbell resources to split */
		errno = attr->td ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (!attr->alloc || !attr->free)) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	/* commands on the parent domain act on the PD it contains */
	pd->ibv_pd.context = ctx;
	pd->ibv_pd.handle = attr->pd->handle;
	pd->protection_domain = inner;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	__atomic_add_fetch(&inner->refs, 1, __ATOMIC_RELAXED);
	return &pd->ibv_pd;
}

static int sib_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sib_pd *pd = to_sib_pd(ibpd);
	int ret;

	/* parent domains on a PD, objects on a parent domain */
	if (__atomic_load_n(&pd->refs, __ATOMIC_RELAXED))
		return EBUSY;
	if (pd->protection_domain) {
		__atomic_sub_fetch(&pd->protection_domain->refs, 1,
				   __ATOMIC_RELAXED);
		free(pd);
		return 0;
	}
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (!ret)
		free(pd);
	return ret;
}

void *sib_obj_calloc(struct ibv_pd *ibpd, size_t size, uint64_t resource_type,
		     struct sib_obj_mem *mem)
{
	struct sib_pd *pd = ibpd ? to_sib_pd(ibpd) : NULL;
	void *p = IBV_ALLOCATOR_USE_DEFAULT;

	memset(mem, 0, sizeof(*mem));
	if (pd && pd->protection_domain) {
		mem->parent = pd;
		mem->resource_type = resource_type;
		if (pd->alloc)
			p = pd->alloc(ibpd, pd->pd_context, size, 64,
				      resource_type);
	}
	if (p == IBV_ALLOCATOR_USE_DEFAULT) {
		p = calloc(1, size);
	} else if (p) {
		mem->custom = 1;
		memset(p, 0, size);
	}
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	if (mem->parent)
		__atomic_add_fetch(&mem->parent->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void sib_obj_free(void *obj, const struct sib_obj_mem *in_obj)
{
	struct sib_obj_mem mem = *in_obj;	/* @in_obj may lie in @obj */

	if (mem.custom)
		mem.parent->free(&mem.parent->ibv_pd, mem.parent->pd_context,
				 obj, mem.resource_type);
	else
		free(obj);
	if (mem.parent)
		__atomic_sub_fetch(&mem.parent->refs, 1, __ATOMIC_RELAXED);
}

/*
 * The device clock is the kernel's CLOCK_REALTIME in ns (hca_core_clock
 * 1 GHz), so user space reads it without a system call.
 */
static int sib_query_rt_values(struct ibv_context *ctx,
			       struct ibv_values_ex *values)
{
	uint32_t want = values->comp_mask;

	(void)ctx;
	values->comp_mask = 0;
	if (want & IBV_VALUES_MASK_RAW_CLOCK) {
		if (clock_gettime(CLOCK_REALTIME, &values->raw_clock))
			return errno;
		values->comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	return 0;
}

static struct ibv_mr *sib_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int sib_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

static int sib_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	/* the kernel answers new keys; libibverbs updates pd, addr, length */
	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

static struct ibv_mw *sib_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int sib_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

static struct ibv_ah *sib_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct {
		struct ib_uverbs_create_ah_resp ibv_resp;
		struct sib_create_ah_resp drv;
	} resp;
	struct sib_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibv_ah;
}

static int sib_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (!ret)
		free(to_sib_ah(ibah));
	return ret;
}

static void sib_free_context(struct ibv_context *ibctx)
{
	struct sib_context *ctx = to_sib_ctx(ibctx);

	pthread_mutex_destroy(&ctx->caps_lock);
	pthread_mutex_destroy(&ctx->db_lock);
	verbs_uninit_context(&ctx->vctx);
	if (ctx->db_fd >= 0)
		close(ctx->db_fd);
	free(ctx);
}

/* .name = sib_name: an op whose function carries the op's own name */
#define SIB_CTX_OP(name) .name = sib_##name

static const struct verbs_context_ops sib_ctx_ops = {
	/* sorted by name */
	SIB_CTX_OP(alloc_mw),
	SIB_CTX_OP(alloc_parent_domain),
	SIB_CTX_OP(alloc_pd),
	.attach_mcast = ibv_cmd_attach_mcast,
	SIB_CTX_OP(bind_mw),
	SIB_CTX_OP(close_xrcd),
	SIB_CTX_OP(create_ah),
	SIB_CTX_OP(create_cq),
	SIB_CTX_OP(create_cq_ex),
	SIB_CTX_OP(create_qp),
	SIB_CTX_OP(create_qp_ex),
	SIB_CTX_OP(create_srq),
	SIB_CTX_OP(create_srq_ex),
	SIB_CTX_OP(dealloc_mw),
	SIB_CTX_OP(dealloc_pd),
	SIB_CTX_OP(dereg_mr),
	SIB_CTX_OP(destroy_ah),
	SIB_CTX_OP(destroy_cq),
	SIB_CTX_OP(destroy_qp),
	SIB_CTX_OP(destroy_srq),
	.detach_mcast = ibv_cmd_detach_mcast,
	SIB_CTX_OP(free_context),
	SIB_CTX_OP(get_srq_num),
	SIB_CTX_OP(modify_qp),
	SIB_CTX_OP(modify_srq),
	SIB_CTX_OP(open_xrcd),
	SIB_CTX_OP(poll_cq),
	SIB_CTX_OP(post_recv),
	SIB_CTX_OP(post_send),
	SIB_CTX_OP(post_srq_recv),
	SIB_CTX_OP(query_device_ex),
	SIB_CTX_OP(query_port),
	SIB_CTX_OP(query_qp),
	SIB_CTX_OP(query_rt_values),
	SIB_CTX_OP(query_srq),
	SIB_CTX_OP(reg_mr),
	SIB_CTX_OP(req_notify_cq),
	SIB_CTX_OP(rereg_mr),
	SIB_CTX_OP(resize_cq),
};

/* the environment variable @name is set to @value */
static int sib_env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

static struct verbs_context *sib_alloc_context(struct ibv_device *ibdev,
					       int cmd_fd, void *private_data)
{
	struct {
		struct ib_uverbs_get_context_resp ibv_resp;
		struct sib_alloc_ucontext_resp drv;
	} resp;
	struct ibv_get_context cmd;
	struct sib_context *ctx;
	int ret;

	(void)private_data;
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   SIB_DRIVER_ID);
	if (!ctx)
		return NULL;
	ctx->db_fd = -1;

	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_uninit;

	/* refuse a kernel whose shared formats differ from ours */
	if (resp.drv.cqe_size != SIB_CQE_SIZE ||
	    resp.drv.send_wqe_hdr_size != SIB_SEND_WQE_HDR_SIZE ||
	    resp.drv.recv_wqe_hdr_size != SIB_RECV_WQE_HDR_SIZE) {
		ret = EPROTO;
		goto err_uninit;
	}
	ctx->cqe_size = resp.drv.cqe_size;
	ctx->send_wqe_hdr_size = resp.drv.send_wqe_hdr_size;
	ctx->recv_wqe_hdr_size = resp.drv.recv_wqe_hdr_size;
	ctx->max_inline_data = resp.drv.max_inline_data;
	ctx->ring_magic = !!(resp.drv.comp_mask & SIB_UCTX_RESP_F_RING_MAGIC);
	ctx->db_ioctl = (resp.drv.comp_mask & SIB_UCTX_RESP_F_DB_IOCTL) &&
			!sib_env_is("SOFTIB_DOORBELL", "write");
	/* opened and bound by the context's first QP: sib_db_file_prepare() */
	if ((resp.drv.comp_mask & SIB_UCTX_RESP_F_DB_FILE) &&
	    !sib_env_is("SOFTIB_DOORBELL", "write") &&
	    !sib_env_is("SOFTIB_DOORBELL", "ioctl"))
		ctx->db_fd = SIB_DB_FD_UNTRIED;
	pthread_mutex_init(&ctx->caps_lock, NULL);
	pthread_mutex_init(&ctx->db_lock, NULL);

	verbs_set_ops(&ctx->vctx, &sib_ctx_ops);
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static struct verbs_device *sib_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sib_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->abi_version = sysfs_dev->abi_ver;
	return &dev->vdev;
}

static void sib_uninit_device(struct verbs_device *vdev)
{
	free((struct sib_device *)vdev);
}

/* Exported (through the alias below) so tests can inspect the match table. */
const struct verbs_device_ops sib_dev_ops = {
	.name = "softib",
	.match_min_abi_version = SIB_UVERBS_ABI_VERSION,
	.match_max_abi_version = SIB_UVERBS_ABI_VERSION,
	.match_table = sib_match_table,
	.alloc_device = sib_alloc_device,
	.uninit_device = sib_uninit_device,
	.alloc_context = sib_alloc_context,
};

SIB_PROVIDER_DRIVER(softib, sib_dev_ops)
