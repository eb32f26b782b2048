// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-pkey: show and change the P_Key table of a softib port through the
 * "softib" generic netlink family (include/uapi/rdma/softib-netlink.h).
 *
 *   sib-pkey show DEV [--port N]
 *   sib-pkey set DEV [--port N] INDEX PKEY
 *   sib-pkey del DEV [--port N] INDEX
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <rdma/softib-netlink.h>

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-pkey show DEV [--port N]\n"
"       sib-pkey set DEV [--port N] INDEX PKEY\n"
"       sib-pkey del DEV [--port N] INDEX\n"
"\n"
"Shows or changes the P_Key table of port N (default 1) of the softib device DEV.\n"
"PKEY is a 16-bit value (0x8001 or 32769): bit 15 set makes the port a full\n"
"member of the partition (the low 15 bits), clear a limited member; two limited\n"
"members cannot talk to each other. 'set' adds or replaces the entry at INDEX,\n"
"'del' invalidates it. Index 0 holds the default P_Key 0xffff at creation;\n"
"deleting it closes the default partition. Changes need CAP_NET_ADMIN and raise\n"
"IB_EVENT_PKEY_CHANGE. 'show' prints one line per valid entry:\n"
"  DEV port N index I pkey 0xPPPP full|limited\n"
"preceded by 'DEV port N: T entries, V valid'.\n"
"Options: -p, --port N   port number 0..255 (default 1); softib devices have\n"
"                        one port, 1: any other is refused like an unknown\n"
"                        device (exit status 1, 'DEV has no port N')\n"
"         -h, --help     this text\n"
"Exit status: 0 ok, 1 refused (no such device or port, or the kernel refused;\n"
"the reason on stderr), 2 usage error (one line naming it on stderr).\n");
}

/* a usage error: one line naming it, then a hint; exit status 2 */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sib-pkey: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try sib-pkey --help)\n", stderr);
	return 2;
}

/*
 * Does DEV have port @port? Asked of sysfs so that every port number the
 * device lacks (0 included) gets the same answer; a device sysfs does not
 * show is left to the kernel, which names it unknown. 0: yes or unknown.
 */
static int port_check(const char *dev, unsigned long port)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev) >=
	    (int)sizeof(path) || stat(path, &st))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%lu", dev,
		 port);
	if (port && !stat(path, &st))
		return 0;
	fprintf(stderr, "sib-pkey: %s has no port %lu (softib devices have one port, 1)\n",
		dev, port);
	return -1;
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
	unsigned int port = 1, len = 0, valid = 0;
	int rem;

	if (nla_parse(tb, SIB_NL_ATTR_MAX, genlmsg_attrdata(gh, 0),
		      genlmsg_attrlen(gh, 0), NULL) || !tb[SIB_NL_ATTR_PKEY_TABLE]) {
		ctx->err = -EPROTO;
		return NL_STOP;
	}
	if (tb[SIB_NL_ATTR_PORT])
		port = nla_get_u32(tb[SIB_NL_ATTR_PORT]);
	if (tb[SIB_NL_ATTR_PKEY_TBL_LEN])
		len = nla_get_u32(tb[SIB_NL_ATTR_PKEY_TBL_LEN]);
	nla_for_each_nested(ent, tb[SIB_NL_ATTR_PKEY_TABLE], rem)
		valid++;
	printf("%s port %u: %u entries, %u valid\n", ctx->dev, port, len, valid);
	nla_for_each_nested(ent, tb[SIB_NL_ATTR_PKEY_TABLE], rem) {
		unsigned int pkey;

		if (nla_parse_nested(e, SIB_NL_ATTR_MAX, ent, NULL) ||
		    !e[SIB_NL_ATTR_PKEY_INDEX] || !e[SIB_NL_ATTR_PKEY]) {
			ctx->err = -EPROTO;
			return NL_STOP;
		}
		pkey = nla_get_u16(e[SIB_NL_ATTR_PKEY]);
		printf("%s port %u index %u pkey 0x%04x %s\n", ctx->dev, port,
		       nla_get_u16(e[SIB_NL_ATTR_PKEY_INDEX]), pkey,
		       pkey & 0x8000 ? "full" : "limited");
	}
	ctx->err = 0;
	return NL_OK;
}

