// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Provider logic tests without a device: ring index math, WQE encoding for
 * every opcode, post_send/post_recv/poll_cq and the ex APIs on rings that
 * live in ordinary memory (the test plays the kernel), and the doorbell
 * command, which is written to a pipe standing in for the uverbs fd.
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softib.h"
#include "unit.h"

#define T_SQ_NUM 8
#define T_SQ_STRIDE 256
#define T_RQ_NUM 4
#define T_RQ_STRIDE 64
#define T_CQ_NUM 8

static void test_ring_math(void)
{
	char buf[SIB_RING_HDR_SIZE + 4 * 32];

	SIB_CHECK(sizeof(struct sib_ring_hdr) == SIB_RING_HDR_SIZE, "ring hdr size");
	SIB_CHECK(sizeof(struct sib_send_wqe) == SIB_SEND_WQE_HDR_SIZE, "send wqe hdr");
	SIB_CHECK(sizeof(struct sib_recv_wqe) == SIB_RECV_WQE_HDR_SIZE, "recv wqe hdr");
	SIB_CHECK(sizeof(struct sib_cqe) == SIB_CQE_SIZE, "cqe size");
	SIB_CHECK(sizeof(struct sib_sge) == sizeof(struct ibv_sge), "sge size");
	SIB_CHECK(offsetof(struct sib_sge, lkey) == offsetof(struct ibv_sge, lkey),
		  "sib_sge laid out like ibv_sge");
	SIB_CHECK(sib_ring_empty(5, 5) && !sib_ring_empty(6, 5), "empty");
	SIB_CHECK(sib_ring_used(3, 0xfffffffeu) == 5, "used across wrap");
	SIB_CHECK(sib_ring_full(2, 0xfffffffau, 8), "full across wrap");
	SIB_CHECK(!sib_ring_full(1, 0xfffffffau, 8), "not full across wrap");
	SIB_CHECK(sib_ring_full(4, 0, 4) && !sib_ring_full(3, 0, 4), "limit");
	SIB_CHECK(sib_ring_slot(buf, 0, 4, 32) == buf + SIB_RING_HDR_SIZE, "slot 0");
	SIB_CHECK(sib_ring_slot(buf, 5, 4, 32) == buf + SIB_RING_HDR_SIZE + 32,
		  "slot wraps");
	SIB_CHECK(sib_ring_slot(buf, 0xffffffffu, 4, 32) ==
		  buf + SIB_RING_HDR_SIZE + 3 * 32, "slot at index wrap");
}

/* A QP whose rings are plain memory; cmd_fd is a pipe the test reads. */
struct t_qp {
	struct sib_qp qp;
	struct sib_context sctx;	/* db_ioctl 0: the post_send command */
	int pipefd[2];
};

static void t_qp_init(struct t_qp *t, enum ibv_qp_type qpt)
{
	memset(t, 0, sizeof(*t));
	if (pipe(t->pipefd))
		abort();
	t->sctx.vctx.context.cmd_fd = t->pipefd[1];
	t->qp.vqp.qp.context = &t->sctx.vctx.context;
	t->qp.vqp.qp.qp_type = qpt;
	t->qp.vqp.qp.state = IBV_QPS_RTS;
	t->qp.vqp.qp.handle = 77;
	pthread_spin_init(&t->qp.sq.lock, 0);
	pthread_spin_init(&t->qp.rq.lock, 0);
	t->qp.sq.ring.buf = calloc(1, SIB_RING_HDR_SIZE + T_SQ_NUM * T_SQ_STRIDE);
	t->qp.sq.ring.num = T_SQ_NUM;
	t->qp.sq.ring.stride = T_SQ_STRIDE;
	t->qp.sq.ring.limit = T_SQ_NUM;
	t->qp.sq.max_sge = 4;
	t->qp.sq.max_inline = 64;
	t->qp.rq.ring.buf = calloc(1, SIB_RING_HDR_SIZE + T_RQ_NUM * T_RQ_STRIDE);
	t->qp.rq.ring.num = T_RQ_NUM;
	t->qp.rq.ring.stride = T_RQ_STRIDE;
	t->qp.rq.ring.limit = 3;	/* max_recv_wr below the ring size */
	t->qp.rq.max_sge = 3;
	sib_qp_ex_setup(&t->qp, ~0ULL);
}

static void t_qp_fini(struct t_qp *t)
{
	free(t->qp.sq.ring.buf);
	free(t->qp.rq.ring.buf);
	close(t->pipefd[0]);
	close(t->pipefd[1]);
}

static struct sib_send_wqe *t_sq_slot(struct t_qp *t, uint32_t idx)
{
	return sib_ring_slot(t->qp.sq.ring.buf, idx, T_SQ_NUM, T_SQ_STRIDE);
}

