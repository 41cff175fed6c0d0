/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm.h - map value layouts shared by guestmm.bpf.c and guestmm-stat.c.
 *
 * Every struct here becomes the BTF type of a pinned map value, so
 * `bpftool map dump pinned /sys/fs/bpf/guestmm/<map>` prints these field
 * names.  All type names carry the guestmm_ prefix: vmlinux.h is included
 * before this file on the BPF side and already defines many plain names
 * (struct balloon_stats, struct compact_control, ...).
 *
 * Counters are only ever added to (atomically) by the BPF programs and
 * zeroed by `guestmm-stat reset`.  The counter maps' structs are generated
 * from the counter tables below; where a counter is meant to equal a
 * /proc/vmstat counter its VMSTAT() names it.
 */
#ifndef GUESTMM_H
#define GUESTMM_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Where everything lives.  Maps are pinned by name directly in this
 * directory, links under links/, the module-event program as prog_modev. */
#define GUESTMM_PIN_DIR		"/sys/fs/bpf/guestmm"
#define GUESTMM_LINK_SUBDIR	"links"
#define GUESTMM_MODEV_PROG_PIN	"prog_modev"

/* enum compact_result has 9 values on 6.1 (0..8); leave room. */
#define GUESTMM_COMPACT_RESULTS	16
/* compact_priority: 0 SYNC_FULL, 1 SYNC_LIGHT, 2 ASYNC */
#define GUESTMM_COMPACT_PRIOS	4
/* migrate_mode: 0 ASYNC, 1 SYNC_LIGHT, 2 SYNC, 3 SYNC_NO_COPY */
#define GUESTMM_MIGRATE_MODES	4
/* migrate_reason: MR_TYPES is 9 on 6.1; keyed by reason, room for more. */
#define GUESTMM_MIGRATE_REASONS	16
/* Allocation orders 0..MAX_ORDER-1 (11 on x86 6.1); room for more. */
#define GUESTMM_ORDERS		16
/* Migratetypes (MIGRATE_UNMOVABLE..MIGRATE_ISOLATE is 6 on 6.1). */
#define GUESTMM_MIGRATETYPES	8
/* log2 nanosecond buckets: slot i holds [2^i, 2^(i+1)) ns, slot 0 also 0 */
#define GUESTMM_HIST_SLOTS	40
#define GUESTMM_MODEV_NAME_LEN	64

/*
 * Who ran a compaction pass (compact_zone()), decided at
 * mm_compaction_begin from the compact_control and the current task.
 */
#define GUESTMM_KIND_DIRECT	0	/* cc->direct_compaction: allocation stall */
#define GUESTMM_KIND_KCOMPACTD	1	/* kcompactd thread, kcompactd_do_work() */
#define GUESTMM_KIND_PROACTIVE	2	/* cc->proactive_compaction (kcompactd) */
#define GUESTMM_KIND_MANUAL	3	/* user: /proc/sys/vm/compact_memory, sysfs */
#define GUESTMM_KINDS		4

/* Keys of the lat_migrate histogram map. */
#define GUESTMM_MIG_BASE	0	/* folio of order 0 */
#define GUESTMM_MIG_THP		1	/* large folio moved whole */
#define GUESTMM_MIG_KINDS	2

/*
 * The counters: one table per counter map, one entry per member of its
 * value struct, in the struct's order.  Everything else is generated from
 * these lines: the structs below (so the BPF programs, the map layouts and
 * what bpftool prints), guestmm-stat's show, show -j and show -o prometheus
 * (stat_show.c, stat_json.c, stat_prom.c through stat_names.c), its
 * /proc/vmstat equivalents, and tests/lib/promfmt.py, which reads this file.
 *
 * Adding a counter is adding its line here (where it goes in the struct,
 * usually the end), counting it in guestmm.bpf.c, and its row in
 * docs/bpf.md's family table, which tests/unit/test_counters.py checks
 * (and that every output prints the counter).
 *
 *   C(member, unit, prometheus family, HELP text, show, vmstat)
 *   A(member, length, label, json, prometheus family, HELP text, show, vmstat)
 *
 * C is a __u64 counter; unit is count, or ns (nanoseconds: show prints a
 * time, prometheus seconds).  A is an array of __u64 counters, one per
 * value of label (kind, status, result, order, prio, migratetype, mode:
 * stat_names.c names the values); show -j prints it as an object keyed by
 * those names (json named) or as a list (json list).  A map keyed by order
 * or reason labels every sample with that too.  The families are counters.
 *
 * show, where `guestmm-stat show` prints the counter:
 *   SHOW_IN(line, pos, fmt)      in the line titled line, as fmt ("%s" is the
 *                                value), pos-th: a line's parts are printed
 *                                by pos, the lines in the order they first
 *                                appear here
 *   SHOW_AT(line, pos, fmt, i)   the same for element i of an array
 *   SHOW_NAMED(line)             a line of the array's non-zero elements
 *   SHOW_ALL(line)               a line of all its elements
 *   SHOW_COL(head, width)        a column of the table of a map with rows
 *   SHOW_COLS(width)             a column per element, headed by its name
 *   SHOW_AVG(head, width, of)    a column: this time divided by counter of
 *   NO_SHOW                      not printed (show -j has it)
 * vmstat, the /proc/vmstat counter it equals (summed over the map's rows):
 *   VMSTAT(slot, name), VMSTAT_AT(slot, name, i) (element i), NO_VMSTAT;
 *   slot is its place in that list (show, watch and show -j keep its order).
 */

