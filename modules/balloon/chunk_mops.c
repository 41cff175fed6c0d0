// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk mode's movable balloon pages on the 6.x balloon core
 * (mm/balloon_compaction.c), whose list and pages_lock they share.
 *
 * Migration policy: with movable=1 the pages carry our own
 * movable_operations instead of the balloon core's balloon_mops, because
 * only isolate_page can say no.  It refuses pages of complete blocks:
 * moving one empties a single 4 KiB frame inside a block the guest cannot
 * use anyway, and makes the host fault in a 4 KiB page there (splitting
 * nothing it gains) while discarding one elsewhere.  Stray pages (those
 * of incomplete blocks) stay movable, exactly as with balloon_mops.  The
 * pages of a block that is being offlined or taken by alloc_contig_range()
 * are not refused: both callers set the pageblock MIGRATE_ISOLATE
 * (start_isolate_page_range()) before they isolate a page, and isolate
 * in sync mode (no ISOLATE_ASYNC_MIGRATE).  Compaction isolates with
 * ISOLATE_ASYNC_MIGRATE in every mode but MIGRATE_SYNC, and only a full
 * sync compaction that meets a block someone else has isolated gets past
 * both tests.  Those pages move out like strays and the block is no
 * longer complete.
 *
 * Lists: b_dev_info.pages holds all non-isolated pages.  Strays go to the
 * head, pages of complete blocks to the tail (also a block completed by a
 * stray inflated or migrated into it: gmb_chunk_block_to_tail()), and
 * deflation takes from the head, so strays go back before any complete
 * block is broken.
 *
 * Because page->mapping points at gmb_chunk_mops in this module's text,
 * every page must have left the balloon (num_pages == 0, isolated_pages ==
 * 0) before the module can go: gmb_leak_all() in remove waits for exactly
 * that.
 *
 * The 7.x core (mm/balloon.c) gives every balloon page its own
 * balloon_mops and keeps its list to itself, so none of this can be
 * built there: compat.h's GMM_BALLOON_CORE_V2 leaves only the stubs at
 * the end, and probe runs chunk mode with movable=1 in 4 KiB pages
 * (main.c).
 */
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "guestmm_balloon.h"
#include "trace.h"

#ifndef GMM_BALLOON_CORE_V2

static const struct movable_operations gmb_chunk_mops;

/*
 * A block just became complete through a single page (a stray inflated or
 * migrated into it): its other pages sit at the list head with the
 * strays, so move them to the tail, where deflation reaches them last.
 * A page we cannot lock is skipped: it is the one being inserted (locked
 * by our caller), or one that migration or deflation holds right now,
 * which then stays where it is.  A locked page that is not isolated is on
 * our list: PG_isolated changes only under the page lock.  Caller holds
 * pages_lock.
 */
static void gmb_chunk_block_to_tail(struct gmb *vb, struct page *page)
{
	unsigned long pfn = page_to_pfn(page) & ~(gmb_blk_pages(vb) - 1UL);
	unsigned int i, n = gmb_blk_pages(vb);
	struct page *p;

	lockdep_assert_held(&vb->b_dev_info.pages_lock);
	for (i = 0; i < n; i++) {
		p = pfn_to_page(pfn + i);
		if (p == page || !trylock_page(p))
			continue;
		if (!PageIsolated(p))
			list_move_tail(&p->lru, &vb->b_dev_info.pages);
		unlock_page(p);
	}
}

/* Put @page on the list: a page of a complete block at the tail. */
static void gmb_chunk_list_add(struct gmb *vb, struct page *page)
{
	if (gmb_in_complete_block(vb, page))
		list_add_tail(&page->lru, &vb->b_dev_info.pages);
	else
		list_add(&page->lru, &vb->b_dev_info.pages);
}

/*
 * Make @page a movable balloon page.  @whole_block: one of a block being
 * enqueued whole, whose pages all go to the tail.  Page locked,
 * pages_lock held.
 */
static void gmb_chunk_insert(struct gmb *vb, struct page *page,
			     bool whole_block)
{
	struct balloon_dev_info *b = &vb->b_dev_info;
	bool completed;

	__SetPageOffline(page);
	__SetPageMovable(page, &gmb_chunk_mops);
	set_page_private(page, (unsigned long)b);
	completed = __gmb_chunk_track(vb, page, 1);
	if (whole_block) {
		list_add_tail(&page->lru, &b->pages);
		return;
	}
	if (completed)
		gmb_chunk_block_to_tail(vb, page);
	gmb_chunk_list_add(vb, page);
}

/* A stray 4 KiB page enters the balloon. */
void gmb_chunk_enqueue(struct gmb *vb, struct page *page)
{
	unsigned long flags;

	lockdep_assert_held(&vb->balloon_lock);
	/* Freshly allocated and ours alone: this does not sleep. */
	lock_page(page);
	spin_lock_irqsave(&vb->b_dev_info.pages_lock, flags);
	gmb_chunk_insert(vb, page, false);
	__count_vm_event(BALLOON_INFLATE);
	spin_unlock_irqrestore(&vb->b_dev_info.pages_lock, flags);
	unlock_page(page);
}

