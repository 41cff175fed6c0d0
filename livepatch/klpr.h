/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: re-implemented kernel inlines (klpr_<name>).
 *
 * The originals are static inlines or macros in mm/internal.h,
 * mm/compaction.c and include/linux that reference symbols the kernel does
 * not export to modules; these copies call the resolved klpe_ pointers
 * instead.  Each names the 6.1.192 original it mirrors.
 */
#ifndef _GUESTMM_KLP_KLPR_H
#define _GUESTMM_KLP_KLPR_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pageblock-flags.h>

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
	if (unlikely(READ_ONCE(*klpe_page_group_by_mobility_disabled)))
		return MIGRATE_UNMOVABLE;

	return (__force unsigned long)(gfp_flags & KLPR_GFP_MOVABLE_MASK) >>
		KLPR_GFP_MOVABLE_SHIFT;
}

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
		if (static_key_enabled(&klpe___tracepoint_##name->key)) { \
			preempt_disable_notrace();			\
			klpe___traceiter_##name(NULL, __VA_ARGS__);	\
			preempt_enable_notrace();			\
		}							\
	} while (0)

#endif /* _GUESTMM_KLP_KLPR_H */
