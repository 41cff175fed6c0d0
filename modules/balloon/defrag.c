// SPDX-License-Identifier: GPL-2.0
/*
 * Defrag (chunk_order > 0, movable=1): strays turned into complete blocks
 * on purpose, with alloc_contig_range().  (source.c makes blocks for
 * inflation the same way.)
 *
 * Compaction gathers balloon strays into whole blocks only where its two
 * scanners happen to meet (docs/balloon.md, "Where compaction reaches").
 * Defrag does it directly.  It picks the incomplete block that holds the
 * most balloon pages and asks alloc_contig_range() for all of it: the
 * kernel migrates the block's other movable pages out, our own strays in
 * it would go with them, but those are given back first (one deflate), so
 * they are free pages it simply takes.  It hands the whole range over as
 * order-0 pages.  Then, under balloon_lock, the block enters the balloon
 * as one 512-PFN inflate and as many strays as the block did not hold
 * leave in one deflate: the balloon's size does not change, it holds one
 * more complete block and 512 fewer strays.
 *
 * Why alloc_contig_range(): it is the kernel's own "empty this range"
 * (CMA, gigantic pages, virtio-mem), with isolation, migration, retries
 * and the free-page bookkeeping done right.  Cost per block: the pages
 * others had in use there are migrated (defrag_min_pages bounds that),
 * plus three host messages.
 *
 * Runs: a debugfs write ("defrag": complete up to N blocks now) or, with
 * defrag_interval_ms > 0, defrag_work every interval, each run stopping
 * after defrag_budget_ms.  A block that failed is skipped until a run
 * finds nothing else to try.
 */
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"

unsigned int gmb_param_defrag_interval_ms = GMB_DEFRAG_INTERVAL_DEFAULT_MS;
unsigned int gmb_param_defrag_budget_ms = GMB_DEFRAG_BUDGET_DEFAULT_MS;
unsigned int gmb_param_defrag_min_pages = GMB_DEFRAG_MIN_DEFAULT;

/* defrag_interval_ms: a new value takes effect now, not after the old. */
static int gmb_param_set_defrag(const char *val, const struct kernel_param *kp)
{
	int err = gmm_uint_set(val, kp);
	struct gmb *vb;

	if (err)
		return err;
	vb = gmb_host_lock();
	if (vb)
		gmb_defrag_schedule(vb, 0);
	gmb_host_unlock();
	return 0;
}

static const struct kernel_param_ops gmb_defrag_ops = {
	.set = gmb_param_set_defrag,
	.get = gmm_uint_get,
};

static struct gmm_uint_param gmb_range_defrag_interval_ms = {
	&gmb_param_defrag_interval_ms, 0, GMB_DEFRAG_INTERVAL_MAX_MS
};
module_param_cb(defrag_interval_ms, &gmb_defrag_ops,
		&gmb_range_defrag_interval_ms, 0644);
MODULE_PARM_DESC(defrag_interval_ms,
		 "Balloon defrag in the background every this many ms while it finds work (default 1000; 0 = off; up to 3600000). Needs chunk_order and movable=1.");
GMM_UINT_PARAM(defrag_budget_ms, gmb_param_defrag_budget_ms, 1,
	       GMB_DEFRAG_BUDGET_MAX_MS, 0644);
MODULE_PARM_DESC(defrag_budget_ms,
		 "Time one background defrag run may take (1-10000 ms, default 20)");
GMM_UINT_PARAM(defrag_min_pages, gmb_param_defrag_min_pages, 1,
	       GMB_PFNS_MAX - 1, 0644);
MODULE_PARM_DESC(defrag_min_pages,
		 "Defrag completes only blocks already holding this many balloon pages (1-511, default 256): the rest of the block is migrated");

/* Defrag works on chunk mode's movable blocks only. */
static bool gmb_defrag_applies(struct gmb *vb)
{
	return vb->chunk_order && vb->movable;
}

/*
 * The incomplete block with the most balloon pages, at least
 * defrag_min_pages, that has not failed since the last full pass; or
 * ULONG_MAX.
 */
