// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftib: encoding of verbs work requests into ring slots and decoding
 * of completion queue entries. No system calls and no libibverbs calls
 * here, so tests/unit can exercise every path on the host.
 */
#include <errno.h>
#include <string.h>
#include "softib.h"

/* Send opcodes that the transport of a QP type carries. */
int sib_opcode_valid(enum ibv_qp_type qpt, enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
		/* a raw packet QP's WQE is one whole frame */
		if (qpt == IBV_QPT_RAW_PACKET)
			return 1;
		/* fall through */
	case IBV_WR_SEND_WITH_IMM:
		return qpt == IBV_QPT_RC || qpt == IBV_QPT_UC ||
		       qpt == IBV_QPT_UD || qpt == IBV_QPT_XRC_SEND;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return qpt == IBV_QPT_RC || qpt == IBV_QPT_UC ||
		       qpt == IBV_QPT_XRC_SEND;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		/* as the kernel's sib_opcode_ok(): RC only */
		return qpt == IBV_QPT_RC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return qpt == IBV_QPT_RC || qpt == IBV_QPT_XRC_SEND;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_ATOMIC_WRITE:
		return qpt == IBV_QPT_RC;
	default:
		return 0;
	}
}

/* Copy the gather list's bytes into the slot as inline payload. */
static int sib_copy_inline(struct sib_send_wqe *wqe, uint32_t stride,
			   const struct ibv_send_wr *wr, uint32_t max_inline)
{
	uint8_t *dst = (uint8_t *)wqe + SIB_SEND_WQE_HDR_SIZE;
	uint64_t total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		uint32_t len = wr->sg_list[i].length;

		total += len;
		if (total > max_inline ||
		    total > stride - SIB_SEND_WQE_HDR_SIZE)
			return EINVAL;
		if (len)
			memcpy(dst, (void *)(uintptr_t)wr->sg_list[i].addr, len);
		dst += len;
	}
	wqe->inline_len = (uint32_t)total;
	wqe->num_sge = 0;
	return 0;
}

/* Fill the per-opcode part of the WQE (remote address, UD address, ...). */
static int sib_fill_wr_union(struct sib_send_wqe *wqe,
			     const struct ibv_send_wr *wr, enum ibv_qp_type qpt)
{
	if (qpt == IBV_QPT_UD) {
		if (!wr->wr.ud.ah)
			return EINVAL;
		wqe->wr.ud.ah_num = to_sib_ah(wr->wr.ud.ah)->ah_num;
		wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
		return 0;
	}

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw)
			return EINVAL;
		wqe->wr.bind.mw_handle = wr->bind_mw.mw->handle;
		wqe->wr.bind.rkey = wr->bind_mw.rkey;
		wqe->wr.bind.mr_lkey = wr->bind_mw.bind_info.mr ?
				       wr->bind_mw.bind_info.mr->lkey : 0;
		wqe->wr.bind.access = wr->bind_mw.bind_info.mw_access_flags;
		wqe->wr.bind.addr = wr->bind_mw.bind_info.addr;
		wqe->wr.bind.length = wr->bind_mw.bind_info.length;
		break;
	default:
		break;
	}
	return 0;
}

/* Opcodes whose ex field carries data (immediate or an rkey). */
static int sib_opcode_has_ex(enum ibv_wr_opcode opcode)
{
	return opcode == IBV_WR_SEND_WITH_IMM ||
	       opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
	       opcode == IBV_WR_SEND_WITH_INV ||
	       opcode == IBV_WR_LOCAL_INV;
}

