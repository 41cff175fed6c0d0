/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between Debian's kernels (6.1, 6.12, and what
 * 7.x changed) that guestmm modules care about.  Nothing else belongs
 * here: every test of the kernel in the tree lives in this file, by
 * feature (a macro of the kernel's own) where one tells, else by version
 * through GMM_KERNEL_GE().
 */
#ifndef _GUESTMM_COMPAT_H
#define _GUESTMM_COMPAT_H

#include <linux/version.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page_reporting.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>
#include <linux/vmstat.h>
#include <uapi/linux/virtio_balloon.h>

/*
 * The balloon core: mm/balloon.c and <linux/balloon.h> (7.x: the core
 * inserts, finalizes and locks, and a driver's migratepage only tells the
 * host), or mm/balloon_compaction.c and <linux/balloon_compaction.h>
 * (6.x: the driver's migratepage does the bookkeeping under the exported
 * pages_lock).  balloon/core_balloon.c and balloon/core_compaction.c each
 * build for one of them.
 *
 * (sparse 0.6.4, Debian 12's, cannot parse __has_include; make lint runs
 * it on 6.x builds only, which take the second branch.)
 */
#ifndef __CHECKER__
#if __has_include(<linux/balloon.h>)
#define GMM_BALLOON_CORE_V2	1
#endif
#endif
#ifdef GMM_BALLOON_CORE_V2
#include <linux/balloon.h>
#else
#include <linux/balloon_compaction.h>
#endif

/* True when building against kernel maj.min or later. */
#define GMM_KERNEL_GE(maj, min)					\
	((maj) < LINUX_VERSION_MAJOR ||				\
	 ((maj) == LINUX_VERSION_MAJOR && (min) <= LINUX_VERSION_PATCHLEVEL))

#if GMM_KERNEL_GE(6, 17) && !defined(GMM_LINT_NEXT) /* make lint-next LINT_NEXT_IGNORE_GUARD=1 */
/*
 * 6.17 reworked movable_ops (no more __SetPageMovable) and later kernels
 * moved the balloon core to mm/balloon.c.  Not supported yet.
 */
#error "guestmm: kernels >= 6.17 are not supported (balloon/movable_ops API)"
#endif

/*
 * Largest buddy order, inclusive.  6.1: MAX_ORDER is exclusive; 6.4 made
 * it inclusive; 6.8 renamed it MAX_PAGE_ORDER.
 */
#if GMM_KERNEL_GE(6, 8)
#define GMM_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#elif GMM_KERNEL_GE(6, 4)
#define GMM_MAX_PAGE_ORDER	MAX_ORDER
#else
#define GMM_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/*
 * MIGRATE_SYNC_NO_COPY (no users left) was removed in 6.10.  Balloon
 * pages cannot be migrated without the copy step, so refuse that mode
 * where it exists, as the balloon core does.
 */
#if GMM_KERNEL_GE(6, 10)
#define gmm_migrate_no_copy(mode)	false
#else
#define gmm_migrate_no_copy(mode)	((mode) == MIGRATE_SYNC_NO_COPY)
#endif

/*
 * Free page reporting's order: where the core has
 * PAGE_REPORTING_ORDER_UNSPECIFIED (7.x), an order of 0 means order 0
 * itself, every free 4 KiB page; before, 0 meant "the core's default"
 * (pageblock_order).  report_order=0 keeps meaning the default.
 */
#ifdef PAGE_REPORTING_ORDER_UNSPECIFIED
#define gmm_report_order(order)	\
	((order) ? (order) : PAGE_REPORTING_ORDER_UNSPECIFIED)
#else
#define gmm_report_order(order)	(order)
#endif

/*
 * alloc_contig_range() for ordinary movable memory: its third argument
 * became acr_flags_t, where ACR_FLAGS_CMA (1) is what MIGRATE_MOVABLE (1)
 * would silently ask for.
 */
#ifdef ACR_FLAGS_NONE
#define gmm_alloc_contig_range(start, end, gfp)	\
	alloc_contig_range(start, end, ACR_FLAGS_NONE, gfp)
#else
#define gmm_alloc_contig_range(start, end, gfp)	\
	alloc_contig_range(start, end, MIGRATE_MOVABLE, gfp)
#endif

/*
 * The n-th page of a run of contiguous memory: nth_page() where it
 * exists; without it (7.x) the memmap of such a run is contiguous.
 */
#ifdef nth_page
#define gmm_nth_page(page, n)	nth_page(page, n)
#else
#define gmm_nth_page(page, n)	((page) + (n))
#endif

/*
 * The word of a struct page's flags, for test_bit(): page->flags is an
 * unsigned long, or (7.x) memdesc_flags_t, a struct of that one word.
 */
#define gmm_page_flags(page)	((unsigned long *)&(page)->flags)

/*
 * The migratetype of @pfn's pageblock, MIGRATE_ISOLATE while it is
 * isolated.  get_pfnblock_migratetype() is not exported, so this reads
 * the pageblock bits as mm/page_alloc.c does, for SPARSEMEM (every Debian
 * amd64 kernel): they live in the section's usage map.  A racy read, as
 * in the kernel: an isolating caller set the bits before it scanned the
 * block.  Where PAGEBLOCK_MIGRATETYPE_MASK exists (6.16 on), isolation
 * is a bit of its own (PB_migrate_isolate) beside three migratetype bits
 * (get_pfnblock_migratetype()); before, it is one of the migratetypes in
 * MIGRATETYPE_MASK (get_pfnblock_flags_mask()).  The assertions stop the
 * build on a layout this does not know.
 */
static inline int gmm_pfn_migratetype(unsigned long pfn)
{
	unsigned long *bitmap = section_to_usemap(__pfn_to_section(pfn));
	unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >>
				pageblock_order) * NR_PAGEBLOCK_BITS;
	unsigned long word = READ_ONCE(bitmap[bitidx / BITS_PER_LONG]) >>
			     (bitidx % BITS_PER_LONG);

	BUILD_BUG_ON(!IS_ENABLED(CONFIG_SPARSEMEM));
#ifdef PAGEBLOCK_MIGRATETYPE_MASK
	BUILD_BUG_ON(!IS_ENABLED(CONFIG_MEMORY_ISOLATION) ||
		     NR_PAGEBLOCK_BITS != 8);
	if (word & BIT(PB_migrate_isolate))
		return MIGRATE_ISOLATE;
	return word & PAGEBLOCK_MIGRATETYPE_MASK;
#else
	BUILD_BUG_ON(NR_PAGEBLOCK_BITS != 4 ||
		     MIGRATE_ISOLATE > MIGRATETYPE_MASK);
	return word & MIGRATETYPE_MASK;
#endif
}

