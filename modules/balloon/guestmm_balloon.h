/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the guestmm_balloon source files.
 *
 * Units: all page counts that talk to the host (num_pages, target, pfns)
 * are in 4 KiB balloon pages (VIRTIO_BALLOON_PFN_SHIFT); on x86 that is
 * one Linux page.
 */
#ifndef _GUESTMM_BALLOON_H
#define _GUESTMM_BALLOON_H

#include <linux/atomic.h>
#include <linux/migrate_mode.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/notifier.h>
#include <linux/page_reporting.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/virtio.h>
#include <linux/virtio_balloon.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "core.h"

#define GMB_PAGES_PER_PAGE	((unsigned int)(PAGE_SIZE >> VIRTIO_BALLOON_PFN_SHIFT))
/* Upper bound of the batch_pages parameter: PFNs per host message. */
#define GMB_PFNS_MAX		512
#define GMB_PFNS_DEFAULT	256
/* migrate_batch: migrations told to the host per message (migrate.c). */
#define GMB_MIG_BATCH_DEFAULT	256
#define GMB_MIG_FLUSH_MS	20
#define GMB_REPORT_DELAY_MAX_MS	600000
#define GMB_OOM_PAGES_DEFAULT	256
#define GMB_OOM_PAGES_MAX	65536
#define GMB_OOM_PRIORITY	80
/* floor_mb: -1 = automatic (see pressure.c), 0 = none, else MiB. */
#define GMB_FLOOR_AUTO		(-1)
#define GMB_FLOOR_MAX_MB	(1 << 24)

/* Free page hinting hands the host blocks of the largest buddy order. */
#define GMB_HINT_ORDER		GMM_MAX_PAGE_ORDER
#define GMB_HINT_PAGES		(1UL << GMB_HINT_ORDER)
#define GMB_HINT_GFP		(__GFP_NORETRY | __GFP_NOWARN | __GFP_NOMEMALLOC)

/* Back-off when allocation fails ("out of puff"). */
#define GMB_PUFF_DELAY_MIN_MS	200
#define GMB_PUFF_DELAY_MAX_MS	5000

/* Deflate on OOM (pressure.c). */
#define GMB_OOM_EPISODE_MS	1000	/* OOM calls closer than this: one episode */
#define GMB_OOM_STEP_SHIFT_MAX	6	/* a step grows up to 64 x oom_pages */
#define GMB_BACKOFF_MIN_MS	2000	/* re-inflation waits after an episode */
#define GMB_BACKOFF_MAX_MS	60000

/* Balloon defrag (defrag.c). */
#define GMB_DEFRAG_INTERVAL_MAX_MS	3600000
#define GMB_DEFRAG_INTERVAL_DEFAULT_MS	1000
#define GMB_DEFRAG_BUDGET_DEFAULT_MS	20
#define GMB_DEFRAG_BUDGET_MAX_MS	10000
#define GMB_DEFRAG_MIN_DEFAULT		256
/* Making a block for chunk inflation (source.c gmb_make_block()). */
#define GMB_MAKE_PAGES_DEFAULT		256
/* List entries one dequeue passes over at most, interrupts off (chunk.c). */
#define GMB_DEQUEUE_SKIP_MAX		4096

/* Virtqueue order is fixed by the device: absent queues are skipped. */
enum gmb_vq {
	GMB_VQ_INFLATE,
	GMB_VQ_DEFLATE,
	GMB_VQ_STATS,
	GMB_VQ_FREE_PAGE,
	GMB_VQ_REPORTING,
	GMB_VQ_MAX
};

/* Counters exported through debugfs (counters.h). */
enum gmb_counter {
#define GMB_COUNTER(id, name) GMB_C_##id,
#include "counters.h"
#undef GMB_COUNTER
	GMB_NR_COUNTERS
};

