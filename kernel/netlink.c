// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the generic netlink family "softib" (uapi: rdma/softib-netlink.h),
 * the run-time configuration interface of tools/sib-pkey, tools/sib-cc
 * and tools/sib-link (the cable of an IB device, cable.c). Commands that
 * change anything need CAP_NET_ADMIN (GENL_ADMIN_PERM); a device is found
 * by its RDMA name and must be visible from the caller's netns.
 */
#include <net/genetlink.h>
#include <rdma/softib-netlink.h>

#include "softib.h"
#include "netlink.h"
#include "ib.h"

static const struct nla_policy sib_nl_policy[SIB_NL_ATTR_MAX + 1] = {
	[SIB_NL_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				   .len = IB_DEVICE_NAME_MAX - 1 },
	[SIB_NL_ATTR_PORT] = { .type = NLA_U32 },
	[SIB_NL_ATTR_PKEY_INDEX] = { .type = NLA_U16 },
	[SIB_NL_ATTR_PKEY] = { .type = NLA_U16 },
	[SIB_NL_ATTR_CC_NAME] = { .type = NLA_NUL_STRING, .len = 63 },
	[SIB_NL_ATTR_CC_VALUE] = { .type = NLA_U32 },
	[SIB_NL_ATTR_CABLE_PEER4] = NLA_POLICY_EXACT_LEN(4),
	[SIB_NL_ATTR_CABLE_PEER6] = NLA_POLICY_EXACT_LEN(16),
	[SIB_NL_ATTR_CABLE_PEER_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[SIB_NL_ATTR_CABLE_LOCAL_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[SIB_NL_ATTR_CABLE_SILENCE_MS] = { .type = NLA_U32 },
};

static struct genl_family sib_nl_family;

/* the softib device and port a request names; release with ib_device_put() */
static struct sib_dev *sib_nl_dev(struct genl_info *info)
{
	struct ib_device *ibdev;

	if (!info->attrs[SIB_NL_ATTR_DEV_NAME]) {
		GENL_SET_ERR_MSG(info, "device name missing");
		return ERR_PTR(-EINVAL);
	}
	if (info->attrs[SIB_NL_ATTR_PORT] &&
	    nla_get_u32(info->attrs[SIB_NL_ATTR_PORT]) != 1) {
		GENL_SET_ERR_MSG(info, "softib devices have one port, 1");
		return ERR_PTR(-EINVAL);
	}
	ibdev = ib_device_get_by_name(nla_data(info->attrs[SIB_NL_ATTR_DEV_NAME]),
				      (enum rdma_driver_id)SIB_DRIVER_ID);
	if (ibdev && !rdma_dev_access_netns(ibdev, genl_info_net(info))) {
		ib_device_put(ibdev);
		ibdev = NULL;
	}
	if (!ibdev) {
		GENL_SET_ERR_MSG(info, "no softib device of that name");
		return ERR_PTR(-ENODEV);
	}
	return to_sib_dev(ibdev);
}

static int sib_nl_put_table(struct sk_buff *msg, struct sib_dev *dev)
{
	struct nlattr *tbl, *ent;
	u32 i;
	u16 pkey;

	if (nla_put_string(msg, SIB_NL_ATTR_DEV_NAME, dev_name(&dev->ibdev.dev)) ||
	    nla_put_u32(msg, SIB_NL_ATTR_PORT, 1) ||
	    nla_put_u32(msg, SIB_NL_ATTR_PKEY_TBL_LEN, SIB_MAX_PKEYS))
		return -EMSGSIZE;
	tbl = nla_nest_start(msg, SIB_NL_ATTR_PKEY_TABLE);
	if (!tbl)
		return -EMSGSIZE;
	for (i = 0; i < SIB_MAX_PKEYS; i++) {
		pkey = sib_pkey_at(&dev->pkey, i);
		if (!sib_pkey_valid(pkey))
			continue;
		ent = nla_nest_start(msg, SIB_NL_ATTR_PKEY_ENTRY);
		if (!ent || nla_put_u16(msg, SIB_NL_ATTR_PKEY_INDEX, i) ||
		    nla_put_u16(msg, SIB_NL_ATTR_PKEY, pkey))
			return -EMSGSIZE;
		nla_nest_end(msg, ent);
	}
	nla_nest_end(msg, tbl);
	return 0;
}

/*
 * Answer a GET command with one message that @fill writes about @dev;
 * drops the reference of sib_nl_dev()/sib_nl_ib_dev() on @dev in every
 * case. Context: process.
 */
static int sib_nl_reply(struct genl_info *info, struct sib_dev *dev, u8 cmd,
			int (*fill)(struct sk_buff *msg, struct sib_dev *dev))
{
	struct sk_buff *msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	void *hdr;
	int err = -ENOMEM;

	if (msg) {
		hdr = genlmsg_put_reply(msg, info, &sib_nl_family, 0, cmd);
		err = hdr ? fill(msg, dev) : -ENOMEM;
		if (!err)
			genlmsg_end(msg, hdr);
	}
	ib_device_put(&dev->ibdev);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int sib_nl_pkey_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sib_dev *dev = sib_nl_dev(info);

	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return sib_nl_reply(info, dev, SIB_NL_CMD_PKEY_GET, sib_nl_put_table);
}

/* raise IB_EVENT_PKEY_CHANGE: the core refreshes its P_Key cache on it */
static void sib_nl_pkey_event(struct sib_dev *dev)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = 1,
		.event = IB_EVENT_PKEY_CHANGE,
	};

	ib_dispatch_event(&ev);
}

