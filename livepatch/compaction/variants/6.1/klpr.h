/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: re-implemented kernel inlines (klpr_<name>).
 *
 * The originals are static functions, inlines or macros in mm/internal.h,
 * mm/compaction.c and include/linux: the ones gcc inlined into 6.1's
 * compact_zone(), and those that reference symbols the kernel does not
 * export to modules (these call klpe_<name> instead).  All of them are
 * here, so one compaction run reads in compact_zone.c, migrate_scan.c and
 * this file.  Each names the 6.1 original it mirrors.
 */
#ifndef _GUESTMM_KLP_KLPR_H
#define _GUESTMM_KLP_KLPR_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>
#include <linux/sched/signal.h>

#include "compact.h"
#include "ksyms.h"

/* mm/internal.h: pageblock_pfn_to_page() */
static inline struct page *klpr_pageblock_pfn_to_page(unsigned long start_pfn,
						      unsigned long end_pfn,
						      struct zone *zone)
{
	if (zone->contiguous)
		return pfn_to_page(start_pfn);

	return klpe___pageblock_pfn_to_page(start_pfn, end_pfn, zone);
}

/* include/linux/pageblock-flags.h: get_pageblock_skip() */
static inline bool klpr_get_pageblock_skip(struct page *page)
{
	return klpe_get_pfnblock_flags_mask(page, page_to_pfn(page),
					    1UL << PB_migrate_skip);
}

/* include/linux/pageblock-flags.h: set_pageblock_skip() */
static inline void klpr_set_pageblock_skip(struct page *page)
{
	klpe_set_pfnblock_flags_mask(page, 1UL << PB_migrate_skip,
				     page_to_pfn(page), 1UL << PB_migrate_skip);
}

/* include/linux/mmzone.h: get_pageblock_migratetype() */
static inline int klpr_get_pageblock_migratetype(struct page *page)
{
	return klpe_get_pfnblock_flags_mask(page, page_to_pfn(page),
					    MIGRATETYPE_MASK);
}

/*
 * include/linux/gfp.h: gfp_migratetype().  The header #undefs its
 * GFP_MOVABLE_MASK/SHIFT after use, hence our own.
 */
#define KLPR_GFP_MOVABLE_MASK	(__GFP_RECLAIMABLE | __GFP_MOVABLE)
#define KLPR_GFP_MOVABLE_SHIFT	3
static inline int klpr_gfp_migratetype(const gfp_t gfp_flags)
{
	if (unlikely(READ_ONCE(klpe_page_group_by_mobility_disabled)))
		return MIGRATE_UNMOVABLE;

	return (__force unsigned long)(gfp_flags & KLPR_GFP_MOVABLE_MASK) >>
		KLPR_GFP_MOVABLE_SHIFT;
}

/* The number of buddy orders: 6.1's MAX_ORDER (6.12's NR_PAGE_ORDERS) */
#define KLPR_NR_PAGE_ORDERS	MAX_ORDER

/* mm/internal.h: buddy_order_unsafe() */
static inline unsigned int klpr_buddy_order_unsafe(struct page *page)
{
	return READ_ONCE(page_private(page));
}

/* mm/compaction.c: pageblock_skip_persistent() */
static inline bool klpr_pageblock_skip_persistent(struct page *page)
{
	if (!PageCompound(page))
		return false;

	page = compound_head(page);

	return compound_order(page) >= pageblock_order;
}

/* mm/compaction.c: isolation_suitable() */
static inline bool klpr_isolation_suitable(struct compact_control *cc,
					   struct page *page)
{
	if (cc->ignore_skip_hint)
		return true;

	return !klpr_get_pageblock_skip(page);
}

/* mm/compaction.c: compact_scanners_met() */
static inline bool klpr_compact_scanners_met(struct compact_control *cc)
{
	return (cc->free_pfn >> pageblock_order) <=
		(cc->migrate_pfn >> pageblock_order);
}

