// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sib-load: seeded PRNG and the data pattern. Every byte an op moves is a
 * function of (seed, endpoint, op sequence, offset in the message), so the
 * receiver can check it without a copy of what was sent.
 */
#include <string.h>
#include <time.h>

#include "load.h"

uint64_t load_mix64(uint64_t x)
{
	/* splitmix64 finalizer */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void load_rng_seed(struct load_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		seed = load_mix64(seed + (uint64_t)i);
		r->s[i] = seed ? seed : 1;
	}
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
uint64_t load_rng_next(struct load_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t load_rng_below(struct load_rng *r, uint64_t n)
{
	return n ? load_rng_next(r) % n : 0;
}

uint64_t load_op_key(uint64_t seed, int ep, uint64_t seq)
{
	return load_mix64(seed ^ load_mix64(((uint64_t)ep << 48) ^ seq));
}

static inline uint64_t pat_word(uint64_t key, uint64_t w)
{
	return load_mix64(key + w * 0xd1342543de82ef95ULL);
}

static inline uint8_t pat_byte(uint64_t key, uint64_t off)
{
	return (uint8_t)(pat_word(key, off >> 3) >> (8 * (off & 7)));
}

/* dst[0..len) = the message bytes [off, off + len) of the op with this key */
void load_pat_fill(uint8_t *dst, uint64_t key, uint64_t off, size_t len)
{
	uint64_t w;

	while (len && (off & 7)) {
		*dst++ = pat_byte(key, off++);
		len--;
	}
	while (len >= 8) {
		w = pat_word(key, off >> 3);
		memcpy(dst, &w, 8);	/* little-endian: byte k is w >> 8k */
		dst += 8;
		off += 8;
		len -= 8;
	}
	while (len) {
		*dst++ = pat_byte(key, off++);
		len--;
	}
}

/*
 * Count the bytes of buf[0..len) that differ from the pattern; the first
 * bad one is reported through first_bad (index into buf), got and want.
 */
size_t load_pat_check(const uint8_t *buf, uint64_t key, uint64_t off, size_t len,
		      size_t *first_bad, uint8_t *got, uint8_t *want)
{
	size_t i = 0, bad = 0;
	uint64_t w, v;
	uint8_t e;

	while (i < len) {
		if (((off + i) & 7) == 0 && len - i >= 8) {
			w = pat_word(key, (off + i) >> 3);
			memcpy(&v, buf + i, 8);
			if (v == w) {
				i += 8;
				continue;
			}
		}
		e = pat_byte(key, off + i);
		if (buf[i] != e) {
			if (!bad++) {
				*first_bad = i;
				*got = buf[i];
				*want = e;
			}
		}
		i++;
	}
	return bad;
}

size_t load_byte_check(const uint8_t *buf, uint8_t val, size_t len, size_t *first_bad)
{
	size_t i, bad = 0;

	for (i = 0; i < len; i++) {
		if (buf[i] != val && !bad++)
			*first_bad = i;
	}
	return bad;
}

double load_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
