// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the subnet management agent (IBTA 14.2) and the performance
 * management agent (IBTA 16.1) of an IB port: ib_device_ops.process_mad.
 *
 * ib_mad gives the driver every MAD that arrives on QP0/QP1 first, and
 * every SMP a local sender (opensm, smpquery) sends with a directed route
 * that ends at this port. The directed-route hop pointer and count
 * (IBTA 14.2.2) are ib_mad's work (smi.c, on receive before this runs and
 * on the reply's way out); the SMA only turns the request into a
 * GetResp and sets the direction bit of a directed-route reply.
 *
 * Return values for ib_mad: SUCCESS|REPLY sends @out back; SUCCESS|
 * CONSUMED drops the MAD (an M_Key violation); SUCCESS alone hands the
 * MAD on to the registered agents (responses for opensm, SMInfo, traps,
 * every other class), which answer "unsupported" when none wants it.
 *
 * The core, sib_sma_process(), only reads a struct sib_sma_ctx and the
 * port; what it cannot do under the port's spinlock (the logical state,
 * the P_Key table, events) it asks sib_process_mad() to do afterwards.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_pma.h>

#include "softib.h"
#include "ib.h"
#include "sma.h"

/* the SM and PerfMgt class versions softib speaks */
#define SIB_SMA_CLASS_VERSION		1

#define SIB_SMA_STATUS_BAD_VERSION	IB_MGMT_MAD_STATUS_BAD_VERSION
#define SIB_SMA_STATUS_UNSUP_ATTR	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB
#define SIB_SMA_STATUS_INVALID		IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE

/* PMA MADs: 24 bytes of header, 40 reserved, the attribute (IBTA 16.1.1) */
#define SIB_PMA_DATA_OFF		64
/* ClassPortInfo RespTimeValue: 2^18 * 4.096 us, about 1 s */
#define SIB_PMA_RESP_TIME		18
/* PortInfo LinkDownDefaultState read when none was set: Polling */
#define SIB_SMA_LINK_DOWN_POLLING	2

/* NodeInfo (IBTA 14.2.5.3), 40 bytes */
struct sib_sma_node_info {
	u8 base_version;
	u8 class_version;
	u8 node_type;
	u8 num_ports;
	__be64 sys_image_guid;
	__be64 node_guid;
	__be64 port_guid;
	__be16 partition_cap;
	__be16 device_id;
	__be32 revision;
	u8 local_port_num;
	u8 vendor_id[3];
} __packed;

/* PortInfo beyond struct ib_port_info: CapabilityMask2, LinkSpeedExt* */
#define SIB_SMA_PI_CAPMASK2_OFF		60

static u64 sib_sma_sat(u64 v, u64 max)
{
	return v > max ? max : v;
}

/* the counter value since @base, never below 0 */
static u64 sib_sma_since(u64 v, u64 base)
{
	return v > base ? v - base : 0;
}

static u32 sib_sma_cap_mask(const struct sib_ib_port *p)
{
	/* no traps, no notices, no automatic path migration, no ext speeds */
	return p->cap_mask | IB_PORT_SL_MAP_SUP | IB_PORT_SYS_IMAGE_GUID_SUP |
	       IB_PORT_CLIENT_REG_SUP;
}

static void sib_sma_node_info(const struct sib_sma_ctx *ctx,
			      const struct sib_ib_port *p, u8 *data)
{
	struct sib_sma_node_info *ni = (void *)data;

	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = SIB_SMA_CLASS_VERSION;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = 1;
	ni->sys_image_guid = ctx->sys_image_guid;
	ni->node_guid = ctx->node_guid;
	ni->port_guid = p->port_guid;
	ni->partition_cap = cpu_to_be16(SIB_MAX_PKEYS);
	ni->device_id = cpu_to_be16(ctx->device_id);
	ni->revision = cpu_to_be32(ctx->revision);
	ni->local_port_num = ctx->port_num;
	ni->vendor_id[0] = ctx->vendor_id >> 16;
	ni->vendor_id[1] = ctx->vendor_id >> 8;
	ni->vendor_id[2] = ctx->vendor_id;
}

