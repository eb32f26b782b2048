/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* softib: 24-bit PSN arithmetic (IBTA 9.7.1). */
#ifndef SIB_PSN_H
#define SIB_PSN_H

#include <linux/types.h>

/**
 * sib_psn_cmp() - compare two 24-bit PSNs in modular order
 * @a: PSN
 * @b: PSN
 *
 * Context: any. Return: <0 if @a is before @b, 0 if equal, >0 if after
 * (valid while the two are less than 2^23 apart).
 */
static inline int sib_psn_cmp(u32 a, u32 b)
{
	return (s32)((a - b) << 8);
}

/**
 * sib_psn_add() - @psn plus @n, wrapped to 24 bits
 * @psn: PSN
 * @n: increment
 *
 * Context: any. Return: the sum modulo 2^24.
 */
static inline u32 sib_psn_add(u32 psn, u32 n)
{
	return (psn + n) & 0x00ffffffU;
}

/**
 * sib_psn_diff() - distance from @b forward to @a
 * @a: later PSN
 * @b: earlier PSN
 *
 * Context: any. Return: (@a - @b) modulo 2^24.
 */
static inline u32 sib_psn_diff(u32 a, u32 b)
{
	return (a - b) & 0x00ffffffU;
}

#endif /* SIB_PSN_H */
