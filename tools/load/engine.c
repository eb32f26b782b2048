// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-load engine: builds random WRs, posts them, and checks every
 * completion and every byte against what was posted.
 *
 * Slot rule: the requester's WR with sequence number seq uses slot
 * seq % depth of its local buffer, of its atomic result array and of the
 * responder's target buffer. RC completes in order, so a slot is free again
 * exactly when the WR that used it is known complete. Receive slot r of a
 * responder holds its receive WR number r % depth.
 */
#include <endian.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"

#define POISON		0xa5	/* READ destinations before the READ */
#define CANARY		0x5c	/* receive buffers before a receive */
#define POISON64	0xa5a5a5a5a5a5a5a5ULL
#define GUARD_KEY	0x6775617264ULL
#define RECV_KEY	0x72656376ULL
#define MAX_COMPLAINTS	40
#define POLL_BATCH	32

static const char *const op_names[OP_NUM] = {
	[OP_WRITE] = "RDMA_WRITE",
	[OP_WRITE_IMM] = "RDMA_WRITE_WITH_IMM",
	[OP_READ] = "RDMA_READ",
	[OP_SEND] = "SEND",
	[OP_SEND_IMM] = "SEND_WITH_IMM",
	[OP_CMP_SWP] = "ATOMIC_CMP_AND_SWP",
	[OP_FETCH_ADD] = "ATOMIC_FETCH_AND_ADD",
};

const char *load_op_name(enum load_op op)
{
	return op < OP_NUM ? op_names[op] : "?";
}

static bool op_needs_recv(enum load_op op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM;
}

static bool op_is_atomic(enum load_op op)
{
	return op == OP_CMP_SWP || op == OP_FETCH_ADD;
}

