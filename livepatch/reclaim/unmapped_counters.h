/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unmapped page cache policy's counters, one line each:
 * GMM_UM_COUNTER(name) makes GMM_UM_<name> and its line in debugfs's
 * "unmapped" (unmapped.c).  Included where GMM_UM_COUNTER is defined, so
 * it has no include guard.
 */
/* kswapd wakeups by our waker, by source */
GMM_UM_COUNTER(wakeups_pagecache)
GMM_UM_COUNTER(wakeups_timer)
GMM_UM_COUNTER(wakeups_param)
/* the patched predicate said "not balanced" because of the ratio */
GMM_UM_COUNTER(predicate_wake)	/* ... to wakeup_kswapd() */
GMM_UM_COUNTER(predicate_other)	/* an unknown caller asked (told the truth) */
GMM_UM_COUNTER(passes)
GMM_UM_COUNTER(pages_scanned)
GMM_UM_COUNTER(pages_reclaimed)
GMM_UM_COUNTER(skipped_mapped)
GMM_UM_COUNTER(skipped_dirty)
GMM_UM_COUNTER(skipped_writeback)
GMM_UM_COUNTER(skipped_locked)
GMM_UM_COUNTER(skipped_other)
GMM_UM_COUNTER(skipped_protected)	/* memcgs below memory.min/low */
GMM_UM_COUNTER(isolate_raced)
GMM_UM_COUNTER(flusher_wakeups)
GMM_UM_COUNTER(backoffs)
GMM_UM_COUNTER(backoff_ends_growth)	/* the cache grew by the margin */
GMM_UM_COUNTER(backoff_ends_time)	/* the backoff's time ran out */
GMM_UM_COUNTER(rewakes)	/* timer armed after a pass to go on */
GMM_UM_COUNTER(time_ns)
/* passes by how they ended: enum gmm_um_stop order */
GMM_UM_COUNTER(stop_target)
GMM_UM_COUNTER(stop_budget)
GMM_UM_COUNTER(stop_exhausted)
GMM_UM_COUNTER(stop_watermark)
GMM_UM_COUNTER(stop_kthread)
GMM_UM_COUNTER(stop_disabled)
GMM_UM_COUNTER(stop_reclaim_mode)
