/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp tracepoints: one per compaction run and one per scanner
 * decision.  /sys/kernel/tracing/events/guestmm_klp/
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

#endif /* _GUESTMM_KLP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE klp_trace
#include <trace/define_trace.h>
