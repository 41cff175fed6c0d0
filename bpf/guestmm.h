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
 * zeroed by `guestmm-stat reset`.  Where a counter is meant to equal a
 * /proc/vmstat counter the comment names it.
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

/* map "compact", one entry: every compaction pass and the events inside it */
struct guestmm_compact {
	__u64 begin;			/* mm_compaction_begin */
	__u64 end;			/* mm_compaction_end */
	__u64 sync;			/* passes with cc->mode != MIGRATE_ASYNC */
	__u64 async;
	__u64 kind[GUESTMM_KINDS];	/* passes by GUESTMM_KIND_* */
	__u64 status[GUESTMM_COMPACT_RESULTS];	/* end status (compact_result) */
	__u64 migrate_scanned;		/* sum cc->total_migrate_scanned == compact_migrate_scanned */
	__u64 free_scanned;		/* sum cc->total_free_scanned == compact_free_scanned */
	__u64 kind_migrate_scanned[GUESTMM_KINDS]; /* [KCOMPACTD] == compact_daemon_migrate_scanned */
	__u64 kind_free_scanned[GUESTMM_KINDS];	   /* [KCOMPACTD] == compact_daemon_free_scanned */
	__u64 run_ns;			/* total time inside compact_zone() */
	__u64 migratepages;		/* mm_compaction_migratepages events */
	__u64 nr_migrated;
	__u64 nr_failed;
	__u64 isolate_migrate;		/* mm_compaction_isolate_migratepages events */
	__u64 isolate_migrate_scanned;
	__u64 isolate_migrate_taken;
	__u64 isolate_free;		/* mm_compaction_isolate_freepages events */
	__u64 isolate_free_scanned;
	__u64 isolate_free_taken;
	__u64 suitable[GUESTMM_COMPACT_RESULTS];	/* mm_compaction_suitable by ret */
	__u64 finished[GUESTMM_COMPACT_RESULTS];	/* mm_compaction_finished by ret */
	__u64 deferred;			/* mm_compaction_deferred (skipped, deferred) */
	__u64 defer_compaction;		/* mm_compaction_defer_compaction */
	__u64 defer_reset;		/* mm_compaction_defer_reset */
	__u64 kcompactd_wake;		/* mm_compaction_kcompactd_wake == compact_daemon_wake */
	__u64 kcompactd_sleep;		/* mm_compaction_kcompactd_sleep */
	__u64 wakeup_kcompactd;		/* mm_compaction_wakeup_kcompactd (requests) */
};

/* map "compact_direct", key = allocation order: direct compaction stalls */
struct guestmm_compact_direct {
	__u64 try_to_compact;		/* mm_compaction_try_to_compact_pages */
	__u64 prio[GUESTMM_COMPACT_PRIOS];	/* ... by compact_priority */
	__u64 stall;			/* == compact_stall (summed over orders) */
	__u64 success;			/* == compact_success */
	__u64 fail;			/* == compact_fail */
	__u64 skipped;			/* try_to_compact_pages() returned COMPACT_SKIPPED */
	__u64 stall_ns;			/* time in __alloc_pages_direct_compact() when stalled */
};

/* map "extfrag", one entry: mm_page_alloc_extfrag (fallback allocations) */
struct guestmm_extfrag {
	__u64 events;
	__u64 fragmenting;		/* fallback_order < pageblock_order */
	__u64 change_ownership;		/* the whole pageblock was stolen */
	__u64 alloc_migratetype[GUESTMM_MIGRATETYPES];
	__u64 fallback_migratetype[GUESTMM_MIGRATETYPES];
};

/* map "migrate", key = enum migrate_reason: one migrate_pages() call each */
struct guestmm_migrate {
	__u64 start;			/* mm_migrate_pages_start */
	__u64 calls;			/* mm_migrate_pages */
	__u64 succeeded;		/* pages; == pgmigrate_success (summed) */
	__u64 failed;			/* pages; == pgmigrate_fail */
	__u64 thp_succeeded;		/* == thp_migration_success */
	__u64 thp_failed;		/* == thp_migration_fail */
	__u64 thp_split;		/* == thp_migration_split */
	__u64 large_folio_split;	/* kernels that have it (>= 6.11); 0 on 6.1 */
	__u64 mode[GUESTMM_MIGRATE_MODES];
	__u64 call_ns;			/* time inside migrate_pages() */
};

/*
 * map "thp_migration", one entry.  Folios moved successfully are counted
 * by the lat_migrate histograms (count of key 0 = base, key 1 = THP), which
 * are per-CPU to keep the per-folio path free of atomics.
 */
struct guestmm_thp_migration {
	__u64 set_migration_pmd;	/* a THP unmapped for migration as a whole */
	__u64 remove_migration_pmd;	/* ... and mapped again at its destination */
	__u64 folios_move_failed;	/* move_to_new_folio() != MIGRATEPAGE_SUCCESS */
};

/* map "node_reclaim", one entry: node reclaim (zone_reclaim_mode) */
struct guestmm_node_reclaim {
	__u64 begin;			/* mm_vmscan_node_reclaim_begin */
	__u64 end;			/* mm_vmscan_node_reclaim_end */
	__u64 nr_reclaimed;
	__u64 empty;			/* passes that reclaimed nothing */
	__u64 failed;			/* reclaimed < 2^order pages == zone_reclaim_failed */
	__u64 order[GUESTMM_ORDERS];
	__u64 run_ns;
};

/* map "balloon", one entry: balloon_compaction.c, any balloon driver */
struct guestmm_balloon {
	__u64 inflate;			/* pages enqueued == balloon_inflate */
	__u64 deflate;			/* pages dequeued == balloon_deflate */
	__u64 migrate;			/* balloon_page_migrate() == 0 == balloon_migrate */
	__u64 migrate_failed;		/* balloon_page_migrate() != 0 (e.g. -EAGAIN) */
	__u64 dequeue_empty;		/* balloon_page_dequeue() returned NULL */
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
