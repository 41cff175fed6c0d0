// SPDX-License-Identifier: GPL-2.0
/*
 * Where a chunk step's block comes from (chunk_order > 0): the host-return
 * rule.  (With movable=0 only step 4: pinned pages never migrate.)
 *
 * The host lowers the target to get memory back.  A balloon frame gives it
 * memory only if the host backs that frame now: one it never backed, or
 * took already (free page reporting, an earlier deflate), gives nothing.
 * A frame taken out of a 2 MiB range the host maps with one huge page
 * splits that huge page.  So each 2 MiB step takes, in this order:
 *
 *  1. A free block the host backs: free in the buddy allocator, not
 *     PageReported, and holding data.  A frame the host does not back
 *     (never written, or given back by the balloon, or reported and not
 *     yet flagged) reads as zeros: gmb_block_written().
 *  2. A block made from one the guest partly uses: at most
 *     chunk_make_pages pages in use, most of its free pages holding data
 *     (the host backs them), and of a few such the one with the fewest
 *     pages in use and free pages the host does not back.  Its pages
 *     in use migrate into the free pages of smaller orders, the holes of
 *     blocks that are broken and backed already: the buddy allocator
 *     hands those out before it splits a whole free block, and the step is
 *     taken only while the zone has holes for all of them
 *     (gmb_zone_fits()).  Then one host huge page goes whole, for the
 *     price of the migrations.
 *  3. Nothing while holes remain and hold data: the caller falls back to
 *     4 KiB strays, which the allocator takes from those holes.  That is
 *     what stock takes, memory the host backs, at the cost of a host huge
 *     page split for each block it takes from.
 *  4. Then any free block (reported, or read as zeros): the host gets
 *     nothing back now, but the guest cannot use that memory again; then
 *     a block made whatever its holes hold; then strays.
 *
 * Steps 1 and 2 take their block with alloc_contig_range() (defrag.c says
 * why), step 4 with alloc_pages().  Counters: chunk_blocks_backed,
 * chunk_blocks_made and chunk_make_moved, stray_inflated,
 * chunk_blocks_unbacked.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/moduleparam.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"

unsigned int gmb_param_chunk_make_pages = GMB_MAKE_PAGES_DEFAULT;
GMM_UINT_PARAM(chunk_make_pages, gmb_param_chunk_make_pages, 0,
	       GMB_PFNS_MAX - 1, 0644);
MODULE_PARM_DESC(chunk_make_pages,
		 "With chunk_order, when no free 2 MiB block is backed by the host, make one by migrating at most this many pages out of a block into the holes of others (0-511, default 256; 0 = fall back to 4 KiB pages at once)");

/* Step 1: blocks read as zeros per step at most (2 MiB read each). */
#define GMB_ZERO_READS_MAX	8
/* Step 2: one free page in this many is read (gmb_block_cost()). */
#define GMB_SAMPLE_STRIDE	16
/* Steps 1 and 2: alloc_contig_range() calls per step at most. */
#define GMB_TAKE_TRIES		2
/* Step 2: blocks compared for the fewest pages in use. */
#define GMB_MAKE_CANDIDATES	8
/* Steps a fruitless scan of every block is not repeated for. */
#define GMB_SCAN_REST		16
/* Holes a zone keeps beyond what a made block migrates into them. */
#define GMB_HOLES_SLACK		512
/*
 * Steps 1 and 2: blocks walked between two cond_resched() (a walk of
 * every block reads each one's struct pages, and a few pages' data).
 */
#define GMB_RESCHED_BLOCKS	64

/*
 * A block alloc_contig_range() may be asked for: online, in one zone, a
 * MOVABLE pageblock (as pfn_range_valid_contig() asks; a CMA or
 * unmovable block would only fail after a system-wide drain).
 */
bool gmb_block_ok(struct gmb *vb, unsigned long blk)
{
	unsigned long pfn = blk << vb->chunk_order;
	struct page *first = pfn_to_online_page(pfn);
	struct page *last = pfn_to_online_page(pfn + gmb_blk_pages(vb) - 1);

	return first && last && page_zone(first) == page_zone(last) &&
	       gmm_pfn_migratetype(pfn) == MIGRATE_MOVABLE;
}