/* mm/compaction.c: block_start_pfn() / block_end_pfn() */
#define klpr_block_start_pfn(pfn, order)	round_down(pfn, 1UL << (order))
#define klpr_block_end_pfn(pfn, order)		ALIGN((pfn) + 1, 1UL << (order))

/*
 * The kernel's own tracepoints, fired the way include/linux/tracepoint.h
 * (__DO_TRACE, 6.1) does: only when the static key is on, through the
 * tracepoint's iterator, with preemption off for RCU-sched.
 */
#define klpr_trace(name, ...)						\
	do {								\
		if (static_key_enabled(&klpe___tracepoint_##name.key)) { \
			preempt_disable_notrace();			\
			klpe___traceiter_##name(NULL, __VA_ARGS__);	\
			preempt_enable_notrace();			\
		}							\
	} while (0)

/* 6.1 mm/compaction.c: COMPACT_MAX_DEFER_SHIFT */
#define KLPR_COMPACT_MAX_DEFER_SHIFT	6

/* 6.1 mm/compaction.c:206 compaction_restarting() */
static inline bool klpr_compaction_restarting(struct zone *zone, int order)
{
	if (order < zone->compact_order_failed)
		return false;

	return zone->compact_defer_shift == KLPR_COMPACT_MAX_DEFER_SHIFT &&
		zone->compact_considered >= 1UL << zone->compact_defer_shift;
}

/* 6.1 mm/compaction.c:225 reset_cached_positions() */
static inline void klpr_reset_cached_positions(struct zone *zone)
{
	zone->compact_cached_migrate_pfn[0] = zone->zone_start_pfn;
	zone->compact_cached_migrate_pfn[1] = zone->zone_start_pfn;
	zone->compact_cached_free_pfn =
		pageblock_start_pfn(zone_end_pfn(zone) - 1);
}

/* 6.1 mm/compaction.c:1976 kswapd_is_running() */
static inline bool klpr_kswapd_is_running(pg_data_t *pgdat)
{
	bool running;

	pgdat_kswapd_lock(pgdat);
	running = pgdat->kswapd && task_is_running(pgdat->kswapd);
	pgdat_kswapd_unlock(pgdat);

	return running;
}

/* 6.1 mm/compaction.c:1991 fragmentation_score_zone() */
static inline unsigned int klpr_fragmentation_score_zone(struct zone *zone)
{
	return klpe_extfrag_for_order(zone, KLPR_COMPACTION_HPAGE_ORDER);
}

/* 6.1 mm/compaction.c:2036 fragmentation_score_wmark() */
static inline unsigned int klpr_fragmentation_score_wmark(bool low)
{
	unsigned int wmark_low;

	wmark_low = max(100U - READ_ONCE(klpe_sysctl_compaction_proactiveness),
			5U);
	return low ? wmark_low : min(wmark_low + 10, 100U);
}

/* 6.1 mm/compaction.c:2060 __compact_finished() */
static inline enum compact_result klpr___compact_finished(struct compact_control *cc)
{
	const int migratetype = cc->migratetype;
	unsigned int order;
	int ret;

	/* The run is over when the migrate and free scanners meet. */
	if (klpr_compact_scanners_met(cc)) {
		klpr_reset_cached_positions(cc->zone);

		/* kswapd clears the skip bits when it next sleeps. */
		if (cc->direct_compaction)
			cc->zone->compact_blockskip_flush = true;

		return cc->whole_zone ? COMPACT_COMPLETE :
			COMPACT_PARTIAL_SKIPPED;
	}

	if (cc->proactive_compaction) {
		pg_data_t *pgdat = cc->zone->zone_pgdat;
		unsigned int score, wmark_low;

		if (klpr_kswapd_is_running(pgdat))
			return COMPACT_PARTIAL_SKIPPED;

		score = klpr_fragmentation_score_zone(cc->zone);
		wmark_low = klpr_fragmentation_score_wmark(true);
		ret = score > wmark_low ? COMPACT_CONTINUE : COMPACT_SUCCESS;
		goto out;
	}

	/* order == -1: /proc/sys/vm/compact_memory, compact everything */
	if (cc->order == -1)
		return COMPACT_CONTINUE;

	/* Always finish the current pageblock first. */
	if (!pageblock_aligned(cc->migrate_pfn))
		return COMPACT_CONTINUE;

	/* Direct compactor: is a suitable page free now? */
	ret = COMPACT_NO_SUITABLE_PAGE;
	for (order = cc->order; order < MAX_ORDER; order++) {
		struct free_area *area = &cc->zone->free_area[order];
		bool can_steal;

		if (!free_area_empty(area, migratetype))
			return COMPACT_SUCCESS;

#ifdef CONFIG_CMA
		/* MIGRATE_MOVABLE can fall back on MIGRATE_CMA */
		if (migratetype == MIGRATE_MOVABLE &&
		    !free_area_empty(area, MIGRATE_CMA))
			return COMPACT_SUCCESS;
#endif

		if (klpe_find_suitable_fallback(area, order, migratetype, true,
						&can_steal) != -1)
			return COMPACT_SUCCESS;
	}

out:
	if (cc->contended || fatal_signal_pending(current))
		ret = COMPACT_CONTENDED;

	return ret;
}

/* 6.1 mm/compaction.c:2157 compact_finished() */
static inline enum compact_result klpr_compact_finished(struct compact_control *cc)
{
	int ret;

	ret = klpr___compact_finished(cc);
	klpr_trace(mm_compaction_finished, cc->zone, cc->order, ret);
	if (ret == COMPACT_NO_SUITABLE_PAGE)
		ret = COMPACT_CONTINUE;

	return ret;
}

/* 6.1 mm/compaction.c:1250 suitable_migration_source() */
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

/* 6.1 mm/compaction.c:415 update_cached_migrate() */
static inline void klpr_update_cached_migrate(struct compact_control *cc,
				       unsigned long pfn)
{
	struct zone *zone = cc->zone;

	pfn = pageblock_end_pfn(pfn);

	if (cc->no_set_skip_hint)
		return;

	if (pfn > zone->compact_cached_migrate_pfn[0])
		zone->compact_cached_migrate_pfn[0] = pfn;
	if (cc->mode != MIGRATE_ASYNC &&
	    pfn > zone->compact_cached_migrate_pfn[1])
		zone->compact_cached_migrate_pfn[1] = pfn;
}

/* 6.1 mm/compaction.c:1722 update_fast_start_pfn() */
static inline void klpr_update_fast_start_pfn(struct compact_control *cc,
				       unsigned long pfn)
{
	if (cc->fast_start_pfn == ULONG_MAX)
		return;

	if (!cc->fast_start_pfn)
		cc->fast_start_pfn = pfn;

	cc->fast_start_pfn = min(cc->fast_start_pfn, pfn);
}

/* 6.1 mm/compaction.c:1734 reinit_migrate_pfn() */
static inline unsigned long klpr_reinit_migrate_pfn(struct compact_control *cc)
{
	if (!cc->fast_start_pfn || cc->fast_start_pfn == ULONG_MAX)
		return cc->migrate_pfn;

	cc->migrate_pfn = cc->fast_start_pfn;
	cc->fast_start_pfn = ULONG_MAX;

	return cc->migrate_pfn;
}

/*
 * 6.1 mm/compaction.c:1336 move_freelist_tail(): rotate the list so the
 * entries up to and including @freepage go to the tail and the next search
 * starts with unseen pages.  6.1 spells the test
 * list_is_first(freelist, &freepage->lru), 6.12
 * list_is_last(&freepage->buddy_list, freelist): the same test, that
 * @freepage is the last entry.
 */
static inline void klpr_move_freelist_tail(struct list_head *freelist,
				    struct page *freepage)
{
	LIST_HEAD(sublist);

	if (!list_is_last(&freepage->lru, freelist)) {
		list_cut_position(&sublist, freelist, &freepage->lru);
		list_splice_tail(&sublist, freelist);
	}
}

#endif /* _GUESTMM_KLP_KLPR_H */