/* map "compact", one entry: every compaction pass and the events inside it */
#define GUESTMM_COMPACT_COUNTERS(C, A)					\
	C(begin, count, "guestmm_compact_passes_begun_total",		\
	  "Compaction passes begun (mm_compaction_begin)",		\
	  SHOW_IN("passes", 0, "%s begun"), NO_VMSTAT)			\
	C(end, count, "guestmm_compact_passes_ended_total",		\
	  "Compaction passes ended (mm_compaction_end)",		\
	  SHOW_IN("passes", 1, ", %s ended"), NO_VMSTAT)		\
	/* sync: passes with cc->mode != MIGRATE_ASYNC */		\
	C(sync, count, "guestmm_compact_sync_passes_total",		\
	  "Compaction passes begun in a sync mode",			\
	  SHOW_IN("passes", 2, ", %s sync"), NO_VMSTAT)			\
	C(async, count, "guestmm_compact_async_passes_total",		\
	  "Compaction passes begun in async mode",			\
	  SHOW_IN("passes", 3, ", %s async"), NO_VMSTAT)		\
	/* passes by GUESTMM_KIND_* */					\
	A(kind, GUESTMM_KINDS, kind, named,				\
	  "guestmm_compact_passes_by_kind_total",			\
	  "Compaction passes begun, by caller (direct, kcompactd, proactive, manual)", \
	  SHOW_ALL("by caller"), NO_VMSTAT)				\
	A(status, GUESTMM_COMPACT_RESULTS, status, named,		\
	  "guestmm_compact_end_status_total",				\
	  "Compaction passes ended, by status (enum compact_result)",	\
	  SHOW_NAMED("end status"), NO_VMSTAT)				\
	/* sum of cc->total_migrate_scanned, cc->total_free_scanned */	\
	C(migrate_scanned, count,					\
	  "guestmm_compact_migrate_scanned_pages_total",		\
	  "Pages the migration scanner scanned (compact_migrate_scanned)", \
	  SHOW_IN("pages scanned", 0, "migrate %s"),			\
	  VMSTAT(3, "compact_migrate_scanned"))				\
	C(free_scanned, count, "guestmm_compact_free_scanned_pages_total", \
	  "Pages the free scanner scanned (compact_free_scanned)",	\
	  SHOW_IN("pages scanned", 1, ", free %s"),			\
	  VMSTAT(4, "compact_free_scanned"))				\
	A(kind_migrate_scanned, GUESTMM_KINDS, kind, list,		\
	  "guestmm_compact_migrate_scanned_pages_by_kind_total",	\
	  "Pages the migration scanner scanned, by caller",		\
	  SHOW_AT("pages scanned", 2, " (kcompactd: migrate %s",	\
		  GUESTMM_KIND_KCOMPACTD),				\
	  VMSTAT_AT(6, "compact_daemon_migrate_scanned", GUESTMM_KIND_KCOMPACTD)) \
	A(kind_free_scanned, GUESTMM_KINDS, kind, list,			\
	  "guestmm_compact_free_scanned_pages_by_kind_total",		\
	  "Pages the free scanner scanned, by caller",			\
	  SHOW_AT("pages scanned", 3, ", free %s)", GUESTMM_KIND_KCOMPACTD), \
	  VMSTAT_AT(7, "compact_daemon_free_scanned", GUESTMM_KIND_KCOMPACTD)) \
	/* time inside compact_zone() */				\
	C(run_ns, ns, "guestmm_compact_run_seconds_total",		\
	  "Time spent in compact_zone()",				\
	  SHOW_IN("passes", 4, ", %s total"), NO_VMSTAT)		\
	C(migratepages, count, "guestmm_compact_migratepages_batches_total", \
	  "Migration batches of compaction (mm_compaction_migratepages)", \
	  SHOW_IN("migratepages", 0, "%s batches"), NO_VMSTAT)		\
	C(nr_migrated, count, "guestmm_compact_migrated_pages_total",	\
	  "Pages compaction migrated",					\
	  SHOW_IN("migratepages", 1, ", %s migrated"), NO_VMSTAT)	\
	C(nr_failed, count, "guestmm_compact_migrate_failed_pages_total", \
	  "Pages compaction failed to migrate",				\
	  SHOW_IN("migratepages", 2, ", %s failed"), NO_VMSTAT)		\
	C(isolate_migrate, count,					\
	  "guestmm_compact_isolate_migrate_blocks_total",		\
	  "Blocks scanned for pages to migrate (mm_compaction_isolate_migratepages)", \
	  SHOW_IN("isolate_migratepages", 0, "%s blocks"), NO_VMSTAT)	\
	C(isolate_migrate_scanned, count,				\
	  "guestmm_compact_isolate_migrate_scanned_pages_total",	\
	  "Pages scanned for pages to migrate",				\
	  SHOW_IN("isolate_migratepages", 1, ", %s scanned"), NO_VMSTAT) \
	C(isolate_migrate_taken, count,					\
	  "guestmm_compact_isolate_migrate_taken_pages_total",		\
	  "Pages isolated for migration",				\
	  SHOW_IN("isolate_migratepages", 2, ", %s taken"), NO_VMSTAT)	\
	C(isolate_free, count, "guestmm_compact_isolate_free_blocks_total", \
	  "Blocks scanned for free target pages (mm_compaction_isolate_freepages)", \
	  SHOW_IN("isolate_freepages", 0, "%s blocks"), NO_VMSTAT)	\
	C(isolate_free_scanned, count,					\
	  "guestmm_compact_isolate_free_scanned_pages_total",		\
	  "Pages scanned for free target pages",			\
	  SHOW_IN("isolate_freepages", 1, ", %s scanned"), NO_VMSTAT)	\
	C(isolate_free_taken, count,					\
	  "guestmm_compact_isolate_free_taken_pages_total",		\
	  "Free pages isolated as migration targets",			\
	  SHOW_IN("isolate_freepages", 2, ", %s taken"), NO_VMSTAT)	\
	A(suitable, GUESTMM_COMPACT_RESULTS, result, named,		\
	  "guestmm_compact_suitable_total",				\
	  "mm_compaction_suitable events, by result (enum compact_result)", \
	  SHOW_NAMED("suitable"), NO_VMSTAT)				\
	A(finished, GUESTMM_COMPACT_RESULTS, result, named,		\
	  "guestmm_compact_finished_total",				\
	  "mm_compaction_finished events, by result (enum compact_result)", \
	  SHOW_NAMED("finished"), NO_VMSTAT)				\
	C(deferred, count, "guestmm_compact_deferred_total",		\
	  "Compactions skipped as deferred (mm_compaction_deferred)",	\
	  SHOW_IN("deferral", 0, "deferred %s"), NO_VMSTAT)		\
	C(defer_compaction, count, "guestmm_compact_defer_compaction_total", \
	  "Compaction deferrals (mm_compaction_defer_compaction)",	\
	  SHOW_IN("deferral", 1, ", defer_compaction %s"), NO_VMSTAT)	\
	C(defer_reset, count, "guestmm_compact_defer_reset_total",	\
	  "Compaction deferral resets (mm_compaction_defer_reset)",	\
	  SHOW_IN("deferral", 2, ", defer_reset %s"), NO_VMSTAT)	\
	C(kcompactd_wake, count, "guestmm_compact_kcompactd_wakes_total", \
	  "kcompactd wakeups (compact_daemon_wake)",			\
	  SHOW_IN("kcompactd", 0, "woken %s"),				\
	  VMSTAT(5, "compact_daemon_wake"))				\
	C(kcompactd_sleep, count, "guestmm_compact_kcompactd_sleeps_total", \
	  "kcompactd sleeps (mm_compaction_kcompactd_sleep)",		\
	  SHOW_IN("kcompactd", 2, ", slept %s"), NO_VMSTAT)		\
	C(wakeup_kcompactd, count,					\
	  "guestmm_compact_kcompactd_wake_requests_total",		\
	  "Requests to wake kcompactd (mm_compaction_wakeup_kcompactd)", \
	  SHOW_IN("kcompactd", 1, " (requested %s)"),			\
	  VMSTAT(17, "compact_daemon_wake_requests"))

