/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanner's counters, one line each: GMM_KLP_COUNTER(name) makes
 * GMM_KLP_<name> (scanner.h) and the line "<name> <sum over CPUs>" of
 * debugfs's "stats" (stats.c).  Included where GMM_KLP_COUNTER is
 * defined, so it has no include guard.
 */
GMM_KLP_COUNTER(runs)	/* compact_zone() entered */
GMM_KLP_COUNTER(runs_not_suitable)	/* compaction_suitable() said no */
GMM_KLP_COUNTER(runs_proactive)	/* ... of them kcompactd's proactive ones */
GMM_KLP_COUNTER(fast_search)	/* free-list searches done */
GMM_KLP_COUNTER(fast_hit)	/* ... that chose a source block */
GMM_KLP_COUNTER(fast_miss)	/* ... that found none */
GMM_KLP_COUNTER(fast_scanned)	/* free-list entries examined */
GMM_KLP_COUNTER(fast_candidates)	/* candidate blocks scored */
GMM_KLP_COUNTER(score_scanned)	/* struct pages read while scoring */
GMM_KLP_COUNTER(score_rejected)	/* candidates with unmovable pages */
GMM_KLP_COUNTER(linear_blocks)	/* blocks the linear scan considered */
GMM_KLP_COUNTER(blocks_skip_hint)	/* ... skipped: skip bit set */
GMM_KLP_COUNTER(blocks_unsuitable)	/* ... skipped: not a suitable source */
GMM_KLP_COUNTER(blocks_isolated)	/* isolate_migratepages_block() calls */
GMM_KLP_COUNTER(hole_pfns_skipped)	/* pfns jumped over in memory holes */
GMM_KLP_COUNTER(finish_rescans)	/* pageblocks finished after a failure */
GMM_KLP_COUNTER(fast_block_skipped)	/* chosen blocks marked skipped after use */
GMM_KLP_COUNTER(sync_block_skipped)	/* sync: entered blocks marked skipped */
GMM_KLP_COUNTER(capture_stops)	/* stopped early: page captured */
GMM_KLP_COUNTER(migrate_batches)	/* migrate_pages() calls */
GMM_KLP_COUNTER(migrate_success)	/* pages migrated */
GMM_KLP_COUNTER(migrate_scanned)	/* compact_migrate_scanned we added */
GMM_KLP_COUNTER(free_scanned)	/* compact_free_scanned we added */