static unsigned long gmb_defrag_pick(struct gmb *vb)
{
	unsigned int full = gmb_blk_pages(vb);
	unsigned int min = READ_ONCE(gmb_param_defrag_min_pages);
	unsigned long blk, best = ULONG_MAX;
	unsigned int count, best_count = 0;
	bool skipped = false;

	lockdep_assert_held(&vb->defrag_lock);
	for (blk = 0; blk < vb->nr_blks; blk++) {
		count = gmb_chunk_count(vb, blk);
		if (count < min || count >= full || count <= best_count)
			continue;
		if (test_bit(blk, vb->defrag_skip)) {
			skipped = true;
			continue;
		}
		if (!gmb_block_ok(vb, blk))
			continue;
		best = blk;
		best_count = count;
	}
	/* Nothing new to try: the failed ones get another chance next run. */
	if (best == ULONG_MAX && skipped)
		bitmap_zero(vb->defrag_skip, vb->nr_blks);
	return best;
}

/*
 * Give back block @blk's own strays (as one deflate), so that
 * alloc_contig_range() need not migrate them.  Returns how many.
 */
static unsigned int gmb_defrag_give_own(struct gmb *vb, unsigned long blk)
{
	unsigned int own;
	LIST_HEAD(pages);

	mutex_lock(&vb->balloon_lock);
	gmb_chunk_dequeue_block(vb, &pages, blk, gmb_blk_pages(vb));
	own = gmb_give_back(vb, &pages, GMB_LEAK_DEFRAG) / GMB_PAGES_PER_PAGE;
	mutex_unlock(&vb->balloon_lock);
	return own;
}

/*
 * Give back @want strays after a block was completed, in one deflate: those
 * of the blocks holding the fewest balloon pages first.  Their host huge
 * pages are broken anyway and may come back whole, and the strays left
 * gather in fuller blocks, which are cheaper to complete next.  Blocks
 * whose pages are all isolated right now end the search; the list gives
 * the rest.  Returns balloon pages given back.
 */
static unsigned int gmb_defrag_give_sparse(struct gmb *vb, unsigned int want)
{
	unsigned int got, taken = 0;
	unsigned long blk;
	LIST_HEAD(pages);

	lockdep_assert_held(&vb->balloon_lock);
	while (taken < want) {
		blk = gmb_chunk_sparsest(vb);
		if (blk == ULONG_MAX)
			break;
		got = gmb_chunk_dequeue_block(vb, &pages, blk, want - taken);
		if (!got)
			break;
		taken += got;
	}
	got = gmb_give_back(vb, &pages, GMB_LEAK_DEFRAG);
	if (got < want * GMB_PAGES_PER_PAGE)
		got += __gmb_leak(vb, want * GMB_PAGES_PER_PAGE - got,
				  GMB_LEAK_DEFRAG, NULL);
	return got;
}

/*
 * Complete block @blk.  Returns 0, or the error of alloc_contig_range()
 * (the kernel put every page it moved back; the strays we gave back
 * first are reinflated by size_work).  Not with balloon_lock: migrating
 * our own strays takes it (gmb_migrate_begin()).
 */
static int gmb_defrag_block(struct gmb *vb, unsigned long blk)
{
	unsigned int n = gmb_blk_pages(vb);
	unsigned long pfn = blk << vb->chunk_order;
	unsigned int used = gmb_block_in_use(vb, pfn), own;
	int err;

	lockdep_assert_held(&vb->defrag_lock);
	/* A stray migrated in since the pick may have completed it. */
	if (gmb_chunk_count(vb, blk) >= n)
		return -EEXIST;
	/*
	 * The host-return rule (source.c): the pages others use here move
	 * into holes of blocks that are broken and backed, never into a
	 * whole free block, which the host may have to back again for them.
	 */
	if (!gmb_zone_fits(vb, page_zone(pfn_to_page(pfn)),
			   used - min(used, gmb_chunk_count(vb, blk))))
		return -ENOSPC;
	/*
	 * Our strays in the block go back to the guest first: they are
	 * free pages then, which alloc_contig_range() takes as they are,
	 * where it would have migrated each (two host messages and a copy)
	 * only for an equal number of strays to be given back after.
	 */
	own = gmb_defrag_give_own(vb, blk);
	err = gmm_alloc_contig_range(pfn, pfn + n, GFP_KERNEL | __GFP_NOWARN);
	if (err) {
		if (own)
			gmb_resize_later(vb, 0);
		return err;
	}

	/*
	 * Strays that left the block may still be queued as deflated frames:
	 * gmb_tell_host() sends those before the block's inflate.
	 */
	mutex_lock(&vb->balloon_lock);
	gmb_add_block(vb, pfn_to_page(pfn));
	gmb_defrag_give_sparse(vb, n - own);
	mutex_unlock(&vb->balloon_lock);
	/*
	 * size_work settles what this block left off the target: strays
	 * gmb_defrag_give_sparse() could not take (isolated by compaction
	 * right now; size_work may break a block to give those back), and
	 * a size_work run since gmb_defrag_give_own() (a reinflation after
	 * a failed block), which refilled the gap our strays left, so that
	 * n - own was too few, and which may have seen the balloon at its
	 * target and gone idle before the block came in (which left the
	 * balloon 256 pages over its target for good).
	 */
	gmb_resize_later(vb, 0);

	gmb_count(vb, GMB_C_DEFRAG_BLOCKS, 1);
	gmb_count(vb, GMB_C_DEFRAG_OWN, own);
	gmb_count(vb, GMB_C_DEFRAG_MOVED, used > own ? used - own : 0);
	return 0;
}

