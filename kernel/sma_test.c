// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: KUnit tests of the SMA and PMA core, sib_sma_process(), on a
 * port without a device: every attribute's Get, PortInfo Sets (the
 * logical state INIT -> ARMED -> ACTIVE, an illegal transition, LID/LMC,
 * PortPhysicalState Disabled and Polling), ibport.c's rules on the bare
 * port (ARMED -> ACTIVE on a data packet, the operational data VLs),
 * a P_Key block, M_Key violations, PortCounters saturation and clear,
 * and the MAD statuses of bad requests.
 */
#include <kunit/test.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_pma.h>

#include "compat.h"
#include "softib.h"
#include "ib.h"
#include "sma.h"

#define SIB_ST_NODE_GUID	cpu_to_be64(0x0200aa2000bbccddULL)
#define SIB_ST_PORT_GUID	cpu_to_be64(0x0200aa4000bbccddULL)

struct sib_st {
	struct sib_ib_port *p;
	struct sib_sma_ctx *ctx;
	struct ib_mad *in, *out;
};

static struct sib_st *sib_st_new(struct kunit *test)
{
	struct sib_st *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->p = kunit_kzalloc(test, sizeof(*t->p), GFP_KERNEL);
	t->ctx = kunit_kzalloc(test, sizeof(*t->ctx), GFP_KERNEL);
	t->in = kunit_kzalloc(test, sizeof(*t->in), GFP_KERNEL);
	t->out = kunit_kzalloc(test, sizeof(*t->out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->p);
	KUNIT_ASSERT_NOT_NULL(test, t->ctx);
	KUNIT_ASSERT_NOT_NULL(test, t->in);
	KUNIT_ASSERT_NOT_NULL(test, t->out);
	spin_lock_init(&t->p->lock);
	t->p->port_guid = SIB_ST_PORT_GUID;
	t->p->subnet_prefix = cpu_to_be64(SIB_IB_DEFAULT_PREFIX);
	t->p->state = IB_PORT_INIT;
	t->p->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	t->p->neighbor_mtu = IB_MTU_2048;
	t->ctx->node_guid = SIB_ST_NODE_GUID;
	t->ctx->sys_image_guid = SIB_ST_NODE_GUID;
	t->ctx->node_desc = "softib test node";
	t->ctx->vendor_id = 0xffffff;
	t->ctx->device_id = 0x51b0;
	t->ctx->revision = 1;
	t->ctx->port_num = 1;
	t->ctx->mtu_cap = IB_MTU_2048;
	t->ctx->pkey[0] = 0xffff;
	return t;
}

static struct ib_smp *sib_st_smp(struct sib_st *t, u8 mclass, u8 method,
				 __be16 attr, u32 mod)
{
	struct ib_smp *smp = (struct ib_smp *)t->in;

	memset(t->in, 0, sizeof(*t->in));
	smp->base_version = 1;
	smp->mgmt_class = mclass;
	smp->class_version = 1;
	smp->method = method;
	smp->attr_id = attr;
	smp->attr_mod = cpu_to_be32(mod);
	smp->tid = cpu_to_be64(0x1234);
	return smp;
}

static int sib_st_run(struct sib_st *t)
{
	int ret;

	memset(t->out, 0xa5, sizeof(*t->out));
	spin_lock_bh(&t->p->lock);
	ret = sib_sma_process(t->ctx, t->p, t->in, t->out);
	spin_unlock_bh(&t->p->lock);
	return ret;
}

#define SIB_ST_REPLY	(IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY)

static struct ib_smp *sib_st_out(struct sib_st *t)
{
	return (struct ib_smp *)t->out;
}

static struct ib_port_info *sib_st_pi(struct sib_st *t)
{
	return (struct ib_port_info *)sib_st_out(t)->data;
}

/* a PortInfo Set made of the port's current PortInfo (as opensm does) */
static struct ib_port_info *sib_st_pi_set(struct kunit *test, struct sib_st *t)
{
	struct ib_smp *smp;

	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_PORT_INFO, 1);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
			 IB_SMP_ATTR_PORT_INFO, 1);
	memcpy(smp->data, sib_st_out(t)->data, sizeof(smp->data));
	/* PortState and PortPhysicalState: no change */
	smp->data[offsetof(struct ib_port_info, linkspeed_portstate)] &= 0xf0;
	smp->data[offsetof(struct ib_port_info, portphysstate_linkdown)] &= 0x0f;
	return (struct ib_port_info *)smp->data;
}

