// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the port of an InfiniBand link layer device as the subnet
 * manager sees it (see ib.h): LID and LMC, the logical port state and
 * its legal transitions (IBTA 7.2, PortInfo PortState 14.2.5.6), the
 * physical state the cable (cable.c) reports, the MTU cap, and the
 * port's query_port/query_gid/modify_port.
 *
 * The logical state: DOWN while the physical link is not up; INIT as
 * soon as it comes up (LinkUp: the link partner's link packets are
 * heard); then the SM moves it INIT -> ARMED -> ACTIVE through SubnSet
 * PortInfo (sma.c calls sib_ib_set_state()). Losing the physical link
 * takes it back to DOWN from any state. An SM setting DOWN while the
 * link is up retrains the link at once: the port is back in INIT. An
 * ARMED port also goes ACTIVE when a data packet arrives (IBTA 7.2.6).
 * The SM may disable the port (PortPhysicalState Disabled: DOWN, the
 * cable quiet) and enable it again (Polling).
 *
 * Port events are dispatched from a work item, in the order they were
 * raised, never under the port lock: ib_dispatch_event() runs the
 * consumers' handlers, some of which query the port again.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/addrconf.h>

#include "softib.h"
#include "hdr.h"
#include "ib.h"

/* what a softib IB port supports in PortInfo CapabilityMask (14.2.5.6) */
#define SIB_IB_CAP_MASK	(IB_PORT_CM_SUP | IB_PORT_SYS_IMAGE_GUID_SUP | \
			 IB_PORT_SL_MAP_SUP | IB_PORT_CLIENT_REG_SUP)

static void sib_ib_event_work(struct work_struct *work)
{
	struct sib_ib_port *ib = container_of(work, struct sib_ib_port,
					      event_work);
	struct ib_event ev = {
		.device = &ib->dev->ibdev,
		.element.port_num = 1,
	};
	bool more;

	for (;;) {
		spin_lock_bh(&ib->lock);
		more = ib->ev_head != ib->ev_tail;
		if (more) {
			ev.event = ib->ev_ring[ib->ev_head];
			ib->ev_head = (ib->ev_head + 1) % ARRAY_SIZE(ib->ev_ring);
		}
		spin_unlock_bh(&ib->lock);
		if (!more)
			break;
		ib_dispatch_event(&ev);
	}
}

/* queue @type for the event work; ib->lock held */
static void sib_ib_event_locked(struct sib_ib_port *ib, enum ib_event_type type)
{
	u8 next = (ib->ev_tail + 1) % ARRAY_SIZE(ib->ev_ring);

	lockdep_assert_held(&ib->lock);
	if (next == ib->ev_head)	/* full: the oldest goes */
		ib->ev_head = (ib->ev_head + 1) % ARRAY_SIZE(ib->ev_ring);
	ib->ev_ring[ib->ev_tail] = type;
	ib->ev_tail = next;
	queue_work(sib_wq, &ib->event_work);
}

/**
 * sib_ib_port_event() - raise a port event (IB_EVENT_*) on port 1
 * @dev: an IB device
 * @type: IB_EVENT_PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE,
 *	  SM_CHANGE, CLIENT_REREGISTER, ...
 *
 * The event is dispatched (ib_dispatch_event()) later from a work item,
 * after the events raised before it. Context: any; must not be called
 * with dev->ib->lock held (sma.c raises events after unlocking).
 */
void sib_ib_port_event(struct sib_dev *dev, enum ib_event_type type)
{
	struct sib_ib_port *ib = dev->ib;
	unsigned long flags;

	spin_lock_irqsave(&ib->lock, flags);
	sib_ib_event_locked(ib, type);
	spin_unlock_irqrestore(&ib->lock, flags);
}

/* raise the events of @events (bit per enum ib_event_type); ib->lock held */
static void sib_ib_events_locked(struct sib_ib_port *ib, u32 events)
{
	int ev;

	for (ev = 0; ev < 32; ev++)
		if (events & BIT(ev))
			sib_ib_event_locked(ib, ev);
}

/**
 * sib_ib_port_set_phys() - the SM sets PortInfo PortPhysicalState
 *			    (IBTA 14.2.5.6, 5.4.1): the rule alone
 * @ib: the port, ib->lock held
 * @phys: IB_PORT_PHYS_STATE_DISABLED (3) or POLLING (2)
 *
 * Disabled: the physical state is Disabled and stays so whatever the
 * cable hears (cable.c stops its link packets), the logical state DOWN.
 * Polling on a Disabled port enables it again: Polling until the partner
 * is heard. Polling on a port that is not Disabled changes nothing.
 * Context: any, does not sleep. Return: the events to raise, a bit per
 * enum ib_event_type (IB_EVENT_PORT_ERR when an ACTIVE port goes down).
 */
