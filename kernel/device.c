// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the ib_device: registration on top of a netdev, the ops table,
 * query_device/query_port/query_pkey, the port state that follows the
 * netdev, user contexts. GIDs come from the core's RoCE GID cache, which
 * fills itself from the netdev's IP addresses once the netdev is set.
 *
 * A device on a VLAN netdev: the core gives a RoCE port IP GIDs only for
 * its netdev's addresses and those of the netdev's upper devices
 * (roce_gid_mgmt.c), never for a port whose netdev is a VLAN device
 * itself, and refusing GIDs in add_gid makes it log an error for each.
 * So the core is shown the VLAN's real device as the port's netdev
 * (get_netdev) and fills the table as for a device there: the GIDs of the
 * real device and of all its VLANs. Only the GIDs whose netdev is our
 * VLAN device can be used (sib_av_from_attr() refuses the others with
 * EINVAL). The device is still bound to the VLAN device for everything
 * else (ib_device_set_netdev(): the lookup by netdev on receive and on
 * netdev events), so it coexists with a device on the real netdev.
 *
 * The netdev reference: dev->ndev is a counted, tracked reference
 * (netdev_hold() when the device is made, netdev_put() in
 * dealloc_driver), beside the one the core keeps for
 * ib_device_set_netdev(). NETDEV_UNREGISTER queues the device's
 * unregistration (main.c), and the netdev's unregistration waits for
 * both references, so dev->ndev never outlives its netdev. (rdma_rxe
 * kept a bare pointer; 6.13 replaced it with ib_device_get_netdev(),
 * which takes a reference per use; 6.1 does not export that helper, and
 * softib's transmit path would then take and drop one per packet.)
 */
#define UVERBS_MODULE_NAME softib
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "device.h"
#include "queue.h"
#include "net.h"
#include "recv.h"
#include "pd.h"
#include "ah.h"
#include "mr.h"
#include "odp.h"
#include "mw.h"
#include "cq.h"
#include "qp.h"
#include "srq.h"
#include "mcast.h"
#include "doorbell.h"
#include "dm.h"
#include "raw.h"
#include "rss.h"
#include "tm.h"
#include "ib.h"
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

/*
 * The active MTU is the largest IB MTU whose packets fit the netdev MTU
 * with the worst-case RoCEv2 headers (IPv6 40 + UDP 8 + BTH 12 + the
 * largest extension headers + ICRC 4): the core's iboe_get_mtu(), the
 * value rdma_cm puts into RoCE path records, so connections it sets up
 * always pass our path MTU check. Below 256 bytes of payload we still
 * report IB_MTU_256 (the IP layer then fragments, see sib_net_xmit()).
 */
static enum ib_mtu sib_mtu_from_netdev(unsigned int mtu)
{
	enum ib_mtu m = iboe_get_mtu(mtu);

	return clamp_t(enum ib_mtu, m, IB_MTU_256, SIB_MAX_MTU);
}

/**
 * sib_dev_port_event() - resync the port with its netdev
 * @dev: device
 *
 * Updates port state and active MTU; raises IB_EVENT_PORT_ACTIVE or
 * IB_EVENT_PORT_ERR when the state changed. Context: process (netdev
 * notifier, RTNL held).
 */
void sib_dev_port_event(struct sib_dev *dev)
{
	struct net_device *ndev = dev->ndev;
	enum ib_port_state new, old;
	struct ib_event ev = {};

	new = (netif_running(ndev) && netif_carrier_ok(ndev)) ?
	      IB_PORT_ACTIVE : IB_PORT_DOWN;
	spin_lock_bh(&dev->port_lock);
	old = dev->port_state;
	dev->port_state = new;
	WRITE_ONCE(dev->active_mtu, sib_mtu_from_netdev(ndev->mtu));
	spin_unlock_bh(&dev->port_lock);
	if (old == new)
		return;
	ev.device = &dev->ibdev;
	ev.element.port_num = 1;
	ev.event = new == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					   IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/* the limits are the device's copy of the module parameters (limits.c) */
static int sib_query_device(struct ib_device *ibdev, struct ib_device_attr *a,
			    struct ib_udata *udata)
{
	const struct sib_limits *lim = &to_sib_dev(ibdev)->lim;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->fw_ver = SIB_FW_VER;
	a->sys_image_guid = ibdev->node_guid;
	a->max_mr_size = SIB_MAX_MR_SIZE;
	a->page_size_cap = SIB_PAGE_SIZE_CAP;
	a->vendor_id = SIB_VENDOR_ID;
	a->vendor_part_id = SIB_VENDOR_PART_ID;
	a->hw_ver = SIB_HW_VER;
	a->max_qp = lim->max_obj[SIB_OBJ_QP];
	a->max_qp_wr = lim->max_qp_wr;
	a->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_XRC;
	a->max_mw = lim->max_obj[SIB_OBJ_MW];
	a->max_fast_reg_page_list_len = SIB_MAX_FR_PAGES;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		a->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	sib_odp_caps(&a->odp_caps);
	a->max_send_sge = SIB_MAX_SGE;
	a->max_recv_sge = SIB_MAX_SGE;
	a->max_sge_rd = SIB_MAX_SGE_RD;
	a->max_cq = lim->max_obj[SIB_OBJ_CQ];
	a->max_cqe = lim->max_cqe;
	a->max_mr = lim->max_obj[SIB_OBJ_MR];
	a->max_pd = lim->max_obj[SIB_OBJ_PD];
	a->max_qp_rd_atom = SIB_MAX_QP_RD_ATOM;
	a->max_qp_init_rd_atom = SIB_MAX_QP_RD_ATOM;
	/* no overflow: static_assert in limits.c */
	a->max_res_rd_atom = SIB_MAX_QP_RD_ATOM * lim->max_obj[SIB_OBJ_QP];
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = lim->max_obj[SIB_OBJ_AH];
	a->max_pkeys = SIB_MAX_PKEYS;
	a->max_srq = lim->max_obj[SIB_OBJ_SRQ];
	a->max_srq_wr = lim->max_srq_wr;
	a->max_srq_sge = SIB_MAX_SRQ_SGE;
	a->local_ca_ack_delay = SIB_LOCAL_CA_ACK_DELAY;
	a->hca_core_clock = SIB_HCA_CORE_CLOCK_KHZ;
	a->max_mcast_grp = SIB_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SIB_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SIB_MAX_TOTAL_MCAST_QP_ATTACH;
	a->timestamp_mask = SIB_TIMESTAMP_MASK;
	a->max_dm_size = SIB_MAX_DM_SIZE;
	sib_tm_caps(&a->tm_caps);
	/* raw packet QPs (raw.c) and RSS over receive WQs (rss.c) */
	if (!sib_is_ib(to_sib_dev(ibdev))) {
		a->max_raw_ethy_qp = lim->max_obj[SIB_OBJ_QP];
		a->max_wq_type_rq = lim->max_obj[SIB_OBJ_QP];
		a->rss_caps.supported_qpts = BIT(IB_QPT_RAW_PACKET);
		a->rss_caps.max_rwq_indirection_tables = lim->max_obj[SIB_OBJ_QP];
		a->rss_caps.max_rwq_indirection_table_size =
			BIT(SIB_MAX_RWQ_IND_LOG);
	}
	return 0;
}

static int sib_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *a)
{
	struct sib_dev *dev = to_sib_dev(ibdev);
	u16 speed = IB_SPEED_SDR;
	u8 width = IB_WIDTH_1X;

	/* the core zeroes *a */
	spin_lock_bh(&dev->port_lock);
	a->state = dev->port_state;
	a->active_mtu = dev->active_mtu;
	spin_unlock_bh(&dev->port_lock);
	a->phys_state = a->state == IB_PORT_ACTIVE ?
			IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	a->max_mtu = SIB_MAX_MTU;
	a->gid_tbl_len = SIB_GID_TBL_LEN;
	a->port_cap_flags = SIB_PORT_CAP_FLAGS;
	a->max_msg_sz = SIB_MAX_MSG_SIZE;
	a->pkey_tbl_len = SIB_MAX_PKEYS;
	a->max_vl_num = 1;
	a->sm_sl = 0;
	a->subnet_timeout = 0;
	a->init_type_reply = 0;
	ib_get_eth_speed(ibdev, port, &speed, &width);
	a->active_speed = speed;
	a->active_width = width;
	return 0;
}

static int sib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index >= SIB_MAX_PKEYS)
		return -EINVAL;
	/* 0x0000 for an invalid entry, as IBTA 10.9.1.2 shows empty slots */
	*pkey = sib_pkey_at(&to_sib_dev(ibdev)->pkey, index);
	return 0;
}

