/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * perf-args.h: the option helpers of the tools/perf programs, one copy.
 * Define PERF_PROG (the program's name, a string literal) before including
 * it.  A usage error is one line on stderr, "PROG: <what> (see --help)",
 * and exit status 2; the number parsers take digits only (no sign, no
 * blanks) and return 0, or -1 when the text is not a number in min..max.
 */
#ifndef PERF_ARGS_H
#define PERF_ARGS_H

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef PERF_PROG
#error "define PERF_PROG before including perf-args.h"
#endif

/* prints "PROG: <fmt...> (see --help)" on stderr; returns 2, the exit status */
__attribute__((format(printf, 1, 2)))
static inline int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PERF_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	return 2;
}

/* the usage error of getopt_long's ':' (an option without its value) or '?' (unknown) */
static inline int getopt_error(int c, char **argv)
{
	if (c == ':')
		return usage_error("option %s needs a value", argv[optind - 1]);
	if (optopt)
		return usage_error("unknown option '-%c'", optopt);
	return usage_error("unknown option '%s'", argv[optind - 1]);
}

/* a whole decimal number min..max */
static inline int parse_int(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

/* a whole number min..max in strtoul's base (0: decimal, 0x hex or 0 octal) */
static inline int parse_ulong(const char *s, int base, unsigned long min, unsigned long max,
			      unsigned long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, base);
	return errno || *end || *out < min || *out > max ? -1 : 0;
}

/* a number of seconds, more than 0 and at most max (digits or a leading '.') */
static inline int parse_seconds(const char *s, double max, double *out)
{
	char *end;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return errno || *end || !isfinite(*out) || *out <= 0 || *out > max ? -1 : 0;
}

#endif