/* map "compact_direct", key = allocation order: direct compaction stalls */
#define GUESTMM_COMPACT_DIRECT_COUNTERS(C, A)				\
	C(try_to_compact, count, "guestmm_compact_direct_tries_total",	\
	  "try_to_compact_pages() calls by allocation order",		\
	  SHOW_COL("tries", 8), NO_VMSTAT)				\
	A(prio, GUESTMM_COMPACT_PRIOS, prio, named,			\
	  "guestmm_compact_direct_tries_by_prio_total",			\
	  "try_to_compact_pages() calls by order and compact_priority", \
	  SHOW_COLS(10), NO_VMSTAT)					\
	C(stall, count, "guestmm_compact_direct_stalls_total",		\
	  "Direct compaction stalls by order (compact_stall)",		\
	  SHOW_COL("stall", 8), VMSTAT(0, "compact_stall"))		\
	C(success, count, "guestmm_compact_direct_successes_total",	\
	  "Direct compaction stalls that got a page, by order (compact_success)", \
	  SHOW_COL("success", 8), VMSTAT(1, "compact_success"))		\
	C(fail, count, "guestmm_compact_direct_failures_total",		\
	  "Direct compaction stalls that got no page, by order (compact_fail)", \
	  SHOW_COL("fail", 8), VMSTAT(2, "compact_fail"))		\
	/* no stall: COMPACT_SKIPPED, on 7.2+ also COMPACT_DEFERRED */	\
	C(skipped, count, "guestmm_compact_direct_skipped_total",	\
	  "try_to_compact_pages() calls that did not stall (COMPACT_SKIPPED; 7.2+: also COMPACT_DEFERRED), by order", \
	  SHOW_COL("skipped", 8), NO_VMSTAT)				\
	C(stall_ns, ns, "guestmm_compact_direct_stall_seconds_total",	\
	  "Time in direct compaction when it stalled, by order",	\
	  SHOW_AVG("avg_stall", 10, stall), NO_VMSTAT)

