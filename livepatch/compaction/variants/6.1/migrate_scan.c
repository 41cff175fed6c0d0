// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the migrate-source scanner we own.
 *
 * Where the migration scanner looks for pages to move (seed 003, "mm,
 * compaction: use free lists to quickly locate a migration source", Mel
 * Gorman, v5.1): first a bounded search of the MOVABLE free lists for a
 * pageblock that already has free pages, then the linear scan from the
 * cached position.  This is our version of 6.1's fast_find_migrateblock()
 * (mm/compaction.c:1751) and isolate_migratepages() (:1867), both inlined
 * into compact_zone() there, with the upstream fixes marked "Upstream:"
 * and one change of our own marked "guestmm:": instead of the first
 * eligible free page, up to `candidates` pageblocks are collected and the
 * one that needs the least migration work to become free is chosen.
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
 * 6.1 mm/compaction.c:1295 freelist_scan_limit(), with the base
 * (COMPACT_CLUSTER_MAX in the kernel) a tunable: search_depth.
 */
static unsigned int gmm_freelist_scan_limit(struct compact_control *cc)
{
	unsigned short shift = BITS_PER_LONG - 1;

	return (READ_ONCE(gmm_klp_tun.search_depth) >>
		min(shift, cc->fast_search_fail)) + 1;
}

/*
 * Upstream: skip_offline_sections() (Baolin Wang, "mm: compaction: skip
 * memory hole rapidly when isolating migratable pages", v6.5; in 6.12
 * mm/compaction.c:244).  For a pfn in an offline or absent section,
 * return the first pfn of the next online section, else 0.
 */
static unsigned long gmm_skip_offline_sections(unsigned long start_pfn)
{
	unsigned long nr = pfn_to_section_nr(start_pfn);
	unsigned long highest = READ_ONCE(klpe___highest_present_section_nr);

	if (online_section_nr(nr))
		return 0;

	while (++nr <= highest) {
		if (online_section_nr(nr))
			return section_nr_to_pfn(nr);
	}
	return 0;
}

/*
 * Our fast_find_migrateblock() (6.1 mm/compaction.c:1751).  Returns the
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

	/*
	 * Upstream: "mm, compaction: finish scanning the current pageblock
	 * if requested" (Mel Gorman, Jan 2023, v6.3, 3/4 of "Fix excessive
	 * CPU usage during compaction").  A block being finished must not
	 * be swapped for another one.
	 *
	 * Not ported: the other half of that patch, which is in
	 * isolate_migratepages_block().  6.12 marks the block skipped at
	 * the first LRU lock whatever the pfn, and does not abort on the
	 * skip bit while finishing a block; 6.1's test_and_set_skip() only
	 * tests and sets the bit at a pageblock-aligned pfn.  That function
	 * is the kernel's, called out of line, and stays so: porting the
	 * half would mean mirroring and patching a second 400-line function
	 * for a case that rarely arises here.  A block is finished after a
	 * failed migration (compact_zone.c), from the unaligned pfn where
	 * the batch stopped, so 6.1's aligned-pfn test neither aborts nor
	 * marks it; and the blocks the free-list search chooses are marked
	 * skipped by us after their first isolation (the "guestmm:" note in
	 * gmm_klp_isolate_migratepages()).  What remains as in stock 6.1: a
	 * block whose isolation starts at its aligned first pfn with the
	 * skip bit already set is abandoned even when finish_pageblock
	 * asked to finish it (finish_pageblock then comes from returning to
	 * the block last migrated from, 6.1's own "rescan" rule).
	 */
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
		list_for_each_entry(freepage, freelist, lru) {
			unsigned long free_pfn, block;

			if (nr_scanned++ >= limit) {
				last = freepage;
				break;
			}
			last = freepage;

			free_pfn = page_to_pfn(freepage);
			if (free_pfn >= high_pfn)
				continue;

			/*
			 * Upstream: no set_pageblock_skip() here.  6.1.192
			 * still marks the chosen block skipped, so its own
			 * isolate_migratepages_block() can abort on it at
			 * once; mainline dropped that again (7efc3b726103
			 * "mm/compaction: fix set skip in
			 * fast_find_migrateblock", re-landed once Mel
			 * Gorman's Jan 2023 series guaranteed progress;
			 * Debian 6.12 has no set_pageblock_skip() in
			 * fast_find_migrateblock()).  The skip bit is only
			 * read here, recently skipped blocks are left.
			 */
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
		/* Rotate what we looked at, so the next search sees others. */
		if (last)
			klpr_move_freelist_tail(freelist, last);
		spin_unlock_irqrestore(&zone->lock, flags);
	}

	cc->total_migrate_scanned += nr_scanned;
	gmm_klp_count(GMM_KLP_fast_scanned, nr_scanned);

	if (!ncand) {
		gmm_klp_count(GMM_KLP_fast_miss, 1);
		cc->fast_search_fail++;
		pfn = klpr_reinit_migrate_pfn(cc);
		gmm_trace(guestmm_klp_fast_search, zone, cc->order, false, pfn,
					      nr_scanned, 0, 0);
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
	gmm_trace(guestmm_klp_fast_search, zone, cc->order, true, pfn, nr_scanned,
				      ncand, cand[best].cost);
	return pfn;
}