/* PortInfo as it is now; @hide_mkey: M_Key reads 0 (protection bits 1) */
static void sib_sma_port_info(const struct sib_sma_ctx *ctx,
			      const struct sib_ib_port *p, u8 *data,
			      bool hide_mkey)
{
	const struct sib_sma_port *s = &p->sma;
	struct ib_port_info *pi = (void *)data;
	u64 pv, qv;

	pi->mkey = hide_mkey ? 0 : cpu_to_be64(p->m_key);
	pi->gid_prefix = p->subnet_prefix;
	pi->lid = cpu_to_be16(p->lid);
	pi->sm_lid = cpu_to_be16(p->sm_lid);
	pi->cap_mask = cpu_to_be32(sib_sma_cap_mask(p));
	pi->diag_code = 0;
	pi->mkey_lease_period = cpu_to_be16(p->mkey_lease);
	pi->local_port_num = ctx->port_num;
	pi->link_width_enabled = s->width_enabled ?: SIB_SMA_WIDTH_SUPPORTED;
	pi->link_width_supported = SIB_SMA_WIDTH_SUPPORTED;
	pi->link_width_active = SIB_SMA_WIDTH_ACTIVE;
	pi->linkspeed_portstate = SIB_SMA_SPEED_SUPPORTED << 4 |
				  (p->state & 0xf);
	pi->portphysstate_linkdown = (p->phys_state & 0xf) << 4 |
		(s->link_down_default ?: SIB_SMA_LINK_DOWN_POLLING);
	pi->mkeyprot_resv_lmc = (p->mkey_prot & 3) << 6 | (p->lmc & 7);
	pi->linkspeedactive_enabled = SIB_SMA_SPEED_ACTIVE << 4 |
		(s->speed_enabled ?: SIB_SMA_SPEED_SUPPORTED);
	pi->neighbormtu_mastersmsl =
		((p->neighbor_mtu ?: ctx->mtu_cap) & 0xf) << 4 | (p->sm_sl & 0xf);
	pi->vlcap_inittype = SIB_SMA_VL_CAP << 4;
	pi->vl_high_limit = s->vl_high_limit;
	pi->vl_arb_high_cap = SIB_SMA_VLARB_CAP;
	pi->vl_arb_low_cap = SIB_SMA_VLARB_CAP;
	pi->inittypereply_mtucap = ctx->mtu_cap & 0xf;
	pi->vlstallcnt_hoqlife = s->vl_stall_hoq;
	/* P_Keys are always enforced, inbound and outbound */
	pi->operationalvl_pei_peo_fpi_fpo = (s->op_vls ?: 1) << 4 | 0x0c;
	pi->mkey_violations = cpu_to_be16(p->mkey_violations);
	pv = sib_sma_since(ctx->cnt[SIB_SMA_SRC_RCV_PKEY], s->pkey_viol_base);
	qv = sib_sma_since(ctx->cnt[SIB_SMA_SRC_RCV_QKEY], s->qkey_viol_base);
	pi->pkey_violations = cpu_to_be16(sib_sma_sat(pv, U16_MAX));
	pi->qkey_violations = cpu_to_be16(sib_sma_sat(qv, U16_MAX));
	pi->guid_cap = 1;
	pi->clientrereg_resv_subnetto = (p->client_rereg ? 0x80 : 0) |
					(p->subnet_timeout & 0x1f);
	pi->resv_resptimevalue = p->resp_time & 0x1f;
	pi->localphyerrors_overrunerrors = s->phy_overrun;
	/* CapabilityMask2 and the LinkSpeedExt fields stay 0 */
	memset(data + SIB_SMA_PI_CAPMASK2_OFF, 0,
	       IB_SMP_DATA_SIZE - SIB_SMA_PI_CAPMASK2_OFF);
}

/* is @state a legal PortInfo:PortState write in logical state @cur? */
static bool sib_sma_state_ok(enum ib_port_state cur, u8 state)
{
	switch (state) {
	case IB_PORT_NOP:
	case IB_PORT_DOWN:
		return true;
	case IB_PORT_ARMED:
		return cur == IB_PORT_INIT || cur == IB_PORT_ARMED;
	case IB_PORT_ACTIVE:
		return cur == IB_PORT_ARMED || cur == IB_PORT_ACTIVE;
	default:		/* Init and reserved values cannot be written */
		return false;
	}
}

/* an Enabled field: 0 no change, @all "all supported", else a subset */
static bool sib_sma_enabled_ok(u8 v, u8 all, u8 supported)
{
	return v == 0 || v == all || !(v & ~supported);
}

static bool sib_sma_unicast_lid(u16 lid)
{
	return lid < SIB_IB_MCAST_LID_BASE;
}

/* the checks of a PortInfo Set (IBTA 14.2.5.6) before anything changes */
static bool sib_sma_port_info_ok(const struct sib_sma_ctx *ctx,
				 const struct sib_ib_port *p,
				 const struct ib_port_info *pi)
{
	u8 mtu = pi->neighbormtu_mastersmsl >> 4;
	u8 phys = pi->portphysstate_linkdown >> 4;
	u8 ldd = pi->portphysstate_linkdown & 0xf;
	u8 op_vls = pi->operationalvl_pei_peo_fpi_fpo >> 4;

	if (!sib_sma_unicast_lid(be16_to_cpu(pi->lid)) ||
	    !sib_sma_unicast_lid(be16_to_cpu(pi->sm_lid)))
		return false;
	if (!sib_sma_state_ok(p->state, pi->linkspeed_portstate & 0xf))
		return false;
	/* physical state: no change, Polling (enable) or Disabled */
	if (phys != 0 && phys != IB_PORT_PHYS_STATE_POLLING &&
	    phys != IB_PORT_PHYS_STATE_DISABLED)
		return false;
	if (ldd > SIB_SMA_LINK_DOWN_POLLING)
		return false;
	if (mtu < IB_MTU_256 || mtu > ctx->mtu_cap)
		return false;
	if (op_vls > SIB_SMA_VL_CAP)
		return false;
	if (!sib_sma_enabled_ok(pi->link_width_enabled, 0xff,
				SIB_SMA_WIDTH_SUPPORTED))
		return false;
	return sib_sma_enabled_ok(pi->linkspeedactive_enabled & 0xf, 0xf,
				  SIB_SMA_SPEED_SUPPORTED);
}

/* the counter base at which a violation counter reads @val */
static u64 sib_sma_viol_base(u64 cnt, u16 val)
{
	return cnt - min_t(u64, cnt, val);
}

