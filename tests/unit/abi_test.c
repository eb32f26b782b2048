// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ABI test: our own declarations of libibverbs' private provider ABI
 * (provider/sib_driver.h) against the measured facts of rdma-core v44 in
 * provider/abi/rdma-core-v44-provider-abi.txt (override: SIB_ABI_FILE).
 *
 * abi_gen.h (made by gen_abi.awk at build time) holds what only the
 * compiler knows: offsetof/sizeof of every member the file lists for the
 * structs we declare, type compatibility of every member type and every
 * prototype we declare, and our constants. This file reads the ABI file
 * at run time and compares each line with those values. Private structs,
 * symbols and constants we do not declare are counted as skipped.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softib.h"
#include "unit.h"

#ifndef SIB_ABI_FILE_DEFAULT
#define SIB_ABI_FILE_DEFAULT "../../provider/abi/rdma-core-v44-provider-abi.txt"
#endif

struct sib_abi_layout {
	const char *s, *m;
	size_t off, size;
	int has_size;		/* 0: flexible array member, no sizeof */
};

struct sib_abi_ctype {
	const char *s, *m;
	int compatible;
};

struct sib_abi_const {
	const char *name;
	int is_int;		/* 1 integer, 0 string, 2 name-match pattern */
	long long val;
	const char *str;
};

struct sib_abi_sym {
	const char *name;
	int compatible;
	const char *decl;	/* our header's declaration text */
};

#include "abi_gen.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

extern const struct verbs_device_ops sib_dev_ops;

static unsigned char seen_layout[N_OF(sib_abi_layouts)];
static unsigned char seen_ctype[N_OF(sib_abi_ctypes) + 1];
static unsigned char seen_const[N_OF(sib_abi_consts)];
static unsigned char seen_sym[N_OF(sib_abi_syms) + 1];

struct sib_abi_stats {
	unsigned int checked, skipped;
};

static struct sib_abi_stats st_layout, st_ctype, st_const, st_sym;

/* Collapse whitespace and drop it next to punctuation, for prototype text. */
static void sib_normalise(const char *in, char *out, size_t n)
{
	size_t o = 0;
	int space = 0;

	for (; *in && o + 2 < n; in++) {
		if (isspace((unsigned char)*in)) {
			space = 1;
			continue;
		}
		if (space && o && !strchr("(),;", *in) &&
		    !strchr("(", out[o - 1]))
			out[o++] = ' ';
		space = 0;
		out[o++] = *in;
	}
	out[o] = 0;
	if (!strncmp(out, "extern ", 7))
		memmove(out, out + 7, strlen(out + 7) + 1);
}

static void sib_check_layout(const char *s, const char *m, long off, long size,
			     int is_sizeof)
{
	size_t i;
	int known = 0;

	for (i = 0; i < N_OF(sib_abi_layouts); i++) {
		const struct sib_abi_layout *l = &sib_abi_layouts[i];

		if (strcmp(l->s, s))
			continue;
		known = 1;
		if (strcmp(l->m, m))
			continue;
		seen_layout[i] = 1;
		st_layout.checked++;
		if (is_sizeof) {
			SIB_CHECK(l->size == (size_t)size,
				  "sizeof(struct %s) is %zu, ABI file says %ld",
				  s, l->size, size);
			return;
		}
		SIB_CHECK(l->off == (size_t)off,
			  "offsetof(struct %s, %s) is %zu, ABI file says %ld",
			  s, m, l->off, off);
		if (l->has_size)
			SIB_CHECK(l->size == (size_t)size,
				  "sizeof(%s.%s) is %zu, ABI file says %ld",
				  s, m, l->size, size);
		else
			SIB_CHECK(size == 0,
				  "%s.%s is a flexible array for us, ABI file says size %ld",
				  s, m, size);
		return;
	}
	if (known)
		SIB_CHECK(0, "%s.%s: in the ABI file but not in our build (stale abi_gen.h?)",
			  s, m);
	else
		st_layout.skipped++;
}