u32 sib_ib_port_set_phys(struct sib_ib_port *ib, u8 phys)
{
	u32 events = 0;

	lockdep_assert_held(&ib->lock);
	if (phys == IB_PORT_PHYS_STATE_DISABLED) {
		if (ib->state == IB_PORT_ACTIVE)
			events |= BIT(IB_EVENT_PORT_ERR);
		ib->phys_state = IB_PORT_PHYS_STATE_DISABLED;
		ib->state = IB_PORT_DOWN;
	} else if (phys == IB_PORT_PHYS_STATE_POLLING &&
		   ib->phys_state == IB_PORT_PHYS_STATE_DISABLED) {
		ib->phys_state = IB_PORT_PHYS_STATE_POLLING;
	}
	return events;
}

/**
 * sib_ib_port_data_rcvd() - a data packet (not VL15) arrived: the rule
 *			     alone (IBTA 7.2.6, PortState Armed)
 * @ib: the port, ib->lock held
 *
 * An ARMED port goes ACTIVE when it receives a packet on a data VL, as
 * when the SM sets ACTIVE. Any other state stays.
 * Context: any, does not sleep. Return: BIT(IB_EVENT_PORT_ACTIVE) when
 * the port went ACTIVE, else 0.
 */
u32 sib_ib_port_data_rcvd(struct sib_ib_port *ib)
{
	lockdep_assert_held(&ib->lock);
	if (ib->state != IB_PORT_ARMED)
		return 0;
	ib->state = IB_PORT_ACTIVE;
	return BIT(IB_EVENT_PORT_ACTIVE);
}

/**
 * sib_ib_port_vls() - the number of data VLs of an OperationalVLs or
 *		       VLCap value (PortInfo, IBTA 14.2.5.6)
 * @code: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14; 0 reads as 1 (a
 *	  new port's OperationalVLs)
 *
 * Context: any. Return: 1, 2, 4, 8 or 15; 1 for a reserved code.
 */
unsigned int sib_ib_port_vls(u8 code)
{
	if (code <= 1 || code > 5)
		return 1;
	return code == 5 ? 15 : 1u << (code - 1);
}

/**
 * sib_ib_port_vl_ok() - may a data packet come on @vl? (IBTA 7.6.3)
 * @ib: the port; OperationalVLs read without its lock (one byte)
 * @vl: the LRH's VL of a packet that is not an SMP (not VL15)
 *
 * A data VL must be one of the port's operational VLs (OperationalVLs,
 * at most VLCap: softib's is VL0 alone).
 * Context: any. Return: true when the VL is operational.
 */
bool sib_ib_port_vl_ok(const struct sib_ib_port *ib, u8 vl)
{
	return vl < sib_ib_port_vls(READ_ONCE(ib->sma.op_vls));
}

/**
 * sib_ib_data_rcvd() - a data packet arrived on @dev's port
 * @dev: IB device
 *
 * sib_ib_port_data_rcvd() under the port's lock; IB_EVENT_PORT_ACTIVE
 * when an ARMED port went ACTIVE. Lockless fast path for ACTIVE ports.
 * Context: any (the receive path). Takes dev->ib->lock.
 */
void sib_ib_data_rcvd(struct sib_dev *dev)
{
	struct sib_ib_port *ib = dev->ib;
	unsigned long flags;

	if (READ_ONCE(ib->state) != IB_PORT_ARMED)
		return;
	spin_lock_irqsave(&ib->lock, flags);
	sib_ib_events_locked(ib, sib_ib_port_data_rcvd(ib));
	spin_unlock_irqrestore(&ib->lock, flags);
}

/**
 * sib_ib_set_phys() - the SM set PortInfo PortPhysicalState on @dev
 * @dev: IB device
 * @phys: IB_PORT_PHYS_STATE_DISABLED or POLLING (the SMA checked it)
 *
 * sib_ib_port_set_phys() under the port's lock and its events. The
 * cable (cable.c) sees the Disabled state on its next link period: it
 * stops sending link packets and, a few periods later (time for the
 * reply to the Set), carries nothing; Polling starts it again.
 * Context: any; takes dev->ib->lock.
 */