static void sib_sma_port_info_apply(struct sib_sma_ctx *ctx,
				    struct sib_ib_port *p,
				    const struct ib_port_info *pi)
{
	struct sib_sma_port *s = &p->sma;
	u16 lid = be16_to_cpu(pi->lid), sm_lid = be16_to_cpu(pi->sm_lid);
	u8 lmc = pi->mkeyprot_resv_lmc & 7, sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	u8 v;

	if (lid != p->lid || lmc != p->lmc)
		ctx->events |= BIT(IB_EVENT_LID_CHANGE);
	if (sm_lid != p->sm_lid || sm_sl != p->sm_sl)
		ctx->events |= BIT(IB_EVENT_SM_CHANGE);
	if (pi->gid_prefix != p->subnet_prefix)
		ctx->events |= BIT(IB_EVENT_GID_CHANGE);
	if (pi->clientrereg_resv_subnetto & 0x80)
		ctx->events |= BIT(IB_EVENT_CLIENT_REREGISTER);

	p->m_key = be64_to_cpu(pi->mkey);
	p->subnet_prefix = pi->gid_prefix;
	p->lid = lid;
	p->sm_lid = sm_lid;
	p->mkey_lease = be16_to_cpu(pi->mkey_lease_period);
	p->mkey_prot = pi->mkeyprot_resv_lmc >> 6;
	p->lmc = lmc;
	p->sm_sl = sm_sl;
	p->neighbor_mtu = pi->neighbormtu_mastersmsl >> 4;
	p->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
	p->client_rereg = 0;	/* an event, not a state */
	p->mkey_violations = be16_to_cpu(pi->mkey_violations);

	v = pi->link_width_enabled;
	if (v)
		s->width_enabled = v == 0xff ? SIB_SMA_WIDTH_SUPPORTED : v;
	v = pi->linkspeedactive_enabled & 0xf;
	if (v)
		s->speed_enabled = v == 0xf ? SIB_SMA_SPEED_SUPPORTED : v;
	v = pi->portphysstate_linkdown & 0xf;
	if (v)
		s->link_down_default = v;
	v = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	if (v)
		s->op_vls = v;
	s->vl_high_limit = pi->vl_high_limit;
	s->vl_stall_hoq = pi->vlstallcnt_hoqlife;
	s->phy_overrun = pi->localphyerrors_overrunerrors;
	s->pkey_viol_base = sib_sma_viol_base(ctx->cnt[SIB_SMA_SRC_RCV_PKEY],
					      be16_to_cpu(pi->pkey_violations));
	s->qkey_viol_base = sib_sma_viol_base(ctx->cnt[SIB_SMA_SRC_RCV_QKEY],
					      be16_to_cpu(pi->qkey_violations));

	v = pi->linkspeed_portstate & 0xf;
	if (v != IB_PORT_NOP)
		ctx->new_state = v;
	ctx->new_phys = pi->portphysstate_linkdown >> 4;
}

/* PortInfo Get/Set; returns the MAD status */
static u16 sib_sma_port_info_attr(struct sib_sma_ctx *ctx,
				  struct sib_ib_port *p, struct ib_smp *smp,
				  bool set, bool hide_mkey)
{
	struct ib_port_info pi;
	u32 mod = be32_to_cpu(smp->attr_mod);

	if (mod != 0 && mod != ctx->port_num)
		return SIB_SMA_STATUS_INVALID;
	if (set) {
		memcpy(&pi, smp->data, sizeof(pi));
		if (!sib_sma_port_info_ok(ctx, p, &pi)) {
			sib_sma_port_info(ctx, p, smp->data, hide_mkey);
			return SIB_SMA_STATUS_INVALID;
		}
		sib_sma_port_info_apply(ctx, p, &pi);
	}
	sib_sma_port_info(ctx, p, smp->data, hide_mkey);
	if (ctx->new_state) {
		/* the reply shows the state the Set asked for */
		smp->data[offsetof(struct ib_port_info, linkspeed_portstate)] =
			SIB_SMA_SPEED_SUPPORTED << 4 | ctx->new_state;
	}
	if (ctx->new_phys == IB_PORT_PHYS_STATE_DISABLED) {
		/* and the physical state: Disabled, the logical one Down */
		smp->data[offsetof(struct ib_port_info, portphysstate_linkdown)] =
			IB_PORT_PHYS_STATE_DISABLED << 4 |
			(p->sma.link_down_default ?: SIB_SMA_LINK_DOWN_POLLING);
		smp->data[offsetof(struct ib_port_info, linkspeed_portstate)] =
			SIB_SMA_SPEED_SUPPORTED << 4 | IB_PORT_DOWN;
	}
	return 0;
}

static u16 sib_sma_pkey_attr(struct sib_sma_ctx *ctx, struct ib_smp *smp,
			     bool set)
{
	/*
	 * the block in bits 15:0; bits 23:16 name a switch's port, a CA
	 * ignores them (ibdiagnet sends the port it asks about)
	 */
	u32 mod = be32_to_cpu(smp->attr_mod) & 0xffff;
	__be16 *wire = (__be16 *)smp->data;
	unsigned int i, base;

	if (mod >= SIB_MAX_PKEYS / SIB_SMA_PKEY_BLOCK)
		return SIB_SMA_STATUS_INVALID;
	base = mod * SIB_SMA_PKEY_BLOCK;
	if (set) {
		ctx->pkey_block = mod;
		for (i = 0; i < SIB_SMA_PKEY_BLOCK; i++) {
			ctx->new_pkeys[i] = be16_to_cpu(wire[i]);
			if (ctx->new_pkeys[i] != ctx->pkey[base + i])
				ctx->events |= BIT(IB_EVENT_PKEY_CHANGE);
		}
		/* the caller writes the table and the reply from it */
		return 0;
	}
	for (i = 0; i < SIB_SMA_PKEY_BLOCK; i++)
		wire[i] = cpu_to_be16(ctx->pkey[base + i]);
	return 0;
}

