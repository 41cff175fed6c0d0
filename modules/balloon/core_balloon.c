// SPDX-License-Identifier: GPL-2.0
/*
 * core.h on the 7.x balloon core, mm/balloon.c.
 *
 * The core keeps its list under a lock of its own and gives every
 * enqueued page its balloon_mops (one set per page type, taken at boot).
 * When compaction moves a page, it calls b_dev_info.migratepage, with
 * both pages locked, and then inserts the new page, finalizes the old
 * one and counts BALLOON_MIGRATE and NR_BALLOON_PAGES itself
 * (balloon_page_migrate() in 7.3): the driver's part is to tell the host.
 * The core calls migratepage for every page it holds, so it is set
 * whatever the mode.  The managed-page count stays the driver's
 * (adjust_managed_page_count is left false).
 */
#include <linux/migrate.h>
#include <linux/mm.h>

#include "guestmm_balloon.h"

#ifdef GMM_BALLOON_CORE_V2

static int gmb_core_migratepage(struct balloon_dev_info *info,
				struct page *newpage, struct page *page,
				enum migrate_mode mode)
{
	struct gmb *vb = container_of(info, struct gmb, b_dev_info);

	if (gmb_migrate_begin(vb, newpage, page, mode))
		return -EAGAIN;
	gmb_migrate_end(vb, newpage, page);
	return 0;
}

void gmb_core_init(struct gmb *vb)
{
	balloon_devinfo_init(&vb->b_dev_info);
	vb->b_dev_info.migratepage = gmb_core_migratepage;
	spin_lock_init(&vb->blocks_lock);	/* gmb_blocks_lock() */
}

bool gmb_core_chunk_mops(void)
{
	return false;
}

/* The core's lock is its own: a racy read. */
unsigned long gmb_core_isolated(struct gmb *vb)
{
	return READ_ONCE(vb->b_dev_info.isolated_pages);
}

#endif /* GMM_BALLOON_CORE_V2 */