/*
 * The port's fixed facts, as sib_query_port() / sib_ib_query_port() give
 * the table sizes: a RoCE port is RoCEv2 only with the netdev's GIDs; an
 * IB port (ib.h) has QP0 and QP1 and one GID, subnet prefix:port GUID.
 * Both take MAD-sized management datagrams on QP1 (and QP0 on IB).
 */
static int sib_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *imm)
{
	bool ib = sib_is_ib(to_sib_dev(ibdev));

	if (port != 1)
		return -EINVAL;
	memset(imm, 0, sizeof(*imm));
	imm->core_cap_flags = ib ? RDMA_CORE_PORT_IBA_IB :
				   RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->gid_tbl_len = ib ? 1 : SIB_GID_TBL_LEN;
	imm->pkey_tbl_len = SIB_MAX_PKEYS;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sib_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return sib_is_ib(to_sib_dev(ibdev)) ? IB_LINK_LAYER_INFINIBAND :
					      IB_LINK_LAYER_ETHERNET;
}

static void sib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%llu.%llu.%llu",
		 SIB_FW_VER >> 48, (SIB_FW_VER >> 32) & 0xffff,
		 SIB_FW_VER & 0xffffffff);
}

/* what alloc_ucontext answers, and query_ucontext again */
static void sib_ucontext_resp(struct sib_alloc_ucontext_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->comp_mask = SIB_UCTX_RESP_F_RING_MAGIC | SIB_UCTX_RESP_F_DB_IOCTL |
			  SIB_UCTX_RESP_F_DB_FILE | SIB_UCTX_RESP_F_IMPORT;
	resp->cqe_size = SIB_CQE_SIZE;
	resp->send_wqe_hdr_size = SIB_SEND_WQE_HDR_SIZE;
	resp->recv_wqe_hdr_size = SIB_RECV_WQE_HDR_SIZE;
	resp->max_inline_data = SIB_MAX_INLINE_DATA;
}

