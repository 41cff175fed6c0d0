// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, variant 6.12: the private kernel structs the mirror shares
 * with the kernel, member by member, for btf_check.c to compare with the
 * running kernel's BTF.  Every member of our copies (compact.h), in the
 * kernel's order and with the kernel's names.
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "compact.h"
#ifdef GMM_KLP_UNMAPPED
#include "vmscan.h"
#endif
#include "btf_check.h"

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

#ifdef GMM_KLP_UNMAPPED
/*
 * struct scan_control (vmscan.h): only the members shrink_folio_list()
 * and the helpers it inlines read from the copy unmapped_walk.c hands it,
 * and those we set; a subset, found by name.  Bitfields by bit offset
 * and width (btf_check.h).
 */
#define SC_BITFIELD(name)						\
static void sc_bit_##name(unsigned int *bit, unsigned int *width)	\
{									\
	struct scan_control sc;						\
									\
	memset(&sc, 0, sizeof(sc));					\
	sc.name--;		/* 0 - 1: all the field's bits */	\
	gmm_klp_bitfield(&sc, sizeof(sc), bit, width);			\
}
SC_BITFIELD(may_writepage)
SC_BITFIELD(may_unmap)
SC_BITFIELD(may_swap)
SC_BITFIELD(proactive)
SC_BITFIELD(no_demotion)
#undef SC_BITFIELD

#define SC(name)	{ #name, offsetof(struct scan_control, name) }
#define SC_BF(name)	{ #name, 0, sc_bit_##name }
static const struct gmm_klp_member sc_members[] = {
	SC(nr_to_reclaim),
	SC(target_mem_cgroup),
	SC_BF(may_writepage),
	SC_BF(may_unmap),
	SC_BF(may_swap),
	SC_BF(proactive),
	SC_BF(no_demotion),
	SC(order),
	SC(priority),
	SC(reclaim_idx),
	SC(gfp_mask),
	SC(nr_scanned),
};
#undef SC_BF
#undef SC
#endif /* GMM_KLP_UNMAPPED */

const struct gmm_klp_layout gmm_klp_layouts[] = {
	{ "compact_control", sizeof(struct compact_control),
	  cc_members, ARRAY_SIZE(cc_members) },
	{ "capture_control", sizeof(struct capture_control),
	  capc_members, ARRAY_SIZE(capc_members) },
#ifdef GMM_KLP_UNMAPPED
	{ "scan_control", sizeof(struct scan_control),
	  sc_members, ARRAY_SIZE(sc_members), true },
#endif
	{ }
};
