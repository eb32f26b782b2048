/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: the subnet management agent (SMA, IBTA 14.2) and the
 * performance management agent (PMA, IBTA 16.1) of an IB port (sma.c).
 *
 * sib_process_mad() (ib.h) gathers the port's state into a
 * struct sib_sma_ctx, calls the pure core sib_sma_process() under the
 * port's lock and applies what the core asks for afterwards (port state,
 * P_Key block, events). The core needs no device: sma_test.c drives it.
 */
#ifndef SIB_SMA_H
#define SIB_SMA_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>

#include "params.h"

struct sib_ib_port;

/* what softib's port is and supports (PortInfo, NodeInfo) */
#define SIB_SMA_PKEY_BLOCK	32	/* P_Keys in a P_KeyTable block */
#define SIB_SMA_GUID_BLOCK	8	/* GUIDs in a GUIDInfo block */
#define SIB_SMA_VL_CAP		1	/* VLCap: VL0 only (data), plus VL15 */
#define SIB_SMA_VLARB_CAP	8	/* VLArbHighCap and VLArbLowCap */
#define SIB_SMA_VLARB_ENTRIES	32	/* entries of one VLArbitration block */
#define SIB_SMA_WIDTH_SUPPORTED	0x3	/* 1X | 4X */
#define SIB_SMA_WIDTH_ACTIVE	0x2	/* 4X */
#define SIB_SMA_SPEED_SUPPORTED	0x7	/* 2.5 | 5.0 | 10.0 Gb/s per lane */
#define SIB_SMA_SPEED_ACTIVE	0x4	/* 10.0 Gb/s per lane: QDR */

/*
 * The softib counters the PMA reads (one snapshot per MAD), in the order
 * of this list. PortCounters/PortCountersExtended fields are sums of them.
 */
#define SIB_SMA_SRC_LIST(X)					\
	X(XMIT_BYTES,	SIB_CNT_IB_XMIT_BYTES)			\
	X(RCV_BYTES,	SIB_CNT_IB_RCV_BYTES)			\
	X(XMIT_PKTS,	SIB_CNT_SENT_PKTS)			\
	X(RCV_PKTS,	SIB_CNT_RCVD_PKTS)			\
	X(RCV_MCAST,	SIB_CNT_MCAST_RCVD)			\
	X(RCV_HDR,	SIB_CNT_DROP_HDR)			\
	X(RCV_ICRC,	SIB_CNT_DROP_ICRC)			\
	X(RCV_LRH,	SIB_CNT_IB_DROP_LRH)			\
	X(RCV_VCRC,	SIB_CNT_IB_DROP_VCRC)			\
	X(RCV_DLID,	SIB_CNT_IB_DROP_DLID)			\
	X(RCV_VL,	SIB_CNT_IB_DROP_VL)			\
	X(XMIT_STATE,	SIB_CNT_IB_XMIT_PORT_STATE)		\
	X(XMIT_ERR,	SIB_CNT_XMIT_ERR)			\
	X(XMIT_PKEY,	SIB_CNT_DROP_PKEY_TX)			\
	X(RCV_PKEY,	SIB_CNT_DROP_PKEY)			\
	X(RCV_QKEY,	SIB_CNT_DROP_QKEY)			\
	X(RCV_STATE,	SIB_CNT_IB_DROP_PORT_STATE)		\
	X(VL15_DROPPED,	SIB_CNT_IB_VL15_DROPPED)

#define SIB_SMA_SRC_ENUM(id, cnt) SIB_SMA_SRC_##id,
enum sib_sma_src {
	SIB_SMA_SRC_LIST(SIB_SMA_SRC_ENUM)
	SIB_SMA_NUM_SRC
};
#undef SIB_SMA_SRC_ENUM

/* PortCounters (IBTA 16.1.3.5) fields by their CounterSelect bit */
enum sib_pma_pc {
	SIB_PMA_PC_SYMBOL_ERR,		/* bit 0 */
	SIB_PMA_PC_LINK_RECOVERY,
	SIB_PMA_PC_LINK_DOWNED,
	SIB_PMA_PC_RCV_ERR,
	SIB_PMA_PC_RCV_REMPHYS,
	SIB_PMA_PC_RCV_SW_RELAY,
	SIB_PMA_PC_XMIT_DISCARD,
	SIB_PMA_PC_XMIT_CONSTRAINT,
	SIB_PMA_PC_RCV_CONSTRAINT,
	SIB_PMA_PC_LOCAL_INTEGRITY,
	SIB_PMA_PC_BUF_OVERRUN,
	SIB_PMA_PC_VL15_DROPPED,
	SIB_PMA_PC_XMIT_DATA,
	SIB_PMA_PC_RCV_DATA,
	SIB_PMA_PC_XMIT_PKTS,
	SIB_PMA_PC_RCV_PKTS,		/* bit 15 */
	SIB_PMA_NUM_PC
};