/* map "extfrag", one entry: mm_page_alloc_extfrag (fallback allocations) */
#define GUESTMM_EXTFRAG_COUNTERS(C, A)					\
	C(events, count, "guestmm_extfrag_events_total",		\
	  "Fallback allocations (mm_page_alloc_extfrag)",		\
	  SHOW_IN("events", 0, "%s"), NO_VMSTAT)			\
	/* fallback_order < pageblock_order */				\
	C(fragmenting, count, "guestmm_extfrag_fragmenting_total",	\
	  "Fallback allocations below pageblock order",			\
	  SHOW_IN("events", 1, ", fragmenting %s"), NO_VMSTAT)		\
	C(change_ownership, count, "guestmm_extfrag_change_ownership_total", \
	  "Fallback allocations that took the whole pageblock",	\
	  SHOW_IN("events", 2, ", pageblock stolen %s"), NO_VMSTAT)	\
	A(alloc_migratetype, GUESTMM_MIGRATETYPES, migratetype, named,	\
	  "guestmm_extfrag_alloc_migratetype_total",			\
	  "Fallback allocations by the migratetype wanted",		\
	  SHOW_NAMED("wanted migratetype"), NO_VMSTAT)			\
	A(fallback_migratetype, GUESTMM_MIGRATETYPES, migratetype, named, \
	  "guestmm_extfrag_fallback_migratetype_total",			\
	  "Fallback allocations by the migratetype taken from",		\
	  SHOW_NAMED("took from"), NO_VMSTAT)