void sib_ib_set_phys(struct sib_dev *dev, u8 phys)
{
	struct sib_ib_port *ib = dev->ib;
	unsigned long flags;

	spin_lock_irqsave(&ib->lock, flags);
	sib_ib_events_locked(ib, sib_ib_port_set_phys(ib, phys));
	spin_unlock_irqrestore(&ib->lock, flags);
}

/**
 * sib_ib_phys_state() - the port's PortPhysicalState
 * @dev: IB device
 *
 * Context: any. Return: IB_PORT_PHYS_STATE_POLLING, LINK_UP or DISABLED.
 */
u8 sib_ib_phys_state(struct sib_dev *dev)
{
	return READ_ONCE(dev->ib->phys_state);
}

/**
 * sib_ib_port_init() - allocate and set up the IB port of a new device
 * @dev: the device being created (device.c), dev->ndev set
 *
 * GUIDs from the netdev's MAC (EUI-64 with 0x20,0x00 for the node GUID,
 * 0x40,0x00 for the port GUID in bytes 3-4), subnet prefix fe80::/64,
 * LID 0, state DOWN, physical state POLLING (until a cable is plugged
 * and the partner is heard), neighbor MTU the MTU cap.
 * Context: process. Return: 0 or -ENOMEM.
 */
int sib_ib_port_init(struct sib_dev *dev)
{
	struct sib_ib_port *ib = kzalloc(sizeof(*ib), GFP_KERNEL);
	u8 *g = (u8 *)&dev->ibdev.node_guid;

	if (!ib)
		return -ENOMEM;
	spin_lock_init(&ib->lock);
	INIT_LIST_HEAD(&ib->ib_list);
	INIT_WORK(&ib->event_work, sib_ib_event_work);
	ib->dev = dev;
	/* the MAC as modified EUI-64, 0x20,0x00 instead of 0xff,0xfe */
	addrconf_addr_eui48(g, dev->ndev->dev_addr);
	g[3] = 0x20;
	g[4] = 0x00;
	ib->port_guid = dev->ibdev.node_guid;
	((u8 *)&ib->port_guid)[3] = 0x40;
	ib->subnet_prefix = cpu_to_be64(SIB_IB_DEFAULT_PREFIX);
	ib->state = IB_PORT_DOWN;
	ib->phys_state = IB_PORT_PHYS_STATE_POLLING;
	ib->cap_mask = SIB_IB_CAP_MASK;
	ib->subnet_timeout = 18;	/* 4.096 us * 2^18: about 1 s */
	dev->ib = ib;
	ib->neighbor_mtu = sib_ib_mtu_cap(dev);
	return 0;
}

/**
 * sib_ib_port_fini() - free the IB port
 * @dev: device being freed (dealloc_driver), its cable gone
 *
 * Waits for the event work. Context: process.
 */
void sib_ib_port_fini(struct sib_dev *dev)
{
	struct sib_ib_port *ib = dev->ib;

	if (!ib)
		return;
	cancel_work_sync(&ib->event_work);
	dev->ib = NULL;
	kfree(ib);
}

/**
 * sib_ib_phys_link() - the cable's physical link came up or went down
 * @dev: IB device
 * @up: true: LinkUp (the partner's link packets are heard); false:
 *	Polling (silence for 1 s, carrier loss, cable unplugged)
 *
 * Up: a DOWN port goes to INIT (IBTA 7.2: the SM takes it on). Down: the
 * port goes DOWN from any state, PORT_ERR when it was ACTIVE. A port the
 * SM disabled (sib_ib_set_phys()) stays Disabled and DOWN.
 * Context: any (softirq from the cable's receive). Takes dev->ib->lock.
 */
void sib_ib_phys_link(struct sib_dev *dev, bool up)
{
	struct sib_ib_port *ib = dev->ib;
	unsigned long flags;

	spin_lock_irqsave(&ib->lock, flags);
	if (ib->phys_state == IB_PORT_PHYS_STATE_DISABLED) {
		/* the SM disabled the port: the cable changes nothing */
	} else if (up) {
		ib->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
		if (ib->state == IB_PORT_DOWN)
			ib->state = IB_PORT_INIT;
	} else {
		ib->phys_state = IB_PORT_PHYS_STATE_POLLING;
		if (ib->state == IB_PORT_ACTIVE)
			sib_ib_event_locked(ib, IB_EVENT_PORT_ERR);
		ib->state = IB_PORT_DOWN;
	}
	spin_unlock_irqrestore(&ib->lock, flags);
}

