// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Runner of the provider's host-side unit tests. The last line it prints
 * is always "N passed, M failed"; the exit status is 0 only if M is 0.
 */
#include <stdarg.h>
#include <stdlib.h>
#include "unit.h"

unsigned int sib_unit_passed, sib_unit_failed, sib_unit_verbose;

int sib_unit_result(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		sib_unit_passed++;
	else
		sib_unit_failed++;
	if (ok && !sib_unit_verbose)
		return ok;
	printf("%s %s:%d: ", ok ? "ok  " : "FAIL", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return ok;
}

int main(void)
{
	const char *v = getenv("SIB_VERBOSE");

	sib_unit_verbose = v && *v && *v != '0';
	sib_abi_tests();
	sib_ring_tests();
	sib_ext_tests();
	printf("%u passed, %u failed\n", sib_unit_passed, sib_unit_failed);
	return sib_unit_failed ? 1 : 0;
}