static struct sib_sge *t_wqe_sge(struct sib_send_wqe *w)
{
	return (struct sib_sge *)((char *)w + SIB_SEND_WQE_HDR_SIZE);
}

static void test_wqe_opcodes(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x11 },
		{ .addr = 0x2000, .length = 200, .lkey = 0x22 },
	};
	uint8_t slot[T_SQ_STRIDE];
	struct sib_send_wqe *w = (void *)slot;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct ibv_send_wr wr = {
			.wr_id = 0x1234500 + i, .sg_list = sge, .num_sge = 2,
			.opcode = ops[i], .send_flags = IBV_SEND_SIGNALED,
			.imm_data = htobe32(0xdeadbeef),
		};
		int atomic = ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP ||
			     ops[i] == IBV_WR_ATOMIC_FETCH_AND_ADD;
		int ret;

		if (atomic) {
			wr.wr.atomic.remote_addr = 0xabc000;
			wr.wr.atomic.compare_add = 7;
			wr.wr.atomic.swap = 9;
			wr.wr.atomic.rkey = 0x99;
		} else {
			wr.wr.rdma.remote_addr = 0xabc000;
			wr.wr.rdma.rkey = 0x99;
		}
		memset(slot, 0xee, sizeof(slot));
		ret = sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC,
					 4, 64, 0);
		SIB_CHECK(ret == 0, "RC opcode %d builds (%d)", ops[i], ret);
		SIB_CHECK(w->wr_id == wr.wr_id && w->opcode == ops[i] &&
			  w->num_sge == 2 && w->send_flags == SIB_SEND_SIGNALED &&
			  w->inline_len == 0 && !w->reserved0 &&
			  !w->xrc_srqn && !w->reserved1,
			  "RC opcode %d header", ops[i]);
		SIB_CHECK(!memcmp(t_wqe_sge(w), sge, sizeof(sge)),
			  "RC opcode %d sge list", ops[i]);
		if (atomic)
			SIB_CHECK(w->wr.atomic.remote_addr == 0xabc000 &&
				  w->wr.atomic.compare_add == 7 &&
				  w->wr.atomic.swap == 9 &&
				  w->wr.atomic.rkey == 0x99 &&
				  !w->wr.atomic.reserved,
				  "atomic %d fields", ops[i]);
		else if (ops[i] <= IBV_WR_RDMA_READ && ops[i] != IBV_WR_SEND &&
			 ops[i] != IBV_WR_SEND_WITH_IMM)
			SIB_CHECK(w->wr.rdma.remote_addr == 0xabc000 &&
				  w->wr.rdma.rkey == 0x99, "rdma %d fields",
				  ops[i]);
		if (ops[i] == IBV_WR_SEND_WITH_IMM ||
		    ops[i] == IBV_WR_RDMA_WRITE_WITH_IMM)
			SIB_CHECK(w->ex == htobe32(0xdeadbeef),
				  "imm of %d kept in wire order", ops[i]);
		if (ops[i] == IBV_WR_SEND || ops[i] == IBV_WR_RDMA_WRITE ||
		    ops[i] == IBV_WR_RDMA_READ || atomic)
			SIB_CHECK(w->ex == 0, "no ex for %d", ops[i]);
	}
}

/* the provider refuses at post what the kernel would fail the QP for */
static void test_opcode_per_qp_type(void)
{
	SIB_CHECK(sib_opcode_valid(IBV_QPT_RC, IBV_WR_LOCAL_INV) &&
		  sib_opcode_valid(IBV_QPT_RC, IBV_WR_BIND_MW),
		  "RC takes LOCAL_INV and BIND_MW");
	SIB_CHECK(!sib_opcode_valid(IBV_QPT_UC, IBV_WR_LOCAL_INV) &&
		  !sib_opcode_valid(IBV_QPT_UC, IBV_WR_BIND_MW),
		  "UC refuses LOCAL_INV and BIND_MW (the kernel's UC: no local ops)");
	SIB_CHECK(sib_opcode_valid(IBV_QPT_UC, IBV_WR_RDMA_WRITE_WITH_IMM) &&
		  !sib_opcode_valid(IBV_QPT_UC, IBV_WR_RDMA_READ) &&
		  !sib_opcode_valid(IBV_QPT_UD, IBV_WR_LOCAL_INV) &&
		  !sib_opcode_valid(IBV_QPT_XRC_SEND, IBV_WR_BIND_MW),
		  "UC writes, no READ; UD and XRC no local ops");
}

