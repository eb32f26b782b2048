/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: core structures shared by all files of the module.
 *
 * Locking, outermost first:
 *   qp->state_lock   qp->state and the attributes modify_qp changes
 *   qp->sq.lock      posting side of the send shadow (kprod, entries)
 *   qp->rq.lock      posting side of a kernel QP's receive ring
 *   cq->lock         CQ ring producer and notify state
 * The engines (requester, responder, completer) run only in qp->work,
 * which the workqueue never runs twice at once; everything in
 * struct sib_req_state, sib_resp_state and sib_comp_state and the
 * consumer indices of the queues belong to that work item alone.
 */
#ifndef SIB_SOFTIB_H
#define SIB_SOFTIB_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/interrupt.h>
#include <linux/xarray.h>
#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/lockdep.h>
#include <linux/iosys-map.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/softib-abi.h>

#include "params.h"
#include "counters.h"
#include "limits.h"
#include "pkey.h"
#include "cc.h"

#define sib_dbg(dev, fmt, ...) \
	ibdev_dbg(&(dev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)
#define sib_warn_rl(dev, fmt, ...) \
	ibdev_warn_ratelimited(&(dev)->ibdev, fmt, ##__VA_ARGS__)

struct sib_udp;
struct sib_ib_port;

/*
 * struct sib_dev - one softib device bound to one netdev
 * @ndev: the netdev of `rdma link add`: packets leave through it and
 *	  arrive on it, its MTU and link state are the port's
 * @gid_ndev: only when @ndev is a VLAN device: its real device, which
 *	      the core is shown as the port's netdev (ib_device_ops
 *	      .get_netdev, which gives @ndev otherwise) so that it gives the
 *	      port the VLAN's IP GIDs; NULL otherwise. See device.c.
 */
struct sib_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct net_device *gid_ndev;
	netdevice_tracker gid_ndev_tracker;
	struct sib_udp *udp;
	spinlock_t port_lock;		/* port_state, active_mtu */
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;
	struct sib_pkey_port pkey;	/* P_Key table of port 1 */
	struct xarray qp_xa;		/* qpn -> sib_qp, lock BH */
	u32 next_qpn;
	struct xarray mr_xa;		/* key index -> sib_mr */
	u32 next_mr;
	unsigned long mr_gen;		/* + 1 per MR removed (mr.c) */
	struct xarray mw_xa;		/* key index -> sib_mw (mw.h) */
	u32 next_mw;
	u8 next_key;
	struct xarray ah_xa;		/* ah_num -> sib_ah (user AHs) */
	struct mutex mcg_mutex;		/* mcast.c: attach/detach; then mcg_lock */
	spinlock_t mcg_lock;		/* mcg_list for the receive path (BH) */
	struct list_head mcg_list;	/* struct sib_mcg */
	u32 num_mcg;			/* under mcg_mutex */
	struct xarray srq_xa;		/* srq_num -> sib_srq, lock BH */
	u32 next_srqn;
	struct sib_counters __percpu *counters;	/* counters.c */
	struct sib_limits lim;		/* limits.c: fixed at creation */
	atomic_t live[SIB_NUM_OBJ];	/* objects of each kind, <= lim.max_obj */
	atomic_t num_xrcd;
	u32 cc[SIB_CC_NUM_PARAMS];	/* cc.c: congestion control parameters */
	struct sib_ib_port *ib;		/* ib.h: the IB port, NULL on RoCE */
	/* raw.c: flow steering rules; changed under RTNL, read under RCU */
	struct list_head flows;		/* struct sib_flow, by priority */
	u32 num_flows;			/* RTNL */
	bool flow_rx;			/* raw.c's rx_handler is on ndev, RTNL */
	bool flow_gone;			/* ndev unregistered, RTNL */
	atomic_t next_ind_tbl;		/* rss.c: indirection table numbers */
	atomic64_t odp_lists;		/* odp.c: bytes of ib_core's ODP page lists */
	atomic_t odp_mrs;		/* odp.c: ODP MRs (no softirq rounds) */
};

/**
 * sib_is_ib() - does @dev have an InfiniBand link layer port (ib.h)?
 * @dev: device
 *
 * Context: any. Return: true for a softib-ib device, false for RoCE.
 */
static inline bool sib_is_ib(const struct sib_dev *dev)
{
	return dev->ib != NULL;
}

/**
 * sib_counter_inc() - count an event
 * @dev: device
 * @c: counter
 *
 * Inline: the data path counts several events per packet.
 * Context: any (this CPU's share, one instruction on x86).
 */
static inline void sib_counter_inc(struct sib_dev *dev, enum sib_counter c)
{
	this_cpu_inc(dev->counters->c[c]);
}

/*
 * struct sib_ucontext - a process's device context
 * @db_qps: QP number -> user QP with a send ring: the QPs the doorbell
 *	    file may name (doorbell.c); its lock (xa_lock, process context
 *	    only) covers a lookup and the reference it takes
 * @db_lock: serializes binding and unbinding the doorbell file
 * @db_file: the bound /dev/softib_db file, or NULL (doorbell.c)
 * @db_unbind: softib_db.ko's sib_dbf_unbind(), held by symbol_get()
 *	       while @db_file is set
 * @dm_bytes: bytes of device memory the context holds (dm.c), at most
 *	      SIB_MAX_DM_SIZE
 */
struct sib_ucontext {
	struct ib_ucontext ibuc;
	struct xarray db_qps;
	struct mutex db_lock;
	struct file *db_file;
	void (*db_unbind)(struct file *file);
	atomic_long_t dm_bytes;
};

struct sib_pd {
	struct ib_pd ibpd;
};

/*
 * struct sib_av - resolved address vector (a copy, never shared)
 * @sgid, @dgid: RoCEv2 GIDs (IPv4-mapped for IPv4)
 * @net_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @loopback: @dgid is one of this device's GIDs: deliver internally
 * @ifindex: netdev of @sgid when it is not the device's own (a VLAN on
 *	     top of it): packets are routed out of that one; 0 otherwise
 * On an InfiniBand device (sib_is_ib(), @net_type RDMA_NETWORK_IB, see
 * lrh.c): @dlid, @src_path_bits (the SLID is the port's base LID ORed
 * with them), @sl, and @grh when a GRH goes on the wire (then @sgid,
 * @dgid, @flow_label, @hop_limit, @traffic_class are the GRH's);
 * @loopback stays 0: whether @dlid is the port's own is decided per
 * packet, the port's LID may change under the AV.
 */
struct sib_av {
	union ib_gid sgid;
	union ib_gid dgid;
	int ifindex;
	u32 flow_label;
	u8 hop_limit;
	u8 traffic_class;
	u8 net_type;
	u8 loopback;
	u16 dlid;
	u8 src_path_bits;
	u8 sl;
	u8 grh;
};

/*
 * One IPv4 route kept between a QP's packets (net.c): for its source,
 * destination and outgoing interface, used while the routing tables have
 * not changed since (dst_check()). Only the QP's runner touches it.
 */
struct sib_route_cache {
	struct rtable *rt;		/* one reference held, or NULL */
	__be32 saddr;
	__be32 daddr;
	int oif;
};

struct sib_ah {
	struct ib_ah ibah;
	struct sib_av av;
	u32 ah_num;			/* 0 for kernel AHs */
};

enum sib_mr_type {
	SIB_MR_DMA,
	SIB_MR_USER,
	SIB_MR_FRMR,			/* fast registration (IB_MR_TYPE_MEM_REG) */
	SIB_MR_DM,			/* on device memory (dm.c): its pages, zero based */
	SIB_MR_ODP,			/* on-demand paging (odp.c): nothing pinned */
	SIB_MR_DMABUF,			/* on a dma-buf, through its kernel mapping */
};

/*
 * struct sib_mr - memory region
 * @key: the valid L_Key/R_Key; 0 (never a valid key) while a fast-reg
 *	 MR is free. Written under dev->mr_xa's lock or by the owning QP's
 *	 work (REG_MR, LOCAL_INV), read with READ_ONCE by lookups.
 * @num_mw: memory windows bound to this MR; dereg refuses while > 0
 * @ref: engines hold a reference while copying; dereg waits for 0
 * @pages, @npages: a user MR's pinned pages (its own array), or the pages
 *	 of the device memory a DM MR lies in (the DM's array, from the
 *	 MR's first page on)
 * @fr_pages, @fr_max, @fr_npages, @fr_shift: page list of a fast-reg MR
 *	 (kernel virtual addresses), its capacity, fill and page size
 * @dmabuf, @dmabuf_map, @kva: a dma-buf MR's buffer (referenced), the
 *	 exporter's kernel mapping of all of it (held until dereg) and the
 *	 address of the MR's first byte in that mapping
 */
struct sib_mr {
	struct ib_mr ibmr;
	struct sib_dev *dev;
	enum sib_mr_type type;
	int access;
	u64 iova;
	u64 length;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned int page_off;		/* offset of iova in pages[0] */
	u32 key;
	atomic_t num_mw;
	refcount_t ref;
	struct completion released;
	u64 *fr_pages;
	u32 fr_max;
	u32 fr_npages;
	u32 fr_shift;
	struct ib_umem_odp *odp;	/* SIB_MR_ODP: its umem (odp.c) */
	struct xarray odp_kids;		/* implicit ODP: child umems by 2 MiB */
	struct mutex odp_kids_lock;	/* serializes adding a child */
	u64 odp_charged;		/* its and its children's odp_lists bytes */
	struct dma_buf *dmabuf;
	struct iosys_map dmabuf_map;
	void *kva;
	struct rcu_head rcu;		/* freed after a grace period: hints */
};

/**
 * sib_mr_in_range() - [@va, @va + @len) lies inside the MR's addresses
 * @mr: MR (its iova and length are stable while it is referenced)
 * @va: first address (untrusted)
 * @len: bytes
 *
 * A DMA MR spans every address. Context: any.
 */
static inline bool sib_mr_in_range(const struct sib_mr *mr, u64 va, u64 len)
{
	return va >= mr->iova && len <= mr->length &&
	       va - mr->iova <= mr->length - len;
}

/*
 * struct sib_mr_cache - MRs one round of a QP's engines looked up
 * @mr: referenced MRs (or NULL), dropped when the round ends (task.c,
 *	sib_mr_cache_drop()), so the packets of one message cost one key
 *	lookup per round instead of one each, and a deregistration waits
 *	at most for the end of a round
 * @next: slot to replace next
 * @hint: MRs earlier rounds looked up, unreferenced, kept across rounds
 *	(a request/reply exchange uses the same keys every round); each is
 *	trusted only while the device's mr_gen still reads @hint_gen, see
 *	sib_mr_get_cached()
 * @hint_gen: sib_dev.mr_gen before the lookup that found @hint
 * @hint_next: hint slot to replace next
 */
#define SIB_MR_CACHE_SIZE	2
struct sib_mr_cache {
	struct sib_mr *mr[SIB_MR_CACHE_SIZE];
	u8 next;
	u8 hint_next;
	unsigned long hint_gen[SIB_MR_CACHE_SIZE];
	struct sib_mr *hint[SIB_MR_CACHE_SIZE];
};

/*
 * struct sib_ring - a ring of struct sib_ring_hdr + entries
 * @buf: vmalloc_user() memory; for user objects it is owned by @mentry
 *	 once exposed and freed only when the last mapping is gone
 */
struct sib_ring {
	struct sib_ring_hdr *hdr;
	void *buf;
	u32 num;
	u32 stride;
	size_t size;
	bool user;			/* vmalloc_user(): may be exposed */
	struct sib_mmap_entry *mentry;
};

struct sib_cq {
	struct ib_cq ibcq;
	struct sib_dev *dev;
	spinlock_t lock;
	struct sib_ring ring;
	struct ib_qp **kqp;		/* kernel CQs: QP of each entry */
	u32 kprod;			/* kernel copy of the producer */
	u32 kcons;			/* kernel CQs only */
	u8 notify;			/* 0, IB_CQ_NEXT_COMP or IB_CQ_SOLICITED */
	bool is_user;
	bool overflowed;
	bool timestamp;			/* stamp every CQE (SIB_WC_F_TIMESTAMP) */
	int cpu;			/* its completion vector's CPU (cq.c) */
	u32 vector;			/* its completion vector */
	/* kernel CQs: the completion handler, run on @cpu (cq.c) */
	struct work_struct comp_work;
};

/* A validated send WQE in the kernel-private shadow queue. */
struct sib_swqe {
	struct sib_send_wqe wqe;	/* copy; num_sge/inline_len checked */
	struct sib_av av;		/* UD: copy of the AH */
	u32 total_len;
	u32 first_psn;
	u32 last_psn;
	u32 npkts;
	u32 read_pkts;			/* RDMA READ: responses received */
	u8 status;			/* IB_WC_SUCCESS unless set at fetch */
	u8 counted_rd;			/* READ requests / atomics it has out */
	u16 pkey_index;			/* GSI: the WR's P_Key index */
	u16 rd_chunk;			/* RDMA READ: responses per request */
	u8 internal;			/* SIB_SWQE_* (tm.h): the kernel's own WQE */
	union {
		struct sib_sge sge[0];
		u8 inline_data[0];
	};
};

/*
 * RDMA READ in chunks (req.c): one past the last response of the chunk
 * that holds response @idx. Each chunk is answered as its own response
 * stream, FIRST to LAST.
 */
static inline u32 sib_read_chunk_end(const struct sib_swqe *sw, u32 idx)
{
	if (!sw->rd_chunk)
		return sw->npkts;
	return (idx / sw->rd_chunk + 1) * sw->rd_chunk;
}

struct sib_sq {
	spinlock_t lock;		/* posting side */
	struct sib_ring ring;		/* user QPs only */
	void *shadow;
	u32 sstride;			/* bytes per shadow entry */
	u32 num;			/* power of two */
	u32 max_sge;
	u32 max_inline;
	u32 kprod;			/* shadow producer */
	u32 ucons;			/* user ring: next slot to copy (sq.lock) */
	u32 reserved;			/* shadow slots only the kernel fills (tm.h) */
	u32 comp;			/* oldest not completed (engine) */
	u32 req;			/* next to send (engine) */
};

/* A receive WQE copied once from the RQ ring. */
struct sib_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 total_len;
	struct sib_sge sge[SIB_MAX_SGE];
};

