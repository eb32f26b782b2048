/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: InfiniBand transport headers as they appear inside RoCEv2
 * (IBTA vol. 1 ch. 9; RoCEv2 annex A17), typed and big-endian, with
 * small accessors so no code outside this file does bit arithmetic on
 * wire fields.
 */
#ifndef SIB_HDR_H
#define SIB_HDR_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/bitfield.h>
#include <asm/byteorder.h>

/* Base Transport Header, 12 bytes (IBTA 9.2) */
struct sib_bth {
	u8 opcode;
	u8 flags;		/* SE | M | PadCnt(2) | TVer(4) */
	__be16 pkey;
	__be32 qpn;		/* resv8a(8: FECN, BECN, resv6) | DestQP(24) */
	__be32 apsn;		/* AckReq(1) | resv7 | PSN(24) */
} __packed;

#define SIB_BTH_SE		0x80
#define SIB_BTH_MIG		0x40
#define SIB_BTH_PAD_MASK	0x30
#define SIB_BTH_TVER_MASK	0x0f
#define SIB_QPN_MASK		0x00ffffffU
#define SIB_PSN_MASK		0x00ffffffU
#define SIB_BTH_ACKREQ		0x80000000U
/* the qpn word's resv8a byte: ECN notification bits (IBTA Annex A17.9) */
#define SIB_BTH_FECN		0x80000000U
#define SIB_BTH_BECN		0x40000000U
/* a CNP: BTH, then 16 reserved bytes, then the ICRC (Annex A17.9.1) */
#define SIB_CNP_RSVD_LEN	16

/* RDMA Extended Transport Header, 16 bytes (IBTA 9.3.3) */
struct sib_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
} __packed;

/* ACK Extended Transport Header, 4 bytes (IBTA 9.3.5) */
struct sib_aeth {
	__be32 smsn;		/* Syndrome(8) | MSN(24) */
} __packed;

/* Datagram Extended Transport Header, 8 bytes (IBTA 9.3.2) */
struct sib_deth {
	__be32 qkey;
	__be32 sqp;		/* resv8 | SrcQP(24) */
} __packed;

/* Atomic Extended Transport Header, 28 bytes (IBTA 9.3.4) */
struct sib_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 compare;
} __packed;

/* Atomic Acknowledge Extended Transport Header, 8 bytes (IBTA 9.5.3) */
struct sib_atmack {
	__be64 orig;
} __packed;

/* XRC Extended Transport Header, 4 bytes (IBTA 9.3.? XRCETH, 14.2) */
struct sib_xrceth {
	__be32 srqn;		/* resv8 | XRCSRQ(24) */
} __packed;

#define SIB_BTH_LEN	12
#define SIB_XRCETH_LEN	4
#define SIB_ATMETH_LEN	28
#define SIB_ATMACK_LEN	8
#define SIB_RETH_LEN	16
#define SIB_AETH_LEN	4
#define SIB_DETH_LEN	8
#define SIB_IMM_LEN	4
#define SIB_IETH_LEN	4
#define SIB_ICRC_LEN	4

/* AETH syndromes (IBTA 9.7.5.1): top 3 bits select the class */
#define SIB_AETH_ACK		0x00	/* | credit count (we send 0x1f: invalid) */
#define SIB_AETH_RNR_NAK	0x20	/* | RNR timer code */
#define SIB_AETH_NAK		0x60	/* | NAK code */
#define SIB_AETH_CLASS_MASK	0x60
#define SIB_AETH_VALUE_MASK	0x1f
#define SIB_NAK_PSN_SEQ_ERR	0
#define SIB_NAK_INVALID_REQ	1
#define SIB_NAK_REM_ACCESS_ERR	2
#define SIB_NAK_REM_OP_ERR	3
#define SIB_NAK_INVALID_RD_REQ	4
#define SIB_AETH_NO_CREDIT	0x1f

/* BTH accessors */
static inline u8 sib_bth_pad(const struct sib_bth *b)
{
	return (b->flags & SIB_BTH_PAD_MASK) >> 4;
}

