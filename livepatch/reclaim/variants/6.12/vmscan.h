/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, variant 6.12: what the unmapped page cache control
 * (unmapped.c, unmapped_walk.c) needs from mm/vmscan.c and from header
 * inlines that reference unexported symbols.
 *
 * Everything here mirrors Debian's 6.12.95-1~bpo12+1 source (the MIRROR file
 * hashes each item).  Deviations from the original are marked
 * "guestmm:".
 */
#ifndef _GUESTMM_KLP_V612_VMSCAN_H
#define _GUESTMM_KLP_V612_VMSCAN_H

#include <linux/memcontrol.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/sched/sysctl.h>
#include <linux/swap.h>
#include <linux/types.h>

#include "ksyms.h"

/*
 * struct scan_control, mm/vmscan.c of 6.12.95 (lines 74-184), verbatim.
 * We hand one to the kernel's shrink_folio_list(); btf_check.c compares
 * the size and the members that function reads (bit offsets of the
 * bitfields included, variants/6.12/layout.c) with the running kernel.
 */
struct scan_control {
	/* How many pages shrink_list() should reclaim */
	unsigned long nr_to_reclaim;

	/*
	 * Nodemask of nodes allowed by the caller. If NULL, all nodes
	 * are scanned.
	 */
	nodemask_t	*nodemask;

	/*
	 * The memory cgroup that hit its limit and as a result is the
	 * primary target of this reclaim invocation.
	 */
	struct mem_cgroup *target_mem_cgroup;

	/*
	 * Scan pressure balancing between anon and file LRUs
	 */
	unsigned long	anon_cost;
	unsigned long	file_cost;

#ifdef CONFIG_MEMCG
	/* Swappiness value for proactive reclaim. Always use sc_swappiness()! */
	int *proactive_swappiness;
#endif

	/* Can active folios be deactivated as part of reclaim? */
#define DEACTIVATE_ANON 1
#define DEACTIVATE_FILE 2
	unsigned int may_deactivate:2;
	unsigned int force_deactivate:1;
	unsigned int skipped_deactivate:1;

	/* Writepage batching in laptop mode; RECLAIM_WRITE */
	unsigned int may_writepage:1;

	/* Can mapped folios be reclaimed? */
	unsigned int may_unmap:1;

	/* Can folios be swapped as part of reclaim? */
	unsigned int may_swap:1;

	/* Not allow cache_trim_mode to be turned on as part of reclaim? */
	unsigned int no_cache_trim_mode:1;

	/* Has cache_trim_mode failed at least once? */
	unsigned int cache_trim_mode_failed:1;

	/* Proactive reclaim invoked by userspace through memory.reclaim */
	unsigned int proactive:1;

	/*
	 * Cgroup memory below memory.low is protected as long as we
	 * don't threaten to OOM. If any cgroup is reclaimed at
	 * reduced force or passed over entirely due to its memory.low
	 * setting (memcg_low_skipped), and nothing is reclaimed as a
	 * result, then go back for one more cycle that reclaims the protected
	 * memory (memcg_low_reclaim) to avert OOM.
	 */
	unsigned int memcg_low_reclaim:1;
	unsigned int memcg_low_skipped:1;

	/* Shared cgroup tree walk failed, rescan the whole tree */
	unsigned int memcg_full_walk:1;

	unsigned int hibernation_mode:1;

	/* One of the zones is ready for compaction */
	unsigned int compaction_ready:1;

	/* There is easily reclaimable cold cache in the current node */
	unsigned int cache_trim_mode:1;

	/* The file folios on the current node are dangerously low */
	unsigned int file_is_tiny:1;

	/* Always discard instead of demoting to lower tier memory */
	unsigned int no_demotion:1;

	/* Allocation order */
	s8 order;

	/* Scan (total_size >> priority) pages at once */
	s8 priority;

	/* The highest zone to isolate folios for reclaim from */
	s8 reclaim_idx;

	/* This context's GFP mask */
	gfp_t gfp_mask;

	/* Incremented by the number of inactive pages that were scanned */
	unsigned long nr_scanned;

	/* Number of pages freed so far during a call to shrink_zones() */
	unsigned long nr_reclaimed;