static void sib_sma_test_node_info(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_smp *out;
	u8 *d;

	sib_st_smp(t, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	out = sib_st_out(t);
	d = out->data;
	KUNIT_EXPECT_EQ(test, out->method, IB_MGMT_METHOD_GET_RESP);
	/* directed route: the direction bit, status 0 */
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->status), 0x8000);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(out->tid), 0x1234);
	KUNIT_EXPECT_EQ(test, d[0], 1);		/* BaseVersion */
	KUNIT_EXPECT_EQ(test, d[1], 1);		/* ClassVersion */
	KUNIT_EXPECT_EQ(test, d[2], 1);		/* NodeType: CA */
	KUNIT_EXPECT_EQ(test, d[3], 1);		/* NumPorts */
	KUNIT_EXPECT_EQ(test, get_unaligned((__be64 *)(d + 4)), SIB_ST_NODE_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned((__be64 *)(d + 12)), SIB_ST_NODE_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned((__be64 *)(d + 20)), SIB_ST_PORT_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 28), SIB_MAX_PKEYS);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(d + 30), 0x51b0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(d + 32), 1);
	KUNIT_EXPECT_EQ(test, d[36], 1);	/* LocalPortNum */
	KUNIT_EXPECT_EQ(test, d[37], 0xff);

	/* a modifier, a Set: statuses (LID routed: no direction bit) */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_NODE_INFO, 3);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
		   IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x000c);
}

static void sib_sma_test_node_desc(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);

	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_NODE_DESC, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_STREQ(test, (char *)sib_st_out(t)->data, "softib test node");
}

static void sib_sma_test_port_info_get(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_port_info *pi;

	t->p->lid = 5;
	t->p->sm_lid = 1;
	t->p->lmc = 2;
	t->p->cap_mask = IB_PORT_SM;
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_PORT_INFO, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	pi = sib_st_pi(t);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pi->gid_prefix), SIB_IB_DEFAULT_PREFIX);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->lid), 5);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pi->sm_lid), 1);
	KUNIT_EXPECT_TRUE(test, be32_to_cpu(pi->cap_mask) & IB_PORT_SM);
	KUNIT_EXPECT_TRUE(test, be32_to_cpu(pi->cap_mask) & IB_PORT_SL_MAP_SUP);
	KUNIT_EXPECT_FALSE(test, be32_to_cpu(pi->cap_mask) & IB_PORT_TRAP_SUP);
	KUNIT_EXPECT_EQ(test, pi->local_port_num, 1);
	KUNIT_EXPECT_EQ(test, pi->link_width_active, 2);	/* 4X */
	KUNIT_EXPECT_EQ(test, pi->linkspeedactive_enabled >> 4, 4);	/* QDR */
	KUNIT_EXPECT_EQ(test, pi->linkspeed_portstate & 0xf, IB_PORT_INIT);
	KUNIT_EXPECT_EQ(test, pi->portphysstate_linkdown >> 4,
			IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, pi->mkeyprot_resv_lmc & 7, 2);
	KUNIT_EXPECT_EQ(test, pi->neighbormtu_mastersmsl >> 4, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, pi->vlcap_inittype >> 4, 1);	/* VL0 */
	KUNIT_EXPECT_EQ(test, pi->inittypereply_mtucap & 0xf, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, pi->operationalvl_pei_peo_fpi_fpo, 0x1c);
	KUNIT_EXPECT_EQ(test, pi->guid_cap, 1);

	/* a modifier naming another port */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_PORT_INFO, 2);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
}

