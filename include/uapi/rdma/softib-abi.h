/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * softib user/kernel ABI: shared by softib.ko and libsoftib-rdmav34.so.
 *
 * Rules of this ABI (read them before changing anything here):
 *  1. Every struct has a fixed size that is a multiple of 8 bytes; 64-bit
 *     fields are __aligned_u64 so 32- and 64-bit user space agree.
 *  2. Fields are only ever appended. A command struct that grows is
 *     recognised by its length (ib_copy_from_udata with the smaller size);
 *     new optional behaviour is requested through comp_mask bits.
 *  3. The kernel rejects unknown comp_mask bits and non-zero reserved
 *     fields with -EINVAL / -EOPNOTSUPP.
 *  4. Rings shared through mmap are written by one side per index only:
 *     the producer index by the producer, the consumer index by the
 *     consumer. The kernel never trusts a value read from a ring: it copies
 *     an entry once into kernel memory, validates the copy, then uses only
 *     the copy. A bad index or entry read from user memory costs user space
 *     its own QP or CQ (error completion / QP to error), never the kernel.
 *  5. Wire-order values (immediate data, invalidated rkeys) are carried as
 *     __be32 exactly as verbs hands them over.
 */
#ifndef SOFTIB_ABI_H
#define SOFTIB_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>	/* UVERBS_ID_NS_SHIFT, UVERBS_OBJECT_QP */

/* ib_device.uverbs_abi_ver; the provider accepts exactly this value. */
#define SIB_UVERBS_ABI_VERSION 1

/*
 * Driver id reported through RDMA netlink (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID).
 * softib is out of tree and has no entry in enum rdma_driver_id, so it uses
 * a value far above that enum's range. The provider also matches by the
 * device name prefix "sib".
 */
#define SIB_DRIVER_ID 0x51b0

/* Device name prefix that `rdma link add` users pick by convention. */
#define SIB_NAME_PREFIX "sib"

/*
 * A ring shared through mmap: this header, then 2^n entries of a fixed
 * stride starting at SIB_RING_HDR_SIZE. Indices are free running u32
 * counters; entry i lives at (i & (num_entries - 1)) * stride.
 */
#define SIB_RING_HDR_SIZE 128

/*
 * Value of sib_ring_hdr.magic. The kernel writes it when it allocates a
 * ring (announced by SIB_UCTX_RESP_F_RING_MAGIC) and clears it when it
 * destroys the object the ring belongs to, after which it never touches
 * the ring again. That also happens when the device goes away under a
 * process (rdma link delete, netdev removal, rmmod): the mappings stay
 * valid memory, and the provider, finding no magic, fails the verb with
 * EIO instead of waiting for completions that will never come.
 */
#define SIB_RING_MAGIC 0x53494252	/* "SIBR" */

struct sib_ring_hdr {
	__u32 producer;		/* written by the producer side only */
	__u32 magic;		/* SIB_RING_MAGIC, written by the kernel only */
	__u32 reserved0[14];
	__u32 consumer;		/* written by the consumer side only */
	/*
	 * Send queues only, written by the kernel: non-zero while the
	 * kernel is not fetching from this ring, i.e. the provider must ring
	 * the doorbell (SIB_METHOD_QP_DOORBELL, or a zero-WR post_send
	 * command) after publishing new
	 * WQEs. Protocol: provider stores producer, full barrier, loads
	 * kernel_idle; kernel stores kernel_idle = 1, full barrier, reloads
	 * producer.
	 */
	__u32 kernel_idle;
	/*
	 * Receive queues of a QP or a WQ only, written by the kernel:
	 * non-zero while the QP (or WQ) is in the error state, when receive
	 * WQEs posted are to complete with IBV_WC_WR_FLUSH_ERR (IBTA 10.3.1):
	 * the provider rings the QP's send doorbell after publishing some,
	 * which runs the flush (a WQ: it asks for the state ERR again).
	 * Protocol: provider stores producer, full barrier, loads qp_error;
	 * kernel stores qp_error = 1, full barrier, then runs the QP or
	 * flushes the WQ (which loads producer).
	 */
	__u32 qp_error;
	__u32 reserved1[13];
};

/* Scatter/gather element as posted by the user. */
struct sib_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* opcode of struct sib_send_wqe: enum ib_uverbs_wr_opcode (== ibv_wr_opcode) */
/*
 * ... and these IBA 1.5 codes of rdma-core 44 that Linux 6.1's
 * ib_user_verbs.h does not name: ATOMIC WRITE carries its 8 bytes as
 * inline payload and its target in wr.rdma; it completes as
 * SIB_WC_ATOMIC_WRITE.
 */
