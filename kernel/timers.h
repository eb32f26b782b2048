/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_TIMERS_H
#define SIB_TIMERS_H

#include "softib.h"

void sib_timers_init(struct sib_qp *qp);
void sib_timers_stop(struct sib_qp *qp);
void sib_timer_retrans_arm(struct sib_qp *qp);
void sib_timer_retrans_flush(struct sib_qp *qp);
bool sib_timer_retrans_pending(struct sib_qp *qp);
bool sib_timer_probe_pending(struct sib_qp *qp);
void sib_timer_retrans_progress(struct sib_qp *qp, bool outstanding);
void sib_timer_probe_rearm(struct sib_qp *qp);
void sib_timer_retrans_stop(struct sib_qp *qp);
void sib_timer_rnr_start(struct sib_qp *qp, u8 code);
void sib_timer_pace_arm(struct sib_qp *qp, u64 ns);
u32 sib_rnr_timer_usecs(u8 code);
unsigned int sib_timer_ack_timeout_ms(struct sib_qp *qp);

bool sib_win_may_send(struct sib_qp *qp, u32 inflight);
u32 sib_win_ackreq_every(struct sib_qp *qp);
u16 sib_win_read_chunk(struct sib_qp *qp);
void sib_win_sent(struct sib_qp *qp, u32 psn, bool ackreq);
void sib_win_span_sent(struct sib_qp *qp, u32 last);
u32 sib_win_next_psn(struct sib_qp *qp);
void sib_win_rtt_sample(struct sib_qp *qp, u32 us);
void sib_win_acked(struct sib_qp *qp, u32 acked, u32 npkts);
void sib_win_loss(struct sib_qp *qp, bool timeout);
void sib_win_probe(struct sib_qp *qp, bool cut);
void sib_win_probe_answer(struct sib_qp *qp, u32 acked);
void sib_win_rtt_forget(struct sib_qp *qp);

#endif