static int sib_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct sib_ucontext *uc = to_sib_uc(uctx);
	struct sib_alloc_ucontext_resp resp;

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	xa_init(&uc->db_qps);
	mutex_init(&uc->db_lock);
	atomic_long_set(&uc->dm_bytes, 0);
	sib_ucontext_resp(&resp);
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/*
 * ib_device_ops.query_ucontext: UVERBS_METHOD_QUERY_CONTEXT, which a
 * process calls on a context it imported (ibv_import_device), answers
 * what alloc_ucontext answered, in SIB_ATTR_QUERY_CONTEXT_RESP_UCTX when
 * the caller asked for it. Context: process.
 */
static int sib_query_ucontext(struct ib_ucontext *uctx,
			      struct uverbs_attr_bundle *attrs)
{
	struct sib_alloc_ucontext_resp resp;

	if (!uverbs_attr_is_valid(attrs, SIB_ATTR_QUERY_CONTEXT_RESP_UCTX))
		return 0;
	sib_ucontext_resp(&resp);
	return uverbs_copy_to_struct_or_zero(attrs,
					     SIB_ATTR_QUERY_CONTEXT_RESP_UCTX,
					     &resp, sizeof(resp));
}

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	sib_query_context_attrs, UVERBS_OBJECT_DEVICE,
	UVERBS_METHOD_QUERY_CONTEXT,
	UVERBS_ATTR_PTR_OUT(SIB_ATTR_QUERY_CONTEXT_RESP_UCTX,
			    UVERBS_ATTR_STRUCT(struct sib_alloc_ucontext_resp,
					       reserved),
			    UA_OPTIONAL));

/* ib_device.driver_def: the driver methods and attributes of every file */
static const struct uapi_definition sib_dev_uapi_defs[] = {
	UAPI_DEF_CHAIN(sib_uapi_defs),		/* doorbell.c */
	UAPI_DEF_CHAIN(sib_dm_uapi_defs),
	UAPI_DEF_CHAIN(sib_tm_uapi_defs),
	UAPI_DEF_CHAIN(sib_pd_uapi_defs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sib_query_context_attrs),
	{},
};

