/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The balloon's counters, one line each: GMB_COUNTER(ID, name) makes
 * GMB_C_<ID> (guestmm_balloon.h) and the debugfs file <name>, which is
 * also its line in "state" (debugfs.c).  Included where GMB_COUNTER is
 * defined, so it has no include guard.
 */
GMB_COUNTER(INFLATED, inflated_pages)	/* pages put into the balloon */
GMB_COUNTER(DEFLATED, deflated_pages)	/* pages given back to the guest */
GMB_COUNTER(MIGRATED, migrated)	/* successful balloon page migrations */
GMB_COUNTER(MIGRATE_BUSY, migrate_busy)	/* migrations refused with -EAGAIN */
GMB_COUNTER(MSG_INFLATE, host_msgs_inflate)	/* buffers sent on the inflate vq */
GMB_COUNTER(MSG_DEFLATE, host_msgs_deflate)	/* buffers sent on the deflate vq */
GMB_COUNTER(OUT_OF_PUFF, out_of_puff)	/* failed balloon page allocations */
GMB_COUNTER(FLOOR_LIMITED, floor_limited)	/* inflations cut short by floor_mb */
GMB_COUNTER(OOM_CALLS, oom_calls)	/* OOM notifier invocations */
GMB_COUNTER(OOM_DEFLATED, oom_deflated_pages)	/* pages deflated by the OOM notifier */
GMB_COUNTER(STATS_REQ, stats_requests)	/* stats requests answered */
GMB_COUNTER(REPORTS, reports)	/* free page reporting buffers */
GMB_COUNTER(REPORTED_PAGES, reported_pages)	/* pages covered by those reports */
GMB_COUNTER(HINT_RUNS, hint_runs)	/* free page hinting rounds */
GMB_COUNTER(HINT_BLOCKS, hint_blocks)	/* blocks handed to the host as hints */
GMB_COUNTER(HINT_RETURNED, hint_blocks_returned)	/* hint blocks given back to the guest */
GMB_COUNTER(CHUNK_BLOCKS, chunk_blocks_inflated)	/* 2 MiB blocks inflated in one piece */
GMB_COUNTER(CHUNK_FALLBACK, chunk_fallback)	/* no free 2 MiB block: fell back to 4 KiB */
GMB_COUNTER(CHUNK_BROKEN, chunk_blocks_broken)	/* complete blocks broken up by deflation */
GMB_COUNTER(MIGRATE_REFUSED, migrate_refused)	/* isolations refused: page of a complete block */
GMB_COUNTER(MIGRATE_CONTIG, migrate_contig)	/* complete-block pages offlining took */
GMB_COUNTER(TOLD_IN, host_told_in_pages)	/* balloon pages the host was told to take */
GMB_COUNTER(TOLD_OUT, host_told_out_pages)	/* balloon pages the host was told to give back */
GMB_COUNTER(MIG_FLUSHES, migrate_batches)	/* batches of queued migrations sent */
GMB_COUNTER(MIG_COLLISIONS, migrate_collisions)	/* frames queued both ways: flushed first */
GMB_COUNTER(OOM_EPISODES, oom_episodes)	/* OOM episodes (calls closer than 1 s are one) */
GMB_COUNTER(REINFLATE_WAITS, reinflate_waits)	/* inflations held back after an OOM episode */
GMB_COUNTER(REINFLATIONS, reinflations)	/* times inflation resumed after an episode */
GMB_COUNTER(REPORTS_HELD, reports_held)	/* report calls refused to honour report_delay_ms */
GMB_COUNTER(CHUNK_MADE, chunk_blocks_made)	/* blocks made by gmb_make_block() */
GMB_COUNTER(CHUNK_MAKE_FAILED, chunk_make_failed)	/* blocks it could not take */
GMB_COUNTER(DEFRAG_RUNS, defrag_runs)	/* defrag runs (defrag.c) */
GMB_COUNTER(DEFRAG_BLOCKS, defrag_blocks)	/* blocks defrag completed */
GMB_COUNTER(DEFRAG_MOVED, defrag_pages_moved)	/* pages others had in use in those blocks */
GMB_COUNTER(DEFRAG_OWN, defrag_own_given_back)	/* our strays in them, given back first */
GMB_COUNTER(DEFRAG_FAILED, defrag_failed)	/* blocks alloc_contig_range() could not take */
GMB_COUNTER(CHUNK_BACKED, chunk_blocks_backed)	/* free blocks the host backs (source.c step 1) */
GMB_COUNTER(CHUNK_MAKE_MOVED, chunk_make_moved)	/* pages in use that made blocks migrated */
GMB_COUNTER(CHUNK_UNBACKED, chunk_blocks_unbacked)	/* free blocks taken last (step 4) */
GMB_COUNTER(STRAYS, stray_inflated)	/* 4 KiB pages inflated as strays */
GMB_COUNTER(DEFRAG_NO_HOLES, defrag_no_holes)	/* defrag runs stopped: nowhere to migrate */
GMB_COUNTER(BLOCKS_GROWN, blocks_grown)	/* block arrays grown for hot-added memory */