static void sib_check_ctype(const char *s, const char *m, const char *ty)
{
	size_t i;

	for (i = 0; i < N_OF(sib_abi_ctypes); i++) {
		const struct sib_abi_ctype *c = &sib_abi_ctypes[i];

		if (strcmp(c->s, s) || strcmp(c->m, m))
			continue;
		seen_ctype[i] = 1;
		st_ctype.checked++;
		SIB_CHECK(c->compatible, "type of %s.%s differs from '%s'",
			  s, m, ty);
		return;
	}
	st_ctype.skipped++;
}

static void sib_check_subject(const char *val)
{
	const struct verbs_match_ent *e;
	char subject[128];
	const char *pat = NULL;

	/* val is "rdma_device:N<ibdev_name>" */
	SIB_CHECK(!strcmp(val, "\"rdma_device:N<ibdev_name>\""),
		  "name match subject format changed: %s", val);
	for (e = sib_dev_ops.match_table; e && e->kind; e++)
		if (e->kind == VERBS_MATCH_MODALIAS)
			pat = e->u.modalias;
	if (!SIB_CHECK(pat, "our match table has no name match entry"))
		return;
	snprintf(subject, sizeof(subject), "rdma_device:N%s0", SIB_NAME_PREFIX);
	SIB_CHECK(!fnmatch(pat, subject, 0), "'%s' does not match '%s'",
		  pat, subject);
	SIB_CHECK(fnmatch(pat, "rdma_device:Nrxe0", 0),
		  "'%s' matches rxe0", pat);
}

static void sib_check_const(const char *name, const char *val)
{
	size_t i;

	if (!strcmp(name, "name_match_subject_format")) {
		st_const.checked++;
		sib_check_subject(val);
		return;
	}
	for (i = 0; i < N_OF(sib_abi_consts); i++) {
		const struct sib_abi_const *c = &sib_abi_consts[i];
		char q[256];

		if (strcmp(c->name, name))
			continue;
		seen_const[i] = 1;
		st_const.checked++;
		if (c->is_int == 1) {
			SIB_CHECK(c->val == strtoll(val, NULL, 0),
				  "%s is %lld, ABI file says %s", name, c->val,
				  val);
			return;
		}
		snprintf(q, sizeof(q), "\"%s\"",
			 c->is_int == 2 ? sib_abi_gen_name_match() : c->str);
		SIB_CHECK(!strcmp(q, val), "%s is %s, ABI file says %s", name,
			  q, val);
		return;
	}
	st_const.skipped++;
}

static void sib_check_sym(const char *name, const char *proto)
{
	char a[1024], b[1024];
	size_t i;

	for (i = 0; i < N_OF(sib_abi_syms); i++) {
		const struct sib_abi_sym *y = &sib_abi_syms[i];

		if (strcmp(y->name, name))
			continue;
		seen_sym[i] = 1;
		st_sym.checked++;
		SIB_CHECK(y->compatible,
			  "type of our %s is not compatible with '%s'", name,
			  proto);
		sib_normalise(y->decl, a, sizeof(a));
		sib_normalise(proto, b, sizeof(b));
		SIB_CHECK(!strcmp(a, b),
			  "prototype of %s:\n     ours: %s\n     ABI:  %s",
			  name, a, b);
		return;
	}
	st_sym.skipped++;
}

/* Dispatch one non-comment line of the ABI file. */
static void sib_abi_line(char *line)
{
	char f1[128], f2[128], f3[128];
	long a, b;
	int off = 0;

	if (sscanf(line, "%127s %127s %n", f1, f2, &off) < 2)
		return;
	if (!strcmp(f1, "ctype")) {
		if (sscanf(line, "%*s %*s %127s %n", f3, &off) == 1)
			sib_check_ctype(f2, f3, line + off);
	} else if (!strcmp(f1, "const")) {
		sib_check_const(f2, line + off);
	} else if (!strcmp(f1, "sym")) {
		if (sscanf(line, "%*s %*s %127s %n", f3, &off) == 1)
			sib_check_sym(f2, line + off);
	} else if (!strcmp(f2, "sizeof") &&
		   sscanf(line, "%*s %*s %ld", &a) == 1) {
		sib_check_layout(f1, "sizeof", 0, a, 1);
	} else if (sscanf(line, "%*s %*s %ld %ld", &a, &b) == 2) {
		sib_check_layout(f1, f2, a, b, 0);
	} else {
		SIB_CHECK(0, "unparsable ABI file line: %s", line);
	}
}

