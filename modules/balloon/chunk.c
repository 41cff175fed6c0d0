// SPDX-License-Identifier: GPL-2.0
/*
 * 2 MiB chunks (chunk_order=9 on x86): whole aligned blocks in the balloon,
 * and a migration policy that keeps them whole.
 *
 * Why: QEMU backs guest RAM with anonymous memory, which the host maps
 * with transparent huge pages, or with hugetlbfs.  Stock ballooning takes
 * 4 KiB pages wherever the buddy allocator has them, typically the holes
 * of otherwise used blocks, so each discarded page splits a host huge page
 * and frees 4 KiB of it.  A guest block of 2 MiB that is ballooned as a
 * whole frees the host's whole huge page.  QEMU 7.2 discards a huge
 * hugetlbfs page only when all of its sub-pages arrive in one virtqueue
 * element, so each block goes to the host in one 512-PFN buffer.
 *
 * A block is allocated as order chunk_order, split into 4 KiB pages that
 * are all balloon pages, so the rest of the driver (and the host protocol)
 * still deals in 4 KiB pages.  blk_count[] counts balloon pages per block,
 * whichever way they got there: a block whose 512 frames are all in the
 * balloon is "complete", even if it was assembled from 4 KiB pages.
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
 */
#include <linux/balloon_compaction.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "guestmm_balloon.h"
#include "trace.h"

/*
 * Adjust a block's balloon page count.  Returns true if that made the
 * block complete.
 */
static bool __gmb_chunk_track(struct gmb *vb, struct page *page, int delta)
{
	unsigned long i = page_to_pfn(page) >> vb->chunk_order;
	unsigned int full = gmb_blk_pages(vb);

	lockdep_assert_held(&vb->b_dev_info.pages_lock);
	/* Every online page is in a tracked block (blocks.c). */
	if (WARN_ON_ONCE(i >= vb->nr_blks))
		return false;
	if (vb->blk_count[i] == full)
		vb->complete_blocks--;
	vb->blk_count[i] += delta;
	if (vb->blk_count[i] != full)
		return false;
	vb->complete_blocks++;
	return true;
}

static bool gmb_in_complete_block(struct gmb *vb, struct page *page)
{
	unsigned long i = page_to_pfn(page) >> vb->chunk_order;

	lockdep_assert_held(&vb->b_dev_info.pages_lock);
	return i < vb->nr_blks && vb->blk_count[i] == gmb_blk_pages(vb);
}

/* For movable=0, whose pages live on pinned_pages. */
void gmb_chunk_track(struct gmb *vb, struct page *page, int delta)
{
	unsigned long flags;

	spin_lock_irqsave(&vb->b_dev_info.pages_lock, flags);
	__gmb_chunk_track(vb, page, delta);
	spin_unlock_irqrestore(&vb->b_dev_info.pages_lock, flags);
}

unsigned long gmb_chunk_stray_pages(struct gmb *vb)
{
	unsigned long held = READ_ONCE(vb->num_pages) / GMB_PAGES_PER_PAGE;
	unsigned long in_blocks = READ_ONCE(vb->complete_blocks) <<
				  vb->chunk_order;

	return held > in_blocks ? held - in_blocks : 0;
}

/* Balloon pages in block @blk right now (defrag's choice). */
unsigned int gmb_chunk_count(struct gmb *vb, unsigned long blk)
{
	unsigned long flags;
	unsigned int count;

	spin_lock_irqsave(&vb->b_dev_info.pages_lock, flags);
	count = blk < vb->nr_blks ? vb->blk_count[blk] : 0;
	spin_unlock_irqrestore(&vb->b_dev_info.pages_lock, flags);
	return count;
}

/*
 * debugfs "blocks": every block holding balloon pages, as its first pfn
 * and how many of its pages are in the balloon; a complete block shows
 * 1 << chunk_order.  The map of where strays are and what compaction
 * can reach.
 */
void gmb_chunk_show_blocks(struct gmb *vb, struct seq_file *m)
{
	unsigned long i, flags;
	unsigned int count;

	down_read(&vb->blocks_sem);
	for (i = 0; i < vb->nr_blks; i++) {
		spin_lock_irqsave(&vb->b_dev_info.pages_lock, flags);
		count = vb->blk_count[i];
		spin_unlock_irqrestore(&vb->b_dev_info.pages_lock, flags);
		if (count)
			seq_printf(m, "0x%lx %u\n", i << vb->chunk_order, count);
	}
	up_read(&vb->blocks_sem);
}

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

/*
 * The incomplete block holding the fewest balloon pages (at least one),
 * or ULONG_MAX: the strays whose giving back costs the host least and
 * leaves the rest where defrag can complete blocks cheaply.
 */
unsigned long gmb_chunk_sparsest(struct gmb *vb)
{
	unsigned int count, min = gmb_blk_pages(vb);
	unsigned long i, best = ULONG_MAX;

	lockdep_assert_held(&vb->blocks_sem);
	/*
	 * Racy reads, without pages_lock: one pass over every block is too
	 * long to keep interrupts off, and gmb_chunk_dequeue_block() takes
	 * only what is still there under the lock.
	 */
	for (i = 0; i < vb->nr_blks && min > 1; i++) {
		count = READ_ONCE(vb->blk_count[i]);
		if (count && count < min) {
			min = count;
			best = i;
		}
		if (!(i % 4096))
			cond_resched();
	}
	return best;
}

static struct gmb *gmb_of_page(struct page *page)
{
	return container_of(balloon_page_device(page), struct gmb, b_dev_info);
}

/*
 * The migratetype of @pfn's pageblock.  get_pageblock_migratetype() cannot
 * be used from a module (get_pfnblock_flags_mask() is not exported), so
 * this is our copy of get_pfnblock_flags_mask() (mm/page_alloc.c, 6.1 and
 * 6.12 alike) for SPARSEMEM, which every Debian amd64 kernel uses: the
 * pageblock bits live in the section's usage map.  A racy read, as in the
 * kernel: an isolating caller set the bits before it scanned the block.
 * Linux 6.16 keeps isolation in a bit of its own (NR_PAGEBLOCK_BITS 8):
 * the assertion stops the build there instead of reading wrong bits.
 */
int gmb_pfn_migratetype(unsigned long pfn)
{
	unsigned long *bitmap = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >>
				pageblock_order) * NR_PAGEBLOCK_BITS;
	unsigned long word = READ_ONCE(bitmap[bitidx / BITS_PER_LONG]);

	BUILD_BUG_ON(!IS_ENABLED(CONFIG_SPARSEMEM));
	BUILD_BUG_ON(NR_PAGEBLOCK_BITS != 4 ||
		     MIGRATE_ISOLATE > MIGRATETYPE_MASK);
	return (word >> (bitidx % BITS_PER_LONG)) & MIGRATETYPE_MASK;
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
		      gmb_pfn_migratetype(page_to_pfn(page)) == MIGRATE_ISOLATE;
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

	spin_lock_irqsave(&b->pages_lock, flags);
	gmb_chunk_insert(vb, newpage, false);
	__count_vm_event(BALLOON_MIGRATE);
	__gmb_chunk_track(vb, page, -1);
	b->isolated_pages--;
	spin_unlock_irqrestore(&b->pages_lock, flags);

	return gmb_migrate_end(vb, newpage, page);
}

static const struct movable_operations gmb_chunk_mops = {
	.isolate_page	= gmb_chunk_isolate,
	.migrate_page	= gmb_chunk_migrate,
	.putback_page	= gmb_chunk_putback,
};