	struct {
		unsigned int dirty;
		unsigned int unqueued_dirty;
		unsigned int congested;
		unsigned int writeback;
		unsigned int immediate;
		unsigned int file_taken;
		unsigned int taken;
	} nr;

	/* for recording the reclaimed slab by now */
	struct reclaim_state reclaim_state;
};

/*
 * mm/vmscan.c of 6.12.95: pgdat_watermark_boosted() (line 6657),
 * verbatim.  gcc inlines it into balance_pgdat() and wakeup_kswapd().
 */
static inline bool klpr_pgdat_watermark_boosted(pg_data_t *pgdat,
						int highest_zoneidx)
{
	int i;
	struct zone *zone;

	for (i = highest_zoneidx; i >= 0; i--) {
		zone = pgdat->node_zones + i;
		if (!managed_zone(zone))
			continue;

		if (zone->watermark_boost)
			return true;
	}

	return false;
}

/*
 * mm/vmscan.c of 6.12.95: pgdat_balanced() (line 6685), the function
 * unmapped.c replaces.  guestmm: sysctl_numa_balancing_mode and
 * zone_watermark_ok_safe() through klpe_; comments shortened.
 */
static inline bool klpr_pgdat_balanced(pg_data_t *pgdat, int order,
				       int highest_zoneidx)
{
	int i;
	unsigned long mark = -1;
	struct zone *zone;

	/* bottom-up: lower zones are more likely to meet watermarks */
	for (i = 0; i <= highest_zoneidx; i++) {
		zone = pgdat->node_zones + i;

		if (!managed_zone(zone))
			continue;

		if (klpe_sysctl_numa_balancing_mode &
		    NUMA_BALANCING_MEMORY_TIERING)
			mark = promo_wmark_pages(zone);
		else
			mark = high_wmark_pages(zone);
		if (klpe_zone_watermark_ok_safe(zone, order, mark,
						highest_zoneidx))
			return true;
	}

	/* no managed zone within highest_zoneidx: balanced by definition */
	if (mark == -1)
		return true;

	return false;
}

/*
 * include/linux/memcontrol.h of 6.12.95: mem_cgroup_lruvec() (line 741).
 * guestmm: root_mem_cgroup through klpe_.
 */
static inline struct lruvec *klpr_mem_cgroup_lruvec(struct mem_cgroup *memcg,
						    struct pglist_data *pgdat)
{
	struct mem_cgroup_per_node *mz;
	struct lruvec *lruvec;

	if (mem_cgroup_disabled()) {
		lruvec = &pgdat->__lruvec;
		goto out;
	}

	if (!memcg)
		memcg = klpe_root_mem_cgroup;

	mz = memcg->nodeinfo[pgdat->node_id];
	lruvec = &mz->lruvec;
out:
	/* a node can be onlined after the memcg was created */
	if (unlikely(lruvec->pgdat != pgdat))
		lruvec->pgdat = pgdat;
	return lruvec;
}

/*
 * include/linux/memcontrol.h of 6.12.95: mem_cgroup_unprotected() (line
 * 639).  guestmm: mem_cgroup_is_root() spelled out with klpe_.
 */
static inline bool klpr_mem_cgroup_unprotected(struct mem_cgroup *target,
					       struct mem_cgroup *memcg)
{
	return mem_cgroup_disabled() || memcg == klpe_root_mem_cgroup ||
		memcg == target;
}

/*
 * include/linux/memcontrol.h of 6.12.95: mem_cgroup_below_low() and
 * mem_cgroup_below_min() (lines 651-669).  guestmm: one function, @low
 * selects which.
 */
static inline bool klpr_mem_cgroup_below(struct mem_cgroup *target,
					 struct mem_cgroup *memcg, bool low)
{
	unsigned long protection;

	if (klpr_mem_cgroup_unprotected(target, memcg))
		return false;

	protection = low ? READ_ONCE(memcg->memory.elow) :
			   READ_ONCE(memcg->memory.emin);
	return protection >= page_counter_read(&memcg->memory);
}

/* 6.12's folio_isolate_lru() returns bool (6.1's: 0 or -EBUSY). */
static inline bool klpr_folio_isolate_lru(struct folio *folio)
{
	return klpe_folio_isolate_lru(folio);
}

#endif /* _GUESTMM_KLP_V612_VMSCAN_H */
