/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp tracepoints: one per compaction run and one per scanner
 * decision; one per pass of the unmapped page cache control in kswapd.
 * /sys/kernel/tracing/events/guestmm_klp/
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM guestmm_klp

#if !defined(_GUESTMM_KLP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GUESTMM_KLP_TRACE_H

#include <linux/mmzone.h>
#include <linux/tracepoint.h>

#ifndef _GUESTMM_KLP_TRACE_ONCE
#define _GUESTMM_KLP_TRACE_ONCE
/* What the linear scan did with one pageblock. */
enum gmm_klp_block_decision {
	GMM_KLP_BLOCK_HOLE,		/* no valid pages, or a memory hole */
	GMM_KLP_BLOCK_SKIP_HINT,	/* skip bit set */
	GMM_KLP_BLOCK_UNSUITABLE,	/* not a source for this request */
	GMM_KLP_BLOCK_FAST,		/* isolating: chosen by the search */
	GMM_KLP_BLOCK_LINEAR,		/* isolating: reached linearly */
};

/* Why a pass of the unmapped page cache control ended (unmapped.c). */
enum gmm_um_stop {
	GMM_UM_STOP_TARGET,		/* reclaimed what it set out to */
	GMM_UM_STOP_BUDGET,		/* scanned as much as a pass may */
	GMM_UM_STOP_EXHAUSTED,		/* walked every eligible list */
	GMM_UM_STOP_WATERMARK,		/* a zone fell below its watermark */
	GMM_UM_STOP_KTHREAD,		/* kswapd is stopping or freezing */
	GMM_UM_STOP_DISABLED,		/* control off, or the patch leaving */
	GMM_UM_STOP_RECLAIM_MODE,	/* vm.zone_reclaim_mode is not 0 */
	GMM_UM_NR_STOP
};

/* What one pass did (unmapped.c, unmapped_walk.c), in pages. */
struct gmm_um_pass_stats {
	int nid;
	int stop;			/* enum gmm_um_stop, -1 while running */
	bool lru_gen;			/* walked MGLRU generations */
	unsigned long scanned;		/* looked at on the file lists */
	unsigned long isolated;		/* handed to shrink_folio_list() */
	unsigned long reclaimed;	/* freed by it */
	unsigned long skipped_mapped;
	unsigned long skipped_dirty;
	unsigned long skipped_writeback;
	unsigned long skipped_locked;
	unsigned long skipped_other;	/* tier, zone, being isolated, ... */
	unsigned long raced;		/* changed between look and isolation */
	unsigned long protected_memcgs;	/* below memory.min/low, not walked */
	unsigned long unmapped_before;
	unsigned long unmapped_after;
	unsigned long high;
	unsigned long low;
	u64 ns;
};
#endif

TRACE_EVENT(guestmm_klp_run,
	TP_PROTO(struct zone *zone, int order, int ret,
		 unsigned long migrate_scanned, unsigned long free_scanned),
	TP_ARGS(zone, order, ret, migrate_scanned, free_scanned),
	TP_STRUCT__entry(
		__field(int, nid)
		__field(int, zid)
		__field(int, order)
		__field(int, ret)
		__field(unsigned long, migrate_scanned)
		__field(unsigned long, free_scanned)
	),
	TP_fast_assign(
		__entry->nid = zone_to_nid(zone);
		__entry->zid = zone_idx(zone);
		__entry->order = order;
		__entry->ret = ret;
		__entry->migrate_scanned = migrate_scanned;
		__entry->free_scanned = free_scanned;
	),
	TP_printk("node=%d zone=%d order=%d ret=%d migrate_scanned=%lu free_scanned=%lu",
		  __entry->nid, __entry->zid, __entry->order, __entry->ret,
		  __entry->migrate_scanned, __entry->free_scanned)
);

