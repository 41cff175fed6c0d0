// SPDX-License-Identifier: GPL-2.0
/*
 * core.h's calls that are the same on every balloon core: allocation,
 * enqueue and dequeue kept their names and contracts from
 * mm/balloon_compaction.c (6.x) to mm/balloon.c (7.x).  What differs is
 * in core_compaction.c and core_balloon.c.
 */
#include <linux/mm.h>

#include "guestmm_balloon.h"

struct page *gmb_core_alloc(void)
{
	return balloon_page_alloc();
}

void gmb_core_enqueue(struct gmb *vb, struct page *page)
{
	balloon_page_enqueue(&vb->b_dev_info, page);
}

unsigned int gmb_core_dequeue(struct gmb *vb, struct list_head *pages,
			      unsigned int n)
{
	return balloon_page_list_dequeue(&vb->b_dev_info, pages, n);
}