/* A migration callback's success; the constant is gone in 7.x. */
#ifndef MIGRATEPAGE_SUCCESS
#define MIGRATEPAGE_SUCCESS	0
#endif

/*
 * Reclaim scanned and stolen by kswapd and by direct reclaim, in pages:
 * vm events on 6.x (PGSCAN_KSWAPD indexes all_vm_events()' array), node
 * stats in the 7.2 and 7.3 headers (PGSCAN_KSWAPD is a node_stat_item,
 * and indexing the event array with it compiles and reads another
 * counter).  No macro tells the two apart; the kernels between are
 * refused above.
 */
#if GMM_KERNEL_GE(7, 2)
#define gmm_reclaim_stat(ev, item)	global_node_page_state(item)
#else
#define gmm_reclaim_stat(ev, item)	((ev)[item])
#endif

/* Stats tags added to the uapi header in 6.12; sent on every kernel. */
#ifndef VIRTIO_BALLOON_S_OOM_KILL
#define VIRTIO_BALLOON_S_OOM_KILL	10
#define VIRTIO_BALLOON_S_ALLOC_STALL	11
#define VIRTIO_BALLOON_S_ASYNC_SCAN	12
#define VIRTIO_BALLOON_S_DIRECT_SCAN	13
#define VIRTIO_BALLOON_S_ASYNC_RECLAIM	14
#define VIRTIO_BALLOON_S_DIRECT_RECLAIM	15
#endif
#define GMM_BALLOON_S_NR		16

/*
 * virtio_find_vqs(): 6.11 replaced the callbacks[]/names[] arrays with an
 * array of struct virtqueue_info.  A NULL name still means "no such queue"
 * and does not consume a queue index.
 */
#define GMM_MAX_VQS	8

static inline int gmm_find_vqs(struct virtio_device *vdev, unsigned int nvqs,
			       struct virtqueue *vqs[],
			       vq_callback_t *callbacks[],
			       const char * const names[])
{
#if GMM_KERNEL_GE(6, 11)
	struct virtqueue_info info[GMM_MAX_VQS] = {};
	unsigned int i;

	if (WARN_ON(nvqs > GMM_MAX_VQS))
		return -EINVAL;
	for (i = 0; i < nvqs; i++) {
		info[i].name = names[i];
		info[i].callback = callbacks[i];
	}
	return virtio_find_vqs(vdev, nvqs, vqs, info, NULL);
#else
	return virtio_find_vqs(vdev, nvqs, vqs, callbacks, names, NULL);
#endif
}

/*
 * Shrinkers: 6.7 removed register_shrinker() in favour of
 * shrinker_alloc()/shrinker_register()/shrinker_free() with a
 * private_data pointer.  On older kernels we embed the shrinker in a
 * small wrapper that carries the private pointer.
 */
typedef unsigned long (*gmm_shrink_fn)(struct shrinker *s,
				       struct shrink_control *sc);

#if GMM_KERNEL_GE(6, 7)
static inline struct shrinker *gmm_shrinker_create(gmm_shrink_fn count,
						   gmm_shrink_fn scan,
						   void *priv,
						   const char *name)
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return ERR_PTR(-ENOMEM);
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	s->private_data = priv;
	shrinker_register(s);
	return s;
}

static inline void gmm_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}

static inline void *gmm_shrinker_priv(struct shrinker *s)
{
	return s->private_data;
}
#else
struct gmm_compat_shrinker {
	struct shrinker shrinker;
	void *priv;
};

static inline struct shrinker *gmm_shrinker_create(gmm_shrink_fn count,
						   gmm_shrink_fn scan,
						   void *priv,
						   const char *name)
{
	struct gmm_compat_shrinker *cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	int err;

	if (!cs)
		return ERR_PTR(-ENOMEM);
	cs->shrinker.count_objects = count;
	cs->shrinker.scan_objects = scan;
	cs->shrinker.seeks = DEFAULT_SEEKS;
	cs->priv = priv;
	err = register_shrinker(&cs->shrinker, "%s", name);
	if (err) {
		kfree(cs);
		return ERR_PTR(err);
	}
	return &cs->shrinker;
}

static inline void gmm_shrinker_destroy(struct shrinker *s)
{
	unregister_shrinker(s);
	kfree(container_of(s, struct gmm_compat_shrinker, shrinker));
}

static inline void *gmm_shrinker_priv(struct shrinker *s)
{
	return container_of(s, struct gmm_compat_shrinker, shrinker)->priv;
}
#endif

#endif /* _GUESTMM_COMPAT_H */