static void sib_sma_test_port_state_walk(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_port_info *pi;

	/* INIT -> ACTIVE is illegal: invalid field, nothing changes */
	pi = sib_st_pi_set(test, t);
	pi->linkspeed_portstate |= IB_PORT_ACTIVE;
	pi->lid = cpu_to_be16(9);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_EQ(test, t->ctx->new_state, 0);
	KUNIT_EXPECT_EQ(test, t->p->lid, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->events, 0);

	/* INIT -> ARMED */
	pi = sib_st_pi_set(test, t);
	pi->linkspeed_portstate |= IB_PORT_ARMED;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->new_state, IB_PORT_ARMED);
	KUNIT_EXPECT_EQ(test, sib_st_pi(t)->linkspeed_portstate & 0xf,
			IB_PORT_ARMED);
	t->p->state = IB_PORT_ARMED;	/* what sib_ib_set_state() does */

	/* ARMED -> ACTIVE */
	pi = sib_st_pi_set(test, t);
	pi->linkspeed_portstate |= IB_PORT_ACTIVE;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->new_state, IB_PORT_ACTIVE);
	t->p->state = IB_PORT_ACTIVE;

	/* a NOP keeps it; INIT cannot be written; DOWN always can */
	pi = sib_st_pi_set(test, t);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, t->ctx->new_state, 0);
	KUNIT_EXPECT_EQ(test, sib_st_pi(t)->linkspeed_portstate & 0xf,
			IB_PORT_ACTIVE);
	pi = sib_st_pi_set(test, t);
	pi->linkspeed_portstate |= IB_PORT_INIT;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	pi = sib_st_pi_set(test, t);
	pi->linkspeed_portstate |= IB_PORT_DOWN;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->new_state, IB_PORT_DOWN);
	/* PortPhysicalState: the states an SM cannot write */
	pi = sib_st_pi_set(test, t);
	pi->portphysstate_linkdown |= IB_PORT_PHYS_STATE_LINK_UP << 4;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_EQ(test, t->ctx->new_phys, 0);
	pi = sib_st_pi_set(test, t);
	pi->portphysstate_linkdown |= IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING << 4;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
}

/* lock held as sib_process_mad() and the receive path take it */
static u32 sib_st_set_phys(struct sib_st *t, u8 phys)
{
	u32 ev;

	spin_lock_bh(&t->p->lock);
	ev = sib_ib_port_set_phys(t->p, phys);
	spin_unlock_bh(&t->p->lock);
	return ev;
}

static u32 sib_st_data_rcvd(struct sib_st *t)
{
	u32 ev;

	spin_lock_bh(&t->p->lock);
	ev = sib_ib_port_data_rcvd(t->p);
	spin_unlock_bh(&t->p->lock);
	return ev;
}

/*
 * PortPhysicalState Disabled (3) and Polling (2) as ibportstate's
 * disable and enable send them (the whole PortInfo, PortState NOP)
 */