#define SIB_WR_ATOMIC_WRITE	15	/* IBV_WR_ATOMIC_WRITE */
#define SIB_WC_ATOMIC_WRITE	9	/* IBV_WC_ATOMIC_WRITE */
/* send_flags of struct sib_send_wqe: enum ib_uverbs_send_flags-compatible */
#define SIB_SEND_FENCE		(1U << 0)
#define SIB_SEND_SIGNALED	(1U << 1)
#define SIB_SEND_SOLICITED	(1U << 2)
#define SIB_SEND_INLINE		(1U << 3)
#define SIB_SEND_IP_CSUM	(1U << 4)
#define SIB_SEND_FLAGS_ALL	(SIB_SEND_FENCE | SIB_SEND_SIGNALED | \
				 SIB_SEND_SOLICITED | SIB_SEND_INLINE | \
				 SIB_SEND_IP_CSUM)

/*
 * Send WQE: 64-byte header followed, in the same slot, by num_sge
 * struct sib_sge or (SIB_SEND_INLINE) inline_len bytes of payload.
 * The slot size is sq_stride from struct sib_create_qp_resp.
 */
struct sib_send_wqe {
	__aligned_u64 wr_id;
	__u8 opcode;
	__u8 reserved0;
	__u16 num_sge;
	__u32 send_flags;
	__be32 ex;		/* imm_data, or invalidate_rkey for SEND_WITH_INV / LOCAL_INV */
	__u32 inline_len;	/* bytes of inline payload when SIB_SEND_INLINE */
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah_num;	/* from struct sib_create_ah_resp */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			/*
			 * BIND_MW: rkey is the window's new R_Key, its index
			 * names the window; mr_lkey/addr/length/access the
			 * grant (length 0 unbinds a type 1 window).
			 */
			__u32 mw_handle;	/* ignored */
			__u32 rkey;
			__u32 mr_lkey;
			__u32 access;
			__aligned_u64 addr;
			__aligned_u64 length;
		} bind;
	} wr;
	__u32 xrc_srqn;		/* XRC_INI QPs: the remote XRC SRQ number */
	__u32 reserved1;
};

#define SIB_SEND_WQE_HDR_SIZE 64

/* Receive WQE: 16-byte header followed by num_sge struct sib_sge. */
struct sib_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

#define SIB_RECV_WQE_HDR_SIZE 16

/* wc_flags of struct sib_cqe (translated by each side to its own flags) */
#define SIB_WC_F_GRH		(1U << 0)
#define SIB_WC_F_IMM		(1U << 1)
#define SIB_WC_F_INV		(1U << 2)
#define SIB_WC_F_TIMESTAMP	(1U << 3)
/* tag matching completions (IBV_WC_TM_*): see struct sib_tm_op */
#define SIB_WC_F_TM_SYNC_REQ	(1U << 4)
#define SIB_WC_F_TM_MATCH	(1U << 5)
#define SIB_WC_F_TM_DATA_VALID	(1U << 6)

/* network_hdr_type of struct sib_cqe: the GRH area holds... */
#define SIB_NET_HDR_IB		0
#define SIB_NET_HDR_IPV4	1	/* a 20-byte IPv4 header in the last 20 of 40 bytes */
#define SIB_NET_HDR_IPV6	2	/* a 40-byte IPv6 header */

/* Completion queue entry, 64 bytes. */
struct sib_cqe {
	__aligned_u64 wr_id;
	__u8 status;		/* enum ib_wc_status (== ibv_wc_status) */
	__u8 opcode;		/* enum ib_uverbs_wc_opcode (== ibv_wc_opcode) */
	__u16 wc_flags;		/* SIB_WC_F_* */
	__u32 vendor_err;
	__u32 byte_len;
	__be32 ex;		/* imm_data or invalidated rkey */
	__u32 qp_num;
	__u32 src_qp;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;	/* SIB_NET_HDR_* */
	/*
	 * With SIB_WC_F_TIMESTAMP (CQs created with
	 * IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION): CLOCK_REALTIME in ns when
	 * the CQE was written; that is the device clock (hca_core_clock
	 * 1 GHz), so it serves both the raw and the wall-clock timestamp.
	 */
	__aligned_u64 timestamp;
	__u8 smac[6];
	__u16 vlan_id;
	__aligned_u64 tm_tag;	/* SIB_WC_TM_RECV: the message's tag; ex: its app_ctx */
};

#define SIB_CQE_SIZE 64

/* --- udata of the uverbs commands --- */

