// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: device memory (ibv_alloc_dm, ibv_import_dm) and MRs on it
 * (ibv_reg_dm_mr). softib's device memory is kernel memory the process
 * maps from the uverbs fd (softib-abi.h, SIB_METHOD_DM_QUERY), so
 * ibv_memcpy_to_dm/from_dm are plain copies. As on NICs, copies are in
 * whole 4-byte words: offsets and lengths that are not multiples of 4 are
 * refused (EINVAL), ranges beyond the memory too (EFAULT).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "softib.h"

#define SIB_DM_WORD 4

/* IBV_ACCESS_* an MR on device memory may have (the kernel checks again) */
#define SIB_DM_MR_ACCESS (IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE | \
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			  IBV_ACCESS_REMOTE_ATOMIC)

/* the range [off, off + len) of @dm for a copy: 0 or the errno to answer */
static int sib_dm_range(const struct sib_dm *dm, uint64_t off, size_t len)
{
	if (off % SIB_DM_WORD || len % SIB_DM_WORD)
		return EINVAL;
	if (off > dm->length || len > dm->length - off)
		return EFAULT;
	return 0;
}

static int sib_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			    const void *host_addr, size_t length)
{
	struct sib_dm *dm = to_sib_dm(ibdm);
	int ret = sib_dm_range(dm, dm_offset, length);

	if (!ret)
		memcpy((char *)dm->buf + dm_offset, host_addr, length);
	return ret;
}

static int sib_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length)
{
	struct sib_dm *dm = to_sib_dm(ibdm);
	int ret = sib_dm_range(dm, dm_offset, length);

	if (!ret)
		memcpy(host_addr, (char *)dm->buf + dm_offset, length);
	return ret;
}

void sib_dm_attach(struct sib_dm *dm, struct ibv_context *ctx, void *buf,
		   size_t mmap_size, uint64_t length)
{
	dm->buf = buf;
	dm->mmap_size = mmap_size;
	dm->length = length;
	dm->vdm.dm.context = ctx;
	dm->vdm.dm.handle = dm->vdm.handle;
	dm->vdm.dm.comp_mask = 0;
	dm->vdm.dm.memcpy_to_dm = sib_memcpy_to_dm;
	dm->vdm.dm.memcpy_from_dm = sib_memcpy_from_dm;
}

/* ask the kernel where the DM of dm->vdm.handle is, and map it */
static int sib_dm_map(struct ibv_context *ctx, struct sib_dm *dm)
{
	struct sib_dm_query_resp resp;
	struct ib_uverbs_attr attrs[2];
	void *p;
	int ret;

	memset(attrs, 0, sizeof(attrs));
	memset(&resp, 0, sizeof(resp));
	attrs[0].attr_id = SIB_ATTR_DM_QUERY_HANDLE;
	attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	attrs[0].data = dm->vdm.handle;
	attrs[1].attr_id = SIB_ATTR_DM_QUERY_RESP;
	attrs[1].flags = UVERBS_ATTR_F_MANDATORY;
	attrs[1].len = sizeof(resp);
	attrs[1].data = (uintptr_t)&resp;
	ret = sib_uverbs_ioctl(ctx->cmd_fd, UVERBS_OBJECT_DM,
			       SIB_METHOD_DM_QUERY, attrs, 2);
	if (ret)
		return ret == EPROTONOSUPPORT ? EOPNOTSUPP : ret;
	if (!resp.mmap_size || resp.length > resp.mmap_size)
		return EPROTO;
	p = mmap(NULL, resp.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, resp.mmap_offset);
	if (p == MAP_FAILED)
		return errno;
	sib_dm_attach(dm, ctx, p, resp.mmap_size, resp.length);
	return 0;
}

struct ibv_dm *sib_alloc_dm(struct ibv_context *ctx,
			    struct ibv_alloc_dm_attr *attr)
{
	struct sib_dm *dm;
	int ret;

	if (attr->comp_mask || !attr->length) {
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_dm(ctx, attr, &dm->vdm, NULL);
	if (ret)
		goto err_free;
	ret = sib_dm_map(ctx, dm);
	if (ret) {
		ibv_cmd_free_dm(&dm->vdm);
		goto err_free;
	}
	return &dm->vdm.dm;

err_free:
	free(dm);
	errno = ret;
	return NULL;
}

int sib_free_dm(struct ibv_dm *ibdm)
{
	struct sib_dm *dm = to_sib_dm(ibdm);
	int ret;

	/* EBUSY while MRs are on it: keep the mapping then */
	ret = ibv_cmd_free_dm(&dm->vdm);
	if (ret)
		return ret;
	munmap(dm->buf, dm->mmap_size);
	free(dm);
	return 0;
}

struct ibv_dm *sib_import_dm(struct ibv_context *ctx, uint32_t dm_handle)
{
	struct sib_dm *dm;
	int ret;

	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	dm->vdm.handle = dm_handle;
	ret = sib_dm_map(ctx, dm);
	if (ret) {
		free(dm);
		errno = ret;
		return NULL;
	}
	return &dm->vdm.dm;
}

void sib_unimport_dm(struct ibv_dm *ibdm)
{
	struct sib_dm *dm = to_sib_dm(ibdm);

	munmap(dm->buf, dm->mmap_size);
	free(dm);
}

struct ibv_mr *sib_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			     uint64_t dm_offset, size_t length,
			     unsigned int access)
{
	struct sib_dm *dm = to_sib_dm(ibdm);
	struct verbs_mr *vmr;
	int ret;

	if ((access & ~SIB_DM_MR_ACCESS) || !(access & IBV_ACCESS_ZERO_BASED)) {
		errno = EINVAL;
		return NULL;
	}
	if (dm_offset > dm->length || length > dm->length - dm_offset) {
		errno = EINVAL;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_reg_dm_mr(pd, &dm->vdm, dm_offset, length, access, vmr,
				NULL);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}