static void sib_sma_test_phys_disable(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_port_info *pi;

	t->p->state = IB_PORT_ACTIVE;
	t->p->lid = 2;
	pi = sib_st_pi_set(test, t);
	pi->portphysstate_linkdown |= IB_PORT_PHYS_STATE_DISABLED << 4;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->new_phys, IB_PORT_PHYS_STATE_DISABLED);
	KUNIT_EXPECT_EQ(test, t->ctx->new_state, 0);
	/* the reply shows Disabled and Down */
	KUNIT_EXPECT_EQ(test, sib_st_pi(t)->portphysstate_linkdown >> 4,
			IB_PORT_PHYS_STATE_DISABLED);
	KUNIT_EXPECT_EQ(test, sib_st_pi(t)->linkspeed_portstate & 0xf,
			IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, t->p->lid, 2);

	/* what sib_ib_set_phys() then does: DOWN, PORT_ERR (was ACTIVE) */
	KUNIT_EXPECT_EQ(test, sib_st_set_phys(t, IB_PORT_PHYS_STATE_DISABLED),
			(u32)BIT(IB_EVENT_PORT_ERR));
	KUNIT_EXPECT_EQ(test, t->p->state, IB_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, t->p->phys_state, IB_PORT_PHYS_STATE_DISABLED);
	/* again: no second event */
	KUNIT_EXPECT_EQ(test, sib_st_set_phys(t, IB_PORT_PHYS_STATE_DISABLED), 0);

	/* a Disabled port cannot be armed */
	pi = sib_st_pi_set(test, t);
	pi->linkspeed_portstate |= IB_PORT_ARMED;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);

	/* enable: Polling, still DOWN until the cable hears the partner */
	pi = sib_st_pi_set(test, t);
	pi->portphysstate_linkdown |= IB_PORT_PHYS_STATE_POLLING << 4;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->new_phys, IB_PORT_PHYS_STATE_POLLING);
	KUNIT_EXPECT_EQ(test, sib_st_set_phys(t, IB_PORT_PHYS_STATE_POLLING), 0);
	KUNIT_EXPECT_EQ(test, t->p->phys_state, IB_PORT_PHYS_STATE_POLLING);
	KUNIT_EXPECT_EQ(test, t->p->state, IB_PORT_DOWN);

	/* Polling on a port whose link is up changes nothing */
	t->p->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	t->p->state = IB_PORT_INIT;
	KUNIT_EXPECT_EQ(test, sib_st_set_phys(t, IB_PORT_PHYS_STATE_POLLING), 0);
	KUNIT_EXPECT_EQ(test, t->p->phys_state, IB_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, t->p->state, IB_PORT_INIT);
	/* disabling an INIT port raises no event */
	KUNIT_EXPECT_EQ(test, sib_st_set_phys(t, IB_PORT_PHYS_STATE_DISABLED), 0);
	KUNIT_EXPECT_EQ(test, t->p->state, IB_PORT_DOWN);
}

/* IBTA 7.2.6: an ARMED port goes ACTIVE on a data packet; others stay */
static void sib_sma_test_armed_data(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	static const enum ib_port_state stay[] = {
		IB_PORT_DOWN, IB_PORT_INIT, IB_PORT_ACTIVE,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stay); i++) {
		t->p->state = stay[i];
		KUNIT_EXPECT_EQ(test, sib_st_data_rcvd(t), 0);
		KUNIT_EXPECT_EQ(test, t->p->state, stay[i]);
	}
	t->p->state = IB_PORT_ARMED;
	KUNIT_EXPECT_EQ(test, sib_st_data_rcvd(t),
			(u32)BIT(IB_EVENT_PORT_ACTIVE));
	KUNIT_EXPECT_EQ(test, t->p->state, IB_PORT_ACTIVE);
	/* the second packet: already ACTIVE, no event */
	KUNIT_EXPECT_EQ(test, sib_st_data_rcvd(t), 0);
}

/* OperationalVLs / VLCap codes and the data VLs a port takes */
static void sib_sma_test_vls(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	static const unsigned int n[] = { 1, 1, 2, 4, 8, 15, 1, 1 };
	struct ib_port_info *pi;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n); i++)
		KUNIT_EXPECT_EQ(test, sib_ib_port_vls(i), n[i]);
	/* a new port (OperationalVLs 0: VL0) and VLCap 1: VL0 alone */
	KUNIT_EXPECT_TRUE(test, sib_ib_port_vl_ok(t->p, 0));
	for (i = 1; i < SIB_IB_VL_SMP; i++)
		KUNIT_EXPECT_FALSE(test, sib_ib_port_vl_ok(t->p, i));
	/* the SM cannot set more VLs than VLCap */
	pi = sib_st_pi_set(test, t);
	pi->operationalvl_pei_peo_fpi_fpo =
		(pi->operationalvl_pei_peo_fpi_fpo & 0x0f) | 2 << 4;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_FALSE(test, sib_ib_port_vl_ok(t->p, 1));
	/* the rule follows OperationalVLs (VL0-3) */
	t->p->sma.op_vls = 3;
	KUNIT_EXPECT_TRUE(test, sib_ib_port_vl_ok(t->p, 3));
	KUNIT_EXPECT_FALSE(test, sib_ib_port_vl_ok(t->p, 4));
}

