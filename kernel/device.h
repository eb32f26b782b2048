/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_DEVICE_H
#define SIB_DEVICE_H

#include "softib.h"

int sib_dev_add(const char *name, struct net_device *ndev);
void sib_dev_port_event(struct sib_dev *dev);
int sib_dev_add_ib(const char *name, struct net_device *ndev);
void sib_ib_dev_netdev_event(struct net_device *ndev, unsigned long event);
bool sib_ib_dev_on(struct net_device *ndev);

#endif
