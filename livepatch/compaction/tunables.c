// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp, compaction feature: the scanner's tunables, as module
 * parameters that refuse bad values with a message and keep the old value
 * (the parsers: params.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/swap.h>

#include "../modules/gmm_param.h"
#include "scanner.h"

struct gmm_klp_tunables gmm_klp_tun = {
	.fast_search = true,
	.search_depth = COMPACT_CLUSTER_MAX,
	.candidates = 1,
	.balloon_cost = 4,
};

module_param_cb(fast_search, &gmm_bool_ops, &gmm_klp_tun.fast_search, 0644);
MODULE_PARM_DESC(fast_search,
		 "search the free lists for a migration source first (default Y)");

GMM_UINT_PARAM(search_depth, gmm_klp_tun.search_depth, 1, 1024, 0644);
MODULE_PARM_DESC(search_depth,
		 "free-list entries one search examines (1..1024, default 32)");

GMM_UINT_PARAM(candidates, gmm_klp_tun.candidates, 1, 16, 0644);
MODULE_PARM_DESC(candidates,
		 "source pageblocks scored per search, 1 = upstream first-fit (1..16, default 1)");

GMM_UINT_PARAM(balloon_cost, gmm_klp_tun.balloon_cost, 1, 512, 0644);
MODULE_PARM_DESC(balloon_cost,
		 "migration cost of a balloon page in base pages (1..512, default 4)");

