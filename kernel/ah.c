// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: address handles and address vectors. An AV is always copied
 * into the WQE or QP that uses it, so destroying an AH never races with
 * a packet being built.
 */
#include <rdma/ib_cache.h>
#include <linux/netdevice.h>

#include "ah.h"
#include "ib.h"

/*
 * May a QP or AH of @dev send from a GID of @ndev? A device on a VLAN
 * netdev has the GIDs of the VLAN's real device and of its other VLANs
 * in its table too (see device.c): only the VLAN's own are its. A device
 * on a real netdev uses the GIDs of the VLANs on top of it, but not those
 * of a VLAN with a softib device of its own: that device receives what
 * arrives on the VLAN. Context: rcu_read_lock() held.
 */
static int sib_av_check_ndev(struct sib_dev *dev, struct net_device *ndev)
{
	struct ib_device *other;

	if (IS_ERR_OR_NULL(ndev))
		return -EINVAL;
	if (dev->gid_ndev)
		return ndev == dev->ndev ? 0 : -EINVAL;
	if (ndev == dev->ndev)
		return 0;
	other = ib_device_get_by_netdev(ndev,
					(enum rdma_driver_id)SIB_DRIVER_ID);
	if (!other)
		return 0;
	ib_device_put(other);
	return -EINVAL;
}

/*
 * An InfiniBand device's AV (see struct sib_av): routed by LID, with a GRH
 * when the attribute has one. Whether the DLID is the port's own is
 * decided per packet (net.c), not here: the SM may change the LID.
 */
static int sib_av_from_ib_attr(struct sib_dev *dev,
			       const struct rdma_ah_attr *attr,
			       struct sib_av *av)
{
	const struct ib_global_route *grh;
	u32 dlid = rdma_ah_get_dlid(attr);
	int err;

	if (attr->type != RDMA_AH_ATTR_TYPE_IB || dlid > 0xffff ||
	    rdma_ah_get_sl(attr) > 15)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	av->net_type = RDMA_NETWORK_IB;
	av->dlid = dlid;
	av->sl = rdma_ah_get_sl(attr);
	av->src_path_bits = rdma_ah_get_path_bits(attr);
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return 0;
	grh = rdma_ah_read_grh(attr);
	if (grh->sgid_attr) {
		av->sgid = grh->sgid_attr->gid;
	} else {
		err = sib_ib_query_gid(dev, grh->sgid_index, &av->sgid);
		if (err)
			return err;
	}
	av->dgid = grh->dgid;
	av->flow_label = grh->flow_label;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->grh = 1;
	return 0;
}

/**
 * sib_av_from_attr() - resolve an rdma_ah_attr into a RoCEv2 AV
 * @dev: device
 * @attr: attribute with GRH and sgid_attr (the core fills sgid_attr)
 * @av: out
 *
 * On an InfiniBand device (sib_is_ib()) an IB attribute gives an AV
 * routed by LID, with a GRH when it has one (see struct sib_av).
 * Context: any. Return: 0, -EINVAL when there is no GRH, the source
 * GID is not a RoCEv2 GID or is not this device's to use (a GID of
 * another netdev on a device on a VLAN netdev, see sib_av_check_ndev());
 * on an InfiniBand device -EINVAL for an attribute not of IB type or a
 * DLID or SL out of range.
 */
int sib_av_from_attr(struct sib_dev *dev, const struct rdma_ah_attr *attr,
		     struct sib_av *av)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sattr;
	const struct ib_gid_attr *dattr;
	struct net_device *ndev;
	int err;

	if (sib_is_ib(dev))
		return sib_av_from_ib_attr(dev, attr, av);
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sattr = grh->sgid_attr;
	if (!sattr || sattr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	av->sgid = sattr->gid;
	av->dgid = grh->dgid;
	av->flow_label = grh->flow_label;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->net_type = rdma_gid_attr_network_type(sattr);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sattr);
	err = sib_av_check_ndev(dev, ndev);
	/* a GID of a VLAN device on top of ours: send through the VLAN */
	if (!err && ndev != dev->ndev)
		av->ifindex = ndev->ifindex;
	rcu_read_unlock();
	if (err)
		return err;
	if (av->net_type != RDMA_NETWORK_IPV4 &&
	    av->net_type != RDMA_NETWORK_IPV6)
		return -EINVAL;
	/* the destination must be of the same IP family as the source */
	if ((av->net_type == RDMA_NETWORK_IPV4) !=
	    !!ipv6_addr_v4mapped((struct in6_addr *)av->dgid.raw))
		return -EINVAL;
	/* on a VLAN device only the VLAN's GIDs are ours (see sib_dev) */
	dattr = rdma_find_gid_by_port(&dev->ibdev, &av->dgid,
				      IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
				      dev->gid_ndev ? dev->ndev : NULL);
	if (!IS_ERR(dattr)) {
		av->loopback = 1;
		rdma_put_gid_attr(dattr);
	}
	return 0;
}

