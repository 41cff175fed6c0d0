/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: what every compaction variant (variants/<V>/) shares with
 * the common code: the scanner's tunables (params.c) and its counters
 * (stats.c).
 */
#ifndef _GUESTMM_KLP_SCANNER_H
#define _GUESTMM_KLP_SCANNER_H

#include <linux/percpu.h>
#include <linux/types.h>

/* Tunables (module parameters, validated in params.c). */
struct gmm_klp_tunables {
	bool fast_search;		/* free-list search for a source */
	unsigned int search_depth;	/* free-list entries per search */
	unsigned int candidates;	/* blocks scored per search, 1 = upstream */
	unsigned int balloon_cost;	/* weight of a balloon page */
};
extern struct gmm_klp_tunables gmm_klp_tun;

/* Counters shown in debugfs (scanner_counters.h). */
enum gmm_klp_counter {
#define GMM_KLP_COUNTER(name) GMM_KLP_##name,
#include "scanner_counters.h"
#undef GMM_KLP_COUNTER
	GMM_KLP_NR_COUNTERS
};

struct gmm_klp_stats {
	unsigned long c[GMM_KLP_NR_COUNTERS];
};
DECLARE_PER_CPU(struct gmm_klp_stats, gmm_klp_stats);

/*
 * Counted in per-pageblock loops, on whatever CPU compacts: a per-CPU add
 * (no shared cache line), summed when debugfs is read.
 */
static inline void gmm_klp_count(enum gmm_klp_counter c, long n)
{
	this_cpu_add(gmm_klp_stats.c[c], n);
}

#endif /* _GUESTMM_KLP_SCANNER_H */