int sib_build_send_wqe(void *slot, uint32_t stride,
		       const struct ibv_send_wr *wr, enum ibv_qp_type qpt,
		       uint32_t max_sge, uint32_t max_inline, int sig_all)
{
	struct sib_send_wqe *wqe = slot;
	uint32_t flags = wr->send_flags;
	int err;

	if (!sib_opcode_valid(qpt, wr->opcode))
		return EINVAL;
	if (flags & ~SIB_SEND_FLAGS_ALL)
		return EINVAL;
	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return EINVAL;
	if (stride < SIB_SEND_WQE_HDR_SIZE)
		return EINVAL;

	memset(wqe, 0, SIB_SEND_WQE_HDR_SIZE);
	wqe->wr_id = wr->wr_id;
	wqe->opcode = (uint8_t)wr->opcode;
	if (sig_all)
		flags |= SIB_SEND_SIGNALED;
	if (sib_opcode_has_ex(wr->opcode))
		memcpy(&wqe->ex, &wr->imm_data, sizeof(wqe->ex));

	err = sib_fill_wr_union(wqe, wr, qpt);
	if (err)
		return err;
	if (qpt == IBV_QPT_XRC_SEND)
		wqe->xrc_srqn = wr->qp_type.xrc.remote_srqn;

	if (flags & SIB_SEND_INLINE) {
		if (wr->opcode == IBV_WR_RDMA_READ ||
		    wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		    wr->opcode == IBV_WR_LOCAL_INV ||
		    wr->opcode == IBV_WR_BIND_MW)
			return EINVAL;
		err = sib_copy_inline(wqe, stride, wr, max_inline);
		if (err)
			return err;
	} else {
		if ((uint32_t)wr->num_sge > max_sge ||
		    SIB_SEND_WQE_HDR_SIZE + (size_t)wr->num_sge *
		    sizeof(struct sib_sge) > stride)
			return EINVAL;
		if (wr->num_sge)
			memcpy((uint8_t *)wqe + SIB_SEND_WQE_HDR_SIZE,
			       wr->sg_list,
			       wr->num_sge * sizeof(struct sib_sge));
		wqe->num_sge = (uint16_t)wr->num_sge;
	}
	wqe->send_flags = flags;
	return 0;
}

int sib_build_recv_wqe(void *slot, uint32_t stride,
		       const struct ibv_recv_wr *wr, uint32_t max_sge)
{
	struct sib_recv_wqe *wqe = slot;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge ||
	    (wr->num_sge && !wr->sg_list) ||
	    SIB_RECV_WQE_HDR_SIZE + (size_t)wr->num_sge *
	    sizeof(struct sib_sge) > stride)
		return EINVAL;

	wqe->wr_id = wr->wr_id;
	wqe->num_sge = (uint32_t)wr->num_sge;
	wqe->reserved = 0;
	if (wr->num_sge)
		memcpy((uint8_t *)wqe + SIB_RECV_WQE_HDR_SIZE, wr->sg_list,
		       wr->num_sge * sizeof(struct sib_sge));
	return 0;
}

unsigned int sib_wc_flags(uint16_t cqe_flags)
{
	unsigned int f = 0;

	if (cqe_flags & SIB_WC_F_GRH)
		f |= IBV_WC_GRH;
	if (cqe_flags & SIB_WC_F_IMM)
		f |= IBV_WC_WITH_IMM;
	if (cqe_flags & SIB_WC_F_INV)
		f |= IBV_WC_WITH_INV;
	if (cqe_flags & SIB_WC_F_TM_SYNC_REQ)
		f |= IBV_WC_TM_SYNC_REQ;
	if (cqe_flags & SIB_WC_F_TM_MATCH)
		f |= IBV_WC_TM_MATCH;
	if (cqe_flags & SIB_WC_F_TM_DATA_VALID)
		f |= IBV_WC_TM_DATA_VALID;
	return f;
}

/*
 * libibverbs' ibv_wc has no field for the L3 header type of a RoCEv2 receive
 * (IBTA Annex 17, A17.4.5.1 asks the CQE for it), and its GRH area holds
 * either an IPv6 header or an IPv4 header in its second half.  RoCE NICs
 * report the type in the SL bits (1: IPv6, 2: IPv4), which RoCE otherwise
 * leaves unused, and UCX's UD transport reads it there to find the
 * destination address: with sl 0 it takes an IPv4 packet's GRH area for an
 * IPv6 header, finds none of its GIDs in it and drops every datagram.
 */
uint8_t sib_cqe_sl(const struct sib_cqe *cqe)
{
	switch (cqe->network_hdr_type) {
	case SIB_NET_HDR_IPV4:
		return SIB_WC_SL_ROCE_IPV4;
	case SIB_NET_HDR_IPV6:
		return SIB_WC_SL_ROCE_IPV6;
	default:
		return cqe->sl;
	}
}

void sib_cqe_to_wc(const struct sib_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* the CQE holds the immediate or the IETH's R_Key in wire order; the
	 * invalidated R_Key is a host-order number in the ibv_wc */
	if (cqe->wc_flags & SIB_WC_F_INV)
		wc->invalidated_rkey = be32toh(cqe->ex);
	else
		memcpy(&wc->imm_data, &cqe->ex, sizeof(wc->imm_data));
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = sib_wc_flags(cqe->wc_flags);
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = sib_cqe_sl(cqe);
	wc->dlid_path_bits = cqe->dlid_path_bits;
}
