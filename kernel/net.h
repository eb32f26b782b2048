/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_NET_H
#define SIB_NET_H

#include "compat.h"

#include "softib.h"

/**
 * sib_zero() - clear a packet header or trailer
 * @p: start
 * @n: bytes, small (headers, pad and ICRC)
 *
 * memset() with a length known only at run time is "rep stosb", which
 * QEMU TCG (softib's CI) emulates a byte at a time; a few word stores
 * are much cheaper for the 4 to 70 bytes of a header. Context: any.
 */
static inline void sib_zero(void *p, unsigned int n)
{
	while (n >= 8) {
		put_unaligned((u64)0, (u64 *)p);
		/* keep the compiler from making this a memset() call again */
		barrier();
		p += 8;
		n -= 8;
	}
	if (n >= 4) {
		put_unaligned((u32)0, (u32 *)p);
		p += 4;
		n -= 4;
	}
	while (n--)
		*(u8 *)p++ = 0;
}

/*
 * the largest packet buffer taken from the page fragment cache (one of
 * more than half a page is taken from a page pool first, net.c)
 */
#define SIB_SKB_FRAG_MAX	(2 * PAGE_SIZE)

typedef int (*sib_encap_rcv_t)(struct sock *sk, struct sk_buff *skb);

struct sib_udp *sib_udp_get(struct net *net, sib_encap_rcv_t rcv);
void sib_udp_put(struct sib_udp *u);
int sib_net_init(void);
void sib_net_fini(void);
int sib_tx_pools_init(void);
void sib_tx_pools_exit(void);
struct sk_buff *sib_skb_alloc(struct sib_dev *dev, unsigned int len);
bool sib_net_frags_ok(const struct sib_qp *qp);
bool sib_skb_reuse(struct sib_dev *dev, struct sk_buff *skb, unsigned int len);
int sib_skb_add_trailer(struct sk_buff *skb, unsigned int n);
void sib_net_push_hdrs(struct sib_dev *dev, const struct sib_av *av,
		       struct sk_buff *skb, u16 sport);
int sib_pkt_xmit(struct sib_qp *qp, const struct sib_av *av,
		 struct sk_buff *skb);
int sib_net_xmit(struct sib_dev *dev, const struct sib_av *av,
		 struct sk_buff *skb, bool *linear, struct sib_route_cache *rc);
void sib_route_cache_drop(struct sib_route_cache *rc);

#endif