static u16 sib_sma_guid_attr(struct sib_ib_port *p, struct ib_smp *smp)
{
	__be64 *guid = (__be64 *)smp->data;

	/* GUIDCap 1: block 0, the port GUID; alias GUIDs are not kept */
	if (be32_to_cpu(smp->attr_mod) != 0)
		return SIB_SMA_STATUS_INVALID;
	memset(smp->data, 0, IB_SMP_DATA_SIZE);
	guid[0] = p->port_guid;
	return 0;
}

/* SLtoVLMappingTable: 16 SLs, 4 bits each, SL0 in the high nibble */
static u8 sib_sma_sl_vl(const u8 *data, unsigned int sl)
{
	return (data[sl / 2] >> (sl & 1 ? 0 : 4)) & 0xf;
}

static u16 sib_sma_sl2vl_attr(struct sib_ib_port *p, struct ib_smp *smp,
			      bool set)
{
	unsigned int sl;
	u16 status = 0;
	u8 vl;

	/* the modifier's ports (input 15:8, output 7:0) are a switch's */
	for (sl = 0; set && sl < 16; sl++) {
		vl = sib_sma_sl_vl(smp->data, sl);
		/* VL15 marks an SL whose packets are dropped */
		if (vl >= SIB_SMA_VL_CAP && vl != SIB_IB_VL_SMP)
			status = SIB_SMA_STATUS_INVALID;
	}
	for (sl = 0; set && !status && sl < 16; sl++)
		p->sl2vl[sl] = sib_sma_sl_vl(smp->data, sl);
	memset(smp->data, 0, IB_SMP_DATA_SIZE);
	for (sl = 0; sl < 16; sl++)
		smp->data[sl / 2] |= (p->sl2vl[sl] & 0xf) << (sl & 1 ? 0 : 4);
	return status;
}

/*
 * VLArbitrationTable (IBTA 14.2.5.9): block 1 holds the low-priority
 * entries 0-31, block 3 the high-priority entries 0-31; blocks 2 and 4
 * (entries 32-63) are beyond the capacity of 8. An entry is (VL in the
 * low 4 bits, weight).
 */
static u16 sib_sma_vlarb_attr(struct sib_ib_port *p, struct ib_smp *smp,
			      bool set)
{
	u32 block = be32_to_cpu(smp->attr_mod) >> 16;
	u8 *tbl;
	unsigned int i;

	/* bits 15:0 name a switch's port: a CA ignores them */
	if (block != 1 && block != 3)
		return SIB_SMA_STATUS_INVALID;
	tbl = p->sma.vlarb[block == 3];
	if (set) {
		for (i = 0; i < SIB_SMA_VLARB_ENTRIES; i++) {
			tbl[2 * i] = smp->data[2 * i] & 0xf;
			tbl[2 * i + 1] = smp->data[2 * i + 1];
		}
	}
	memset(smp->data, 0, IB_SMP_DATA_SIZE);
	memcpy(smp->data, tbl, SIB_SMA_VLARB_ENTRIES * 2);
	return 0;
}

/*
 * The M_Key check (IBTA 14.2.4.1): passes with no M_Key, a matching one
 * or IB_MAD_IGNORE_MKEY; a Get passes with protection bits 0, and 1 (the
 * M_Key then reads 0); anything else is a violation, counted here.
 * The lease (14.2.4.2): a violation starts the lease timer when
 * M_KeyLeasePeriod is not 0 (infinite) and the timer is not running; an
 * SMP with the right M_Key stops it; once it has run out the protection
 * bits are 0, so that an SM that lost the M_Key can read it. The timer
 * is only looked at when an SMP arrives, the only time the bits matter.
 */
static bool sib_sma_mkey_ok(struct sib_sma_ctx *ctx, struct sib_ib_port *p,
			    const struct ib_smp *smp, bool *hide_mkey)
{
	*hide_mkey = false;
	if (p->mkey_lease_end && ctx->now_s >= p->mkey_lease_end) {
		p->mkey_prot = 0;
		p->mkey_lease_end = 0;
	}
	if (ctx->ignore_mkey || !p->m_key)
		return true;
	if (be64_to_cpu(smp->mkey) == p->m_key) {
		p->mkey_lease_end = 0;
		return true;
	}
	if (smp->method == IB_MGMT_METHOD_GET && p->mkey_prot < 2) {
		*hide_mkey = p->mkey_prot == 1;
		return true;
	}
	if (p->mkey_violations < U16_MAX)
		p->mkey_violations++;
	if (p->mkey_lease && !p->mkey_lease_end)
		p->mkey_lease_end = ctx->now_s + p->mkey_lease;
	ctx->mkey_violation = true;
	return false;
}

/* one SubnGet/SubnSet; returns the MAD status */
static u16 sib_sma_attr(struct sib_sma_ctx *ctx, struct sib_ib_port *p,
			struct ib_smp *smp, bool hide_mkey)
{
	bool set = smp->method == IB_MGMT_METHOD_SET;
	u32 mod = be32_to_cpu(smp->attr_mod);

