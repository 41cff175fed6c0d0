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

/* v[0..] as an object keyed by d's names */
static void json_named(struct json_object *o, const char *key, const __u64 *v,
		       const struct dim *d)
{
	struct json_object *m = json_add(o, key, json_object_new_object());
	unsigned int i, n = dim_n(d);
	char buf[16];

	for (i = 0; i < n; i++)
		json_u64(m, dim_name(d, i, buf, sizeof(buf)), v[i]);
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

/* Counters first..last-1 of the map value row, in guestmm.h's order. */
static void json_counters(struct json_object *o, const struct counter_table *t,
			  const void *row, unsigned int first, unsigned int last)
{
	unsigned int i;

	for (i = first; i < last; i++) {
		const struct counter *c = &t->c[i];

		if (!c->n)
			json_u64(o, c->name, *counter_at(c, row));
		else if (c->json_list)
			json_u64s(o, c->name, counter_at(c, row), c->n);
		else
			json_named(o, c->name, counter_at(c, row), c->dim);
	}
}

/* The value of a one-entry map as the object key of root. */
static void json_map(struct json_object *root, const char *key,
		     const struct counter_table *t, const struct snapshot *s)
{
	json_counters(json_add(root, key, json_object_new_object()), t,
		      table_row(t, s, 0), 0, t->n);
}

static char links[MAX_LINKS][NAME_MAX + 1];

/*
 * The first n entries of the map t as an array of objects, each keyed
 * first: by its number (d->key), or a migrate_reason by name ("reason")
 * and number ("reason_id").
 */
static void json_rows(struct json_object *root, const char *key,
		      const struct counter_table *t, const struct snapshot *s,
		      const struct dim *d, unsigned int n)
{
	struct json_object *a = json_add(root, key, json_object_new_array()), *e;
	char buf[32];
	unsigned int i;

	for (i = 0; i < n; i++) {
		e = json_add(a, NULL, json_object_new_object());
		if (d == &dim_reason) {
			json_add(e, "reason",
				 json_object_new_string(dim_name(d, i, buf, sizeof(buf))));
			json_add(e, "reason_id", json_object_new_int64(i));
		} else {
			json_add(e, d->key, json_object_new_int64(i));
		}
		json_counters(e, t, table_row(t, s, i), 0, t->n);
	}
}

/* Where the pins are, the links, the vmstat equivalents. */
static void json_probe(struct json_object *root, const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	struct json_object *o;
	int i, n;

	json_add(root, "pin_dir", json_object_new_string(GUESTMM_PIN_DIR));
	n = link_names(links, MAX_LINKS);
	o = json_add(root, "links", json_object_new_array());
	for (i = 0; i < n; i++)
		json_add(o, NULL, json_object_new_string(links[i]));
	vmstat_equivalents(s, vm);
	o = json_add(root, "vmstat", json_object_new_object());
	for (i = 0; i < N_VMSTAT; i++)
		json_u64(o, vm[i].name, vm[i].v);
}

/* thp_migration, with the folio counts (the histograms' counts) */
static void json_thp(struct json_object *root, const struct snapshot *s)
{
	struct json_object *o = json_add(root, "thp_migration", json_object_new_object());
	unsigned int split = counter_index(&ct_thp, "folios_move_failed");

	json_counters(o, &ct_thp, &s->thp, 0, split);
	json_add(o, "folio_timing",
		 json_object_new_boolean(path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit")));
	json_u64(o, "folios_moved_base", s->lat_migrate[GUESTMM_MIG_BASE].count);
	json_u64(o, "folios_moved_thp", s->lat_migrate[GUESTMM_MIG_THP].count);
	json_counters(o, &ct_thp, &s->thp, split, ct_thp.n);
}

/*
 * A name listed twice (see stat_prom.c) is printed once, where it first
 * came, with its last entry's values: json-c replaces the value of a key
 * added again, so the object reads as before.
 */
static void json_modev(struct json_object *root, const struct snapshot *s)
{
	struct json_object *o = json_add(root, "module_events", json_object_new_object());
	struct json_object *e;
	int i;

	for (i = 0; i < s->n_modev; i++) {
		e = json_add(o, s->modev[i].name, json_object_new_object());
		json_u64(e, "count", s->modev[i].count);
		if (s->modev[i].sum_size) {
			json_add(e, "sum_field", json_object_new_string(s->modev[i].sum_field));
			json_u64(e, "sum", s->modev[i].sum);
		}
	}
}

static void json_hists(struct json_object *root, const struct snapshot *s)
{
	struct json_object *o = json_add(root, "histograms", json_object_new_object());
	struct json_object *e;
	unsigned int k;
	char buf[16];

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
}

int show_json(const struct snapshot *s)
{
	struct json_object *root = json_object_new_object();

	json_probe(root, s);
	json_map(root, "compact", &ct_compact, s);
	json_rows(root, "compact_direct", &ct_direct, s, &dim_order, GUESTMM_ORDERS);
	json_map(root, "extfrag", &ct_extfrag, s);
	json_rows(root, "migrate", &ct_migrate, s, &dim_reason, dim_n(&dim_reason));
	json_thp(root, s);
	json_map(root, "node_reclaim", &ct_reclaim, s);
	json_map(root, "balloon", &ct_balloon, s);
	json_modev(root, s);
	json_hists(root, s);
	return json_print(root);
}
