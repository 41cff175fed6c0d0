/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, variant 6.12: re-implemented kernel inlines (klpr_<name>).
 *
 * The originals are static functions and macros of mm/compaction.c and
 * mm/internal.h that gcc inlined into compact_zone(), or header inlines
 * that read symbols the kernel does not export to modules; these copies
 * call and read the klpe_ symbols (ksyms.h) instead.  Each names the 6.12
 * original it mirrors.  All of them are here, in the order one compaction
 * run meets them: compact_zone.c first, then the scanner (migrate_scan.c).
 */
#ifndef _GUESTMM_KLP_V612_KLPR_H
#define _GUESTMM_KLP_V612_KLPR_H

#include <linux/build_bug.h>
#include <linux/gfp.h>
#include <linux/memory_hotplug.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "compact.h"
#include "ksyms.h"

/*
 * The kernel's own tracepoints, fired the way include/linux/tracepoint.h
 * (6.12 __DO_TRACE) does: only when the static key is on, with preemption
 * off for RCU-sched.  The kernel calls the first probe through a static
 * call (CONFIG_HAVE_STATIC_CALL); we call the tracepoint's iterator, which
 * is what that static call points to while more than one probe is
 * attached and runs the same probes in either case.
 */
#define klpr_trace(name, ...)						\
	do {								\
		if (static_key_enabled(&klpe___tracepoint_##name.key)) { \
			preempt_disable_notrace();			\
			klpe___traceiter_##name(NULL, __VA_ARGS__);	\
			preempt_enable_notrace();			\
		}							\
	} while (0)

/* ---- compact_zone() and compact_finished() (compact_zone.c) ---------- */

/* 6.12 mm/compaction.c: COMPACT_MAX_DEFER_SHIFT */
#define KLPR_COMPACT_MAX_DEFER_SHIFT	6

/* 6.12 mm/compaction.c: COMPACTION_HPAGE_ORDER (with THP on) */
#define KLPR_COMPACTION_HPAGE_ORDER	HPAGE_PMD_ORDER

/* The number of buddy orders (6.1 called it MAX_ORDER) */
#define KLPR_NR_PAGE_ORDERS	NR_PAGE_ORDERS

/* 6.12 mm/compaction.c: block_start_pfn() */
#define klpr_block_start_pfn(pfn, order)	round_down(pfn, 1UL << (order))

/* 6.12 mm/internal.h: ALLOC_WMARK_MASK */
#define KLPR_ALLOC_NO_WATERMARKS	0x04
#define KLPR_ALLOC_WMARK_MASK		(KLPR_ALLOC_NO_WATERMARKS - 1)

/*
 * 6.12 include/linux/gfp.h: gfp_migratetype().  The header #undefs its
 * GFP_MOVABLE_MASK/SHIFT after use, hence our own.
 */
#define KLPR_GFP_MOVABLE_MASK	(__GFP_RECLAIMABLE | __GFP_MOVABLE)
#define KLPR_GFP_MOVABLE_SHIFT	3
static inline int klpr_gfp_migratetype(const gfp_t gfp_flags)
{
	VM_WARN_ON((gfp_flags & KLPR_GFP_MOVABLE_MASK) ==
		   KLPR_GFP_MOVABLE_MASK);
	BUILD_BUG_ON((1UL << KLPR_GFP_MOVABLE_SHIFT) != ___GFP_MOVABLE);
	BUILD_BUG_ON((___GFP_MOVABLE >> KLPR_GFP_MOVABLE_SHIFT) !=
		     MIGRATE_MOVABLE);
	BUILD_BUG_ON((___GFP_RECLAIMABLE >> KLPR_GFP_MOVABLE_SHIFT) !=
		     MIGRATE_RECLAIMABLE);
	BUILD_BUG_ON(((___GFP_MOVABLE | ___GFP_RECLAIMABLE) >>
		      KLPR_GFP_MOVABLE_SHIFT) != MIGRATE_HIGHATOMIC);

	if (unlikely(READ_ONCE(klpe_page_group_by_mobility_disabled)))
		return MIGRATE_UNMOVABLE;

	return (__force unsigned long)(gfp_flags & KLPR_GFP_MOVABLE_MASK) >>
		KLPR_GFP_MOVABLE_SHIFT;
}

/* 6.12 mm/compaction.c: is_via_compact_memory() */
static inline bool klpr_is_via_compact_memory(int order)
{
	return order == -1;
}

/* 6.12 mm/compaction.c: compaction_suit_allocation_order() */
static inline enum compact_result
klpr_compaction_suit_allocation_order(struct zone *zone, unsigned int order,
				      int highest_zoneidx,
				      unsigned int alloc_flags)
{
	unsigned long watermark;

	watermark = wmark_pages(zone, alloc_flags & KLPR_ALLOC_WMARK_MASK);
	if (klpe_zone_watermark_ok(zone, order, watermark, highest_zoneidx,
				   alloc_flags))
		return COMPACT_SUCCESS;

	if (!klpe_compaction_suitable(zone, order, highest_zoneidx))
		return COMPACT_SKIPPED;

	return COMPACT_CONTINUE;
}

/* 6.12 mm/compaction.c: compaction_restarting() */
static inline bool klpr_compaction_restarting(struct zone *zone, int order)
{
	if (order < zone->compact_order_failed)
		return false;

	return zone->compact_defer_shift == KLPR_COMPACT_MAX_DEFER_SHIFT &&
		zone->compact_considered >= 1UL << zone->compact_defer_shift;
}

/* 6.12 mm/compaction.c: compact_scanners_met() */
static inline bool klpr_compact_scanners_met(struct compact_control *cc)
{
	return (cc->free_pfn >> pageblock_order) <=
		(cc->migrate_pfn >> pageblock_order);
}

/* 6.12 mm/compaction.c: reset_cached_positions() */
static inline void klpr_reset_cached_positions(struct zone *zone)
{
	zone->compact_cached_migrate_pfn[0] = zone->zone_start_pfn;
	zone->compact_cached_migrate_pfn[1] = zone->zone_start_pfn;
	zone->compact_cached_free_pfn =
		pageblock_start_pfn(zone_end_pfn(zone) - 1);
}

/* 6.12 mm/compaction.c: kswapd_is_running() */
static inline bool klpr_kswapd_is_running(pg_data_t *pgdat)
{
	bool running;

	pgdat_kswapd_lock(pgdat);
	running = pgdat->kswapd && task_is_running(pgdat->kswapd);
	pgdat_kswapd_unlock(pgdat);

	return running;
}

/* 6.12 mm/compaction.c: fragmentation_score_zone() */
static inline unsigned int klpr_fragmentation_score_zone(struct zone *zone)
{
	return klpe_extfrag_for_order(zone, KLPR_COMPACTION_HPAGE_ORDER);
}

/* 6.12 mm/compaction.c: fragmentation_score_wmark() */
static inline unsigned int klpr_fragmentation_score_wmark(bool low)
{
	unsigned int wmark_low;

	wmark_low = max(100U - READ_ONCE(klpe_sysctl_compaction_proactiveness),
			5U);
	return low ? wmark_low : min(wmark_low + 10, 100U);
}

/* 6.12 mm/internal.h: free_area_empty() */
static inline bool klpr_free_area_empty(struct free_area *area,
					int migratetype)
{
	return list_empty(&area->free_list[migratetype]);
}

/* 6.12 mm/compaction.c: __compact_finished() */
static inline enum compact_result
klpr___compact_finished(struct compact_control *cc)
{
	unsigned int order;
	const int migratetype = cc->migratetype;
	int ret;

	/* The run is over when the migrate and free scanners meet. */
	if (klpr_compact_scanners_met(cc)) {
		/* Let the next compaction start anew. */
		klpr_reset_cached_positions(cc->zone);

		/* kswapd clears the skip bits when it next sleeps. */
		if (cc->direct_compaction)
			cc->zone->compact_blockskip_flush = true;

		return cc->whole_zone ? COMPACT_COMPLETE :
			COMPACT_PARTIAL_SKIPPED;
	}

	if (cc->proactive_compaction) {
		int score, wmark_low;
		pg_data_t *pgdat;

		pgdat = cc->zone->zone_pgdat;
		if (klpr_kswapd_is_running(pgdat))
			return COMPACT_PARTIAL_SKIPPED;

		score = klpr_fragmentation_score_zone(cc->zone);
		wmark_low = klpr_fragmentation_score_wmark(true);

		ret = score > wmark_low ? COMPACT_CONTINUE : COMPACT_SUCCESS;
		goto out;
	}

	if (klpr_is_via_compact_memory(cc->order))
		return COMPACT_CONTINUE;

	/* Always finish the current pageblock first. */
	if (!pageblock_aligned(cc->migrate_pfn))
		return COMPACT_CONTINUE;

	/* Direct compactor: is a suitable page free now? */
	ret = COMPACT_NO_SUITABLE_PAGE;
	for (order = cc->order; order < NR_PAGE_ORDERS; order++) {
		struct free_area *area = &cc->zone->free_area[order];
		bool can_steal;

		/* Job done if page is free of the right migratetype */
		if (!klpr_free_area_empty(area, migratetype))
			return COMPACT_SUCCESS;

#ifdef CONFIG_CMA
		/* MIGRATE_MOVABLE can fallback on MIGRATE_CMA */
		if (migratetype == MIGRATE_MOVABLE &&
		    !klpr_free_area_empty(area, MIGRATE_CMA))
			return COMPACT_SUCCESS;
#endif
		/*
		 * Job done if allocation would steal freepages from other
		 * migratetype buddy lists.
		 */
		if (klpe_find_suitable_fallback(area, order, migratetype, true,
						&can_steal) != -1)
			return COMPACT_SUCCESS;
	}

out:
	if (cc->contended || fatal_signal_pending(current))
		ret = COMPACT_CONTENDED;

	return ret;
}

/* 6.12 mm/compaction.c: compact_finished() */
static inline enum compact_result
klpr_compact_finished(struct compact_control *cc)
{
	int ret;

	ret = klpr___compact_finished(cc);
	klpr_trace(mm_compaction_finished, cc->zone, cc->order, ret);
	if (ret == COMPACT_NO_SUITABLE_PAGE)
		ret = COMPACT_CONTINUE;

	return ret;
}

/* ---- the migrate-source scanner (migrate_scan.c) --------------------- */

/* 6.12 mm/internal.h: pageblock_pfn_to_page() */
static inline struct page *klpr_pageblock_pfn_to_page(unsigned long start_pfn,
						      unsigned long end_pfn,
						      struct zone *zone)
{
	if (zone->contiguous)
		return pfn_to_page(start_pfn);

	return klpe___pageblock_pfn_to_page(start_pfn, end_pfn, zone);
}

/* 6.12 mm/internal.h: buddy_order_unsafe() */
#define klpr_buddy_order_unsafe(page)	READ_ONCE(page_private(page))

/* 6.12 include/linux/pageblock-flags.h: get_pageblock_skip() */
static inline bool klpr_get_pageblock_skip(struct page *page)
{
	return klpe_get_pfnblock_flags_mask(page, page_to_pfn(page),
					    1 << PB_migrate_skip);
}

/* 6.12 include/linux/mmzone.h: get_pageblock_migratetype() */
static inline int klpr_get_pageblock_migratetype(struct page *page)
{
	return klpe_get_pfnblock_flags_mask(page, page_to_pfn(page),
					    MIGRATETYPE_MASK);
}

/* 6.12 mm/compaction.c: isolation_suitable() */
static inline bool klpr_isolation_suitable(struct compact_control *cc,
					   struct page *page)
{
	if (cc->ignore_skip_hint)
		return true;

	return !klpr_get_pageblock_skip(page);
}

/*
 * 6.12 mm/compaction.c: skip_offline_sections() (CONFIG_SPARSEMEM).  For
 * a pfn in an offline section, the first pfn of the next online section;
 * 0 if the section is online or no online section follows.
 */
static inline unsigned long klpr_skip_offline_sections(unsigned long start_pfn)
{
	unsigned long start_nr = pfn_to_section_nr(start_pfn);

	if (online_section_nr(start_nr))
		return 0;

	while (++start_nr <= klpe___highest_present_section_nr) {
		if (online_section_nr(start_nr))
			return section_nr_to_pfn(start_nr);
	}

	return 0;
}

/* 6.12 mm/compaction.c: pageblock_skip_persistent() */
static inline bool klpr_pageblock_skip_persistent(struct page *page)
{
	if (!PageCompound(page))
		return false;

	page = compound_head(page);

	if (compound_order(page) >= pageblock_order)
		return true;

	return false;
}

/* 6.12 mm/compaction.c: update_cached_migrate() */
static inline void klpr_update_cached_migrate(struct compact_control *cc,
					      unsigned long pfn)
{
	struct zone *zone = cc->zone;

	/* Set for isolation rather than compaction */
	if (cc->no_set_skip_hint)
		return;

	pfn = pageblock_end_pfn(pfn);

	/* Update where async and sync compaction should restart */
	if (pfn > zone->compact_cached_migrate_pfn[0])
		zone->compact_cached_migrate_pfn[0] = pfn;
	if (cc->mode != MIGRATE_ASYNC &&
	    pfn > zone->compact_cached_migrate_pfn[1])
		zone->compact_cached_migrate_pfn[1] = pfn;
}

/* 6.12 mm/compaction.c: suitable_migration_source() */
static inline bool klpr_suitable_migration_source(struct compact_control *cc,
						  struct page *page)
{
	int block_mt;

	if (klpr_pageblock_skip_persistent(page))
		return false;

	if (cc->mode != MIGRATE_ASYNC || !cc->direct_compaction)
		return true;

	block_mt = klpr_get_pageblock_migratetype(page);

	if (cc->migratetype == MIGRATE_MOVABLE)
		return is_migrate_movable(block_mt);
	return block_mt == cc->migratetype;
}

/*
 * 6.12 mm/compaction.c: move_freelist_tail().  Rotate the free list so the
 * entries up to and including @freepage go to the tail and the next
 * search starts with unseen pages.
 */
static inline void klpr_move_freelist_tail(struct list_head *freelist,
					   struct page *freepage)
{
	LIST_HEAD(sublist);

	if (!list_is_last(&freepage->buddy_list, freelist)) {
		list_cut_position(&sublist, freelist, &freepage->buddy_list);
		list_splice_tail(&sublist, freelist);
	}
}

/* 6.12 mm/compaction.c: update_fast_start_pfn() */
static inline void klpr_update_fast_start_pfn(struct compact_control *cc,
					      unsigned long pfn)
{
	if (cc->fast_start_pfn == ULONG_MAX)
		return;

	if (!cc->fast_start_pfn)
		cc->fast_start_pfn = pfn;

	cc->fast_start_pfn = min(cc->fast_start_pfn, pfn);
}

/* 6.12 mm/compaction.c: reinit_migrate_pfn() */
static inline unsigned long klpr_reinit_migrate_pfn(struct compact_control *cc)
{
	if (!cc->fast_start_pfn || cc->fast_start_pfn == ULONG_MAX)
		return cc->migrate_pfn;

	cc->migrate_pfn = cc->fast_start_pfn;
	cc->fast_start_pfn = ULONG_MAX;

	return cc->migrate_pfn;
}

#endif /* _GUESTMM_KLP_V612_KLPR_H */
