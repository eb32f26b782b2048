/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: every limit and capability of the device in one place.
 * query_device/query_port report exactly these values and the verbs
 * enforce them. The per-device object limits and queue sizes marked
 * "parameter" are defaults: module parameters of the same name in lower
 * case (limits.c) change them within the SIB_LIM_* ranges below, and
 * each device keeps the values it was created with (struct sib_limits).
 */
#ifndef SIB_PARAMS_H
#define SIB_PARAMS_H

#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

#define SIB_VENDOR_ID		0xffffff	/* no IEEE OUI of our own */
#define SIB_VENDOR_PART_ID	0x51b0
#define SIB_HW_VER		1
#define SIB_FW_VER		0x0001000000000000ULL	/* 1.0.0 */

/* decimal: modinfo shows the parameters' defaults as written here */
#define SIB_MAX_QP		65536		/* parameter; QP1 included */
#define SIB_MAX_QP_WR		16384		/* parameter; WRs per queue */
#define SIB_MAX_SGE		32
/* RSS: WQs an indirection table lists at most, log2 */
#define SIB_MAX_RWQ_IND_LOG	8
#define SIB_MAX_SGE_RD		32
#define SIB_MAX_INLINE_DATA	512
#define SIB_MAX_CQ		16384		/* parameter */
#define SIB_MAX_CQE		1048575		/* parameter; ring of up to 1M entries - 1 (libfabric's rxm asks (tx + rx) x 256) */
#define SIB_MAX_MR		65536		/* parameter */
#define SIB_MAX_MR_SIZE		(1ULL << 40)
/*
 * ib_core keeps two 8-byte entries per page of an explicit ODP MR, kernel
 * memory no limit charges to the process: the lists of one MR may take
 * at most this share (1/N) of RAM, so one registration cannot exhaust it
 */
#define SIB_ODP_LISTS_RAM_SHARE	8
/* device memory (ibv_alloc_dm, dm.c): bytes a user context may hold at once */
#define SIB_MAX_DM_SIZE		(128 * 1024)
#define SIB_MAX_PD		65536		/* parameter */
#define SIB_MAX_AH		65536		/* parameter */
#define SIB_MAX_SRQ		16384		/* parameter */
#define SIB_MAX_SRQ_WR		16384		/* parameter */
/* completion vectors: one per online CPU, at most this many */
#define SIB_MAX_COMP_VECTORS	32		/* parameter */
#define SIB_MAX_MW		65536		/* parameter */
#define SIB_MAX_SRQ_SGE		SIB_MAX_SGE
#define SIB_MAX_XRCD		0x1000
#define SIB_MIN_SRQN		1
#define SIB_MAX_SRQN		0x00ffffff
#define SIB_MAX_QP_RD_ATOM	128
/* max_res_rd_atom: SIB_MAX_QP_RD_ATOM for each of the device's max_qp */
#define SIB_MAX_MSG_SIZE	0x80000000U	/* 2 GiB */
#define SIB_PAGE_SIZE_CAP	0xfffff000U
#define SIB_LOCAL_CA_ACK_DELAY	15
#define SIB_MAX_PKEYS		64		/* P_Key table entries per port */
#define SIB_DEFAULT_PKEY	0xffff
#define SIB_GID_TBL_LEN		32
#define SIB_MAX_MTU		IB_MTU_4096
/*
 * Completion timestamps (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP[_WALLCLOCK]):
 * the device clock is CLOCK_REALTIME in ns, i.e. hca_core_clock is 1 GHz
 * (reported in kHz) and a raw timestamp is also a wall-clock time.
 */
/* multicast (mcast.c): groups per device, UD QPs per group */
#define SIB_MAX_MCAST_GRP	1024
#define SIB_MAX_MCAST_QP_ATTACH	32
#define SIB_MAX_TOTAL_MCAST_QP_ATTACH	(SIB_MAX_MCAST_GRP * SIB_MAX_MCAST_QP_ATTACH)
#define SIB_HCA_CORE_CLOCK_KHZ	1000000ULL
#define SIB_TIMESTAMP_MASK	(~0ULL)
#define SIB_PORT_CAP_FLAGS	(IB_PORT_CM_SUP)

#define SIB_GSI_QPN		1
#define SIB_GSI_QKEY		0x80010000U
#define SIB_QKEY_PRIV		0x80000000U	/* privileged Q_Key bit */
#define SIB_MIN_QPN		16
#define SIB_MAX_QPN		0x00ffffff

/*
 * The ranges of the limit parameters (limits.c checks them at load).
 * Objects: at least 1 of each (the MAD agent of the RDMA core takes a QP,
 * a CQ, a PD and an MR on every device); at most what the number spaces
 * allow (QP and SRQ numbers, the MR and MW halves of the key index,
 * mr.h), 24 bits for the kinds without numbers.
 * Queue sizes: powers of two (max_cqe one less, a CQ ring holding
 * max_cqe + 1 entries), as the rings are, so that no queue gets more
 * entries than the device reports. max_qp_wr and max_cqe are at least
 * what the MAD agent's QP1 (512 receive WRs) and its CQ (640 CQEs) need;
 * the upper bounds keep one queue below about 100 MiB even with the most
 * SGEs.
 */
#define SIB_LIM_QP		16777201	/* QPNs SIB_MIN_QPN..SIB_MAX_QPN, QP1 */
#define SIB_LIM_CQ		16777215
#define SIB_LIM_MR		8388607		/* MR key indices 1..0x7fffff */
#define SIB_LIM_MW		8388608		/* MW key indices 0x800000..0xffffff */
#define SIB_LIM_PD		16777215
#define SIB_LIM_AH		16777215
#define SIB_LIM_SRQ		16777215	/* SRQNs SIB_MIN_SRQN..SIB_MAX_SRQN */
#define SIB_LIM_QP_WR_MIN	512
#define SIB_LIM_QP_WR		65536
#define SIB_LIM_CQE_MIN		1023
#define SIB_LIM_CQE		1048575		/* ring of 1M entries - 1 */
#define SIB_LIM_SRQ_WR		65536
#define SIB_LIM_COMP_VECTORS	1024

/* engine tuning */
#define SIB_MAX_INFLIGHT_PKTS	512	/* unacked request packets per RC QP */
#define SIB_ACK_REQ_EVERY	16	/* AckReq at least this often */
#define SIB_ACK_REQ_MIN		4	/* ... and at most (a full window asks too) */
#define SIB_QDELAY_US		400	/* queueing delay that stops window growth */
#define SIB_MIN_RTT_KEEP_S	10	/* a lowest RTT sample is kept this long */
#define SIB_READ_CHUNK_MIN	8	/* READ responses asked for per request: */
#define SIB_READ_CHUNK_MAX	256	/* the send window, within these bounds */
#define SIB_RX_QUEUE_MAX	8192	/* skbs waiting for one QP */
#define SIB_WORK_BUDGET		64	/* packets per engine round */
#define SIB_MIN_ACK_TIMEOUT_MS	5	/* floor for the local ACK timeout */
#define SIB_ACK_TIMEOUT_RTT_MAX_MS 2000 /* cap of its RTT-based floor */
#define SIB_ZCOPY_MIN		512	/* payload bytes below which copying is cheaper
					   than referencing pages */

#define SIB_ROCE_UDP_DPORT	4791

#endif /* SIB_PARAMS_H */