/* Per-node counts (numa.c, debugfs "nodes"). */
enum gmb_node_stat {
	GMB_N_PAGES,		/* balloon pages on the node now */
	GMB_N_INFLATED,		/* pages inflation took from it */
	GMB_N_DEFLATED,		/* pages given back to it (not on OOM) */
	GMB_N_OOM_DEFLATED,	/* pages given back to it on OOM */
	GMB_N_MIGRATED_IN,	/* balloon pages migrated to it from another */
	GMB_N_NR
};

/* Why pages leave the balloon: which may go, and how they are counted. */
enum gmb_leak_why {
	GMB_LEAK_HOST,		/* the host's target: any page, strays first */
	GMB_LEAK_OOM,		/* deflate on OOM (pressure.c) */
	GMB_LEAK_DEFRAG,	/* strays only: no page of a complete block */
};

struct gmb {
	struct virtio_device *vdev;
	struct virtqueue *inflate_vq;
	struct virtqueue *deflate_vq;
	struct virtqueue *stats_vq;
	struct virtqueue *free_page_vq;
	struct virtqueue *reporting_vq;

	/* Snapshot of the movable parameter at probe time. */
	bool movable;
	/* Set first thing in remove: long runs (defrag) stop early. */
	bool stopping;
	/* MemTotal shrinks with the balloon unless DEFLATE_ON_OOM. */
	bool adjust_managed;

	/*
	 * Snapshot of chunk_order at probe: 0 (4 KiB pages only), or
	 * pageblock_order, when the balloon takes whole aligned blocks
	 * (chunk.c).  blk_count[pfn >> chunk_order] is the number of
	 * balloon pages in each block; a block holding 1 << chunk_order of
	 * them is "complete".  Both under gmb_blocks_lock().  The
	 * per-block arrays (this one, defrag_skip, blk_zero) and nr_blks
	 * change size only under blocks_sem (blocks.c).
	 */
	unsigned int chunk_order;
	u16 *blk_count;
	unsigned long nr_blks;
	unsigned long complete_blocks;
	struct rw_semaphore blocks_sem;
	struct notifier_block mem_nb;	/* memory hot-add (blocks.c) */

	/* Host-driven resizing; runs on system_freezable_wq. */
	struct delayed_work size_work;
	unsigned int puff_delay_ms;
	struct work_struct stats_work;

	/* stop_update keeps interrupts from queueing work during teardown. */
	spinlock_t stop_update_lock;
	bool stop_update;
	/* Host target (num_pages config field) as last read by size_work. */
	unsigned int target;

	/* Woken by the inflate, deflate and reporting vq callbacks. */
	wait_queue_head_t acked;

	/*
	 * balloon_lock serialises fill, leak and migration, and protects
	 * num_pages, pfns[] and pinned_pages.
	 */
	struct mutex balloon_lock;
	unsigned int num_pages;
	/* movable=1: the balloon core's pages (core.h). */
	struct balloon_dev_info b_dev_info;
#ifdef GMM_BALLOON_CORE_V2
	spinlock_t blocks_lock;		/* gmb_blocks_lock() */
#endif
	/* movable=0: PageOffline pages that compaction cannot see. */
	struct list_head pinned_pages;
	unsigned int num_pfns;
	__virtio32 pfns[GMB_PFNS_MAX];

	/*
	 * Migrations not yet told to the host (migrate.c), under
	 * balloon_lock: mig[GMB_MIG_IN] holds new frames to inflate,
	 * mig[GMB_MIG_OUT] old frames to deflate, GMB_PAGES_PER_PAGE pfns
	 * per page.  A frame is never in both.  mig_sync: tell at once
	 * (MUST_TELL_HOST negotiated).
	 */
	struct gmb_mig_queue {
		unsigned int nr;	/* pages */
		__virtio32 pfns[GMB_PFNS_MAX];
	} mig[2];
	bool mig_sync;
	struct delayed_work mig_work;

	struct virtio_balloon_stat stats[GMM_BALLOON_S_NR];
	/* Scratch for all_vm_events(); kept off the stack. */
	unsigned long vm_events[NR_VM_EVENT_ITEMS];

