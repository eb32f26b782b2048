// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the InfiniBand link layer, ibport.c's part (see ib.h). Being written.
 */
#include "softib.h"
#include "ib.h"

/* placeholders until ibport.c is written (the "cable" engineer's) */
int sib_ib_port_init(struct sib_dev *dev) { return -EOPNOTSUPP; }
void sib_ib_port_fini(struct sib_dev *dev) { }
void sib_ib_phys_link(struct sib_dev *dev, bool up) { }
void sib_ib_port_event(struct sib_dev *dev, enum ib_event_type type) { }
enum ib_port_state sib_ib_state(struct sib_dev *dev) { return IB_PORT_DOWN; }
int sib_ib_set_state(struct sib_dev *dev, enum ib_port_state state) { return -EOPNOTSUPP; }
enum ib_mtu sib_ib_mtu_cap(struct sib_dev *dev) { return IB_MTU_256; }
bool sib_ib_lid_match(struct sib_dev *dev, u16 dlid, u8 *path_bits) { return false; }
int sib_ib_query_port(struct sib_dev *dev, struct ib_port_attr *attr) { return -EOPNOTSUPP; }
int sib_ib_query_gid(struct sib_dev *dev, int index, union ib_gid *gid) { return -EOPNOTSUPP; }
int sib_ib_modify_port(struct sib_dev *dev, int mask,
		       struct ib_port_modify *props) { return -EOPNOTSUPP; }