static void test_wqe_bind_mw(void)
{
	struct ibv_mr mr = { .lkey = 0x4242 };
	struct ibv_mw mw = { .handle = 5, .rkey = 0x300, .type = IBV_MW_TYPE_2 };
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_BIND_MW };
	uint8_t slot[T_SQ_STRIDE];
	struct sib_send_wqe *w = (void *)slot;

	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x301;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x5000;
	wr.bind_mw.bind_info.length = 4096;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	SIB_CHECK(!sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 1, 0, 0),
		  "bind_mw builds");
	SIB_CHECK(w->opcode == IBV_WR_BIND_MW && w->wr.bind.mw_handle == 5 &&
		  w->wr.bind.rkey == 0x301 && w->wr.bind.mr_lkey == 0x4242 &&
		  w->wr.bind.addr == 0x5000 && w->wr.bind.length == 4096 &&
		  w->wr.bind.access == IBV_ACCESS_REMOTE_READ && w->num_sge == 0,
		  "bind_mw fields");
	wr.bind_mw.mw = NULL;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 1, 0, 0) ==
		  EINVAL, "bind_mw without MW is EINVAL");
}

static void test_wqe_ud_inline_errors(void)
{
	struct sib_ah ah = { .ah_num = 17 };
	char data[80];
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)data, .length = 10 },
		{ .addr = (uintptr_t)data + 10, .length = 20 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 9, .sg_list = sge, .num_sge = 2,
		.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htobe32(1),
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED,
	};
	uint8_t slot[T_SQ_STRIDE];
	struct sib_send_wqe *w = (void *)slot;
	int i;

	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (char)i;
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.wr.ud.remote_qpn = 0x123456;
	wr.wr.ud.remote_qkey = 0x11111111;
	SIB_CHECK(!sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_UD, 1, 64, 1),
		  "UD inline send builds");
	SIB_CHECK(w->wr.ud.ah_num == 17 && w->wr.ud.remote_qpn == 0x123456 &&
		  w->wr.ud.remote_qkey == 0x11111111 && !w->wr.ud.reserved,
		  "UD address fields");
	SIB_CHECK(w->send_flags == (SIB_SEND_INLINE | SIB_SEND_SOLICITED |
				    SIB_SEND_SIGNALED) &&
		  w->inline_len == 30 && w->num_sge == 0,
		  "inline flags/len, sq_sig_all adds SIGNALED");
	SIB_CHECK(!memcmp(slot + SIB_SEND_WQE_HDR_SIZE, data, 30),
		  "inline payload copied in order");

	wr.wr.ud.ah = NULL;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_UD, 1, 64, 0) ==
		  EINVAL, "UD without AH is EINVAL");
	wr.wr.ud.ah = &ah.ibv_ah;
	wr.opcode = IBV_WR_RDMA_WRITE;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_UD, 1, 64, 0) ==
		  EINVAL, "RDMA WRITE on UD is EINVAL");
	wr.opcode = IBV_WR_RDMA_READ;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_UC, 4, 64, 0) ==
		  EINVAL, "RDMA READ on UC is EINVAL");
	wr.opcode = IBV_WR_SEND;
	sge[1].length = 60;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 4, 64, 0) ==
		  EINVAL, "inline above max_inline is EINVAL");
	wr.send_flags = 0;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 1, 64, 0) ==
		  EINVAL, "num_sge above max_send_sge is EINVAL");
	SIB_CHECK(sib_build_send_wqe(slot, 80, &wr, IBV_QPT_RC, 4, 64, 0) ==
		  EINVAL, "sge list larger than the slot is EINVAL");
	wr.send_flags = 1U << 7;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 4, 64, 0) ==
		  EINVAL, "unknown send flag is EINVAL");
	wr.send_flags = IBV_SEND_INLINE;
	wr.opcode = IBV_WR_RDMA_READ;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 4, 256, 0) ==
		  EINVAL, "inline RDMA READ is EINVAL");
	wr.send_flags = 0;
	wr.opcode = (enum ibv_wr_opcode)42;
	SIB_CHECK(sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 4, 64, 0) ==
		  EINVAL, "unknown opcode is EINVAL");
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 0;
	SIB_CHECK(!sib_build_send_wqe(slot, sizeof(slot), &wr, IBV_QPT_RC, 4, 64, 0) &&
		  w->num_sge == 0, "zero-length send");
}

