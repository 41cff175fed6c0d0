// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, variant 6.12: the migrate-source scanner we own.
 *
 * Where the migration scanner looks for pages to move (seed 003, "mm,
 * compaction: use free lists to quickly locate a migration source", Mel
 * Gorman, v5.1): first a bounded search of the MOVABLE free lists for a
 * pageblock that already has free pages, then the linear scan from the
 * cached position.  This is our version of 6.12's fast_find_migrateblock()
 * (mm/compaction.c:1959) and isolate_migratepages() (:2081), both inlined
 * into compact_zone() there, with our changes marked "guestmm:": the
 * search depth is a tunable, and instead of the first eligible free page
 * up to `candidates` pageblocks are collected and the one that needs the
 * least migration work to become free is chosen.  Our counters
 * (gmm_klp_count()) and tracepoints (gmm_trace()) are not marked one by
 * one.
 *
 * Per-page isolation stays the kernel's isolate_migratepages_block().
 */
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "compact.h"
#include "klpr.h"
#include "score.h"
#include "ksyms.h"
#include "tracing.h"

/*
 * 6.12 mm/compaction.c:1443 freelist_scan_limit().  guestmm: the base,
 * COMPACT_CLUSTER_MAX in the kernel, is the tunable search_depth.
 */
static unsigned int gmm_freelist_scan_limit(struct compact_control *cc)
{
	unsigned short shift = BITS_PER_LONG - 1;

	return (READ_ONCE(gmm_klp_tun.search_depth) >>
		min(shift, cc->fast_search_fail)) + 1;
}

/*
 * Our fast_find_migrateblock() (6.12 mm/compaction.c:1959).  Returns the
 * pfn the linear scan should start from.
 */