/* PortCountersExtended (IBTA 16.1.4.11) fields by their CounterSelect bit */
enum sib_pma_pcx {
	SIB_PMA_PCX_XMIT_DATA,
	SIB_PMA_PCX_RCV_DATA,
	SIB_PMA_PCX_XMIT_PKTS,
	SIB_PMA_PCX_RCV_PKTS,
	SIB_PMA_PCX_UNI_XMIT,
	SIB_PMA_PCX_UNI_RCV,
	SIB_PMA_PCX_MULTI_XMIT,
	SIB_PMA_PCX_MULTI_RCV,
	SIB_PMA_NUM_PCX
};

/*
 * struct sib_sma_port - the SMA's and PMA's state of a port, in
 * struct sib_ib_port (under its lock). All zero is the state of a new
 * port: a 0 in the fields marked "0: default" reads as the default.
 * @width_enabled: PortInfo LinkWidthEnabled (0: default, supported)
 * @speed_enabled: PortInfo LinkSpeedEnabled (0: default, supported)
 * @link_down_default: LinkDownDefaultState (0: default, 2 Polling)
 * @op_vls: OperationalVLs (0: default, 1 = VL0)
 * @vl_high_limit, @vl_stall_hoq (VLStallCount 7:5, HOQLife 4:0),
 * @phy_overrun (LocalPhyErrors 7:4, OverrunErrors 3:0): stored as set
 * @pkey_viol_base, @qkey_viol_base: counter values at which PortInfo's
 *	P_KeyViolations/Q_KeyViolations read 0
 * @vlarb: VLArbitration table, [0] low and [1] high priority, two bytes
 *	an entry (VL, weight) as on the wire
 * @pc_base, @pcx_base: PMA counter values at the last clear (Set)
 */
struct sib_sma_port {
	u8 width_enabled;
	u8 speed_enabled;
	u8 link_down_default;
	u8 op_vls;
	u8 vl_high_limit;
	u8 vl_stall_hoq;
	u8 phy_overrun;
	u64 pkey_viol_base;
	u64 qkey_viol_base;
	u8 vlarb[2][SIB_SMA_VLARB_ENTRIES * 2];
	u64 pc_base[SIB_PMA_NUM_PC];
	u64 pcx_base[SIB_PMA_NUM_PCX];
};

/*
 * struct sib_sma_ctx - what the core reads besides the port, and what it
 * asks its caller to do
 * @node_guid, @sys_image_guid: big endian (NodeInfo)
 * @node_desc: NodeDescription, IB_DEVICE_NODE_DESC_MAX bytes
 * @vendor_id, @device_id, @revision: NodeInfo's VendorID (24 bits),
 *	DeviceID, Revision
 * @port_num: the port the MAD came in on (1)
 * @mtu_cap: PortInfo MtuCap, sib_ib_mtu_cap()
 * @ignore_mkey: IB_MAD_IGNORE_MKEY was passed
 * @now_s: seconds since boot, the M_Key lease's clock
 * @pkey: the P_Key table when the MAD came in (0: invalid entry)
 * @cnt: the counters of SIB_SMA_SRC_LIST when the MAD came in
 * @new_state: out: logical state to set (sib_ib_set_state()), 0: none
 * @new_phys: out: PortPhysicalState to set (sib_ib_set_phys(): Polling
 *	      2 or Disabled 3), 0: none
 * @pkey_block: out: P_KeyTable block to write, -1: none
 * @new_pkeys: out: its entries
 * @events: out: bit (1 << enum ib_event_type) per event to fire
 * @mkey_violation: out: an M_Key check failed (count it)
 */
struct sib_sma_ctx {
	__be64 node_guid;
	__be64 sys_image_guid;
	const char *node_desc;
	u32 vendor_id;
	u16 device_id;
	u32 revision;
	u8 port_num;
	enum ib_mtu mtu_cap;
	bool ignore_mkey;
	u64 now_s;
	u16 pkey[SIB_MAX_PKEYS];
	u64 cnt[SIB_SMA_NUM_SRC];

	enum ib_port_state new_state;
	u8 new_phys;
	int pkey_block;
	u16 new_pkeys[SIB_SMA_PKEY_BLOCK];
	u32 events;
	bool mkey_violation;
};

int sib_sma_process(struct sib_sma_ctx *ctx, struct sib_ib_port *p,
		    const struct ib_mad *in, struct ib_mad *out);

#endif /* SIB_SMA_H */