/**
 * sib_ib_state() - the port's logical state
 * @dev: IB device
 *
 * Context: any. Return: IB_PORT_DOWN, INIT, ARMED or ACTIVE.
 */
enum ib_port_state sib_ib_state(struct sib_dev *dev)
{
	return READ_ONCE(dev->ib->state);
}

/**
 * sib_ib_set_state() - the SM sets PortInfo PortState (IBTA 14.2.5.6)
 * @dev: IB device
 * @state: IB_PORT_DOWN, INIT, ARMED or ACTIVE (PortState 1..4; 0,
 *	   NoStateChange, is the caller's to skip)
 *
 * Legal: the current state again (nothing happens), any -> DOWN (the
 * link retrains: with the physical link up the port is INIT again),
 * INIT -> ARMED, ARMED -> ACTIVE (IB_EVENT_PORT_ACTIVE). Leaving ACTIVE
 * raises IB_EVENT_PORT_ERR.
 * Context: any; takes dev->ib->lock. Return: 0, or -EINVAL for any other
 * transition (the SMA then answers with an invalid-attribute status).
 */
int sib_ib_set_state(struct sib_dev *dev, enum ib_port_state state)
{
	struct sib_ib_port *ib = dev->ib;
	enum ib_port_state old;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&ib->lock, flags);
	old = ib->state;
	if (state == old && state != IB_PORT_DOWN)
		goto out;
	switch (state) {
	case IB_PORT_DOWN:
		ib->state = ib->phys_state == IB_PORT_PHYS_STATE_LINK_UP ?
			    IB_PORT_INIT : IB_PORT_DOWN;
		break;
	case IB_PORT_ARMED:
		if (old != IB_PORT_INIT)
			err = -EINVAL;
		else
			ib->state = IB_PORT_ARMED;
		break;
	case IB_PORT_ACTIVE:
		if (old != IB_PORT_ARMED) {
			err = -EINVAL;
		} else {
			ib->state = IB_PORT_ACTIVE;
			sib_ib_event_locked(ib, IB_EVENT_PORT_ACTIVE);
		}
		break;
	default:
		err = -EINVAL;
		break;
	}
	if (!err && old == IB_PORT_ACTIVE && ib->state != IB_PORT_ACTIVE)
		sib_ib_event_locked(ib, IB_EVENT_PORT_ERR);
out:
	spin_unlock_irqrestore(&ib->lock, flags);
	return err;
}

/**
 * sib_ib_mtu_cap() - the port's MtuCap (PortInfo, IBTA 14.2.5.6)
 * @dev: IB device
 *
 * The largest IB MTU, at most 4096, whose largest packet (LRH, GRH, BTH,
 * the largest extended headers (XRCETH + AtomicETH), the payload, ICRC
 * and VCRC) fits in one UDP datagram on the carrier netdev with an IPv6
 * header (the larger of the two IP headers). IB_MTU_256 below that.
 * Context: any. Return: enum ib_mtu.
 */
enum ib_mtu sib_ib_mtu_cap(struct sib_dev *dev)
{
	int room = (int)READ_ONCE(dev->ndev->mtu) -
		   (int)(sizeof(struct ipv6hdr) + sizeof(struct udphdr)) -
		   (SIB_LRH_LEN + SIB_GRH_LEN + SIB_BTH_LEN + SIB_XRCETH_LEN +
		    SIB_ATMETH_LEN + SIB_ICRC_LEN + SIB_VCRC_LEN);
	enum ib_mtu m;

	for (m = IB_MTU_4096; m > IB_MTU_256; m--)
		if (ib_mtu_enum_to_int(m) <= room)
			break;
	return m;
}

/**
 * sib_ib_lid_match() - is @dlid one of the port's LIDs (IBTA 7.11.1)?
 * @dev: IB device
 * @dlid: LRH DLID (host order), unicast
 * @path_bits: out (may be NULL): the low LMC bits of @dlid, the DLID path
 *	       bits a receive completion reports; 0 for the permissive LID
 *
 * A port answers base LID .. base LID + 2^LMC - 1, and the permissive
 * LID 0xffff. LID 0 (no LID assigned) matches nothing but the permissive
 * LID. Context: any. Return: true on a match.
 */
