/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: what compact_zone.c and migrate_scan.c share.
 *
 * Everything here mirrors Debian 6.1.192-3 (linux 6.1.y, mm/internal.h and
 * mm/compaction.c).  Other kernels build only main.c and refuse to load;
 * the Kbuild decides (GMM_KLP_6_1), this is the one place that knows the
 * private 6.1 layouts.
 */
#ifndef _GUESTMM_KLP_COMPACT_H
#define _GUESTMM_KLP_COMPACT_H

#include <linux/atomic.h>
#include <linux/compaction.h>
#include <linux/list.h>
#include <linux/migrate_mode.h>
#include <linux/mmzone.h>
#include <linux/types.h>

/*
 * struct compact_control, mm/internal.h of 6.1.192 (lines 427-461).  The
 * kernel's isolate_migratepages_block(), compaction_alloc() and the
 * compaction tracepoints read this structure, so its layout is checked
 * against the running kernel's BTF at load time (btf_check.c).
 *
 * One field is renamed: 6.1 calls finish_pageblock "rescan".  Upstream
 * renamed it in "mm, compaction: rename compact_control->rescan to
 * finish_pageblock" (Mel Gorman, Jan 2023, v6.3, patch 1/4 of "Fix
 * excessive CPU usage during compaction"); same offset, same meaning to
 * the kernel's isolate_migratepages_block().
 */
struct compact_control {
	struct list_head freepages;
	struct list_head migratepages;
	unsigned int nr_freepages;
	unsigned int nr_migratepages;
	unsigned long free_pfn;
	unsigned long migrate_pfn;
	unsigned long fast_start_pfn;
	struct zone *zone;
	unsigned long total_migrate_scanned;
	unsigned long total_free_scanned;
	unsigned short fast_search_fail;
	short search_order;
	const gfp_t gfp_mask;
	int order;
	int migratetype;
	const unsigned int alloc_flags;
	const int highest_zoneidx;
	enum migrate_mode mode;
	bool ignore_skip_hint;
	bool no_set_skip_hint;
	bool ignore_block_suitable;
	bool direct_compaction;
	bool proactive_compaction;
	bool whole_zone;
	bool contended;
	bool finish_pageblock;		/* 6.1: "rescan" */
	bool alloc_contig;
};

/* mm/internal.h of 6.1.192 (line 467) */
struct capture_control {
	struct compact_control *cc;
	struct page *page;
};

/* mm/compaction.c of 6.1: isolate_migrate_t, the isolation result */
enum klpr_isolate_migrate {
	ISOLATE_ABORT,		/* Abort compaction now */
	ISOLATE_NONE,		/* No pages isolated, continue scanning */
	ISOLATE_SUCCESS,	/* Pages isolated, migrate */
};

/* mm/compaction.c of 6.1 (COMPACTION_HPAGE_ORDER with THP on) */
#define KLPR_COMPACTION_HPAGE_ORDER	HPAGE_PMD_ORDER

/* Tunables (main.c, module parameters, validated there). */
struct gmm_klp_tunables {
	bool fast_search;		/* free-list search for a source */
	unsigned int search_depth;	/* free-list entries per search */
	unsigned int candidates;	/* blocks scored per search, 1 = upstream */
	unsigned int balloon_cost;	/* weight of a balloon page */
};
extern struct gmm_klp_tunables gmm_klp_tun;

/* Counters shown in debugfs (main.c, gmm_klp_stat_names[]). */
enum gmm_klp_counter {
	GMM_KLP_runs,			/* compact_zone() entered */
	GMM_KLP_runs_not_suitable,	/* compaction_suitable() said no */
	GMM_KLP_fast_search,		/* free-list searches done */
	GMM_KLP_fast_hit,		/* ... that chose a source block */
	GMM_KLP_fast_miss,		/* ... that found none */
	GMM_KLP_fast_scanned,		/* free-list entries examined */
	GMM_KLP_fast_candidates,	/* candidate blocks scored */
	GMM_KLP_score_scanned,		/* struct pages read while scoring */
	GMM_KLP_score_rejected,		/* candidates with unmovable pages */
	GMM_KLP_linear_blocks,		/* blocks the linear scan considered */
	GMM_KLP_blocks_skip_hint,	/* ... skipped: skip bit set */
	GMM_KLP_blocks_unsuitable,	/* ... skipped: not a suitable source */
	GMM_KLP_blocks_isolated,	/* isolate_migratepages_block() calls */
	GMM_KLP_hole_pfns_skipped,	/* pfns jumped over in memory holes */
	GMM_KLP_finish_rescans,		/* pageblocks finished after a failure */
	GMM_KLP_fast_block_skipped,	/* chosen blocks marked skipped after use */
	GMM_KLP_capture_stops,		/* stopped early: page captured */
	GMM_KLP_migrate_batches,	/* migrate_pages() calls */
	GMM_KLP_migrate_success,	/* pages migrated */
	GMM_KLP_migrate_scanned,	/* compact_migrate_scanned we added */
	GMM_KLP_free_scanned,		/* compact_free_scanned we added */
	GMM_KLP_NR_COUNTERS
};

extern atomic_long_t gmm_klp_stats[GMM_KLP_NR_COUNTERS];

static inline void gmm_klp_count(enum gmm_klp_counter c, long n)
{
	atomic_long_add(n, &gmm_klp_stats[c]);
}

/* compact_zone.c: the function that replaces the kernel's compact_zone() */
enum compact_result gmm_klp_compact_zone(struct compact_control *cc,
					 struct capture_control *capc);

/* migrate_scan.c: our isolate_migratepages() */
enum klpr_isolate_migrate gmm_klp_isolate_migratepages(struct compact_control *cc);

/* btf_check.c: struct layout and prototype checks against vmlinux BTF */
int gmm_klp_btf_check(void);

#endif /* _GUESTMM_KLP_COMPACT_H */