/* the core destroyed every object of the context before */
static void sib_dealloc_ucontext(struct ib_ucontext *uctx)
{
	struct sib_ucontext *uc = to_sib_uc(uctx);

	sib_db_file_unbind(uc);
	WARN_ON(!xa_empty(&uc->db_qps));
	WARN_ON(atomic_long_read(&uc->dm_bytes));
	xa_destroy(&uc->db_qps);
	mutex_destroy(&uc->db_lock);
}

/*
 * The device is going away (rdma link delete, netdev removal, rmmod)
 * while a process still has it open. Before calling this the core has
 * destroyed every object of @uctx through the ordinary destroy verbs:
 * destroy_qp stops each QP's work and timers and waits for packets in
 * flight, and every ring freed on the way had its magic cleared, which
 * the provider reports as EIO (see queue.c). Nothing of ours is left to
 * take away; the process gets EIO from every later command and
 * IB_EVENT_DEVICE_FATAL on its async fd. Having this op is what lets the
 * core unregister the device without waiting for processes to exit, and
 * lets rmmod proceed while a uverbs file is open.
 */
static void sib_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * The IB devices (dev->ib != NULL): they are not bound to their netdev
 * (no ib_device_set_netdev(), their link layer is not Ethernet), so the
 * core's lookup by netdev does not find them; main.c's netdev notifier
 * walks this list instead. An entry is on it from its registration to
 * dealloc_driver.
 */
static LIST_HEAD(sib_ib_devs);
static DEFINE_MUTEX(sib_ib_devs_mutex);

/**
 * sib_ib_dev_netdev_event() - a netdev event for the IB devices on @ndev
 * @ndev: the netdev
 * @event: NETDEV_UNREGISTER queues the unregistration of each IB device
 *	   on @ndev (as for RoCE devices); NETDEV_UP, DOWN, CHANGE and
 *	   CHANGEMTU go to the cable (sib_cable_netdev_event())
 *
 * Context: process, RTNL held (netdev notifier).
 */
void sib_ib_dev_netdev_event(struct net_device *ndev, unsigned long event)
{
	struct sib_ib_port *ib;

	if (event != NETDEV_UNREGISTER) {
		sib_cable_netdev_event(ndev, event);
		return;
	}
	mutex_lock(&sib_ib_devs_mutex);
	list_for_each_entry(ib, &sib_ib_devs, ib_list) {
		if (ib->dev->ndev != ndev || !ib_device_try_get(&ib->dev->ibdev))
			continue;
		ib_unregister_device_queued(&ib->dev->ibdev);
		ib_device_put(&ib->dev->ibdev);
	}
	mutex_unlock(&sib_ib_devs_mutex);
}

/**
 * sib_ib_dev_on() - is there an IB device on @ndev already?
 * @ndev: the netdev
 *
 * Context: process. Return: true or false.
 */
bool sib_ib_dev_on(struct net_device *ndev)
{
	struct sib_ib_port *ib;
	bool found = false;

	mutex_lock(&sib_ib_devs_mutex);
	list_for_each_entry(ib, &sib_ib_devs, ib_list)
		found |= ib->dev->ndev == ndev;
	mutex_unlock(&sib_ib_devs_mutex);
	return found;
}

static void sib_dealloc_driver(struct ib_device *ibdev)
{
	struct sib_dev *dev = to_sib_dev(ibdev);

	if (dev->ib) {
		sib_cable_dev_fini(dev);
		mutex_lock(&sib_ib_devs_mutex);
		list_del_init(&dev->ib->ib_list);
		mutex_unlock(&sib_ib_devs_mutex);
		sib_ib_port_fini(dev);
	}
	if (dev->udp)
		sib_udp_put(dev->udp);
	dev->udp = NULL;
	sib_mcast_cleanup(dev);
	if (dev->ndev)
		netdev_put(dev->ndev, &dev->ndev_tracker);
	dev->ndev = NULL;
	if (dev->gid_ndev)
		netdev_put(dev->gid_ndev, &dev->gid_ndev_tracker);
	dev->gid_ndev = NULL;
	sib_counters_free(dev);
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->mr_xa);
	xa_destroy(&dev->mw_xa);
	xa_destroy(&dev->ah_xa);
	xa_destroy(&dev->srq_xa);
	sib_pkey_port_destroy(&dev->pkey);
}

