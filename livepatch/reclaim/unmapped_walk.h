/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: one pass of the unmapped page cache control, between the
 * policy (unmapped.c: when, how much, when to stop) and the walk
 * (unmapped_walk.c: which folios, and handing them to the kernel's
 * shrink_folio_list()).
 */
#ifndef _GUESTMM_KLP_UNMAPPED_WALK_H
#define _GUESTMM_KLP_UNMAPPED_WALK_H

#include <linux/mmzone.h>

#include "klp_trace.h"

struct gmm_um_pass {
	/*
	 * The policy's stop test: why the pass must end now (enum
	 * gmm_um_stop), or -1.  Asked after every batch and every lock hold.
	 */
	int (*stop)(const struct gmm_um_pass *p);
	struct pglist_data *pgdat;
	/* balance_pgdat()'s request: the watermarks a pass must not break */
	int order;
	int highest_zoneidx;
	/* the highest zone the walk takes folios from */
	int reclaim_idx;
	unsigned long nr_to_reclaim;
	unsigned long scan_budget;
	/* MGLRU: take folios of tiers up to this one (see unmapped_walk.c) */
	unsigned int tier_limit;
	/* candidates found so far, whether or not they were freed */
	unsigned long candidates;
	/* the walk woke the flusher threads (dirty page cache in the way) */
	bool woke_flusher;
	struct gmm_um_pass_stats st;
};

/*
 * unmapped_walk.c: walk the node's file LRUs, oldest first, and free
 * unmapped clean page cache until @p->stop says stop.  In kswapd, within
 * balance_pgdat(), with no lock held.
 */
void gmm_uw_run(struct gmm_um_pass *p);

#endif /* _GUESTMM_KLP_UNMAPPED_WALK_H */
