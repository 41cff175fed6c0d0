// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: our compact_zone(), the function the livepatch replaces.
 *
 * It mirrors compact_zone() of Debian 6.1.192 (mm/compaction.c:2289) and
 * the helpers gcc inlined into it there (compact_finished,
 * __compact_finished, kswapd_is_running, fragmentation_score_zone,
 * fragmentation_score_wmark, compaction_restarting,
 * reset_cached_positions).  What differs from 6.1:
 *
 *  - the migrate-source scanner is ours (migrate_scan.c);
 *  - upstream fixes after 6.1, each marked "Upstream:" below, checked
 *    against Debian's linux-source-6.12 (6.12.95);
 *  - counters and our own tracepoint per run.
 *
 * Kept from the kernel: the free scanner (compaction_alloc and
 * compaction_free are handed to migrate_pages() unchanged),
 * isolate_migratepages_block(), compaction_suitable(), and the kernel's
 * mm_compaction_* tracepoints and compact_* vmstat events, which fire
 * exactly where 6.1 fires them.
 */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/memory_hotplug.h>
#include <linux/migrate.h>
#include <linux/sched/signal.h>
#include <linux/vmstat.h>

#include "compact.h"
#include "klpr.h"
#include "ksyms.h"
#include "tracing.h"

/* 6.1 mm/compaction.c:2289 compact_zone(), with the changes named below */
enum compact_result gmm_klp_compact_zone(struct compact_control *cc,
					 struct capture_control *capc)
{
	enum compact_result ret;
	unsigned long start_pfn = cc->zone->zone_start_pfn;
	unsigned long end_pfn = zone_end_pfn(cc->zone);
	unsigned long last_migrated_pfn;
	const bool sync = cc->mode != MIGRATE_ASYNC;
	bool update_cached;
	unsigned int nr_succeeded = 0;

	gmm_klp_count(GMM_KLP_runs, 1);
	if (cc->proactive_compaction)
		gmm_klp_count(GMM_KLP_runs_proactive, 1);

	cc->total_migrate_scanned = 0;
	cc->total_free_scanned = 0;
	cc->nr_migratepages = 0;
	cc->nr_freepages = 0;
	INIT_LIST_HEAD(&cc->freepages);
	INIT_LIST_HEAD(&cc->migratepages);

	cc->migratetype = klpr_gfp_migratetype(cc->gfp_mask);
	ret = klpe_compaction_suitable(cc->zone, cc->order, cc->alloc_flags,
				       cc->highest_zoneidx);
	if (ret == COMPACT_SUCCESS || ret == COMPACT_SKIPPED) {
		gmm_klp_count(GMM_KLP_runs_not_suitable, 1);
		return ret;
	}

	/* Retried after deferral: forget the skip hints. */
	if (klpr_compaction_restarting(cc->zone, cc->order))
		klpe___reset_isolation_suitable(cc->zone);

	/* Start where the last run stopped unless the whole zone is wanted. */
	cc->fast_start_pfn = 0;
	if (cc->whole_zone) {
		cc->migrate_pfn = start_pfn;
		cc->free_pfn = pageblock_start_pfn(end_pfn - 1);
	} else {
		cc->migrate_pfn = cc->zone->compact_cached_migrate_pfn[sync];
		cc->free_pfn = cc->zone->compact_cached_free_pfn;
		if (cc->free_pfn < start_pfn || cc->free_pfn >= end_pfn) {
			cc->free_pfn = pageblock_start_pfn(end_pfn - 1);
			cc->zone->compact_cached_free_pfn = cc->free_pfn;
		}
		if (cc->migrate_pfn < start_pfn || cc->migrate_pfn >= end_pfn) {
			cc->migrate_pfn = start_pfn;
			cc->zone->compact_cached_migrate_pfn[0] = cc->migrate_pfn;
			cc->zone->compact_cached_migrate_pfn[1] = cc->migrate_pfn;
		}

		if (cc->migrate_pfn <= cc->zone->compact_init_migrate_pfn)
			cc->whole_zone = true;
	}

	last_migrated_pfn = 0;

	/*
	 * Keep the async and sync cached migrate pfns together until a block
	 * with isolation candidates is found (6.1 behaviour).
	 */
	update_cached = !sync &&
		cc->zone->compact_cached_migrate_pfn[0] ==
		cc->zone->compact_cached_migrate_pfn[1];

	klpr_trace(mm_compaction_begin, cc, start_pfn, end_pfn, sync);

	klpe_lru_add_drain();