static int sib_nl_pkey_change(struct genl_info *info, bool del)
{
	struct sib_dev *dev;
	u16 index;
	int err;

	if (!info->attrs[SIB_NL_ATTR_PKEY_INDEX] ||
	    (!del && !info->attrs[SIB_NL_ATTR_PKEY])) {
		GENL_SET_ERR_MSG(info, "P_Key index or value missing");
		return -EINVAL;
	}
	dev = sib_nl_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	index = nla_get_u16(info->attrs[SIB_NL_ATTR_PKEY_INDEX]);
	if (del)
		err = sib_pkey_del(&dev->pkey, index);
	else
		err = sib_pkey_set(&dev->pkey, index,
				   nla_get_u16(info->attrs[SIB_NL_ATTR_PKEY]));
	if (!err)
		sib_nl_pkey_event(dev);
	else if (err == -EEXIST)
		GENL_SET_ERR_MSG(info, "P_Key already at another index");
	else if (err == -ENOENT)
		GENL_SET_ERR_MSG(info, "no valid P_Key at that index");
	else if (err == -EINVAL)
		GENL_SET_ERR_MSG(info, "index out of range or invalid P_Key");
	ib_device_put(&dev->ibdev);
	return err;
}

static int sib_nl_pkey_set(struct sk_buff *skb, struct genl_info *info)
{
	return sib_nl_pkey_change(info, false);
}

static int sib_nl_pkey_del(struct sk_buff *skb, struct genl_info *info)
{
	return sib_nl_pkey_change(info, true);
}

static int sib_nl_put_cc(struct sk_buff *msg, struct sib_dev *dev)
{
	struct nlattr *tbl, *ent;
	unsigned int i;

	if (nla_put_string(msg, SIB_NL_ATTR_DEV_NAME, dev_name(&dev->ibdev.dev)) ||
	    nla_put_u32(msg, SIB_NL_ATTR_PORT, 1))
		return -EMSGSIZE;
	tbl = nla_nest_start(msg, SIB_NL_ATTR_CC_PARAMS);
	if (!tbl)
		return -EMSGSIZE;
	for (i = 0; i < SIB_CC_NUM_PARAMS; i++) {
		ent = nla_nest_start(msg, SIB_NL_ATTR_CC_PARAM);
		if (!ent ||
		    nla_put_string(msg, SIB_NL_ATTR_CC_NAME, sib_cc_param_name(i)) ||
		    nla_put_u32(msg, SIB_NL_ATTR_CC_VALUE, READ_ONCE(dev->cc[i])) ||
		    nla_put_string(msg, SIB_NL_ATTR_CC_UNIT, sib_cc_param_unit(i)))
			return -EMSGSIZE;
		nla_nest_end(msg, ent);
	}
	nla_nest_end(msg, tbl);
	return 0;
}

