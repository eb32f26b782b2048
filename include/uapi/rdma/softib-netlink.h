/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * softib generic netlink family "softib": run-time configuration of a
 * softib device that the RDMA core's own netlink has no command for.
 * Today: the P_Key table of a port (IBTA 10.9).
 *
 * Every request names the device with SIB_NL_ATTR_DEV_NAME (an RDMA
 * device name such as "sib0", visible from the caller's network
 * namespace) and optionally SIB_NL_ATTR_PORT (default 1).
 *
 * SIB_NL_CMD_PKEY_GET: reply of the same command with DEV_NAME, PORT,
 *	PKEY_TBL_LEN and a nested PKEY_TABLE holding one nested
 *	PKEY_ENTRY {PKEY_INDEX, PKEY} per valid entry, by index.
 * SIB_NL_CMD_PKEY_SET: write PKEY at PKEY_INDEX (CAP_NET_ADMIN). Bit 15
 *	of PKEY is the membership (1 full, 0 limited); the low 15 bits must
 *	not be 0. -EEXIST when the same P_Key is at another index.
 * SIB_NL_CMD_PKEY_DEL: invalidate the entry at PKEY_INDEX (CAP_NET_ADMIN);
 *	-ENOENT when it is not valid.
 * A change raises IB_EVENT_PKEY_CHANGE on the port.
 *
 * SIB_NL_CMD_CC_GET: reply of the same command with DEV_NAME, PORT and a
 *	nested CC_PARAMS holding one nested CC_PARAM {CC_NAME, CC_VALUE,
 *	CC_UNIT} per congestion control parameter (ECN, CNP and DCQCN,
 *	IBTA Annex A17; names as ConnectX's, e.g. "rp_ai_rate").
 * SIB_NL_CMD_CC_SET: set the parameter CC_NAME to CC_VALUE
 *	(CAP_NET_ADMIN). -ENOENT for an unknown name, -ERANGE for a value
 *	outside the parameter's bounds.
 *
 * The cable of an InfiniBand device (`rdma link add ... type softib-ib`;
 * -EOPNOTSUPP on a RoCE device):
 * SIB_NL_CMD_CABLE_GET: reply of the same command with DEV_NAME, PORT,
 *	CABLE_PHYS_STATE and CABLE_PORT_STATE (the port's physical and
 *	logical state, IBTA values: 2 Polling, 5 LinkUp; 1 Down, 2 Init,
 *	3 Armed, 4 Active) and, when a cable is plugged, CABLE_PEER4 or
 *	CABLE_PEER6, CABLE_PEER_PORT, CABLE_LOCAL_PORT, CABLE_LINK_SENT and
 *	CABLE_LINK_RCVD (link packets sent and heard), CABLE_SILENCE_MS and
 *	CABLE_LINK_LOST (times the link went down for the partner's silence).
 * SIB_NL_CMD_CABLE_SET: plug the cable to the partner at CABLE_PEER4 or
 *	CABLE_PEER6 (one of them), optional CABLE_PEER_PORT and
 *	CABLE_LOCAL_PORT (default 4792 each; 4791 is refused) and
 *	CABLE_SILENCE_MS (how long the partner may be silent before the
 *	link goes down, 300..60000, default 3000; -ERANGE outside),
 *	replacing a cable plugged before (CAP_NET_ADMIN). -EADDRINUSE when
 *	the local port is taken on the carrier netdev.
 * SIB_NL_CMD_CABLE_DEL: unplug it (CAP_NET_ADMIN); -ENOENT when none is.
 */
#ifndef SOFTIB_NETLINK_H
#define SOFTIB_NETLINK_H

#define SIB_NL_FAMILY_NAME	"softib"
#define SIB_NL_FAMILY_VERSION	1

enum sib_nl_cmd {
	SIB_NL_CMD_UNSPEC,
	SIB_NL_CMD_PKEY_GET,
	SIB_NL_CMD_PKEY_SET,
	SIB_NL_CMD_PKEY_DEL,
	SIB_NL_CMD_CC_GET,
	SIB_NL_CMD_CC_SET,
	SIB_NL_CMD_CABLE_GET,
	SIB_NL_CMD_CABLE_SET,
	SIB_NL_CMD_CABLE_DEL,
	__SIB_NL_CMD_MAX,
};
#define SIB_NL_CMD_MAX (__SIB_NL_CMD_MAX - 1)

enum sib_nl_attr {
	SIB_NL_ATTR_UNSPEC,
	SIB_NL_ATTR_DEV_NAME,		/* string */
	SIB_NL_ATTR_PORT,		/* u32, 1-based */
	SIB_NL_ATTR_PKEY_INDEX,		/* u16 */
	SIB_NL_ATTR_PKEY,		/* u16, bit 15: full member */
	SIB_NL_ATTR_PKEY_TBL_LEN,	/* u32, entries of the table */
	SIB_NL_ATTR_PKEY_TABLE,		/* nested: PKEY_ENTRY* */
	SIB_NL_ATTR_PKEY_ENTRY,		/* nested: PKEY_INDEX, PKEY */
	SIB_NL_ATTR_CC_PARAMS,		/* nested: CC_PARAM* */
	SIB_NL_ATTR_CC_PARAM,		/* nested: CC_NAME, CC_VALUE, CC_UNIT */
	SIB_NL_ATTR_CC_NAME,		/* string */
	SIB_NL_ATTR_CC_VALUE,		/* u32 */
	SIB_NL_ATTR_CC_UNIT,		/* string, e.g. "us", "Mbps" */
	SIB_NL_ATTR_CABLE_PEER4,	/* binary, 4 bytes: IPv4 address */
	SIB_NL_ATTR_CABLE_PEER6,	/* binary, 16 bytes: IPv6 address */
	SIB_NL_ATTR_CABLE_PEER_PORT,	/* u16, UDP port of the partner */
	SIB_NL_ATTR_CABLE_LOCAL_PORT,	/* u16, UDP port of this end */
	SIB_NL_ATTR_CABLE_PHYS_STATE,	/* u8, PortPhysicalState */
	SIB_NL_ATTR_CABLE_PORT_STATE,	/* u8, PortState */
	SIB_NL_ATTR_CABLE_LINK_SENT,	/* u64, link packets sent */
	SIB_NL_ATTR_CABLE_LINK_RCVD,	/* u64, link packets heard */
	SIB_NL_ATTR_PAD,		/* padding of the u64 attributes */
	SIB_NL_ATTR_CABLE_SILENCE_MS,	/* u32, the silence limit, ms */
	SIB_NL_ATTR_CABLE_LINK_LOST,	/* u64, link downs for silence */
	__SIB_NL_ATTR_MAX,
};
#define SIB_NL_ATTR_MAX (__SIB_NL_ATTR_MAX - 1)

#endif /* SOFTIB_NETLINK_H */
