// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the enum-keyed counters, from the running
 * kernel's BTF (6.1's as the fallback), and the counters that are meant to
 * equal /proc/vmstat's, derived from a snapshot.
 */
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "stat.h"


/* ------------------------------------------------------------------ */
/* enum names, from the running kernel's BTF where possible            */

static const char *const compact_result_61[] = {
	"not_suitable_zone", "skipped", "deferred", "no_suitable_page",
	"continue", "complete", "partial_skipped", "contended", "success",
};
static const char *const migrate_reason_61[] = {
	"compaction", "memory_failure", "memory_hotplug", "syscall_or_cpuset",
	"mempolicy_mbind", "numa_misplaced", "contig_range", "longterm_pin",
	"demotion",
};
static const char *const migrate_mode_61[] = {
	"async", "sync_light", "sync", "sync_no_copy",
};
static const char *const compact_prio_61[] = {
	"sync_full", "sync_light", "async",
};
static const char *const migratetype_61[] = {
	"unmovable", "movable", "reclaimable", "highatomic", "cma", "isolate",
};
const char *const kind_names[GUESTMM_KINDS] = {
	"direct", "kcompactd", "proactive", "manual",
};
const char *const mig_names[GUESTMM_MIG_KINDS] = { "base", "thp" };

#define ENUM_NAMES(e, s, fb) { e, s, fb, sizeof(fb) / sizeof(fb[0]), { { 0 } }, 0 }
struct enum_names en_result = ENUM_NAMES("compact_result", "COMPACT_", compact_result_61);
struct enum_names en_reason = ENUM_NAMES("migrate_reason", "MR_", migrate_reason_61);
struct enum_names en_mode = ENUM_NAMES("migrate_mode", "MIGRATE_", migrate_mode_61);
struct enum_names en_prio = ENUM_NAMES("compact_priority", "COMPACT_PRIO_", compact_prio_61);
struct enum_names en_mt = ENUM_NAMES("migratetype", "MIGRATE_", migratetype_61);

static void enum_names_init(struct enum_names *en, const struct btf *btf)
{
	unsigned int max = sizeof(en->names) / sizeof(en->names[0]);
	unsigned int i;
	int id = btf ? btf__find_by_name_kind(btf, en->btf_enum, BTF_KIND_ENUM) : -1;

	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t); i++) {
			const char *n = btf__name_by_offset(btf, e[i].name_off);
			size_t sl = strlen(en->strip);
			unsigned int v = e[i].val;
			char *d;

			if (v >= max || !n)
				continue;
			if (!strncmp(n, en->strip, sl))
				n += sl;
			/* keep the first name for a value (aliases such as
			 * COMPACT_PRIO_SYNC_FULL == MIN_COMPACT_PRIORITY) */
			if (en->names[v][0])
				continue;
			snprintf(en->names[v], sizeof(en->names[v]), "%s", n);
			for (d = en->names[v]; *d; d++)
				if (*d >= 'A' && *d <= 'Z')
					*d += 'a' - 'A';
			if (v + 1 > en->n)
				en->n = v + 1;
		}
	}
	if (!en->n) {
		for (i = 0; i < en->n_fallback && i < max; i++)
			snprintf(en->names[i], sizeof(en->names[i]), "%s", en->fallback[i]);
		en->n = en->n_fallback;
	}
}

/* MR_TYPES, NR_MIGRATETYPES, ... are counts, not values worth a column */
unsigned int enum_count(const struct enum_names *en, unsigned int cap)
{
	unsigned int n = en->n;

	if (n && (!strcmp(en->names[n - 1], "types") ||
		  !strncmp(en->names[n - 1], "nr_", 3)))
		n--;
	return n < cap ? n : cap;
}

const char *enum_name(const struct enum_names *en, unsigned int v, char *buf, size_t len)
{
	if (v < en->n && en->names[v][0])
		return en->names[v];
	snprintf(buf, len, "%u", v);
	return buf;
}

void names_init(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	enum_names_init(&en_result, btf);
	enum_names_init(&en_reason, btf);
	enum_names_init(&en_mode, btf);
	enum_names_init(&en_prio, btf);
	enum_names_init(&en_mt, btf);
	btf__free(btf);
}

/* ------------------------------------------------------------------ */
/* derived /proc/vmstat-equivalent counters                            */

void vmstat_equivalents(const struct snapshot *s, struct vmstat_eq *o)
{
	__u64 stall = 0, success = 0, fail = 0;
	__u64 ok = 0, bad = 0, thp_ok = 0, thp_bad = 0, thp_split = 0;
	unsigned int i = 0, k;

	for (k = 0; k < GUESTMM_ORDERS; k++) {
		stall += s->direct[k].stall;
		success += s->direct[k].success;
		fail += s->direct[k].fail;
	}
	for (k = 0; k < GUESTMM_MIGRATE_REASONS; k++) {
		ok += s->migrate[k].succeeded;
		bad += s->migrate[k].failed;
		thp_ok += s->migrate[k].thp_succeeded;
		thp_bad += s->migrate[k].thp_failed;
		thp_split += s->migrate[k].thp_split;
	}
#define V(n, val) do { o[i].name = n; o[i].v = (val); i++; } while (0)
	V("compact_stall", stall);
	V("compact_success", success);
	V("compact_fail", fail);
	V("compact_migrate_scanned", s->compact.migrate_scanned);
	V("compact_free_scanned", s->compact.free_scanned);
	V("compact_daemon_wake", s->compact.kcompactd_wake);
	V("compact_daemon_migrate_scanned", s->compact.kind_migrate_scanned[GUESTMM_KIND_KCOMPACTD]);
	V("compact_daemon_free_scanned", s->compact.kind_free_scanned[GUESTMM_KIND_KCOMPACTD]);
	V("pgmigrate_success", ok);
	V("pgmigrate_fail", bad);
	V("thp_migration_success", thp_ok);
	V("thp_migration_fail", thp_bad);
	V("thp_migration_split", thp_split);
	V("balloon_inflate", s->balloon.inflate);
	V("balloon_deflate", s->balloon.deflate);
	V("balloon_migrate", s->balloon.migrate);
	V("zone_reclaim_failed", s->reclaim.failed);
	V("compact_daemon_wake_requests", s->compact.wakeup_kcompactd);
#undef V
}
