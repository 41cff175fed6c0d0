// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the reclaim feature, as main.c declares it in the patch:
 * pgdat_balanced() replaced by the unmapped page cache control's
 * (unmapped.c), with its set-up, its stand-down around a disable
 * transition and its exit.
 */
#include <linux/livepatch.h>

#include "btf_check.h"
#include "reclaim.h"
#include "unmapped.h"

static const struct klp_func gmm_klp_reclaim_funcs[] = {
	{
		/* the unmapped page cache control, in kswapd */
		.old_name = "pgdat_balanced",
		.new_func = gmm_pgdat_balanced,
	},
	{ }
};

const struct gmm_klp_feature gmm_klp_reclaim = {
	.name = "reclaim",
	.variant = GMM_KLP_RECLAIM,
	.funcs = gmm_klp_reclaim_funcs,
	.layouts = gmm_klp_reclaim_layouts,
	.init = gmm_um_init,
	.exit = gmm_um_exit,
	.post_patch = gmm_um_post_patch,
	.pre_unpatch = gmm_um_pre_unpatch,
};
