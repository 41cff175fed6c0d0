// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk mode's per-block state, sized to the guest's memory and grown
 * when memory is hot-added.
 *
 * Three arrays are indexed by block (pfn >> chunk_order):
 *  - blk_count: balloon pages in the block (chunk.c), under the blocks
 *    lock (gmb_blocks_lock(): the 6.x core's pages_lock);
 *  - defrag_skip: blocks defrag failed on (defrag.c), movable=1 only;
 *  - blk_zero: free blocks that read as zeros (source.c), movable=1 only.
 *
 * Probe sizes them to the end of every online node.  Memory hot-added
 * later (a pc-dimm, virtio-mem) may lie beyond that, so a memory
 * notifier grows them at MEM_GOING_ONLINE: the node's span already
 * covers the range then, and none of its pages is free yet, so every
 * balloon page is counted from the moment it can exist.  Without that,
 * complete blocks there would count as strays, compaction could break
 * them, and defrag could give them back.  A range that is offlined keeps
 * its entries, which are zero by then: offlining migrates every balloon
 * page out.
 *
 * blocks_sem guards the arrays' addresses and nr_blks.  Code that walks
 * them without the blocks lock holds it for read: size_work's chunk
 * steps (source.c), defrag and the debugfs map.  Growing holds it for
 * write and swaps blk_count under the blocks lock as well, so code that
 * holds only that lock (counting balloon pages in and out) sees one array
 * and its size.  Lock order:
 *
 *   blocks_sem -> defrag_lock -> balloon_lock -> page lock ->
 *   gmb_blocks_lock()
 */
#include <linux/bitmap.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "guestmm_balloon.h"

/* One past the last block of every online node's span. */
static unsigned long gmb_blocks_spanned(struct gmb *vb)
{
	unsigned long end = 0;
	int nid;

	for_each_online_node(nid)
		end = max(end, pgdat_end_pfn(NODE_DATA(nid)));
	return DIV_ROUND_UP(end, gmb_blk_pages(vb));
}

/*
 * Make the arrays cover @nr blocks.  The bitmaps' bits are hints (a
 * block to skip, a block read as zeros): one set by a lockless writer
 * while they are copied may be lost, which costs a read or a retry.
 * blk_count is exact, and copied under the blocks lock.
 */
static int gmb_blocks_grow(struct gmb *vb, unsigned long nr)
{
	unsigned long *skip = NULL, *zero = NULL, *old_skip, *old_zero;
	unsigned long flags, old_nr;
	u16 *count, *old_count;

	lockdep_assert_held_write(&vb->blocks_sem);
	old_nr = vb->nr_blks;
	if (nr <= old_nr)
		return 0;
	count = kvcalloc(nr, sizeof(*count), GFP_KERNEL);
	if (vb->movable) {
		skip = bitmap_zalloc(nr, GFP_KERNEL);
		zero = bitmap_zalloc(nr, GFP_KERNEL);
	}
	if (!count || (vb->movable && (!skip || !zero))) {
		kvfree(count);
		bitmap_free(skip);
		bitmap_free(zero);
		return -ENOMEM;
	}
	if (vb->movable && old_nr) {
		bitmap_copy(skip, vb->defrag_skip, old_nr);
		bitmap_copy(zero, vb->blk_zero, old_nr);
	}

	spin_lock_irqsave(gmb_blocks_lock(vb), flags);
	if (old_nr)
		memcpy(count, vb->blk_count, old_nr * sizeof(*count));
	old_count = vb->blk_count;
	vb->blk_count = count;
	vb->nr_blks = nr;
	spin_unlock_irqrestore(gmb_blocks_lock(vb), flags);

	old_skip = vb->defrag_skip;
	old_zero = vb->blk_zero;
	vb->defrag_skip = skip;
	vb->blk_zero = zero;
	kvfree(old_count);
	bitmap_free(old_skip);
	bitmap_free(old_zero);
	return 0;
}

static int gmb_blocks_memory_event(struct notifier_block *nb,
				   unsigned long action, void *arg)
{
	struct gmb *vb = container_of(nb, struct gmb, mem_nb);
	struct memory_notify *mn = arg;
	unsigned long end = mn->start_pfn + mn->nr_pages;
	unsigned long had;
	int err;

	if (action != MEM_GOING_ONLINE)
		return NOTIFY_OK;
	down_write(&vb->blocks_sem);
	had = vb->nr_blks;
	err = gmb_blocks_grow(vb, DIV_ROUND_UP(end, gmb_blk_pages(vb)));
	if (vb->nr_blks > had)
		gmb_count(vb, GMB_C_BLOCKS_GROWN, 1);
	up_write(&vb->blocks_sem);
	if (err)
		dev_warn(&vb->vdev->dev,
			 "cannot track memory at pfn 0x%lx-0x%lx: %d, refusing to online it\n",
			 mn->start_pfn, end, err);
	return notifier_from_errno(err);
}

/*
 * Probe: follow hot-added memory, then size the arrays to the online
 * nodes.  The notifier comes first: a range onlined from then on grows
 * the arrays itself, and one onlined before had its span added to its
 * node before its notifier call, which registering waits for, so the
 * spans read after cover it.
 */
int gmb_blocks_init(struct gmb *vb)
{
	int err;

	init_rwsem(&vb->blocks_sem);
	if (!vb->chunk_order)
		return 0;
	vb->mem_nb.notifier_call = gmb_blocks_memory_event;
	err = register_memory_notifier(&vb->mem_nb);
	if (err) {
		vb->mem_nb.notifier_call = NULL;
		return err;
	}
	down_write(&vb->blocks_sem);
	err = gmb_blocks_grow(vb, gmb_blocks_spanned(vb));
	up_write(&vb->blocks_sem);
	if (err)
		gmb_blocks_exit(vb);
	return err;
}

/* Remove, or a failed probe: no balloon page is left in any block. */
void gmb_blocks_exit(struct gmb *vb)
{
	if (vb->mem_nb.notifier_call)
		unregister_memory_notifier(&vb->mem_nb);
	vb->mem_nb.notifier_call = NULL;
	kvfree(vb->blk_count);
	bitmap_free(vb->defrag_skip);
	bitmap_free(vb->blk_zero);
	vb->blk_count = NULL;
	vb->defrag_skip = NULL;
	vb->blk_zero = NULL;
	vb->nr_blks = 0;
}
