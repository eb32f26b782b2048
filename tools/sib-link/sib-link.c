// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-link: plug, unplug and show the cable of a softib InfiniBand device
 * (`rdma link add NAME type softib-ib netdev DEV`) through the "softib"
 * generic netlink family (include/uapi/rdma/softib-netlink.h).
 *
 *   sib-link DEV peer ADDR [port N] [local-port N] [silence MS]
 *   sib-link DEV unplug
 *   sib-link [DEV] show
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <rdma/softib-netlink.h>

static void usage(FILE *f)
{
	fprintf(f,
"Usage: sib-link DEV peer ADDR [port N] [local-port N] [silence MS]\n"
"       sib-link DEV unplug\n"
"       sib-link [DEV] show\n"
"\n"
"The cable of a softib InfiniBand device DEV (rdma link add DEV type softib-ib\n"
"netdev NETDEV): UDP datagrams on NETDEV between DEV and its link partner.\n"
"'peer' plugs the cable to the partner at ADDR (IPv4 or IPv6), UDP port N\n"
"(default 4792), from the local UDP port given by local-port (default 4792;\n"
"4791 is RoCEv2's and refused), replacing a cable plugged before. The\n"
"physical link is Polling until the partner's link packets are heard, then\n"
"LinkUp and the port INIT; MS milliseconds without hearing the partner\n"
"(silence, 300..60000, default 3000; counted while this end runs, so a\n"
"stall of this end is not taken for the partner's silence), carrier loss\n"
"or 'unplug' take it back to Polling and the port DOWN. Plugging and\n"
"unplugging need CAP_NET_ADMIN. 'show' prints one line per device (all\n"
"softib InfiniBand devices without DEV):\n"
"  DEV phys Polling|LinkUp state Down|Init|Armed|Active unplugged\n"
"  DEV phys ... state ... peer ADDR port N local-port N link-sent N link-rcvd N\n"
"      silence-ms MS link-lost N   (N: link downs for the partner's silence)\n"
"Options: -h, --help     this text\n"
"Exit status: 0 ok, 1 refused (no such device, not an InfiniBand device, or\n"
"the kernel refused; the reason on stderr), 2 usage error (one line naming\n"
"it on stderr).\n");
}

/* a usage error: one line naming it, then a hint; exit status 2 */
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sib-link: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try sib-link --help)\n", stderr);
	return 2;
}

/* a number @min..@max into @out; 0, or -1 when @s is not one */
static int parse_num(const char *s, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || *end || *out < min || *out > max ? -1 : 0;
}

static const char *phys_name(unsigned int s)
{
	static const char *const n[] = {
		[1] = "Sleep", [2] = "Polling", [3] = "Disabled",
		[4] = "PortConfigurationTraining", [5] = "LinkUp",
		[6] = "LinkErrorRecovery", [7] = "PhyTest",
	};

	return s < sizeof(n) / sizeof(n[0]) && n[s] ? n[s] : "?";
}

static const char *state_name(unsigned int s)
{
	static const char *const n[] = {
		[1] = "Down", [2] = "Init", [3] = "Armed", [4] = "Active",
	};

	return s < sizeof(n) / sizeof(n[0]) && n[s] ? n[s] : "?";
}

struct show_ctx {
	int err;
};