/* Everything we compiled in must have come from a line of the file. */
static void sib_abi_coverage(void)
{
	size_t i, j;

	for (i = 0; i < N_OF(sib_abi_layouts); i++)
		if (!seen_layout[i])
			SIB_CHECK(0, "%s.%s checked at build time but not in the ABI file",
				  sib_abi_layouts[i].s, sib_abi_layouts[i].m);
	for (i = 0; i < N_OF(sib_abi_ctypes); i++)
		if (!seen_ctype[i])
			SIB_CHECK(0, "ctype %s.%s not in the ABI file",
				  sib_abi_ctypes[i].s, sib_abi_ctypes[i].m);
	for (i = 0; i < N_OF(sib_abi_consts); i++)
		if (!seen_const[i])
			SIB_CHECK(0, "const %s not in the ABI file",
				  sib_abi_consts[i].name);
	/* every private function our header declares must be exported */
	for (j = 0; j < N_OF(sib_abi_declared); j++) {
		int found = 0;

		for (i = 0; i < N_OF(sib_abi_syms); i++)
			if (!strcmp(sib_abi_syms[i].name, sib_abi_declared[j]))
				found = seen_sym[i];
		SIB_CHECK(found, "%s is declared by sib_driver.h but is not an IBVERBS_PRIVATE_34 symbol of the ABI file",
			  sib_abi_declared[j]);
	}
}

/* How the provider registers: ABI version window and match table. */
static void sib_registration_tests(void)
{
	const struct verbs_match_ent *e;
	int by_id = 0, by_name = 0;

	SIB_CHECK(!strcmp(sib_dev_ops.name, "softib"), "provider name");
	SIB_CHECK(sib_dev_ops.match_min_abi_version == SIB_UVERBS_ABI_VERSION &&
		  sib_dev_ops.match_max_abi_version == SIB_UVERBS_ABI_VERSION,
		  "abi window [%u, %u] must be exactly %u",
		  sib_dev_ops.match_min_abi_version,
		  sib_dev_ops.match_max_abi_version, SIB_UVERBS_ABI_VERSION);
	SIB_CHECK(sib_dev_ops.alloc_device && sib_dev_ops.uninit_device &&
		  sib_dev_ops.alloc_context, "device ops set");
	for (e = sib_dev_ops.match_table; e->kind != VERBS_MATCH_SENTINEL; e++) {
		if (e->kind == VERBS_MATCH_DRIVER_ID &&
		    e->u.driver_id == SIB_DRIVER_ID)
			by_id = 1;
		if (e->kind == VERBS_MATCH_MODALIAS &&
		    !strcmp(e->u.modalias, "rdma_device:*N" SIB_NAME_PREFIX "*"))
			by_name = 1;
	}
	SIB_CHECK(by_id, "match table has VERBS_DRIVER_ID(SIB_DRIVER_ID)");
	SIB_CHECK(by_name, "match table has the name match for \"%s\"",
		  SIB_NAME_PREFIX);
}

void sib_abi_tests(void)
{
	const char *path = getenv("SIB_ABI_FILE");
	unsigned int failed0 = sib_unit_failed;
	char line[2048];
	FILE *f;

	if (!path || !*path)
		path = SIB_ABI_FILE_DEFAULT;
	f = fopen(path, "r");
	if (!SIB_CHECK(f, "cannot open ABI file %s (set SIB_ABI_FILE)", path))
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[strspn(line, " \t")])
			continue;
		sib_abi_line(line);
	}
	fclose(f);
	sib_abi_coverage();
	sib_registration_tests();

	printf("abi: %s\n", path);
	printf("abi: layout lines checked %u, skipped %u (private structs we do not declare)\n",
	       st_layout.checked, st_layout.skipped);
	printf("abi: member types checked %u, skipped %u\n", st_ctype.checked,
	       st_ctype.skipped);
	printf("abi: constants checked %u, skipped %u (not defined by us)\n",
	       st_const.checked, st_const.skipped);
	printf("abi: private symbols checked %u (type and prototype text), skipped %u (not declared by us)\n",
	       st_sym.checked, st_sym.skipped);
	printf("abi: %s\n", sib_unit_failed == failed0 ? "all declarations match" :
	       "MISMATCH: provider/sib_driver.h disagrees with the ABI file");
}