static enum ibv_wc_opcode op_wc_opcode(enum load_op op)
{
	switch (op) {
	case OP_WRITE:
	case OP_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
		return IBV_WC_RDMA_READ;
	case OP_CMP_SWP:
		return IBV_WC_COMP_SWAP;
	case OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

static void complain(struct load *l, const char *fmt, ...)
{
	static int n;
	va_list ap;

	if (n++ >= MAX_COMPLAINTS && !l->o.verbose) {
		if (n == MAX_COMPLAINTS + 1)
			printf("(further error reports not printed; -v prints all)\n");
		return;
	}
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static uint32_t mtu_bytes(struct load *l)
{
	return 128u << (l->path_mtu < 1 ? 1 : l->path_mtu);
}

/* log-uniform size in [0 or 1 (--no-empty), max], with edge sizes around the MTU now and then */
static uint32_t pick_size_any(struct load *l, struct load_ep *e)
{
	uint64_t max = l->o.max_size, mtu = mtu_bytes(l), s;
	uint64_t edge[8] = { 0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu, max - 1, max };
	struct load_rng *g = &e->rng;
	int bits;

	if (!max || l->o.fixed_size)
		return (uint32_t)max;
	if (load_rng_below(g, 8) == 0) {
		s = edge[load_rng_below(g, 8)];
		return (uint32_t)(s > max ? max : s);
	}
	bits = 64 - __builtin_clzll(max);
	s = load_rng_below(g, (uint64_t)bits + 1);
	if (s == 0)
		return 0;
	s = (1ULL << (s - 1)) + load_rng_below(g, 1ULL << (s - 1));
	return (uint32_t)(s > max ? max : s);
}

static uint32_t pick_size(struct load *l, struct load_ep *e)
{
	uint32_t s = pick_size_any(l, e);

	return (!s && l->o.no_empty && l->o.max_size) ? 1 : s;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Split len bytes into 1..maxk pieces placed in order, with random gaps, at a
 * random position of a region of region bytes (LOAD_MARGIN kept free at
 * both ends).
 */
static uint32_t split(struct load_rng *g, uint32_t len, int maxk, uint64_t region,
		      bool gaps, struct load_piece *p)
{
	uint32_t cut[LOAD_MAX_SGE + 1], gap[LOAD_MAX_SGE], k, m, i;
	uint64_t sumgap = 0, avail, off;

	if (!len)
		return 0;
	k = 1 + (uint32_t)load_rng_below(g, (uint64_t)maxk);
	if (k > len)
		k = len;
	for (i = 1; i < k; i++)
		cut[i] = 1 + (uint32_t)load_rng_below(g, len - 1);
	qsort(cut + 1, k - 1, sizeof(cut[0]), cmp_u32);
	cut[0] = 0;
	for (m = 1, i = 1; i < k; i++)
		if (cut[i] != cut[m - 1])
			cut[m++] = cut[i];
	cut[m] = len;
	for (i = 0; i < m; i++) {
		gap[i] = gaps && i ? (uint32_t)load_rng_below(g, LOAD_GAP / m + 1) : 0;
		sumgap += gap[i];
	}
	avail = region - 2 * LOAD_MARGIN - len - sumgap;
	off = LOAD_MARGIN + (gaps ? load_rng_below(g, avail + 1) : 0);
	for (i = 0; i < m; i++) {
		off += gap[i];
		p[i].off = (uint32_t)off;
		p[i].len = cut[i + 1] - cut[i];
		off += p[i].len;
	}
	return m;
}

static enum load_op pick_op(struct load *l, struct load_ep *e)
{
	enum load_op ops[OP_NUM];
	int n = 0, i;

	for (i = 0; i < OP_NUM; i++)
		if (l->o.op_mask & (1u << i))
			ops[n++] = (enum load_op)i;
	return ops[load_rng_below(&e->rng, (uint64_t)n)];
}

/* generate e->next, the WR with seq e->post_seq (after every post: shadow is current) */
static void gen_next(struct load *l, struct load_ep *e)
{
	struct load_wr *w = &e->next;
	struct load_rng *g = &e->rng;

	memset(w, 0, sizeof(*w));
	w->seq = e->post_seq;
	w->op = pick_op(l, e);
	w->imm = (uint32_t)load_rng_next(g);
	if (op_is_atomic(w->op)) {
		w->len = 8;
		w->roff = (uint32_t)load_rng_below(g, LOAD_ATOM_WORDS);
		w->swap_add = load_rng_next(g);
		/* half the CMP_SWPs compare equal (decided at post time) */
		w->compare = load_rng_below(g, 2) ? load_rng_next(g) : 0;
	} else {
		w->len = pick_size(l, e);
		w->nsge = split(g, w->len, w->op == OP_READ ? l->sge_rd : l->sge_send,
				l->slot_size, true, w->sge);
		w->roff = LOAD_MARGIN + (uint32_t)load_rng_below(g,
			l->slot_size - 2 * LOAD_MARGIN - w->len + 1);
	}
	e->have_next = true;
}

static void fence_next(struct load_ep *e)
{
	memset(&e->next, 0, sizeof(e->next));
	e->next.seq = e->post_seq;
	e->next.op = OP_WRITE;
	e->next.roff = LOAD_MARGIN;
	e->have_next = true;
}

static int post_recv(struct load *l, struct load_ep *p)
{
	uint64_t r = p->recv_posted, slot = r % (uint64_t)l->o.depth;
	uint8_t *buf = p->recv + slot * l->recv_size;
	struct load_piece pc[LOAD_MAX_SGE];
	struct ibv_sge sg[LOAD_MAX_SGE];
	struct ibv_recv_wr wr = {}, *bad;
	struct load_rng g;
	uint32_t i, n;

	memset(buf, CANARY, p->recv_dirty[slot]);
	p->recv_dirty[slot] = 0;
	load_rng_seed(&g, load_op_key(l->o.seed ^ RECV_KEY, p->id, r));
	n = split(&g, (uint32_t)l->o.max_size, l->sge_recv, l->recv_size, false, pc);
	for (i = 0; i < n; i++) {
		sg[i].addr = (uintptr_t)buf + pc[i].off - LOAD_MARGIN;
		sg[i].length = pc[i].len;
		sg[i].lkey = p->recv_mr->lkey;
	}
	wr.wr_id = LOAD_RECV_FLAG | ((uint64_t)p->id << LOAD_EP_SHIFT) | r;
	wr.sg_list = sg;
	wr.num_sge = (int)n;
	if (ibv_post_recv(p->qp, &wr, &bad)) {
		complain(l, "ERROR ibv_post_recv on QP 0x%x failed\n", p->qp->qp_num);
		l->st.verb_errors++;
		return -1;
	}
	p->recv_posted++;
	return 0;
}

/* prepare buffers and the shadow model for w, fill the verbs WR */
static void prep_wr(struct load *l, struct load_ep *e, struct load_wr *w,
		    struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	uint64_t slot = w->seq % (uint64_t)l->o.depth, key = load_op_key(l->o.seed, e->id, w->seq);
	uint8_t *loc = e->local + slot * l->slot_size;
	uint8_t *rem = e->peer->target + slot * l->slot_size;
	uint64_t moff = 0, *sh;
	uint32_t i;

	for (i = 0; i < w->nsge; i++) {
		sg[i].addr = (uintptr_t)loc + w->sge[i].off;
		sg[i].length = w->sge[i].len;
		sg[i].lkey = e->local_mr->lkey;
		if (w->op != OP_READ)
			load_pat_fill(loc + w->sge[i].off, key, moff, w->sge[i].len);
		moff += w->sge[i].len;
	}
	wr->sg_list = sg;
	wr->num_sge = (int)w->nsge;
	wr->wr.rdma.remote_addr = (uintptr_t)rem + w->roff;
	wr->wr.rdma.rkey = e->peer->target_mr->rkey;
	switch (w->op) {
	case OP_WRITE_IMM:
	case OP_WRITE:
		load_pat_fill(rem + w->roff - LOAD_MARGIN, key ^ GUARD_KEY, 0, LOAD_MARGIN);
		load_pat_fill(rem + w->roff + w->len, key ^ GUARD_KEY, LOAD_MARGIN, LOAD_MARGIN);
		wr->opcode = w->op == OP_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_WRITE_WITH_IMM;
		break;
	case OP_READ:
		load_pat_fill(rem + w->roff, key, 0, w->len);
		if (w->nsge)
			memset(loc + w->sge[0].off - LOAD_MARGIN, POISON,
			       w->sge[w->nsge - 1].off + w->sge[w->nsge - 1].len -
			       w->sge[0].off + 2 * LOAD_MARGIN);
		wr->opcode = IBV_WR_RDMA_READ;
		break;
	case OP_SEND:
	case OP_SEND_IMM:
		wr->opcode = w->op == OP_SEND ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM;
		break;
	case OP_CMP_SWP:
	case OP_FETCH_ADD:
		sh = &e->shadow[w->roff];
		e->result[slot] = POISON64;
		sg[0].addr = (uintptr_t)&e->result[slot];
		sg[0].length = 8;
		sg[0].lkey = e->result_mr->lkey;
		wr->num_sge = 1;
		wr->wr.atomic.remote_addr = (uintptr_t)&e->peer->atom[w->roff];
		wr->wr.atomic.rkey = e->peer->atom_mr->rkey;
		w->expect_orig = *sh;
		if (w->op == OP_CMP_SWP) {
			if (!w->compare)
				w->compare = *sh;
			wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr->wr.atomic.compare_add = w->compare;
			wr->wr.atomic.swap = w->swap_add;
			if (w->compare == *sh)
				*sh = w->swap_add;
		} else {
			wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr->wr.atomic.compare_add = w->swap_add;
			*sh += w->swap_add;
		}
		e->pending[w->roff]++;
		break;
	default:
		break;
	}
	if (w->op == OP_WRITE_IMM || w->op == OP_SEND_IMM)
		wr->imm_data = htobe32(w->imm);
}

static int post_next(struct load *l, struct load_ep *e, bool last)
{
	struct load_wr *w = &e->wrs[e->post_seq % (uint64_t)l->o.depth];
	struct ibv_sge sg[LOAD_MAX_SGE];
	struct ibv_send_wr wr = {}, *bad;
	struct load_ep *p = e->peer;
	uint64_t inflight = e->post_seq - e->done_seq + 1;

	*w = e->next;
	e->have_next = false;
	prep_wr(l, e, w, &wr, sg);
	w->signaled = l->o.signal_every <= 1 || last ||
		      e->since_signal + 1 >= (uint32_t)l->o.signal_every ||
		      inflight >= (uint64_t)l->o.depth;
	e->since_signal = w->signaled ? 0 : e->since_signal + 1;
	wr.send_flags = w->signaled ? IBV_SEND_SIGNALED : 0;
	wr.wr_id = ((uint64_t)e->id << LOAD_EP_SHIFT) | w->seq;
	if (op_needs_recv(w->op)) {
		struct load_expect *x = &p->expect[p->expect_tail++ % (uint64_t)l->o.depth];

		x->seq = w->seq;
		x->op = w->op;
		x->len = w->len;
		x->imm = w->imm;
	}
	if (ibv_post_send(e->qp, &wr, &bad)) {
		complain(l, "ERROR ibv_post_send on QP 0x%x failed (%s, len %u, %u SGEs)\n",
			 e->qp->qp_num, load_op_name(w->op), w->len, w->nsge);
		l->st.verb_errors++;
		if (op_needs_recv(w->op))
			p->expect_tail--;
		if (op_is_atomic(w->op))
			e->pending[w->roff]--;
		e->dead = true;
		e->dead_seq = w->seq;
		return -1;
	}
	e->post_seq++;
	l->st.posted++;
	l->st.bytes_posted += w->len;
	return 0;
}

static void report_mismatch(struct load *l, struct load_ep *e, struct load_wr *w,
			    const char *what, size_t bad, size_t at, int got, int want)
{
	l->st.bad_bytes += bad;
	if (l->mismatch_logged++ >= LOAD_MAX_MISMATCH_LOG && !l->o.verbose)
		return;
	complain(l, "MISMATCH QP 0x%x -> 0x%x op %llu %s len %u nsge %u roff %u: %s: %zu bad bytes, first at %zu (got 0x%02x want 0x%02x)\n",
		 e->qp->qp_num, e->peer->qp->qp_num, (unsigned long long)w->seq,
		 load_op_name(w->op), w->len, w->nsge, w->roff, what, bad, at, got, want);
}

/* returns the number of bad bytes in buf versus the pattern, reporting them */
static size_t check_pat(struct load *l, struct load_ep *e, struct load_wr *w, const char *what,
			const uint8_t *buf, uint64_t key, uint64_t off, size_t len)
{
	size_t at = 0, bad;
	uint8_t got = 0, want = 0;

	bad = load_pat_check(buf, key, off, len, &at, &got, &want);
	if (bad)
		report_mismatch(l, e, w, what, bad, at + off, got, want);
	return bad;
}

static size_t check_fill(struct load *l, struct load_ep *e, struct load_wr *w, const char *what,
			 const uint8_t *buf, uint8_t val, size_t len)
{
	size_t at = 0, bad = load_byte_check(buf, val, len, &at);

	if (bad)
		report_mismatch(l, e, w, what, bad, at, buf[at], val);
	return bad;
}

static size_t verify_write(struct load *l, struct load_ep *e, struct load_wr *w, uint64_t key)
{
	uint8_t *rem = e->peer->target + (w->seq % (uint64_t)l->o.depth) * l->slot_size + w->roff;

	return check_pat(l, e, w, "remote data", rem, key, 0, w->len) +
	       check_pat(l, e, w, "guard before remote data", rem - LOAD_MARGIN,
			 key ^ GUARD_KEY, 0, LOAD_MARGIN) +
	       check_pat(l, e, w, "guard after remote data", rem + w->len,
			 key ^ GUARD_KEY, LOAD_MARGIN, LOAD_MARGIN);
}

static size_t verify_read(struct load *l, struct load_ep *e, struct load_wr *w, uint64_t key)
{
	uint8_t *loc = e->local + (w->seq % (uint64_t)l->o.depth) * l->slot_size;
	uint32_t i, end = w->sge[0].off - LOAD_MARGIN;
	uint64_t moff = 0;
	size_t bad = 0;

	if (!w->nsge)
		return 0;
	for (i = 0; i < w->nsge; i++) {
		bad += check_fill(l, e, w, "bytes before/between SGEs", loc + end, POISON,
				  w->sge[i].off - end);
		bad += check_pat(l, e, w, "local data", loc + w->sge[i].off, key, moff,
				 w->sge[i].len);
		moff += w->sge[i].len;
		end = w->sge[i].off + w->sge[i].len;
	}
	return bad + check_fill(l, e, w, "bytes after the last SGE", loc + end, POISON,
				LOAD_MARGIN);
}

static size_t verify_atomic(struct load *l, struct load_ep *e, struct load_wr *w)
{
	uint64_t got = e->result[w->seq % (uint64_t)l->o.depth];
	size_t bad = 0;

	if (got != w->expect_orig) {
		bad++;
		complain(l, "MISMATCH QP 0x%x op %llu %s word %u: original value 0x%016llx, shadow model says 0x%016llx\n",
			 e->qp->qp_num, (unsigned long long)w->seq, load_op_name(w->op), w->roff,
			 (unsigned long long)got, (unsigned long long)w->expect_orig);
	}
	if (e->pending[w->roff] == 1 && e->peer->atom[w->roff] != e->shadow[w->roff]) {
		bad++;
		complain(l, "MISMATCH QP 0x%x op %llu %s word %u: remote value 0x%016llx, shadow model says 0x%016llx\n",
			 e->qp->qp_num, (unsigned long long)w->seq, load_op_name(w->op), w->roff,
			 (unsigned long long)e->peer->atom[w->roff],
			 (unsigned long long)e->shadow[w->roff]);
	}
	return bad;
}

/* w is known complete: wc is its CQE, or NULL when a later CQE implies it */
static void complete_wr(struct load *l, struct load_ep *e, struct load_wr *w, struct ibv_wc *wc)
{
	uint64_t key = load_op_key(l->o.seed, e->id, w->seq);
	bool ok = wc ? wc->status == IBV_WC_SUCCESS : !(e->dead && w->seq >= e->dead_seq);
	size_t bad = 0;

	if (wc && wc->status != IBV_WC_SUCCESS && !e->dead) {
		/*
		 * Messages from here on may or may not have reached the responder
		 * (an ACK lost before the retries ran out): their receives are
		 * optional from now on, see expect_required().
		 */
		e->dead = true;
		e->dead_seq = w->seq;
	}
	if (ok) {
		if (wc && (wc->opcode != op_wc_opcode(w->op) || wc->byte_len != w->len)) {
			l->st.bad_cqe++;
			complain(l, "BAD_CQE QP 0x%x op %llu %s len %u: CQE opcode %d byte_len %u\n",
				 e->qp->qp_num, (unsigned long long)w->seq, load_op_name(w->op),
				 w->len, wc->opcode, wc->byte_len);
		}
		if (w->op == OP_WRITE || w->op == OP_WRITE_IMM)
			bad = verify_write(l, e, w, key);
		else if (w->op == OP_READ)
			bad = verify_read(l, e, w, key);
		else if (op_is_atomic(w->op))
			bad = verify_atomic(l, e, w);
		if (bad)
			l->st.mismatches++;
		l->st.ops[w->op]++;
		l->st.bytes += w->len;
	}
	if (op_is_atomic(w->op))
		e->pending[w->roff]--;
}

static void count_status(struct load *l, struct ibv_wc *wc, const char *side)
{
	unsigned int s = wc->status < 32 ? wc->status : 31;

	l->st.status[s]++;
	if (wc->status != IBV_WC_WR_FLUSH_ERR || l->o.verbose)
		complain(l, "STATUS %s CQE wr_id 0x%llx QP 0x%x: %s (%d), vendor_err 0x%x\n", side,
			 (unsigned long long)wc->wr_id, wc->qp_num, ibv_wc_status_str(wc->status),
			 wc->status, wc->vendor_err);
}

static void on_send_cqe(struct load *l, struct load_ep *e, struct ibv_wc *wc)
{
	uint64_t seq = wc->wr_id & LOAD_SEQ_MASK, s;
	int ep = (int)((wc->wr_id & ~LOAD_RECV_FLAG) >> LOAD_EP_SHIFT);
	struct load_wr *w;

	l->st.send_cqes++;
	if (wc->status != IBV_WC_SUCCESS)
		count_status(l, wc, "send");
	if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR &&
	    ep == e->id && seq < e->post_seq && seq >= e->done_seq) {
		w = &e->wrs[seq % (uint64_t)l->o.depth];
		complain(l, "       that is op %llu %s len %u nsge %u roff %u\n",
			 (unsigned long long)seq, load_op_name(w->op), w->len, w->nsge, w->roff);
	}
	if ((wc->wr_id & LOAD_RECV_FLAG) || ep != e->id || seq >= e->post_seq) {
		l->st.unknown++;
		complain(l, "UNKNOWN send CQE on QP 0x%x: wr_id 0x%llx was never posted there\n",
			 e->qp->qp_num, (unsigned long long)wc->wr_id);
		return;
	}
	if (seq < e->done_seq) {
		l->st.duplicated++;
		complain(l, "DUPLICATE send CQE on QP 0x%x: op %llu %s completed before\n",
			 e->qp->qp_num, (unsigned long long)seq,
			 load_op_name(e->wrs[seq % (uint64_t)l->o.depth].op));
		return;
	}
	for (s = e->done_seq; s < seq; s++) {
		w = &e->wrs[s % (uint64_t)l->o.depth];
		if (w->signaled) {
			l->st.lost++;
			complain(l, "LOST send CQE on QP 0x%x: op %llu %s len %u has none, op %llu has one\n",
				 e->qp->qp_num, (unsigned long long)s, load_op_name(w->op), w->len,
				 (unsigned long long)seq);
		}
		complete_wr(l, e, w, NULL);
	}
	w = &e->wrs[seq % (uint64_t)l->o.depth];
	if (!w->signaled && wc->status == IBV_WC_SUCCESS) {
		l->st.bad_cqe++;
		complain(l, "BAD_CQE QP 0x%x: CQE for unsignaled op %llu\n", e->qp->qp_num,
			 (unsigned long long)seq);
	}
	complete_wr(l, e, w, wc);
	e->done_seq = seq + 1;
}

/* check one receive CQE against the message expected next; true when it matched */
static bool check_recv(struct load *l, struct load_ep *p, struct ibv_wc *wc,
		       struct load_expect *x, uint8_t *buf)
{
	struct load_wr w = { .seq = x->seq, .op = x->op, .len = x->len };
	struct load_ep *e = p->peer;
	enum ibv_wc_opcode opc = x->op == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	bool imm = x->op != OP_SEND;
	size_t bad = 0;

	if (wc->opcode != opc || wc->byte_len != x->len || wc->qp_num != p->qp->qp_num ||
	    !!(wc->wc_flags & IBV_WC_WITH_IMM) != imm ||
	    (imm && be32toh(wc->imm_data) != x->imm)) {
		l->st.bad_cqe++;
		complain(l, "BAD_CQE recv QP 0x%x for op %llu %s len %u imm 0x%x: opcode %d byte_len %u qp 0x%x flags 0x%x imm 0x%x\n",
			 p->qp->qp_num, (unsigned long long)x->seq, load_op_name(x->op), x->len,
			 x->imm, wc->opcode, wc->byte_len, wc->qp_num, wc->wc_flags,
			 be32toh(wc->imm_data));
	}
	if (x->op == OP_WRITE_IMM) {
		bad = check_fill(l, e, &w, "receive buffer (must stay untouched)", buf, CANARY,
				 LOAD_MARGIN);
	} else {
		bad = check_pat(l, e, &w, "receive buffer", buf,
				load_op_key(l->o.seed, e->id, x->seq), 0, x->len);
		bad += check_fill(l, e, &w, "bytes after the message in the receive buffer",
				  buf + x->len, CANARY, LOAD_MARGIN);
	}
	if (bad)
		l->st.mismatches++;
	return true;
}

static void on_recv_cqe(struct load *l, struct load_ep *p, struct ibv_wc *wc)
{
	uint64_t r = wc->wr_id & LOAD_SEQ_MASK, slot = r % (uint64_t)l->o.depth;
	int ep = (int)((wc->wr_id & ~LOAD_RECV_FLAG) >> LOAD_EP_SHIFT);

	l->st.recv_cqes++;
	if (wc->status != IBV_WC_SUCCESS) {
		count_status(l, wc, "recv");
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			l->st.flushed_recv++;
		p->recv_dead = true;
		return;
	}
	if (!(wc->wr_id & LOAD_RECV_FLAG) || ep != p->id || r >= p->recv_posted) {
		l->st.unknown++;
		complain(l, "UNKNOWN recv CQE on QP 0x%x: wr_id 0x%llx was never posted there\n",
			 p->qp->qp_num, (unsigned long long)wc->wr_id);
		return;
	}
	if (r < p->recv_done) {
		l->st.duplicated++;
		complain(l, "DUPLICATE recv CQE on QP 0x%x: receive %llu completed before\n",
			 p->qp->qp_num, (unsigned long long)r);
		return;
	}
	if (r != p->recv_done) {
		l->st.bad_cqe++;
		complain(l, "BAD_CQE recv QP 0x%x: receive %llu completed before receive %llu\n",
			 p->qp->qp_num, (unsigned long long)r, (unsigned long long)p->recv_done);
	}
	if (p->expect_head == p->expect_tail) {
		l->st.unknown++;
		complain(l, "UNKNOWN recv CQE on QP 0x%x: no message was sent for it (opcode %d byte_len %u)\n",
			 p->qp->qp_num, wc->opcode, wc->byte_len);
	} else {
		check_recv(l, p, wc, &p->expect[p->expect_head++ % (uint64_t)l->o.depth],
			   p->recv + slot * l->recv_size);
	}
	p->recv_dirty[slot] = wc->byte_len + LOAD_MARGIN < l->recv_size ?
			      wc->byte_len + LOAD_MARGIN : (uint32_t)l->recv_size;
	p->recv_done = r + 1;
	post_recv(l, p);
}

/* a failed ibv_poll_cq (e.g. EIO: the device went away) is an error, reported once */
static void poll_failed(struct load *l, int n)
{
	if (!l->st.verb_errors++)
		complain(l, "ERROR ibv_poll_cq failed (%d)\n", n);
}

static int poll_all(struct load *l)
{
	struct ibv_wc wc[POLL_BATCH];
	int i, j, n, total = 0;

	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		n = ibv_poll_cq(e->scq, POLL_BATCH, wc);
		if (n < 0)
			poll_failed(l, n);
		for (j = 0; j < n; j++)
			on_send_cqe(l, e, &wc[j]);
		total += n > 0 ? n : 0;
		n = ibv_poll_cq(e->rcq, POLL_BATCH, wc);
		if (n < 0)
			poll_failed(l, n);
		for (j = 0; j < n; j++)
			on_recv_cqe(l, e, &wc[j]);
		total += n > 0 ? n : 0;
	}
	return total;
}

static bool posting_over(struct load *l, struct load_ep *e, double now)
{
	if (l->o.total_bytes && l->st.bytes_posted >= l->o.total_bytes)
		return true;
	if (l->o.seconds > 0 && now - l->t_start >= l->o.seconds)
		return true;
	return l->o.ops_per_qp && e->post_seq >= l->o.ops_per_qp;
}

static bool can_post(struct load *l, struct load_ep *e)
{
	struct load_ep *p = e->peer;

	if (!e->active || e->dead || e->post_seq - e->done_seq >= (uint64_t)l->o.depth)
		return false;
	if (op_needs_recv(e->next.op) && p->recv_dead) {
		/* the responder's receive queue was flushed: this flow cannot go on */
		e->dead = true;
		e->dead_seq = e->post_seq;
		complain(l, "STOP QP 0x%x: its peer's receive queue was flushed, no more requests\n",
			 e->qp->qp_num);
		return false;
	}
	if (op_needs_recv(e->next.op) && p->expect_tail - p->expect_head >= (uint64_t)l->o.depth)
		return false;
	return true;
}

/* the last WR posted is unsignaled and not known complete: a fence must end it */
static bool needs_fence(struct load *l, struct load_ep *e)
{
	return e->post_seq > e->done_seq &&
	       !e->wrs[(e->post_seq - 1) % (uint64_t)l->o.depth].signaled;
}

/* post what can be posted; returns the number of WRs posted */
static int post_all(struct load *l, double now)
{
	int i, n = 0;
	bool last;

	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		while (e->active && !e->dead) {
			last = false;
			if (!e->have_next) {
				if (!posting_over(l, e, now)) {
					gen_next(l, e);
				} else if (needs_fence(l, e)) {
					fence_next(e);	/* a signaled 0-byte WRITE */
				} else {
					break;
				}
			}
			if (!can_post(l, e))
				break;
			/* the last WR before the end (or the fence) is signaled */
			last = posting_over(l, e, now) ||
			       (l->o.ops_per_qp && e->post_seq + 1 >= l->o.ops_per_qp);
			if (post_next(l, e, last))
				break;
			n++;
		}
	}
	return n;
}

/*
 * Receive completions p must still see: all expected ones, except those for
 * messages at or after its requester's first failed WR (RC delivers those at
 * most once) and none once p's receive queue was flushed.
 */
static uint64_t expect_required(struct load *l, struct load_ep *p)
{
	uint64_t i, n = 0;

	if (p->recv_dead)
		return 0;
	for (i = p->expect_head; i < p->expect_tail; i++, n++)
		if (p->peer->dead && p->expect[i % (uint64_t)l->o.depth].seq >= p->peer->dead_seq)
			break;
	return n;
}

static bool drained(struct load *l, double now)
{
	int i;

	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		if (e->active && !e->dead && (e->have_next || !posting_over(l, e, now) ||
					       needs_fence(l, e)))
			return false;
		if (e->post_seq != e->done_seq)
			return false;
		if (expect_required(l, e))
			return false;
	}
	return true;
}