static void test_recv_wqe(void)
{
	struct ibv_sge sge[3] = {
		{ 0x1000, 10, 1 }, { 0x2000, 20, 2 }, { 0x3000, 30, 3 },
	};
	struct ibv_recv_wr wr = { .wr_id = 0xfeed, .sg_list = sge, .num_sge = 3 };
	uint8_t slot[T_RQ_STRIDE];
	struct sib_recv_wqe *w = (void *)slot;

	SIB_CHECK(!sib_build_recv_wqe(slot, sizeof(slot), &wr, 3), "recv builds");
	SIB_CHECK(w->wr_id == 0xfeed && w->num_sge == 3 && !w->reserved &&
		  !memcmp(slot + SIB_RECV_WQE_HDR_SIZE, sge, sizeof(sge)),
		  "recv fields");
	SIB_CHECK(sib_build_recv_wqe(slot, sizeof(slot), &wr, 2) == EINVAL,
		  "recv num_sge above max is EINVAL");
	SIB_CHECK(sib_build_recv_wqe(slot, 48, &wr, 3) == EINVAL,
		  "recv larger than slot is EINVAL");
}

static void test_post_send_ring(void)
{
	struct ib_uverbs_cmd_hdr hdr;
	struct ibv_post_send cmd;
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 3 };
	struct ibv_send_wr wr[10], *bad = NULL;
	struct sib_ring_hdr *rh;
	struct t_qp t;
	int i, ret;

	t_qp_init(&t, IBV_QPT_RC);
	rh = t.qp.sq.ring.buf;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 10; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 9 ? &wr[i + 1] : NULL;
	}
	/* kernel busy: no doorbell; 10 WRs into 8 slots: ENOMEM at the 9th */
	ret = sib_post_send(&t.qp.vqp.qp, &wr[0], &bad);
	SIB_CHECK(ret == ENOMEM && bad == &wr[8], "SQ full -> ENOMEM, bad_wr (%d)", ret);
	SIB_CHECK(rh->producer == 8 && rh->consumer == 0,
		  "8 WQEs published (producer %u)", rh->producer);
	SIB_CHECK(t_sq_slot(&t, 7)->wr_id == 107, "slot 7 holds wr 107");

	/* kernel consumed 5 and went idle: doorbell expected */
	rh->consumer = 5;
	rh->kernel_idle = 1;
	wr[1].next = NULL;
	ret = sib_post_send(&t.qp.vqp.qp, &wr[0], &bad);
	SIB_CHECK(ret == 0 && bad == NULL && rh->producer == 10,
		  "post after consume (%d, prod %u)", ret, rh->producer);
	SIB_CHECK(t_sq_slot(&t, 9)->wr_id == 101 && t_sq_slot(&t, 1)->wr_id == 101,
		  "ring wrapped to slot 1");
	ret = (int)read(t.pipefd[0], &cmd, sizeof(cmd));
	memcpy(&hdr, &cmd.hdr, sizeof(hdr));
	SIB_CHECK(ret == (int)sizeof(cmd) &&
		  hdr.command == IB_USER_VERBS_CMD_POST_SEND &&
		  hdr.in_words * 4 == sizeof(cmd) && hdr.out_words == 1 &&
		  cmd.qp_handle == 77 && cmd.wr_count == 0 && cmd.sge_count == 0 &&
		  cmd.wqe_size == sizeof(struct ib_uverbs_send_wr) && cmd.response,
		  "doorbell is a zero-WR POST_SEND write of %zu bytes", sizeof(cmd));

	/*
	 * the ioctl doorbell (SIB_UCTX_RESP_F_DB_IOCTL): no command on the fd
	 * (below); a pipe has no such ioctl, but a published WQE is posted:
	 * post_send does not fail it (the caller would post it again)
	 */
	t.sctx.db_ioctl = 1;
	rh->kernel_idle = 1;
	wr[0].next = NULL;
	bad = &wr[1];
	ret = sib_post_send(&t.qp.vqp.qp, &wr[0], &bad);
	t.sctx.db_ioctl = 0;
	SIB_CHECK(ret == 0 && bad == NULL && rh->producer == 11,
		  "failed ioctl doorbell: the WQE stays posted (%d)", ret);
	/* take that WQE back: the cases below start from producer 10 */
	t.qp.sq.ring.idx = 10;
	rh->producer = 10;
	{
		int fl = fcntl(t.pipefd[0], F_GETFL);

		fcntl(t.pipefd[0], F_SETFL, fl | O_NONBLOCK);
		SIB_CHECK(read(t.pipefd[0], &cmd, sizeof(cmd)) < 0 && errno == EAGAIN,
			  "no post_send command written");
		fcntl(t.pipefd[0], F_SETFL, fl);
	}
	wr[0].next = &wr[1];

	/* wrong state and a bad WR in the middle of a list */
	t.qp.vqp.qp.state = IBV_QPS_INIT;
	SIB_CHECK(sib_post_send(&t.qp.vqp.qp, &wr[0], &bad) == EINVAL &&
		  bad == &wr[0], "post_send in INIT is EINVAL");
	t.qp.vqp.qp.state = IBV_QPS_RTS;
	rh->consumer = 10;
	rh->kernel_idle = 0;
	wr[1].opcode = (enum ibv_wr_opcode)77;
	SIB_CHECK(sib_post_send(&t.qp.vqp.qp, &wr[0], &bad) == EINVAL &&
		  bad == &wr[1] && rh->producer == 11,
		  "first WR posted, bad opcode stops the list");

	/* device gone (the kernel cleared the magic): EIO, nothing written */
	wr[1].opcode = IBV_WR_SEND;
	t.qp.sq.ring.check_magic = 1;
	rh->magic = 0;
	SIB_CHECK(sib_post_send(&t.qp.vqp.qp, &wr[0], &bad) == EIO &&
		  bad == &wr[0] && rh->producer == 11, "post_send on a dead SQ is EIO");
	rh->magic = SIB_RING_MAGIC;
	SIB_CHECK(sib_post_send(&t.qp.vqp.qp, &wr[0], &bad) == 0 &&
		  rh->producer == 13, "post_send with the magic in place");
	t_qp_fini(&t);
}