static void sib_sma_test_lid_lmc(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_port_info *pi;

	pi = sib_st_pi_set(test, t);
	pi->lid = cpu_to_be16(0x20);
	pi->sm_lid = cpu_to_be16(0x1);
	pi->mkeyprot_resv_lmc = 3;
	pi->neighbormtu_mastersmsl = IB_MTU_1024 << 4 | 5;
	pi->clientrereg_resv_subnetto = 0x80 | 18;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->p->lid, 0x20);
	KUNIT_EXPECT_EQ(test, t->p->lmc, 3);
	KUNIT_EXPECT_EQ(test, t->p->sm_lid, 1);
	KUNIT_EXPECT_EQ(test, t->p->sm_sl, 5);
	KUNIT_EXPECT_EQ(test, t->p->neighbor_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, t->p->subnet_timeout, 18);
	KUNIT_EXPECT_EQ(test, t->ctx->events,
			BIT(IB_EVENT_LID_CHANGE) | BIT(IB_EVENT_SM_CHANGE) |
			BIT(IB_EVENT_CLIENT_REREGISTER));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_pi(t)->lid), 0x20);

	/* the same values again: no event */
	pi = sib_st_pi_set(test, t);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, t->ctx->events, 0);

	/* NeighborMTU above MtuCap, a multicast LID: rejected, unchanged */
	pi = sib_st_pi_set(test, t);
	pi->neighbormtu_mastersmsl = IB_MTU_4096 << 4;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_EQ(test, t->p->neighbor_mtu, IB_MTU_1024);
	pi = sib_st_pi_set(test, t);
	pi->lid = cpu_to_be16(0xc001);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_EQ(test, t->p->lid, 0x20);
}

static void sib_sma_test_pkey(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_smp *smp;
	__be16 *w;

	t->ctx->pkey[33] = 0x8002;
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_PKEY_TABLE, 1);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	w = (__be16 *)sib_st_out(t)->data;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(w[0]), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(w[1]), 0x8002);
	/* a port number in bits 23:16 (a switch's; ibdiagnet sends it): ignored */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_PKEY_TABLE, 1 << 16 | 1);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	w = (__be16 *)sib_st_out(t)->data;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(w[1]), 0x8002);

	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
			 IB_SMP_ATTR_PKEY_TABLE, 0);
	w = (__be16 *)smp->data;
	w[0] = cpu_to_be16(0x7fff);
	w[1] = cpu_to_be16(0x8001);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->pkey_block, 0);
	KUNIT_EXPECT_EQ(test, t->ctx->new_pkeys[0], 0x7fff);
	KUNIT_EXPECT_EQ(test, t->ctx->new_pkeys[1], 0x8001);
	KUNIT_EXPECT_EQ(test, t->ctx->new_pkeys[2], 0);
	KUNIT_EXPECT_EQ(test, t->ctx->events, BIT(IB_EVENT_PKEY_CHANGE));

	/* 64 P_Keys: blocks 0 and 1 only */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_PKEY_TABLE, 2);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_EQ(test, t->ctx->pkey_block, -1);
}

