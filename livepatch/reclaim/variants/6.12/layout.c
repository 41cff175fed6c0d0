// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, reclaim variant 6.12: the private kernel struct the unmapped
 * page cache control hands the kernel (struct scan_control, vmscan.h), for
 * btf_check.c to compare with the running kernel's BTF at load.
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "btf_check.h"
#include "reclaim.h"
#include "vmscan.h"

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

const struct gmm_klp_layout gmm_klp_reclaim_layouts[] = {
	{ "scan_control", sizeof(struct scan_control),
	  sc_members, ARRAY_SIZE(sc_members), true },
	{ }
};