static void test_post_recv_ring(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 3 };
	struct ibv_recv_wr wr[4], *bad = NULL;
	struct sib_ring_hdr *rh;
	struct t_qp t;
	int i;

	t_qp_init(&t, IBV_QPT_UD);
	rh = t.qp.rq.ring.buf;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 4; i++) {
		wr[i].wr_id = 200 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	SIB_CHECK(sib_post_recv(&t.qp.vqp.qp, &wr[0], &bad) == ENOMEM &&
		  bad == &wr[3] && rh->producer == 3,
		  "RQ limited to max_recv_wr=3: ENOMEM at the 4th");
	rh->consumer = 1;
	wr[0].next = NULL;
	SIB_CHECK(!sib_post_recv(&t.qp.vqp.qp, &wr[0], &bad) && rh->producer == 4,
		  "room again after the kernel consumed one");
	t.qp.vqp.qp.state = IBV_QPS_RESET;
	SIB_CHECK(sib_post_recv(&t.qp.vqp.qp, &wr[0], &bad) == EINVAL,
		  "post_recv in RESET is EINVAL");
	t.qp.vqp.qp.state = IBV_QPS_INIT;
	rh->consumer = 4;
	wr[0].num_sge = 4;
	SIB_CHECK(sib_post_recv(&t.qp.vqp.qp, &wr[0], &bad) == EINVAL &&
		  bad == &wr[0], "post_recv with num_sge > max is EINVAL");
	wr[0].num_sge = 1;
	t.qp.rq.ring.check_magic = 1;
	SIB_CHECK(sib_post_recv(&t.qp.vqp.qp, &wr[0], &bad) == EIO &&
		  bad == &wr[0] && rh->producer == 4, "post_recv on a dead RQ is EIO");
	t_qp_fini(&t);
}

static void test_qp_ex_api(void)
{
	struct ibv_qp_ex *ex;
	struct sib_ah ah = { .ah_num = 3 };
	struct ibv_data_buf bufs[2] = { { "abc", 3 }, { "defg", 4 } };
	struct sib_ring_hdr *rh;
	struct sib_send_wqe *w;
	struct t_qp t;
	int i, ret;

	t_qp_init(&t, IBV_QPT_UD);
	ex = &t.qp.vqp.qp_ex;
	rh = t.qp.sq.ring.buf;
	ex->wr_start(ex);
	ex->wr_id = 1;
	ex->wr_flags = IBV_SEND_SIGNALED;
	ex->wr_send_imm(ex, htobe32(5));
	ex->wr_set_ud_addr(ex, &ah.ibv_ah, 0x42, 0x1234);
	ex->wr_set_sge(ex, 9, 0x8000, 64);
	ex->wr_id = 2;
	ex->wr_flags = 0;
	ex->wr_send(ex);
	ex->wr_set_ud_addr(ex, &ah.ibv_ah, 0x43, 0x1234);
	ex->wr_set_inline_data_list(ex, 2, bufs);
	ret = ex->wr_complete(ex);
	SIB_CHECK(ret == 0 && rh->producer == 2, "ex batch of 2 published (%d)", ret);
	w = t_sq_slot(&t, 0);
	SIB_CHECK(w->wr_id == 1 && w->opcode == IBV_WR_SEND_WITH_IMM &&
		  w->ex == htobe32(5) && w->wr.ud.ah_num == 3 &&
		  w->wr.ud.remote_qpn == 0x42 && w->num_sge == 1 &&
		  t_wqe_sge(w)->addr == 0x8000 && t_wqe_sge(w)->length == 64 &&
		  t_wqe_sge(w)->lkey == 9 && w->send_flags == SIB_SEND_SIGNALED,
		  "ex send_imm WQE");
	w = t_sq_slot(&t, 1);
	SIB_CHECK(w->wr_id == 2 && w->opcode == IBV_WR_SEND &&
		  w->send_flags == SIB_SEND_INLINE && w->inline_len == 7 &&
		  !memcmp((char *)w + SIB_SEND_WQE_HDR_SIZE, "abcdefg", 7),
		  "ex inline list WQE");

	ex->wr_start(ex);
	ex->wr_send(ex);
	ex->wr_abort(ex);
	SIB_CHECK(rh->producer == 2 && t.qp.sq.ring.idx == 2, "wr_abort drops");

	ex->wr_start(ex);
	ex->wr_rdma_write(ex, 1, 2);	/* not valid on UD */
	SIB_CHECK(ex->wr_complete(ex) == EINVAL && rh->producer == 2,
		  "ex RDMA WRITE on UD fails at wr_complete");

	ex->wr_start(ex);
	for (i = 0; i < T_SQ_NUM + 1; i++) {
		ex->wr_send(ex);
		ex->wr_set_ud_addr(ex, &ah.ibv_ah, 1, 1);
	}
	SIB_CHECK(ex->wr_complete(ex) == ENOMEM && rh->producer == 2,
		  "ex batch larger than the SQ is ENOMEM, nothing published");

	t.qp.vqp.qp.state = IBV_QPS_RESET;
	ex->wr_start(ex);
	ex->wr_send(ex);
	ex->wr_set_ud_addr(ex, &ah.ibv_ah, 1, 1);
	ex->wr_set_sge(ex, 1, 2, 3);
	SIB_CHECK(ex->wr_complete(ex) == EINVAL, "ex post in RESET is EINVAL");
	t_qp_fini(&t);
}