	while ((ret = klpr_compact_finished(cc)) == COMPACT_CONTINUE) {
		int err;
		unsigned long iteration_start_pfn = cc->migrate_pfn;

		/*
		 * Back in the block we last migrated from: finish it this
		 * time rather than pick it again and again.
		 */
		cc->finish_pageblock = false;
		if (pageblock_start_pfn(last_migrated_pfn) ==
		    pageblock_start_pfn(iteration_start_pfn))
			cc->finish_pageblock = true;

rescan:
		switch (gmm_klp_isolate_migratepages(cc)) {
		case ISOLATE_ABORT:
			ret = COMPACT_CONTENDED;
			klpe_putback_movable_pages(&cc->migratepages);
			cc->nr_migratepages = 0;
			goto out;
		case ISOLATE_NONE:
			if (update_cached)
				cc->zone->compact_cached_migrate_pfn[1] =
					cc->zone->compact_cached_migrate_pfn[0];
			goto check_drain;
		case ISOLATE_SUCCESS:
			update_cached = false;
			/*
			 * Upstream: "mm/compaction: correct last_migrated_pfn
			 * update in compact_zone" (Kemeng Shi, 2023; in 6.12).
			 * 6.1 recorded iteration_start_pfn, the block the
			 * search started from; the pages isolated are in the
			 * block that ends at cc->migrate_pfn, which is where
			 * the per-cpu lists must be drained for.
			 */
			last_migrated_pfn = max(cc->zone->zone_start_pfn,
				pageblock_start_pfn(cc->migrate_pfn - 1));
		}

		err = klpe_migrate_pages(&cc->migratepages,
					 klpe_compaction_alloc,
					 klpe_compaction_free,
					 (unsigned long)cc, cc->mode,
					 MR_COMPACTION, &nr_succeeded);
		gmm_klp_count(GMM_KLP_migrate_batches, 1);
		gmm_klp_count(GMM_KLP_migrate_success, nr_succeeded);

		klpr_trace(mm_compaction_migratepages, cc, nr_succeeded);

		/* All pages were either migrated or will be released */
		cc->nr_migratepages = 0;
		if (err) {
			klpe_putback_movable_pages(&cc->migratepages);
			/* -ENOMEM when the scanners met: compact_finished() */
			if (err == -ENOMEM && !klpr_compact_scanners_met(cc)) {
				ret = COMPACT_CONTENDED;
				goto out;
			}
			/*
			 * Upstream: "mm, compaction: finish pageblocks on
			 * complete migration failure" (Mel Gorman, Jan 2023,
			 * v6.3, 4/4 of "Fix excessive CPU usage during
			 * compaction").  6.1 skipped the rest of the
			 * order-aligned block for async direct compaction,
			 * and the free-list search could then pick the same
			 * partially scanned block forever (the 6.1 kcompactd
			 * and khugepaged 100% CPU reports).  Instead, finish
			 * the pageblock now so it gets its skip bit.
			 */
			if (!pageblock_aligned(cc->migrate_pfn) &&
			    !cc->ignore_skip_hint && !cc->finish_pageblock &&
			    cc->mode < MIGRATE_SYNC) {
				cc->finish_pageblock = true;
				gmm_klp_count(GMM_KLP_finish_rescans, 1);

				/* A failed page keeps a THP block busy. */
				if (cc->order == KLPR_COMPACTION_HPAGE_ORDER)
					last_migrated_pfn = 0;

				goto rescan;
			}
		}

		/*
		 * Upstream: "mm, compaction: check if a page has been
		 * captured before draining PCP pages" (Mel Gorman, Jan 2023,
		 * v6.3, 2/4 of the same series).  A captured page ends the
		 * run; draining the per-cpu lists first was wasted work.
		 */
		if (capc && capc->page) {
			gmm_klp_count(GMM_KLP_capture_stops, 1);
			ret = COMPACT_SUCCESS;
			break;
		}

check_drain:
		/*
		 * Moved past the cc->order aligned block we migrated from:
		 * flush the freed pages so they merge, and compact_finished()
		 * sees the result at once.
		 */
		if (cc->order > 0 && last_migrated_pfn) {
			unsigned long current_block_start =
				klpr_block_start_pfn(cc->migrate_pfn, cc->order);

			if (last_migrated_pfn < current_block_start) {
				klpe_lru_add_drain_cpu_zone(cc->zone);
				last_migrated_pfn = 0;
			}
		}
	}

out:
	/* Give back isolated free pages; remember where they were. */
	if (cc->nr_freepages > 0) {
		unsigned long free_pfn = klpe_release_freepages(&cc->freepages);

		cc->nr_freepages = 0;
		free_pfn = pageblock_start_pfn(free_pfn);
		/* Only go back, not forward. */
		if (free_pfn > cc->zone->compact_cached_free_pfn)
			cc->zone->compact_cached_free_pfn = free_pfn;
	}

	count_vm_events(COMPACTMIGRATE_SCANNED, cc->total_migrate_scanned);
	count_vm_events(COMPACTFREE_SCANNED, cc->total_free_scanned);
	gmm_klp_count(GMM_KLP_migrate_scanned, cc->total_migrate_scanned);
	gmm_klp_count(GMM_KLP_free_scanned, cc->total_free_scanned);

	klpr_trace(mm_compaction_end, cc, start_pfn, end_pfn, sync, ret);
	gmm_trace(guestmm_klp_run, cc->zone, cc->order, ret,
			      cc->total_migrate_scanned,
			      cc->total_free_scanned);

	return ret;
}
