// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat show -j: the snapshot as one JSON object, built with
 * json-c and printed on one line; json_add() and json_print() also
 * serve watch -j.
 *
 * Counters are __u64 (json_object_new_uint64); indices and the interval
 * are signed integers.  Strings are json-c's to escape; '/' is left
 * alone (JSON_C_TO_STRING_NOSLASHESCAPE), as in the pin directory.
 */
#include <stdio.h>
#include <json-c/json.h>
#include "stat.h"

/* An allocation or an insertion failed since the last json_print(). */
static bool json_failed;

/*
 * v added to the object o as key, or appended to the array o when key is
 * NULL.  Returns v, or NULL (v freed, the next json_print() fails) when o
 * or v is NULL or the insertion failed, so that calls can be chained
 * without checks.
 */
struct json_object *json_add(struct json_object *o, const char *key,
			     struct json_object *v)
{
	if (!o || !v ||
	    (key ? json_object_object_add(o, key, v) : json_object_array_add(o, v))) {
		json_object_put(v);
		json_failed = true;
		return NULL;
	}
	return v;
}

/* o on one line of stdout; frees o.  0, or 1 when building it failed. */
int json_print(struct json_object *o)
{
	const char *s = NULL;
	bool failed = json_failed;

	json_failed = false;
	if (o && !failed)
		s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s)
		printf("%s\n", s);
	json_object_put(o);
	if (!s) {
		err("out of memory building the JSON output");
		return 1;
	}
	return 0;
}

static void json_u64(struct json_object *o, const char *key, __u64 v)
{
	json_add(o, key, json_object_new_uint64(v));
}

static void json_named(struct json_object *o, const char *key, const __u64 *v,
		       unsigned int n, const struct enum_names *en)
{
	struct json_object *m = json_add(o, key, json_object_new_object());
	char buf[16];
	unsigned int i;

	for (i = 0; i < n; i++)
		json_u64(m, enum_name(en, i, buf, sizeof(buf)), v[i]);
}

static void json_u64s(struct json_object *o, const char *key, const __u64 *v,
		      unsigned int n)
{
	struct json_object *a = json_add(o, key, json_object_new_array());
	unsigned int i;

	for (i = 0; i < n; i++)
		json_add(a, NULL, json_object_new_uint64(v[i]));
}

static void json_hist(struct json_object *o, const char *key,
		      const struct guestmm_hist *h)
{
	struct json_object *j = json_add(o, key, json_object_new_object());

	json_u64(j, "count", h->count);
	json_u64(j, "sum_ns", h->sum_ns);
	json_u64(j, "max_ns", h->max_ns);
	json_u64s(j, "log2_ns_slots", h->slots, GUESTMM_HIST_SLOTS);
}

#define JU(o, obj, f) json_u64(o, #f, (obj)->f)

static char links[MAX_LINKS][NAME_MAX + 1];