	switch (smp->attr_id) {
	case IB_SMP_ATTR_NODE_DESC:
		if (set)
			return SIB_SMA_STATUS_UNSUP_ATTR;
		if (mod)
			return SIB_SMA_STATUS_INVALID;
		memset(smp->data, 0, IB_SMP_DATA_SIZE);
		memcpy(smp->data, ctx->node_desc,
		       strnlen(ctx->node_desc, IB_DEVICE_NODE_DESC_MAX));
		return 0;
	case IB_SMP_ATTR_NODE_INFO:
		if (set)
			return SIB_SMA_STATUS_UNSUP_ATTR;
		if (mod)
			return SIB_SMA_STATUS_INVALID;
		memset(smp->data, 0, IB_SMP_DATA_SIZE);
		sib_sma_node_info(ctx, p, smp->data);
		return 0;
	case IB_SMP_ATTR_PORT_INFO:
		return sib_sma_port_info_attr(ctx, p, smp, set, hide_mkey);
	case IB_SMP_ATTR_PKEY_TABLE:
		return sib_sma_pkey_attr(ctx, smp, set);
	case IB_SMP_ATTR_GUID_INFO:
		/* a Set writes nothing (no alias GUIDs) and reads back */
		return sib_sma_guid_attr(p, smp);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return sib_sma_sl2vl_attr(p, smp, set);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return sib_sma_vlarb_attr(p, smp, set);
	default:
		return SIB_SMA_STATUS_UNSUP_ATTR;
	}
}

/* the SMA: SubnGet/SubnSet, LID routed or directed route (IBTA 14.2.5) */
static int sib_sma_smp(struct sib_sma_ctx *ctx, struct sib_ib_port *p,
		       struct ib_smp *smp)
{
	bool hide_mkey;
	u16 status;

	if (smp->method != IB_MGMT_METHOD_GET &&
	    smp->method != IB_MGMT_METHOD_SET)
		return IB_MAD_RESULT_SUCCESS;
	/* SMInfo is the SM's (opensm through ib_umad), not the SMA's */
	if (smp->attr_id == IB_SMP_ATTR_SM_INFO)
		return IB_MAD_RESULT_SUCCESS;
	if (smp->class_version != SIB_SMA_CLASS_VERSION) {
		status = SIB_SMA_STATUS_BAD_VERSION;
	} else {
		if (!sib_sma_mkey_ok(ctx, p, smp, &hide_mkey))
			return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
		status = sib_sma_attr(ctx, p, smp, hide_mkey);
	}
	smp->method = IB_MGMT_METHOD_GET_RESP;
	smp->status = cpu_to_be16(status);
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		smp->status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/* a PortCounters field's value from the snapshot (data in 4-byte words) */
static u64 sib_pma_pc_raw(const struct sib_sma_ctx *ctx, enum sib_pma_pc f)
{
	const u64 *c = ctx->cnt;

	switch (f) {
	case SIB_PMA_PC_RCV_ERR:
		return c[SIB_SMA_SRC_RCV_HDR] + c[SIB_SMA_SRC_RCV_ICRC] +
		       c[SIB_SMA_SRC_RCV_LRH] + c[SIB_SMA_SRC_RCV_VCRC] +
		       c[SIB_SMA_SRC_RCV_DLID] + c[SIB_SMA_SRC_RCV_VL];
	case SIB_PMA_PC_XMIT_DISCARD:
		return c[SIB_SMA_SRC_XMIT_STATE] + c[SIB_SMA_SRC_XMIT_ERR];
	case SIB_PMA_PC_XMIT_CONSTRAINT:
		return c[SIB_SMA_SRC_XMIT_PKEY];
	case SIB_PMA_PC_RCV_CONSTRAINT:
		return c[SIB_SMA_SRC_RCV_PKEY];
	case SIB_PMA_PC_XMIT_DATA:
		return c[SIB_SMA_SRC_XMIT_BYTES] / 4;
	case SIB_PMA_PC_RCV_DATA:
		return c[SIB_SMA_SRC_RCV_BYTES] / 4;
	case SIB_PMA_PC_XMIT_PKTS:
		return c[SIB_SMA_SRC_XMIT_PKTS];
	case SIB_PMA_PC_RCV_PKTS:
		return c[SIB_SMA_SRC_RCV_PKTS];
	case SIB_PMA_PC_VL15_DROPPED:
		return c[SIB_SMA_SRC_VL15_DROPPED];
	default:	/* physical layer, link: nothing counts them */
		return 0;
	}
}

static u64 sib_pma_pcx_raw(const struct sib_sma_ctx *ctx, enum sib_pma_pcx f)
{
	const u64 *c = ctx->cnt;

	switch (f) {
	case SIB_PMA_PCX_XMIT_DATA:
		return c[SIB_SMA_SRC_XMIT_BYTES] / 4;
	case SIB_PMA_PCX_RCV_DATA:
		return c[SIB_SMA_SRC_RCV_BYTES] / 4;
	case SIB_PMA_PCX_XMIT_PKTS:
	case SIB_PMA_PCX_UNI_XMIT:	/* multicast sends are not told apart */
		return c[SIB_SMA_SRC_XMIT_PKTS];
	case SIB_PMA_PCX_RCV_PKTS:
		return c[SIB_SMA_SRC_RCV_PKTS];
	case SIB_PMA_PCX_UNI_RCV:
		return sib_sma_since(c[SIB_SMA_SRC_RCV_PKTS],
				     c[SIB_SMA_SRC_RCV_MCAST]);
	case SIB_PMA_PCX_MULTI_RCV:
		return c[SIB_SMA_SRC_RCV_MCAST];
	default:
		return 0;
	}
}

/* PortCounters field widths (IBTA 16.1.3.5): each stops at all ones */
static const u8 sib_pma_pc_bits[SIB_PMA_NUM_PC] = {
	[SIB_PMA_PC_SYMBOL_ERR] = 16,	[SIB_PMA_PC_LINK_RECOVERY] = 8,
	[SIB_PMA_PC_LINK_DOWNED] = 8,	[SIB_PMA_PC_RCV_ERR] = 16,
	[SIB_PMA_PC_RCV_REMPHYS] = 16,	[SIB_PMA_PC_RCV_SW_RELAY] = 16,
	[SIB_PMA_PC_XMIT_DISCARD] = 16, [SIB_PMA_PC_XMIT_CONSTRAINT] = 8,
	[SIB_PMA_PC_RCV_CONSTRAINT] = 8, [SIB_PMA_PC_LOCAL_INTEGRITY] = 4,
	[SIB_PMA_PC_BUF_OVERRUN] = 4,	[SIB_PMA_PC_VL15_DROPPED] = 16,
	[SIB_PMA_PC_XMIT_DATA] = 32,	[SIB_PMA_PC_RCV_DATA] = 32,
	[SIB_PMA_PC_XMIT_PKTS] = 32,	[SIB_PMA_PC_RCV_PKTS] = 32,
};

static u64 sib_pma_pc_val(const struct sib_sma_ctx *ctx,
			  const struct sib_sma_port *s, enum sib_pma_pc f)
{
	return sib_sma_sat(sib_sma_since(sib_pma_pc_raw(ctx, f), s->pc_base[f]),
			   BIT_ULL(sib_pma_pc_bits[f]) - 1);
}

static void sib_pma_port_counters(const struct sib_sma_ctx *ctx,
				  struct sib_ib_port *p, u8 *data, bool set)
{
	struct ib_pma_portcounters *pc = (void *)data;
	u16 sel = be16_to_cpu(pc->counter_select);
	struct sib_sma_port *s = &p->sma;
	unsigned int f;

