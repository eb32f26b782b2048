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
#include "softib.h"

static const struct verbs_match_ent sib_match_table[] = {
	VERBS_DRIVER_ID(SIB_DRIVER_ID),
	VERBS_NAME_MATCH(SIB_NAME_PREFIX, NULL),
	{},
};

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
