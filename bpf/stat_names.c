// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the enum-keyed counters, from the running
 * kernel's BTF (6.1's as the fallback), the labels (struct dim), the
 * counter tables of guestmm.h as struct counter_table, and the counters
 * that are meant to equal /proc/vmstat's, derived from a snapshot.
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
/* labels                                                              */

#define DIM(k, cap, en, names) const struct dim dim_##k = { #k, cap, en, names }
DIM(kind, GUESTMM_KINDS, NULL, kind_names);
DIM(status, GUESTMM_COMPACT_RESULTS, &en_result, NULL);
DIM(result, GUESTMM_COMPACT_RESULTS, &en_result, NULL);
DIM(order, GUESTMM_ORDERS, NULL, NULL);
DIM(prio, GUESTMM_COMPACT_PRIOS, &en_prio, NULL);
DIM(migratetype, GUESTMM_MIGRATETYPES, &en_mt, NULL);
DIM(mode, GUESTMM_MIGRATE_MODES, &en_mode, NULL);
DIM(reason, GUESTMM_MIGRATE_REASONS, &en_reason, NULL);
DIM(folio, GUESTMM_MIG_KINDS, NULL, mig_names);
#undef DIM

unsigned int dim_n(const struct dim *d)
{
	return d->en ? enum_count(d->en, d->cap) : d->cap;
}

const char *dim_name(const struct dim *d, unsigned int i, char *buf, size_t len)
{
	if (d->names && i < d->cap)
		return d->names[i];
	if (d->en)
		return enum_name(d->en, i, buf, len);
	snprintf(buf, len, "%u", i);
	return buf;
}

/* ------------------------------------------------------------------ */
/* the counter tables of guestmm.h                                     */

#define SHOW_IN(l, p, f)	{ .how = SHOW_PART, .label = l, .pos = p, .fmt = f }
#define SHOW_AT(l, p, f, i)	{ .how = SHOW_PART, .label = l, .pos = p, .fmt = f, .idx = i }
#define SHOW_NAMED(l)		{ .how = SHOW_NONZERO, .label = l }
#define SHOW_ALL(l)		{ .how = SHOW_EVERY, .label = l }
#define SHOW_COL(h, w)		{ .how = SHOW_COLUMN, .label = h, .width = w }
#define SHOW_COLS(w)		{ .how = SHOW_COLUMNS, .width = w }
#define SHOW_AVG(h, w, of)	{ .how = SHOW_AVERAGE, .label = h, .width = w, .over = #of }
#define NO_SHOW			{ .how = SHOW_NONE }
#define VMSTAT(slot, name)	.vm_slot = slot, .vm_name = name
#define VMSTAT_AT(slot, name, i) .vm_slot = slot, .vm_name = name, .vm_idx = i
#define NO_VMSTAT		.vm_slot = -1
#define UNIT_count		false
#define UNIT_ns			true
#define JSON_named		false
#define JSON_list		true

/* VALUE is the map's value struct while its table is expanded. */
#define C(m, unit, family, text, show_, vm)				\
	{ .name = #m, .off = offsetof(VALUE, m), .ns = UNIT_##unit,	\
	  .prom = family, .help = text, .show = show_, vm },
#define A(m, len, label, json, family, text, show_, vm)		\
	{ .name = #m, .off = offsetof(VALUE, m), .n = len, .dim = &dim_##label, \
	  .json_list = JSON_##json, .prom = family, .help = text, .show = show_, vm },
#define TABLE(var, list, member)					\
	static const struct counter var##_c[] = { list(C, A) };		\
	const struct counter_table var = {				\
		var##_c, sizeof(var##_c) / sizeof(var##_c[0]),		\
		offsetof(struct snapshot, member),			\
		sizeof(((struct snapshot *)0)->member) / sizeof(VALUE),	\
		sizeof(VALUE),						\
	}

#define VALUE struct guestmm_compact
TABLE(ct_compact, GUESTMM_COMPACT_COUNTERS, compact);
#undef VALUE
#define VALUE struct guestmm_compact_direct
TABLE(ct_direct, GUESTMM_COMPACT_DIRECT_COUNTERS, direct);
#undef VALUE
#define VALUE struct guestmm_extfrag
TABLE(ct_extfrag, GUESTMM_EXTFRAG_COUNTERS, extfrag);
#undef VALUE
#define VALUE struct guestmm_migrate
TABLE(ct_migrate, GUESTMM_MIGRATE_COUNTERS, migrate);
#undef VALUE
#define VALUE struct guestmm_thp_migration
TABLE(ct_thp, GUESTMM_THP_MIGRATION_COUNTERS, thp);
#undef VALUE
#define VALUE struct guestmm_node_reclaim
TABLE(ct_reclaim, GUESTMM_NODE_RECLAIM_COUNTERS, reclaim);
#undef VALUE
#define VALUE struct guestmm_balloon
TABLE(ct_balloon, GUESTMM_BALLOON_COUNTERS, balloon);
#undef VALUE

static const struct counter_table *const tables[] = {
	&ct_compact, &ct_direct, &ct_extfrag, &ct_migrate, &ct_thp, &ct_reclaim,
	&ct_balloon,
};

/* The index of the counter name in t (t->n if none). */
unsigned int counter_index(const struct counter_table *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->c[i].name, name))
			break;
	return i;
}

/* ------------------------------------------------------------------ */
/* derived /proc/vmstat-equivalent counters                            */

/* Each VMSTAT() counter at its slot, summed over the map's entries. */
void vmstat_equivalents(const struct snapshot *s, struct vmstat_eq *o)
{
	unsigned int t, i, r;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		for (i = 0; i < tables[t]->n; i++) {
			const struct counter *c = &tables[t]->c[i];
			struct vmstat_eq *v;

			if (c->vm_slot < 0 || c->vm_slot >= N_VMSTAT)
				continue;
			v = &o[c->vm_slot];
			v->name = c->vm_name;
			v->v = 0;
			for (r = 0; r < tables[t]->rows; r++)
				v->v += counter_at(c, table_row(tables[t], s, r))[c->vm_idx];
		}
	}
}
