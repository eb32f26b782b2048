/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Our own declarations of the part of libibverbs' private provider ABI
 * (symbol version IBVERBS_PRIVATE_34, rdma-core v44) that softib uses.
 *
 * Debian ships neither rdma-core's driver.h nor its kern-abi.h, so the
 * layouts, constants and prototypes below are written from the facts in
 * abi/rdma-core-v44-provider-abi.txt. tests/unit/abi_test.c checks
 * every struct member offset and size, every constant and every prototype
 * declared here against that file; keep the two in step.
 *
 * Conventions kept so the test can find things mechanically:
 *  - every struct of the private ABI is declared as "struct NAME {" at the
 *    start of a line;
 *  - every private symbol is declared on one logical statement, written the
 *    way the ABI file writes it (types and parameter names).
 */
#ifndef SIB_DRIVER_H
#define SIB_DRIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* ------------------------------------------------------------------ */
/* constants                                                          */
/* ------------------------------------------------------------------ */

#define IBVERBS_PABI_VERSION 34
#define IB_USER_VERBS_MIN_ABI_VERSION 3
#define IB_USER_VERBS_MAX_ABI_VERSION 6
#define IBV_SYSFS_NAME_MAX 64
#define IBV_SYSFS_PATH_MAX 256

enum {
	VERBS_LOG_LEVEL_NONE = 0,
	VERBS_LOG_ERR = 1,
	VERBS_LOG_WARN = 2,
	VERBS_LOG_INFO = 3,
	VERBS_LOG_DEBUG = 4,
};

enum {
	VERBS_XRCD_HANDLE = 1,
	VERBS_XRCD_RESERVED = 2,
};

enum {
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1,
};

enum {
	VERBS_QP_XRCD = 1,
	VERBS_QP_EX = 2,
};

enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	IBV_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR = 0,
	IBV_MR_TYPE_NULL_MR = 1,
	IBV_MR_TYPE_IMPORTED_MR = 2,
	IBV_MR_TYPE_DMABUF_MR = 3,
};

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

enum {
	VSYSFS_READ_MODALIAS = 1,
	VSYSFS_READ_NODE_GUID = 2,
};

/* ------------------------------------------------------------------ */
/* driver.h objects                                                   */
/* ------------------------------------------------------------------ */

/* A doubly linked list link as libibverbs (ccan) lays it out. */
struct list_node {
	struct list_node *next;
	struct list_node *prev;
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

/* Device memory: the public ibv_dm and the kernel's handle of it. */
struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* One row of a provider's device match table. */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* Match a device whose netlink driver id is @id. */
#define VERBS_DRIVER_ID(id) \
	{ .u.driver_id = (id), .kind = VERBS_MATCH_DRIVER_ID }

/* Match a device whose name starts with @prefix (fnmatch on the subject). */
#define VERBS_NAME_MATCH(prefix, data) \
	{ .driver_data = (data), .u.modalias = "rdma_device:*N" prefix "*", \
	  .kind = VERBS_MATCH_MODALIAS }

/* What libibverbs learned about one rdma device from sysfs / netlink. */
struct verbs_sysfs_dev {
	struct list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;
/*
 * libibverbs' ioctl command buffer: softib passes none (NULL links), so it
 * stays an incomplete type here; the driver methods softib calls are built
 * by hand (softib-abi.h, doorbell.c).
 */
struct ibv_command_buffer;

/* The provider's registration record. */
struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device;
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* Every verb a provider may implement; NULL slots get libibverbs' stubs. */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ib_uverbs_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/* ------------------------------------------------------------------ */
/* kern-abi.h command wrappers: the uverbs header, then the kernel    */
/* request struct flattened into an anonymous union with core_payload */
/* ------------------------------------------------------------------ */

struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_get_context core_payload;
	};
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u8 port_num;
			__u8 reserved[7];
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_query_port core_payload;
	};
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_alloc_pd core_payload;
	};
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 start;
			__aligned_u64 length;
			__aligned_u64 hca_va;
			__u32 pd_handle;
			__u32 access_flags;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_reg_mr core_payload;
	};
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 mr_handle;
			__u32 flags;
			__aligned_u64 start;
			__aligned_u64 length;
			__aligned_u64 hca_va;
			__u32 pd_handle;
			__u32 access_flags;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_rereg_mr core_payload;
	};
};

struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 pd_handle;
			__u8 mw_type;
			__u8 reserved[3];
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_alloc_mw core_payload;
	};
};

struct ibv_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 cqe;
			__u32 comp_vector;
			__s32 comp_channel;
			__u32 reserved;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_create_cq core_payload;
	};
};

struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	union {
		struct {
			__aligned_u64 user_handle;
			__u32 cqe;
			__u32 comp_vector;
			__s32 comp_channel;
			__u32 comp_mask;
			__u32 flags;
			__u32 reserved;
		};
		struct ib_uverbs_ex_create_cq core_payload;
	};
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 cq_handle;
			__u32 cqe;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_resize_cq core_payload;
	};
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 max_wr;
			__u32 max_sge;
			__u32 srq_limit;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_create_srq core_payload;
	};
};

struct ibv_create_xsrq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__aligned_u64 user_handle;
			__u32 srq_type;
			__u32 pd_handle;
			__u32 max_wr;
			__u32 max_sge;
			__u32 srq_limit;
			__u32 max_num_tags;
			__u32 xrcd_handle;
			__u32 cq_handle;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_create_xsrq core_payload;
	};
};

struct ibv_open_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 fd;
			__u32 oflags;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_open_xrcd core_payload;
	};
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__u32 srq_handle;
			__u32 attr_mask;
			__u32 max_wr;
			__u32 srq_limit;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_modify_srq core_payload;
	};
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 srq_handle;
			__u32 reserved;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_query_srq core_payload;
	};
};

struct ibv_create_qp_ex {
	struct ex_hdr hdr;
	union {
		struct {
			__aligned_u64 user_handle;
			__u32 pd_handle;
			__u32 send_cq_handle;
			__u32 recv_cq_handle;
			__u32 srq_handle;
			__u32 max_send_wr;
			__u32 max_recv_wr;
			__u32 max_send_sge;
			__u32 max_recv_sge;
			__u32 max_inline_data;
			__u8 sq_sig_all;
			__u8 qp_type;
			__u8 is_srq;
			__u8 reserved;
			__u32 comp_mask;
			__u32 create_flags;
			__u32 rwq_ind_tbl_handle;
			__u32 source_qpn;
		};
		struct ib_uverbs_ex_create_qp core_payload;
	};
};

struct ibv_create_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_wq core_payload;
};

struct ibv_modify_wq {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_modify_wq core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			struct ib_uverbs_qp_dest dest;
			struct ib_uverbs_qp_dest alt_dest;
			__u32 qp_handle;
			__u32 attr_mask;
			__u32 qkey;
			__u32 rq_psn;
			__u32 sq_psn;
			__u32 dest_qp_num;
			__u32 qp_access_flags;
			__u16 pkey_index;
			__u16 alt_pkey_index;
			__u8 qp_state;
			__u8 cur_qp_state;
			__u8 path_mtu;
			__u8 path_mig_state;
			__u8 en_sqd_async_notify;
			__u8 max_rd_atomic;
			__u8 max_dest_rd_atomic;
			__u8 min_rnr_timer;
			__u8 port_num;
			__u8 timeout;
			__u8 retry_cnt;
			__u8 rnr_retry;
			__u8 alt_port_num;
			__u8 alt_timeout;
			__u8 reserved[2];
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_modify_qp core_payload;
	};
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 qp_handle;
			__u32 attr_mask;
			__aligned_u64 driver_data[];
		};
		struct ib_uverbs_query_qp core_payload;
	};
};