static inline u8 sib_bth_tver(const struct sib_bth *b)
{
	return b->flags & SIB_BTH_TVER_MASK;
}

static inline bool sib_bth_se(const struct sib_bth *b)
{
	return b->flags & SIB_BTH_SE;
}

static inline u32 sib_bth_qpn(const struct sib_bth *b)
{
	return be32_to_cpu(b->qpn) & SIB_QPN_MASK;
}

static inline u32 sib_bth_psn(const struct sib_bth *b)
{
	return be32_to_cpu(b->apsn) & SIB_PSN_MASK;
}

static inline bool sib_bth_ackreq(const struct sib_bth *b)
{
	return be32_to_cpu(b->apsn) & SIB_BTH_ACKREQ;
}

static inline u16 sib_bth_pkey(const struct sib_bth *b)
{
	return be16_to_cpu(b->pkey);
}

static inline void sib_bth_set(struct sib_bth *b, u8 opcode, bool se, u8 pad,
			       u16 pkey, u32 qpn, bool ackreq, u32 psn)
{
	b->opcode = opcode;
	b->flags = (se ? SIB_BTH_SE : 0) | ((pad << 4) & SIB_BTH_PAD_MASK);
	b->pkey = cpu_to_be16(pkey);
	b->qpn = cpu_to_be32(qpn & SIB_QPN_MASK);
	b->apsn = cpu_to_be32((ackreq ? SIB_BTH_ACKREQ : 0) |
			      (psn & SIB_PSN_MASK));
}

static inline u8 sib_aeth_syndrome(const struct sib_aeth *a)
{
	return be32_to_cpu(a->smsn) >> 24;
}

static inline u32 sib_aeth_msn(const struct sib_aeth *a)
{
	return be32_to_cpu(a->smsn) & 0x00ffffffU;
}

static inline void sib_aeth_set(struct sib_aeth *a, u8 syndrome, u32 msn)
{
	a->smsn = cpu_to_be32(((u32)syndrome << 24) | (msn & 0x00ffffffU));
}

static inline u32 sib_deth_sqp(const struct sib_deth *d)
{
	return be32_to_cpu(d->sqp) & SIB_QPN_MASK;
}

/* opcodes (IBTA 9.2.1, table 38) */
enum sib_opcode {
	SIB_OP_RC_SEND_FIRST		= 0x00,
	SIB_OP_RC_SEND_MIDDLE		= 0x01,
	SIB_OP_RC_SEND_LAST		= 0x02,
	SIB_OP_RC_SEND_LAST_IMM		= 0x03,
	SIB_OP_RC_SEND_ONLY		= 0x04,
	SIB_OP_RC_SEND_ONLY_IMM		= 0x05,
	SIB_OP_RC_WRITE_FIRST		= 0x06,
	SIB_OP_RC_WRITE_MIDDLE		= 0x07,
	SIB_OP_RC_WRITE_LAST		= 0x08,
	SIB_OP_RC_WRITE_LAST_IMM	= 0x09,
	SIB_OP_RC_WRITE_ONLY		= 0x0a,
	SIB_OP_RC_WRITE_ONLY_IMM	= 0x0b,
	SIB_OP_RC_READ_REQ		= 0x0c,
	SIB_OP_RC_READ_RESP_FIRST	= 0x0d,
	SIB_OP_RC_READ_RESP_MIDDLE	= 0x0e,
	SIB_OP_RC_READ_RESP_LAST	= 0x0f,
	SIB_OP_RC_READ_RESP_ONLY	= 0x10,
	SIB_OP_RC_ACK			= 0x11,
	SIB_OP_RC_ATOMIC_ACK		= 0x12,
	SIB_OP_RC_CMP_SWAP		= 0x13,
	SIB_OP_RC_FETCH_ADD		= 0x14,
	SIB_OP_RC_SEND_LAST_INV		= 0x16,
	SIB_OP_RC_SEND_ONLY_INV		= 0x17,
	SIB_OP_RC_ATOMIC_WRITE		= 0x1d,	/* IBA 1.5 */
	/* UC (001xxxxx): the RC SEND/WRITE codes with this prefix */
	SIB_OP_UC_BASE			= 0x20,
	/* XRC (101xxxxx): the RC codes with this prefix; requests add an XRCETH */
	SIB_OP_XRC_BASE			= 0xa0,
	SIB_OP_CNP			= 0x81,	/* RoCEv2 CNP (IBTA Annex A17.9.1) */
	SIB_OP_UD_SEND_ONLY		= 0x64,
	SIB_OP_UD_SEND_ONLY_IMM		= 0x65,
};

