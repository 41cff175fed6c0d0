// SPDX-License-Identifier: GPL-2.0
/*
 * Filling and leaking the balloon, within the floor.
 *
 * Pages move in batches of at most batch_pages balloon pages; each batch is
 * one buffer on the inflate or deflate virtqueue and the driver waits for
 * the host to consume it before the next one.  All of this runs under
 * vb->balloon_lock.
 *
 * movable=1: pages are enqueued in the balloon core (core.h), which marks
 * them PageOffline and movable with its balloon_mops, or (chunk mode on
 * the 6.x core) with chunk_mops.c's; compaction may then isolate and
 * migrate them (see migrate.c).  The balloon core counts
 * BALLOON_INFLATE/BALLOON_DEFLATE.
 *
 * movable=0: pages are marked PageOffline only and kept on the private
 * pinned_pages list, so compaction treats them as unmovable; we count the
 * vm events ourselves.  They are allocated as unmovable memory too (no
 * __GFP_MOVABLE, as virtio_balloon before balloon compaction, 3.8): a
 * page that can never move must not sit in a movable pageblock or in
 * ZONE_MOVABLE, where it would stop compaction and memory offlining.
 *
 * The floor keeps the host from ballooning the guest to death: the balloon
 * never grows past the point where the guest would keep less than
 * floor_mb of its memory.  The automatic floor (floor_mb=-1, default) is
 * the one hv_balloon uses: 104 MiB + 1/8 of RAM for 512 MiB..2 GiB guests
 * (232 MiB for 1 GiB), scaled for smaller and larger guests.  A host
 * target below the floor is not an error; the balloon stops at the floor
 * and tries again later.
 */
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/vmstat.h>
#include <linux/moduleparam.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"
#include "trace.h"

unsigned int gmb_param_batch_pages = GMB_PFNS_DEFAULT;
GMM_UINT_PARAM(batch_pages, gmb_param_batch_pages, GMB_PAGES_PER_PAGE,
	       GMB_PFNS_MAX, 0644);
MODULE_PARM_DESC(batch_pages,
		 "4 KiB pages per inflate/deflate message to the host (1-512, default 256)");

int gmb_param_floor_mb = GMB_FLOOR_AUTO;

