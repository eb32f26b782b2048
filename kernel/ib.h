/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: the InfiniBand link layer (issue 22). A device made by
 * `rdma link add NAME type softib-ib netdev DEV` has one port whose link
 * layer is InfiniBand: LIDs, a logical port state an SM sets, QP0 and
 * subnet management packets, and a "cable" to one link partner.
 *
 * The pieces and who owns them:
 *   cable.c   the cable: a UDP socket of the device's own (port
 *	       SIB_IB_CABLE_PORT unless configured, never 4791) bound to the
 *	       carrier netdev, the link partner's address, the physical link
 *	       (link packets both ways: Polling until the partner's are heard,
 *	       LinkUp while they keep coming), netlink SIB_NL_CMD_CABLE_*,
 *	       tools/sib-link; sib_cable_xmit() sends a finished IB packet.
 *   lrh.c     the packet format on the cable: LRH, optional GRH, the ICRC
 *	       of a native IB packet (IBTA 7.8.1) and the VCRC (7.8.2); the
 *	       transmit side after the engines built BTH..payload
 *	       (sib_ib_pkt_build(): net.c's sib_pkt_xmit() then hands the
 *	       packet to sib_cable_xmit(); lrh.c never calls cable.c) and
 *	       the receive side (sib_ib_rcv(), called by cable.c) before
 *	       sib_rcv(): LRH checks, DLID/LMC match, VL15 only for QP0.
 *   ibport.c  the port as the SM sees it: LID, LMC, SM LID/SL, subnet
 *	       prefix, GUIDs, logical and physical state and their events,
 *	       M_Key, neighbor MTU, capability mask; query_port/query_gid/
 *	       modify_port of an IB device.
 *   sma.c     process_mad: the subnet management agent (SubnGet/SubnSet)
 *	       and the performance management agent (PortCounters...).
 *
 * A RoCE device has dev->ib == NULL and none of this runs for it.
 */
#ifndef SIB_IB_H
#define SIB_IB_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/in6.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

#include "sma.h"

struct sib_dev;
struct sib_qp;
struct sib_av;
struct sib_cable;

/* the cable's default UDP port (both ends); 4791 stays RoCEv2's */
#define SIB_IB_CABLE_PORT	4792
/*
 * The cable's silence limit (sib-link DEV peer ADDR silence MS): the link
 * goes down after this long without hearing the partner, counted in link
 * periods (100 ms) this end lived through, so a stall of this end is not
 * taken for the partner's silence. 3 s by default: two TCG guests sharing
 * a loaded host miss each other's link packets for over 1 s.
 */
#define SIB_CABLE_SILENCE_MS		3000
#define SIB_CABLE_SILENCE_MIN_MS	300
#define SIB_CABLE_SILENCE_MAX_MS	60000

/* LRH (IBTA 7.7): 8 bytes; VCRC 2 bytes after the ICRC */
#define SIB_LRH_LEN		8
#define SIB_GRH_LEN		40
#define SIB_VCRC_LEN		2
#define SIB_IB_LNH_LOCAL	0x2	/* BTH follows the LRH */
#define SIB_IB_LNH_GLOBAL	0x3	/* GRH, then BTH */
#define SIB_IB_VL_SMP		15	/* subnet management VL */
#define SIB_IB_LID_PERMISSIVE	0xffff
#define SIB_IB_MCAST_LID_BASE	0xc000
#define SIB_IB_DEFAULT_PREFIX	0xfe80000000000000ULL
/* link packets (IBTA 7.9.4 flow control packet): 6 bytes on the cable */
#define SIB_LINK_PKT_LEN	6

/*
 * struct sib_ib_port - the IB port of a softib-ib device (ibport.c)
 * @lock: every field below; taken in any context (BH-safe)
 * @port_guid: EUI-64, big endian as on the wire (GUIDInfo[0]); the node
 *	       GUID is ibdev.node_guid
 * @subnet_prefix: big endian, GID[0] = @subnet_prefix : @port_guid
 * @lid, @lmc: base LID (0 until an SM sets one) and LID mask count
 * @sm_lid, @sm_sl: the master SM's LID and SL (PortInfo)
 * @state: logical port state (IB_PORT_DOWN/INIT/ARMED/ACTIVE)
 * @phys_state: IB_PORT_PHYS_STATE_POLLING/LINK_UP/DISABLED
 * @neighbor_mtu: enum ib_mtu the SM set (PortInfo NeighborMTU), the
 *		  port's active MTU
 * @cap_mask: PortInfo CapabilityMask (IsSM while an SM holds the port)
 * @m_key, @mkey_prot, @mkey_lease, @mkey_violations: M_Key basics (14.2.4)
 * @mkey_lease_end: when the M_Key lease runs out (sib_sma_ctx.now_s's
 *		    seconds), 0 while the lease timer is not running
 * @subnet_timeout, @resp_time, @client_rereg: PortInfo fields the SM sets
 * @sl2vl: SL to VL mapping (one VL for data: all 0 unless set)
 * The rest of PortInfo's fields and the SMA's state are ibport.c's.
 */