struct sib_rq {
	spinlock_t lock;		/* kernel post_recv */
	struct sib_ring ring;
	u32 max_sge;
	u32 kprod;			/* kernel QPs: producer */
	u32 kcons;			/* consumer (engine) */
};

/*
 * struct sib_srq - shared receive queue (IBTA 10.2.9), also an XRC SRQ
 * @lock: consumer side (any QP's work takes WQEs) and kernel posting
 * @ring: the receive ring; user-shared for user SRQs
 * @kcons: consumer index (under @lock)
 * @limit: srq_limit; 0 when not armed (under @lock)
 * @ref: packets naming an XRC SRQ hold a reference; destroy waits for 0
 */
struct sib_srq {
	struct ib_srq ibsrq;
	struct sib_dev *dev;
	spinlock_t lock;
	struct sib_ring ring;
	u32 max_sge;
	u32 kcons;
	u32 limit;
	bool is_user;
	refcount_t ref;
	struct completion released;
	struct sib_tm *tm;		/* tm.h: a TM SRQ's matching list, else NULL */
};

struct sib_xrcd {
	struct ib_xrcd ibxrcd;
};

/*
 * Send window of an RC requester (timers.c): packets in flight are
 * limited to @cwnd, which halves on a loss (sequence NAK, probe or local
 * ACK timeout; once per window) and grows on ACKs. Zeroed state means
 * "not started": the first use sets it up.
 */