static int show_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[SIB_NL_ATTR_MAX + 1];
	struct show_ctx *ctx = arg;
	char addr[INET6_ADDRSTRLEN] = "";

	if (nla_parse(tb, SIB_NL_ATTR_MAX, genlmsg_attrdata(gh, 0),
		      genlmsg_attrlen(gh, 0), NULL) ||
	    !tb[SIB_NL_ATTR_DEV_NAME] || !tb[SIB_NL_ATTR_CABLE_PHYS_STATE] ||
	    !tb[SIB_NL_ATTR_CABLE_PORT_STATE]) {
		ctx->err = -EPROTO;
		return NL_STOP;
	}
	printf("%s phys %s state %s", nla_get_string(tb[SIB_NL_ATTR_DEV_NAME]),
	       phys_name(nla_get_u8(tb[SIB_NL_ATTR_CABLE_PHYS_STATE])),
	       state_name(nla_get_u8(tb[SIB_NL_ATTR_CABLE_PORT_STATE])));
	if (tb[SIB_NL_ATTR_CABLE_PEER4] && nla_len(tb[SIB_NL_ATTR_CABLE_PEER4]) == 4)
		inet_ntop(AF_INET, nla_data(tb[SIB_NL_ATTR_CABLE_PEER4]), addr,
			  sizeof(addr));
	else if (tb[SIB_NL_ATTR_CABLE_PEER6] &&
		 nla_len(tb[SIB_NL_ATTR_CABLE_PEER6]) == 16)
		inet_ntop(AF_INET6, nla_data(tb[SIB_NL_ATTR_CABLE_PEER6]), addr,
			  sizeof(addr));
	if (!addr[0]) {
		printf(" unplugged\n");
	} else {
		printf(" peer %s", addr);
		if (tb[SIB_NL_ATTR_CABLE_PEER_PORT])
			printf(" port %u", nla_get_u16(tb[SIB_NL_ATTR_CABLE_PEER_PORT]));
		if (tb[SIB_NL_ATTR_CABLE_LOCAL_PORT])
			printf(" local-port %u",
			       nla_get_u16(tb[SIB_NL_ATTR_CABLE_LOCAL_PORT]));
		if (tb[SIB_NL_ATTR_CABLE_LINK_SENT])
			printf(" link-sent %llu", (unsigned long long)
			       nla_get_u64(tb[SIB_NL_ATTR_CABLE_LINK_SENT]));
		if (tb[SIB_NL_ATTR_CABLE_LINK_RCVD])
			printf(" link-rcvd %llu", (unsigned long long)
			       nla_get_u64(tb[SIB_NL_ATTR_CABLE_LINK_RCVD]));
		if (tb[SIB_NL_ATTR_CABLE_SILENCE_MS])
			printf(" silence-ms %u",
			       nla_get_u32(tb[SIB_NL_ATTR_CABLE_SILENCE_MS]));
		if (tb[SIB_NL_ATTR_CABLE_LINK_LOST])
			printf(" link-lost %llu", (unsigned long long)
			       nla_get_u64(tb[SIB_NL_ATTR_CABLE_LINK_LOST]));
		printf("\n");
	}
	ctx->err = 0;
	return NL_OK;
}

struct request {
	int cmd;			/* SIB_NL_CMD_CABLE_* */
	int family;			/* SET: AF_INET or AF_INET6 */
	unsigned char addr[16];
	unsigned long port, local_port;	/* 0: not given */
	unsigned long silence_ms;	/* 0: not given */
};

