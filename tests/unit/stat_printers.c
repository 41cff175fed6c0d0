// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat's printers (bpf/stat_show.c, stat_json.c, stat_prom.c,
 * stat_names.c) without maps or BTF, for tests/unit/test_counters.py:
 *
 *   stat_printers table|json|prometheus
 *
 * prints that output of a snapshot in which every counter and histogram
 * __u64 has its own nine-digit value (no value is part of another), with
 * two links, folio timing on and two module events.  Enum names are the
 * 6.1 fallbacks (names_init() would read this host's BTF).
 */
#include <stdio.h>
#include <string.h>
#include "stat.h"

struct env env;

void err(const char *fmt, ...)
{
	(void)fmt;
}

bool path_exists(const char *p)
{
	(void)p;
	return true;
}

int link_names(char names[][NAME_MAX + 1], int max)
{
	static const char *const l[] = { "compaction_begin", "kcompactd_wake" };
	int i;

	for (i = 0; i < 2 && i < max; i++)
		snprintf(names[i], NAME_MAX + 1, "%s", l[i]);
	return i;
}

/* The fallback names, as names_init() sets them without BTF. */
static void fallback_names(struct enum_names *en)
{
	unsigned int i;

	for (i = 0; i < en->n_fallback; i++)
		snprintf(en->names[i], sizeof(en->names[i]), "%s", en->fallback[i]);
	en->n = en->n_fallback;
}

static struct snapshot s;

int main(int argc, char **argv)
{
	__u64 *u = (__u64 *)&s;
	size_t i;

	if (argc != 2)
		return 2;
	fallback_names(&en_result);
	fallback_names(&en_reason);
	fallback_names(&en_mode);
	fallback_names(&en_prio);
	fallback_names(&en_mt);
	for (i = 0; i < offsetof(struct snapshot, n_modev) / sizeof(*u); i++)
		u[i] = 100000000 + i * 1009;
	s.n_modev = 2;
	snprintf(s.modev[0].name, sizeof(s.modev[0].name), "guestmm_balloon:inflate");
	snprintf(s.modev[0].sum_field, sizeof(s.modev[0].sum_field), "nr");
	s.modev[0].sum_size = 8;
	s.modev[0].count = 3;
	s.modev[0].sum = 96;
	snprintf(s.modev[1].name, sizeof(s.modev[1].name), "guestmm_balloon:migrate");
	s.modev[1].count = 5;

	if (!strcmp(argv[1], "table"))
		show_human(&s);
	else if (!strcmp(argv[1], "json"))
		return show_json(&s);
	else if (!strcmp(argv[1], "prometheus"))
		show_prom(&s);
	else
		return 2;
	return 0;
}
