/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of guestmm_balloon, under events/guestmm_balloon/ in tracefs.
 * PFNs are Linux page frame numbers.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM guestmm_balloon

#if !defined(_GUESTMM_BALLOON_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _GUESTMM_BALLOON_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(guestmm_balloon_resize,
	TP_PROTO(unsigned int nr, unsigned long first_pfn,
		 unsigned int num_pages, unsigned int target),
	TP_ARGS(nr, first_pfn, num_pages, target),
	TP_STRUCT__entry(
		__field(unsigned int, nr)
		__field(unsigned long, first_pfn)
		__field(unsigned int, num_pages)
		__field(unsigned int, target)
	),
	TP_fast_assign(
		__entry->nr = nr;
		__entry->first_pfn = first_pfn;
		__entry->num_pages = num_pages;
		__entry->target = target;
	),
	TP_printk("nr=%u first_pfn=0x%lx num_pages=%u target=%u",
		  __entry->nr, __entry->first_pfn, __entry->num_pages,
		  __entry->target)
);

/* One host message worth of pages entered the balloon. */
DEFINE_EVENT(guestmm_balloon_resize, guestmm_balloon_inflate,
	TP_PROTO(unsigned int nr, unsigned long first_pfn,
		 unsigned int num_pages, unsigned int target),
	TP_ARGS(nr, first_pfn, num_pages, target)
);

/* One host message worth of pages left the balloon. */
DEFINE_EVENT(guestmm_balloon_resize, guestmm_balloon_deflate,
	TP_PROTO(unsigned int nr, unsigned long first_pfn,
		 unsigned int num_pages, unsigned int target),
	TP_ARGS(nr, first_pfn, num_pages, target)
);

/* A balloon page was migrated (ret 0) or the attempt was refused. */
TRACE_EVENT(guestmm_balloon_migrate,
	TP_PROTO(unsigned long old_pfn, unsigned long new_pfn, int ret),
	TP_ARGS(old_pfn, new_pfn, ret),
	TP_STRUCT__entry(
		__field(unsigned long, old_pfn)
		__field(unsigned long, new_pfn)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->old_pfn = old_pfn;
		__entry->new_pfn = new_pfn;
		__entry->ret = ret;
	),
	TP_printk("old_pfn=0x%lx new_pfn=0x%lx ret=%d",
		  __entry->old_pfn, __entry->new_pfn, __entry->ret)
);

/* The OOM notifier deflated nr pages. */
TRACE_EVENT(guestmm_balloon_oom_deflate,
	TP_PROTO(unsigned int nr, unsigned int num_pages),
	TP_ARGS(nr, num_pages),
	TP_STRUCT__entry(
		__field(unsigned int, nr)
		__field(unsigned int, num_pages)
	),
	TP_fast_assign(
		__entry->nr = nr;
		__entry->num_pages = num_pages;
	),
	TP_printk("nr=%u num_pages=%u", __entry->nr, __entry->num_pages)
);

#endif /* _GUESTMM_BALLOON_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