/* one request for @dev; 0, or the -errno/libnl error */
static int run(struct nl_sock *sk, int fam, const char *dev,
	       const struct request *rq, struct show_ctx *ctx)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0,
				 NLM_F_REQUEST, rq->cmd, SIB_NL_FAMILY_VERSION) ||
	    nla_put_string(msg, SIB_NL_ATTR_DEV_NAME, dev) ||
	    (rq->cmd == SIB_NL_CMD_CABLE_SET &&
	     (nla_put(msg, rq->family == AF_INET ? SIB_NL_ATTR_CABLE_PEER4 :
		      SIB_NL_ATTR_CABLE_PEER6,
		      rq->family == AF_INET ? 4 : 16, rq->addr) ||
	      (rq->port && nla_put_u16(msg, SIB_NL_ATTR_CABLE_PEER_PORT, rq->port)) ||
	      (rq->local_port &&
	       nla_put_u16(msg, SIB_NL_ATTR_CABLE_LOCAL_PORT, rq->local_port)) ||
	      (rq->silence_ms &&
	       nla_put_u32(msg, SIB_NL_ATTR_CABLE_SILENCE_MS, rq->silence_ms))))) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	ctx->err = -ENODATA;
	err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	nlmsg_free(msg);
	if (err >= 0 && rq->cmd == SIB_NL_CMD_CABLE_GET && ctx->err)
		err = -NLE_PARSE_ERR;
	return err < 0 ? err : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct request rq = {};
	struct show_ctx ctx;
	const char *dev = NULL, *cmd;
	struct nl_sock *sk;
	int c, i, fam, err, ret = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no command (DEV peer ADDR, DEV unplug or [DEV] show)");
	if (!strcmp(argv[optind], "show")) {
		cmd = argv[optind++];
	} else {
		dev = argv[optind++];
		if (optind >= argc)
			return usage_error("no command after %s (peer, unplug or show)",
					   dev);
		cmd = argv[optind++];
	}
	if (!strcmp(cmd, "show")) {
		rq.cmd = SIB_NL_CMD_CABLE_GET;
		if (optind < argc)
			return usage_error("show takes nothing after it ('%s')",
					   argv[optind]);
	} else if (!strcmp(cmd, "unplug")) {
		rq.cmd = SIB_NL_CMD_CABLE_DEL;
		if (optind < argc)
			return usage_error("unplug takes nothing after it ('%s')",
					   argv[optind]);
	} else if (!strcmp(cmd, "peer")) {
		rq.cmd = SIB_NL_CMD_CABLE_SET;
		if (optind >= argc)
			return usage_error("peer takes ADDR");
		if (inet_pton(AF_INET, argv[optind], rq.addr) == 1)
			rq.family = AF_INET;
		else if (inet_pton(AF_INET6, argv[optind], rq.addr) == 1)
			rq.family = AF_INET6;
		else
			return usage_error("ADDR '%s': not an IPv4 or IPv6 address",
					   argv[optind]);
		for (i = optind + 1; i < argc; i += 2) {
			unsigned long *p;

			if (!strcmp(argv[i], "port"))
				p = &rq.port;
			else if (!strcmp(argv[i], "local-port"))
				p = &rq.local_port;
			else if (!strcmp(argv[i], "silence"))
				p = &rq.silence_ms;
			else
				return usage_error("unknown word '%s' (port, local-port or silence)",
						   argv[i]);
			if (i + 1 >= argc)
				return usage_error("%s needs a number", argv[i]);
			if (p == &rq.silence_ms) {
				if (parse_num(argv[i + 1], 300, 60000, p))
					return usage_error("silence '%s': not a number of ms 300..60000",
							   argv[i + 1]);
			} else if (parse_num(argv[i + 1], 1, 65535, p)) {
				return usage_error("%s '%s': not a number 1..65535",
						   argv[i], argv[i + 1]);
			}
		}
	} else {
		return usage_error("unknown command '%s' (peer, unplug or show)", cmd);
	}

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "sib-link: cannot open a generic netlink socket\n");
		return 1;
	}
	fam = genl_ctrl_resolve(sk, SIB_NL_FAMILY_NAME);
	if (fam < 0) {
		fprintf(stderr, "sib-link: no \"%s\" netlink family (is softib loaded?)\n",
			SIB_NL_FAMILY_NAME);
		return 1;
	}
	if (rq.cmd == SIB_NL_CMD_CABLE_GET)
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, show_cb, &ctx);
	if (dev) {
		err = run(sk, fam, dev, &rq, &ctx);
		if (err < 0) {
			fprintf(stderr, "sib-link: %s %s: %s\n", dev, cmd,
				nl_geterror(err));
			ret = 1;
		}
	} else {
		/* every RDMA device; the RoCE ones and other drivers' refuse */
		struct dirent **names;
		int n = scandir("/sys/class/infiniband", &names, NULL, alphasort);

		for (i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.')
				run(sk, fam, names[i]->d_name, &rq, &ctx);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
	}
	nl_socket_free(sk);
	return ret;
}