/* map "migrate", key = enum migrate_reason: one migrate_pages() call each */
#define GUESTMM_MIGRATE_COUNTERS(C, A)					\
	C(start, count, "guestmm_migrate_starts_total",			\
	  "migrate_pages() calls begun, by reason (mm_migrate_pages_start)", \
	  NO_SHOW, NO_VMSTAT)						\
	C(calls, count, "guestmm_migrate_calls_total",			\
	  "migrate_pages() calls ended, by reason (mm_migrate_pages)",	\
	  SHOW_COL("calls", 7), NO_VMSTAT)				\
	C(succeeded, count, "guestmm_migrate_succeeded_pages_total",	\
	  "Pages migrated, by reason (pgmigrate_success)",		\
	  SHOW_COL("succeeded", 10), VMSTAT(8, "pgmigrate_success"))	\
	C(failed, count, "guestmm_migrate_failed_pages_total",		\
	  "Pages that failed to migrate, by reason (pgmigrate_fail)",	\
	  SHOW_COL("failed", 8), VMSTAT(9, "pgmigrate_fail"))		\
	C(thp_succeeded, count, "guestmm_migrate_thp_succeeded_total",	\
	  "THPs migrated, by reason (thp_migration_success)",		\
	  SHOW_COL("thp_ok", 8), VMSTAT(10, "thp_migration_success"))	\
	C(thp_failed, count, "guestmm_migrate_thp_failed_total",	\
	  "THPs that failed to migrate, by reason (thp_migration_fail)", \
	  SHOW_COL("thp_fail", 8), VMSTAT(11, "thp_migration_fail"))	\
	C(thp_split, count, "guestmm_migrate_thp_split_total",		\
	  "THPs split to migrate, by reason (thp_migration_split)",	\
	  SHOW_COL("thp_split", 8), VMSTAT(12, "thp_migration_split"))	\
	/* kernels that have it (>= 6.11); 0 on 6.1 */			\
	C(large_folio_split, count, "guestmm_migrate_large_folio_split_total", \
	  "Large folios split to migrate, by reason (kernels 6.11+)",	\
	  NO_SHOW, NO_VMSTAT)						\
	A(mode, GUESTMM_MIGRATE_MODES, mode, named,			\
	  "guestmm_migrate_calls_by_mode_total",			\
	  "migrate_pages() calls ended, by reason and migrate_mode",	\
	  NO_SHOW, NO_VMSTAT)						\
	C(call_ns, ns, "guestmm_migrate_call_seconds_total",		\
	  "Time in migrate_pages(), by reason",				\
	  SHOW_AVG("avg_call", 10, calls), NO_VMSTAT)

/*
 * map "thp_migration", one entry.  Folios moved successfully are counted
 * by the lat_migrate histograms (count of key 0 = base, key 1 = THP), which
 * are per-CPU to keep the per-folio path free of atomics.
 */
#define GUESTMM_THP_MIGRATION_COUNTERS(C, A)				\
	/* a THP unmapped for migration as a whole, mapped again */	\
	C(set_migration_pmd, count, "guestmm_thp_migration_set_pmd_total", \
	  "THPs unmapped for migration as a whole (set_migration_pmd)", \
	  SHOW_IN("migration pmd", 0, "set %s"), NO_VMSTAT)		\
	C(remove_migration_pmd, count,					\
	  "guestmm_thp_migration_remove_pmd_total",			\
	  "THPs mapped again at their destination (remove_migration_pmd)", \
	  SHOW_IN("migration pmd", 1, ", remove %s (THP moved whole)"),	\
	  NO_VMSTAT)							\
	/* move_to_new_folio() failed; show: with the folio counts */	\
	C(folios_move_failed, count,					\
	  "guestmm_thp_migration_folios_move_failed_total",		\
	  "Folios move_to_new_folio() failed to move (load -f)",	\
	  NO_SHOW, NO_VMSTAT)