/* INIT_RDMA_OBJ_SIZE for the core object ib_<kind> inside @ours */
#define SIB_OBJ_SIZE(kind, ours, member) \
	INIT_RDMA_OBJ_SIZE(ib_##kind, ours, member)

/* .name = sib_name: a verb whose function carries the verb's own name */
/**
 * sib_get_netdev() - the port's netdev (ib_device_ops .get_netdev)
 * @ibdev: the device
 * @port: the port number (1)
 *
 * The netdev the core's GID management, `rdma link` and the in-kernel
 * consumers that look a device up by its netdev see: for a device on a
 * VLAN netdev its real device (see the top of this file), otherwise the
 * netdev of `rdma link add`. The core finds the same netdev through
 * ib_device_set_netdev(), but some consumers ask only this op: 6.1's
 * SMC-R (net/smc/smc_pnet.c, smc_pnet_find_rdma_dev()) takes a RoCE
 * device without a pnet table entry only when the op exists and returns
 * the netdev of the TCP connection, and skips the device otherwise (the
 * connection falls back to TCP). Later kernels ask ib_device_get_netdev(),
 * which finds the netdev of ib_device_set_netdev() too. Hardware RoCE
 * drivers (mlx4, mlx5) have the op; 6.1's rdma_rxe does not, and SMC-R
 * falls back to TCP over it.
 *
 * Context: any. Return: the netdev, held (the caller drops it); NULL for
 * an IB device.
 */
static struct net_device *sib_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct sib_dev *dev = to_sib_dev(ibdev);
	struct net_device *ndev = dev->gid_ndev ?: dev->ndev;

	/* an IB port has no Ethernet netdev of its own (its carrier is not it) */
	if (sib_is_ib(dev))
		return NULL;
	dev_hold(ndev);
	return ndev;
}

#define SIB_VERB(name) .name = sib_##name

static const struct ib_device_ops sib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = (enum rdma_driver_id)SIB_DRIVER_ID,
	.uverbs_abi_ver = SIB_UVERBS_ABI_VERSION,
	/* verbs, sorted by name */
	SIB_VERB(alloc_dm),
	SIB_VERB(alloc_hw_port_stats),
	SIB_VERB(alloc_mr),
	SIB_VERB(alloc_mw),
	SIB_VERB(alloc_pd),
	SIB_VERB(alloc_ucontext),
	SIB_VERB(alloc_xrcd),
	SIB_VERB(attach_mcast),
	SIB_VERB(create_ah),
	SIB_VERB(create_cq),
	SIB_VERB(create_flow),
	SIB_VERB(create_qp),
	SIB_VERB(create_rwq_ind_table),
	SIB_VERB(create_srq),
	SIB_VERB(create_wq),
	.create_user_ah = sib_create_ah,
	SIB_VERB(dealloc_dm),
	SIB_VERB(dealloc_driver),
	SIB_VERB(dealloc_mw),
	SIB_VERB(dealloc_pd),
	SIB_VERB(dealloc_ucontext),
	SIB_VERB(dealloc_xrcd),
	SIB_VERB(dereg_mr),
	SIB_VERB(destroy_ah),
	SIB_VERB(destroy_cq),
	SIB_VERB(destroy_flow),
	SIB_VERB(destroy_qp),
	SIB_VERB(destroy_rwq_ind_table),
	SIB_VERB(destroy_srq),
	SIB_VERB(destroy_wq),
	SIB_VERB(detach_mcast),
	SIB_VERB(disassociate_ucontext),
	SIB_VERB(fill_res_qp_entry),
	SIB_VERB(get_dev_fw_str),
	SIB_VERB(get_dma_mr),
	SIB_VERB(get_hw_stats),
	SIB_VERB(get_link_layer),
	SIB_VERB(get_netdev),
	SIB_VERB(get_port_immutable),
	SIB_VERB(get_vector_affinity),
	SIB_VERB(map_mr_sg),
	SIB_VERB(mmap),
	SIB_VERB(mmap_free),
	SIB_VERB(modify_qp),
	SIB_VERB(modify_srq),
	SIB_VERB(modify_wq),
	SIB_VERB(poll_cq),
	SIB_VERB(post_recv),
	SIB_VERB(post_send),
	SIB_VERB(post_srq_recv),
	SIB_VERB(query_ah),
	SIB_VERB(query_device),
	SIB_VERB(query_pkey),
	SIB_VERB(query_port),
	SIB_VERB(query_qp),
	SIB_VERB(query_srq),
	SIB_VERB(query_ucontext),
	SIB_VERB(reg_dm_mr),
	SIB_VERB(reg_user_mr),
	SIB_VERB(reg_user_mr_dmabuf),
	SIB_VERB(advise_mr),
	SIB_VERB(req_notify_cq),
	SIB_VERB(rereg_user_mr),
	SIB_VERB(resize_cq),
	/* how large our object around each core object is */
	SIB_OBJ_SIZE(ucontext, sib_ucontext, ibuc),
	SIB_OBJ_SIZE(pd, sib_pd, ibpd),
	SIB_OBJ_SIZE(ah, sib_ah, ibah),
	SIB_OBJ_SIZE(cq, sib_cq, ibcq),
	SIB_OBJ_SIZE(qp, sib_qp, ibqp),
	SIB_OBJ_SIZE(srq, sib_srq, ibsrq),
	SIB_OBJ_SIZE(xrcd, sib_xrcd, ibxrcd),
	SIB_OBJ_SIZE(mw, sib_mw, ibmw),
	SIB_OBJ_SIZE(rwq_ind_table, sib_rwq_ind_table, ibtbl),
};