TRACE_EVENT(guestmm_klp_fast_search,
	TP_PROTO(struct zone *zone, int order, bool found, unsigned long pfn,
		 unsigned int nr_scanned, unsigned int candidates,
		 unsigned long cost),
	TP_ARGS(zone, order, found, pfn, nr_scanned, candidates, cost),
	TP_STRUCT__entry(
		__field(int, nid)
		__field(int, zid)
		__field(int, order)
		__field(bool, found)
		__field(unsigned long, pfn)
		__field(unsigned int, nr_scanned)
		__field(unsigned int, candidates)
		__field(unsigned long, cost)
	),
	TP_fast_assign(
		__entry->nid = zone_to_nid(zone);
		__entry->zid = zone_idx(zone);
		__entry->order = order;
		__entry->found = found;
		__entry->pfn = pfn;
		__entry->nr_scanned = nr_scanned;
		__entry->candidates = candidates;
		__entry->cost = cost;
	),
	TP_printk("node=%d zone=%d order=%d found=%d pfn=0x%lx scanned=%u candidates=%u cost=%lu",
		  __entry->nid, __entry->zid, __entry->order, __entry->found,
		  __entry->pfn, __entry->nr_scanned, __entry->candidates,
		  __entry->cost)
);

TRACE_EVENT(guestmm_klp_block,
	TP_PROTO(unsigned long pfn, int decision),
	TP_ARGS(pfn, decision),
	TP_STRUCT__entry(
		__field(unsigned long, pfn)
		__field(int, decision)
	),
	TP_fast_assign(
		__entry->pfn = pfn;
		__entry->decision = decision;
	),
	TP_printk("pfn=0x%lx decision=%s", __entry->pfn,
		  __print_symbolic(__entry->decision,
				   { GMM_KLP_BLOCK_HOLE, "hole" },
				   { GMM_KLP_BLOCK_SKIP_HINT, "skip_hint" },
				   { GMM_KLP_BLOCK_UNSUITABLE, "unsuitable" },
				   { GMM_KLP_BLOCK_FAST, "isolate_fast" },
				   { GMM_KLP_BLOCK_LINEAR, "isolate_linear" }))
);

/* One pass of the unmapped page cache control, in kswapd. */
TRACE_EVENT(guestmm_klp_unmapped_pass,
	TP_PROTO(const struct gmm_um_pass_stats *st),
	TP_ARGS(st),
	TP_STRUCT__entry(
		__field(int, nid)
		__field(int, stop)
		__field(bool, lru_gen)
		__field(unsigned long, scanned)
		__field(unsigned long, reclaimed)
		__field(unsigned long, skipped_mapped)
		__field(unsigned long, skipped_dirty)
		__field(unsigned long, unmapped_before)
		__field(unsigned long, unmapped_after)
		__field(unsigned long, high)
		__field(unsigned long, low)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->nid = st->nid;
		__entry->stop = st->stop;
		__entry->lru_gen = st->lru_gen;
		__entry->scanned = st->scanned;
		__entry->reclaimed = st->reclaimed;
		__entry->skipped_mapped = st->skipped_mapped;
		__entry->skipped_dirty = st->skipped_dirty;
		__entry->unmapped_before = st->unmapped_before;
		__entry->unmapped_after = st->unmapped_after;
		__entry->high = st->high;
		__entry->low = st->low;
		__entry->ns = st->ns;
	),
	TP_printk("node=%d lru_gen=%d stop=%s scanned=%lu reclaimed=%lu skipped_mapped=%lu skipped_dirty=%lu unmapped=%lu->%lu high=%lu low=%lu ns=%llu",
		  __entry->nid, __entry->lru_gen,
		  __print_symbolic(__entry->stop,
				   { GMM_UM_STOP_TARGET, "target" },
				   { GMM_UM_STOP_BUDGET, "budget" },
				   { GMM_UM_STOP_EXHAUSTED, "exhausted" },
				   { GMM_UM_STOP_WATERMARK, "watermark" },
				   { GMM_UM_STOP_KTHREAD, "kthread" },
				   { GMM_UM_STOP_DISABLED, "disabled" },
				   { GMM_UM_STOP_RECLAIM_MODE, "reclaim_mode" }),
		  __entry->scanned, __entry->reclaimed,
		  __entry->skipped_mapped, __entry->skipped_dirty,
		  __entry->unmapped_before, __entry->unmapped_after,
		  __entry->high, __entry->low, __entry->ns)
);

#endif /* _GUESTMM_KLP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE klp_trace
#include <trace/define_trace.h>