/**
 * gmb_defrag - complete up to @max_blocks blocks
 * @vb: the balloon
 * @max_blocks: blocks to complete at most
 * @budget_ms: stop after this long (0: no limit)
 *
 * Stops early when there are too few strays to give back for a block,
 * no block qualifies, the device is going away, or the caller (a debugfs
 * writer) got a fatal signal.
 *
 * Return: blocks completed, or -EOPNOTSUPP if the balloon has no chunks
 * or its pages are pinned.
 */
int gmb_defrag(struct gmb *vb, unsigned int max_blocks, unsigned int budget_ms)
{
	unsigned int n = gmb_blk_pages(vb), done = 0;
	ktime_t end = ktime_add_ms(ktime_get(), budget_ms);
	unsigned long blk;
	int err;

	if (!gmb_defrag_applies(vb))
		return -EOPNOTSUPP;

	down_read(&vb->blocks_sem);
	mutex_lock(&vb->defrag_lock);
	gmb_count(vb, GMB_C_DEFRAG_RUNS, 1);
	while (done < max_blocks && !READ_ONCE(vb->stopping) &&
	       !READ_ONCE(vb->stop_update) && !fatal_signal_pending(current)) {
		if (budget_ms && ktime_after(ktime_get(), end))
			break;
		if (gmb_chunk_stray_pages(vb) < n)
			break;
		blk = gmb_defrag_pick(vb);
		if (blk == ULONG_MAX)
			break;
		err = gmb_defrag_block(vb, blk);
		if (err == -EINTR)
			break;
		if (err == -ENOSPC) {
			gmb_count(vb, GMB_C_DEFRAG_NO_HOLES, 1);
			break;
		}
		if (err == -EEXIST)
			continue;
		if (err) {
			set_bit(blk, vb->defrag_skip);
			gmb_count(vb, GMB_C_DEFRAG_FAILED, 1);
		} else {
			done++;
		}
		cond_resched();
	}
	mutex_unlock(&vb->defrag_lock);
	up_read(&vb->blocks_sem);
	return done;
}

/* Queue the background run after @delay, unless the device is stopping. */
void gmb_defrag_schedule(struct gmb *vb, unsigned long delay)
{
	if (gmb_defrag_applies(vb))
		gmb_queue_work(vb, &vb->defrag_work, delay);
}

static void gmb_defrag_work(struct work_struct *work)
{
	struct gmb *vb = container_of(to_delayed_work(work), struct gmb,
				      defrag_work);
	unsigned int interval = READ_ONCE(gmb_param_defrag_interval_ms);

	if (!interval)
		return;
	/*
	 * A run that completed nothing found no block to complete (or too
	 * few strays to give back): go idle until size_work reaches a new
	 * target (gmb_defrag_start()) instead of waking every interval.
	 */
	if (gmb_defrag(vb, UINT_MAX, READ_ONCE(gmb_param_defrag_budget_ms)) > 0)
		gmb_defrag_schedule(vb, msecs_to_jiffies(interval));
}

/* Before gmb_blocks_init(), which allocates defrag_skip for movable=1. */
void gmb_defrag_init(struct gmb *vb)
{
	mutex_init(&vb->defrag_lock);
	INIT_DELAYED_WORK(&vb->defrag_work, gmb_defrag_work);
}

/*
 * Start background runs if defrag_interval_ms asks for them: at probe,
 * and whenever size_work reached the host's target (an idle defrag
 * wakes; a queued run keeps its time).
 */
void gmb_defrag_start(struct gmb *vb)
{
	unsigned int interval = READ_ONCE(gmb_param_defrag_interval_ms);

	if (interval && gmb_defrag_applies(vb))
		gmb_queue_work_later(vb, &vb->defrag_work,
				     msecs_to_jiffies(interval));
}