/*
 * A whole split block enters the balloon.  All its pages are locked
 * before the first one becomes movable, so compaction cannot isolate a
 * page while the block is still incomplete and then migrate it out.
 */
void gmb_chunk_enqueue_block(struct gmb *vb, struct page *head)
{
	unsigned int i, n = gmb_blk_pages(vb);
	unsigned long flags;

	lockdep_assert_held(&vb->balloon_lock);
	for (i = 0; i < n; i++)
		lock_page(gmm_nth_page(head, i));
	spin_lock_irqsave(&vb->b_dev_info.pages_lock, flags);
	for (i = 0; i < n; i++)
		gmb_chunk_insert(vb, gmm_nth_page(head, i), true);
	__count_vm_events(BALLOON_INFLATE, n);
	spin_unlock_irqrestore(&vb->b_dev_info.pages_lock, flags);
	for (i = 0; i < n; i++)
		unlock_page(gmm_nth_page(head, i));
}

/*
 * Take up to @n pages out of the balloon onto @pages, strays first (they
 * sit at the head); with @strays_only never a page of a complete block;
 * with @nodes only pages of those nodes.  Pages locked right now are
 * passed over (isolated ones are not on the list: isolation unlinks a
 * page under its lock).  balloon_page_list_dequeue() (mm/
 * balloon_compaction.c, 6.1 and 6.12), with the block counts and the
 * filters added; it serves the balloon core's list too (chunk_order=0:
 * no block is tracked, nr_blks is 0).  The walk runs with interrupts
 * off, so with @strays_only it passes over at most GMB_DEQUEUE_SKIP_MAX
 * pages of complete blocks, which it moves to the tail as it goes (a page
 * of a complete block near the head is one gmb_chunk_block_to_tail()
 * could not lock): it may return fewer than @n while strays remain, and
 * the next call starts past those pages.  A @nodes walk (deflate on OOM
 * on a NUMA guest) still visits the whole list.  Returns how many.
 */
unsigned int gmb_chunk_dequeue(struct gmb *vb, struct list_head *pages,
			       unsigned int n, bool strays_only,
			       const nodemask_t *nodes)
{
	struct balloon_dev_info *b = &vb->b_dev_info;
	unsigned int done = 0, skipped = 0;
	struct page *page, *tmp;
	unsigned long flags;
	LIST_HEAD(passed);

	lockdep_assert_held(&vb->balloon_lock);
	spin_lock_irqsave(&b->pages_lock, flags);
	list_for_each_entry_safe(page, tmp, &b->pages, lru) {
		if (done == n || skipped == GMB_DEQUEUE_SKIP_MAX)
			break;
		if (strays_only && gmb_in_complete_block(vb, page)) {
			/* Behind the strays, where it belongs. */
			list_move_tail(&page->lru, &passed);
			skipped++;
			continue;
		}
		if (nodes && !node_isset(page_to_nid(page), *nodes))
			continue;
		/* Locked: compaction is looking at it; take another. */
		if (!trylock_page(page))
			continue;
		if (gmb_in_complete_block(vb, page))
			gmb_count(vb, GMB_C_CHUNK_BROKEN, 1);
		list_move(&page->lru, pages);
		__gmb_chunk_track(vb, page, -1);
		balloon_page_finalize(page);
		__count_vm_event(BALLOON_DEFLATE);
		unlock_page(page);
		done++;
	}
	list_splice_tail(&passed, &b->pages);
	spin_unlock_irqrestore(&b->pages_lock, flags);
	return done;
}

/*
 * Take up to @max of block @blk's balloon pages off the list onto @pages.
 * Defrag gives a block's own strays back before it takes the block, so
 * that alloc_contig_range() does not migrate them out only for them to be
 * given back after, and gives back strays of the sparsest blocks.  A
 * page is ours and on the list if, under its lock and pages_lock, it is
 * PageOffline with our balloon as its private and not isolated; pages
 * isolated or locked right now stay (they migrate like any other).  A
 * block that is complete under pages_lock gives nothing: the caller chose
 * it from a count read without the lock (gmb_chunk_sparsest()), and a
 * stray migrated in since may have completed it.  Returns how many.
 */
unsigned int gmb_chunk_dequeue_block(struct gmb *vb, struct list_head *pages,
				     unsigned long blk, unsigned int max)
{
	struct balloon_dev_info *b = &vb->b_dev_info;
	unsigned long pfn = blk << vb->chunk_order;
	unsigned int i, n = gmb_blk_pages(vb), done = 0;
	unsigned long flags;
	struct page *page;

	lockdep_assert_held(&vb->balloon_lock);
	spin_lock_irqsave(&b->pages_lock, flags);
	if (vb->blk_count[blk] == n)
		max = 0;
	for (i = 0; i < n && done < max; i++) {
		page = pfn_to_page(pfn + i);
		if (!PageOffline(page) || page_private(page) != (unsigned long)b)
			continue;
		if (!trylock_page(page))
			continue;
		if (PageOffline(page) && page_private(page) == (unsigned long)b &&
		    !PageIsolated(page)) {
			list_move(&page->lru, pages);
			__gmb_chunk_track(vb, page, -1);
			balloon_page_finalize(page);
			__count_vm_event(BALLOON_DEFLATE);
			done++;
		}
		unlock_page(page);
	}
	spin_unlock_irqrestore(&b->pages_lock, flags);
	return done;
}