static void test_qp_ex_rc(void)
{
	struct sib_send_wqe *w;
	struct ibv_qp_ex *ex;
	struct t_qp t;

	t_qp_init(&t, IBV_QPT_RC);
	ex = &t.qp.vqp.qp_ex;
	ex->wr_start(ex);
	ex->wr_id = 7;
	ex->wr_atomic_cmp_swp(ex, 0x10, 0x2000, 1, 2);
	ex->wr_set_sge(ex, 5, 0x3000, 8);
	ex->wr_rdma_read(ex, 0x11, 0x4000);
	ex->wr_set_sge_list(ex, 0, NULL);
	SIB_CHECK(!ex->wr_complete(ex), "RC atomic + read batch");
	w = t_sq_slot(&t, 0);
	SIB_CHECK(w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP &&
		  w->wr.atomic.rkey == 0x10 && w->wr.atomic.remote_addr == 0x2000 &&
		  w->wr.atomic.compare_add == 1 && w->wr.atomic.swap == 2,
		  "ex atomic WQE");
	w = t_sq_slot(&t, 1);
	SIB_CHECK(w->opcode == IBV_WR_RDMA_READ && w->wr.rdma.rkey == 0x11 &&
		  w->wr.rdma.remote_addr == 0x4000 && w->num_sge == 0,
		  "ex zero-length read WQE");
	t_qp_fini(&t);
}