struct sib_rc_window {
	u32 cwnd;			/* packets; 0: not set up yet */
	u32 ssthresh;
	u32 acc;			/* congestion avoidance: acked pkts */
	u32 recover_psn;		/* no further cut before this is acked */
	u32 max_psn;			/* highest PSN sent + 1 */
	bool recovering;
	bool rtt_on;			/* an RTT sample is running */
	u32 rtt_psn;			/* ... ending when this PSN is acked */
	u64 rtt_start;			/* ns */
	u32 srtt_us, rttvar_us;
	u32 min_rtt_us;			/* lowest sample of this and the last period */
	u32 min_next_us;		/* ... of this period: the next min_rtt_us */
	unsigned long min_period;	/* jiffies: when this period began */
	bool queued;			/* the last sample saw a queue */
	u32 probes;			/* probe expiries without progress */
	bool probing;			/* a probe resent the oldest packet: */
					/* nothing more until an answer */
};

struct sib_req_state {
	u32 psn;			/* next PSN to send */
	u32 off;			/* bytes of sq.req already sent */
	u32 since_ackreq;
	u32 rd_inflight;
	u32 sq_hi;			/* one past the newest WQE ever started */
	bool rnr_wait;
	struct sib_rc_window win;
	struct sib_cc_rp rp;		/* DCQCN reaction point (cc.c) */
};

