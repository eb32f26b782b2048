/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: device counters. One X-macro list makes both the enum and the
 * names exported through `rdma statistic`.
 */
#ifndef SIB_COUNTERS_H
#define SIB_COUNTERS_H

#include <rdma/ib_verbs.h>

#define SIB_COUNTER_LIST(X)				\
	X(SENT_PKTS,		"sent_pkts")		\
	X(RCVD_PKTS,		"rcvd_pkts")		\
	X(LOOPBACK_PKTS,	"loopback_pkts")	\
	X(LOOPBACK_ACKS,	"loopback_acks")	\
	X(LOOPBACK_DIRECT,	"loopback_direct")	\
	X(ZCOPY_PKTS,		"zero_copy_pkts")	\
	X(ZCOPY_READ_PKTS,	"zero_copy_read_pkts")	\
	X(ODP_FAULTS,		"odp_page_faults")	\
	X(ODP_INVAL,		"odp_invalidations")	\
	X(ODP_PREFETCH,		"odp_prefetches")	\
	X(ODP_AGAIN,		"odp_not_sleepable")	\
	X(DROP_HDR,		"rcvd_bad_hdr")		\
	X(DROP_ICRC,		"rcvd_icrc_err")	\
	X(DROP_PKEY,		"rcvd_pkey_err")	\
	X(DROP_PKEY_TX,		"send_pkey_err")	\
	X(DROP_QKEY,		"rcvd_qkey_err")	\
	X(DROP_NO_QP,		"rcvd_no_qp")		\
	X(DROP_SRC,		"rcvd_wrong_source")	\
	X(MCAST_RCVD,		"rcvd_mcast_pkts")	\
	X(DROP_NO_MCG,		"rcvd_mcast_no_group")	\
	X(DROP_QP_STATE,	"rcvd_qp_state_err")	\
	X(DROP_RXQ_FULL,	"rcvd_queue_full")	\
	X(DROP_STALE_NAK,	"rcvd_stale_nak")	\
	X(DROP_OUT_OF_SEQ,	"rcvd_out_of_seq")	\
	X(DROP_RESP_SEQ,	"rcvd_resp_out_of_seq")	\
	X(UD_NO_RWQE,		"ud_no_recv_wqe")	\
	X(UD_OVER_MTU,		"ud_send_over_mtu")	\
	X(UC_DROP,		"uc_dropped_pkts")	\
	X(XRC_BAD_SRQ,		"rcvd_xrc_srq_err")	\
	X(DUP_REQ,		"duplicate_request")	\
	X(SEQ_NAK_SENT,		"seq_nak_sent")		\
	X(SEQ_NAK_RCVD,		"seq_nak_rcvd")		\
	X(RNR_NAK_SENT,		"rnr_nak_sent")		\
	X(RNR_NAK_RCVD,		"rnr_nak_rcvd")		\
	X(ACK_TIMEOUT,		"ack_timeout")		\
	X(LOSS_PROBES,		"loss_probes")		\
	X(RETRANSMITS,		"retransmits")		\
	X(RETRANS_PKTS,		"retransmitted_pkts")	\
	X(READ_RESP_GAP,	"read_resp_gap")	\
	X(RETRY_EXCEEDED,	"retry_exceeded_err")	\
	X(RNR_EXCEEDED,		"rnr_retry_exceeded_err") \
	X(XMIT_ERR,		"send_err")		\
	X(XMIT_FRAG,		"send_ip_fragmented")	\
	X(XMIT_LINEARIZED,	"send_linearized")	\
	X(TX_POOL_PKTS,		"tx_pool_pkts")		\
	X(CQ_OVERFLOW,		"cq_overflow")		\
	X(COMP_HANDLER_QUEUED,	"comp_handler_queued")	\
	X(MW_BIND,		"mw_bind")		\
	X(FAST_REG,		"fast_reg")		\
	X(LOCAL_INV,		"local_inv")		\
	X(REMOTE_INV,		"remote_inv")		\
	X(RKEY_ERR,		"rkey_violation")	\
	X(COMPLETIONS,		"completions")		\
	X(INLINE_ROUNDS,	"inline_rounds")	\
	X(WORK_ROUNDS,		"work_rounds")		\
	X(SOFTIRQ_ROUNDS,	"softirq_rounds")	\
	X(SQ_DOORBELLS,		"sq_doorbells")		\
	X(SQ_DOORBELLS_IOCTL,	"sq_doorbells_ioctl")	\
	X(SQ_DOORBELLS_FILE,	"sq_doorbells_file")	\
	X(SQ_LINGER_HITS,	"sq_linger_hits")	\
	X(SQ_LINGER_MISSES,	"sq_linger_misses")	\
	X(QP_LIMIT,		"qp_limit_exceeded")	\
	X(CQ_LIMIT,		"cq_limit_exceeded")	\
	X(MR_LIMIT,		"mr_limit_exceeded")	\
	X(SRQ_LIMIT,		"srq_limit_exceeded")	\
	X(PD_LIMIT,		"pd_limit_exceeded")	\
	X(AH_LIMIT,		"ah_limit_exceeded")	\
	X(MW_LIMIT,		"mw_limit_exceeded")	\
	X(NP_ECN_MARKED,	"np_ecn_marked_roce_packets") \
	X(NP_CNP_SENT,		"np_cnp_sent")		\
	X(NP_CNP_SUPPRESSED,	"np_cnp_suppressed")	\
	X(RP_CNP_HANDLED,	"rp_cnp_handled")	\
	X(RP_CNP_IGNORED,	"rp_cnp_ignored")	\
	X(RP_RATE_DECREASE,	"rp_rate_decrease")	\
	X(RP_RATE_INCREASE,	"rp_rate_increase")	\
	X(RP_PACED,		"rp_paced_waits")	\
	X(IB_DROP_LRH,		"rcvd_lrh_err")		\
	X(IB_DROP_VCRC,		"rcvd_vcrc_err")	\
	X(IB_DROP_DLID,		"rcvd_dlid_err")	\
	X(IB_DROP_VL,		"rcvd_vl_err")		\
	X(IB_DROP_PORT_STATE,	"rcvd_port_state_err")	\
	X(IB_XMIT_PORT_STATE,	"send_port_state_err")	\
	X(IB_LINK_PKTS_SENT,	"link_pkts_sent")	\
	X(IB_LINK_PKTS_RCVD,	"link_pkts_rcvd")	\
	X(IB_SMP_RCVD,		"smp_rcvd")		\
	X(IB_SMP_SENT,		"smp_sent")		\
	X(IB_VL15_DROPPED,	"vl15_dropped")		\
	X(IB_MKEY_VIOLATIONS,	"mkey_violations")	\
	X(IB_XMIT_BYTES,	"ib_sent_bytes")	\
	X(IB_RCV_BYTES,		"ib_rcvd_bytes")	\
	X(RAW_SENT,		"raw_frames_sent")	\
	X(RAW_RCVD,		"raw_frames_rcvd")	\
	X(RAW_NO_RWQE,		"raw_no_recv_wqe")	\
	X(RAW_DROPPED,		"raw_frames_dropped")

#define SIB_CNT_ENUM(id, name) SIB_CNT_##id,
enum sib_counter {
	SIB_COUNTER_LIST(SIB_CNT_ENUM)
	SIB_NUM_COUNTERS
};
#undef SIB_CNT_ENUM

/* one CPU's share of a device's counters */
struct sib_counters {
	u64 c[SIB_NUM_COUNTERS];
};

struct sib_dev;

int sib_counters_alloc(struct sib_dev *dev);
void sib_counters_free(struct sib_dev *dev);
u64 sib_counter_read(struct sib_dev *dev, enum sib_counter c);
struct rdma_hw_stats *sib_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num);
int sib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

#endif /* SIB_COUNTERS_H */