/* comp_mask of struct sib_alloc_ucontext_resp */
#define SIB_UCTX_RESP_F_RING_MAGIC	(1U << 0)	/* ring headers carry SIB_RING_MAGIC */
#define SIB_UCTX_RESP_F_DB_IOCTL	(1U << 1)	/* SIB_METHOD_QP_DOORBELL exists */
#define SIB_UCTX_RESP_F_DB_FILE		(1U << 2)	/* SIB_METHOD_DB_BIND exists */
#define SIB_UCTX_RESP_F_IMPORT		(1U << 3)	/* the import methods below exist */

/*
 * The ioctl doorbell (announced by SIB_UCTX_RESP_F_DB_IOCTL): a driver
 * method of the QP object, called with the RDMA_VERBS_IOCTL ioctl on the
 * uverbs command fd: struct ib_uverbs_ioctl_hdr { .length = header + one
 * attribute, .object_id = UVERBS_OBJECT_QP, .method_id =
 * SIB_METHOD_QP_DOORBELL, .num_attrs = 1, .driver_id = SIB_DRIVER_ID }
 * followed by struct ib_uverbs_attr { .attr_id =
 * SIB_ATTR_QP_DOORBELL_HANDLE, .len = 0, .data = the QP's handle }.
 * It does what the zero-WR post_send command does (fetch the WQEs
 * published in the SQ ring, run the QP) at a fraction of the cost: no
 * command or response copies, no WR buffer. The core looks the handle
 * up in the calling file's own objects, so a process reaches only its own
 * QPs. Errors (errno of ioctl()): ENOENT a handle that names no object
 * of this context, EINVAL one that names another kind of object or a QP
 * without a send ring (XRC target), EBUSY the QP is being destroyed,
 * EIO the device went away (disassociated). A kernel without the bit
 * answers EPROTONOSUPPORT; providers then use the post_send command.
 */
enum sib_qp_methods {
	SIB_METHOD_QP_DOORBELL = (1U << UVERBS_ID_NS_SHIFT),
};

/*
 * The doorbell file (announced by SIB_UCTX_RESP_F_DB_FILE): the cheapest
 * doorbell. /dev/softib_db comes from the small module softib_db.ko
 * (modprobe loads it after softib). A provider opens it once per
 * context and binds it to the context with the driver method
 * SIB_METHOD_DB_BIND of the device object, through RDMA_VERBS_IOCTL on
 * the uverbs command fd: struct ib_uverbs_ioctl_hdr { .object_id =
 * UVERBS_OBJECT_DEVICE, .method_id = SIB_METHOD_DB_BIND, .num_attrs = 1,
 * .driver_id = SIB_DRIVER_ID } followed by struct ib_uverbs_attr {
 * .attr_id = SIB_ATTR_DB_BIND_FD, .len = 0, .data = the file's fd } (a
 * raw fd attribute, the value itself in .data).
 * Errors: EOPNOTSUPP softib_db.ko is not loaded, EBADF not an open fd,
 * EINVAL not a doorbell file, EBUSY the context has a file or the file
 * is or was bound (a file serves one context, once). Then ioctl(file, SIB_DBF_IOCTL_RING, qp_num) does what the
 * ioctl doorbell does for the context's QP qp_num (the value of
 * ibv_qp.qp_num, passed as the ioctl's argument itself), without the
 * uverbs dispatch. Errors: ENOENT no QP of this context with a send ring
 * has that number, EINVAL the QP may not send (RESET, INIT, RTR),
 * ENOTCONN the file is not bound, or no longer: the context was freed or
 * the device went away (the provider then fails with EIO as for the
 * ioctl doorbell). The binding ends when the context is freed; the
 * file stays the process's to close.
 */
#define SIB_DBF_NAME		"softib_db"	/* /dev/softib_db */
#define SIB_DBF_IOC_TYPE	0xEB
#define SIB_DBF_IOCTL_RING	_IO(SIB_DBF_IOC_TYPE, 1)

enum sib_device_methods {
	SIB_METHOD_DB_BIND = (1U << UVERBS_ID_NS_SHIFT),
};

enum sib_db_bind_attrs {
	SIB_ATTR_DB_BIND_FD = (1U << UVERBS_ID_NS_SHIFT),
};