	for (f = 0; set && f < SIB_PMA_NUM_PC; f++)
		if (sel & BIT(f))
			s->pc_base[f] = sib_pma_pc_raw(ctx, f);
	pc->symbol_error_counter =
		cpu_to_be16(sib_pma_pc_val(ctx, s, SIB_PMA_PC_SYMBOL_ERR));
	pc->link_error_recovery_counter =
		sib_pma_pc_val(ctx, s, SIB_PMA_PC_LINK_RECOVERY);
	pc->link_downed_counter = sib_pma_pc_val(ctx, s, SIB_PMA_PC_LINK_DOWNED);
	pc->port_rcv_errors = cpu_to_be16(sib_pma_pc_val(ctx, s, SIB_PMA_PC_RCV_ERR));
	pc->port_rcv_remphys_errors =
		cpu_to_be16(sib_pma_pc_val(ctx, s, SIB_PMA_PC_RCV_REMPHYS));
	pc->port_rcv_switch_relay_errors =
		cpu_to_be16(sib_pma_pc_val(ctx, s, SIB_PMA_PC_RCV_SW_RELAY));
	pc->port_xmit_discards =
		cpu_to_be16(sib_pma_pc_val(ctx, s, SIB_PMA_PC_XMIT_DISCARD));
	pc->port_xmit_constraint_errors =
		sib_pma_pc_val(ctx, s, SIB_PMA_PC_XMIT_CONSTRAINT);
	pc->port_rcv_constraint_errors =
		sib_pma_pc_val(ctx, s, SIB_PMA_PC_RCV_CONSTRAINT);
	pc->link_overrun_errors =
		sib_pma_pc_val(ctx, s, SIB_PMA_PC_LOCAL_INTEGRITY) << 4 |
		sib_pma_pc_val(ctx, s, SIB_PMA_PC_BUF_OVERRUN);
	pc->vl15_dropped = cpu_to_be16(sib_pma_pc_val(ctx, s, SIB_PMA_PC_VL15_DROPPED));
	pc->port_xmit_data = cpu_to_be32(sib_pma_pc_val(ctx, s, SIB_PMA_PC_XMIT_DATA));
	pc->port_rcv_data = cpu_to_be32(sib_pma_pc_val(ctx, s, SIB_PMA_PC_RCV_DATA));
	pc->port_xmit_packets =
		cpu_to_be32(sib_pma_pc_val(ctx, s, SIB_PMA_PC_XMIT_PKTS));
	pc->port_rcv_packets = cpu_to_be32(sib_pma_pc_val(ctx, s, SIB_PMA_PC_RCV_PKTS));
	pc->port_xmit_wait = 0;
}

static void sib_pma_port_counters_ext(const struct sib_sma_ctx *ctx,
				      struct sib_ib_port *p, u8 *data, bool set)
{
	struct ib_pma_portcounters_ext *pcx = (void *)data;
	u16 sel = be16_to_cpu(pcx->counter_select);
	struct sib_sma_port *s = &p->sma;
	__be64 *val = &pcx->port_xmit_data;
	unsigned int f;

	for (f = 0; f < SIB_PMA_NUM_PCX; f++) {
		if (set && (sel & BIT(f)))
			s->pcx_base[f] = sib_pma_pcx_raw(ctx, f);
		val[f] = cpu_to_be64(sib_sma_since(sib_pma_pcx_raw(ctx, f),
						   s->pcx_base[f]));
	}
}

/* the PMA (IBTA 16.1): ClassPortInfo, PortCounters, PortCountersExtended */
static int sib_sma_pma(struct sib_sma_ctx *ctx, struct sib_ib_port *p,
		       struct ib_mad *mad)
{
	struct ib_mad_hdr *hdr = &mad->mad_hdr;
	bool set = hdr->method == IB_MGMT_METHOD_SET;
	u8 *data = (u8 *)mad + SIB_PMA_DATA_OFF;
	struct ib_class_port_info *cpi = (void *)data;
	u16 status = 0;
	u8 port_select = data[1];