/* nothing came for too long: everything still expected is lost */
static void declare_lost(struct load *l)
{
	uint64_t s, n;
	int i;

	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		for (n = 0, s = e->done_seq; s < e->post_seq; s++)
			n += e->wrs[s % (uint64_t)l->o.depth].signaled;
		if (n)
			complain(l, "LOST %llu send CQEs on QP 0x%x (ops %llu..%llu outstanding, first %s len %u)\n",
				 (unsigned long long)n, e->qp->qp_num,
				 (unsigned long long)e->done_seq, (unsigned long long)e->post_seq - 1,
				 load_op_name(e->wrs[e->done_seq % (uint64_t)l->o.depth].op),
				 e->wrs[e->done_seq % (uint64_t)l->o.depth].len);
		l->st.lost += n;
		n = expect_required(l, e);
		if (n) {
			complain(l, "LOST %llu recv CQEs on QP 0x%x (first for op %llu %s len %u)\n",
				 (unsigned long long)n, e->qp->qp_num,
				 (unsigned long long)e->expect[e->expect_head % (uint64_t)l->o.depth].seq,
				 load_op_name(e->expect[e->expect_head % (uint64_t)l->o.depth].op),
				 e->expect[e->expect_head % (uint64_t)l->o.depth].len);
			l->st.lost += n;
		}
	}
}

