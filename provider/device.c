// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: what the device is: query_device_ex and query_port (uverbs
 * commands), its clock (read in user space), and the atomic capability
 * that QP creation needs, queried once per context.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "softib.h"

int sib_query_device_ex(struct ibv_context *ctx,
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

int sib_query_port(struct ibv_context *ctx, uint8_t port,
		   struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

/*
 * The device clock is the kernel's CLOCK_REALTIME in ns (hca_core_clock
 * 1 GHz), so user space reads it without a system call.
 */
int sib_query_rt_values(struct ibv_context *ctx, struct ibv_values_ex *values)
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