static unsigned long gmm_find_migrateblock(struct compact_control *cc)
{
	struct gmm_candidate cand[GMM_KLP_MAX_CANDIDATES];
	unsigned int want = clamp_val(READ_ONCE(gmm_klp_tun.candidates), 1,
				      GMM_KLP_MAX_CANDIDATES);
	unsigned int limit = gmm_freelist_scan_limit(cc);
	unsigned int nr_scanned = 0, ncand = 0, i, best = 0;
	unsigned long pfn = cc->migrate_pfn;
	unsigned long distance, high_pfn, score_scanned = 0;
	struct zone *zone = cc->zone;
	int order;

	/* Skip hints are relied on to avoid repeats on the fast search */
	if (cc->ignore_skip_hint)
		return pfn;

	/* A block being finished must not be swapped for another one. */
	if (cc->finish_pageblock)
		return pfn;

	/* Mid-block: a continuation after COMPACT_CLUSTER_MAX pages. */
	if (pfn != zone->zone_start_pfn && pfn != pageblock_start_pfn(pfn))
		return pfn;

	/* Small orders: the linear scan finds enough nearby. */
	if (cc->order <= PAGE_ALLOC_COSTLY_ORDER)
		return pfn;

	/* Do not free a MOVABLE block for an unmovable direct request. */
	if (cc->direct_compaction && cc->migratetype != MIGRATE_MOVABLE)
		return pfn;

	/* guestmm: the search can be turned off (fast_search=N) */
	if (!READ_ONCE(gmm_klp_tun.fast_search))
		return pfn;

	gmm_klp_count(GMM_KLP_fast_search, 1);

	/*
	 * Search the first half of the range on the first pass, the first
	 * eighth afterwards, so a future target block does not become a
	 * source.
	 */
	distance = (cc->free_pfn - cc->migrate_pfn) >> 1;
	if (cc->migrate_pfn != zone->zone_start_pfn)
		distance >>= 2;
	high_pfn = pageblock_start_pfn(cc->migrate_pfn + distance);

	/*
	 * guestmm: collect up to `want` distinct blocks instead of stopping
	 * at the first (6.12's found_block); want == 1 is 6.12's search.
	 */
	for (order = cc->order - 1;
	     order >= PAGE_ALLOC_COSTLY_ORDER && ncand < want &&
	     nr_scanned < limit;
	     order--) {
		struct free_area *area = &zone->free_area[order];
		struct page *freepage, *last = NULL;
		struct list_head *freelist;
		unsigned long flags;

		if (!area->nr_free)
			continue;

		spin_lock_irqsave(&zone->lock, flags);
		freelist = &area->free_list[MIGRATE_MOVABLE];
		list_for_each_entry(freepage, freelist, buddy_list) {
			unsigned long free_pfn, block;

			if (nr_scanned++ >= limit) {
				last = freepage;
				break;
			}
			last = freepage;

			free_pfn = page_to_pfn(freepage);
			if (free_pfn >= high_pfn)
				continue;

			/* Avoid blocks skipped recently. */
			if (klpr_get_pageblock_skip(freepage))
				continue;

			block = pageblock_start_pfn(free_pfn);
			for (i = 0; i < ncand; i++)
				if (cand[i].block_pfn == block)
					break;
			if (i < ncand)
				continue;

			klpr_update_fast_start_pfn(cc, free_pfn);
			cand[ncand].block_pfn = block;
			cand[ncand].cost = 0;
			if (++ncand >= want)
				break;
		}
		/*
		 * Reorder so a future search skips recent pages.  6.12 moves
		 * the page it stopped at (the chosen one, or the first past
		 * the limit) to the tail; guestmm: we move the last entry we
		 * looked at, which is the same page when want == 1.
		 */
		if (last)
			klpr_move_freelist_tail(freelist, last);
		spin_unlock_irqrestore(&zone->lock, flags);
	}

	cc->total_migrate_scanned += nr_scanned;
	gmm_klp_count(GMM_KLP_fast_scanned, nr_scanned);

	/* No block: start the linear scan from a cached free page's block. */
	if (!ncand) {
		gmm_klp_count(GMM_KLP_fast_miss, 1);
		cc->fast_search_fail++;
		pfn = klpr_reinit_migrate_pfn(cc);
		gmm_trace(guestmm_klp_fast_search, zone, cc->order, false,
			  pfn, nr_scanned, 0, 0);
		return pfn;
	}

	/* guestmm: with more than one candidate, take the cheapest. */
	if (ncand > 1) {
		for (i = 0; i < ncand; i++) {
			cand[i].cost = gmm_block_cost(cc, cand[i].block_pfn,
						      &score_scanned,
						      i ? cand[best].cost :
						      ULONG_MAX);
			if (cand[i].cost < cand[best].cost ||
			    (cand[i].cost == cand[best].cost &&
			     cand[i].block_pfn < cand[best].block_pfn))
				best = i;
		}
		/* Honest accounting: scoring reads struct pages too. */
		cc->total_migrate_scanned += score_scanned;
		gmm_klp_count(GMM_KLP_score_scanned, score_scanned);
		gmm_klp_count(GMM_KLP_fast_candidates, ncand);
	}

	gmm_klp_count(GMM_KLP_fast_hit, 1);
	cc->fast_search_fail = 0;
	pfn = max(cand[best].block_pfn, zone->zone_start_pfn);
	gmm_trace(guestmm_klp_fast_search, zone, cc->order, true, pfn,
		  nr_scanned, ncand, cand[best].cost);
	return pfn;
}

/*
 * Our isolate_migratepages() (6.12 mm/compaction.c:2081): isolate the
 * movable pages of the first suitable pageblock from the chosen start.
 */
enum klpr_isolate_migrate gmm_klp_isolate_migratepages(struct compact_control *cc)
{
	unsigned long block_start_pfn, block_end_pfn, low_pfn;
	const isolate_mode_t isolate_mode =
		(READ_ONCE(klpe_sysctl_compact_unevictable_allowed) ?
		 ISOLATE_UNEVICTABLE : 0) |
		(cc->mode != MIGRATE_SYNC ? ISOLATE_ASYNC_MIGRATE : 0);
	struct zone *zone = cc->zone;
	bool fast_find_block;
	struct page *page;