struct sib_read_op {
	u64 va;
	u32 rkey;
	u32 len;
	u32 off;
	u32 psn;			/* PSN of the next response */
	u32 msn;
	bool dup;			/* answers a duplicate request */
	struct ib_pd *pd;		/* PD the rkey is checked in (XRC: the SRQ's) */
};

#define SIB_RDQ_SIZE 128		/* == SIB_MAX_QP_RD_ATOM, power of two */
#define SIB_ATOM_CACHE SIB_MAX_QP_RD_ATOM /* atomic results, for duplicates */

struct sib_atom_res {
	u32 psn;
	bool valid;
	u64 orig;
};

struct sib_resp_state {
	u32 epsn;
	u32 msn;
	u32 ack_lag;			/* PSNs of READs/atomics since the last SEND/WRITE */
	bool nak_sent;
	bool ack_due;			/* a plain ACK of @ack_psn is owed (resp.c) */
	u32 ack_psn;
	u8 cur;				/* 0, SIB_OPF_SEND or SIB_OPF_WRITE in progress */
	bool have_rwqe;
	u32 recv_off;
	struct sib_rwqe rwqe;
	u64 w_va;
	u32 w_rkey;
	u32 w_len;
	u32 w_off;
	struct sib_srq *xsrq;		/* XRC target: SRQ of the packet at hand */
	u32 xsrqn;			/* ... and the one the message's first named */
	/* the message at hand on a TM SRQ (tm.c) */
	u8 tm_kind;			/* SIB_TM_*, SIB_TM_NONE elsewhere */
	u8 tm_op;			/* its header's opcode, 0xff: none */
	u32 tm_skip;			/* payload bytes not placed yet to skip */
	u64 tm_tag;
	__be32 tm_ctx;			/* the header's app_ctx */
	u64 tm_va;			/* rendezvous: what to READ */
	u32 tm_rkey;
	u32 tm_len;
	struct sib_sge tm_sge;		/* rendezvous: the matched buffer */
	struct sib_read_op rdq[SIB_RDQ_SIZE];
	u32 rd_head, rd_tail;
	struct sib_atom_res atom[SIB_ATOM_CACHE];
	u32 atom_next;
};

