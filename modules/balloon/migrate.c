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
 * Stock virtio_balloon tells the host at once: a 1-PFN inflate and a
 * 1-PFN deflate, two virtqueue round trips per migrated page, which is
 * what compaction in a ballooned guest mostly waits for.  Unless
 * MUST_TELL_HOST is negotiated the driver may reuse a page before the
 * device learns it left the balloon (virtio spec, balloon "Device
 * Operation"), and a frame the host has not yet been told to take is
 * simply still backed.  So we queue both frames and tell the host in
 * batches: when a queue holds migrate_batch pages, GMB_MIG_FLUSH_MS after
 * the first queued migration, and before any other inflate or deflate
 * message (gmb_tell_host()), which keeps every frame's changes in order.
 * A frame about to be queued one way while the other queue holds it (a
 * new frame migrated away again, an old frame reused as a target) sends
 * both queues first (gmb_migrate_queue()).  So a frame is in at most one
 * queue, and the two queues can be sent in either order.
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

static struct virtqueue *gmb_mig_vq(struct gmb *vb, int dir)
{
	return dir == GMB_MIG_IN ? vb->inflate_vq : vb->deflate_vq;
}

/* Tell the host about every queued migration. */
void gmb_migrate_flush(struct gmb *vb)
{
	bool sent = false;
	int dir;

	lockdep_assert_held(&vb->balloon_lock);
	for (dir = GMB_MIG_IN; dir <= GMB_MIG_OUT; dir++) {
		struct gmb_mig_queue *q = &vb->mig[dir];

		if (!q->nr)
			continue;
		gmb_send_pfns(vb, gmb_mig_vq(vb, dir), q->pfns,
			      q->nr * GMB_PAGES_PER_PAGE);
		q->nr = 0;
		sent = true;
	}
	if (sent)
		gmb_count(vb, GMB_C_MIG_FLUSHES, 1);
}

static void gmb_migrate_work(struct work_struct *work)
{
	struct gmb *vb = container_of(to_delayed_work(work), struct gmb,
				      mig_work);

	mutex_lock(&vb->balloon_lock);
	gmb_migrate_flush(vb);
	mutex_unlock(&vb->balloon_lock);
}

/*
 * Queue @page's frame for the host in direction @dir.  If the other queue
 * holds the frame already (a new frame migrated away again, or an old
 * frame reused as a migration target, within one batch), send both queues
 * first: the host must see the frame's changes in order, and the two
 * messages of a flush cannot say which came first.  Dropping both entries
 * instead would be wrong for an old frame that comes back: it may have
 * been written in between (a migration target is zeroed under
 * init_on_alloc), so the host backs it again and must be told to take it.
 */
static void gmb_migrate_queue(struct gmb *vb, int dir, struct page *page)
{
	struct gmb_mig_queue *q = &vb->mig[dir], *other = &vb->mig[!dir];
	__virtio32 first[GMB_PAGES_PER_PAGE];
	unsigned int i;

	lockdep_assert_held(&vb->balloon_lock);
	gmb_set_page_pfns(vb, first, page);
	for (i = 0; i < other->nr; i++) {
		if (other->pfns[i * GMB_PAGES_PER_PAGE] == first[0]) {
			gmb_count(vb, GMB_C_MIG_COLLISIONS, 1);
			gmb_migrate_flush(vb);
			break;
		}
	}
	memcpy(&q->pfns[q->nr * GMB_PAGES_PER_PAGE], first, sizeof(first));
	q->nr++;
}

/* Pages per batch now: migrate_batch, in 4 KiB pfns, as whole pages. */
static unsigned int gmb_migrate_batch(struct gmb *vb)
{
	unsigned int pfns = READ_ONCE(gmb_param_migrate_batch);

	if (vb->mig_sync)
		return 1;
	return max(1U, min_t(unsigned int, pfns, GMB_PFNS_MAX) /
		       GMB_PAGES_PER_PAGE);
}

/*
 * The host learns that @newpage replaced @page: now (migrate_batch=1 or
 * MUST_TELL_HOST: inflate the new frame, then deflate the old one, as
 * stock does) or with the next batch.
 */
static void gmb_migrate_tell(struct gmb *vb, struct page *newpage,
			     struct page *page)
{
	unsigned int batch = gmb_migrate_batch(vb);

	lockdep_assert_held(&vb->balloon_lock);
	gmb_migrate_queue(vb, GMB_MIG_IN, newpage);
	gmb_migrate_queue(vb, GMB_MIG_OUT, page);
	if (vb->mig[GMB_MIG_IN].nr >= batch ||
	    vb->mig[GMB_MIG_OUT].nr >= batch)
		gmb_migrate_flush(vb);
	else if (vb->mig[GMB_MIG_IN].nr || vb->mig[GMB_MIG_OUT].nr)
		queue_delayed_work(system_freezable_wq, &vb->mig_work,
				   msecs_to_jiffies(GMB_MIG_FLUSH_MS));
}

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
	INIT_DELAYED_WORK(&vb->mig_work, gmb_migrate_work);
	vb->mig_sync = gmb_has(vb, VIRTIO_BALLOON_F_MUST_TELL_HOST);
#ifdef CONFIG_BALLOON_COMPACTION
	/* chunk_order > 0 installs its own movable_operations (chunk.c). */
	if (vb->movable && !vb->chunk_order)
		vb->b_dev_info.migratepage = gmb_migratepage;
#endif
}

/*
 * Before the virtqueues go (remove, freeze; the balloon is empty, so no
 * migration can queue more): send what is queued, then make sure the
 * flush work is not running.
 */
void gmb_migrate_stop(struct gmb *vb)
{
	mutex_lock(&vb->balloon_lock);
	gmb_migrate_flush(vb);
	mutex_unlock(&vb->balloon_lock);
	cancel_delayed_work_sync(&vb->mig_work);
}