static int gmb_param_set_floor(const char *val, const struct kernel_param *kp)
{
	int v;

	if (!val || kstrtoint(val, 0, &v) || v < GMB_FLOOR_AUTO ||
	    v > GMB_FLOOR_MAX_MB)
		return gmm_param_invalid(val, kp,
					 "-1 (auto), 0 (none) or MiB up to %d",
					 GMB_FLOOR_MAX_MB);
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops gmb_floor_ops = {
	.set = gmb_param_set_floor,
	.get = param_get_int,
};

module_param_cb(floor_mb, &gmb_floor_ops, &gmb_param_floor_mb, 0644);
MODULE_PARM_DESC(floor_mb,
		 "Never inflate below this much guest memory in MiB (-1 = automatic, default; 0 = no floor)");

#define MIB_PAGES(mb)	((unsigned long)(mb) << (20 - PAGE_SHIFT))

/* Guest memory, in Linux pages, with the balloon counted as guest memory. */
static unsigned long gmb_guest_pages(struct gmb *vb)
{
	unsigned long total = totalram_pages();

	if (vb->adjust_managed)
		total += READ_ONCE(vb->num_pages) / GMB_PAGES_PER_PAGE;
	return total;
}

static unsigned long gmb_auto_floor(unsigned long total)
{
	if (total < MIB_PAGES(128))
		return MIB_PAGES(8) + (total >> 1);
	if (total < MIB_PAGES(512))
		return MIB_PAGES(40) + (total >> 2);
	if (total < MIB_PAGES(2048))
		return MIB_PAGES(104) + (total >> 3);
	if (total < MIB_PAGES(8192))
		return MIB_PAGES(232) + (total >> 4);
	return MIB_PAGES(488) + (total >> 5);
}

/* The floor in Linux pages (0 = none). */
unsigned long gmb_floor_pages(struct gmb *vb)
{
	int mb = READ_ONCE(gmb_param_floor_mb);

	if (mb == GMB_FLOOR_AUTO)
		return gmb_auto_floor(gmb_guest_pages(vb));
	return MIB_PAGES(mb);
}

/**
 * gmb_floor_allow - how much of an inflation the floor permits
 * @vb: the balloon
 * @num: balloon pages the host wants added
 *
 * Return: balloon pages that may be added (<= @num).
 */
unsigned int gmb_floor_allow(struct gmb *vb, unsigned int num)
{
	unsigned long total = gmb_guest_pages(vb);
	unsigned long floor = gmb_floor_pages(vb);
	unsigned long held = READ_ONCE(vb->num_pages) / GMB_PAGES_PER_PAGE;
	unsigned long room;

	room = total > floor + held ? total - floor - held : 0;
	if ((unsigned long)num / GMB_PAGES_PER_PAGE <= room)
		return num;
	gmb_count(vb, GMB_C_FLOOR_LIMITED, 1);
	dev_info_ratelimited(&vb->vdev->dev,
			     "not inflating below the floor of %lu MiB (host wants %u more pages)\n",
			     floor >> (20 - PAGE_SHIFT), num);
	return room * GMB_PAGES_PER_PAGE;
}

static unsigned int gmb_batch(struct gmb *vb, unsigned int num)
{
	unsigned int batch = READ_ONCE(gmb_param_batch_pages);

	/*
	 * Chunk mode sends a whole block per buffer, and gives a complete
	 * block back in one buffer too, so the host never sees half of one.
	 */
	if (vb->chunk_order)
		batch = GMB_PFNS_MAX;

	batch = clamp_t(unsigned int, batch, GMB_PAGES_PER_PAGE, GMB_PFNS_MAX);
	return min(num, batch);
}

/*
 * Hand a freshly allocated page to the balloon.  @block: part of a whole
 * block (chunk mode), which is kept behind the strays so that deflation
 * reaches it last.
 */
static void gmb_enqueue(struct gmb *vb, struct page *page, bool block)
{
	lockdep_assert_held(&vb->balloon_lock);
	gmb_numa_track(vb, page, 1, false);
	if (vb->movable) {
		if (vb->chunk_order)
			gmb_chunk_enqueue(vb, page);
		else
			gmb_core_enqueue(vb, page);
		return;
	}
	__SetPageOffline(page);
	if (block)
		list_add_tail(&page->lru, &vb->pinned_pages);
	else
		list_add(&page->lru, &vb->pinned_pages);
	if (vb->chunk_order)
		gmb_chunk_track(vb, page, 1);
	count_vm_event(BALLOON_INFLATE);
}

/* The page allocation flags of each mode, as balloon_page_alloc()'s. */
#define GMB_PAGE_FLAGS		(__GFP_NOMEMALLOC | __GFP_NORETRY | __GFP_NOWARN)

static gfp_t gmb_gfp(struct gmb *vb)
{
	return (vb->movable ? GFP_HIGHUSER_MOVABLE : GFP_HIGHUSER) |
	       GMB_PAGE_FLAGS;
}

/*
 * A page for the balloon, or NULL.  May sleep (direct reclaim).  @nid:
 * the node numa.c chose, which gets the first try, or NUMA_NO_NODE.
 */
static struct page *gmb_page_alloc(struct gmb *vb, int nid)
{
	struct page *page;

	if (nid != NUMA_NO_NODE) {
		page = alloc_pages_node(nid, gmb_gfp(vb) | __GFP_THISNODE, 0);
		if (page)
			return page;
	}
	if (vb->movable)
		return gmb_core_alloc();
	return alloc_page(gmb_gfp(vb));
}

/* movable=0: the first @n pages of pinned_pages that @nodes wants. */
static unsigned int gmb_dequeue_pinned(struct gmb *vb, struct list_head *pages,
				       unsigned int n, const nodemask_t *nodes)
{
	struct page *page, *tmp;
	unsigned int done = 0;

	list_for_each_entry_safe(page, tmp, &vb->pinned_pages, lru) {
		if (done == n)
			break;
		if (nodes && !node_isset(page_to_nid(page), *nodes))
			continue;
		list_move(&page->lru, pages);
		if (vb->chunk_order)
			gmb_chunk_track(vb, page, -1);
		__ClearPageOffline(page);
		count_vm_event(BALLOON_DEFLATE);
		done++;
	}
	return done;
}

/*
 * Take up to @n pages out of the balloon onto @pages, in one pass over
 * the list: strays first; with @strays_only never a page of a complete
 * block (movable chunk mode); with @nodes only pages of those nodes.
 * Returns how many; fewer (even 0) while pages remain if those are
 * isolated for migration right now.
 */
static unsigned int gmb_dequeue(struct gmb *vb, struct list_head *pages,
				unsigned int n, bool strays_only,
				const nodemask_t *nodes)
{
	if (!vb->movable)
		return gmb_dequeue_pinned(vb, pages, n, nodes);
	/*
	 * The core's own dequeue where it will do: tools that trace the
	 * balloon core (guestmm-stat's balloon counters) see these pages.
	 */
	if (!vb->chunk_order && !nodes)
		return gmb_core_dequeue(vb, pages, n);
	return gmb_chunk_dequeue(vb, pages, n, strays_only, nodes);
}

/*
 * A whole block of 1 << chunk_order order-0 pages, each holding one
 * reference (ours), enters the balloon and goes to the host in one
 * buffer.
 */
void gmb_add_block(struct gmb *vb, struct page *head)
{
	unsigned int i, n = 1U << vb->chunk_order;
	struct page *page;

	lockdep_assert_held(&vb->balloon_lock);
	if (vb->movable) {
		for (i = 0; i < n; i++)
			gmb_numa_track(vb, gmm_nth_page(head, i), 1, false);
		gmb_chunk_enqueue_block(vb, head);
	} else {
		for (i = 0; i < n; i++)
			gmb_enqueue(vb, gmm_nth_page(head, i), true);
	}
	for (i = 0; i < n; i++) {
		page = gmm_nth_page(head, i);
		gmb_set_page_pfns(vb, vb->pfns + i * GMB_PAGES_PER_PAGE, page);
		if (vb->adjust_managed)
			adjust_managed_page_count(page, -1);
	}
	vb->num_pfns = n * GMB_PAGES_PER_PAGE;
	vb->num_pages += vb->num_pfns;
	gmb_tell_host(vb, vb->inflate_vq);
	gmb_count(vb, GMB_C_INFLATED, n);
	trace_guestmm_balloon_inflate(vb->num_pfns, page_to_pfn(head),
				      vb->num_pages, vb->target);
}

/*
 * Chunk mode: one naturally aligned block of 1 << chunk_order pages, sent
 * to the host whole in one buffer.  Which block, source.c decides (the
 * host-return rule).  @nid: the node numa.c chose, tried first, or
 * NUMA_NO_NODE.
 *
 * The allocation masks have no reclaim bits at all (as vmw_balloon's
 * 2 MiB path): reclaiming or compacting for a block would evict the
 * guest's caches to give the host a huge page.  init_on_alloc still
 * zeroes a block taken from the free lists, which is what makes the host
 * back it just before discarding it (see notes, "init_on_alloc").
 *
 * Return: balloon pages added, 0 when no block could be had.
 */
static unsigned int gmb_fill_block(struct gmb *vb, int nid)
{
	struct page *head;

	head = gmb_take_block(vb, nid, gmb_gfp(vb) & ~__GFP_RECLAIM);
	if (!head) {
		gmb_count(vb, GMB_C_CHUNK_FALLBACK, 1);
		return 0;
	}

	mutex_lock(&vb->balloon_lock);
	gmb_add_block(vb, head);
	gmb_count(vb, GMB_C_CHUNK_BLOCKS, 1);
	mutex_unlock(&vb->balloon_lock);

	return GMB_PAGES_PER_PAGE << vb->chunk_order;
}

/**
 * gmb_fill - inflate the balloon by up to one batch
 * @vb: the balloon
 * @num: balloon pages wanted
 * @out_of_puff: set when a page allocation failed
 *
 * Return: number of balloon pages added (and reported to the host).
 */
unsigned int gmb_fill(struct gmb *vb, unsigned int num, bool *out_of_puff)
{
	unsigned long first_pfn = 0;
	struct page *page;
	unsigned int done, n;
	bool steer;
	int nid;
	LIST_HEAD(pages);

	*out_of_puff = false;
	num = gmb_floor_allow(vb, gmb_batch(vb, num));
	if (!num) {
		/* At the floor: back off like a failed allocation. */
		*out_of_puff = true;
		return 0;
	}

	steer = gmb_numa_plan(vb);
	if (vb->chunk_order && num >= GMB_PAGES_PER_PAGE << vb->chunk_order) {
		nid = steer ? gmb_numa_next(vb, gmb_blk_pages(vb)) : NUMA_NO_NODE;
		done = gmb_fill_block(vb, nid);
		if (done)
			return done;
		/* The pages below are charged one by one. */
		gmb_numa_undo(vb, nid, gmb_blk_pages(vb));
	}

	/* Allocate outside the lock: allocation may compact and migrate. */
	for (n = 0; n < num; n += GMB_PAGES_PER_PAGE) {
		nid = steer ? gmb_numa_next(vb, 1) : NUMA_NO_NODE;
		page = gmb_page_alloc(vb, nid);
		if (!page) {
			gmb_count(vb, GMB_C_OUT_OF_PUFF, 1);
			dev_info_ratelimited(&vb->vdev->dev,
					     "out of puff: no page for the balloon (%u pages in it, host wants %u)\n",
					     vb->num_pages, vb->target);
			*out_of_puff = true;
			break;
		}
		gmb_page_push(&pages, page);
	}

	mutex_lock(&vb->balloon_lock);
	vb->num_pfns = 0;
	while ((page = gmb_page_pop(&pages))) {
		if (!vb->num_pfns)
			first_pfn = page_to_pfn(page);
		gmb_enqueue(vb, page, false);
		gmb_set_page_pfns(vb, vb->pfns + vb->num_pfns, page);
		vb->num_pfns += GMB_PAGES_PER_PAGE;
		vb->num_pages += GMB_PAGES_PER_PAGE;
		if (vb->adjust_managed)
			adjust_managed_page_count(page, -1);
	}
	done = vb->num_pfns;
	if (done) {
		gmb_tell_host(vb, vb->inflate_vq);
		gmb_count(vb, GMB_C_INFLATED, done / GMB_PAGES_PER_PAGE);
		if (vb->chunk_order)
			gmb_count(vb, GMB_C_STRAYS, done / GMB_PAGES_PER_PAGE);
		trace_guestmm_balloon_inflate(done, first_pfn, vb->num_pages,
					      vb->target);
	}
	mutex_unlock(&vb->balloon_lock);

	return done;
}

/**
 * gmb_give_back - tell the host, then free pages taken out of the balloon
 * @vb: the balloon
 * @pages: the pages, off every balloon list (at most GMB_PFNS_MAX pfns)
 * @why: how they are counted
 *
 * The host is told before the pages are freed, as MUST_TELL_HOST requires.
 *
 * Return: number of balloon pages given back.
 */
unsigned int gmb_give_back(struct gmb *vb, struct list_head *pages,
			   enum gmb_leak_why why)
{
	unsigned long first_pfn = 0;
	struct page *page, *next;
	unsigned int done;

	lockdep_assert_held(&vb->balloon_lock);
	vb->num_pfns = 0;
	list_for_each_entry(page, pages, lru) {
		if (!vb->num_pfns)
			first_pfn = page_to_pfn(page);
		gmb_set_page_pfns(vb, vb->pfns + vb->num_pfns, page);
		gmb_numa_track(vb, page, -1, why == GMB_LEAK_OOM);
		vb->num_pfns += GMB_PAGES_PER_PAGE;
	}
	done = vb->num_pfns;
	vb->num_pages -= done;
	if (done)
		gmb_tell_host(vb, vb->deflate_vq);

	list_for_each_entry_safe(page, next, pages, lru) {
		if (vb->adjust_managed)
			adjust_managed_page_count(page, 1);
		list_del(&page->lru);
		put_page(page);		/* the balloon's reference */
	}
	if (done) {
		gmb_count(vb, GMB_C_DEFLATED, done / GMB_PAGES_PER_PAGE);
		trace_guestmm_balloon_deflate(done, first_pfn, vb->num_pages,
					      vb->target);
	}
	return done;
}

/**
 * __gmb_leak - deflate the balloon by up to one batch, with balloon_lock
 * @vb: the balloon
 * @num: balloon pages to give back
 * @why: the host's target, OOM, or defrag (strays only)
 * @nodes: give back only pages of these nodes, or NULL for any
 *
 * May return 0 while pages remain if all of them are isolated for
 * migration at the moment.
 *
 * Return: number of balloon pages given back.
 */
unsigned int __gmb_leak(struct gmb *vb, unsigned int num,
			enum gmb_leak_why why, const nodemask_t *nodes)
{
	LIST_HEAD(pages);

	lockdep_assert_held(&vb->balloon_lock);
	num = gmb_batch(vb, min(num, vb->num_pages));
	gmb_dequeue(vb, &pages, num / GMB_PAGES_PER_PAGE,
		    why == GMB_LEAK_DEFRAG, nodes);
	return gmb_give_back(vb, &pages, why);
}

/* __gmb_leak() that takes balloon_lock. */
unsigned int gmb_leak(struct gmb *vb, unsigned int num,
		      enum gmb_leak_why why, const nodemask_t *nodes)
{
	unsigned int done;

	mutex_lock(&vb->balloon_lock);
	done = __gmb_leak(vb, num, why, nodes);
	mutex_unlock(&vb->balloon_lock);
	return done;
}

/*
 * Empty the balloon completely (remove, freeze).  Pages isolated by
 * compaction come back through putback or migration shortly; wait for them.
 */
void gmb_leak_all(struct gmb *vb)
{
	while (READ_ONCE(vb->num_pages)) {
		if (!gmb_leak(vb, READ_ONCE(vb->num_pages), GMB_LEAK_HOST,
			      NULL))
			usleep_range(1000, 2000);
		cond_resched();
	}
}