/*
 * Pages of the block at @pfn that are not free buddy pages: what
 * alloc_contig_range() must migrate.  A racy peek, as compaction's: only
 * an estimate.
 */
unsigned int gmb_block_in_use(struct gmb *vb, unsigned long pfn)
{
	unsigned long end = pfn + gmb_blk_pages(vb);
	unsigned int used = 0, order;
	struct page *page;

	while (pfn < end) {
		page = pfn_to_page(pfn);
		if (PageBuddy(page)) {
			order = READ_ONCE(page_private(page));
			if (order <= GMM_MAX_PAGE_ORDER) {
				pfn += 1UL << order;
				continue;
			}
		}
		used++;
		pfn++;
	}
	return used;
}

/* Free pages of orders below chunk_order in @zone: its holes. */
static unsigned long gmb_zone_holes(struct gmb *vb, struct zone *zone)
{
	unsigned long holes = 0;
	unsigned int order;

	for (order = 0; order < vb->chunk_order; order++)
		holes += READ_ONCE(zone->free_area[order].nr_free) << order;
	return holes;
}

/*
 * Whether @used pages migrated out of a block of @zone land in its holes
 * rather than in a whole free block, which may be one the host does not
 * back (it would back it again for them) or one we would rather balloon.
 */
bool gmb_zone_fits(struct gmb *vb, struct zone *zone, unsigned int used)
{
	return gmb_zone_holes(vb, zone) >= used + used / 8 + GMB_HOLES_SLACK;
}

/* A zone a block may come from: not DMA, with room above its high mark. */
static bool gmb_zone_spare(struct gmb *vb, struct zone *zone)
{
	return zone_idx(zone) != ZONE_DMA &&
	       zone_page_state(zone, NR_FREE_PAGES) >=
	       high_wmark_pages(zone) + 2 * gmb_blk_pages(vb);
}

/*
 * Whether block @pfn lies in one free buddy page (of chunk_order or
 * more); then *@reported says whether free page reporting has handed it
 * to the host.  A racy peek: alloc_contig_range() settles it.
 */
static bool gmb_block_free(struct gmb *vb, unsigned long pfn, bool *reported)
{
	unsigned int order;
	struct page *page;

	for (order = vb->chunk_order; order <= GMM_MAX_PAGE_ORDER; order++) {
		page = pfn_to_page(pfn & ~((1UL << order) - 1));
		if (PageBuddy(page) && READ_ONCE(page_private(page)) == order) {
			/* The bit itself: PageReported() asserts on compounds. */
			*reported = test_bit(PG_reported, gmm_page_flags(page));
			return true;
		}
	}
	return false;
}

/*
 * Whether free page @pfn holds a nonzero byte.  A frame the host does not
 * back reads as zeros (the host maps its zero page), so a page with data
 * is one the host backs.  A backed page of zeros (freed right after
 * init_on_alloc zeroed it, say) is taken for unbacked, which only moves
 * its block down the order.  The reads go through
 * copy_from_kernel_nofault(): the page is free, so KASAN has it poisoned,
 * and memory hot-remove may take it away meanwhile.
 *
 * With init_on_free every freed page was written with zeros, so the host
 * backs it and a read cannot tell: taken as written, which makes step 1
 * take any free block that reporting has not handed back.
 */
static bool gmb_page_written(unsigned long pfn)
{
	char *addr = page_address(pfn_to_page(pfn));
	unsigned int off, w;
	u64 buf[32];

	if (want_init_on_free())
		return true;

	for (off = 0; off < PAGE_SIZE; off += sizeof(buf)) {
		if (copy_from_kernel_nofault(buf, addr + off, sizeof(buf)))
			return false;
		for (w = 0; w < ARRAY_SIZE(buf); w++)
			if (buf[w])
				return true;
	}
	return false;
}

/*
 * Whether free block @pfn holds data anywhere (gmb_page_written()).
 *
 * Cost to the host: reading a 2 MiB range it does not back maps its huge
 * zero page there, and a later write by the guest then gets a 4 KiB page
 * rather than a huge one, until khugepaged collapses the range (free page
 * reporting, which discards the range, undoes it too).  Hence the cache
 * of blocks read as zeros (blk_zero), and at most GMB_ZERO_READS_MAX
 * such reads per step.
 */
