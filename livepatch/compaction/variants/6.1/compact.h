/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: what compact_zone.c and migrate_scan.c share.
 *
 * Everything here mirrors Debian's 6.1 (6.1.176 .. 6.1.192; mm/internal.h
 * and mm/compaction.c): the private 6.1 layouts, known only to this
 * variant.
 */
#ifndef _GUESTMM_KLP_COMPACT_H
#define _GUESTMM_KLP_COMPACT_H

#include <linux/compaction.h>
#include <linux/list.h>
#include <linux/migrate_mode.h>
#include <linux/mmzone.h>
#include <linux/types.h>

#include "scanner.h"

/*
 * struct compact_control, mm/internal.h of 6.1.192 (lines 427-461).  The
 * kernel's isolate_migratepages_block(), compaction_alloc() and the
 * compaction tracepoints read this structure, so its layout is checked
 * against the running kernel's BTF at load time (btf_check.c).
 *
 * One field is renamed: 6.1 calls finish_pageblock "rescan".  Upstream
 * renamed it in "mm, compaction: rename compact_control->rescan to
 * finish_pageblock" (Mel Gorman, Jan 2023, v6.3, patch 1/4 of "Fix
 * excessive CPU usage during compaction"); same offset, same meaning to
 * the kernel's isolate_migratepages_block().
 */
struct compact_control {
	struct list_head freepages;
	struct list_head migratepages;
	unsigned int nr_freepages;
	unsigned int nr_migratepages;
	unsigned long free_pfn;
	unsigned long migrate_pfn;
	unsigned long fast_start_pfn;
	struct zone *zone;
	unsigned long total_migrate_scanned;
	unsigned long total_free_scanned;
	unsigned short fast_search_fail;
	short search_order;
	const gfp_t gfp_mask;
	int order;
	int migratetype;
	const unsigned int alloc_flags;
	const int highest_zoneidx;
	enum migrate_mode mode;
	bool ignore_skip_hint;
	bool no_set_skip_hint;
	bool ignore_block_suitable;
	bool direct_compaction;
	bool proactive_compaction;
	bool whole_zone;
	bool contended;
	bool finish_pageblock;		/* 6.1: "rescan" */
	bool alloc_contig;
};

/* mm/internal.h of 6.1.192 (line 467) */
struct capture_control {
	struct compact_control *cc;
	struct page *page;
};

/* mm/compaction.c of 6.1: isolate_migrate_t, the isolation result */
enum klpr_isolate_migrate {
	ISOLATE_ABORT,		/* Abort compaction now */
	ISOLATE_NONE,		/* No pages isolated, continue scanning */
	ISOLATE_SUCCESS,	/* Pages isolated, migrate */
};

/* mm/compaction.c of 6.1 (COMPACTION_HPAGE_ORDER with THP on) */
#define KLPR_COMPACTION_HPAGE_ORDER	HPAGE_PMD_ORDER

/* compact_zone.c: the function that replaces the kernel's compact_zone() */
enum compact_result gmm_klp_compact_zone(struct compact_control *cc,
					 struct capture_control *capc);

/* migrate_scan.c: our isolate_migratepages() */
enum klpr_isolate_migrate gmm_klp_isolate_migratepages(struct compact_control *cc);

#endif /* _GUESTMM_KLP_COMPACT_H */
