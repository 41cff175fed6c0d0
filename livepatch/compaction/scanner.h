/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: what every compaction variant (variants/<V>/) shares with
 * the common code: the scanner's tunables (params.c) and its counters
 * (stats.c).
 */
#ifndef _GUESTMM_KLP_SCANNER_H
#define _GUESTMM_KLP_SCANNER_H

#include <linux/percpu.h>
#include <linux/types.h>

/* Tunables (module parameters, validated in params.c). */
struct gmm_klp_tunables {
	bool fast_search;		/* free-list search for a source */
	unsigned int search_depth;	/* free-list entries per search */
	unsigned int candidates;	/* blocks scored per search, 1 = upstream */
	unsigned int balloon_cost;	/* weight of a balloon page */
};
extern struct gmm_klp_tunables gmm_klp_tun;

/* Counters shown in debugfs (stats.c, gmm_klp_stat_names[]). */
enum gmm_klp_counter {
	GMM_KLP_runs,			/* compact_zone() entered */
	GMM_KLP_runs_not_suitable,	/* compaction_suitable() said no */
	GMM_KLP_runs_proactive,		/* ... of them kcompactd's proactive ones */
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
	GMM_KLP_sync_block_skipped,	/* sync: entered blocks marked skipped */
	GMM_KLP_capture_stops,		/* stopped early: page captured */
	GMM_KLP_migrate_batches,	/* migrate_pages() calls */
	GMM_KLP_migrate_success,	/* pages migrated */
	GMM_KLP_migrate_scanned,	/* compact_migrate_scanned we added */
	GMM_KLP_free_scanned,		/* compact_free_scanned we added */
	GMM_KLP_NR_COUNTERS
};

struct gmm_klp_stats {
	unsigned long c[GMM_KLP_NR_COUNTERS];
};
DECLARE_PER_CPU(struct gmm_klp_stats, gmm_klp_stats);

/*
 * Counted in per-pageblock loops, on whatever CPU compacts: a per-CPU add
 * (no shared cache line), summed when debugfs is read.
 */
static inline void gmm_klp_count(enum gmm_klp_counter c, long n)
{
	this_cpu_add(gmm_klp_stats.c[c], n);
}

#endif /* _GUESTMM_KLP_SCANNER_H */