static bool gmb_block_written(struct gmb *vb, unsigned long pfn)
{
	unsigned int i;

	for (i = 0; i < gmb_blk_pages(vb); i++)
		if (gmb_page_written(pfn + i))
			return true;
	return false;
}

/*
 * What making the block at @pfn would cost: its pages in use (what
 * alloc_contig_range() must migrate) in *@used, and returns those plus an
 * estimate of its free pages that read as zeros (the host does not back
 * them, so ballooning them gives it nothing): every GMB_SAMPLE_STRIDE-th
 * free page is read, at most 32 reads a block.  UINT_MAX when more than
 * @max_used pages are in use (the walk stops there), or more than half of
 * the pages read were zeros, unless @any_holes.  The reads are added to
 * vb->holes_read and vb->holes_zero in either case: whether strays, taken
 * from the same holes, would give the host anything.
 */
static unsigned int gmb_block_cost(struct gmb *vb, unsigned long pfn,
				   bool any_holes, unsigned int max_used,
				   unsigned int *used)
{
	unsigned long end = pfn + gmb_blk_pages(vb), run, i;
	unsigned int free = 0, read = 0, zeros = 0, order;
	struct page *page;

	*used = 0;
	while (pfn < end) {
		page = pfn_to_page(pfn);
		order = PageBuddy(page) ? READ_ONCE(page_private(page)) : 0;
		if (!PageBuddy(page) || order >= vb->chunk_order) {
			if (++(*used) > max_used)
				break;
			pfn++;
			continue;
		}
		run = min(1UL << order, end - pfn);
		for (i = 0; i < run; i++, free++) {
			if (free % GMB_SAMPLE_STRIDE)
				continue;
			read++;
			if (!gmb_page_written(pfn + i))
				zeros++;
		}
		pfn += run;
	}
	/*
	 * The holes read count for gmb_holes_backed() whether or not the
	 * block can be made: in a busy guest most blocks with holes have
	 * more than @max_used pages in use, and their holes are where the
	 * strays would come from.
	 */
	vb->holes_read += read;
	vb->holes_zero += zeros;
	if (*used > max_used || (!any_holes && zeros * 2 > read))
		return UINT_MAX;
	return *used + (read ? zeros * free / read : 0);
}

/* Take block @pfn whole: order-0 pages, each holding one reference. */
static struct page *gmb_take_range(struct gmb *vb, unsigned long pfn)
{
	if (gmm_alloc_contig_range(pfn, pfn + gmb_blk_pages(vb),
				   GFP_KERNEL | __GFP_NOWARN))
		return NULL;
	return pfn_to_page(pfn);
}

/* The block's balloon page count, racily: 0 means none of ours. */
static unsigned int gmb_blk_count_peek(struct gmb *vb, unsigned long blk)
{
	return READ_ONCE(vb->blk_count[blk]);
}

/*
 * Step 1: one pass over every block from take_cursor, for a free block
 * the host backs, on node @nid if it is not NUMA_NO_NODE.  Blocks that
 * read as zeros are remembered until they are seen in use.  *@whole
 * says whether the pass went over every block (rather than stopping at
 * GMB_ZERO_READS_MAX zero reads or GMB_TAKE_TRIES failed takes).
 */
static struct page *gmb_take_backed(struct gmb *vb, int nid, bool *whole)
{
	unsigned int zero_reads = 0, tries = 0;
	unsigned long i, blk, pfn;
	struct page *head;
	bool reported;

	*whole = false;
	for (i = 0; i < vb->nr_blks; i++) {
		if (tries == GMB_TAKE_TRIES)
			return NULL;
		if (!(i % GMB_RESCHED_BLOCKS))
			cond_resched();
		blk = (vb->take_cursor + i) % vb->nr_blks;
		pfn = blk << vb->chunk_order;
		if (gmb_blk_count_peek(vb, blk) || !gmb_block_ok(vb, blk))
			continue;
		if (!gmb_block_free(vb, pfn, &reported)) {
			__clear_bit(blk, vb->blk_zero);
			continue;
		}
		if (reported || test_bit(blk, vb->blk_zero))
			continue;
		if (nid != NUMA_NO_NODE && pfn_to_nid(pfn) != nid)
			continue;
		if (!gmb_zone_spare(vb, page_zone(pfn_to_page(pfn))))
			continue;
		if (!gmb_block_written(vb, pfn)) {
			__set_bit(blk, vb->blk_zero);
			if (++zero_reads == GMB_ZERO_READS_MAX)
				return NULL;
			continue;
		}
		tries++;
		head = gmb_take_range(vb, pfn);
		if (head) {
			vb->take_cursor = blk + 1;
			return head;
		}
	}
	*whole = true;
	return NULL;
}