static void sib_sma_test_guid_sl2vl_vlarb(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_smp *smp;

	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_GUID_INFO, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, get_unaligned((__be64 *)sib_st_out(t)->data),
			SIB_ST_PORT_GUID);
	KUNIT_EXPECT_EQ(test, get_unaligned((u64 *)(sib_st_out(t)->data + 8)), 0);
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_GUID_INFO, 1);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);

	/* SL2VL: VL0 and VL15 (drop) are the only VLs */
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
			 IB_SMP_ATTR_SL_TO_VL_TABLE, 0);
	smp->data[7] = 0x0f;		/* SL15 -> VL15 */
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, t->p->sl2vl[15], 15);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->data[7], 0x0f);
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
			 IB_SMP_ATTR_SL_TO_VL_TABLE, 0);
	smp->data[0] = 0x10;		/* SL0 -> VL1: beyond VLCap */
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
	KUNIT_EXPECT_EQ(test, t->p->sl2vl[0], 0);
	KUNIT_EXPECT_EQ(test, t->p->sl2vl[15], 15);
	/* input and output port in the modifier: a switch's, ignored */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_SL_TO_VL_TABLE, 0x0101);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->data[7], 0x0f);

	/* VLArbitration: block 3 (high, entries 0-31) stored and read back */
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
			 IB_SMP_ATTR_VL_ARB_TABLE, 3 << 16);
	smp->data[0] = 0;
	smp->data[1] = 64;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_VL_ARB_TABLE, 3 << 16);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->data[1], 64);
	/* a port number in bits 15:0 (a switch's): ignored */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_VL_ARB_TABLE, 3 << 16 | 1);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->status, 0);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->data[1], 64);
	/* the low-priority table is another one */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_VL_ARB_TABLE, 1 << 16);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_out(t)->data[1], 0);
	/* entries 32-63: beyond the capacity */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_VL_ARB_TABLE, 2 << 16);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x001c);
}

static void sib_sma_test_mkey(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_smp *smp;

	t->p->m_key = 0x1122334455667788ULL;
	t->p->mkey_prot = 2;
	/* protection 2: a Get with a wrong M_Key is dropped and counted */
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
			 IB_SMP_ATTR_PORT_INFO, 1);
	smp->mkey = cpu_to_be64(1);
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_TRUE(test, t->ctx->mkey_violation);
	KUNIT_EXPECT_EQ(test, t->p->mkey_violations, 1);
	/* the right M_Key */
	smp->mkey = cpu_to_be64(0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_FALSE(test, t->ctx->mkey_violation);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_pi(t)->mkey_violations), 1);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib_st_pi(t)->mkey),
			0x1122334455667788ULL);
	/* protection 1: the Get is answered, the M_Key reads 0 */
	t->p->mkey_prot = 1;
	smp->mkey = 0;
	KUNIT_EXPECT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, sib_st_pi(t)->mkey, 0);
	/* protection 0: a Set with a wrong M_Key is still dropped */
	t->p->mkey_prot = 0;
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_SET,
			 IB_SMP_ATTR_PKEY_TABLE, 0);
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, t->p->mkey_violations, 2);
	KUNIT_EXPECT_EQ(test, t->ctx->pkey_block, -1);
	/* IB_MAD_IGNORE_MKEY */
	t->ctx->ignore_mkey = true;
	KUNIT_EXPECT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
}

