// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the RoCEv2 invariant CRC (IBTA annex A17.3.3). A CRC32 over
 * a 64-bit field of ones standing for the masked LRH, the IP header with
 * its variant fields (IPv4 TOS, TTL, checksum; IPv6 traffic class, flow
 * label, hop limit) set to ones, the UDP header with its checksum set to
 * ones, the BTH with its resv8a byte set to ones, and the rest of the
 * packet up to the ICRC. Sent inverted, least significant byte first.
 * A native InfiniBand packet's ICRC (IBTA 7.8.1) is the same CRC over the
 * real LRH and GRH with their variant fields masked: sib_icrc_ib().
 */
#include <linux/crc32.h>
#include <linux/sched/clock.h>
#include <crypto/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "icrc.h"
#include "hdr.h"
#include "ib.h"

/* CRC32 state after ~0 seed and 8 bytes of 0xff (the masked LRH) */
#define SIB_ICRC_SEED 0xdebb20e3U

/*
 * The crypto API's "crc32" is the same little-endian CRC32 as
 * crc32_le(), but picks the PCLMULQDQ implementation where the CPU has
 * it: on hardware several times faster than the table of lib/crc32.c on
 * 6.1. Under an emulator the order can flip (QEMU 7.2's TCG runs each
 * PCLMULQDQ as a helper call looping over the bits): sib_icrc_init()
 * times both on a full packet's payload and keeps the faster.
 */
static struct crypto_shash *sib_crc_tfm;

static u32 sib_crc32_tfm(struct crypto_shash *tfm, u32 crc, const void *data,
			 unsigned int len, bool *ok)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	u32 *ctx = shash_desc_ctx(desc);

	desc->tfm = tfm;
	*ctx = crc;
	*ok = !crypto_shash_update(desc, data, len);
	crc = *ctx;
	barrier_data(ctx);
	return crc;
}

#define SIB_CRC_BENCH_LEN	4096
#define SIB_CRC_BENCH_RUNS	8

/*
 * nanoseconds for SIB_CRC_BENCH_RUNS CRCs of @buf with @tfm (NULL:
 * crc32_le()), the best of three tries (an interrupt may cut into one);
 * *@crc: the result; *@ok set to false when a crypto call failed
 */
static u64 sib_crc_bench(struct crypto_shash *tfm, const u8 *buf, u32 *crc,
			 bool *ok)
{
	u64 best = U64_MAX, t;
	bool one = true;
	int i, try;

	for (try = 0; try < 3; try++) {
		t = local_clock();
		for (i = 0; i < SIB_CRC_BENCH_RUNS; i++) {
			*crc = tfm ? sib_crc32_tfm(tfm, ~0U, buf,
						   SIB_CRC_BENCH_LEN, &one) :
				     crc32_le(~0U, buf, SIB_CRC_BENCH_LEN);
			*ok &= one;
		}
		best = min(best, local_clock() - t);
	}
	return best;
}

/**
 * sib_icrc_init() - pick the faster CRC32 implementation
 *
 * Times the crypto API's "crc32" (its best implementation on this CPU)
 * and lib/crc32.c's crc32_le() on 4 KiB and keeps the crypto one only
 * when it is faster and gives the same CRC. The choice is logged.
 * Context: process (module init). Return: 0 (falls back to crc32_le()).
 */
int sib_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);
	u64 t_tfm, t_lib;
	u32 c_tfm, c_lib;
	bool ok = true, keep;
	u8 *buf;
	int i;

	if (IS_ERR(tfm))
		return 0;
	buf = kmalloc(SIB_CRC_BENCH_LEN, GFP_KERNEL);
	if (!buf) {
		sib_crc_tfm = tfm;
		return 0;
	}
	for (i = 0; i < SIB_CRC_BENCH_LEN; i++)
		buf[i] = i * 31 + 7;
	t_tfm = sib_crc_bench(tfm, buf, &c_tfm, &ok);
	t_lib = sib_crc_bench(NULL, buf, &c_lib, &ok);
	kfree(buf);
	keep = ok && c_tfm == c_lib && t_tfm <= t_lib;
	pr_info("softib: ICRC by %s (4 KiB: %s %llu ns, crc32_le %llu ns)\n",
		keep ? crypto_shash_driver_name(tfm) : "crc32_le",
		crypto_shash_driver_name(tfm), t_tfm / SIB_CRC_BENCH_RUNS,
		t_lib / SIB_CRC_BENCH_RUNS);
	if (keep)
		sib_crc_tfm = tfm;
	else
		crypto_free_shash(tfm);
	return 0;
}

/**
 * sib_icrc_exit() - release what sib_icrc_init() took
 *
 * Context: process (module exit).
 */
void sib_icrc_exit(void)
{
	if (sib_crc_tfm)
		crypto_free_shash(sib_crc_tfm);
	sib_crc_tfm = NULL;
}

static u32 sib_crc32(u32 crc, const void *data, unsigned int len)
{
	if (sib_crc_tfm) {
		bool ok;
		u32 c = sib_crc32_tfm(sib_crc_tfm, crc, data, len, &ok);

		if (ok)
			return c;
	}
	return crc32_le(crc, data, len);
}