	low_pfn = gmm_find_migrateblock(cc);
	block_start_pfn = pageblock_start_pfn(low_pfn);
	if (block_start_pfn < zone->zone_start_pfn)
		block_start_pfn = zone->zone_start_pfn;

	/*
	 * The free-list search already checked that the block it chose has
	 * no skip bit, so the isolation_suitable() check below is not
	 * needed for it.
	 */
	fast_find_block = low_pfn != cc->migrate_pfn && !cc->fast_search_fail;

	block_end_pfn = pageblock_end_pfn(low_pfn);

	/* Whole pageblocks until the first suitable one; stay below free_pfn */
	for (; block_end_pfn <= cc->free_pfn;
	     fast_find_block = false,
	     cc->migrate_pfn = low_pfn = block_end_pfn,
	     block_start_pfn = block_end_pfn,
	     block_end_pfn += pageblock_nr_pages) {
		if (!(low_pfn % (COMPACT_CLUSTER_MAX * pageblock_nr_pages)))
			cond_resched();

		gmm_klp_count(GMM_KLP_linear_blocks, 1);

		page = klpr_pageblock_pfn_to_page(block_start_pfn,
						  block_end_pfn, zone);
		if (!page) {
			unsigned long next_pfn;

			/* Jump over a memory hole. */
			next_pfn = klpr_skip_offline_sections(block_start_pfn);
			if (next_pfn) {
				block_end_pfn = min(next_pfn, cc->free_pfn);
				gmm_klp_count(GMM_KLP_hole_pfns_skipped,
					      block_end_pfn - block_start_pfn);
			}
			gmm_trace(guestmm_klp_block, block_start_pfn,
				  GMM_KLP_BLOCK_HOLE);
			continue;
		}

		/*
		 * Skip blocks whose isolation recently failed; check once per
		 * block, at its start or at an unaligned zone start.
		 */
		if ((pageblock_aligned(low_pfn) ||
		     low_pfn == zone->zone_start_pfn) &&
		    !fast_find_block && !klpr_isolation_suitable(cc, page)) {
			gmm_klp_count(GMM_KLP_blocks_skip_hint, 1);
			gmm_trace(guestmm_klp_block, block_start_pfn,
				  GMM_KLP_BLOCK_SKIP_HINT);
			continue;
		}

		/* Async direct compaction: same migratetype, no huge pages */
		if (!klpr_suitable_migration_source(cc, page)) {
			klpr_update_cached_migrate(cc, block_end_pfn);
			gmm_klp_count(GMM_KLP_blocks_unsuitable, 1);
			gmm_trace(guestmm_klp_block, block_start_pfn,
				  GMM_KLP_BLOCK_UNSUITABLE);
			continue;
		}

		gmm_klp_count(GMM_KLP_blocks_isolated, 1);
		gmm_trace(guestmm_klp_block, block_start_pfn,
			  fast_find_block ? GMM_KLP_BLOCK_FAST :
			  GMM_KLP_BLOCK_LINEAR);
		/*
		 * The block the free-list search chose gets its skip bit here,
		 * as in 6.12: isolate_migratepages_block() starts at its
		 * first pfn, so test_and_set_skip() marks it when the first
		 * LRU page is locked, and a block that isolated nothing is
		 * marked when its scan ends.  The 6.1 variant's progress
		 * guard (its own set_pageblock_skip() after this call) is not
		 * needed: 6.1's test_and_set_skip() only marked the block
		 * when the first LRU page it locked was at the block's first
		 * pfn, so it hardly ever fired.
		 */
		if (klpe_isolate_migratepages_block(cc, low_pfn, block_end_pfn,
						    isolate_mode))
			return ISOLATE_ABORT;

		/* guestmm: count the chosen blocks the kernel marked */
		if (fast_find_block && klpr_get_pageblock_skip(page))
			gmm_klp_count(GMM_KLP_fast_block_skipped, 1);

		/* Isolated something, or compact_zone decides what next. */
		break;
	}

	return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
}