/* map "node_reclaim", one entry: node reclaim (zone_reclaim_mode) */
#define GUESTMM_NODE_RECLAIM_COUNTERS(C, A)				\
	C(begin, count, "guestmm_node_reclaim_passes_begun_total",	\
	  "Node reclaim passes begun (mm_vmscan_node_reclaim_begin)",	\
	  SHOW_IN("passes", 0, "%s begun"), NO_VMSTAT)			\
	C(end, count, "guestmm_node_reclaim_passes_ended_total",	\
	  "Node reclaim passes ended (mm_vmscan_node_reclaim_end)",	\
	  SHOW_IN("passes", 1, ", %s ended"), NO_VMSTAT)		\
	C(nr_reclaimed, count, "guestmm_node_reclaim_reclaimed_pages_total", \
	  "Pages node reclaim reclaimed",				\
	  SHOW_IN("passes", 2, ", %s pages reclaimed"), NO_VMSTAT)	\
	C(empty, count, "guestmm_node_reclaim_empty_passes_total",	\
	  "Node reclaim passes that reclaimed nothing",			\
	  SHOW_IN("passes", 3, ", %s empty"), NO_VMSTAT)		\
	C(failed, count, "guestmm_node_reclaim_failed_passes_total",	\
	  "Node reclaim passes that freed fewer than 2^order pages (zone_reclaim_failed)", \
	  SHOW_IN("passes", 4, ", %s failed"),				\
	  VMSTAT(16, "zone_reclaim_failed"))				\
	A(order, GUESTMM_ORDERS, order, list,				\
	  "guestmm_node_reclaim_passes_by_order_total",			\
	  "Node reclaim passes begun, by allocation order",		\
	  NO_SHOW, NO_VMSTAT)						\
	C(run_ns, ns, "guestmm_node_reclaim_run_seconds_total",		\
	  "Time spent in node reclaim passes",				\
	  SHOW_IN("passes", 5, ", %s total"), NO_VMSTAT)

/* map "balloon", one entry: balloon_compaction.c, any balloon driver */
#define GUESTMM_BALLOON_COUNTERS(C, A)					\
	C(inflate, count, "guestmm_balloon_inflated_pages_total",	\
	  "Pages enqueued into a balloon (balloon_inflate)",		\
	  SHOW_IN("pages", 0, "inflate %s"), VMSTAT(13, "balloon_inflate")) \
	C(deflate, count, "guestmm_balloon_deflated_pages_total",	\
	  "Pages dequeued from a balloon (balloon_deflate)",		\
	  SHOW_IN("pages", 1, ", deflate %s"), VMSTAT(14, "balloon_deflate")) \
	/* balloon_page_migrate() returned 0; migrate_failed: not 0 */	\
	C(migrate, count, "guestmm_balloon_migrated_pages_total",	\
	  "Balloon pages migrated (balloon_migrate)",			\
	  SHOW_IN("pages", 2, ", migrate %s"), VMSTAT(15, "balloon_migrate")) \
	C(migrate_failed, count, "guestmm_balloon_migrate_failed_total", \
	  "Balloon page migrations the driver refused",			\
	  SHOW_IN("pages", 3, ", migrate failed %s"), NO_VMSTAT)	\
	C(dequeue_empty, count, "guestmm_balloon_dequeue_empty_total",	\
	  "balloon_page_dequeue() calls that found no page",		\
	  NO_SHOW, NO_VMSTAT)

/* The value structs, from the tables: one __u64 per counter. */
#define GUESTMM_U64(member, ...)		__u64 member;
#define GUESTMM_U64S(member, len, ...)		__u64 member[len];

struct guestmm_compact {
	GUESTMM_COMPACT_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

struct guestmm_compact_direct {
	GUESTMM_COMPACT_DIRECT_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

struct guestmm_extfrag {
	GUESTMM_EXTFRAG_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

struct guestmm_migrate {
	GUESTMM_MIGRATE_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

struct guestmm_thp_migration {
	GUESTMM_THP_MIGRATION_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

struct guestmm_node_reclaim {
	GUESTMM_NODE_RECLAIM_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

struct guestmm_balloon {
	GUESTMM_BALLOON_COUNTERS(GUESTMM_U64, GUESTMM_U64S)
};

/* map "module_events", key = trace event id of a guestmm module event */
struct guestmm_modev {
	char name[GUESTMM_MODEV_NAME_LEN];	/* "system:event", filled by the loader */
	char sum_field[16];	/* field summed into sum ("nr", ...), or "" */
	__u32 sum_off;		/* its offset in the trace record */
	__u32 sum_size;		/* 4 or 8; 0: nothing summed */
	__u64 count;		/* events */
	__u64 sum;		/* total of sum_field over the events */
};

/* maps "lat_compact" (key GUESTMM_KIND_*), "lat_direct" (key order),
 * "lat_migrate" (key GUESTMM_MIG_*), "lat_reclaim" (key 0); all per-CPU
 * arrays: bpftool prints one struct per CPU, guestmm-stat sums them */
struct guestmm_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 max_ns;			/* racy maximum, good enough for display */
	__u64 slots[GUESTMM_HIST_SLOTS];
};

#endif /* GUESTMM_H */