/* CRC over @len bytes of @skb from @off (linear part, page fragments) */
static u32 sib_crc32_skb(u32 crc, struct sk_buff *skb, unsigned int off,
			 unsigned int len)
{
	struct skb_seq_state st;
	unsigned int consumed = 0, n;
	const u8 *data;

	if (off + len <= skb_headlen(skb))
		return sib_crc32(crc, skb->data + off, len);
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(consumed, &data, &st)) != 0) {
		n = min(n, len - consumed);
		crc = sib_crc32(crc, data, n);
		consumed += n;
		if (consumed >= len) {
			skb_abort_seq_read(&st);
			break;
		}
	}
	return crc;
}

/**
 * sib_icrc() - compute the ICRC of a RoCEv2 packet
 * @skb: packet; network and transport headers set and linear, the BTH
 *	 linear, the rest may be in page fragments
 * @bth_off: offset of the BTH from skb->data
 * @len: bytes from the BTH up to (not including) the ICRC
 *
 * Context: any. Return: the value to put on the wire (little endian).
 */
u32 sib_icrc(struct sk_buff *skb, unsigned int bth_off, unsigned int len)
{
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + SIB_BTH_LEN];
	unsigned int iplen, n;
	struct sib_bth *bth;
	struct udphdr *udp;
	u32 crc;

	if (ip_hdr(skb)->version == 4) {
		struct iphdr *ip = (struct iphdr *)hdr;

		iplen = sizeof(struct iphdr);
		memcpy(hdr, skb_network_header(skb), iplen);
		ip->tos = 0xff;
		ip->ttl = 0xff;
		ip->check = htons(0xffff);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)hdr;

		iplen = sizeof(struct ipv6hdr);
		memcpy(hdr, skb_network_header(skb), iplen);
		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	}
	udp = (struct udphdr *)(hdr + iplen);
	memcpy(udp, skb_transport_header(skb), sizeof(*udp));
	udp->check = htons(0xffff);
	bth = (struct sib_bth *)(udp + 1);
	memcpy(bth, skb->data + bth_off, SIB_BTH_LEN);
	bth->qpn |= cpu_to_be32(~SIB_QPN_MASK);
	n = iplen + sizeof(*udp) + SIB_BTH_LEN;
	crc = sib_crc32(SIB_ICRC_SEED, hdr, n);
	crc = sib_crc32_skb(crc, skb, bth_off + SIB_BTH_LEN, len - SIB_BTH_LEN);
	return ~crc;
}

/* the LRH's VL nibble, masked for the native ICRC (IBTA 7.8.1) */
#define SIB_ICRC_IB_VL_MASK	0xf0
/* the GRH's first 4 bytes: IPVer(4) | TClass(8) | FlowLabel(20) */
#define SIB_ICRC_IB_GRH_VAR	0x0fffffffU

/**
 * sib_icrc_ib() - compute the ICRC of a native InfiniBand packet
 * @skb: packet with skb->data at the LRH; the LRH, the GRH (when the
 *	 LRH's LNH says one follows) and the BTH linear, the rest may be
 *	 in page fragments
 * @len: bytes from the LRH up to (not including) the ICRC
 *
 * IBTA 7.8.1: a CRC32 (seed all ones, the same polynomial and bit order
 * as RoCEv2's, see sib_icrc()) over the packet from the LRH on, with
 * the variant fields taken as ones: the LRH's VL, the GRH's traffic
 * class, flow label and hop limit, and the BTH's resv8a byte. The value
 * returned is the one to put on the wire, least significant byte first
 * (cpu_to_le32()), as for RoCEv2.
 * Context: any. Return: the ICRC.
 */
u32 sib_icrc_ib(struct sk_buff *skb, unsigned int len)
{
	u8 hdr[SIB_LRH_LEN + SIB_GRH_LEN + SIB_BTH_LEN];
	unsigned int n = SIB_LRH_LEN;
	struct sib_bth *bth;
	u32 crc;

	memcpy(hdr, skb->data, SIB_LRH_LEN);
	hdr[0] |= SIB_ICRC_IB_VL_MASK;
	if ((hdr[1] & 0x3) == SIB_IB_LNH_GLOBAL) {
		struct ib_grh *grh = (struct ib_grh *)(hdr + SIB_LRH_LEN);

		memcpy(grh, skb->data + n, SIB_GRH_LEN);
		grh->version_tclass_flow |= cpu_to_be32(SIB_ICRC_IB_GRH_VAR);
		grh->hop_limit = 0xff;
		n += SIB_GRH_LEN;
	}
	bth = (struct sib_bth *)(hdr + n);
	memcpy(bth, skb->data + n, SIB_BTH_LEN);
	bth->qpn |= cpu_to_be32(~SIB_QPN_MASK);
	n += SIB_BTH_LEN;
	crc = sib_crc32(~0U, hdr, n);
	crc = sib_crc32_skb(crc, skb, n, len - n);
	return ~crc;
}