/* flags of an opcode table entry */
#define SIB_OPF_VALID	BIT(0)
#define SIB_OPF_REQ	BIT(1)	/* request (to the responder) */
#define SIB_OPF_RESP	BIT(2)	/* response (to the completer) */
#define SIB_OPF_START	BIT(3)	/* FIRST or ONLY */
#define SIB_OPF_END	BIT(4)	/* LAST or ONLY */
#define SIB_OPF_PAYLOAD	BIT(5)	/* may carry payload */
#define SIB_OPF_SEND	BIT(6)
#define SIB_OPF_WRITE	BIT(7)
#define SIB_OPF_READ	BIT(8)	/* read request */
#define SIB_OPF_RRESP	BIT(9)	/* read response */
#define SIB_OPF_ACK	BIT(10)
#define SIB_OPF_RETH	BIT(11)
#define SIB_OPF_AETH	BIT(12)
#define SIB_OPF_DETH	BIT(13)
#define SIB_OPF_IMM	BIT(14)
#define SIB_OPF_UD	BIT(15)
#define SIB_OPF_RWQE	BIT(16)	/* consumes a receive WQE at its end */
#define SIB_OPF_ATOMIC	BIT(17)	/* atomic request, has an AtomicETH */
#define SIB_OPF_ATMACK	BIT(18)	/* atomic response, has an AtomicAckETH */
#define SIB_OPF_IETH	BIT(19)	/* has an IETH (send with invalidate) */
#define SIB_OPF_AWRITE	BIT(20)	/* atomic write: RETH + 8 bytes */
#define SIB_OPF_UC	BIT(21)	/* unreliable connected request */
#define SIB_OPF_XRC	BIT(22)	/* XRC request or response */
#define SIB_OPF_XRCETH	BIT(23)	/* has an XRCETH right after the BTH */
#define SIB_OP_TRANSPORT_MASK	0xe0	/* the transport bits of an opcode */

/**
 * struct sib_opcode_info - const description of one opcode
 * @name: for traces
 * @flags: SIB_OPF_*
 * @hdr_len: BTH plus all extension headers, bytes
 * @off_deth: offset of the DETH from the BTH, 0 if absent
 * @off_reth: offset of the RETH, 0 if absent
 * @off_atmeth: offset of the AtomicETH, 0 if absent
 * @off_aeth: offset of the AETH, 0 if absent
 * @off_atmack: offset of the AtomicAckETH, 0 if absent
 * @off_imm: offset of the ImmDt, 0 if absent
 * @off_ieth: offset of the IETH (where an ImmDt would be), 0 if absent
 */
struct sib_opcode_info {
	const char *name;
	u32 flags;
	u8 hdr_len;
	u8 off_deth;
	u8 off_reth;
	u8 off_atmeth;
	u8 off_aeth;
	u8 off_atmack;
	u8 off_imm;
	u8 off_ieth;
};

extern const struct sib_opcode_info sib_opcode_table[256];

/**
 * sib_opcode() - table entry of @op
 * @op: BTH opcode
 *
 * Context: any. Return: the const entry; check SIB_OPF_VALID.
 */
static inline const struct sib_opcode_info *sib_opcode(u8 op)
{
	return &sib_opcode_table[op];
}

#endif /* SIB_HDR_H */