static int sib_nl_cc_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sib_dev *dev = sib_nl_dev(info);

	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return sib_nl_reply(info, dev, SIB_NL_CMD_CC_GET, sib_nl_put_cc);
}

static int sib_nl_cc_set(struct sk_buff *skb, struct genl_info *info)
{
	struct sib_dev *dev;
	int p, err;

	if (!info->attrs[SIB_NL_ATTR_CC_NAME] || !info->attrs[SIB_NL_ATTR_CC_VALUE]) {
		GENL_SET_ERR_MSG(info, "parameter name or value missing");
		return -EINVAL;
	}
	p = sib_cc_param_find(nla_data(info->attrs[SIB_NL_ATTR_CC_NAME]));
	if (p < 0) {
		GENL_SET_ERR_MSG(info, "no congestion control parameter of that name");
		return p;
	}
	dev = sib_nl_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	err = sib_cc_param_set(dev, p, nla_get_u32(info->attrs[SIB_NL_ATTR_CC_VALUE]));
	if (err)
		GENL_SET_ERR_MSG(info, "value out of the parameter's range");
	ib_device_put(&dev->ibdev);
	return err;
}

/* the IB device a cable command names; release with ib_device_put() */
static struct sib_dev *sib_nl_ib_dev(struct genl_info *info)
{
	struct sib_dev *dev = sib_nl_dev(info);