struct sib_comp_state {
	u32 retry_left;
	u32 rnr_left;
	u32 acked_psn;			/* newest PSN the responder acknowledged */
	u32 rd_resume;			/* head READ re-requested from this pkt */
	u32 rd_gap_psn;			/* READ response PSN last re-requested */
	bool rd_gap;			/* @rd_gap_psn is valid */
};

enum sib_qp_flag_bits {
	SIB_QPF_TIMEOUT,		/* retransmit timer fired */
	SIB_QPF_RNR_DONE,		/* RNR wait over */
	SIB_QPF_PROBE,			/* loss probe timer fired */
	SIB_QPF_DESTROYING,
	SIB_QPF_LAST_WQE,		/* IB_EVENT_QP_LAST_WQE_REACHED raised */
	SIB_QPF_ARM,			/* requests sent, timers not started yet */
	SIB_QPF_CNP,			/* a CNP arrived (recv.c), for cc.c */
	/* modified from RTS/SQD to ERR: queued responses are still taken */
	SIB_QPF_ERR_TAKE,
};

/*
 * struct sib_lb_answer - the ACK or NAK a request delivered directly to a
 * QP of the same device received (loop.c), taken by the responder's
 * sib_ack_xmit_loopback() instead of a packet
 */
struct sib_lb_answer {
	bool valid;
	u8 syn;				/* AETH syndrome */
	u32 psn;
};