static void test_cqe_to_wc(void)
{
	struct sib_cqe c;
	struct ibv_wc wc;

	memset(&c, 0, sizeof(c));
	c.wr_id = 0x1122334455667788ULL;
	c.status = IBV_WC_REM_ACCESS_ERR;
	c.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	c.wc_flags = SIB_WC_F_GRH | SIB_WC_F_IMM | SIB_WC_F_TIMESTAMP;
	c.vendor_err = 3;
	c.byte_len = 4096;
	c.ex = htobe32(0xcafe);
	c.qp_num = 0x11;
	c.src_qp = 0x22;
	c.pkey_index = 1;
	c.slid = 0x33;
	c.sl = 2;
	c.dlid_path_bits = 1;
	memset(&wc, 0xaa, sizeof(wc));
	sib_cqe_to_wc(&c, &wc);
	SIB_CHECK(wc.wr_id == c.wr_id && wc.status == IBV_WC_REM_ACCESS_ERR &&
		  wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.vendor_err == 3 &&
		  wc.byte_len == 4096 && wc.imm_data == htobe32(0xcafe) &&
		  wc.qp_num == 0x11 && wc.src_qp == 0x22 && wc.pkey_index == 1 &&
		  wc.slid == 0x33 && wc.sl == 2 && wc.dlid_path_bits == 1,
		  "cqe fields copied");
	SIB_CHECK(wc.wc_flags == (IBV_WC_GRH | IBV_WC_WITH_IMM), "wc flags GRH|IMM");
	SIB_CHECK(sib_wc_flags(SIB_WC_F_INV) == IBV_WC_WITH_INV, "INV flag");
	/* the IETH's R_Key travels in wire order, ibv_wc holds it in host order */
	c.opcode = IBV_WC_RECV;
	c.wc_flags = SIB_WC_F_INV;
	c.ex = htobe32(0x800000f5);
	sib_cqe_to_wc(&c, &wc);
	SIB_CHECK(wc.wc_flags == IBV_WC_WITH_INV &&
		  wc.invalidated_rkey == 0x800000f5,
		  "invalidated rkey in host order");
	SIB_CHECK(sib_wc_flags(0) == 0, "no flags");
	/* a RoCEv2 datagram's L3 header type is reported in sl (UCX's UD reads it) */
	c.network_hdr_type = SIB_NET_HDR_IPV4;
	c.sl = 0;
	sib_cqe_to_wc(&c, &wc);
	SIB_CHECK(wc.sl == 2, "RoCEv2 over IPv4: sl 2");
	c.network_hdr_type = SIB_NET_HDR_IPV6;
	sib_cqe_to_wc(&c, &wc);
	SIB_CHECK(wc.sl == 1 && sib_cqe_sl(&c) == 1, "RoCEv2 over IPv6: sl 1");
	c.network_hdr_type = SIB_NET_HDR_IB;
	c.sl = 5;
	sib_cqe_to_wc(&c, &wc);
	SIB_CHECK(wc.sl == 5, "IB: the packet's SL");
	SIB_CHECK(IBV_WC_SEND == 0 && IBV_WC_RECV == 128 &&
		  IBV_WC_RECV_RDMA_WITH_IMM == 129 && IBV_WC_LOCAL_INV == 6 &&
		  (int)IBV_WR_SEND == (int)IB_UVERBS_WR_SEND &&
		  (int)IBV_WR_SEND_WITH_INV == (int)IB_UVERBS_WR_SEND_WITH_INV &&
		  (int)IBV_WR_BIND_MW == (int)IB_UVERBS_WR_BIND_MW,
		  "ibv opcode values equal the uverbs ones the ABI uses");
}

static void t_cq_produce(struct sib_cq *cq, uint64_t wr_id, uint8_t status)
{
	struct sib_ring_hdr *h = cq->ring.buf;
	struct sib_cqe *c = sib_ring_slot(cq->ring.buf, h->producer,
					  T_CQ_NUM, SIB_CQE_SIZE);

	memset(c, 0, sizeof(*c));
	c->wr_id = wr_id;
	c->status = status;
	c->opcode = IBV_WC_RECV;
	c->byte_len = (uint32_t)wr_id * 2;
	c->qp_num = 5;
	__atomic_store_n(&h->producer, h->producer + 1, __ATOMIC_RELEASE);
}

