// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the InfiniBand link layer, cable.c's part (see ib.h). Being written.
 */
#include "softib.h"
#include "ib.h"

/* placeholders until cable.c is written (the "cable" engineer's) */
int sib_cable_init(void) { return 0; }
void sib_cable_exit(void) { }
void sib_cable_dev_fini(struct sib_dev *dev) { }
void sib_cable_netdev_event(struct net_device *ndev, unsigned long event) { }
unsigned int sib_cable_headroom(void) { return 0; }
int sib_cable_xmit(struct sib_dev *dev, struct sk_buff *skb)
{
	kfree_skb(skb);
	return -ENOTCONN;
}