	/* Free page hinting (VIRTIO_BALLOON_F_FREE_PAGE_HINT). */
	struct workqueue_struct *hint_wq;
	struct work_struct hint_work;
	unsigned long config_read_bitmap;
	spinlock_t hint_lock;		/* hint_pages, nr_hint_blocks */
	struct list_head hint_pages;
	unsigned long nr_hint_blocks;
	u32 cmd_id_received_cache;
	__virtio32 cmd_id_active;
	__virtio32 cmd_id_stop;
	struct shrinker *hint_shrinker;

	/*
	 * Deflate on OOM (VIRTIO_BALLOON_F_DEFLATE_ON_OOM), pressure.c.  The
	 * notifier side runs under the kernel's oom_lock; size_work reads
	 * and writes the fields it shares with it with READ/WRITE_ONCE.
	 */
	struct notifier_block oom_nb;
	unsigned long oom_last;		/* jiffies of the last OOM call */
	unsigned int oom_shift;		/* step = oom_pages << oom_shift */
	unsigned int backoff_ms;	/* current re-inflation back-off */
	unsigned long reinflate_after;	/* jiffies */
	/* Pages the last episode deflated that inflation has not retaken. */
	atomic_long_t oom_held;
	unsigned long oom_resumed_at;	/* jiffies | 1 inflation resumed, or 0 */

	/* Free page reporting (VIRTIO_BALLOON_F_REPORTING). */
	struct page_reporting_dev_info pr_dev_info;
	bool reporting_registered;
	unsigned long report_last;	/* jiffies of the last report call */
	unsigned long report_hold_until;	/* report_delay_ms (report.c) */

	/*
	 * Balloon defrag (defrag.c): defrag_lock serialises runs and guards
	 * defrag_skip, the blocks that failed since the last full pass.
	 */
	struct mutex defrag_lock;
	unsigned long *defrag_skip;
	struct delayed_work defrag_work;
	/*
	 * Where chunk steps look next (source.c), size_work only; blk_zero:
	 * free blocks that read as zeros, until they are seen in use.
	 */
	unsigned long make_cursor;
	unsigned long take_cursor;
	unsigned long *blk_zero;
	/* Free pages the last step-2 scan read, and those that were zeros. */
	unsigned long holes_read;
	unsigned long holes_zero;
	/* The last step-2 scan found blocks but could not take them. */
	bool make_failed;
	/* Steps left before a fruitless step-1 or step-2 scan is redone. */
	unsigned int backed_rest;
	unsigned int make_rest;

	/*
	 * NUMA (numa.c): per-node counts, nr_node_ids of them; inflation's
	 * weights and round-robin credits, size_work only.
	 */
	atomic_long_t (*node_stats)[GMB_N_NR];
	unsigned long *numa_weight;
	long *numa_credit;
	unsigned long numa_total;

	struct dentry *debugfs_dir;
	atomic64_t counters[GMB_NR_COUNTERS];
};

/*
 * Module parameters, each defined beside the code that reads it: main.c
 * (movable, chunk_order: read at probe), inflate.c (batch_pages,
 * floor_mb), host.c (migrate_batch), pressure.c (oom_pages), report.c
 * (report_order, report_delay_ms), defrag.c (defrag_*), source.c
 * (chunk_make_pages), numa.c (numa_inflate).
 */
extern bool gmb_param_movable;
extern unsigned int gmb_param_chunk_order;
extern unsigned int gmb_param_batch_pages;
extern int gmb_param_floor_mb;
extern unsigned int gmb_param_migrate_batch;
extern unsigned int gmb_param_oom_pages;
extern unsigned int gmb_param_report_order;
extern unsigned int gmb_param_report_delay_ms;
extern unsigned int gmb_param_defrag_interval_ms;
extern unsigned int gmb_param_defrag_budget_ms;
extern unsigned int gmb_param_defrag_min_pages;
extern unsigned int gmb_param_chunk_make_pages;

