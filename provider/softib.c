// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: registration with libibverbs, device and context, the
 * context's ops (the verbs of every other file of the provider: this file
 * is the top, which none of them calls), and the verbs that are plain
 * uverbs commands (MR, MW, AH, multicast).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include "softib.h"

static const struct verbs_match_ent sib_match_table[] = {
	VERBS_DRIVER_ID(SIB_DRIVER_ID),
	VERBS_NAME_MATCH(SIB_NAME_PREFIX, NULL),
	{},
};

/* the end of a registration: the MR, or NULL with errno @ret */
static struct ibv_mr *sib_mr_done(struct verbs_mr *vmr, int ret)
{
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
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
	return sib_mr_done(vmr, ret);
}

/* ibv_reg_dmabuf_mr: an MR on bytes of a dma-buf; the kernel checks the fd */
static struct ibv_mr *sib_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr);
	return sib_mr_done(vmr, ret);
}

/* ibv_advise_mr: prefetch ODP memory; the kernel checks everything */
static int sib_advise_mr(struct ibv_pd *pd,
			 enum ib_uverbs_advise_mr_advice advice, uint32_t flags,
			 struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
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

/*
 * ibv_import_mr: the MR of @mr_handle in the (imported) context of @pd;
 * its address is not known here (NULL), as the verb says.
 */
static struct ibv_mr *sib_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_query_mr(pd, vmr, mr_handle);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* ibv_unimport_mr: forget the MR here; it stays registered */
static void sib_unimport_mr(struct ibv_mr *mr)
{
	free((struct verbs_mr *)mr);
}

/*
 * ibv_import_pd: the PD of @pd_handle in the (imported) context @ctx,
 * after the kernel confirmed that the handle names one
 * (SIB_METHOD_PD_QUERY).
 */
static struct ibv_pd *sib_import_pd(struct ibv_context *ctx,
				    uint32_t pd_handle)
{
	struct ib_uverbs_attr attr;
	struct sib_pd *pd;
	int ret;

	memset(&attr, 0, sizeof(attr));
	attr.attr_id = SIB_ATTR_PD_QUERY_HANDLE;
	attr.flags = UVERBS_ATTR_F_MANDATORY;
	attr.data = pd_handle;
	ret = sib_uverbs_ioctl(ctx->cmd_fd, UVERBS_OBJECT_PD,
			       SIB_METHOD_PD_QUERY, &attr, 1);
	if (ret) {
		errno = ret == EPROTONOSUPPORT ? EOPNOTSUPP : ret;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv_pd.context = ctx;
	pd->ibv_pd.handle = pd_handle;
	return &pd->ibv_pd;
}

/* ibv_unimport_pd: forget the PD here; it stays allocated */
static void sib_unimport_pd(struct ibv_pd *pd)
{
	free(to_sib_pd(pd));
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

/* steering rules of raw packet QPs: no driver data */
static struct ibv_flow *sib_create_flow(struct ibv_qp *qp,
					struct ibv_flow_attr *attr)
{
	struct ibv_flow *flow = calloc(1, sizeof(*flow));
	int ret;

	if (!flow) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_flow(qp, flow, attr, NULL, 0);
	if (ret) {
		free(flow);
		errno = ret;
		return NULL;
	}
	return flow;
}

static int sib_destroy_flow(struct ibv_flow *flow)
{
	int ret = ibv_cmd_destroy_flow(flow);

	if (!ret)
		free(flow);
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
	SIB_CTX_OP(advise_mr),
	SIB_CTX_OP(alloc_dm),
	SIB_CTX_OP(alloc_mw),
	SIB_CTX_OP(alloc_parent_domain),
	SIB_CTX_OP(alloc_pd),
	.attach_mcast = ibv_cmd_attach_mcast,
	SIB_CTX_OP(bind_mw),
	SIB_CTX_OP(close_xrcd),
	SIB_CTX_OP(create_ah),
	SIB_CTX_OP(create_cq),
	SIB_CTX_OP(create_cq_ex),
	SIB_CTX_OP(create_flow),
	SIB_CTX_OP(create_qp),
	SIB_CTX_OP(create_qp_ex),
	SIB_CTX_OP(create_rwq_ind_table),
	SIB_CTX_OP(create_srq),
	SIB_CTX_OP(create_srq_ex),
	SIB_CTX_OP(create_wq),
	SIB_CTX_OP(dealloc_mw),
	SIB_CTX_OP(dealloc_pd),
	SIB_CTX_OP(dereg_mr),
	SIB_CTX_OP(destroy_ah),
	SIB_CTX_OP(destroy_cq),
	SIB_CTX_OP(destroy_flow),
	SIB_CTX_OP(destroy_qp),
	SIB_CTX_OP(destroy_rwq_ind_table),
	SIB_CTX_OP(destroy_srq),
	SIB_CTX_OP(destroy_wq),
	.detach_mcast = ibv_cmd_detach_mcast,
	SIB_CTX_OP(free_context),
	SIB_CTX_OP(free_dm),
	SIB_CTX_OP(get_srq_num),
	SIB_CTX_OP(import_dm),
	SIB_CTX_OP(import_mr),
	SIB_CTX_OP(import_pd),
	SIB_CTX_OP(modify_qp),
	SIB_CTX_OP(modify_srq),
	SIB_CTX_OP(modify_wq),
	SIB_CTX_OP(open_xrcd),
	SIB_CTX_OP(poll_cq),
	SIB_CTX_OP(post_recv),
	SIB_CTX_OP(post_send),
	SIB_CTX_OP(post_srq_ops),
	SIB_CTX_OP(post_srq_recv),
	SIB_CTX_OP(query_device_ex),
	SIB_CTX_OP(query_port),
	SIB_CTX_OP(query_qp),
	SIB_CTX_OP(query_rt_values),
	SIB_CTX_OP(query_srq),
	SIB_CTX_OP(reg_dm_mr),
	SIB_CTX_OP(reg_dmabuf_mr),
	SIB_CTX_OP(reg_mr),
	SIB_CTX_OP(req_notify_cq),
	SIB_CTX_OP(rereg_mr),
	SIB_CTX_OP(resize_cq),
	SIB_CTX_OP(unimport_dm),
	SIB_CTX_OP(unimport_mr),
	SIB_CTX_OP(unimport_pd),
};

/* the environment variable @name is set to @value */
static int sib_env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

/*
 * Take what the kernel's alloc_ucontext answered (again, for an imported
 * context); the context's ops come last. Return: 0, EPROTO for a kernel
 * whose shared formats differ from ours.
 */
static int sib_context_setup(struct sib_context *ctx,
			     const struct sib_alloc_ucontext_resp *drv)
{
	if (drv->cqe_size != SIB_CQE_SIZE ||
	    drv->send_wqe_hdr_size != SIB_SEND_WQE_HDR_SIZE ||
	    drv->recv_wqe_hdr_size != SIB_RECV_WQE_HDR_SIZE)
		return EPROTO;
	ctx->cqe_size = drv->cqe_size;
	ctx->send_wqe_hdr_size = drv->send_wqe_hdr_size;
	ctx->recv_wqe_hdr_size = drv->recv_wqe_hdr_size;
	ctx->max_inline_data = drv->max_inline_data;
	ctx->ring_magic = !!(drv->comp_mask & SIB_UCTX_RESP_F_RING_MAGIC);
	ctx->db_ioctl = (drv->comp_mask & SIB_UCTX_RESP_F_DB_IOCTL) &&
			!sib_env_is("SOFTIB_DOORBELL", "write");
	/* opened and bound by the context's first QP: sib_db_file_prepare() */
	if ((drv->comp_mask & SIB_UCTX_RESP_F_DB_FILE) &&
	    !sib_env_is("SOFTIB_DOORBELL", "write") &&
	    !sib_env_is("SOFTIB_DOORBELL", "ioctl"))
		ctx->db_fd = SIB_DB_FD_UNTRIED;
	pthread_mutex_init(&ctx->caps_lock, NULL);
	pthread_mutex_init(&ctx->db_lock, NULL);
	verbs_set_ops(&ctx->vctx, &sib_ctx_ops);
	return 0;
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
	if (!ret)
		ret = sib_context_setup(ctx, &resp.drv);
	if (ret)
		goto err_uninit;
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}

/*
 * ibv_import_device: a context on the uverbs fd of another one (a dup of
 * its cmd_fd, maybe from another process). The kernel's context exists;
 * UVERBS_METHOD_QUERY_CONTEXT answers its core facts and, through
 * SIB_ATTR_QUERY_CONTEXT_RESP_UCTX, what alloc_ucontext answered.
 */
static struct verbs_context *sib_import_context(struct ibv_device *ibdev,
						int cmd_fd)
{
	struct sib_alloc_ucontext_resp drv;
	struct ib_uverbs_attr attrs[3];
	struct sib_context *ctx;
	uint64_t core_support = 0;
	uint32_t num_comp_vectors = 0;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, vctx,
					   SIB_DRIVER_ID);
	if (!ctx)
		return NULL;
	ctx->db_fd = -1;

	memset(attrs, 0, sizeof(attrs));
	memset(&drv, 0, sizeof(drv));
	attrs[0].attr_id = UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS;
	attrs[0].len = sizeof(num_comp_vectors);
	attrs[0].data = (uintptr_t)&num_comp_vectors;
	attrs[1].attr_id = UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT;
	attrs[1].len = sizeof(core_support);
	attrs[1].data = (uintptr_t)&core_support;
	attrs[2].attr_id = SIB_ATTR_QUERY_CONTEXT_RESP_UCTX;
	attrs[2].flags = UVERBS_ATTR_F_MANDATORY;
	attrs[2].len = sizeof(drv);
	attrs[2].data = (uintptr_t)&drv;
	ret = sib_uverbs_ioctl(cmd_fd, UVERBS_OBJECT_DEVICE,
			       UVERBS_METHOD_QUERY_CONTEXT, attrs, 3);
	if (ret == EPROTONOSUPPORT)
		ret = EOPNOTSUPP;	/* a softib without imports */
	if (!ret)
		ret = sib_context_setup(ctx, &drv);
	if (ret)
		goto err_uninit;
	ctx->vctx.context.num_comp_vectors = num_comp_vectors;
	sib_verbs_device(ibdev)->core_support = core_support;
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
	.import_context = sib_import_context,
};

SIB_PROVIDER_DRIVER(softib, sib_dev_ops)
