// SPDX-License-Identifier: GPL-2.0
/*
 * Balloon page migration on behalf of compaction: the driver's half.
 *
 * With movable=1 the balloon pages are movable: the balloon core's
 * balloon_mops (4 KiB pages; core.h's backends) or chunk mode's own
 * (chunk_mops.c) isolate a page, and when compaction moves it the
 * driver is called with both pages locked.  gmb_migrate_begin() and
 * gmb_migrate_end() bracket what each core asks of the driver then: they
 * tell the host that the new frame is ballooned and the old one is not,
 * so the host-side size ("actual") does not change.
 *
 * The host hears of each migration through the queue of notices in host.c
 * (gmb_migrate_tell()), which batches them.
 *
 * With movable=0 pages never become movable and this code is not reached.
 */
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
 * First half of every balloon page migration: take balloon_lock and tell
 * the host that @newpage replaces @page, moving the managed-page
 * adjustment along.  Both pages are locked by the migration core.
 * Returns -EAGAIN, without the lock, when fill, leak or a flush holds it
 * (async compaction at once, a sleeping migration after a bounded wait),
 * and the migration core retries later.  On success the caller (the
 * core backend, or chunk mode's migrate_page) does the list bookkeeping
 * its core asks for, then calls gmb_migrate_end().
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
 * Second half: balloon_lock goes.  On the 6.x core the caller has made
 * the old page stop being a balloon page first: defrag
 * (gmb_chunk_dequeue_block()) locks the frames of a block that look like
 * ours under balloon_lock, and once the migration core unlocks and frees
 * this page it must not look like ours to anyone holding that lock.
 */
void gmb_migrate_end(struct gmb *vb, struct page *newpage, struct page *page)
{
	mutex_unlock(&vb->balloon_lock);
	gmb_count(vb, GMB_C_MIGRATED, 1);
	trace_guestmm_balloon_migrate(page_to_pfn(page), page_to_pfn(newpage),
				      0);
}