static struct gmb *gmb_of_page(struct page *page)
{
	return container_of(balloon_page_device(page), struct gmb, b_dev_info);
}

/*
 * Someone wants to migrate the page.  Compaction gets strays only;
 * offlining and alloc_contig_range() (an isolated pageblock, sync mode)
 * get every page.
 */
static bool gmb_chunk_isolate(struct page *page, isolate_mode_t mode)
{
	struct gmb *vb = gmb_of_page(page);
	struct balloon_dev_info *b = &vb->b_dev_info;
	bool contig = !(mode & ISOLATE_ASYNC_MIGRATE) &&
		      gmm_pfn_migratetype(page_to_pfn(page)) == MIGRATE_ISOLATE;
	unsigned long flags;

	spin_lock_irqsave(&b->pages_lock, flags);
	if (gmb_in_complete_block(vb, page)) {
		if (!contig) {
			spin_unlock_irqrestore(&b->pages_lock, flags);
			gmb_count(vb, GMB_C_MIGRATE_REFUSED, 1);
			return false;
		}
		gmb_count(vb, GMB_C_MIGRATE_CONTIG, 1);
	}
	list_del(&page->lru);
	b->isolated_pages++;
	spin_unlock_irqrestore(&b->pages_lock, flags);
	return true;
}

/* Migration failed or was abandoned: the page goes back on the list. */
static void gmb_chunk_putback(struct page *page)
{
	struct gmb *vb = gmb_of_page(page);
	struct balloon_dev_info *b = &vb->b_dev_info;
	unsigned long flags;

	spin_lock_irqsave(&b->pages_lock, flags);
	gmb_chunk_list_add(vb, page);
	b->isolated_pages--;
	spin_unlock_irqrestore(&b->pages_lock, flags);
}

/*
 * Same protocol as gmb_migratepage() (migrate.c), but the new page gets
 * our movable_operations and the block counts move with the page.  A
 * stray that lands in a nearly full block may complete it.
 */
static int gmb_chunk_migrate(struct page *newpage, struct page *page,
			     enum migrate_mode mode)
{
	struct gmb *vb = gmb_of_page(page);
	struct balloon_dev_info *b = &vb->b_dev_info;
	unsigned long flags;

	/* As the balloon core: no copy-less migration of balloon pages. */
	if (gmm_migrate_no_copy(mode))
		return -EINVAL;

	if (gmb_migrate_begin(vb, newpage, page, mode))
		return -EAGAIN;

	get_page(newpage);	/* the balloon's reference */
	spin_lock_irqsave(&b->pages_lock, flags);
	gmb_chunk_insert(vb, newpage, false);
	__count_vm_event(BALLOON_MIGRATE);
	__gmb_chunk_track(vb, page, -1);
	b->isolated_pages--;
	spin_unlock_irqrestore(&b->pages_lock, flags);

	/* Not ours any more before balloon_lock goes (gmb_migrate_end()). */
	balloon_page_finalize(page);
	gmb_migrate_end(vb, newpage, page);
	put_page(page);
	return MIGRATEPAGE_SUCCESS;
}

static const struct movable_operations gmb_chunk_mops = {
	.isolate_page	= gmb_chunk_isolate,
	.migrate_page	= gmb_chunk_migrate,
	.putback_page	= gmb_chunk_putback,
};

#else /* GMM_BALLOON_CORE_V2 */

/*
 * The 7.x core: probe never runs chunk mode with movable=1 there
 * (gmb_core_chunk_mops() is false), so these serve only as what a
 * movable 4 KiB balloon does.  A deflate by node (OOM on a NUMA guest)
 * takes pages of any node: the core's list is its own to walk.
 */
void gmb_chunk_enqueue(struct gmb *vb, struct page *page)
{
	gmb_core_enqueue(vb, page);
}

void gmb_chunk_enqueue_block(struct gmb *vb, struct page *head)
{
	unsigned int i, n = gmb_blk_pages(vb);

	for (i = 0; i < n; i++)
		gmb_core_enqueue(vb, gmm_nth_page(head, i));
}

unsigned int gmb_chunk_dequeue(struct gmb *vb, struct list_head *pages,
			       unsigned int n, bool strays_only,
			       const nodemask_t *nodes)
{
	return gmb_core_dequeue(vb, pages, n);
}

unsigned int gmb_chunk_dequeue_block(struct gmb *vb, struct list_head *pages,
				     unsigned long blk, unsigned int max)
{
	return 0;
}

#endif /* GMM_BALLOON_CORE_V2 */