static int parse_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	/* digits first: strtoul takes a sign ("-0" is 0) and leading blanks */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || *end || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct show_ctx ctx = { .err = -ENODATA };
	unsigned long port = 1, index = 0, pkey = 0;
	const char *cmd, *dev;
	struct nl_sock *sk;
	struct nl_msg *msg;
	int c, fam, nargs, ncmd, err;

	/* options may come anywhere: getopt_long moves them to the front */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'p':
			if (parse_num(optarg, 255, &port))
				return usage_error("--port '%s': not a number 0..255",
						   optarg);
			break;
		case ':':
			return usage_error("option %s needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no command (show, set or del)");
	cmd = argv[optind++];
	nargs = argc - optind;
	if (!strcmp(cmd, "show")) {
		ncmd = SIB_NL_CMD_PKEY_GET;
		if (nargs != 1)
			return usage_error("show takes DEV");
	} else if (!strcmp(cmd, "set")) {
		ncmd = SIB_NL_CMD_PKEY_SET;
		if (nargs != 3)
			return usage_error("set takes DEV INDEX PKEY");
	} else if (!strcmp(cmd, "del")) {
		ncmd = SIB_NL_CMD_PKEY_DEL;
		if (nargs != 2)
			return usage_error("del takes DEV INDEX");
	} else {
		return usage_error("unknown command '%s' (show, set or del)", cmd);
	}
	if (ncmd != SIB_NL_CMD_PKEY_GET &&
	    parse_num(argv[optind + 1], 0xffff, &index))
		return usage_error("INDEX '%s': not a number 0..65535",
				   argv[optind + 1]);
	if (ncmd == SIB_NL_CMD_PKEY_SET &&
	    parse_num(argv[optind + 2], 0xffff, &pkey))
		return usage_error("PKEY '%s': not a number 0..0xffff",
				   argv[optind + 2]);
	dev = argv[optind];
	ctx.dev = dev;
	if (port_check(dev, port))
		return 1;

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "sib-pkey: cannot open a generic netlink socket\n");
		return 1;
	}
	fam = genl_ctrl_resolve(sk, SIB_NL_FAMILY_NAME);
	if (fam < 0) {
		fprintf(stderr, "sib-pkey: no \"%s\" netlink family (is softib loaded?)\n",
			SIB_NL_FAMILY_NAME);
		return 1;
	}
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0,
				 NLM_F_REQUEST, ncmd, SIB_NL_FAMILY_VERSION) ||
	    nla_put_string(msg, SIB_NL_ATTR_DEV_NAME, dev) ||
	    nla_put_u32(msg, SIB_NL_ATTR_PORT, port) ||
	    (ncmd != SIB_NL_CMD_PKEY_GET &&
	     nla_put_u16(msg, SIB_NL_ATTR_PKEY_INDEX, index)) ||
	    (ncmd == SIB_NL_CMD_PKEY_SET &&
	     nla_put_u16(msg, SIB_NL_ATTR_PKEY, pkey))) {
		fprintf(stderr, "sib-pkey: out of memory\n");
		return 1;
	}
	if (ncmd == SIB_NL_CMD_PKEY_GET)
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, show_cb, &ctx);
	err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (err < 0) {
		fprintf(stderr, "sib-pkey: %s %s: %s\n", cmd, dev, nl_geterror(err));
		return 1;
	}
	if (ncmd == SIB_NL_CMD_PKEY_GET && ctx.err) {
		fprintf(stderr, "sib-pkey: show %s: bad reply\n", dev);
		return 1;
	}
	return 0;
}