/*
 * Step 2: going round from make_cursor, the first GMB_MAKE_CANDIDATES
 * blocks that could be made (no balloon page, at most chunk_make_pages
 * pages in use, a zone with holes for them, and free pages that mostly
 * hold data unless @any_holes), and of those the cheapest: the fewest
 * pages to migrate plus free pages the host does not back.  Each
 * alloc_contig_range() drains every CPU's lists, so a step makes at most
 * GMB_TAKE_TRIES of them.
 */
static struct page *gmb_make_block(struct gmb *vb, bool any_holes)
{
	unsigned int max_used = READ_ONCE(gmb_param_chunk_make_pages);
	unsigned int cost, best_cost, used, best_used, tries, found;
	unsigned long i, blk, pfn, best;
	struct page *head;
	struct zone *zone;
	bool reported;

	if (!max_used)
		return NULL;
	for (tries = 0; tries < GMB_TAKE_TRIES; tries++) {
		best = ULONG_MAX;
		best_cost = UINT_MAX;
		best_used = 0;
		found = 0;
		for (i = 0; i < vb->nr_blks && found < GMB_MAKE_CANDIDATES;
		     i++) {
			if (!(i % GMB_RESCHED_BLOCKS))
				cond_resched();
			blk = (vb->make_cursor + i) % vb->nr_blks;
			pfn = blk << vb->chunk_order;
			if (gmb_blk_count_peek(vb, blk) ||
			    !gmb_block_ok(vb, blk))
				continue;
			zone = page_zone(pfn_to_page(pfn));
			if (!gmb_zone_spare(vb, zone))
				continue;
			/* A whole free block is step 1's or step 4's. */
			if (gmb_block_free(vb, pfn, &reported))
				continue;
			cost = gmb_block_cost(vb, pfn, any_holes, max_used,
					      &used);
			if (cost == UINT_MAX || !gmb_zone_fits(vb, zone, used))
				continue;
			found++;
			if (cost < best_cost) {
				best = blk;
				best_cost = cost;
				best_used = used;
			}
		}
		vb->make_cursor = (vb->make_cursor + i) % vb->nr_blks;
		if (best == ULONG_MAX)
			return NULL;
		head = gmb_take_range(vb, best << vb->chunk_order);
		if (head) {
			gmb_count(vb, GMB_C_CHUNK_MADE, 1);
			gmb_count(vb, GMB_C_CHUNK_MAKE_MOVED, best_used);
			return head;
		}
		gmb_count(vb, GMB_C_CHUNK_MAKE_FAILED, 1);
		vb->make_failed = true;
	}
	return NULL;
}

/* Whether any zone a block may come from still has a step's holes. */
static bool gmb_holes_left(struct gmb *vb)
{
	struct zone *zone;
	int nid, z;

	/* for_each_populated_zone() needs symbols modules do not get. */
	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			zone = &NODE_DATA(nid)->node_zones[z];
			if (populated_zone(zone) && z != ZONE_DMA &&
			    gmb_zone_holes(vb, zone) >= GMB_HOLES_SLACK +
			    gmb_blk_pages(vb))
				return true;
		}
	}
	return false;
}

/* Step 4: whatever free block the allocator has, no reclaim. */
static struct page *gmb_take_any(struct gmb *vb, int nid, gfp_t gfp)
{
	struct page *head = NULL;

	if (nid != NUMA_NO_NODE)
		head = alloc_pages_node(nid, gfp | __GFP_THISNODE,
					vb->chunk_order);
	if (!head)
		head = alloc_pages(gfp, vb->chunk_order);
	if (head)
		split_page(head, vb->chunk_order);
	return head;
}

/*
 * Whether strays would come from holes the host backs, as far as the last
 * step 2 scan could tell: it read some, and no more than half of them
 * were zeros.  A scan that read none (a guest with whole free blocks and
 * kernel blocks only, as at boot) says no: the few holes there are lie in
 * kernel blocks, and a whole block keeps the host's huge pages whole.
 */
