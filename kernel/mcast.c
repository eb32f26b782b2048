// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: multicast groups (IBTA 10.5, ib_attach_mcast). A group is a
 * RoCEv2 multicast GID: an IPv4-mapped 224.0.0.0/4 address or an IPv6
 * ff00::/8 address. The device keeps, per group, the numbers of the UD
 * QPs attached to it; the receive path hands a packet sent to QPN
 * 0xFFFFFF to each of them. The netdev is told to accept the group's
 * Ethernet multicast address (dev_mc_add); the IP-level membership
 * (IGMP/MLD), which the stack needs to pass such packets up to the UDP
 * socket, is joined by rdma_cm for its users (as for any RoCE device).
 *
 * Locking: mcg_mutex serialises attach and detach (and the netdev's
 * address list updates they make); mcg_lock (BH) protects the list for
 * the receive path, which copies the QP numbers out and looks each QP up
 * by number, so a group never holds a pointer to a QP. The core keeps a
 * QP with attachments from being destroyed (qp->usecnt), and uverbs
 * detaches a user QP's groups before destroying it.
 */
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>

#include "mcast.h"

struct sib_mcg {
	struct list_head list;
	union ib_gid mgid;
	u32 nqp;
	u32 qpn[SIB_MAX_MCAST_QP_ATTACH];
};

/**
 * sib_mcast_init() - set up the device's (empty) group list
 * @dev: device being created
 *
 * Context: process.
 */
void sib_mcast_init(struct sib_dev *dev)
{
	mutex_init(&dev->mcg_mutex);
	spin_lock_init(&dev->mcg_lock);
	INIT_LIST_HEAD(&dev->mcg_list);
	dev->num_mcg = 0;
}

/* caller holds mcg_lock or mcg_mutex */
static struct sib_mcg *sib_mcg_find(struct sib_dev *dev,
				    const union ib_gid *mgid)
{
	struct sib_mcg *g;

	list_for_each_entry(g, &dev->mcg_list, list)
		if (!memcmp(g->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return g;
	return NULL;
}

/* The Ethernet multicast address the IP stack uses for @mgid. */
static void sib_mcast_mac(const union ib_gid *mgid, u8 *mac)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;

	if (ipv6_addr_v4mapped(a))
		ip_eth_mc_map(a->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(a, mac);
}

/**
 * sib_attach_mcast() - ib_device_ops.attach_mcast
 * @ibqp: a UD QP
 * @gid: multicast GID (the core checked rdma_is_multicast_addr())
 * @lid: unused on RoCE
 *
 * Attaching a QP twice to a group is not an error. Context: process.
 * Return: 0, -EINVAL (not UD), -ENOMEM (no memory, SIB_MAX_MCAST_GRP
 * groups or SIB_MAX_MCAST_QP_ATTACH QPs in the group).
 */
int sib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sib_dev *dev = to_sib_dev(ibqp->device);
	struct sib_mcg *g, *ng;
	u8 mac[ETH_ALEN];
	int err = 0;
	u32 i;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	ng = kzalloc(sizeof(*ng), GFP_KERNEL);
	if (!ng)
		return -ENOMEM;
	mutex_lock(&dev->mcg_mutex);
	g = sib_mcg_find(dev, gid);
	if (g) {
		for (i = 0; i < g->nqp; i++)
			if (g->qpn[i] == ibqp->qp_num)
				goto out;
		if (g->nqp >= SIB_MAX_MCAST_QP_ATTACH) {
			err = -ENOMEM;
			goto out;
		}
		spin_lock_bh(&dev->mcg_lock);
		g->qpn[g->nqp++] = ibqp->qp_num;
		spin_unlock_bh(&dev->mcg_lock);
		goto out;
	}
	if (dev->num_mcg >= SIB_MAX_MCAST_GRP) {
		err = -ENOMEM;
		goto out;
	}
	sib_mcast_mac(gid, mac);
	err = dev_mc_add(dev->ndev, mac);
	if (err)
		goto out;
	ng->mgid = *gid;
	ng->qpn[0] = ibqp->qp_num;
	ng->nqp = 1;
	spin_lock_bh(&dev->mcg_lock);
	list_add_tail(&ng->list, &dev->mcg_list);
	spin_unlock_bh(&dev->mcg_lock);
	dev->num_mcg++;
	ng = NULL;
out:
	mutex_unlock(&dev->mcg_mutex);
	kfree(ng);
	return err;
}

/**
 * sib_detach_mcast() - ib_device_ops.detach_mcast
 * @ibqp: QP
 * @gid: multicast GID
 * @lid: unused on RoCE
 *
 * The last QP to leave a group removes it and its netdev address.
 * Context: process. Return: 0, -EINVAL when @ibqp is not attached.
 */
int sib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sib_dev *dev = to_sib_dev(ibqp->device);
	struct sib_mcg *g;
	u8 mac[ETH_ALEN];
	int err = -EINVAL;
	u32 i;

	mutex_lock(&dev->mcg_mutex);
	g = sib_mcg_find(dev, gid);
	if (!g)
		goto out;
	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == ibqp->qp_num)
			break;
	if (i == g->nqp)
		goto out;
	err = 0;
	spin_lock_bh(&dev->mcg_lock);
	g->qpn[i] = g->qpn[--g->nqp];
	if (!g->nqp)
		list_del(&g->list);
	spin_unlock_bh(&dev->mcg_lock);
	if (!g->nqp) {
		dev->num_mcg--;
		sib_mcast_mac(gid, mac);
		dev_mc_del(dev->ndev, mac);
		kfree(g);
	}
out:
	mutex_unlock(&dev->mcg_mutex);
	return err;
}

/**
 * sib_mcast_qpns() - the QPs attached to a group
 * @dev: device
 * @mgid: the packet's destination GID
 * @qpn: out, room for SIB_MAX_MCAST_QP_ATTACH numbers
 *
 * A snapshot: a QP may be detached or destroyed right after; look each
 * up with sib_qp_get(). Context: any but hardirq, takes mcg_lock.
 * Return: number of QPs written to @qpn (0 when there is no such group).
 */
u32 sib_mcast_qpns(struct sib_dev *dev, const union ib_gid *mgid, u32 *qpn)
{
	struct sib_mcg *g;
	u32 n = 0;

	spin_lock_bh(&dev->mcg_lock);
	g = sib_mcg_find(dev, mgid);
	if (g) {
		n = g->nqp;
		memcpy(qpn, g->qpn, n * sizeof(*qpn));
	}
	spin_unlock_bh(&dev->mcg_lock);
	return n;
}

/**
 * sib_mcast_cleanup() - drop the groups left when the device goes away
 * @dev: device being deallocated (no QP exists any more)
 *
 * Context: process. The netdev addresses are given back too.
 */
void sib_mcast_cleanup(struct sib_dev *dev)
{
	struct sib_mcg *g, *tmp;
	u8 mac[ETH_ALEN];

	mutex_lock(&dev->mcg_mutex);
	list_for_each_entry_safe(g, tmp, &dev->mcg_list, list) {
		list_del(&g->list);
		if (dev->ndev) {
			sib_mcast_mac(&g->mgid, mac);
			dev_mc_del(dev->ndev, mac);
		}
		kfree(g);
	}
	dev->num_mcg = 0;
	mutex_unlock(&dev->mcg_mutex);
}
