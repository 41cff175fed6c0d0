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
#define GMM_KLP_COUNTER(name) \
	[GMM_KLP_##name] = #name,
#include "scanner_counters.h"
#undef GMM_KLP_COUNTER
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