int show_json(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	const struct guestmm_compact *c = &s->compact;
	unsigned int i, k, nres = enum_count(&en_result, GUESTMM_COMPACT_RESULTS);
	struct json_object *root = json_object_new_object(), *o, *a, *e;
	char buf[32];
	int n;

	vmstat_equivalents(s, vm);
	json_add(root, "pin_dir", json_object_new_string(GUESTMM_PIN_DIR));
	n = link_names(links, MAX_LINKS);
	a = json_add(root, "links", json_object_new_array());
	for (k = 0; k < (unsigned int)n; k++)
		json_add(a, NULL, json_object_new_string(links[k]));
	o = json_add(root, "vmstat", json_object_new_object());
	for (i = 0; i < N_VMSTAT; i++)
		json_u64(o, vm[i].name, vm[i].v);

	o = json_add(root, "compact", json_object_new_object());
	JU(o, c, begin); JU(o, c, end); JU(o, c, sync); JU(o, c, async);
	e = json_add(o, "kind", json_object_new_object());
	for (k = 0; k < GUESTMM_KINDS; k++)
		json_u64(e, kind_names[k], c->kind[k]);
	json_named(o, "status", c->status, nres, &en_result);
	JU(o, c, migrate_scanned); JU(o, c, free_scanned);
	json_u64s(o, "kind_migrate_scanned", c->kind_migrate_scanned, GUESTMM_KINDS);
	json_u64s(o, "kind_free_scanned", c->kind_free_scanned, GUESTMM_KINDS);
	JU(o, c, run_ns); JU(o, c, migratepages);
	JU(o, c, nr_migrated); JU(o, c, nr_failed);
	JU(o, c, isolate_migrate); JU(o, c, isolate_migrate_scanned);
	JU(o, c, isolate_migrate_taken); JU(o, c, isolate_free);
	JU(o, c, isolate_free_scanned); JU(o, c, isolate_free_taken);
	json_named(o, "suitable", c->suitable, nres, &en_result);
	json_named(o, "finished", c->finished, nres, &en_result);
	JU(o, c, deferred); JU(o, c, defer_compaction);
	JU(o, c, defer_reset); JU(o, c, kcompactd_wake);
	JU(o, c, kcompactd_sleep); JU(o, c, wakeup_kcompactd);

	a = json_add(root, "compact_direct", json_object_new_array());
	for (i = 0; i < GUESTMM_ORDERS; i++) {
		const struct guestmm_compact_direct *dd = &s->direct[i];

		e = json_add(a, NULL, json_object_new_object());
		json_add(e, "order", json_object_new_int64(i));
		JU(e, dd, try_to_compact);
		json_named(e, "prio", dd->prio, enum_count(&en_prio, GUESTMM_COMPACT_PRIOS),
			   &en_prio);
		JU(e, dd, stall); JU(e, dd, success);
		JU(e, dd, fail); JU(e, dd, skipped); JU(e, dd, stall_ns);
	}

	o = json_add(root, "extfrag", json_object_new_object());
	JU(o, &s->extfrag, events); JU(o, &s->extfrag, fragmenting);
	JU(o, &s->extfrag, change_ownership);
	json_named(o, "alloc_migratetype", s->extfrag.alloc_migratetype,
		   enum_count(&en_mt, GUESTMM_MIGRATETYPES), &en_mt);
	json_named(o, "fallback_migratetype", s->extfrag.fallback_migratetype,
		   enum_count(&en_mt, GUESTMM_MIGRATETYPES), &en_mt);

	a = json_add(root, "migrate", json_object_new_array());
	for (i = 0; i < enum_count(&en_reason, GUESTMM_MIGRATE_REASONS); i++) {
		const struct guestmm_migrate *m = &s->migrate[i];

		e = json_add(a, NULL, json_object_new_object());
		json_add(e, "reason",
			 json_object_new_string(enum_name(&en_reason, i, buf, sizeof(buf))));
		json_add(e, "reason_id", json_object_new_int64(i));
		JU(e, m, start); JU(e, m, calls);
		JU(e, m, succeeded); JU(e, m, failed);
		JU(e, m, thp_succeeded); JU(e, m, thp_failed);
		JU(e, m, thp_split); JU(e, m, large_folio_split);
		json_named(e, "mode", m->mode, enum_count(&en_mode, GUESTMM_MIGRATE_MODES),
			   &en_mode);
		JU(e, m, call_ns);
	}

	o = json_add(root, "thp_migration", json_object_new_object());
	JU(o, &s->thp, set_migration_pmd); JU(o, &s->thp, remove_migration_pmd);
	json_add(o, "folio_timing",
		 json_object_new_boolean(path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit")));
	json_u64(o, "folios_moved_base", s->lat_migrate[GUESTMM_MIG_BASE].count);
	json_u64(o, "folios_moved_thp", s->lat_migrate[GUESTMM_MIG_THP].count);
	JU(o, &s->thp, folios_move_failed);

	o = json_add(root, "node_reclaim", json_object_new_object());
	JU(o, &s->reclaim, begin); JU(o, &s->reclaim, end);
	JU(o, &s->reclaim, nr_reclaimed); JU(o, &s->reclaim, empty);
	JU(o, &s->reclaim, failed);
	json_u64s(o, "order", s->reclaim.order, GUESTMM_ORDERS);
	JU(o, &s->reclaim, run_ns);

	o = json_add(root, "balloon", json_object_new_object());
	JU(o, &s->balloon, inflate); JU(o, &s->balloon, deflate);
	JU(o, &s->balloon, migrate); JU(o, &s->balloon, migrate_failed);
	JU(o, &s->balloon, dequeue_empty);

	/*
	 * A name listed twice (see stat_prom.c) is printed once, where it
	 * first came, with its last entry's values: json-c replaces the value
	 * of a key added again, so the object reads as before.
	 */
	o = json_add(root, "module_events", json_object_new_object());
	for (i = 0; i < (unsigned int)s->n_modev; i++) {
		e = json_add(o, s->modev[i].name, json_object_new_object());
		json_u64(e, "count", s->modev[i].count);
		if (s->modev[i].sum_size) {
			json_add(e, "sum_field", json_object_new_string(s->modev[i].sum_field));
			json_u64(e, "sum", s->modev[i].sum);
		}
	}

	o = json_add(root, "histograms", json_object_new_object());
	e = json_add(o, "compaction_pass", json_object_new_object());
	for (k = 0; k < GUESTMM_KINDS; k++)
		json_hist(e, kind_names[k], &s->lat_compact[k]);
	e = json_add(o, "direct_compaction_stall", json_object_new_object());
	for (k = 0; k < GUESTMM_ORDERS; k++) {
		snprintf(buf, sizeof(buf), "%u", k);
		json_hist(e, buf, &s->lat_direct[k]);
	}
	e = json_add(o, "folio_migration", json_object_new_object());
	for (k = 0; k < GUESTMM_MIG_KINDS; k++)
		json_hist(e, mig_names[k], &s->lat_migrate[k]);
	json_hist(o, "node_reclaim", &s->lat_reclaim[0]);

	return json_print(root);
}