	if (!IS_ERR(dev) && !sib_is_ib(dev)) {
		ib_device_put(&dev->ibdev);
		GENL_SET_ERR_MSG(info, "not an InfiniBand (softib-ib) device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return dev;
}

static int sib_nl_put_cable(struct sk_buff *msg, struct sib_dev *dev)
{
	struct sib_cable_info ci;
	struct ib_port_attr pa = {};

	sib_cable_get(dev, &ci);
	sib_ib_query_port(dev, &pa);
	if (nla_put_string(msg, SIB_NL_ATTR_DEV_NAME, dev_name(&dev->ibdev.dev)) ||
	    nla_put_u32(msg, SIB_NL_ATTR_PORT, 1) ||
	    nla_put_u8(msg, SIB_NL_ATTR_CABLE_PHYS_STATE, pa.phys_state) ||
	    nla_put_u8(msg, SIB_NL_ATTR_CABLE_PORT_STATE, pa.state))
		return -EMSGSIZE;
	if (!ci.plugged)
		return 0;
	if (ci.cfg.family == AF_INET) {
		if (nla_put(msg, SIB_NL_ATTR_CABLE_PEER4, 4, &ci.cfg.peer4))
			return -EMSGSIZE;
	} else if (nla_put(msg, SIB_NL_ATTR_CABLE_PEER6, 16, &ci.cfg.peer6)) {
		return -EMSGSIZE;
	}
	if (nla_put_u16(msg, SIB_NL_ATTR_CABLE_PEER_PORT, ci.cfg.peer_port) ||
	    nla_put_u16(msg, SIB_NL_ATTR_CABLE_LOCAL_PORT, ci.cfg.local_port) ||
	    nla_put_u64_64bit(msg, SIB_NL_ATTR_CABLE_LINK_SENT, ci.link_sent,
			      SIB_NL_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, SIB_NL_ATTR_CABLE_LINK_RCVD, ci.link_rcvd,
			      SIB_NL_ATTR_PAD) ||
	    nla_put_u32(msg, SIB_NL_ATTR_CABLE_SILENCE_MS, ci.cfg.silence_ms) ||
	    nla_put_u64_64bit(msg, SIB_NL_ATTR_CABLE_LINK_LOST, ci.link_lost,
			      SIB_NL_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

static int sib_nl_cable_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sib_dev *dev = sib_nl_ib_dev(info);

	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return sib_nl_reply(info, dev, SIB_NL_CMD_CABLE_GET, sib_nl_put_cable);
}

static int sib_nl_cable_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct sib_cable_cfg cfg = {};
	struct sib_dev *dev;
	int err;

	if (!!a[SIB_NL_ATTR_CABLE_PEER4] == !!a[SIB_NL_ATTR_CABLE_PEER6]) {
		GENL_SET_ERR_MSG(info, "one partner address, IPv4 or IPv6");
		return -EINVAL;
	}
	if (a[SIB_NL_ATTR_CABLE_PEER4]) {
		cfg.family = AF_INET;
		nla_memcpy(&cfg.peer4, a[SIB_NL_ATTR_CABLE_PEER4], 4);
	} else {
		cfg.family = AF_INET6;
		nla_memcpy(&cfg.peer6, a[SIB_NL_ATTR_CABLE_PEER6], 16);
	}
	if (a[SIB_NL_ATTR_CABLE_PEER_PORT])
		cfg.peer_port = nla_get_u16(a[SIB_NL_ATTR_CABLE_PEER_PORT]);
	if (a[SIB_NL_ATTR_CABLE_LOCAL_PORT])
		cfg.local_port = nla_get_u16(a[SIB_NL_ATTR_CABLE_LOCAL_PORT]);
	if (a[SIB_NL_ATTR_CABLE_SILENCE_MS]) {
		cfg.silence_ms = nla_get_u32(a[SIB_NL_ATTR_CABLE_SILENCE_MS]);
		if (cfg.silence_ms < SIB_CABLE_SILENCE_MIN_MS ||
		    cfg.silence_ms > SIB_CABLE_SILENCE_MAX_MS) {
			GENL_SET_ERR_MSG(info, "silence limit out of 300..60000 ms");
			return -ERANGE;
		}
	}
	dev = sib_nl_ib_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	err = sib_cable_plug(dev, &cfg);
	if (err == -EINVAL)
		GENL_SET_ERR_MSG(info, "UDP port 4791 is RoCEv2's");
	else if (err == -EADDRINUSE)
		GENL_SET_ERR_MSG(info, "local UDP port in use on the netdev");
	ib_device_put(&dev->ibdev);
	return err;
}

static int sib_nl_cable_del(struct sk_buff *skb, struct genl_info *info)
{
	struct sib_dev *dev;
	int err;

	dev = sib_nl_ib_dev(info);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	err = sib_cable_unplug(dev);
	if (err == -ENOENT)
		GENL_SET_ERR_MSG(info, "no cable plugged");
	ib_device_put(&dev->ibdev);
	return err;
}

/* one small op per command: the handler, and whether it needs CAP_NET_ADMIN */
#define SIB_NL_OP(command, handler, admin) \
	{ .cmd = (command), .doit = (handler), .flags = (admin) ? GENL_ADMIN_PERM : 0 }

static const struct genl_small_ops sib_nl_ops[] = {
	SIB_NL_OP(SIB_NL_CMD_PKEY_GET, sib_nl_pkey_get, false),
	SIB_NL_OP(SIB_NL_CMD_PKEY_SET, sib_nl_pkey_set, true),
	SIB_NL_OP(SIB_NL_CMD_PKEY_DEL, sib_nl_pkey_del, true),
	SIB_NL_OP(SIB_NL_CMD_CC_GET, sib_nl_cc_get, false),
	SIB_NL_OP(SIB_NL_CMD_CC_SET, sib_nl_cc_set, true),
	SIB_NL_OP(SIB_NL_CMD_CABLE_GET, sib_nl_cable_get, false),
	SIB_NL_OP(SIB_NL_CMD_CABLE_SET, sib_nl_cable_set, true),
	SIB_NL_OP(SIB_NL_CMD_CABLE_DEL, sib_nl_cable_del, true),
};

static struct genl_family sib_nl_family __ro_after_init = {
	.module = THIS_MODULE, .name = SIB_NL_FAMILY_NAME,
	.version = SIB_NL_FAMILY_VERSION, .netnsok = true,
	.small_ops = sib_nl_ops, .n_small_ops = ARRAY_SIZE(sib_nl_ops),
	.policy = sib_nl_policy, .maxattr = SIB_NL_ATTR_MAX,
};

/**
 * sib_nl_init() - register the "softib" generic netlink family
 *
 * Context: module init. Return: 0 or -errno.
 */
int sib_nl_init(void)
{
	return genl_register_family(&sib_nl_family);
}

/**
 * sib_nl_exit() - unregister the family; no command runs afterwards
 *
 * Context: module exit, before the devices are unregistered.
 */
void sib_nl_exit(void)
{
	genl_unregister_family(&sib_nl_family);
}