static void test_poll_cq(void)
{
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_wc wc[8];
	struct sib_ring_hdr *h;
	struct ibv_cq_ex *ex;
	struct sib_cq cq;
	int i, n, st;
	pid_t pid;

	memset(&cq, 0, sizeof(cq));
	pthread_spin_init(&cq.lock, 0);
	cq.ring.buf = calloc(1, SIB_RING_HDR_SIZE + T_CQ_NUM * SIB_CQE_SIZE);
	cq.ring.num = T_CQ_NUM;
	cq.ring.stride = SIB_CQE_SIZE;
	h = cq.ring.buf;
	h->producer = h->consumer = cq.ring.idx = 0xfffffffeu;	/* wrap soon */

	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, 8, wc) == 0, "empty CQ polls 0");
	for (i = 0; i < 5; i++)
		t_cq_produce(&cq, 10 + i, IBV_WC_SUCCESS);
	n = sib_poll_cq(&cq.vcq.cq, 3, wc);
	SIB_CHECK(n == 3 && wc[0].wr_id == 10 && wc[2].wr_id == 12 &&
		  wc[1].byte_len == 22 && h->consumer == 1,
		  "poll 3 of 5 across index wrap (n=%d cons=%u)", n, h->consumer);
	n = sib_poll_cq(&cq.vcq.cq, 8, wc);
	SIB_CHECK(n == 2 && wc[0].wr_id == 13 && wc[1].wr_id == 14 &&
		  h->consumer == 3, "poll rest");
	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, -1, wc) < 0, "negative ne rejected");

	/* an empty CQ is answered without the lock (a child, in case it spins) */
	pthread_spin_lock(&cq.lock);
	pid = fork();
	if (pid == 0) {
		alarm(5);
		_exit(sib_poll_cq(&cq.vcq.cq, 8, wc) == 0 ? 0 : 1);
	}
	st = -1;
	if (pid > 0)
		waitpid(pid, &st, 0);
	pthread_spin_unlock(&cq.lock);
	SIB_CHECK(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "empty CQ polled while the lock is held (status %#x)", st);
	/* a resize under way (odd gen): the lock path still answers right */
	cq.gen = 1;
	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, 8, wc) == 0, "empty, resize under way");
	t_cq_produce(&cq, 15, IBV_WC_SUCCESS);
	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, 8, wc) == 1 && wc[0].wr_id == 15,
		  "CQE polled, resize under way");
	cq.gen = 2;

	/* ex poll API on the same ring */
	t_cq_produce(&cq, 20, IBV_WC_SUCCESS);
	t_cq_produce(&cq, 21, IBV_WC_WR_FLUSH_ERR);
	ex = &cq.vcq.cq_ex;
	sib_cq_ex_setup(&cq, IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM);
	SIB_CHECK(ex->start_poll(ex, &pa) == 0 && ex->wr_id == 20 &&
		  ex->status == IBV_WC_SUCCESS && ex->read_byte_len(ex) == 40 &&
		  ex->read_qp_num(ex) == 5 && ex->read_opcode(ex) == IBV_WC_RECV,
		  "start_poll reads first CQE");
	SIB_CHECK(ex->next_poll(ex) == 0 && ex->wr_id == 21 &&
		  ex->status == IBV_WC_WR_FLUSH_ERR, "next_poll reads second");
	SIB_CHECK(ex->next_poll(ex) == ENOENT, "next_poll ENOENT when empty");
	ex->end_poll(ex);
	SIB_CHECK(h->consumer == 6, "ex poll released both slots");
	/* a receive of SEND with Invalidate: the key in host order, an
	 * immediate in wire order, as ibv_wc_read_*() hand them on */
	{
		struct sib_cqe *c = sib_ring_slot(cq.ring.buf, h->producer,
						  T_CQ_NUM, SIB_CQE_SIZE);

		t_cq_produce(&cq, 22, IBV_WC_SUCCESS);
		c->wc_flags = SIB_WC_F_INV;
		c->ex = htobe32(0x800000f5);
		c = sib_ring_slot(cq.ring.buf, h->producer, T_CQ_NUM,
				  SIB_CQE_SIZE);
		t_cq_produce(&cq, 23, IBV_WC_SUCCESS);
		c->wc_flags = SIB_WC_F_IMM;
		c->ex = htobe32(0x1234);
	}
	sib_cq_ex_setup(&cq, IBV_WC_EX_WITH_IMM);
	SIB_CHECK(ex->start_poll(ex, &pa) == 0 && ex->wr_id == 22 &&
		  (ibv_wc_read_wc_flags(ex) & IBV_WC_WITH_INV) &&
		  ibv_wc_read_invalidated_rkey(ex) == 0x800000f5,
		  "ex poll: invalidated rkey in host order");
	SIB_CHECK(ex->next_poll(ex) == 0 && ex->wr_id == 23 &&
		  ibv_wc_read_imm_data(ex) == htobe32(0x1234),
		  "ex poll: immediate in wire order");
	ex->end_poll(ex);
	SIB_CHECK(h->consumer == 8, "ex poll released both slots");
	SIB_CHECK(ex->start_poll(ex, &pa) == ENOENT, "start_poll ENOENT when empty");
	/* lock must be free again after ENOENT from start_poll */
	SIB_CHECK(pthread_spin_trylock(&cq.lock) == 0, "lock released");
	pthread_spin_unlock(&cq.lock);

	/* the kernel clears the magic when the device goes away: EIO, no hang */
	cq.ring.check_magic = 1;
	h->magic = SIB_RING_MAGIC;
	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, 8, wc) == 0, "live empty CQ polls 0");
	t_cq_produce(&cq, 30, IBV_WC_SUCCESS);
	h->magic = 0;
	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, 8, wc) == 1 && wc[0].wr_id == 30,
		  "CQEs written before the device went away still polled");
	SIB_CHECK(sib_poll_cq(&cq.vcq.cq, 8, wc) == -EIO, "dead CQ polls -EIO");
	SIB_CHECK(ex->start_poll(ex, &pa) == EIO, "dead CQ start_poll EIO");
	SIB_CHECK(pthread_spin_trylock(&cq.lock) == 0, "lock released after EIO");
	pthread_spin_unlock(&cq.lock);
	free(cq.ring.buf);
}

void sib_ring_tests(void)
{
	test_ring_math();
	test_wqe_opcodes();
	test_opcode_per_qp_type();
	test_wqe_bind_mw();
	test_wqe_ud_inline_errors();
	test_recv_wqe();
	test_post_send_ring();
	test_post_recv_ring();
	test_qp_ex_api();
	test_qp_ex_rc();
	test_cqe_to_wc();
	test_poll_cq();
}