/**
 * sib_create_ah() - ib_device_ops.create_ah and create_user_ah
 * @ibah: core-allocated AH
 * @init: attributes
 * @udata: user data or NULL; user AHs get an ah_num for their WQEs
 *
 * Context: any for kernel AHs (no sleeping), process for user AHs.
 * Return: 0, -EINVAL for a bad address, -ENOMEM.
 */
int sib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct sib_dev *dev = to_sib_dev(ibah->device);
	struct sib_ah *ah = to_sib_ah(ibah);
	struct sib_create_ah_resp resp = {};
	int err;

	err = sib_av_from_attr(dev, init->ah_attr, &ah->av);
	if (err)
		return err;
	err = sib_obj_take(dev, SIB_OBJ_AH);
	if (err)
		return err;
	ah->ah_num = 0;
	if (!udata)
		return 0;
	err = xa_alloc_bh(&dev->ah_xa, &ah->ah_num, ah, xa_limit_31b,
			  GFP_KERNEL);
	if (err)
		goto err_cnt;
	resp.ah_num = ah->ah_num;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_xa;
	return 0;

err_xa:
	xa_erase_bh(&dev->ah_xa, ah->ah_num);
err_cnt:
	sib_obj_release(dev, SIB_OBJ_AH);
	return err;
}

/**
 * sib_destroy_ah() - ib_device_ops.destroy_ah
 * @ibah: AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0
 *
 * Context: any. Return: 0.
 */
int sib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sib_dev *dev = to_sib_dev(ibah->device);
	struct sib_ah *ah = to_sib_ah(ibah);

	/* a user AH (a number): destroyed from process context by uverbs */
	if (ah->ah_num)
		xa_erase_bh(&dev->ah_xa, ah->ah_num);
	sib_obj_release(dev, SIB_OBJ_AH);
	return 0;
}

/**
 * sib_query_ah() - ib_device_ops.query_ah
 * @ibah: AH
 * @attr: out
 *
 * Context: any. Return: 0.
 */
int sib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct sib_ah *ah = to_sib_ah(ibah);

	memset(attr, 0, sizeof(*attr));
	if (ah->av.net_type == RDMA_NETWORK_IB) {
		attr->type = RDMA_AH_ATTR_TYPE_IB;
		rdma_ah_set_port_num(attr, 1);
		rdma_ah_set_dlid(attr, ah->av.dlid);
		rdma_ah_set_sl(attr, ah->av.sl);
		rdma_ah_set_path_bits(attr, ah->av.src_path_bits);
		if (ah->av.grh)
			rdma_ah_set_grh(attr, &ah->av.dgid, ah->av.flow_label,
					0, ah->av.hop_limit,
					ah->av.traffic_class);
		return 0;
	}
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &ah->av.dgid, ah->av.flow_label, 0,
			ah->av.hop_limit, ah->av.traffic_class);
	return 0;
}

/**
 * sib_ah_copy_av() - copy the AV of the user AH @ah_num
 * @dev: device
 * @pd: PD the AH must belong to
 * @ah_num: number from struct sib_create_ah_resp (untrusted)
 * @av: out
 *
 * Context: process or softirq, softirqs or interrupts off (the SQ fetch
 * holds sq.lock with interrupts off). Return: 0 or -EINVAL.
 */
int sib_ah_copy_av(struct sib_dev *dev, struct ib_pd *pd, u32 ah_num,
		   struct sib_av *av)
{
	struct sib_ah *ah;
	int err = -EINVAL;

	xa_lock(&dev->ah_xa);
	ah = xa_load(&dev->ah_xa, ah_num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock(&dev->ah_xa);
	return err;
}