static void final_atomic_check(struct load *l)
{
	int i, w;

	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		if (!e->active || e->dead)
			continue;
		for (w = 0; w < LOAD_ATOM_WORDS; w++) {
			if (e->peer->atom[w] == e->shadow[w])
				continue;
			l->st.mismatches++;
			complain(l, "MISMATCH QP 0x%x atomic word %d at the end: 0x%016llx, shadow model says 0x%016llx\n",
				 e->qp->qp_num, w, (unsigned long long)e->peer->atom[w],
				 (unsigned long long)e->shadow[w]);
		}
	}
}

static void idle(unsigned int *idle_rounds)
{
	if (++*idle_rounds < 64)
		return;
	if (*idle_rounds < 2000)
		sched_yield();
	else
		usleep(100);
}

static int post_first_recvs(struct load *l)
{
	int i, d;

	for (i = 0; i < l->neps; i++) {
		struct load_ep *e = &l->eps[i];

		if (e->peer->active)
			for (d = 0; d < l->o.depth; d++)
				if (post_recv(l, e))
					return -1;
	}
	l->recvs_posted = true;
	return 0;
}

/* --peer-error-after: the second QP of every pair goes to ERROR, as if its host died */
static void kill_peers(struct load *l)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int i;

	printf("fault: moving the second QP of each pair to ERROR after %.1f s\n",
	       load_now() - l->t_start);
	for (i = 1; i < l->neps; i += 2)
		if (ibv_modify_qp(l->eps[i].qp, &a, IBV_QP_STATE))
			complain(l, "ERROR cannot move QP 0x%x to ERROR\n", l->eps[i].qp->qp_num);
	l->peers_killed = true;
}

