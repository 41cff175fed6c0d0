/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp tracepoints: one per compaction run and one per scanner
 * decision; one per unmapped page cache reclaim pass and run.
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

/* Why a run of the unmapped page cache policy ended (unmapped.c). */
enum gmm_um_stop {
	GMM_UM_STOP_TARGET,		/* back at or below the low mark */
	GMM_UM_STOP_NO_PROGRESS,	/* passes in a row reclaimed nothing */
	GMM_UM_STOP_DISABLED,		/* control turned off, or rmmod */
	GMM_UM_STOP_RECLAIM_MODE,	/* vm.zone_reclaim_mode is not 0 */
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

/* One __node_reclaim() call of the unmapped page cache policy. */
TRACE_EVENT(guestmm_klp_unmapped_pass,
	TP_PROTO(int nid, unsigned long nr_reclaimed, unsigned long unmapped,
		 unsigned long high, unsigned long low, u64 ns),
	TP_ARGS(nid, nr_reclaimed, unmapped, high, low, ns),
	TP_STRUCT__entry(
		__field(int, nid)
		__field(unsigned long, nr_reclaimed)
		__field(unsigned long, unmapped)
		__field(unsigned long, high)
		__field(unsigned long, low)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->nid = nid;
		__entry->nr_reclaimed = nr_reclaimed;
		__entry->unmapped = unmapped;
		__entry->high = high;
		__entry->low = low;
		__entry->ns = ns;
	),
	TP_printk("node=%d reclaimed=%lu unmapped=%lu high=%lu low=%lu ns=%llu",
		  __entry->nid, __entry->nr_reclaimed, __entry->unmapped,
		  __entry->high, __entry->low, __entry->ns)
);

/* One run: from above the high mark until it stopped, and why. */
TRACE_EVENT(guestmm_klp_unmapped_run,
	TP_PROTO(int nid, int reason, unsigned int passes,
		 unsigned long nr_reclaimed, unsigned long unmapped_before,
		 unsigned long unmapped_after, u64 ns),
	TP_ARGS(nid, reason, passes, nr_reclaimed, unmapped_before,
		unmapped_after, ns),
	TP_STRUCT__entry(
		__field(int, nid)
		__field(int, reason)
		__field(unsigned int, passes)
		__field(unsigned long, nr_reclaimed)
		__field(unsigned long, unmapped_before)
		__field(unsigned long, unmapped_after)
		__field(u64, ns)
	),
	TP_fast_assign(
		__entry->nid = nid;
		__entry->reason = reason;
		__entry->passes = passes;
		__entry->nr_reclaimed = nr_reclaimed;
		__entry->unmapped_before = unmapped_before;
		__entry->unmapped_after = unmapped_after;
		__entry->ns = ns;
	),
	TP_printk("node=%d stop=%s passes=%u reclaimed=%lu unmapped=%lu->%lu ns=%llu",
		  __entry->nid,
		  __print_symbolic(__entry->reason,
				   { GMM_UM_STOP_TARGET, "target" },
				   { GMM_UM_STOP_NO_PROGRESS, "no_progress" },
				   { GMM_UM_STOP_DISABLED, "disabled" },
				   { GMM_UM_STOP_RECLAIM_MODE, "reclaim_mode" }),
		  __entry->passes, __entry->nr_reclaimed,
		  __entry->unmapped_before, __entry->unmapped_after,
		  __entry->ns)
);

#endif /* _GUESTMM_KLP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE klp_trace
#include <trace/define_trace.h>
