// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sibtest: see sibtest.h */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sibtest.h"

double sibt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ibv_context *sibt_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = NULL;
	struct ibv_context *ctx;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			dev = list[i];
	if (!dev) {
		if (list)
			ibv_free_device_list(list);
		errno = ENODEV;
		return NULL;
	}
	ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	return ctx;
}

int sibt_find_gid(struct ibv_context *ctx, uint8_t port, int max,
		  union ibv_gid *gid)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < max; i++) {
		if (ibv_query_gid_ex(ctx, port, i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    memcmp(e.gid.raw, v4map, sizeof(v4map)))
			continue;
		*gid = e.gid;
		return i;
	}
	return -1;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		errno = ret;
	return ret;
}

static int connected(const struct ibv_qp *qp)
{
	return qp->qp_type != IBV_QPT_UD;
}

static int reliable(const struct ibv_qp *qp)
{
	return qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_XRC_SEND ||
	       qp->qp_type == IBV_QPT_XRC_RECV;
}

int sibt_qp_init(struct ibv_qp *qp, const struct sibt_conn *c)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = c->port ? c->port : 1;
	a.pkey_index = c->pkey_index;
	if (connected(qp)) {
		a.qp_access_flags = c->access;
		mask |= IBV_QP_ACCESS_FLAGS;
	} else {
		a.qkey = c->qkey;
		mask |= IBV_QP_QKEY;
	}
	return modify(qp, &a, mask);
}

int sibt_qp_rtr(struct ibv_qp *qp, const struct sibt_conn *c)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (connected(qp)) {
		a.path_mtu = c->mtu ? c->mtu : IBV_MTU_1024;
		a.dest_qp_num = c->dest_qpn;
		a.rq_psn = c->rq_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = c->dgid;
		a.ah_attr.grh.sgid_index = c->sgid_index;
		a.ah_attr.grh.hop_limit = c->hop_limit ? c->hop_limit : 64;
		a.ah_attr.port_num = c->port ? c->port : 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	}
	if (reliable(qp)) {
		a.max_dest_rd_atomic = c->max_dest_rd_atomic;
		a.min_rnr_timer = c->min_rnr_timer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return modify(qp, &a, mask);
}

int sibt_qp_rts(struct ibv_qp *qp, const struct sibt_conn *c)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->sq_psn;
	if (reliable(qp)) {
		a.timeout = c->timeout;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.max_rd_atomic = c->max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return modify(qp, &a, mask);
}

int sibt_qp_to_rts(struct ibv_qp *qp, const struct sibt_conn *c)
{
	if (sibt_qp_init(qp, c))
		return IBV_QPS_INIT;
	if (sibt_qp_rtr(qp, c))
		return IBV_QPS_RTR;
	if (sibt_qp_rts(qp, c))
		return IBV_QPS_RTS;
	return 0;
}

const char *sibt_qp_state_name(int state)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if (state < 0 || state >= (int)SIBT_ARRAY_SIZE(names) || !names[state])
		return "?";
	return names[state];
}

int sibt_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

int sibt_poll(struct ibv_cq *cq, struct ibv_wc *wc, double secs,
	      unsigned int idle_us)
{
	double end = sibt_now() + secs;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		if (sibt_now() >= end)
			return 0;
		if (idle_us)
			usleep(idle_us);
	}
}

long long sibt_counter(const char *dev, int port, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%d/hw_counters/%s", dev, port,
		 name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void sibt_list(const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	fflush(stdout);
}

int sibt_case_index(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}