static inline void gmb_count(struct gmb *vb, enum gmb_counter c, long n)
{
	atomic64_add(n, &vb->counters[c]);
}

/* Pages in one chunk block (chunk_order > 0). */
/*
 * The spinlock that guards the block counts (blk_count[], nr_blks,
 * complete_blocks): on the 6.x core its pages_lock, which chunk mode's
 * movable_operations (chunk_mops.c) need for the list they share with
 * the core; on 7.x a lock of the driver's own.  See blocks.c for the
 * lock order.
 */
static inline spinlock_t *gmb_blocks_lock(struct gmb *vb)
{
#ifdef GMM_BALLOON_CORE_V2
	return &vb->blocks_lock;
#else
	return &vb->b_dev_info.pages_lock;
#endif
}

/* A private list of pages (balloon_page_push()/pop(), gone in 7.x). */
static inline void gmb_page_push(struct list_head *pages, struct page *page)
{
	list_add(&page->lru, pages);
}

static inline struct page *gmb_page_pop(struct list_head *pages)
{
	struct page *page = list_first_entry_or_null(pages, struct page, lru);

	if (page)
		list_del(&page->lru);
	return page;
}

static inline unsigned int gmb_blk_pages(struct gmb *vb)
{
	return 1U << vb->chunk_order;
}

static inline bool gmb_has(struct gmb *vb, unsigned int fbit)
{
	return virtio_has_feature(vb->vdev, fbit);
}

/*
 * The files call each other downwards only, in this order (each may call
 * those below it): main.c, debugfs.c; defrag.c; pressure.c; inflate.c;
 * source.c; chunk_mops.c; chunk.c; core.c, core_compaction.c,
 * core_balloon.c (core.h); migrate.c; host.c; report.c, stats.c, numa.c, blocks.c.
 */

/* host.c */
void gmb_host_init(struct gmb *vb);
void gmb_host_bind(struct gmb *vb);
struct gmb *gmb_host_lock(void);
void gmb_host_unlock(void);
u32 gmb_read_target(struct gmb *vb);
s64 gmb_towards_target(struct gmb *vb);
void gmb_write_actual(struct gmb *vb);
void gmb_queue_work(struct gmb *vb, struct delayed_work *dw,
		    unsigned long delay);
void gmb_queue_work_later(struct gmb *vb, struct delayed_work *dw,
			  unsigned long delay);
void gmb_resize_later(struct gmb *vb, unsigned long delay);
void gmb_vq_ack(struct virtqueue *vq);
void gmb_send_pfns(struct gmb *vb, struct virtqueue *vq,
		   __virtio32 *pfns, unsigned int num);
void gmb_tell_host(struct gmb *vb, struct virtqueue *vq);
void gmb_set_page_pfns(struct gmb *vb, __virtio32 pfns[], struct page *page);
enum { GMB_MIG_IN, GMB_MIG_OUT };
void gmb_migrate_flush(struct gmb *vb);
void gmb_migrate_tell(struct gmb *vb, struct page *newpage,
		      struct page *page);
void gmb_migrate_stop(struct gmb *vb);

/* inflate.c */
unsigned int gmb_floor_allow(struct gmb *vb, unsigned int num);
unsigned long gmb_floor_pages(struct gmb *vb);
unsigned int gmb_fill(struct gmb *vb, unsigned int num, bool *out_of_puff);
void gmb_add_block(struct gmb *vb, struct page *head);
unsigned int gmb_give_back(struct gmb *vb, struct list_head *pages,
			   enum gmb_leak_why why);
unsigned int __gmb_leak(struct gmb *vb, unsigned int num,
			enum gmb_leak_why why, const nodemask_t *nodes);
unsigned int gmb_leak(struct gmb *vb, unsigned int num,
		      enum gmb_leak_why why, const nodemask_t *nodes);