/* the IB link layer port: ibport.c's functions behind the ops */
static int sib_ib_op_query_port(struct ib_device *ibdev, u32 port,
				struct ib_port_attr *a)
{
	return sib_ib_query_port(to_sib_dev(ibdev), a);
}

static int sib_ib_op_query_gid(struct ib_device *ibdev, u32 port, int index,
			       union ib_gid *gid)
{
	return sib_ib_query_gid(to_sib_dev(ibdev), index, gid);
}

static int sib_ib_op_modify_port(struct ib_device *ibdev, u32 port, int mask,
				 struct ib_port_modify *props)
{
	return sib_ib_modify_port(to_sib_dev(ibdev), mask, props);
}

/*
 * Set before sib_dev_ops on an IB device: ib_set_device_ops() fills only
 * the ops still unset, so these take the place of the RoCE ones.
 */
static const struct ib_device_ops sib_ib_dev_ops = {
	.modify_port = sib_ib_op_modify_port,
	.process_mad = sib_process_mad,
	.query_gid = sib_ib_op_query_gid,
	.query_port = sib_ib_op_query_port,
};

static struct lock_class_key sib_qp_xa_key, sib_mr_xa_key, sib_ah_xa_key,
			     sib_srq_xa_key;
static struct lock_class_key sib_mw_xa_key;

