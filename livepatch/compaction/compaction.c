// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the compaction feature, as main.c declares it in the
 * patch: compact_zone() replaced with ours (variants/<V>/compact_zone.c),
 * whose migrate-source scanner is our own.
 */
#include <linux/livepatch.h>
#include <linux/mmzone.h>

#include "btf_check.h"
#include "compact.h"
#include "compaction.h"
#include "stats.h"

static const struct klp_func gmm_klp_compaction_funcs[] = {
	{
		.old_name = "compact_zone",
		.new_func = gmm_klp_compact_zone,
	},
	{ }
};

/* Nothing to undo: main.c removes the debugfs directory. */
static void gmm_klp_compaction_exit(void)
{
}

const struct gmm_klp_feature gmm_klp_compaction = {
	.name = "compaction",
	.variant = GMM_KLP_COMPACTION,
	.funcs = gmm_klp_compaction_funcs,
	.layouts = gmm_klp_compaction_layouts,
	.init = gmm_klp_stats_init,
	.exit = gmm_klp_compaction_exit,
};
