/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_NETLINK_H
#define SIB_NETLINK_H

int sib_nl_init(void);
void sib_nl_exit(void);

#endif