/* delayed receives and injected faults; returns -1 on a setup failure */
static int timed_events(struct load *l, double now, double *progress_at)
{
	if (!l->recvs_posted && now - l->t_start >= l->o.recv_delay) {
		if (post_first_recvs(l))
			return -1;
		*progress_at = now;
	}
	if (l->o.peer_error_after > 0 && !l->peers_killed &&
	    now - l->t_start >= l->o.peer_error_after) {
		kill_peers(l);
		*progress_at = now;
	}
	return 0;
}

int load_run(struct load *l)
{
	double now, last = 0, progress_at;
	unsigned int idle_rounds = 0;
	int n;

	l->t_start = progress_at = load_now();
	for (;;) {
		now = load_now();
		if (timed_events(l, now, &progress_at))
			return -1;
		n = post_all(l, now);
		n += poll_all(l);
		if (n) {
			idle_rounds = 0;
			progress_at = now;
		} else {
			idle(&idle_rounds);
		}
		if (l->recvs_posted && drained(l, now))
			break;
		if (now - progress_at > l->o.stall_timeout) {
			printf("no completion for %.1f s: stopping\n", now - progress_at);
			declare_lost(l);
			break;
		}
		if (l->o.verbose && now - last >= 1.0) {
			last = now;
			printf("progress: %.1f s, %llu ops, %llu bytes\n", now - l->t_start,
			       (unsigned long long)l->st.posted, (unsigned long long)l->st.bytes);
		}
	}
	l->st.elapsed = load_now() - l->t_start;
	/* linger: late duplicates or CQEs for nothing still count */
	for (now = load_now(); load_now() - now < 0.2;)
		if (!poll_all(l))
			usleep(1000);
	final_atomic_check(l);
	return 0;
}
