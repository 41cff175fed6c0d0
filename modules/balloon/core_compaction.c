// SPDX-License-Identifier: GPL-2.0
/*
 * core.h on the 6.x balloon core, mm/balloon_compaction.c.
 *
 * The device's balloon_dev_info carries the list and its pages_lock.  The
 * core isolates and puts back pages; when compaction moves one, it calls
 * b_dev_info.migratepage, and the driver inserts the new page and
 * finalizes the old one itself (balloon_page_migrate() in 6.1 and 6.12).
 */
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/vmstat.h>

#include "guestmm_balloon.h"

#ifndef GMM_BALLOON_CORE_V2

#ifdef CONFIG_BALLOON_COMPACTION
/*
 * Compaction moves an isolated page: the host hears of it, then @newpage
 * takes @page's place on the list, and @page stops being a balloon page
 * before balloon_lock goes (see gmb_migrate_end()).  Both pages are
 * locked by the migration core.
 */
static int gmb_core_migratepage(struct balloon_dev_info *info,
				struct page *newpage, struct page *page,
				enum migrate_mode mode)
{
	struct gmb *vb = container_of(info, struct gmb, b_dev_info);
	unsigned long flags;

	if (gmb_migrate_begin(vb, newpage, page, mode))
		return -EAGAIN;

	get_page(newpage);	/* the balloon's reference */
	spin_lock_irqsave(&info->pages_lock, flags);
	balloon_page_insert(info, newpage);
	info->isolated_pages--;
	__count_vm_event(BALLOON_MIGRATE);
	spin_unlock_irqrestore(&info->pages_lock, flags);

	balloon_page_finalize(page);
	gmb_migrate_end(vb, newpage, page);
	put_page(page);
	return MIGRATEPAGE_SUCCESS;
}
#endif

void gmb_core_init(struct gmb *vb)
{
	balloon_devinfo_init(&vb->b_dev_info);
#ifdef CONFIG_BALLOON_COMPACTION
	/* Chunk mode's pages carry chunk_mops.c's operations instead. */
	if (vb->movable && !vb->chunk_order)
		vb->b_dev_info.migratepage = gmb_core_migratepage;
#endif
}

bool gmb_core_chunk_mops(void)
{
	return true;
}

unsigned long gmb_core_isolated(struct gmb *vb)
{
	unsigned long flags, n;

	spin_lock_irqsave(&vb->b_dev_info.pages_lock, flags);
	n = vb->b_dev_info.isolated_pages;
	spin_unlock_irqrestore(&vb->b_dev_info.pages_lock, flags);
	return n;
}

#endif /* !GMM_BALLOON_CORE_V2 */
