// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the scanner's counters, per CPU, summed into
 * /sys/kernel/debug/guestmm_klp/stats (root only).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "scanner.h"
#include "stats.h"

DEFINE_PER_CPU(struct gmm_klp_stats, gmm_klp_stats);

static const char * const gmm_klp_stat_names[GMM_KLP_NR_COUNTERS] = {
	[GMM_KLP_runs] = "runs",
	[GMM_KLP_runs_not_suitable] = "runs_not_suitable",
	[GMM_KLP_runs_proactive] = "runs_proactive",
	[GMM_KLP_fast_search] = "fast_search",
	[GMM_KLP_fast_hit] = "fast_hit",
	[GMM_KLP_fast_miss] = "fast_miss",
	[GMM_KLP_fast_scanned] = "fast_scanned",
	[GMM_KLP_fast_candidates] = "fast_candidates",
	[GMM_KLP_score_scanned] = "score_scanned",
	[GMM_KLP_score_rejected] = "score_rejected",
	[GMM_KLP_linear_blocks] = "linear_blocks",
	[GMM_KLP_blocks_skip_hint] = "blocks_skip_hint",
	[GMM_KLP_blocks_unsuitable] = "blocks_unsuitable",
	[GMM_KLP_blocks_isolated] = "blocks_isolated",
	[GMM_KLP_hole_pfns_skipped] = "hole_pfns_skipped",
	[GMM_KLP_finish_rescans] = "finish_rescans",
	[GMM_KLP_fast_block_skipped] = "fast_block_skipped",
	[GMM_KLP_sync_block_skipped] = "sync_block_skipped",
	[GMM_KLP_capture_stops] = "capture_stops",
	[GMM_KLP_migrate_batches] = "migrate_batches",
	[GMM_KLP_migrate_success] = "migrate_success",
	[GMM_KLP_migrate_scanned] = "migrate_scanned",
	[GMM_KLP_free_scanned] = "free_scanned",
};

static int gmm_klp_stats_show(struct seq_file *m, void *v)
{
	int i, cpu;

	for (i = 0; i < GMM_KLP_NR_COUNTERS; i++) {
		unsigned long sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu(gmm_klp_stats.c[i], cpu);
		seq_printf(m, "%s %lu\n", gmm_klp_stat_names[i], sum);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmm_klp_stats);

int gmm_klp_stats_init(struct dentry *dir)
{
	debugfs_create_file("stats", 0400, dir, NULL, &gmm_klp_stats_fops);
	return 0;
}