	if (hdr->method != IB_MGMT_METHOD_GET && !set)
		return IB_MAD_RESULT_SUCCESS;
	if (hdr->class_version != SIB_SMA_CLASS_VERSION) {
		status = SIB_SMA_STATUS_BAD_VERSION;
		goto reply;
	}
	switch (hdr->attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		if (set) {
			status = SIB_SMA_STATUS_UNSUP_ATTR;
			break;
		}
		memset(data, 0, sizeof(*mad) - SIB_PMA_DATA_OFF);
		cpi->base_version = IB_MGMT_BASE_VERSION;
		cpi->class_version = SIB_SMA_CLASS_VERSION;
		cpi->capability_mask = IB_PMA_CLASS_CAP_ALLPORTSELECT |
				       IB_PMA_CLASS_CAP_EXT_WIDTH;
		ib_set_cpi_resp_time(cpi, SIB_PMA_RESP_TIME);
		break;
	case IB_PMA_PORT_COUNTERS:
	case IB_PMA_PORT_COUNTERS_EXT:
		/*
		 * one port: AllPortSelect (0xff) is that port, and so is 0,
		 * what perfquery sends when no port is named (ConnectX
		 * answers it for the port the MAD came in on)
		 */
		if (port_select != ctx->port_num && port_select != 0xff &&
		    port_select) {
			status = SIB_SMA_STATUS_INVALID;
			break;
		}
		if (hdr->attr_id == IB_PMA_PORT_COUNTERS)
			sib_pma_port_counters(ctx, p, data, set);
		else
			sib_pma_port_counters_ext(ctx, p, data, set);
		break;
	default:
		status = SIB_SMA_STATUS_UNSUP_ATTR;
	}
reply:
	hdr->method = IB_MGMT_METHOD_GET_RESP;
	hdr->status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/**
 * sib_sma_process() - the SMA and the PMA of one port, without a device
 * @ctx: the device's state the agents read (filled by the caller) and,
 *	 on return, what the caller must do: @ctx->new_state through
 *	 sib_ib_set_state(), @ctx->new_phys through sib_ib_set_phys(),
 *	 @ctx->pkey_block into the P_Key table,
 *	 @ctx->events, @ctx->mkey_violation into the counters
 * @p: the port; SubnSet writes its fields (LID, LMC, SM LID/SL, M_Key,
 *     NeighborMTU, SL2VL, ...), a PMA Set its counter bases
 * @in: the MAD as received (any content: it comes from the wire)
 * @out: the reply, written only when the return has IB_MAD_RESULT_REPLY
 *
 * Answers SubnGet/SubnSet (IBTA 14.2.5: NodeDescription, NodeInfo,
 * PortInfo, P_KeyTable, GUIDInfo, SLtoVLMappingTable,
 * VLArbitrationTable) with the M_Key check of 14.2.4.1, and PerfMgt Get/
 * Set (16.1.3: ClassPortInfo, PortCounters, PortCountersExtended).
 * Statuses (13.4.7): bad class version, unsupported attribute (or Set of
 * a read-only one), invalid attribute modifier or field (a PortInfo Set
 * with one bad field changes nothing).
 *
 * Context: any; @p->lock held (taken with interrupts off), does not
 * sleep.
 * Return: IB_MAD_RESULT_SUCCESS|REPLY (reply in @out),
 * IB_MAD_RESULT_SUCCESS|CONSUMED (dropped: M_Key violation), or
 * IB_MAD_RESULT_SUCCESS (not the agents': ib_mad passes it on).
 */
int sib_sma_process(struct sib_sma_ctx *ctx, struct sib_ib_port *p,
		    const struct ib_mad *in, struct ib_mad *out)
{
	ctx->new_state = 0;
	ctx->new_phys = 0;
	ctx->pkey_block = -1;
	ctx->events = 0;
	ctx->mkey_violation = false;
	if (in->mad_hdr.base_version != IB_MGMT_BASE_VERSION)
		return IB_MAD_RESULT_SUCCESS;

	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		memcpy(out, in, sizeof(*out));
		return sib_sma_smp(ctx, p, (struct ib_smp *)out);
	case IB_MGMT_CLASS_PERF_MGMT:
		memcpy(out, in, sizeof(*out));
		return sib_sma_pma(ctx, p, out);
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
}

/* the device's state for the core; @ctx->pkey and @ctx->cnt included */
static void sib_sma_gather(struct sib_dev *dev, u32 port, int mad_flags,
			   struct sib_sma_ctx *ctx)
{
	static const enum sib_counter src[SIB_SMA_NUM_SRC] = {
#define SIB_SMA_SRC_CNT(id, cnt) [SIB_SMA_SRC_##id] = cnt,
		SIB_SMA_SRC_LIST(SIB_SMA_SRC_CNT)
#undef SIB_SMA_SRC_CNT
	};
	unsigned int i;

