// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: how much migration a candidate source block needs, our
 * own addition to the free-list search (seed 003 picks the first eligible
 * block; with candidates > 1 we take the cheapest).  The same code for
 * every variant: it is compiled against the variant's struct
 * compact_control and klpr_ inlines (variants/<V>/, on the include path).
 */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>

#include "compact.h"
#include "klpr.h"
#include "score.h"

/*
 * guestmm: the work needed to free the pageblock at @block_pfn, read
 * without locks like __reset_isolation_pfn() does (a hint, not a
 * promise).  Free buddy pages cost nothing and are stepped over whole;
 * LRU and movable pages cost one each, a THP is stepped over whole; a
 * balloon page costs balloon_cost (its migration is a round trip to the
 * host); a page that cannot move makes the block unable to yield a free
 * block of cc->order, so it costs that block's size.  The walk stops as
 * soon as the cost passes @limit (the best candidate so far): reading
 * struct pages is the migrate scanner's work too.  Even so, scoring 4
 * candidates was three quarters of a thpscale run's migrate scanning,
 * hence candidates=1 by default (docs/livepatch.md).
 */
unsigned long gmm_block_cost(struct compact_control *cc,
			     unsigned long block_pfn,
			     unsigned long *scanned,
			     unsigned long limit)
{
	unsigned long start = max(block_pfn, cc->zone->zone_start_pfn);
	unsigned long end = min(block_pfn + pageblock_nr_pages,
				zone_end_pfn(cc->zone));
	unsigned long unmovable_cost = 1UL << min_t(int, max(cc->order, 0),
						    pageblock_order);
	unsigned long cost = 0, pfn = start, n;
	unsigned int balloon_cost = READ_ONCE(gmm_klp_tun.balloon_cost);
	bool unmovable = false;

	if (!klpr_pageblock_pfn_to_page(start, end, cc->zone))
		return ULONG_MAX;

	while (pfn < end && cost <= limit) {
		struct page *page = pfn_to_page(pfn);

		(*scanned)++;
		n = 1;
		if (PageBuddy(page)) {
			unsigned int order = klpr_buddy_order_unsafe(page);

			if (order < KLPR_NR_PAGE_ORDERS)
				n = 1UL << order;
		} else if (PageLRU(page)) {
			struct page *head = compound_head(page);

			if (head != page || PageHead(page))
				n = max_t(long, 1, compound_nr(head) -
					  (page - head));
			cost += n;
		} else if (__PageMovable(page)) {
			cost += PageOffline(page) ? balloon_cost : 1;
		} else if (page_count(page)) {
			/* slab, page tables, pinned kernel memory, ... */
			cost += unmovable_cost;
			unmovable = true;
		}
		/* else: refcount 0 and not buddy, a per-cpu list page */
		pfn += n;
	}
	if (unmovable)
		gmm_klp_count(GMM_KLP_score_rejected, 1);
	return cost;
}