bool sib_ib_lid_match(struct sib_dev *dev, u16 dlid, u8 *path_bits)
{
	struct sib_ib_port *ib = dev->ib;
	u16 lid = READ_ONCE(ib->lid);
	u8 lmc = READ_ONCE(ib->lmc) & 7;
	u16 mask = (1u << lmc) - 1;

	if (dlid == SIB_IB_LID_PERMISSIVE) {
		if (path_bits)
			*path_bits = 0;
		return true;
	}
	if (!lid || dlid >= SIB_IB_MCAST_LID_BASE ||
	    (dlid & ~mask) != (lid & ~mask))
		return false;
	if (path_bits)
		*path_bits = dlid & mask;
	return true;
}

/**
 * sib_ib_query_port() - query_port of an IB device
 * @dev: IB device
 * @a: zeroed by the core; filled
 *
 * Reports 4X QDR (the same as the SMA's PortInfo), the MTU cap as
 * max_mtu and min(cap, NeighborMTU) as active_mtu.
 * Context: process or softirq. Return: 0.
 */
int sib_ib_query_port(struct sib_dev *dev, struct ib_port_attr *a)
{
	struct sib_ib_port *ib = dev->ib;
	enum ib_mtu cap = sib_ib_mtu_cap(dev);

	spin_lock_bh(&ib->lock);
	a->state = ib->state;
	a->phys_state = ib->phys_state;
	a->lid = ib->lid;
	a->lmc = ib->lmc;
	a->sm_lid = ib->sm_lid;
	a->sm_sl = ib->sm_sl;
	a->active_mtu = min(cap, ib->neighbor_mtu);
	a->subnet_timeout = ib->subnet_timeout;
	a->port_cap_flags = ib->cap_mask;
	spin_unlock_bh(&ib->lock);
	a->max_mtu = cap;
	a->gid_tbl_len = 1;
	a->pkey_tbl_len = SIB_MAX_PKEYS;
	a->max_msg_sz = SIB_MAX_MSG_SIZE;
	a->max_vl_num = 1;		/* VL0 for data (PortInfo VLCap: SIB_SMA_VL_CAP) */
	a->bad_pkey_cntr = 0;
	a->qkey_viol_cntr = 0;
	a->init_type_reply = 0;
	a->active_width = IB_WIDTH_4X;
	a->active_speed = IB_SPEED_QDR;
	return 0;
}

/**
 * sib_ib_query_gid() - query_gid of an IB device: GID 0 only
 * @dev: IB device
 * @index: 0
 * @gid: out: subnet prefix : port GUID (IBTA 4.1.1)
 *
 * Context: any. Return: 0, -EINVAL for another index.
 */
int sib_ib_query_gid(struct sib_dev *dev, int index, union ib_gid *gid)
{
	struct sib_ib_port *ib = dev->ib;

	if (index != 0)
		return -EINVAL;
	spin_lock_bh(&ib->lock);
	gid->global.subnet_prefix = ib->subnet_prefix;
	gid->global.interface_id = ib->port_guid;
	spin_unlock_bh(&ib->lock);
	return 0;
}

/**
 * sib_ib_modify_port() - modify_port of an IB device
 * @dev: IB device
 * @mask: IB_PORT_SHUTDOWN, IB_PORT_INIT_TYPE, IB_PORT_RESET_QKEY_CNTR
 * @props: set_port_cap_mask / clr_port_cap_mask
 *
 * IsSM (IB_PORT_SM) counts its holders: an SM opening /dev/infiniband/
 * issmN sets it, closing clears it; the bit stays while any holds it.
 * Other capability bits are set and cleared as asked. Shutdown and
 * InitType are not supported; the Q_Key violation counter is always 0.
 * Context: process. Return: 0 or -EOPNOTSUPP.
 */
int sib_ib_modify_port(struct sib_dev *dev, int mask,
		       struct ib_port_modify *props)
{
	struct sib_ib_port *ib = dev->ib;
	u32 set = props->set_port_cap_mask;
	u32 clr = props->clr_port_cap_mask;

	if (mask & (IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE))
		return -EOPNOTSUPP;
	spin_lock_bh(&ib->lock);
	if (set & IB_PORT_SM)
		ib->sm_holders++;
	if ((clr & IB_PORT_SM) && ib->sm_holders)
		ib->sm_holders--;
	set &= ~IB_PORT_SM;
	clr &= ~IB_PORT_SM;
	if (ib->sm_holders)
		set |= IB_PORT_SM;
	else
		clr |= IB_PORT_SM;
	ib->cap_mask = (ib->cap_mask | set) & ~clr;
	spin_unlock_bh(&ib->lock);
	return 0;
}
