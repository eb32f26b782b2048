/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tiny test harness for the provider's host-side unit tests.
 * SIB_CHECK(cond, fmt, ...) counts one test; failures are printed with
 * their location, passes only counted (SIB_VERBOSE=1 prints them too).
 */
#ifndef SIB_UNIT_H
#define SIB_UNIT_H

#include <stdio.h>

extern unsigned int sib_unit_passed, sib_unit_failed, sib_unit_verbose;

/**
 * sib_unit_result() - record one test result.
 * Return: @ok, so callers can chain on it.
 */
int sib_unit_result(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define SIB_CHECK(cond, ...) \
	sib_unit_result(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/** sib_abi_tests() - check sib_driver.h against the rdma-core ABI file. */
void sib_abi_tests(void);
/** sib_ring_tests() - ring math, WQE encoding and CQE decoding. */
void sib_ring_tests(void);
/** sib_ext_tests() - parent-domain allocators, CQ timestamps, DM copies. */
void sib_ext_tests(void);

#endif
