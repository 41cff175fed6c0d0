/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, variant 6.12: what compact_zone.c, migrate_scan.c and
 * layout.c share.
 *
 * Everything here mirrors Debian's 6.12 builds (bookworm-backports
 * 6.12.95+deb12, trixie 6.12.118+deb13: mm/internal.h and
 * mm/compaction.c are the same in both for what is copied here).
 */
#ifndef _GUESTMM_KLP_V612_COMPACT_H
#define _GUESTMM_KLP_V612_COMPACT_H

#include <linux/list.h>
#include <linux/migrate_mode.h>
#include <linux/mmzone.h>
#include <linux/sched.h>
#include <linux/types.h>
/* after mmzone.h and sched.h: 6.12's compaction.h needs both */
#include <linux/compaction.h>

#include "scanner.h"

/*
 * struct compact_control, 6.12 mm/internal.h (line 764).  The kernel's
 * isolate_migratepages_block(), compaction_alloc(), compaction_free(),
 * release_free_list() and the compaction tracepoints read this structure,
 * so its layout is checked against the running kernel's BTF at load time
 * (layout.c): 288 bytes, 27 members.
 *
 * Since 6.10 (Zi Yan, "mm/compaction: enable >0 order folio memory
 * compaction") the isolated free pages are kept per order.
 */
struct compact_control {
	struct list_head freepages[NR_PAGE_ORDERS];	/* isolated free pages */
	struct list_head migratepages;	/* pages being migrated */
	unsigned int nr_freepages;	/* number of isolated free pages */
	unsigned int nr_migratepages;	/* number of pages to migrate */
	unsigned long free_pfn;		/* isolate_freepages search base */
	unsigned long migrate_pfn;	/* isolate_migratepages search base */
	unsigned long fast_start_pfn;	/* a pfn to start the linear scan from */
	struct zone *zone;
	unsigned long total_migrate_scanned;
	unsigned long total_free_scanned;
	unsigned short fast_search_fail;/* failures to use free list searches */
	short search_order;		/* order to start a fast search at */
	const gfp_t gfp_mask;		/* gfp mask of a direct compactor */
	int order;			/* order a direct compactor needs */
	int migratetype;		/* migratetype of direct compactor */
	const unsigned int alloc_flags;	/* alloc flags of a direct compactor */
	const int highest_zoneidx;	/* zone index of a direct compactor */
	enum migrate_mode mode;		/* async or sync migration mode */
	bool ignore_skip_hint;		/* scan blocks even if marked skip */
	bool no_set_skip_hint;		/* don't mark blocks for skipping */
	bool ignore_block_suitable;	/* scan blocks considered unsuitable */
	bool direct_compaction;		/* false from kcompactd or /proc/... */
	bool proactive_compaction;	/* kcompactd proactive compaction */
	bool whole_zone;		/* whole zone should/has been scanned */
	bool contended;			/* signal lock contention */
	bool finish_pageblock;		/* scan the remainder of a pageblock */
	bool alloc_contig;		/* alloc_contig_range allocation */
};

/* 6.12 mm/internal.h (line 808) */
struct capture_control {
	struct compact_control *cc;
	struct page *page;
};

/* 6.12 mm/compaction.c: isolate_migrate_t, the isolation result */
enum klpr_isolate_migrate {
	ISOLATE_ABORT,		/* Abort compaction now */
	ISOLATE_NONE,		/* No pages isolated, continue scanning */
	ISOLATE_SUCCESS,	/* Pages isolated, migrate */
};

/* compact_zone.c: the function that replaces the kernel's compact_zone() */
enum compact_result gmm_klp_compact_zone(struct compact_control *cc,
					 struct capture_control *capc);

/* migrate_scan.c: our isolate_migratepages() */
enum klpr_isolate_migrate gmm_klp_isolate_migratepages(struct compact_control *cc);

#endif /* _GUESTMM_KLP_V612_COMPACT_H */
