// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: the send doorbell. sib_sq_publish() makes the WQEs written
 * into a QP's SQ ring visible to the kernel and, only while the kernel is
 * idle on that queue, rings a doorbell: the bound doorbell file
 * /dev/softib_db, the SIB_METHOD_QP_DOORBELL driver ioctl or the zero-WR
 * post_send command (see include/uapi/rdma/softib-abi.h). The doorbell
 * file is opened and bound per context when its first QP is created.
 * This file calls no other file of the provider.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "softib.h"

/**
 * sib_driver_ioctl() - call a softib driver method with one mandatory
 * attribute whose value is inline (an object handle, a raw fd), through
 * RDMA_VERBS_IOCTL on the context's @cmd_fd (softib-abi.h).
 * Return: 0 or the errno of ioctl().
 */
static int sib_driver_ioctl(int cmd_fd, uint16_t object, uint16_t method,
			    uint16_t attr, uint64_t data)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr;
	} req;

	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req);
	req.hdr.object_id = object;
	req.hdr.method_id = method;
	req.hdr.num_attrs = 1;
	req.hdr.driver_id = SIB_DRIVER_ID;
	req.attr.attr_id = attr;
	req.attr.flags = UVERBS_ATTR_F_MANDATORY;
	req.attr.data = data;
	if (ioctl(cmd_fd, RDMA_VERBS_IOCTL, &req))
		return errno ? errno : EIO;
	return 0;
}

int sib_uverbs_ioctl(int cmd_fd, uint16_t object, uint16_t method,
		     const struct ib_uverbs_attr *attrs, unsigned int num_attrs)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[SIB_IOCTL_MAX_ATTRS];
	} req;

	if (num_attrs > SIB_IOCTL_MAX_ATTRS)
		return EINVAL;
	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req.hdr) + num_attrs * sizeof(req.attr[0]);
	req.hdr.object_id = object;
	req.hdr.method_id = method;
	req.hdr.num_attrs = num_attrs;
	req.hdr.driver_id = SIB_DRIVER_ID;
	memcpy(req.attr, attrs, num_attrs * sizeof(req.attr[0]));
	if (ioctl(cmd_fd, RDMA_VERBS_IOCTL, &req))
		return errno ? errno : EIO;
	return 0;
}

/*
 * Open /dev/softib_db and bind it to the context (see softib-abi.h);
 * -1 when the kernel or the machine has none, or it cannot be bound:
 * the ioctl doorbell serves then.
 */
static int sib_db_file_open(int cmd_fd)
{
	int fd = open("/dev/" SIB_DBF_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	/* a raw fd attribute: the value itself */
	if (sib_driver_ioctl(cmd_fd, UVERBS_OBJECT_DEVICE, SIB_METHOD_DB_BIND,
			     SIB_ATTR_DB_BIND_FD, fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

void sib_db_file_prepare(struct sib_context *ctx)
{
	if (__atomic_load_n(&ctx->db_fd, __ATOMIC_ACQUIRE) != SIB_DB_FD_UNTRIED)
		return;
	pthread_mutex_lock(&ctx->db_lock);
	/* published before the QP it is made for is returned */
	if (ctx->db_fd == SIB_DB_FD_UNTRIED)
		__atomic_store_n(&ctx->db_fd,
				 sib_db_file_open(ctx->vctx.context.cmd_fd),
				 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->db_lock);
}

/* The old doorbell: a zero-WR IB_USER_VERBS_CMD_POST_SEND write(). */
static int sib_sq_doorbell_write(struct sib_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(ibqp->context->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return errno ? errno : EIO;
	return 0;
}

/*
 * Ring the SQ doorbell: the bound doorbell file when the context has one
 * (SIB_UCTX_RESP_F_DB_FILE, see softib-abi.h), else, or when that fails
 * (the device went away: ENOTCONN), the SIB_METHOD_QP_DOORBELL ioctl when
 * the kernel offers it (SIB_UCTX_RESP_F_DB_IOCTL), else the post_send
 * command.
 */
static int sib_sq_doorbell(struct sib_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct sib_context *ctx = to_sib_ctx(ibqp->context);
	int db_fd = __atomic_load_n(&ctx->db_fd, __ATOMIC_ACQUIRE);

	if (db_fd >= 0 &&
	    !__atomic_load_n(&ctx->db_fd_gone, __ATOMIC_RELAXED)) {
		if (!ioctl(db_fd, SIB_DBF_IOCTL_RING,
			   (unsigned long)ibqp->qp_num))
			return 0;
		/* the device went away: one system call per doorbell from now */
		if (errno == ENOTCONN)
			__atomic_store_n(&ctx->db_fd_gone, 1, __ATOMIC_RELAXED);
	}
	if (!ctx->db_ioctl)
		return sib_sq_doorbell_write(qp);
	return sib_driver_ioctl(ibqp->context->cmd_fd, UVERBS_OBJECT_QP,
				SIB_METHOD_QP_DOORBELL,
				SIB_ATTR_QP_DOORBELL_HANDLE, ibqp->handle);
}

void sib_rq_published(struct sib_qp *qp)
{
	struct sib_ring_hdr *hdr = sib_ring_hdr(&qp->rq.ring);

	/* pairs with the kernel's qp_error store, barrier, run */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&hdr->qp_error, __ATOMIC_RELAXED))
		(void)sib_sq_doorbell(qp);	/* the WQEs stay posted if it fails */
}

int sib_sq_publish(struct sib_qp *qp)
{
	struct sib_ring_hdr *hdr = sib_ring_hdr(&qp->sq.ring);

	sib_store_release(&hdr->producer, qp->sq.ring.idx);
	/* pairs with the kernel's kernel_idle store, barrier, producer load */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&hdr->kernel_idle, __ATOMIC_RELAXED))
		return sib_sq_doorbell(qp);
	return 0;
}
