/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: scoring candidate source blocks (score.c), our own idea,
 * shared by every variant's free-list search (variants/<V>/migrate_scan.c).
 */
#ifndef _GUESTMM_KLP_SCORE_H
#define _GUESTMM_KLP_SCORE_H

struct compact_control;

/* At most this many candidates per search (the candidates tunable). */
#define GMM_KLP_MAX_CANDIDATES	16

struct gmm_candidate {
	unsigned long block_pfn;	/* first pfn of the pageblock */
	unsigned long cost;
};

unsigned long gmm_block_cost(struct compact_control *cc,
			     unsigned long block_pfn,
			     unsigned long *scanned,
			     unsigned long limit);

#endif /* _GUESTMM_KLP_SCORE_H */