/* how a direct delivery holds its responder (sib_task_claim(), sched.c) */
enum sib_claim {
	SIB_CLAIM_NONE,			/* another context runs it: send a packet */
	SIB_CLAIM_TAKEN,		/* the caller is its runner until released */
	SIB_CLAIM_OWN,			/* the caller's own run holds it already */
};

/**
 * struct sib_loop - a responder claimed for a request handed over directly
 * @rqp: the responder QP, referenced; NULL: none (send a packet)
 * @claim: how (sib_task_claim())
 */
struct sib_loop {
	struct sib_qp *rqp;
	enum sib_claim claim;
};

/* QPs a runner keeps to run after its round (sib_qp_run_after()) */
#define SIB_LOOP_PEERS		4

/**
 * struct sib_loop_state - a QP's side of the same-device path (loop.c)
 * @ack_valid: @ack_syn and @ack_psn hold a plain ACK from a QP of the
 *	same device, taken instead of a packet; under rxq.lock, set only
 *	while rxq is empty, so it is older than every packet in rxq
 * @ack_syn: its AETH syndrome
 * @ack_psn: its PSN
 * @answer: set while the runner hands this QP a request directly
 * @skb: the buffer reused for direct requests
 * @peers: QPs this QP's runner looped packets to in its round, each
 *	referenced; run after the round, in this order (task.c)
 * @npeers: entries of @peers
 * @parent: while this QP runs nested, the QP whose run runs it
 * @gap: the runner's task while it runs @peers between two rounds
 * @direct_served: a request handed over directly was answered: the next
 *	run lingers for the reply as after a packet
 * @handoff: a direct request the requester built in this round; the
 *	runner delivers it (task.c) before the requester goes on
 * @handoff_skb: that request, consumed by the delivery
 * @handoff_served: that request asked for an ACK
 */
struct sib_loop_state {
	bool ack_valid;
	u8 ack_syn;
	u32 ack_psn;
	struct sib_lb_answer *answer;
	struct sk_buff *skb;
	struct sib_qp *peers[SIB_LOOP_PEERS];
	u8 npeers;
	struct sib_qp *parent;
	struct task_struct *gap;
	bool direct_served;
	struct sib_loop handoff;
	struct sk_buff *handoff_skb;
	bool handoff_served;
};

/*
 * The runner role as a lock the debug kernel sees: held by the context
 * that runs the QP's engines (a round, or a direct delivery's claim), so
 * that "Context: the QP's run" is checked, not only said (sched.h).
 */
struct sib_run_map {
	struct lockdep_map dep_map;
};

/* sib_qp.task_state: the QP's runner (task.c) */
#define SIB_TASK_RUNNING	BIT(0)	/* a context runs its rounds */
#define SIB_TASK_PENDING	BIT(1)	/* and must do one more */

struct sib_qp {
	struct ib_qp ibqp;
	struct sib_dev *dev;
	bool is_user;
	bool sig_all;			/* IB_SIGNAL_ALL_WR */

	spinlock_t state_lock;
	enum ib_qp_state state;
	/* attributes, written under state_lock by modify_qp */
	u32 mtu;			/* path MTU in bytes */
	enum ib_mtu path_mtu;
	u32 qkey;
	u32 dest_qpn;
	int qp_access_flags;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u16 pkey_index;
	u32 sq_psn;
	u32 rq_psn;
	bool sq_draining;		/* SQD reached, sends in flight */
	bool en_sqd_async_notify;
	struct sib_av av;
	struct rdma_ah_attr ah_attr;	/* as given, for query_qp */
	u16 src_port;
	/*
	 * The CPU whose transmit queue the QP's packets take (net.c): one
	 * queue per QP, whichever CPU its run is on, as a socket keeps one;
	 * with a queue per CPU (XPS) a run that moved could overtake its
	 * own packets, and the responder NAKs a gap that is not a loss.
	 */
	u16 xmit_cpu;
	/*
	 * net.c: the QP's last packet left through a netdev without
	 * scatter-gather, so its payload is copied into the packet rather
	 * than referenced as page fragments (sib_net_frags_ok())
	 */
	bool tx_linear;
	/* net.c: the IPv4 route of the QP's own packets, the runner's */
	struct sib_route_cache route;

