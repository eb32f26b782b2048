// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-cc: show and set the congestion control parameters (ECN, CNP and
 * DCQCN, IBTA Annex A17) of a softib device through the "softib" generic
 * netlink family (include/uapi/rdma/softib-netlink.h).
 *
 *   sib-cc show DEV
 *   sib-cc set DEV PARAM VALUE
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <rdma/softib-netlink.h>

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-cc show DEV\n"
"       sib-cc set DEV PARAM VALUE\n"
"\n"
"Shows or changes the congestion control parameters of the softib device DEV:\n"
"ECN marking of sent packets, the notification point (CNPs sent for packets that\n"
"arrive with ECN CE) and the DCQCN reaction point (the rate of a QP that\n"
"receives CNPs). Names, defaults and units follow ConnectX's (rp_*, np_*); the\n"
"list is the kernel's, see docs/tools.md or sib-cc(8). 'show' prints one line\n"
"per parameter:\n"
"  DEV PARAM VALUE UNIT\n"
"'set' needs CAP_NET_ADMIN; QPs use the new value from their next packet on.\n"
"Options: -h, --help     this text\n"
"Exit status: 0 ok, 1 refused (no such device or parameter, value out of range,\n"
"or the kernel refused; the reason on stderr), 2 usage error (one line naming\n"
"it on stderr).\n");
}

/* a usage error: one line naming it, then a hint; exit status 2 */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sib-cc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try sib-cc --help)\n", stderr);
	return 2;
}

struct show_ctx {
	const char *dev;
	int err;
};

static int show_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[SIB_NL_ATTR_MAX + 1], *ent, *e[SIB_NL_ATTR_MAX + 1];
	struct show_ctx *ctx = arg;
	int rem;

	if (nla_parse(tb, SIB_NL_ATTR_MAX, genlmsg_attrdata(gh, 0),
		      genlmsg_attrlen(gh, 0), NULL) || !tb[SIB_NL_ATTR_CC_PARAMS]) {
		ctx->err = -EPROTO;
		return NL_STOP;
	}
	nla_for_each_nested(ent, tb[SIB_NL_ATTR_CC_PARAMS], rem) {
		if (nla_parse_nested(e, SIB_NL_ATTR_MAX, ent, NULL) ||
		    !e[SIB_NL_ATTR_CC_NAME] || !e[SIB_NL_ATTR_CC_VALUE]) {
			ctx->err = -EPROTO;
			return NL_STOP;
		}
		printf("%s %s %u %s\n", ctx->dev,
		       nla_get_string(e[SIB_NL_ATTR_CC_NAME]),
		       nla_get_u32(e[SIB_NL_ATTR_CC_VALUE]),
		       e[SIB_NL_ATTR_CC_UNIT] ?
		       nla_get_string(e[SIB_NL_ATTR_CC_UNIT]) : "");
	}
	ctx->err = 0;
	return NL_OK;
}

static int parse_num(const char *s, unsigned long *out)
{
	char *end;

	/* digits first: strtoul takes a sign ("-0" is 0) and leading blanks */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || *end || *out > 0xffffffffUL ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct show_ctx ctx = { .err = -ENODATA };
	const char *cmd, *dev, *param = NULL;
	unsigned long val = 0;
	struct nl_sock *sk;
	struct nl_msg *msg;
	int c, fam, nargs, ncmd, err;

	/* options may come anywhere: getopt_long moves them to the front */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			/* "set DEV PARAM -1": a value, not an option */
			if (optopt >= '0' && optopt <= '9')
				return usage_error("a negative VALUE: not a number 0..4294967295");
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no command (show or set)");
	cmd = argv[optind++];
	nargs = argc - optind;
	if (!strcmp(cmd, "show")) {
		ncmd = SIB_NL_CMD_CC_GET;
		if (nargs != 1)
			return usage_error("show takes DEV");
	} else if (!strcmp(cmd, "set")) {
		ncmd = SIB_NL_CMD_CC_SET;
		if (nargs != 3)
			return usage_error("set takes DEV PARAM VALUE");
		param = argv[optind + 1];
		if (parse_num(argv[optind + 2], &val))
			return usage_error("VALUE '%s': not a number 0..4294967295",
					   argv[optind + 2]);
	} else {
		return usage_error("unknown command '%s' (show or set)", cmd);
	}
	dev = argv[optind];
	ctx.dev = dev;

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "sib-cc: cannot open a generic netlink socket\n");
		return 1;
	}
	fam = genl_ctrl_resolve(sk, SIB_NL_FAMILY_NAME);
	if (fam < 0) {
		fprintf(stderr, "sib-cc: no \"%s\" netlink family (is softib loaded?)\n",
			SIB_NL_FAMILY_NAME);
		return 1;
	}
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0,
				 NLM_F_REQUEST, ncmd, SIB_NL_FAMILY_VERSION) ||
	    nla_put_string(msg, SIB_NL_ATTR_DEV_NAME, dev) ||
	    (param && (nla_put_string(msg, SIB_NL_ATTR_CC_NAME, param) ||
		       nla_put_u32(msg, SIB_NL_ATTR_CC_VALUE, val)))) {
		fprintf(stderr, "sib-cc: out of memory\n");
		return 1;
	}
	if (ncmd == SIB_NL_CMD_CC_GET)
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, show_cb, &ctx);
	err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (err < 0) {
		if (param && err == -NLE_OBJ_NOTFOUND)
			fprintf(stderr, "sib-cc: set %s %s: no such parameter (sib-cc show %s lists them)\n",
				dev, param, dev);
		else if (param && err == -NLE_RANGE)
			fprintf(stderr, "sib-cc: set %s %s %lu: out of the parameter's range (sib-cc(8))\n",
				dev, param, val);
		else if (param)
			fprintf(stderr, "sib-cc: set %s %s %lu: %s\n", dev, param,
				val, nl_geterror(err));
		else
			fprintf(stderr, "sib-cc: %s %s: %s\n", cmd, dev,
				nl_geterror(err));
		return 1;
	}
	if (ncmd == SIB_NL_CMD_CC_GET && ctx.err) {
		fprintf(stderr, "sib-cc: show %s: bad reply\n", dev);
		return 1;
	}
	return 0;
}
