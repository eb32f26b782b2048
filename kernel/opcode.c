// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the const opcode table (IBTA 9.2.1). Extension header offsets
 * are derived from the header flags in the order BTH, DETH, RETH,
 * AtomicETH, AETH, AtomicAckETH, ImmDt (IBTA 9.2, "transport header order").
 */
#include "hdr.h"

#define D_OFF(f)	SIB_BTH_LEN
#define R_OFF(f)	(SIB_BTH_LEN + (((f) & SIB_OPF_DETH) ? SIB_DETH_LEN : 0))
#define T_OFF(f)	(R_OFF(f) + (((f) & SIB_OPF_RETH) ? SIB_RETH_LEN : 0))
#define A_OFF(f)	(T_OFF(f) + (((f) & SIB_OPF_ATOMIC) ? SIB_ATMETH_LEN : 0))
#define K_OFF(f)	(A_OFF(f) + (((f) & SIB_OPF_AETH) ? SIB_AETH_LEN : 0))
#define I_OFF(f)	(K_OFF(f) + (((f) & SIB_OPF_ATMACK) ? SIB_ATMACK_LEN : 0))
#define H_LEN(f)	(I_OFF(f) + (((f) & SIB_OPF_IMM) ? SIB_IMM_LEN : 0))

#define OP(code, nm, f) [code] = {					\
	.name = nm, .flags = (f) | SIB_OPF_VALID, .hdr_len = H_LEN(f),	\
	.off_deth = ((f) & SIB_OPF_DETH) ? D_OFF(f) : 0,		\
	.off_reth = ((f) & SIB_OPF_RETH) ? R_OFF(f) : 0,		\
	.off_atmeth = ((f) & SIB_OPF_ATOMIC) ? T_OFF(f) : 0,		\
	.off_aeth = ((f) & SIB_OPF_AETH) ? A_OFF(f) : 0,		\
	.off_atmack = ((f) & SIB_OPF_ATMACK) ? K_OFF(f) : 0,		\
	.off_imm = ((f) & SIB_OPF_IMM) ? I_OFF(f) : 0,			\
}

#define RQ	(SIB_OPF_REQ | SIB_OPF_PAYLOAD)
#define SND	(RQ | SIB_OPF_SEND)
#define WR	(RQ | SIB_OPF_WRITE)
#define RR	(SIB_OPF_RESP | SIB_OPF_RRESP | SIB_OPF_PAYLOAD)
#define ST	SIB_OPF_START
#define EN	SIB_OPF_END

const struct sib_opcode_info sib_opcode_table[256] = {
	OP(SIB_OP_RC_SEND_FIRST, "RC_SEND_FIRST", SND | ST),
	OP(SIB_OP_RC_SEND_MIDDLE, "RC_SEND_MIDDLE", SND),
	OP(SIB_OP_RC_SEND_LAST, "RC_SEND_LAST", SND | EN | SIB_OPF_RWQE),
	OP(SIB_OP_RC_SEND_LAST_IMM, "RC_SEND_LAST_IMM",
	   SND | EN | SIB_OPF_IMM | SIB_OPF_RWQE),
	OP(SIB_OP_RC_SEND_ONLY, "RC_SEND_ONLY", SND | ST | EN | SIB_OPF_RWQE),
	OP(SIB_OP_RC_SEND_ONLY_IMM, "RC_SEND_ONLY_IMM",
	   SND | ST | EN | SIB_OPF_IMM | SIB_OPF_RWQE),
	OP(SIB_OP_RC_WRITE_FIRST, "RC_WRITE_FIRST", WR | ST | SIB_OPF_RETH),
	OP(SIB_OP_RC_WRITE_MIDDLE, "RC_WRITE_MIDDLE", WR),
	OP(SIB_OP_RC_WRITE_LAST, "RC_WRITE_LAST", WR | EN),
	OP(SIB_OP_RC_WRITE_LAST_IMM, "RC_WRITE_LAST_IMM",
	   WR | EN | SIB_OPF_IMM | SIB_OPF_RWQE),
	OP(SIB_OP_RC_WRITE_ONLY, "RC_WRITE_ONLY",
	   WR | ST | EN | SIB_OPF_RETH),
	OP(SIB_OP_RC_WRITE_ONLY_IMM, "RC_WRITE_ONLY_IMM",
	   WR | ST | EN | SIB_OPF_RETH | SIB_OPF_IMM | SIB_OPF_RWQE),
	OP(SIB_OP_RC_READ_REQ, "RC_READ_REQUEST",
	   SIB_OPF_REQ | SIB_OPF_READ | ST | EN | SIB_OPF_RETH),
	OP(SIB_OP_RC_READ_RESP_FIRST, "RC_READ_RESPONSE_FIRST",
	   RR | ST | SIB_OPF_AETH),
	OP(SIB_OP_RC_READ_RESP_MIDDLE, "RC_READ_RESPONSE_MIDDLE", RR),
	OP(SIB_OP_RC_READ_RESP_LAST, "RC_READ_RESPONSE_LAST",
	   RR | EN | SIB_OPF_AETH),
	OP(SIB_OP_RC_READ_RESP_ONLY, "RC_READ_RESPONSE_ONLY",
	   RR | ST | EN | SIB_OPF_AETH),
	OP(SIB_OP_RC_ACK, "RC_ACKNOWLEDGE",
	   SIB_OPF_RESP | SIB_OPF_ACK | ST | EN | SIB_OPF_AETH),
	OP(SIB_OP_RC_ATOMIC_ACK, "RC_ATOMIC_ACKNOWLEDGE",
	   SIB_OPF_RESP | ST | EN | SIB_OPF_AETH | SIB_OPF_ATMACK),
	OP(SIB_OP_RC_CMP_SWAP, "RC_COMPARE_SWAP",
	   SIB_OPF_REQ | SIB_OPF_ATOMIC | ST | EN),
	OP(SIB_OP_RC_FETCH_ADD, "RC_FETCH_ADD",
	   SIB_OPF_REQ | SIB_OPF_ATOMIC | ST | EN),
	OP(SIB_OP_UD_SEND_ONLY, "UD_SEND_ONLY",
	   SND | ST | EN | SIB_OPF_DETH | SIB_OPF_UD | SIB_OPF_RWQE),
	OP(SIB_OP_UD_SEND_ONLY_IMM, "UD_SEND_ONLY_IMM",
	   SND | ST | EN | SIB_OPF_DETH | SIB_OPF_IMM | SIB_OPF_UD |
	   SIB_OPF_RWQE),
};