	ctx->node_guid = dev->ibdev.node_guid;
	ctx->sys_image_guid = dev->ibdev.attrs.sys_image_guid ?: dev->ibdev.node_guid;
	ctx->node_desc = dev->ibdev.node_desc;
	ctx->vendor_id = SIB_VENDOR_ID;
	ctx->device_id = SIB_VENDOR_PART_ID;
	ctx->revision = SIB_HW_VER;
	ctx->port_num = port;
	ctx->mtu_cap = sib_ib_mtu_cap(dev);
	ctx->ignore_mkey = mad_flags & IB_MAD_IGNORE_MKEY;
	ctx->now_s = ktime_get_boottime_seconds();
	for (i = 0; i < SIB_MAX_PKEYS; i++)
		ctx->pkey[i] = sib_pkey_at(&dev->pkey, i);
	for (i = 0; i < SIB_SMA_NUM_SRC; i++)
		ctx->cnt[i] = sib_counter_read(dev, src[i]);
}

/*
 * write a P_KeyTable block the SM sent: first free the entries that
 * change (a P_Key may move inside the block), then set the new ones;
 * invalid P_Keys (partition 0) empty their entry
 */
static int sib_sma_write_pkeys(struct sib_dev *dev, struct sib_sma_ctx *ctx)
{
	unsigned int i, base = ctx->pkey_block * SIB_SMA_PKEY_BLOCK;
	int err, ret = 0;
	u16 v;

	for (i = 0; i < SIB_SMA_PKEY_BLOCK; i++)
		if (ctx->new_pkeys[i] != ctx->pkey[base + i] &&
		    sib_pkey_valid(ctx->pkey[base + i]))
			sib_pkey_del(&dev->pkey, base + i);
	for (i = 0; i < SIB_SMA_PKEY_BLOCK; i++) {
		v = ctx->new_pkeys[i];
		if (!sib_pkey_valid(v) || v == ctx->pkey[base + i])
			continue;
		err = sib_pkey_set(&dev->pkey, base + i, v);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/* after the core: what it asked for, outside the port's lock */
static void sib_sma_apply(struct sib_dev *dev, struct sib_sma_ctx *ctx,
			  struct ib_mad *out)
{
	struct ib_smp *smp = (struct ib_smp *)out;
	__be16 *wire = (__be16 *)smp->data;
	unsigned int i;
	int ev;

	if (ctx->mkey_violation)
		sib_counter_inc(dev, SIB_CNT_IB_MKEY_VIOLATIONS);
	if (ctx->pkey_block >= 0) {
		if (sib_sma_write_pkeys(dev, ctx)) {
			sib_warn_rl(dev, "P_KeyTable block %d: not all written\n",
				    ctx->pkey_block);
			smp->status |= cpu_to_be16(SIB_SMA_STATUS_INVALID);
		}
		for (i = 0; i < SIB_SMA_PKEY_BLOCK; i++)
			wire[i] = cpu_to_be16(sib_pkey_at(&dev->pkey,
				ctx->pkey_block * SIB_SMA_PKEY_BLOCK + i));
	}
	if (ctx->new_state && sib_ib_set_state(dev, ctx->new_state)) {
		/* the state changed since the check (the link went down) */
		smp->status |= cpu_to_be16(SIB_SMA_STATUS_INVALID);
		smp->data[offsetof(struct ib_port_info, linkspeed_portstate)] =
			SIB_SMA_SPEED_SUPPORTED << 4 | sib_ib_state(dev);
	}
	/* after the logical state: Disabled wins over a state in the Set */
	if (ctx->new_phys)
		sib_ib_set_phys(dev, ctx->new_phys);
	for (ev = 0; ev < 32; ev++)
		if (ctx->events & BIT(ev))
			sib_ib_port_event(dev, ev);
}

/**
 * sib_process_mad() - ib_device_ops.process_mad of a softib-ib device
 * @ibdev: the device
 * @mad_flags: IB_MAD_IGNORE_MKEY or 0
 * @port: port the MAD arrived on (1)
 * @in_wc: its work completion (unused: one port, the reply goes back the
 *	   way ib_mad knows)
 * @in_grh: its GRH, or NULL (unused)
 * @in: the MAD
 * @out: the reply
 * @out_mad_size: size of @out (an IB MAD: unchanged)
 * @out_mad_pkey_index: unused (OPA only)
 *
 * Gathers the port's state, runs sib_sma_process() under the port's
 * lock, then applies what it asked for: the logical state through
 * sib_ib_set_state(), the physical state (Disabled, Polling: IBTA
 * 14.2.5.6 PortPhysicalState) through sib_ib_set_phys(), a P_KeyTable block into the P_Key table that the
 * data path enforces (pkey.c), the events LID_CHANGE, SM_CHANGE,
 * GID_CHANGE, PKEY_CHANGE and CLIENT_REREGISTER through
 * sib_ib_port_event(), an M_Key violation into mkey_violations.
 *
 * Context: process (ib_mad's receive work, or the sender of a local
 * directed-route SMP); sleeps (the P_Key table's mutex).
 * Return: IB_MAD_RESULT_* flags as sib_sma_process(); IB_MAD_RESULT_SUCCESS
 * alone on a RoCE device.
 */
int sib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct sib_dev *dev = to_sib_dev(ibdev);
	struct sib_ib_port *p = dev->ib;
	struct sib_sma_ctx *ctx;
	unsigned long flags;
	int ret;

	if (!sib_is_ib(dev) || port != 1)
		return IB_MAD_RESULT_SUCCESS;
	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
	case IB_MGMT_CLASS_PERF_MGMT:
		break;
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return IB_MAD_RESULT_FAILURE;
	sib_sma_gather(dev, port, mad_flags, ctx);
	spin_lock_irqsave(&p->lock, flags);
	ret = sib_sma_process(ctx, p, in, out);
	spin_unlock_irqrestore(&p->lock, flags);
	if (ret & IB_MAD_RESULT_REPLY || ctx->mkey_violation)
		sib_sma_apply(dev, ctx, out);
	kfree(ctx);
	return ret;
}
