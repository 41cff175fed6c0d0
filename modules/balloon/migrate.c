// SPDX-License-Identifier: GPL-2.0
/*
 * Balloon page migration on behalf of compaction.
 *
 * With movable=1 every balloon page carries balloon_mops from the balloon
 * core (mm/balloon_compaction.c).  The core isolates and puts back pages;
 * when compaction wants to move an isolated page it calls
 * b_dev_info->migratepage, i.e. gmb_migratepage(), with both pages locked.
 * We then tell the host that the new frame is ballooned and the old one is
 * not, so the host-side size ("actual") does not change.
 *
 * With movable=0 pages never become movable and this code is not reached.
 */
#include <linux/balloon_compaction.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/vmstat.h>

#include "guestmm_balloon.h"
#include "trace.h"

/*
 * First half of every balloon page migration: take balloon_lock, take the
 * balloon's reference on @newpage and tell the host that @newpage replaces
 * @page, moving the managed-page adjustment along.  Both pages are locked
 * by the migration core.  Returns -EAGAIN, without the lock, when fill or
 * leak holds it: they may be what triggered this compaction, so we never
 * wait, and the migration core retries later.  On success the caller
 * inserts @newpage and drops balloon_lock.
 */
int gmb_migrate_begin(struct gmb *vb, struct page *newpage, struct page *page)
{
	if (!mutex_trylock(&vb->balloon_lock)) {
		gmb_count(vb, GMB_C_MIGRATE_BUSY, 1);
		trace_guestmm_balloon_migrate(page_to_pfn(page),
					      page_to_pfn(newpage), -EAGAIN);
		return -EAGAIN;
	}

	get_page(newpage);	/* the balloon's reference */

	/* Host first takes the new frame, then gives back the old one. */
	vb->num_pfns = GMB_PAGES_PER_PAGE;
	gmb_set_page_pfns(vb, vb->pfns, newpage);
	gmb_tell_host(vb, vb->inflate_vq);

	vb->num_pfns = GMB_PAGES_PER_PAGE;
	gmb_set_page_pfns(vb, vb->pfns, page);
	gmb_tell_host(vb, vb->deflate_vq);

	/* Managed pages are per zone: move the adjustment along. */
	if (vb->adjust_managed && page_zone(page) != page_zone(newpage)) {
		adjust_managed_page_count(page, 1);
		adjust_managed_page_count(newpage, -1);
	}
	return 0;
}

/*
 * Second half, after the caller inserted @newpage under pages_lock: drop
 * balloon_lock; the old page stops being a balloon page and loses our
 * reference.
 */
int gmb_migrate_end(struct gmb *vb, struct page *newpage, struct page *page)
{
	mutex_unlock(&vb->balloon_lock);

	balloon_page_finalize(page);
	put_page(page);

	gmb_count(vb, GMB_C_MIGRATED, 1);
	trace_guestmm_balloon_migrate(page_to_pfn(page), page_to_pfn(newpage),
				      0);
	return MIGRATEPAGE_SUCCESS;
}

#ifdef CONFIG_BALLOON_COMPACTION
static int gmb_migratepage(struct balloon_dev_info *info,
			   struct page *newpage, struct page *page,
			   enum migrate_mode mode)
{
	struct gmb *vb = container_of(info, struct gmb, b_dev_info);
	unsigned long flags;

	if (gmb_migrate_begin(vb, newpage, page))
		return -EAGAIN;

	spin_lock_irqsave(&info->pages_lock, flags);
	balloon_page_insert(info, newpage);
	info->isolated_pages--;
	__count_vm_event(BALLOON_MIGRATE);
	spin_unlock_irqrestore(&info->pages_lock, flags);

	return gmb_migrate_end(vb, newpage, page);
}
#endif

void gmb_migrate_init(struct gmb *vb)
{
#ifdef CONFIG_BALLOON_COMPACTION
	/* chunk_order > 0 installs its own movable_operations (chunk.c). */
	if (vb->movable && !vb->chunk_order)
		vb->b_dev_info.migratepage = gmb_migratepage;
#endif
}