enum sib_qp_doorbell_attrs {
	SIB_ATTR_QP_DOORBELL_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

/*
 * Device memory and imported objects (announced by SIB_UCTX_RESP_F_IMPORT).
 *
 * Device memory (ibv_alloc_dm) is kernel memory of the device, accounted
 * per context up to max_dm_size bytes (query_device_ex), which the
 * process maps with mmap() on the uverbs fd: ibv_memcpy_to_dm/from_dm are
 * plain copies. SIB_METHOD_DM_QUERY, a driver method of the DM object,
 * answers where: struct ib_uverbs_ioctl_hdr { .object_id =
 * UVERBS_OBJECT_DM, .method_id = SIB_METHOD_DM_QUERY, .num_attrs = 2,
 * .driver_id = SIB_DRIVER_ID }, then the attributes
 * SIB_ATTR_DM_QUERY_HANDLE (.data = the DM's handle) and
 * SIB_ATTR_DM_QUERY_RESP (.data = a pointer to struct sib_dm_query_resp,
 * .len = its size). MRs on device memory (ibv_reg_dm_mr) are zero based.
 *
 * An imported context (ibv_import_device: a dup of another context's
 * uverbs fd) learns what alloc_ucontext answered through
 * UVERBS_METHOD_QUERY_CONTEXT with the driver attribute
 * SIB_ATTR_QUERY_CONTEXT_RESP_UCTX (struct sib_alloc_ucontext_resp).
 * SIB_METHOD_PD_QUERY (object UVERBS_OBJECT_PD, one attribute
 * SIB_ATTR_PD_QUERY_HANDLE) checks that a handle names a PD of the
 * context (ibv_import_pd); it answers nothing else.
 * Errors: ENOENT a handle that names no object of that kind in this
 * context, EIO the device went away.
 */
enum sib_dm_methods {
	SIB_METHOD_DM_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum sib_dm_query_attrs {
	SIB_ATTR_DM_QUERY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SIB_ATTR_DM_QUERY_RESP,
};

struct sib_dm_query_resp {
	__aligned_u64 mmap_offset;	/* pass to mmap() on the uverbs fd */
	__aligned_u64 mmap_size;	/* bytes to map: the length, page aligned */
	__aligned_u64 length;		/* bytes of device memory */
};

enum sib_pd_methods {
	SIB_METHOD_PD_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum sib_pd_query_attrs {
	SIB_ATTR_PD_QUERY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

enum sib_query_context_attrs {
	SIB_ATTR_QUERY_CONTEXT_RESP_UCTX = (1U << UVERBS_ID_NS_SHIFT),
};

struct sib_alloc_ucontext_resp {
	__u32 comp_mask;		/* SIB_UCTX_RESP_F_* */
	__u32 cqe_size;		/* SIB_CQE_SIZE */
	__u32 send_wqe_hdr_size;	/* SIB_SEND_WQE_HDR_SIZE */
	__u32 recv_wqe_hdr_size;	/* SIB_RECV_WQE_HDR_SIZE */
	__u32 max_inline_data;
	__u32 reserved;
};

struct sib_create_cq_resp {
	__aligned_u64 mmap_offset;	/* pass to mmap() on the uverbs fd */
	__aligned_u64 mmap_size;	/* bytes: header + num_entries * SIB_CQE_SIZE */
	__u32 num_entries;		/* power of two, >= requested cqe + 1 */
	__u32 reserved;
};

/* resize_cq answers with a new ring; the old mapping stays valid until unmapped. */
struct sib_resize_cq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num_entries;
	__u32 reserved;
};

struct sib_create_qp_resp {
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 sq_mmap_size;	/* 0: no SQ ring */
	__aligned_u64 rq_mmap_offset;
	__aligned_u64 rq_mmap_size;	/* 0: no RQ ring (SRQ attached) */
	__u32 sq_entries;		/* power of two */
	__u32 sq_stride;		/* bytes per send WQE slot */
	__u32 rq_entries;		/* power of two */
	__u32 rq_stride;		/* bytes per receive WQE slot */
	__u32 max_inline_data;
	__u32 reserved;
};

struct sib_create_srq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num_entries;
	__u32 stride;
	__u32 srq_num;
	__u32 reserved;
};

/*
 * Driver data of create_qp. Zero for every QP but one whose receives a
 * receive WQ indirection table spreads (RSS, raw packet QPs only): then
 * the hash that picks the table entry, as ibv_rx_hash_conf gives it.
 */
#define SIB_RX_HASH_FUNC_TOEPLITZ	1	/* IBV_RX_HASH_FUNC_TOEPLITZ */
#define SIB_RX_HASH_KEY_LEN		40
/* rx_hash_fields_mask bits: enum ibv_rx_hash_fields */
#define SIB_RX_HASH_SRC_IPV4		(1ULL << 0)
#define SIB_RX_HASH_DST_IPV4		(1ULL << 1)
#define SIB_RX_HASH_SRC_IPV6		(1ULL << 2)
#define SIB_RX_HASH_DST_IPV6		(1ULL << 3)
#define SIB_RX_HASH_SRC_PORT_TCP	(1ULL << 4)
#define SIB_RX_HASH_DST_PORT_TCP	(1ULL << 5)
#define SIB_RX_HASH_SRC_PORT_UDP	(1ULL << 6)
#define SIB_RX_HASH_DST_PORT_UDP	(1ULL << 7)
#define SIB_RX_HASH_FIELDS_ALL		((1ULL << 8) - 1)

struct sib_create_qp_cmd {
	__aligned_u64 rx_hash_fields_mask;	/* SIB_RX_HASH_* */
	__u8 rx_hash_function;			/* SIB_RX_HASH_FUNC_* */
	__u8 rx_hash_key_len;			/* SIB_RX_HASH_KEY_LEN */
	__u8 reserved[6];
	__u8 rx_hash_key[SIB_RX_HASH_KEY_LEN];
};

/*
 * Tag matching (SRQs of type IB_SRQT_TM). Messages to such an SRQ begin
 * with a 16-byte tag matching header (opcode, 3 zero bytes, app_ctx
 * be32, tag be64: struct ibv_tmh); a rendezvous request follows it with
 * va be64, rkey be32, len be32 (struct ibv_rvh). The list operations of
 * ibv_post_srq_ops go to the kernel one at a time through the driver
 * method SIB_METHOD_SRQ_TM_OP of the SRQ object (RDMA_VERBS_IOCTL on the
 * command fd, three attributes: SIB_ATTR_TM_OP_HANDLE the SRQ's handle,
 * SIB_ATTR_TM_OP_CMD struct sib_tm_op in, SIB_ATTR_TM_OP_RESP struct
 * sib_tm_op_resp out). Their completions, and those of the messages the
 * SRQ takes, go to the SRQ's CQ with these opcodes (enum ibv_wc_opcode).
 * Errors: EINVAL not a TM SRQ, an unknown opcode or flag, more than one
 * SGE; ENOSPC the tag list is full (ADD); ENOENT no tag has that handle
 * (DEL: never added, or a message took it already).
 */
#define SIB_WC_TM_ADD		130	/* IBV_WC_TM_ADD */
#define SIB_WC_TM_DEL		131
#define SIB_WC_TM_SYNC		132
#define SIB_WC_TM_RECV		133
#define SIB_WC_TM_NO_TAG	134
/* statuses of enum ibv_wc_status the kernel's enum lacks */
#define SIB_WC_TM_RNDV_INCOMPLETE	23	/* IBV_WC_TM_RNDV_INCOMPLETE */

#define SIB_TMH_NO_TAG		0	/* enum ibv_tmh_op */
#define SIB_TMH_RNDV		1
#define SIB_TMH_FIN		2
#define SIB_TMH_EAGER		3
#define SIB_TMH_LEN		16
#define SIB_RVH_LEN		16

#define SIB_TM_OP_ADD		0	/* enum ibv_ops_wr_opcode */
#define SIB_TM_OP_DEL		1
#define SIB_TM_OP_SYNC		2
#define SIB_TM_OPF_SIGNALED	(1U << 0)	/* enum ibv_ops_flags */
#define SIB_TM_OPF_SYNC		(1U << 1)

struct sib_tm_op {
	__aligned_u64 wr_id;		/* the operation's own completion */
	__aligned_u64 recv_wr_id;	/* ADD: the tagged buffer's completions */
	__aligned_u64 tag;		/* ADD */
	__aligned_u64 mask;		/* ADD: bits of the tag that must match */
	struct sib_sge sge;		/* ADD: the buffer, when num_sge is 1 */
	__u32 unexpected_cnt;
	__u32 handle;			/* DEL: what ADD answered */
	__u8 opcode;			/* SIB_TM_OP_* */
	__u8 flags;			/* SIB_TM_OPF_* */
	__u8 num_sge;			/* ADD: 0 or 1 */
	__u8 reserved[5];
};

struct sib_tm_op_resp {
	__u32 handle;			/* ADD: the tag's handle */
	__u32 reserved;
};

enum sib_srq_methods {
	SIB_METHOD_SRQ_TM_OP = (1U << UVERBS_ID_NS_SHIFT),
};

enum sib_srq_tm_op_attrs {
	SIB_ATTR_TM_OP_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SIB_ATTR_TM_OP_CMD,
	SIB_ATTR_TM_OP_RESP,
};

/* create_wq (receive WQs of RSS): the WQ's receive ring, as an SRQ's */
struct sib_create_wq_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 num_entries;
	__u32 stride;
};

struct sib_create_ah_resp {
	__u32 ah_num;		/* put in sib_send_wqe.wr.ud.ah_num */
	__u32 reserved;
};

#endif /* SOFTIB_ABI_H */