struct ibv_post_send {
	struct ib_uverbs_cmd_hdr hdr;
	union {
		struct {
			__aligned_u64 response;
			__u32 qp_handle;
			__u32 wr_count;
			__u32 sge_count;
			__u32 wqe_size;
			struct ib_uverbs_send_wr send_wr[];
		};
		struct ib_uverbs_post_send core_payload;
	};
};

/* ------------------------------------------------------------------ */
/* exported IBVERBS_PRIVATE_34 functions (libibverbs.so.1)            */
/* The ibv_cmd_* functions return 0 or a positive errno value.        */
/* ------------------------------------------------------------------ */

void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size, struct verbs_context *context_offset, uint32_t driver_id);
void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops);
void verbs_uninit_context(struct verbs_context *context);
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context, struct ibv_comp_channel *channel, void *cq_context);
int ibv_cmd_get_context(struct verbs_context *context, struct ibv_get_context *cmd, size_t cmd_size, struct ib_uverbs_get_context_resp *resp, size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context, const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr, size_t attr_size, struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr, struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd, struct ibv_alloc_pd *cmd, size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access, struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size, struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ib_uverbs_advise_mr_advice advice, uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access, struct verbs_mr *vmr);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length, uint64_t hca_va, int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw, struct ibv_alloc_mw *cmd, size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel, int comp_vector, struct ibv_cq *cq, struct ibv_create_cq *cmd, size_t cmd_size, struct ib_uverbs_create_cq_resp *resp, size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *context, const struct ibv_cq_init_attr_ex *cq_attr, struct verbs_cq *cq, struct ibv_create_cq_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd, size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq, struct ibv_srq_init_attr *attr, struct ibv_create_srq *cmd, size_t cmd_size, struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask, struct ibv_modify_srq *cmd, size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq, struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd, size_t cmd_size, struct ib_uverbs_create_srq_resp *resp, size_t resp_size);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd, int vxrcd_size, struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd, size_t cmd_size, struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp, struct ibv_qp_init_attr_ex *qp_attr, struct ibv_create_qp_ex *cmd, size_t cmd_size, struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_modify_qp *cmd, size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask, struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr, struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr, struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset, size_t length, unsigned int access, struct verbs_mr *vmr, struct ibv_command_buffer *link);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id, struct ibv_flow_attr *flow_attr, void *ucmd, size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq, struct ibv_create_wq *cmd, size_t cmd_size, struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, struct ibv_modify_wq *cmd, size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context, struct ibv_rwq_ind_table_init_attr *init_attr, struct ibv_rwq_ind_table *rwq_ind_table, struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);

/* ------------------------------------------------------------------ */
/* helpers built on the declarations above                            */
/* ------------------------------------------------------------------ */

/* Allocate a provider context of type *ptr whose verbs_context is @member. */
#define verbs_init_and_alloc_context(ibdev, fd, ptr, member, drv_id) \
	((__typeof__(ptr))_verbs_init_and_alloc_context( \
		(ibdev), (fd), sizeof(*(ptr)), \
		&((__typeof__(ptr))NULL)->member, (drv_id)))

/* A global name for the ops plus a constructor registering it at dlopen. */
#define SIB_PROVIDER_DRIVER(pname, ops) \
	extern const struct verbs_device_ops verbs_provider_##pname \
		__attribute__((alias(#ops))); \
	static __attribute__((constructor)) void sib_register_##pname(void) \
	{ \
		verbs_register_driver_34(&(ops)); \
	}

/* Recover the verbs_device of an ibv_device. */
static inline struct verbs_device *sib_verbs_device(struct ibv_device *dev)
{
	return (struct verbs_device *)((char *)dev -
				       offsetof(struct verbs_device, device));
}

/* Recover the verbs_context of an ibv_context. */
static inline struct verbs_context *sib_verbs_ctx(struct ibv_context *ctx)
{
	return (struct verbs_context *)((char *)ctx -
					offsetof(struct verbs_context, context));
}

#endif /* SIB_DRIVER_H */
