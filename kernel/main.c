// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: module entry. `rdma link add NAME type softib netdev DEV`
 * creates a RoCE device, `... type softib-ib ...` an InfiniBand one (ib.h); a netdev notifier keeps each device's port in step
 * with its netdev and removes the device when the netdev goes away.
 */
#include <linux/module.h>
#include <linux/if_arp.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "softib.h"
#include "device.h"
#include "icrc.h"
#include "mr.h"
#include "net.h"
#include "netlink.h"
#include "ib.h"
#include "raw.h"

struct workqueue_struct *sib_wq;

static struct ib_device *sib_find(struct net_device *ndev)
{
	return ib_device_get_by_netdev(ndev, (enum rdma_driver_id)SIB_DRIVER_ID);
}

static int sib_newlink(const char *name, struct net_device *ndev)
{
	struct ib_device *ibdev = sib_find(ndev);

	if (ibdev) {
		ib_device_put(ibdev);
		return -EEXIST;
	}
	if (ndev->type != ARPHRD_ETHER)
		return -EINVAL;
	/* a VLAN device works too: see device.c */
	return sib_dev_add(name, ndev);
}

static struct rdma_link_ops sib_link_ops = {
	.type = "softib",
	.newlink = sib_newlink,
};

/* `rdma link add NAME type softib-ib netdev DEV`: one IB device per netdev */
static int sib_newlink_ib(const char *name, struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER)
		return -EINVAL;
	if (sib_ib_dev_on(ndev))
		return -EEXIST;
	return sib_dev_add_ib(name, ndev);
}

static struct rdma_link_ops sib_ib_link_ops = {
	.type = "softib-ib",
	.newlink = sib_newlink_ib,
};

static int sib_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;

	/* the IB devices on @ndev (not bound to it: not found by sib_find()) */
	sib_ib_dev_netdev_event(ndev, event);
	ibdev = sib_find(ndev);
	if (!ibdev)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UNREGISTER:
		sib_raw_netdev_gone(to_sib_dev(ibdev));
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sib_dev_port_event(to_sib_dev(ibdev));
		break;
	default:
		break;
	}
	ib_device_put(ibdev);
	return NOTIFY_DONE;
}

/*
 * Called before IPv6's addrconf (ADDRCONF_NOTIFY_PRIORITY) and the RDMA
 * core's GID management: on NETDEV_DOWN the port is down before addrconf
 * removes the netdev's IPv6 addresses and with them their GIDs (one
 * IB_EVENT_GID_CHANGE each). A consumer that answers any port event by
 * querying the port must read it down then: SMC's smc_ib_port_event_work()
 * clears its pending-event bit after ib_query_port(), so when the
 * GID_CHANGE came first and the query still said ACTIVE, the PORT_ERR that
 * followed was lost, and SMC kept the link group until its QP's retries ran
 * out (seconds later) instead of ending it on the port error.
 */
static struct notifier_block sib_netdev_nb = {
	.notifier_call = sib_netdev_event,
	.priority = ADDRCONF_NOTIFY_PRIORITY + 1,
};

static int sib_wq_start(void)
{
	sib_wq = alloc_workqueue("softib", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return sib_wq ? 0 : -ENOMEM;
}

static void sib_wq_stop(void)
{
	destroy_workqueue(sib_wq);
}

static int sib_copy_start(void)
{
	sib_copy_init();
	return 0;
}

static int sib_notifier_start(void)
{
	return register_netdevice_notifier(&sib_netdev_nb);
}

static void sib_notifier_stop(void)
{
	unregister_netdevice_notifier(&sib_netdev_nb);
}

/* nothing to start: devices come with `rdma link add`, all go here */
static void sib_devices_stop(void)
{
	ib_unregister_driver((enum rdma_driver_id)SIB_DRIVER_ID);
}

static int sib_link_types_start(void)
{
	rdma_link_register(&sib_link_ops);
	rdma_link_register(&sib_ib_link_ops);
	return 0;
}

static void sib_link_types_stop(void)
{
	rdma_link_unregister(&sib_ib_link_ops);
	rdma_link_unregister(&sib_link_ops);
}

/*
 * The module's parts, started in this order and stopped in the reverse
 * one, by sib_exit() or when a later part fails to start. The netdev
 * notifier stops before the devices go (no new work for them), the
 * devices before the cable, the packet buffer pools and the UDP sockets
 * they send through, and the link types first so that no `rdma link add`
 * races the rest.
 */
static const struct {
	int (*start)(void);
	void (*stop)(void);
} sib_parts[] = {
	{ sib_limits_check,	NULL },
	{ sib_icrc_init,	sib_icrc_exit },
	{ sib_copy_start,	NULL },
	{ sib_wq_start,		sib_wq_stop },
	{ sib_net_init,		sib_net_fini },
	{ sib_tx_pools_init,	sib_tx_pools_exit },
	{ sib_cable_init,	sib_cable_exit },
	{ NULL,			sib_devices_stop },
	{ sib_notifier_start,	sib_notifier_stop },
	{ sib_nl_init,		sib_nl_exit },
	{ sib_link_types_start,	sib_link_types_stop },
};

/* stop the first @n parts of sib_parts[], last first */
static void sib_parts_stop(unsigned int n)
{
	while (n--)
		if (sib_parts[n].stop)
			sib_parts[n].stop();
}

static int __init sib_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(sib_parts); i++) {
		err = sib_parts[i].start ? sib_parts[i].start() : 0;
		if (err) {
			sib_parts_stop(i);
			return err;
		}
	}
	pr_info("softib: loaded\n");
	return 0;
}

static void __exit sib_exit(void)
{
	sib_parts_stop(ARRAY_SIZE(sib_parts));
	pr_info("softib: unloaded\n");
}

module_init(sib_init);
module_exit(sib_exit);

MODULE_AUTHOR("softib authors");
MODULE_DESCRIPTION("softib: software RDMA device (RoCEv2 and InfiniBand)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("softib");
MODULE_ALIAS_RDMA_LINK("softib-ib");
/* softib_db: the doorbell file, which providers prefer (doorbell.c) */
MODULE_SOFTDEP("pre: crc32 post: softib_db");