/* the M_Key lease (IBTA 14.2.4.2): run out after violations, stopped by the right key */
static void sib_sma_test_mkey_lease(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_smp *smp;

	t->p->m_key = 0x1122334455667788ULL;
	t->p->mkey_prot = 2;
	t->p->mkey_lease = 10;
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
			 IB_SMP_ATTR_PORT_INFO, 1);
	smp->mkey = cpu_to_be64(1);
	/* a violation at 100 s starts the lease: it runs out at 110 s */
	t->ctx->now_s = 100;
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, t->p->mkey_lease_end, 110);
	/* another one does not restart it */
	t->ctx->now_s = 109;
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, t->p->mkey_lease_end, 110);
	KUNIT_EXPECT_EQ(test, t->p->mkey_prot, 2);
	/* run out: protection 0, the Get is answered with the M_Key */
	t->ctx->now_s = 110;
	KUNIT_EXPECT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, t->p->mkey_prot, 0);
	KUNIT_EXPECT_EQ(test, t->p->mkey_lease_end, 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib_st_pi(t)->mkey),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, sib_st_pi(t)->mkeyprot_resv_lmc >> 6, 0);
	/* the right M_Key stops a running lease */
	t->p->mkey_prot = 2;
	t->ctx->now_s = 200;
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, t->p->mkey_lease_end, 210);
	smp->mkey = cpu_to_be64(0x1122334455667788ULL);
	t->ctx->now_s = 205;
	KUNIT_EXPECT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, t->p->mkey_lease_end, 0);
	smp->mkey = cpu_to_be64(1);
	t->ctx->now_s = 300;
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, t->p->mkey_prot, 2);
	/* lease 0: infinite, no timer */
	t->p->mkey_lease = 0;
	t->p->mkey_lease_end = 0;
	t->ctx->now_s = 400;
	KUNIT_EXPECT_EQ(test, sib_st_run(t),
			IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED);
	KUNIT_EXPECT_EQ(test, t->p->mkey_lease_end, 0);
}

static struct ib_pma_mad *sib_st_pma(struct sib_st *t, u8 method, __be16 attr,
				     u8 port_select, u16 select)
{
	struct ib_pma_mad *pma = (struct ib_pma_mad *)t->in;

	memset(t->in, 0, sizeof(*t->in));
	pma->mad_hdr.base_version = 1;
	pma->mad_hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	pma->mad_hdr.class_version = 1;
	pma->mad_hdr.method = method;
	pma->mad_hdr.attr_id = attr;
	pma->data[1] = port_select;
	put_unaligned_be16(select, pma->data + 2);
	return pma;
}

static void sib_sma_test_pma(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_pma_mad *out = (struct ib_pma_mad *)t->out;
	struct ib_pma_portcounters *pc = (void *)out->data;
	struct ib_pma_portcounters_ext *pcx = (void *)out->data;
	struct ib_class_port_info *cpi = (void *)out->data;

	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_CLASS_PORT_INFO, 0, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.status, 0);
	KUNIT_EXPECT_TRUE(test, !!(cpi->capability_mask & IB_PMA_CLASS_CAP_EXT_WIDTH));

	/* saturation: 32-bit data, 8-bit constraint errors */
	t->ctx->cnt[SIB_SMA_SRC_XMIT_BYTES] = 4 * 0x100000005ULL;
	t->ctx->cnt[SIB_SMA_SRC_RCV_BYTES] = 4000;
	t->ctx->cnt[SIB_SMA_SRC_XMIT_PKTS] = 10;
	t->ctx->cnt[SIB_SMA_SRC_RCV_PKTS] = 12;
	t->ctx->cnt[SIB_SMA_SRC_RCV_MCAST] = 2;
	t->ctx->cnt[SIB_SMA_SRC_RCV_PKEY] = 300;
	t->ctx->cnt[SIB_SMA_SRC_RCV_VCRC] = 3;
	t->ctx->cnt[SIB_SMA_SRC_RCV_LRH] = 4;
	t->ctx->cnt[SIB_SMA_SRC_VL15_DROPPED] = 5;
	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.status, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_xmit_data), 0xffffffffU);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_rcv_data), 1000);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_xmit_packets), 10);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pc->vl15_dropped), 5);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_rcv_packets), 12);
	KUNIT_EXPECT_EQ(test, pc->port_rcv_constraint_errors, 255);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(pc->port_rcv_errors), 7);

	/* clear PortXmitData only; the extended counter keeps counting */
	sib_st_pma(t, IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS, 1,
		   be16_to_cpu(IB_PMA_SEL_PORT_XMIT_DATA));
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_xmit_data), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_rcv_data), 1000);
	t->ctx->cnt[SIB_SMA_SRC_XMIT_BYTES] += 40;
	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 0xff, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_xmit_data), 10);

	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS_EXT, 1, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pcx->port_xmit_data), 0x10000000fULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pcx->port_unicast_rcv_packets), 10);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pcx->port_multicast_rcv_packets), 2);
	sib_st_pma(t, IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS_EXT, 1, 0xff);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pcx->port_xmit_data), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pcx->port_rcv_packets), 0);
	/* softib's own counters are not touched */
	KUNIT_EXPECT_EQ(test, t->ctx->cnt[SIB_SMA_SRC_RCV_PKTS], 12);

	/* PortSelect 0 (perfquery without a port): the port itself */
	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 0, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, out->mad_hdr.status, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(pc->port_rcv_data), 1000);

	/* another port, an unknown attribute */
	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 2, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->mad_hdr.status), 0x001c);
	sib_st_pma(t, IB_MGMT_METHOD_GET, IB_PMA_PORT_SAMPLES_CONTROL, 1, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(out->mad_hdr.status), 0x000c);
}

