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
 * The host hears of each migration through the queue of notices in host.c
 * (gmb_migrate_tell()), which batches them.
 *
 * With movable=0 pages never become movable and this code is not reached.
 */
#include <linux/balloon_compaction.h>
#include <linux/delay.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/vmstat.h>

#include "guestmm_balloon.h"
#include "trace.h"

/* How long a migration that may sleep waits for balloon_lock, at most. */
#define GMB_MIG_LOCK_WAIT_US	50000
#define GMB_MIG_LOCK_POLL_US	250

/*
 * Take balloon_lock for a migration in @mode.  Async compaction never
 * waits.  A migration that may sleep (offlining, alloc_contig_range(),
 * sync compaction) waits a little: the holder is usually a flush or a
 * resize step waiting for one host reply, and the migration core's ten
 * back-to-back retries of an -EAGAIN page would all fall into that reply
 * and fail (offline_pages() then dumps every such page as a "migration
 * failure").  The wait is bounded because this driver holds balloon_lock
 * while it sends, and a migration triggered from there must not wait for
 * itself.
 */
static bool gmb_migrate_lock(struct gmb *vb, enum migrate_mode mode)
{
	unsigned int waited = 0;

	while (!mutex_trylock(&vb->balloon_lock)) {
		if (mode == MIGRATE_ASYNC || waited >= GMB_MIG_LOCK_WAIT_US)
			return false;
		usleep_range(GMB_MIG_LOCK_POLL_US, 2 * GMB_MIG_LOCK_POLL_US);
		waited += GMB_MIG_LOCK_POLL_US;
	}
	return true;
}

/*
 * First half of every balloon page migration: take balloon_lock, take the
 * balloon's reference on @newpage and tell the host that @newpage replaces
 * @page, moving the managed-page adjustment along.  Both pages are locked
 * by the migration core.  Returns -EAGAIN, without the lock, when fill,
 * leak or a flush holds it (async compaction at once, a sleeping
 * migration after a bounded wait), and the migration core retries later.
 * On success the caller inserts @newpage and drops balloon_lock.
 */
int gmb_migrate_begin(struct gmb *vb, struct page *newpage, struct page *page,
		      enum migrate_mode mode)
{
	if (!gmb_migrate_lock(vb, mode)) {
		gmb_count(vb, GMB_C_MIGRATE_BUSY, 1);
		trace_guestmm_balloon_migrate(page_to_pfn(page),
					      page_to_pfn(newpage), -EAGAIN);
		return -EAGAIN;
	}

	get_page(newpage);	/* the balloon's reference */

	gmb_migrate_tell(vb, newpage, page);
	gmb_numa_migrate(vb, newpage, page);

	/* Managed pages are per zone: move the adjustment along. */
	if (vb->adjust_managed && page_zone(page) != page_zone(newpage)) {
		adjust_managed_page_count(page, 1);
		adjust_managed_page_count(newpage, -1);
	}
	return 0;
}

/*
 * Second half, after the caller inserted @newpage under pages_lock: the
 * old page stops being a balloon page, balloon_lock goes, and the page
 * loses our reference.  In that order: defrag (gmb_chunk_dequeue_block())
 * locks the frames of a block that look like ours under balloon_lock, and
 * once the migration core unlocks and frees this page it must not look
 * like ours to anyone holding that lock.
 */
int gmb_migrate_end(struct gmb *vb, struct page *newpage, struct page *page)
{
	balloon_page_finalize(page);
	mutex_unlock(&vb->balloon_lock);
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

	if (gmb_migrate_begin(vb, newpage, page, mode))
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