/*
 * Our isolate_migratepages() (6.1 mm/compaction.c:1867): isolate the
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
	 * The free-list search already checked the skip bit of the block it
	 * chose (and, unlike 6.1, did not set it).
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

			/* Upstream: jump over a memory hole (see above). */
			next_pfn = gmm_skip_offline_sections(block_start_pfn);
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
		 * block.  Upstream: also at an unaligned zone start (Kemeng
		 * Shi, 2023, in 6.12 isolate_migratepages()), where 6.1
		 * never checked the first block of such a zone.
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
		if (klpe_isolate_migratepages_block(cc, low_pfn, block_end_pfn,
						    isolate_mode))
			return ISOLATE_ABORT;

		/*
		 * guestmm: a block the free-list search chose is marked
		 * skipped after the first isolation call, so no later search
		 * chooses it again while its free pages are still on the
		 * lists.  That call already passed the aligned-pfn skip check
		 * in isolate_migratepages_block(), and the calls that finish
		 * the block start unaligned, so they do not abort on it.  6.1
		 * marks the block before the scan, so the scan aborts at once;
		 * mainline never marks it and relies on finish_pageblock.
		 * Without either, a block whose remaining pages could not
		 * move was chosen about 250 times per compaction run (49
		 * million pages scanned in one thpscale run).
		 */
		if (fast_find_block && !cc->no_set_skip_hint) {
			klpr_set_pageblock_skip(page);
			gmm_klp_count(GMM_KLP_fast_block_skipped, 1);
		} else if (cc->mode != MIGRATE_ASYNC && !cc->ignore_skip_hint &&
			   !cc->no_set_skip_hint &&
			   (pageblock_aligned(low_pfn) ||
			    low_pfn == zone->zone_start_pfn)) {
			/*
			 * Upstream, sync compaction only: the other half of
			 * "mm, compaction: finish scanning the current
			 * pageblock if requested" (see gmm_find_migrateblock()).
			 * 6.12 marks a block skipped in the first call into it
			 * (at the first LRU lock); 6.1's test_and_set_skip()
			 * only when that page is the block's first, and at the
			 * end only if nothing was isolated or the block was
			 * being finished.  A block whose few movable pages the
			 * first call took whole was left unmarked; once they
			 * had moved, its free pages led the free-list search
			 * back to it in the same run, and it was scanned again
			 * (compaction_test after a half-freed page cache).
			 * Stock 6.1 went back too, but its search marks
			 * the block and aborts on it at once.  The calls that
			 * finish the block start unaligned and do not abort.
			 * guestmm: not in async compaction, whose THP results
			 * (docs/livepatch.md) were measured without it.
			 */
			klpr_set_pageblock_skip(page);
			gmm_klp_count(GMM_KLP_sync_block_skipped, 1);
		}

		/* Isolated something, or compact_zone decides what next. */
		break;
	}

	return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
}