void gmb_leak_all(struct gmb *vb);

/* migrate.c */
int gmb_migrate_begin(struct gmb *vb, struct page *newpage, struct page *page,
		      enum migrate_mode mode);
void gmb_migrate_end(struct gmb *vb, struct page *newpage, struct page *page);

/* chunk_mops.c */
void gmb_chunk_enqueue_block(struct gmb *vb, struct page *head);
void gmb_chunk_enqueue(struct gmb *vb, struct page *page);
unsigned int gmb_chunk_dequeue(struct gmb *vb, struct list_head *pages,
			       unsigned int n, bool strays_only,
			       const nodemask_t *nodes);
unsigned int gmb_chunk_dequeue_block(struct gmb *vb, struct list_head *pages,
				     unsigned long blk, unsigned int max);

/* chunk.c */
bool __gmb_chunk_track(struct gmb *vb, struct page *page, int delta);
bool gmb_in_complete_block(struct gmb *vb, struct page *page);
unsigned long gmb_chunk_sparsest(struct gmb *vb);
unsigned int gmb_chunk_count(struct gmb *vb, unsigned long blk);
void gmb_chunk_track(struct gmb *vb, struct page *page, int delta);
unsigned long gmb_chunk_stray_pages(struct gmb *vb);
void gmb_chunk_show_blocks(struct gmb *vb, struct seq_file *m);

/* blocks.c */
int gmb_blocks_init(struct gmb *vb);
void gmb_blocks_exit(struct gmb *vb);

/* defrag.c */
void gmb_defrag_init(struct gmb *vb);
void gmb_defrag_start(struct gmb *vb);
void gmb_defrag_schedule(struct gmb *vb, unsigned long delay);
int gmb_defrag(struct gmb *vb, unsigned int max_blocks, unsigned int budget_ms);

/* source.c */
void gmb_source_idle(struct gmb *vb);
bool gmb_block_ok(struct gmb *vb, unsigned long blk);
unsigned int gmb_block_in_use(struct gmb *vb, unsigned long pfn);
bool gmb_zone_fits(struct gmb *vb, struct zone *zone, unsigned int used);
struct page *gmb_take_block(struct gmb *vb, int nid, gfp_t gfp);

/* stats.c */
void gmb_stats_request(struct virtqueue *vq);
void gmb_stats_work(struct work_struct *work);
int gmb_stats_prime(struct gmb *vb);

/* report.c */
int gmb_reporting_start(struct gmb *vb);
void gmb_reporting_stop(struct gmb *vb);
int gmb_hint_init(struct gmb *vb);
void gmb_hint_exit(struct gmb *vb);
void gmb_hint_config_changed(struct gmb *vb);
void gmb_hint_return_all(struct gmb *vb);

/* numa.c */
int gmb_numa_init(struct gmb *vb);
void gmb_numa_exit(struct gmb *vb);
bool gmb_numa_plan(struct gmb *vb);
int gmb_numa_next(struct gmb *vb, unsigned int pages);
void gmb_numa_undo(struct gmb *vb, int nid, unsigned int pages);
const nodemask_t *gmb_numa_short_nodes(nodemask_t *mask);
void gmb_numa_track(struct gmb *vb, struct page *page, int delta, bool oom);
void gmb_numa_migrate(struct gmb *vb, struct page *newpage, struct page *page);
void gmb_numa_show(struct gmb *vb, struct seq_file *m);

/* pressure.c */
int gmb_oom_register(struct gmb *vb);
void gmb_oom_unregister(struct gmb *vb);
unsigned long gmb_reinflate_wait(struct gmb *vb, unsigned long num);
void gmb_reinflate_done(struct gmb *vb);
void gmb_reinflated(struct gmb *vb, unsigned long pages);

/* debugfs.c */
void gmb_debugfs_init(struct gmb *vb);
void gmb_debugfs_exit(struct gmb *vb);

#endif /* _GUESTMM_BALLOON_H */
