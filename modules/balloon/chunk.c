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
 * With movable=1 the pages of chunk mode carry movable_operations of
 * their own (chunk_mops.c), which keep complete blocks whole.
 */
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
bool __gmb_chunk_track(struct gmb *vb, struct page *page, int delta)
{
	unsigned long i = page_to_pfn(page) >> vb->chunk_order;
	unsigned int full = gmb_blk_pages(vb);

	lockdep_assert_held(gmb_blocks_lock(vb));
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

bool gmb_in_complete_block(struct gmb *vb, struct page *page)
{
	unsigned long i = page_to_pfn(page) >> vb->chunk_order;

	lockdep_assert_held(gmb_blocks_lock(vb));
	return i < vb->nr_blks && vb->blk_count[i] == gmb_blk_pages(vb);
}

/* For movable=0, whose pages live on pinned_pages. */
void gmb_chunk_track(struct gmb *vb, struct page *page, int delta)
{
	unsigned long flags;

	spin_lock_irqsave(gmb_blocks_lock(vb), flags);
	__gmb_chunk_track(vb, page, delta);
	spin_unlock_irqrestore(gmb_blocks_lock(vb), flags);
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

	spin_lock_irqsave(gmb_blocks_lock(vb), flags);
	count = blk < vb->nr_blks ? vb->blk_count[blk] : 0;
	spin_unlock_irqrestore(gmb_blocks_lock(vb), flags);
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
		spin_lock_irqsave(gmb_blocks_lock(vb), flags);
		count = vb->blk_count[i];
		spin_unlock_irqrestore(gmb_blocks_lock(vb), flags);
		if (count)
			seq_printf(m, "0x%lx %u\n", i << vb->chunk_order, count);
	}
	up_read(&vb->blocks_sem);
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
	 * Racy reads, without the blocks lock: one pass over every block is too
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