	struct sib_sq sq;
	struct sib_rq rq;
	struct sib_srq *srq;		/* attached SRQ or NULL */
	struct sib_cq *scq;
	struct sib_cq *rcq;

	struct sk_buff_head rxq;
	struct sib_loop_state loop;	/* the same-device path (loop.c) */
	struct work_struct work;
	struct tasklet_struct rx_tasklet; /* a round after a receive (sched.c) */
	atomic_t task_state;		/* SIB_TASK_* (sched.c, task.c) */
	struct sib_run_map run;		/* held by the runner (sched.h) */
	struct sib_ucontext *db_uc;	/* set while in db_uc->db_qps */
	bool task_nested;		/* running inline for another QP */
	struct sib_mr_cache mr_cache;	/* owned by the running round */
	struct sib_rss *rss;		/* rss.h: an RSS QP's hash, else NULL */
	struct sib_tm_qp *tmq;		/* tm.h: on a TM SRQ, else NULL */
	u8 timer_defer;			/* rounds a timer expiry waited (task.c) */
	bool task_served;		/* the runner answered an AckReq (task.c) */
	u8 linger_misses;		/* lingers in a row without a post */
	u8 linger_skips;		/* opportunities skipped since (task.c) */
	unsigned long flags;
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	struct hrtimer probe_timer;	/* RTT-based loss probe (timers.c) */
	struct hrtimer pace_timer;	/* DCQCN pacing: credit is back (cc.c) */
	u64 cc_tx_bytes;		/* bytes sent, for pacing (net.c) */
	u64 cc_cnp_ns;			/* when the QP last sent a CNP (cc.c) */
	refcount_t ref;
	struct completion released;

	struct sib_req_state req;
	struct sib_resp_state resp;
	struct sib_comp_state comp;
};

/* per-packet information kept in skb->cb */
struct sib_pkt {
	u32 psn;
	u32 qpn;
	u32 paylen;			/* payload bytes, no pad, no ICRC */
	u32 xrc_srqn;			/* XRC requests: the XRCETH's SRQ number */
	u16 hdr_len;
	u16 pkey;			/* BTH P_Key */
	u8 opcode;
	u8 net_type;			/* RDMA_NETWORK_IPV4/IPV6 */
	u8 loopback;
	u8 ackreq;
	u8 se;
	u8 ce;				/* arrived with ECN CE (recv.c) */
	/* an InfiniBand device's packets (lrh.c): what the LRH/GRH said */
	u8 grh;				/* a GRH came, at the network header */
	u8 sl;
	u8 dlid_path_bits;
	u16 slid;
};

static inline struct sib_pkt *sib_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sib_pkt) > sizeof(skb->cb));
	return (struct sib_pkt *)skb->cb;
}

/*
 * Downcasts from the core's verbs objects to ours, one per object kind.
 * A NULL pointer (an optional CQ or SRQ) maps to NULL.
 */
#define SIB_DOWNCAST(fn, ours, theirs, member)				\
	static inline struct ours *fn(struct theirs *obj)		\
	{								\
		return obj ? container_of(obj, struct ours, member) : NULL; \
	}

SIB_DOWNCAST(to_sib_dev, sib_dev, ib_device, ibdev)
SIB_DOWNCAST(to_sib_uc, sib_ucontext, ib_ucontext, ibuc)
SIB_DOWNCAST(to_sib_pd, sib_pd, ib_pd, ibpd)
SIB_DOWNCAST(to_sib_ah, sib_ah, ib_ah, ibah)
SIB_DOWNCAST(to_sib_mr, sib_mr, ib_mr, ibmr)
SIB_DOWNCAST(to_sib_cq, sib_cq, ib_cq, ibcq)
SIB_DOWNCAST(to_sib_qp, sib_qp, ib_qp, ibqp)
SIB_DOWNCAST(to_sib_srq, sib_srq, ib_srq, ibsrq)

/* the module's workqueue, created in main.c */
extern struct workqueue_struct *sib_wq;

#endif /* SIB_SOFTIB_H */
