// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, compaction variant 6.12: the private kernel structs the mirror shares
 * with the kernel, member by member, for btf_check.c to compare with the
 * running kernel's BTF.  Every member of our copies (compact.h), in the
 * kernel's order and with the kernel's names.
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "compact.h"
#include "btf_check.h"
#include "compaction.h"

#define M(name)	{ #name, offsetof(struct compact_control, name) }
static const struct gmm_klp_member cc_members[] = {
	M(freepages),
	M(migratepages),
	M(nr_freepages),
	M(nr_migratepages),
	M(free_pfn),
	M(migrate_pfn),
	M(fast_start_pfn),
	M(zone),
	M(total_migrate_scanned),
	M(total_free_scanned),
	M(fast_search_fail),
	M(search_order),
	M(gfp_mask),
	M(order),
	M(migratetype),
	M(alloc_flags),
	M(highest_zoneidx),
	M(mode),
	M(ignore_skip_hint),
	M(no_set_skip_hint),
	M(ignore_block_suitable),
	M(direct_compaction),
	M(proactive_compaction),
	M(whole_zone),
	M(contended),
	M(finish_pageblock),
	M(alloc_contig),
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