static void sib_dev_init(struct sib_dev *dev, struct net_device *ndev, bool ib)
{
	struct ib_device *ibdev = &dev->ibdev;

	/* before ib_register_device(), which reads query_device */
	sib_limits_get(&dev->lim);
	spin_lock_init(&dev->port_lock);
	sib_mcast_init(dev);
	sib_raw_dev_init(dev);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	/* mr_xa and mw_xa: also looked up by rounds in softirq (sched.c) */
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	/*
	 * ah_xa: looked up under a QP's sq.lock, which a kernel ULP takes in
	 * softirq (IPoIB's transmit), so it is changed with softirqs off
	 */
	xa_init_flags(&dev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	/* one lockdep class each; all are softirq-safe */
	lockdep_set_class(&dev->qp_xa.xa_lock, &sib_qp_xa_key);
	lockdep_set_class(&dev->mr_xa.xa_lock, &sib_mr_xa_key);
	lockdep_set_class(&dev->ah_xa.xa_lock, &sib_ah_xa_key);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	lockdep_set_class(&dev->srq_xa.xa_lock, &sib_srq_xa_key);
	dev->next_srqn = SIB_MIN_SRQN;
	xa_init_flags(&dev->mw_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	lockdep_set_class(&dev->mw_xa.xa_lock, &sib_mw_xa_key);
	dev->next_qpn = SIB_MIN_QPN;
	dev->next_mr = 1;
	get_random_bytes(&dev->next_key, 1);
	dev->ndev = ndev;
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	dev->port_state = (netif_running(ndev) && netif_carrier_ok(ndev)) ?
			  IB_PORT_ACTIVE : IB_PORT_DOWN;
	dev->active_mtu = sib_mtu_from_netdev(ndev->mtu);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = sib_comp_vectors(&dev->lim);
	ibdev->dev.parent = ndev->dev.parent;
	strscpy(ibdev->node_desc, "softib", sizeof(ibdev->node_desc));
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid, ndev->dev_addr);
	if (is_vlan_dev(ndev)) {
		/* a VLAN has its real device's MAC: the VLAN ID replaces FF:FE */
		__be16 vid = cpu_to_be16(vlan_dev_vlan_id(ndev));

		memcpy((u8 *)&ibdev->node_guid + 3, &vid, sizeof(vid));
		dev->gid_ndev = vlan_dev_real_dev(ndev);
		netdev_hold(dev->gid_ndev, &dev->gid_ndev_tracker, GFP_KERNEL);
	}
	/* the legacy write() commands the core does not enable by default */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	if (ib)
		ib_set_device_ops(ibdev, &sib_ib_dev_ops);
	ib_set_device_ops(ibdev, &sib_dev_ops);
	ibdev->driver_def = sib_dev_uapi_defs;
}

/**
 * sib_dev_add() - create and register a softib device on @ndev
 * @name: device name from `rdma link add`
 * @ndev: the Ethernet netdev, a VLAN device too
 *
 * Context: process (RDMA netlink). Return: 0 or -errno (-EADDRINUSE
 * when UDP port 4791 is taken in @ndev's namespace).
 */
int sib_dev_add(const char *name, struct net_device *ndev)
{
	struct sib_dev *dev;
	int err;

	dev = ib_alloc_device(sib_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	sib_dev_init(dev, ndev, false);
	sib_cc_dev_init(dev);
	err = sib_counters_alloc(dev);
	if (err)
		goto err_dealloc;
	err = sib_pkey_port_init(&dev->pkey);
	if (err)
		goto err_dealloc;
	dev->udp = sib_udp_get(dev_net(ndev), sib_udp_encap_recv);
	if (IS_ERR(dev->udp)) {
		err = PTR_ERR(dev->udp);
		dev->udp = NULL;
		goto err_dealloc;
	}
	err = ib_device_set_netdev(&dev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;
	err = ib_register_device(&dev->ibdev, name, NULL);
	if (err)
		goto err_dealloc;
	return 0;

err_dealloc:
	ib_dealloc_device(&dev->ibdev);
	return err;
}

/**
 * sib_dev_add_ib() - create and register a softib IB device on @ndev
 * @name: device name from `rdma link add NAME type softib-ib`
 * @ndev: the carrier netdev (Ethernet) its cable's datagrams use
 *
 * An InfiniBand link layer device (ib.h): one port in state DOWN,
 * physical state Polling and LID 0 until a cable is plugged (sib-link)
 * and an SM configures it. No RoCE UDP socket (dev->udp stays NULL), not
 * bound to @ndev (no RoCE GID table); its own list for netdev events.
 * Context: process (RDMA netlink). Return: 0 or -errno.
 */
int sib_dev_add_ib(const char *name, struct net_device *ndev)
{
	struct sib_dev *dev;
	int err;

	dev = ib_alloc_device(sib_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	sib_dev_init(dev, ndev, true);
	sib_cc_dev_init(dev);
	err = sib_counters_alloc(dev);
	if (err)
		goto err_dealloc;
	err = sib_pkey_port_init(&dev->pkey);
	if (err)
		goto err_dealloc;
	err = sib_ib_port_init(dev);
	if (err)
		goto err_dealloc;
	err = ib_register_device(&dev->ibdev, name, NULL);
	if (err)
		goto err_dealloc;
	mutex_lock(&sib_ib_devs_mutex);
	list_add_tail(&dev->ib->ib_list, &sib_ib_devs);
	mutex_unlock(&sib_ib_devs_mutex);
	return 0;

err_dealloc:
	ib_dealloc_device(&dev->ibdev);
	return err;
}
