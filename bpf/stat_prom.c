// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat show -o prometheus: the snapshot show -j prints, in the
 * Prometheus text exposition format 0.0.4.
 *
 * Families are guestmm_<area>_<what>: counters end in _total, times are
 * in seconds (nanoseconds / 1e9, printed exactly with nine decimals) and
 * page counts say _pages.  What show -j keys by name (kind, order, status,
 * result, prio, migratetype, reason, mode, event) is a label.  Each family
 * is printed once, # HELP and # TYPE first, then all its samples.  The
 * families are listed in docs/bpf.md; tests/lib/promfmt.py json_to_prom()
 * derives these samples from show -j.
 *
 * Histograms: slot i counts integer nanosecond values in [2^i, 2^(i+1)),
 * slot 0 also 0 and the last slot everything from 2^39 ns up.  Bucket i
 * is le = 2^(i+1) - 1 ns, the largest value slots 0..i hold, so le is
 * exact; the last slot has no finite bound and is only in le="+Inf".
 * The per-CPU slots and count are read without a lock, so the slots may
 * not add up to count: each bucket is the cumulative slot sum capped at
 * count, and le="+Inf" is count.  The buckets never decrease and never
 * exceed _count; values missing from the slots appear only in +Inf.
 *
 * show -j fields without samples of their own:
 *  - migrate[].reason_id: the value behind the reason label (a reason
 *    the kernel's BTF does not name is labelled with this number).
 *  - thp_migration.folios_moved_base/_thp: the same values as
 *    guestmm_migrate_folio_duration_seconds_count{folio="base"/"thp"}.
 *  - module_events.*.sum_field: the field label of
 *    guestmm_module_event_field_sum_total.
 *  - histograms.*.log2_ns_slots: the _bucket samples, cumulative.
 * A module event name listed twice (a stale map entry, possible only if
 * pins were removed by hand) is exported once, from its last entry, as a
 * JSON parser keeps the last of two equal keys; stderr says so.
 */
#include <stdio.h>
#include <string.h>
#include "stat.h"

#define NSEC_PER_SEC	1000000000ULL

/*
 * Label pairs of one sample, escaped, without the braces.  Large enough
 * for the longest set printed here: a link name (NAME_MAX) escaped.
 */
struct labels {
	char s[1024];
	size_t n;
};

/* A label dimension: values 0..n-1, named by en, by names, or numbered. */
struct dim {
	const char *key;
	unsigned int n;
	const struct enum_names *en;
	const char *const *names;
};

/* A __u64 member exported as one counter family. */
struct field {
	const char *name;
	const char *help;
	size_t off;
	bool ns;		/* nanoseconds, exported in seconds */
};

#define F(st, m, n, h)		{ n, h, offsetof(struct st, m), false }
#define FNS(st, m, n, h)	{ n, h, offsetof(struct st, m), true }
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

static void lbl_init(struct labels *l)
{
	l->n = 0;
	l->s[0] = 0;
}

static void lbl_putc(struct labels *l, char c)
{
	if (l->n + 1 < sizeof(l->s))
		l->s[l->n++] = c;
	l->s[l->n] = 0;
}

static void lbl_puts(struct labels *l, const char *s)
{
	for (; *s; s++)
		lbl_putc(l, *s);
}

/* Append key="val", val escaped: backslash, double quote, newline. */
static void lbl_add(struct labels *l, const char *key, const char *val)
{
	if (l->n)
		lbl_putc(l, ',');
	lbl_puts(l, key);
	lbl_puts(l, "=\"");
	for (; *val; val++) {
		if (*val == '\\' || *val == '"') {
			lbl_putc(l, '\\');
			lbl_putc(l, *val);
		} else if (*val == '\n') {
			lbl_puts(l, "\\n");
		} else {
			lbl_putc(l, *val);
		}
	}
	lbl_putc(l, '"');
}

static void lbl_dim(struct labels *l, const struct dim *d, unsigned int i)
{
	char buf[32];

	if (!d)
		return;
	if (d->names) {
		lbl_add(l, d->key, d->names[i]);
	} else if (d->en) {
		lbl_add(l, d->key, enum_name(d->en, i, buf, sizeof(buf)));
	} else {
		snprintf(buf, sizeof(buf), "%u", i);
		lbl_add(l, d->key, buf);
	}
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_head(const char *name, const char *suffix, const struct labels *l)
{
	printf("%s%s", name, suffix);
	if (l && l->n)
		printf("{%s}", l->s);
	putchar(' ');
}

static void sample(const char *name, const struct labels *l, __u64 v)
{
	sample_head(name, "", l);
	printf("%llu\n", (unsigned long long)v);
}

/* ns nanoseconds as seconds, exactly */
static void sample_ns(const char *name, const char *suffix, const struct labels *l,
		      __u64 ns)
{
	sample_head(name, suffix, l);
	printf("%llu.%09llu\n", (unsigned long long)(ns / NSEC_PER_SEC),
	       (unsigned long long)(ns % NSEC_PER_SEC));
}

/*
 * One counter family.  row: the structs at base + i * stride, a label
 * value each (NULL: base alone, no label).  col: the __u64 array at off
 * in each struct, a label value per element (NULL: the __u64 at off).
 */
static void counter(const char *name, const char *help, bool ns, const struct dim *row,
		    const struct dim *col, const void *base, size_t stride, size_t off)
{
	unsigned int i, k, nrow = row ? row->n : 1, ncol = col ? col->n : 1;
	struct labels l;

	family(name, "counter", help);
	for (i = 0; i < nrow; i++) {
		const __u64 *v = (const void *)((const char *)base + i * stride + off);

		for (k = 0; k < ncol; k++) {
			lbl_init(&l);
			lbl_dim(&l, row, i);
			lbl_dim(&l, col, k);
			if (ns)
				sample_ns(name, "", &l, v[k]);
			else
				sample(name, &l, v[k]);
		}
	}
}

/* The scalar fields of a struct, or of each row of an array of them. */
static void counters(const struct field *f, unsigned int n, const struct dim *row,
		     const void *base, size_t stride)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		counter(f[i].name, f[i].help, f[i].ns, row, NULL, base, stride, f[i].off);
}

static void gauge1(const char *name, const char *help, const char *key,
		   const char *val, __u64 v)
{
	struct labels l;

	family(name, "gauge", help);
	lbl_init(&l);
	if (key)
		lbl_add(&l, key, val);
	sample(name, &l, v);
}

/* name_seconds: a histogram per row; name_max_seconds: the maxima. */
static void histogram(const char *name, const char *help, const struct dim *row,
		      const struct guestmm_hist *h)
{
	unsigned int i, k, nrow = row ? row->n : 1;
	char fam[128], le[32], mhelp[160];
	struct labels l, lb;

	snprintf(fam, sizeof(fam), "%s_seconds", name);
	family(fam, "histogram", help);
	for (i = 0; i < nrow; i++) {
		__u64 cum = 0;

		lbl_init(&l);
		lbl_dim(&l, row, i);
		for (k = 0; k < GUESTMM_HIST_SLOTS - 1; k++) {
			__u64 le_ns = (1ULL << (k + 1)) - 1;

			cum += h[i].slots[k];
			snprintf(le, sizeof(le), "%llu.%09llu",
				 (unsigned long long)(le_ns / NSEC_PER_SEC),
				 (unsigned long long)(le_ns % NSEC_PER_SEC));
			lb = l;
			lbl_add(&lb, "le", le);
			sample_head(fam, "_bucket", &lb);
			printf("%llu\n", (unsigned long long)(cum < h[i].count ? cum : h[i].count));
		}
		lb = l;
		lbl_add(&lb, "le", "+Inf");
		sample_head(fam, "_bucket", &lb);
		printf("%llu\n", (unsigned long long)h[i].count);
		sample_ns(fam, "_sum", &l, h[i].sum_ns);
		sample_head(fam, "_count", &l);
		printf("%llu\n", (unsigned long long)h[i].count);
	}

	snprintf(fam, sizeof(fam), "%s_max_seconds", name);
	snprintf(mhelp, sizeof(mhelp), "%s: the largest value (racy maximum)", help);
	family(fam, "gauge", mhelp);
	for (i = 0; i < nrow; i++) {
		lbl_init(&l);
		lbl_dim(&l, row, i);
		sample_ns(fam, "", &l, h[i].max_ns);
	}
}

static const struct field compact_fields[] = {
	F(guestmm_compact, begin, "guestmm_compact_passes_begun_total",
	  "Compaction passes begun (mm_compaction_begin)"),
	F(guestmm_compact, end, "guestmm_compact_passes_ended_total",
	  "Compaction passes ended (mm_compaction_end)"),
	F(guestmm_compact, sync, "guestmm_compact_sync_passes_total",
	  "Compaction passes begun in a sync mode"),
	F(guestmm_compact, async, "guestmm_compact_async_passes_total",
	  "Compaction passes begun in async mode"),
	F(guestmm_compact, migrate_scanned, "guestmm_compact_migrate_scanned_pages_total",
	  "Pages the migration scanner scanned (compact_migrate_scanned)"),
	F(guestmm_compact, free_scanned, "guestmm_compact_free_scanned_pages_total",
	  "Pages the free scanner scanned (compact_free_scanned)"),
	FNS(guestmm_compact, run_ns, "guestmm_compact_run_seconds_total",
	    "Time spent in compact_zone()"),
	F(guestmm_compact, migratepages, "guestmm_compact_migratepages_batches_total",
	  "Migration batches of compaction (mm_compaction_migratepages)"),
	F(guestmm_compact, nr_migrated, "guestmm_compact_migrated_pages_total",
	  "Pages compaction migrated"),
	F(guestmm_compact, nr_failed, "guestmm_compact_migrate_failed_pages_total",
	  "Pages compaction failed to migrate"),
	F(guestmm_compact, isolate_migrate, "guestmm_compact_isolate_migrate_blocks_total",
	  "Blocks scanned for pages to migrate (mm_compaction_isolate_migratepages)"),
	F(guestmm_compact, isolate_migrate_scanned,
	  "guestmm_compact_isolate_migrate_scanned_pages_total",
	  "Pages scanned for pages to migrate"),
	F(guestmm_compact, isolate_migrate_taken,
	  "guestmm_compact_isolate_migrate_taken_pages_total",
	  "Pages isolated for migration"),
	F(guestmm_compact, isolate_free, "guestmm_compact_isolate_free_blocks_total",
	  "Blocks scanned for free target pages (mm_compaction_isolate_freepages)"),
	F(guestmm_compact, isolate_free_scanned,
	  "guestmm_compact_isolate_free_scanned_pages_total",
	  "Pages scanned for free target pages"),
	F(guestmm_compact, isolate_free_taken, "guestmm_compact_isolate_free_taken_pages_total",
	  "Free pages isolated as migration targets"),
	F(guestmm_compact, deferred, "guestmm_compact_deferred_total",
	  "Compactions skipped as deferred (mm_compaction_deferred)"),
	F(guestmm_compact, defer_compaction, "guestmm_compact_defer_compaction_total",
	  "Compaction deferrals (mm_compaction_defer_compaction)"),
	F(guestmm_compact, defer_reset, "guestmm_compact_defer_reset_total",
	  "Compaction deferral resets (mm_compaction_defer_reset)"),
	F(guestmm_compact, kcompactd_wake, "guestmm_compact_kcompactd_wakes_total",
	  "kcompactd wakeups (compact_daemon_wake)"),
	F(guestmm_compact, kcompactd_sleep, "guestmm_compact_kcompactd_sleeps_total",
	  "kcompactd sleeps (mm_compaction_kcompactd_sleep)"),
	F(guestmm_compact, wakeup_kcompactd, "guestmm_compact_kcompactd_wake_requests_total",
	  "Requests to wake kcompactd (mm_compaction_wakeup_kcompactd)"),
};

static const struct field direct_fields[] = {
	F(guestmm_compact_direct, try_to_compact, "guestmm_compact_direct_tries_total",
	  "try_to_compact_pages() calls by allocation order"),
	F(guestmm_compact_direct, stall, "guestmm_compact_direct_stalls_total",
	  "Direct compaction stalls by order (compact_stall)"),
	F(guestmm_compact_direct, success, "guestmm_compact_direct_successes_total",
	  "Direct compaction stalls that got a page, by order (compact_success)"),
	F(guestmm_compact_direct, fail, "guestmm_compact_direct_failures_total",
	  "Direct compaction stalls that got no page, by order (compact_fail)"),
	F(guestmm_compact_direct, skipped, "guestmm_compact_direct_skipped_total",
	  "try_to_compact_pages() returned COMPACT_SKIPPED (no stall), by order"),
	FNS(guestmm_compact_direct, stall_ns, "guestmm_compact_direct_stall_seconds_total",
	    "Time in __alloc_pages_direct_compact() when it stalled, by order"),
};

static const struct field extfrag_fields[] = {
	F(guestmm_extfrag, events, "guestmm_extfrag_events_total",
	  "Fallback allocations (mm_page_alloc_extfrag)"),
	F(guestmm_extfrag, fragmenting, "guestmm_extfrag_fragmenting_total",
	  "Fallback allocations below pageblock order"),
	F(guestmm_extfrag, change_ownership, "guestmm_extfrag_change_ownership_total",
	  "Fallback allocations that took the whole pageblock"),
};

static const struct field migrate_fields[] = {
	F(guestmm_migrate, start, "guestmm_migrate_starts_total",
	  "migrate_pages() calls begun, by reason (mm_migrate_pages_start)"),
	F(guestmm_migrate, calls, "guestmm_migrate_calls_total",
	  "migrate_pages() calls ended, by reason (mm_migrate_pages)"),
	F(guestmm_migrate, succeeded, "guestmm_migrate_succeeded_pages_total",
	  "Pages migrated, by reason (pgmigrate_success)"),
	F(guestmm_migrate, failed, "guestmm_migrate_failed_pages_total",
	  "Pages that failed to migrate, by reason (pgmigrate_fail)"),
	F(guestmm_migrate, thp_succeeded, "guestmm_migrate_thp_succeeded_total",
	  "THPs migrated, by reason (thp_migration_success)"),
	F(guestmm_migrate, thp_failed, "guestmm_migrate_thp_failed_total",
	  "THPs that failed to migrate, by reason (thp_migration_fail)"),
	F(guestmm_migrate, thp_split, "guestmm_migrate_thp_split_total",
	  "THPs split to migrate, by reason (thp_migration_split)"),
	F(guestmm_migrate, large_folio_split, "guestmm_migrate_large_folio_split_total",
	  "Large folios split to migrate, by reason (kernels 6.11+)"),
	FNS(guestmm_migrate, call_ns, "guestmm_migrate_call_seconds_total",
	    "Time in migrate_pages(), by reason"),
};

static const struct field thp_fields[] = {
	F(guestmm_thp_migration, set_migration_pmd, "guestmm_thp_migration_set_pmd_total",
	  "THPs unmapped for migration as a whole (set_migration_pmd)"),
	F(guestmm_thp_migration, remove_migration_pmd,
	  "guestmm_thp_migration_remove_pmd_total",
	  "THPs mapped again at their destination (remove_migration_pmd)"),
	F(guestmm_thp_migration, folios_move_failed,
	  "guestmm_thp_migration_folios_move_failed_total",
	  "Folios move_to_new_folio() failed to move (load -f)"),
};

static const struct field reclaim_fields[] = {
	F(guestmm_node_reclaim, begin, "guestmm_node_reclaim_passes_begun_total",
	  "Node reclaim passes begun (mm_vmscan_node_reclaim_begin)"),
	F(guestmm_node_reclaim, end, "guestmm_node_reclaim_passes_ended_total",
	  "Node reclaim passes ended (mm_vmscan_node_reclaim_end)"),
	F(guestmm_node_reclaim, nr_reclaimed, "guestmm_node_reclaim_reclaimed_pages_total",
	  "Pages node reclaim reclaimed"),
	F(guestmm_node_reclaim, empty, "guestmm_node_reclaim_empty_passes_total",
	  "Node reclaim passes that reclaimed nothing"),
	F(guestmm_node_reclaim, failed, "guestmm_node_reclaim_failed_passes_total",
	  "Node reclaim passes that freed fewer than 2^order pages (zone_reclaim_failed)"),
	FNS(guestmm_node_reclaim, run_ns, "guestmm_node_reclaim_run_seconds_total",
	    "Time spent in node reclaim passes"),
};

static const struct field balloon_fields[] = {
	F(guestmm_balloon, inflate, "guestmm_balloon_inflated_pages_total",
	  "Pages enqueued into a balloon (balloon_inflate)"),
	F(guestmm_balloon, deflate, "guestmm_balloon_deflated_pages_total",
	  "Pages dequeued from a balloon (balloon_deflate)"),
	F(guestmm_balloon, migrate, "guestmm_balloon_migrated_pages_total",
	  "Balloon pages migrated (balloon_migrate)"),
	F(guestmm_balloon, migrate_failed, "guestmm_balloon_migrate_failed_total",
	  "Balloon page migrations the driver refused"),
	F(guestmm_balloon, dequeue_empty, "guestmm_balloon_dequeue_empty_total",
	  "balloon_page_dequeue() calls that found no page"),
};

static char links[MAX_LINKS][NAME_MAX + 1];

static void prom_probe(void)
{
	struct labels l;
	int i, n;

	gauge1("guestmm_probe_info", "Where the probes' maps and links are pinned",
	       "pin_dir", GUESTMM_PIN_DIR, 1);
	family("guestmm_probe_attached", "gauge",
	       "1 for each link pinned in " LINK_DIR " (a program attached)");
	n = link_names(links, MAX_LINKS);
	for (i = 0; i < n; i++) {
		lbl_init(&l);
		lbl_add(&l, "link", links[i]);
		sample("guestmm_probe_attached", &l, 1);
	}
}

static void prom_vmstat(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	char name[96], help[128];
	unsigned int i;

	vmstat_equivalents(s, vm);
	for (i = 0; i < N_VMSTAT; i++) {
		snprintf(name, sizeof(name), "guestmm_vmstat_%s_total", vm[i].name);
		snprintf(help, sizeof(help),
			 "The probes' count of /proc/vmstat %s since load or reset", vm[i].name);
		family(name, "counter", help);
		sample(name, NULL, vm[i].v);
	}
}

/* true if entry i's name comes again later: the later one is exported */
static bool modev_repeated(const struct snapshot *s, int i)
{
	int j;

	for (j = i + 1; j < s->n_modev; j++)
		if (!strcmp(s->modev[i].name, s->modev[j].name))
			return true;
	return false;
}

static void prom_modev(const struct snapshot *s)
{
	struct labels l;
	int i;

	family("guestmm_module_events_total", "counter",
	       "guestmm module tracepoint events (load -m)");
	for (i = 0; i < s->n_modev; i++) {
		if (modev_repeated(s, i)) {
			err("module event %s listed twice (stale entry), exported once",
			    s->modev[i].name);
			continue;
		}
		lbl_init(&l);
		lbl_add(&l, "event", s->modev[i].name);
		sample("guestmm_module_events_total", &l, s->modev[i].count);
	}
	family("guestmm_module_event_field_sum_total", "counter",
	       "Sum of a guestmm module tracepoint's field (nr, nr_pages, num_pages or pages)");
	for (i = 0; i < s->n_modev; i++) {
		if (!s->modev[i].sum_size || modev_repeated(s, i))
			continue;
		lbl_init(&l);
		lbl_add(&l, "event", s->modev[i].name);
		lbl_add(&l, "field", s->modev[i].sum_field);
		sample("guestmm_module_event_field_sum_total", &l, s->modev[i].sum);
	}
}

void show_prom(const struct snapshot *s)
{
	unsigned int nres = enum_count(&en_result, GUESTMM_COMPACT_RESULTS);
	const struct dim kind = { "kind", GUESTMM_KINDS, NULL, kind_names };
	const struct dim status = { "status", nres, &en_result, NULL };
	const struct dim result = { "result", nres, &en_result, NULL };
	const struct dim order = { "order", GUESTMM_ORDERS, NULL, NULL };
	const struct dim prio = { "prio", enum_count(&en_prio, GUESTMM_COMPACT_PRIOS),
				  &en_prio, NULL };
	const struct dim mt = { "migratetype", enum_count(&en_mt, GUESTMM_MIGRATETYPES),
				&en_mt, NULL };
	const struct dim reason = { "reason", enum_count(&en_reason, GUESTMM_MIGRATE_REASONS),
				    &en_reason, NULL };
	const struct dim mode = { "mode", enum_count(&en_mode, GUESTMM_MIGRATE_MODES),
				  &en_mode, NULL };
	const struct dim folio = { "folio", GUESTMM_MIG_KINDS, NULL, mig_names };
	const struct guestmm_compact *c = &s->compact;

	prom_probe();
	prom_vmstat(s);

	counters(compact_fields, ARRAY_SIZE(compact_fields), NULL, c, 0);
	counter("guestmm_compact_passes_by_kind_total",
		"Compaction passes begun, by caller (direct, kcompactd, proactive, manual)",
		false, NULL, &kind, c, 0, offsetof(struct guestmm_compact, kind));
	counter("guestmm_compact_end_status_total",
		"Compaction passes ended, by status (enum compact_result)",
		false, NULL, &status, c, 0, offsetof(struct guestmm_compact, status));
	counter("guestmm_compact_migrate_scanned_pages_by_kind_total",
		"Pages the migration scanner scanned, by caller", false, NULL, &kind, c, 0,
		offsetof(struct guestmm_compact, kind_migrate_scanned));
	counter("guestmm_compact_free_scanned_pages_by_kind_total",
		"Pages the free scanner scanned, by caller", false, NULL, &kind, c, 0,
		offsetof(struct guestmm_compact, kind_free_scanned));
	counter("guestmm_compact_suitable_total",
		"mm_compaction_suitable events, by result (enum compact_result)",
		false, NULL, &result, c, 0, offsetof(struct guestmm_compact, suitable));
	counter("guestmm_compact_finished_total",
		"mm_compaction_finished events, by result (enum compact_result)",
		false, NULL, &result, c, 0, offsetof(struct guestmm_compact, finished));

	counters(direct_fields, ARRAY_SIZE(direct_fields), &order, s->direct,
		 sizeof(s->direct[0]));
	counter("guestmm_compact_direct_tries_by_prio_total",
		"try_to_compact_pages() calls by order and compact_priority", false,
		&order, &prio, s->direct, sizeof(s->direct[0]),
		offsetof(struct guestmm_compact_direct, prio));

	counters(extfrag_fields, ARRAY_SIZE(extfrag_fields), NULL, &s->extfrag, 0);
	counter("guestmm_extfrag_alloc_migratetype_total",
		"Fallback allocations by the migratetype wanted", false, NULL, &mt,
		&s->extfrag, 0, offsetof(struct guestmm_extfrag, alloc_migratetype));
	counter("guestmm_extfrag_fallback_migratetype_total",
		"Fallback allocations by the migratetype taken from", false, NULL, &mt,
		&s->extfrag, 0, offsetof(struct guestmm_extfrag, fallback_migratetype));

	counters(migrate_fields, ARRAY_SIZE(migrate_fields), &reason, s->migrate,
		 sizeof(s->migrate[0]));
	counter("guestmm_migrate_calls_by_mode_total",
		"migrate_pages() calls ended, by reason and migrate_mode", false,
		&reason, &mode, s->migrate, sizeof(s->migrate[0]),
		offsetof(struct guestmm_migrate, mode));

	counters(thp_fields, ARRAY_SIZE(thp_fields), NULL, &s->thp, 0);
	gauge1("guestmm_thp_migration_folio_timing_enabled",
	       "1 if migrated folios are timed (load -f), else 0", NULL, NULL,
	       path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit"));

	counters(reclaim_fields, ARRAY_SIZE(reclaim_fields), NULL, &s->reclaim, 0);
	counter("guestmm_node_reclaim_passes_by_order_total",
		"Node reclaim passes begun, by allocation order", false, NULL, &order,
		&s->reclaim, 0, offsetof(struct guestmm_node_reclaim, order));

	counters(balloon_fields, ARRAY_SIZE(balloon_fields), NULL, &s->balloon, 0);

	prom_modev(s);

	histogram("guestmm_compact_pass_duration",
		  "Compaction pass latency (compact_zone()), by caller", &kind, s->lat_compact);
	histogram("guestmm_compact_direct_stall_duration",
		  "Direct compaction stall latency, by order", &order, s->lat_direct);
	histogram("guestmm_migrate_folio_duration",
		  "move_to_new_folio() latency per folio moved (load -f)", &folio,
		  s->lat_migrate);
	histogram("guestmm_node_reclaim_pass_duration", "Node reclaim pass latency", NULL,
		  s->lat_reclaim);
}
