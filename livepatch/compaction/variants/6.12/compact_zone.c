// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, variant 6.12: our compact_zone(), the function the
 * livepatch replaces.
 *
 * It mirrors compact_zone() of Debian 6.12 (6.12.95+deb12 and
 * 6.12.118+deb13, mm/compaction.c:2510), with the helpers gcc inlined
 * into it there re-implemented in klpr.h (compaction_suit_allocation_order,
 * compaction_restarting, compact_finished, __compact_finished and what
 * they call).  What differs from 6.12:
 *
 *  - the migrate-source scanner is ours (migrate_scan.c);
 *  - our counters (gmm_klp_count()) and our tracepoint per run
 *    (gmm_trace()), not marked one by one.
 *
 * The fixes the 6.1 variant back-ports (Mel Gorman's Jan 2023 series,
 * Kemeng Shi's last_migrated_pfn fix) are part of 6.12 and mirrored as
 * they are.
 *
 * Kept from the kernel: the free scanner (compaction_alloc and
 * compaction_free are handed to migrate_pages() unchanged),
 * isolate_migratepages_block(), compaction_suitable(), release_free_list(),
 * and the kernel's mm_compaction_* tracepoints and compact_* vmstat
 * events, which fire exactly where 6.12 fires them.
 */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/migrate.h>
#include <linux/mmdebug.h>
#include <linux/vmstat.h>

#include "compact.h"
#include "klpr.h"
#include "ksyms.h"
#include "tracing.h"

/* 6.12 mm/compaction.c:2510 compact_zone() */
enum compact_result gmm_klp_compact_zone(struct compact_control *cc,
					 struct capture_control *capc)
{
	enum compact_result ret;
	unsigned long start_pfn = cc->zone->zone_start_pfn;
	unsigned long end_pfn = zone_end_pfn(cc->zone);
	unsigned long last_migrated_pfn;
	const bool sync = cc->mode != MIGRATE_ASYNC;
	bool update_cached;
	unsigned int nr_succeeded = 0, nr_migratepages;
	int order;

	gmm_klp_count(GMM_KLP_runs, 1);
	if (cc->proactive_compaction)
		gmm_klp_count(GMM_KLP_runs_proactive, 1);

	/*
	 * These counters track activities during zone compaction.  Initialize
	 * them before compacting a new zone.
	 */
	cc->total_migrate_scanned = 0;
	cc->total_free_scanned = 0;
	cc->nr_migratepages = 0;
	cc->nr_freepages = 0;
	for (order = 0; order < NR_PAGE_ORDERS; order++)
		INIT_LIST_HEAD(&cc->freepages[order]);
	INIT_LIST_HEAD(&cc->migratepages);

	cc->migratetype = klpr_gfp_migratetype(cc->gfp_mask);

	if (!klpr_is_via_compact_memory(cc->order)) {
		ret = klpr_compaction_suit_allocation_order(cc->zone, cc->order,
							    cc->highest_zoneidx,
							    cc->alloc_flags);
		if (ret != COMPACT_CONTINUE) {
			gmm_klp_count(GMM_KLP_runs_not_suitable, 1);
			return ret;
		}
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
	 * with isolation candidates is found.
	 */
	update_cached = !sync &&
		cc->zone->compact_cached_migrate_pfn[0] ==
		cc->zone->compact_cached_migrate_pfn[1];

	klpr_trace(mm_compaction_begin, cc, start_pfn, end_pfn, sync);

	/* lru_add_drain_all could be expensive with involving other CPUs */
	klpe_lru_add_drain();

	while ((ret = klpr_compact_finished(cc)) == COMPACT_CONTINUE) {
		int err;
		unsigned long iteration_start_pfn = cc->migrate_pfn;

		/*
		 * Back in the block we last migrated from: finish it this
		 * time rather than pick it again and again.  If that fails,
		 * it is marked skipped and scanning goes on as normal.
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

			/*
			 * Nothing isolated, but the previous cc->order
			 * aligned block may still need its drain.
			 */
			goto check_drain;
		case ISOLATE_SUCCESS:
			update_cached = false;
			last_migrated_pfn = max(cc->zone->zone_start_pfn,
				pageblock_start_pfn(cc->migrate_pfn - 1));
		}

		/*
		 * compaction_alloc() and compaction_free() keep
		 * cc->nr_migratepages up to date; record the batch size for
		 * the tracepoint first.
		 */
		nr_migratepages = cc->nr_migratepages;
		err = klpe_migrate_pages(&cc->migratepages,
					 klpe_compaction_alloc,
					 klpe_compaction_free,
					 (unsigned long)cc, cc->mode,
					 MR_COMPACTION, &nr_succeeded);
		gmm_klp_count(GMM_KLP_migrate_batches, 1);
		gmm_klp_count(GMM_KLP_migrate_success, nr_succeeded);

		klpr_trace(mm_compaction_migratepages, nr_migratepages,
			   nr_succeeded);

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
			 * An ASYNC or SYNC_LIGHT migration failed inside the
			 * pageblock: scan the rest of the pageblock, which
			 * marks it skipped, rather than let the free-list
			 * search come back to the partly scanned block.
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

		/* Stop if a page has been captured */
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
				/* No more flushing until we migrate again */
				last_migrated_pfn = 0;
			}
		}
	}

out:
	/* Give back isolated free pages; remember where they were. */
	if (cc->nr_freepages > 0) {
		unsigned long free_pfn = klpe_release_free_list(cc->freepages);

		cc->nr_freepages = 0;
		VM_BUG_ON(free_pfn == 0);
		/* The cached pfn is always the first in a pageblock */
		free_pfn = pageblock_start_pfn(free_pfn);
		/* Only go back, not forward. */
		if (free_pfn > cc->zone->compact_cached_free_pfn)
			cc->zone->compact_cached_free_pfn = free_pfn;
	}

	/* 6.12 count_compact_events() */
	count_vm_events(COMPACTMIGRATE_SCANNED, cc->total_migrate_scanned);
	count_vm_events(COMPACTFREE_SCANNED, cc->total_free_scanned);
	gmm_klp_count(GMM_KLP_migrate_scanned, cc->total_migrate_scanned);
	gmm_klp_count(GMM_KLP_free_scanned, cc->total_free_scanned);

	klpr_trace(mm_compaction_end, cc, start_pfn, end_pfn, sync, ret);
	gmm_trace(guestmm_klp_run, cc->zone, cc->order, ret,
		  cc->total_migrate_scanned, cc->total_free_scanned);

	VM_BUG_ON(!list_empty(&cc->migratepages));

	return ret;
}
