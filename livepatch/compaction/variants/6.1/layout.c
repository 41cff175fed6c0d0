// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, compaction variant 6.1: the private kernel structs our copies must
 * match member by member (btf_check.c compares them with the running
 * kernel's BTF at load).
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "btf_check.h"
#include "compaction.h"
#include "compact.h"

#define M(ours, theirs) { #theirs, offsetof(struct compact_control, ours) }
static const struct gmm_klp_member cc_members[] = {
	M(freepages, freepages),
	M(migratepages, migratepages),
	M(nr_freepages, nr_freepages),
	M(nr_migratepages, nr_migratepages),
	M(free_pfn, free_pfn),
	M(migrate_pfn, migrate_pfn),
	M(fast_start_pfn, fast_start_pfn),
	M(zone, zone),
	M(total_migrate_scanned, total_migrate_scanned),
	M(total_free_scanned, total_free_scanned),
	M(fast_search_fail, fast_search_fail),
	M(search_order, search_order),
	M(gfp_mask, gfp_mask),
	M(order, order),
	M(migratetype, migratetype),
	M(alloc_flags, alloc_flags),
	M(highest_zoneidx, highest_zoneidx),
	M(mode, mode),
	M(ignore_skip_hint, ignore_skip_hint),
	M(no_set_skip_hint, no_set_skip_hint),
	M(ignore_block_suitable, ignore_block_suitable),
	M(direct_compaction, direct_compaction),
	M(proactive_compaction, proactive_compaction),
	M(whole_zone, whole_zone),
	M(contended, contended),
	M(finish_pageblock, rescan),	/* 6.1 calls it rescan */
	M(alloc_contig, alloc_contig),
};
#undef M

static const struct gmm_klp_member capc_members[] = {
	{ "cc", offsetof(struct capture_control, cc) },
	{ "page", offsetof(struct capture_control, page) },
};

const struct gmm_klp_layout gmm_klp_compaction_layouts[] = {
	{ "compact_control", sizeof(struct compact_control),
	  cc_members, ARRAY_SIZE(cc_members) },
	{ "capture_control", sizeof(struct capture_control),
	  capc_members, ARRAY_SIZE(capc_members) },
	{ }
};