struct sib_ib_port {
	spinlock_t lock;
	__be64 port_guid;
	__be64 subnet_prefix;
	u16 lid;
	u8 lmc;
	u16 sm_lid;
	u8 sm_sl;
	enum ib_port_state state;
	u8 phys_state;
	enum ib_mtu neighbor_mtu;
	u32 cap_mask;
	u64 m_key;
	u8 mkey_prot;
	u16 mkey_lease;
	u16 mkey_violations;
	u64 mkey_lease_end;
	u8 subnet_timeout;
	u8 resp_time;
	u8 client_rereg;
	u8 sl2vl[16];
	struct sib_cable __rcu *cable;	/* cable.c; NULL until configured */
	/* more fields of ibport.c and cable.c (the "cable" engineer) here */
	struct sib_dev *dev;		/* the device this port belongs to */
	struct list_head ib_list;	/* device.c: sib_ib_devs, the netdev events */
	u32 sm_holders;			/* modify_port IB_PORT_SM set - cleared */
	struct work_struct event_work;	/* dispatches @ev_ring (ibport.c) */
	u8 ev_ring[16];			/* enum ib_event_type, in order */
	u8 ev_head, ev_tail;		/* @ev_ring: next to take, next free */

	/* more fields of sma.c (the "sma" engineer) here */
	struct sib_sma_port sma;	/* sma.h: SMA/PMA state, all zero at start */

	/* more fields of lrh.c (the "lrh" engineer) here */
};

/* sib_is_ib(dev): see softib.h */

/* ibport.c */
int sib_ib_port_init(struct sib_dev *dev);
void sib_ib_port_fini(struct sib_dev *dev);
void sib_ib_phys_link(struct sib_dev *dev, bool up);
void sib_ib_port_event(struct sib_dev *dev, enum ib_event_type type);
enum ib_port_state sib_ib_state(struct sib_dev *dev);
int sib_ib_set_state(struct sib_dev *dev, enum ib_port_state state);
void sib_ib_set_phys(struct sib_dev *dev, u8 phys);
u8 sib_ib_phys_state(struct sib_dev *dev);
void sib_ib_data_rcvd(struct sib_dev *dev);
u32 sib_ib_port_set_phys(struct sib_ib_port *ib, u8 phys);
u32 sib_ib_port_data_rcvd(struct sib_ib_port *ib);
unsigned int sib_ib_port_vls(u8 code);
bool sib_ib_port_vl_ok(const struct sib_ib_port *ib, u8 vl);
enum ib_mtu sib_ib_mtu_cap(struct sib_dev *dev);
bool sib_ib_lid_match(struct sib_dev *dev, u16 dlid, u8 *path_bits);
int sib_ib_query_port(struct sib_dev *dev, struct ib_port_attr *attr);
int sib_ib_query_gid(struct sib_dev *dev, int index, union ib_gid *gid);
int sib_ib_modify_port(struct sib_dev *dev, int mask,
		       struct ib_port_modify *props);

/* sma.c */
int sib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_mad_size, u16 *out_mad_pkey_index);

/* cable.c */
/*
 * struct sib_cable_cfg - a cable's partner (netlink SIB_NL_CMD_CABLE_SET)
 * @family: AF_INET or AF_INET6, which of @peer4/@peer6 holds the address
 * @peer_port, @local_port: UDP ports, host order; 0: SIB_IB_CABLE_PORT
 * @silence_ms: the silence limit, SIB_CABLE_SILENCE_MIN_MS to
 *		SIB_CABLE_SILENCE_MAX_MS; 0: SIB_CABLE_SILENCE_MS
 */
struct sib_cable_cfg {
	int family;
	__be32 peer4;
	struct in6_addr peer6;
	u16 peer_port;
	u16 local_port;
	u32 silence_ms;
};

/*
 * struct sib_cable_info - what SIB_NL_CMD_CABLE_GET shows
 * @link_lost: times the link went down because the partner was silent
 */
struct sib_cable_info {
	bool plugged;
	struct sib_cable_cfg cfg;
	u64 link_sent;
	u64 link_rcvd;
	u64 link_lost;
};

int sib_cable_init(void);
void sib_cable_exit(void);
void sib_cable_dev_fini(struct sib_dev *dev);
void sib_cable_netdev_event(struct net_device *ndev, unsigned long event);
unsigned int sib_cable_headroom(void);
int sib_cable_xmit(struct sib_dev *dev, struct sk_buff *skb);
int sib_cable_plug(struct sib_dev *dev, const struct sib_cable_cfg *cfg);
int sib_cable_unplug(struct sib_dev *dev);
void sib_cable_get(struct sib_dev *dev, struct sib_cable_info *info);

/* lrh.c */
int sib_ib_pkt_build(struct sib_qp *qp, const struct sib_av *av,
		     struct sk_buff *skb);
void sib_ib_rcv(struct sib_dev *dev, struct sk_buff *skb);
u16 sib_vcrc(const void *data, size_t len, u16 crc);

#endif /* SIB_IB_H */
