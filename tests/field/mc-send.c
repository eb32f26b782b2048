// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mc-send: a multicast sender over rdma_cm that waits for its sends.
 *
 * Joins GROUP from the device that owns BIND-ADDR (rdma_join_multicast, as
 * librdmacm's mckey does), posts COUNT signaled UD SENDs of SIZE bytes to the
 * group with the address handle and Q_Key of the join event, and waits until
 * each has completed successfully before it leaves the group and frees its
 * resources. mckey's sender posts unsignaled sends and destroys its address
 * handle and QP straight after posting; a device that runs its send queue
 * later (rdma_rxe 6.12 runs it from a work item) then finds no address handle
 * for the later WRs and sends only some of them. The receiving end is mckey,
 * unchanged (tests/vm/interop.sh, docs/testing.md "Field cases").
 *
 * Output: "mc-send: COUNT sends completed, status 0" and exit 0, or one line
 * saying what failed and exit 1; a usage error exits 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define MC_WRID_BASE 0x6d63u

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int to_sockaddr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *ai;

	if (getaddrinfo(s, NULL, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* the next event of the channel, which must be @want; 0 or -1 (message printed) */
static int wait_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		      int timeout_ms, struct rdma_ud_param *ud)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n;

	n = poll(&pfd, 1, timeout_ms);
	if (n <= 0) {
		fprintf(stderr, "mc-send: no %s within %d ms\n", rdma_event_str(want), timeout_ms);
		return -1;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		perror("mc-send: rdma_get_cm_event");
		return -1;
	}
	if (ev->event != want) {
		fprintf(stderr, "mc-send: %s (status %d) instead of %s\n",
			rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (ud)
		*ud = ev->param.ud;
	rdma_ack_cm_event(ev);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: mc-send -b BIND-ADDR -m GROUP [-C COUNT] [-S SIZE] [-t SECONDS]\n"
		   "Joins GROUP (IPv4 or IPv6 multicast address) from the RDMA device of BIND-ADDR,\n"
		   "sends COUNT (default 5, 1..4096) signaled UD SENDs of SIZE bytes (default 100,\n"
		   "1..4096) to it and waits up to SECONDS (default 20) for their completions.\n");
}

int main(int argc, char **argv)
{
	struct sockaddr_storage src = { 0 }, dst = { 0 };
	const char *bind_s = NULL, *grp_s = NULL;
	struct rdma_event_channel *ch = NULL;
	struct ibv_qp_init_attr qia = { 0 };
	struct rdma_cm_id *id = NULL;
	struct rdma_ud_param ud;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	int count = 5, size = 100, secs = 20, done = 0, joined = 0, rc = 1, c, i;
	char *buf = NULL, *end;
	double deadline;

	static const struct option opts[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "group", required_argument, NULL, 'm' },
		{ "count", required_argument, NULL, 'C' },
		{ "size", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	while ((c = getopt_long(argc, argv, "b:m:C:S:t:h", opts, NULL)) != -1) {
		long v = 0;

		if (c == 'C' || c == 'S' || c == 't') {
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 4096) {
				fprintf(stderr, "mc-send: -%c %s: a number 1..4096\n", c, optarg);
				return 2;
			}
		}
		switch (c) {
		case 'b': bind_s = optarg; break;
		case 'm': grp_s = optarg; break;
		case 'C': count = v; break;
		case 'S': size = v; break;
		case 't': secs = v; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!bind_s || !grp_s || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (to_sockaddr(bind_s, &src) || to_sockaddr(grp_s, &dst)) {
		fprintf(stderr, "mc-send: %s or %s is not a numeric address\n", bind_s, grp_s);
		return 2;
	}

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_UDP)) {
		perror("mc-send: rdma_create_id");
		goto out;
	}
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000)) {
		perror("mc-send: rdma_resolve_addr");
		goto out;
	}
	if (wait_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, 10000, NULL))
		goto out;

	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, count + 1, NULL, NULL, 0) : NULL;
	buf = calloc(1, size);
	mr = (cq && buf) ? ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr) {
		perror("mc-send: PD, CQ or MR");
		goto out;
	}
	memset(buf, 'm', size);
	qia.qp_type = IBV_QPT_UD;
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.cap.max_send_wr = count;
	qia.cap.max_recv_wr = 1;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qia)) {
		perror("mc-send: rdma_create_qp");
		goto out;
	}
	if (rdma_join_multicast(id, (struct sockaddr *)&dst, NULL)) {
		perror("mc-send: rdma_join_multicast");
		goto out;
	}
	joined = 1;
	if (wait_event(ch, RDMA_CM_EVENT_MULTICAST_JOIN, 10000, &ud))
		goto out;
	ah = ibv_create_ah(pd, &ud.ah_attr);
	if (!ah) {
		perror("mc-send: ibv_create_ah");
		goto out;
	}

	for (i = 0; i < count; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = size, .lkey = mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = MC_WRID_BASE + i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = ud.qp_num, .remote_qkey = ud.qkey },
		}, *bad;
		int err = ibv_post_send(id->qp, &wr, &bad);

		if (err) {
			fprintf(stderr, "mc-send: ibv_post_send %d: %s\n", i, strerror(err));
			goto out;
		}
	}
	deadline = now() + secs;
	while (done < count && now() < deadline) {
		struct ibv_wc wc[8];
		int n = ibv_poll_cq(cq, 8, wc);

		if (n < 0) {
			fprintf(stderr, "mc-send: ibv_poll_cq failed\n");
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_SEND) {
				fprintf(stderr, "mc-send: completion %d: %s (opcode %d)\n", done,
					ibv_wc_status_str(wc[i].status), wc[i].opcode);
				goto out;
			}
			done++;
		}
		if (!n) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	if (done < count) {
		fprintf(stderr, "mc-send: %d of %d sends completed in %d s\n", done, count, secs);
		goto out;
	}
	printf("mc-send: %d sends completed, status 0\n", count);
	rc = 0;
out:
	if (joined)
		rdma_leave_multicast(id, (struct sockaddr *)&dst);
	if (ah)
		ibv_destroy_ah(ah);
	if (id && id->qp)
		rdma_destroy_qp(id);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(buf);
	if (id)
		rdma_destroy_id(id);
	if (ch)
		rdma_destroy_event_channel(ch);
	return rc;
}