static bool gmb_holes_backed(struct gmb *vb)
{
	return vb->holes_read && vb->holes_zero * 2 <= vb->holes_read;
}

/* gmb_take_block() with blocks_sem held. */
static struct page *__gmb_take_block(struct gmb *vb, int nid, gfp_t gfp)
{
	struct page *head;
	bool whole, whole_any = true;

	lockdep_assert_held(&vb->blocks_sem);
	if (!vb->blk_zero) {
		/* movable=0: pinned pages never migrate, so no step 1 or 2. */
		head = gmb_take_any(vb, nid, gfp);
		if (head)
			gmb_count(vb, GMB_C_CHUNK_UNBACKED, 1);
		return head;
	}
	/*
	 * A scan of every block that found nothing is not repeated for the
	 * next GMB_SCAN_REST steps: with nothing to take or make (a guest
	 * whose free memory is all reported), it would cost each step a walk
	 * of every struct page in use.
	 */
	if (vb->backed_rest) {
		vb->backed_rest--;
	} else {
		head = gmb_take_backed(vb, nid, &whole);
		if (!head && nid != NUMA_NO_NODE)
			head = gmb_take_backed(vb, NUMA_NO_NODE, &whole_any);
		if (head) {
			gmb_count(vb, GMB_C_CHUNK_BACKED, 1);
			return head;
		}
		/* Rest only after a pass that saw every block. */
		if (whole && whole_any)
			vb->backed_rest = GMB_SCAN_REST;
	}
	/* chunk_make_pages=0: strays at once, as the parameter says. */
	if (!READ_ONCE(gmb_param_chunk_make_pages))
		return NULL;
	if (vb->make_rest) {
		vb->make_rest--;
	} else {
		vb->holes_read = 0;
		vb->holes_zero = 0;
		vb->make_failed = false;
		head = gmb_make_block(vb, false);
		if (head)
			return head;
		if (!vb->make_failed)
			vb->make_rest = GMB_SCAN_REST;
	}
	/*
	 * Strays only if making found nothing to make: a block it could not
	 * take (alloc_contig_range() failed, e.g. pages still on per-CPU
	 * lists right after a deflate) says nothing about the holes.
	 */
	if (!vb->make_failed && gmb_holes_left(vb) && gmb_holes_backed(vb))
		return NULL;
	head = gmb_take_any(vb, nid, gfp);
	if (head) {
		gmb_count(vb, GMB_C_CHUNK_UNBACKED, 1);
		return head;
	}
	return gmb_make_block(vb, true);
}

/**
 * gmb_take_block - a block for one chunk step, by the host-return rule
 * @vb: the balloon
 * @nid: the node numa.c chose, tried first, or NUMA_NO_NODE
 * @gfp: allocation flags for step 4 (no reclaim)
 *
 * Where the holes read as zeros too (a guest whose free memory the host
 * has all taken back: a deflated balloon, reporting), strays would give
 * the host nothing either, and leave the balloon scattered: step 4 comes
 * before them, and then a block made whatever its holes hold.
 *
 * Only size_work calls it, so the cursors and tallies need no lock; it
 * holds blocks_sem for read, so the per-block arrays keep their size.
 *
 * Return: the block's first page (order-0 pages, each holding one
 * reference, the balloon's), or NULL: fall back to 4 KiB strays.
 */
struct page *gmb_take_block(struct gmb *vb, int nid, gfp_t gfp)
{
	struct page *head;

	down_read(&vb->blocks_sem);
	head = __gmb_take_block(vb, nid, gfp);
	up_read(&vb->blocks_sem);
	return head;
}

/*
 * The balloon reached the host's target.  A block read as zeros may be
 * allocated, written and freed before a scan next sees it in use, and a
 * scan that found nothing says nothing about the next inflate, so that
 * starts with nothing remembered.  size_work only.
 */
void gmb_source_idle(struct gmb *vb)
{
	vb->backed_rest = 0;
	vb->make_rest = 0;
	down_read(&vb->blocks_sem);
	if (vb->blk_zero)
		bitmap_zero(vb->blk_zero, vb->nr_blks);
	up_read(&vb->blocks_sem);
}