static void sib_sma_test_statuses(struct kunit *test)
{
	struct sib_st *t = sib_st_new(test);
	struct ib_smp *smp;

	/* an attribute a CA does not have */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_SWITCH_INFO, 0);
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x000c);
	/* a class version other than 1 */
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE, IB_MGMT_METHOD_GET,
			 IB_SMP_ATTR_NODE_INFO, 0);
	smp->class_version = 2;
	KUNIT_ASSERT_EQ(test, sib_st_run(t), SIB_ST_REPLY);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(sib_st_out(t)->status), 0x8004);
	/* not the SMA's: SMInfo, responses, other classes, base version */
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_SM_INFO, 0);
	KUNIT_EXPECT_EQ(test, sib_st_run(t), IB_MAD_RESULT_SUCCESS);
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE,
		   IB_MGMT_METHOD_GET_RESP, IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, sib_st_run(t), IB_MAD_RESULT_SUCCESS);
	sib_st_smp(t, IB_MGMT_CLASS_SUBN_ADM, IB_MGMT_METHOD_GET,
		   IB_SMP_ATTR_NODE_INFO, 0);
	KUNIT_EXPECT_EQ(test, sib_st_run(t), IB_MAD_RESULT_SUCCESS);
	smp = sib_st_smp(t, IB_MGMT_CLASS_SUBN_LID_ROUTED, IB_MGMT_METHOD_GET,
			 IB_SMP_ATTR_NODE_INFO, 0);
	smp->base_version = 2;
	KUNIT_EXPECT_EQ(test, sib_st_run(t), IB_MAD_RESULT_SUCCESS);
}

static struct kunit_case sib_sma_test_cases[] = {
	KUNIT_CASE(sib_sma_test_node_info),
	KUNIT_CASE(sib_sma_test_node_desc),
	KUNIT_CASE(sib_sma_test_port_info_get),
	KUNIT_CASE(sib_sma_test_port_state_walk),
	KUNIT_CASE(sib_sma_test_phys_disable),
	KUNIT_CASE(sib_sma_test_armed_data),
	KUNIT_CASE(sib_sma_test_vls),
	KUNIT_CASE(sib_sma_test_lid_lmc),
	KUNIT_CASE(sib_sma_test_pkey),
	KUNIT_CASE(sib_sma_test_guid_sl2vl_vlarb),
	KUNIT_CASE(sib_sma_test_mkey),
	KUNIT_CASE(sib_sma_test_mkey_lease),
	KUNIT_CASE(sib_sma_test_pma),
	KUNIT_CASE(sib_sma_test_statuses),
	{}
};

static struct kunit_suite sib_sma_test_suite = {
	.name = "softib-sma",
	.test_cases = sib_sma_test_cases,
};

kunit_test_suite(sib_sma_test_suite);
