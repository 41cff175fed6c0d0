// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: unmapped page cache control (seed 001, Balbir Singh's
 * "Provide control over unmapped pages", 2010, never merged), in kswapd.
 *
 * Tested in 6.1 and 6.12 (MGLRU) guests: tests/cases/klp_unmapped_*.py.
 * Design: docs/design/unmapped-in-kswapd.md.
 *
 * A guest whose disk the host caches already has its file data in the
 * host's page cache; the guest's own copy is a duplicate as long as no
 * process maps it.  With unmapped_page_control on, a node whose unmapped
 * page cache (node_unmapped_file_pages(): file LRU minus NR_FILE_MAPPED)
 * is above max_unmapped_ratio percent of its managed memory counts as
 * not balanced for kswapd, until it is one percent of the node below
 * that (hysteresis).  What kswapd frees stays free, where the balloon and
 * free page reporting can give it back to the host.
 *
 * The patch replaces one kernel function, pgdat_balanced() (mm/vmscan.c),
 * whose three callers are kswapd's three decisions:
 *
 * - wakeup_kswapd(): "is there work?"  Over the ratio: yes, unless kswapd
 *   rests after a pass of ours (GMM_UM_REST).  Our waker
 *   (page cache insertion, a timer, parameter writes) calls the kernel's
 *   wakeup_kswapd() like rmqueue()'s boosted-watermark wake does.
 * - prepare_kswapd_sleep(): "may kswapd sleep?"  Always the watermark
 *   answer.  kswapd sleeps after every pass of ours, and our waker wakes
 *   it again once it has rested (GMM_UM_REST), so what kswapd does on its
 *   way to sleep still happens while the node is over the ratio: it
 *   clears the compaction skip bits, wakes kcompactd for the order it was
 *   woken for, restores the normal vmstat thresholds, and, asleep, no
 *   longer holds off proactive compaction (kswapd_is_running()).
 * - balance_pgdat(): "is the node balanced?"  Always the true watermark
 *   answer, so kswapd's own reclaim (slab, anon, swap) never runs because
 *   of the policy.  But where balance_pgdat() is about to end because the
 *   watermarks are fine, and no boost is pending, a pass of ours runs
 *   first (unmapped_walk.c): unmapped clean page cache only, counted as
 *   kswapd's.  If a watermark breaks meanwhile, the pass stops and
 *   balance_pgdat() goes on with its normal work at once.
 *
 * The three are told apart by the return address: the kernel calls
 * pgdat_balanced() once from each, never inlined (scripts/klp-variant
 * should check that per build; see docs/livepatch.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/sysfs.h>
#include <linux/timer.h>
#include <linux/tracepoint.h>
#include <linux/wait.h>

#include "ksyms.h"
#include "../modules/gmm_param.h"
#include "tracing.h"
#include "unmapped.h"
#include "unmapped_walk.h"
#include "vmscan.h"

/*
 * Page cache insertions per CPU between two looks at the node's counters
 * from the insertion probe: 1 MiB.
 */
#define GMM_UM_ADD_BATCH	256

/*
 * The timer catches growth that inserts nothing (munmap turns mapped
 * pages into unmapped ones, writeback cleans dirty ones) and ends a
 * backoff.
 */
#define GMM_UM_PERIOD		(5 * HZ)

/*
 * At most this much per pass (256 MiB, about 0.3 s of a TCG guest's
 * kswapd); the next pass follows a rest.  A pass takes the whole excess
 * when it can: every pass costs a rest, in which a fast reader adds
 * cache.
 */
#define GMM_UM_PASS_MAX		65536UL

/*
 * After a pass, no wake of ours for this long: kswapd goes to sleep as it
 * would with no policy, through its HZ/10 nap (kswapd_try_to_sleep()),
 * which a wake of ours must not cut short; HZ/50 covers the way from the
 * pass to the nap.
 */
#define GMM_UM_REST		(HZ / 10 + HZ / 50)

/*
 * A backoff lasts GMM_UM_PERIOD << shift, the shift growing by one per
 * backoff in a row (5 s .. 320 s), unless the unmapped page cache grows
 * by the hysteresis margin first.
 */
#define GMM_UM_BACKOFF_MAX_SHIFT	6

/* Node bits in gmm_um_node.flags */
enum {
	GMM_UM_ACTIVE,		/* went over high; reclaiming down to low */
	GMM_UM_BACKOFF,		/* no progress: watermarks only, see below */
};

/*
 * Per node.  kswapd writes the fields after a pass; the waker (any
 * context) reads them and may end a backoff.
 */
struct gmm_um_node {
	unsigned long flags;
	unsigned long rest_until;	/* jiffies: no wake of ours before */
	unsigned long backoff_until;	/* jiffies: the backoff ends then, */
	unsigned long backoff_unmapped;	/* or once unmapped passes this */
	unsigned int backoff_shift;	/* backoffs in a row */
};

static struct gmm_um_node gmm_um_nodes[MAX_NUMNODES];

/* ---- parameters ------------------------------------------------------ */

static bool gmm_um_enabled;		/* unmapped_page_control */
static bool gmm_um_want;		/* ... as given at load, before init */
static unsigned int gmm_um_ratio = 10;	/* max_unmapped_ratio */
static bool gmm_um_ready;		/* init done; under gmm_um_lock */
static DEFINE_MUTEX(gmm_um_lock);	/* turning the policy on and off */

/*
 * The patch is being disabled (echo 0 > .../enabled): from the
 * pre_unpatch callback until the patch is gone, or until a reversed
 * disable has patched every task again (post_patch).  No pass starts and
 * a running one ends at its next check, so kswapd, which otherwise can
 * spend most of its time inside gmm_pgdat_balanced() while the node is
 * over the ratio, never keeps the disable transition waiting (the
 * livepatch core switches no task with a patched function on its stack).
 * An enable reversed before it completed calls no callback: there the
 * transition may still wait for a pass to end.
 */
static bool gmm_um_unpatching;

/* The policy acts: turned on, and the patch not on its way out. */
static bool gmm_um_active(void)
{
	return READ_ONCE(gmm_um_enabled) && !READ_ONCE(gmm_um_unpatching);
}

/* ---- counters (debugfs) ---------------------------------------------- */

enum gmm_um_counter {
#define GMM_UM_COUNTER(name) GMM_UM_##name,
#include "unmapped_counters.h"
#undef GMM_UM_COUNTER
	GMM_UM_NR_COUNTERS
};

static const char * const gmm_um_counter_names[GMM_UM_NR_COUNTERS] = {
#define GMM_UM_COUNTER(name) \
	[GMM_UM_##name] = #name,
#include "unmapped_counters.h"
#undef GMM_UM_COUNTER
};

static atomic_long_t gmm_um_stats[GMM_UM_NR_COUNTERS];

static void gmm_um_count(enum gmm_um_counter c, long n)
{
	if (n)
		atomic_long_add(n, &gmm_um_stats[c]);
}

/* ---- what the policy measures ---------------------------------------- */

/*
 * mm/vmstat.h: node_page_state_pages() as node_page_state() uses it, not
 * exported.  Per-cpu deltas not yet folded are missed, as there.
 */
static unsigned long klpr_node_page_state(struct pglist_data *pgdat,
					  enum node_stat_item item)
{
	long x = atomic_long_read(&pgdat->vm_stat[item]);

	return x < 0 ? 0 : x;
}

/*
 * mm/vmscan.c: node_unmapped_file_pages() (the same text in 6.1 and
 * 6.12), inlined there.  A lower bound: NR_FILE_MAPPED also counts mapped
 * shmem, which is not on the file LRU.
 */
static unsigned long gmm_um_unmapped(struct pglist_data *pgdat)
{
	unsigned long file_mapped = klpr_node_page_state(pgdat, NR_FILE_MAPPED);
	unsigned long file_lru = klpr_node_page_state(pgdat, NR_INACTIVE_FILE) +
		klpr_node_page_state(pgdat, NR_ACTIVE_FILE);

	return (file_lru > file_mapped) ? (file_lru - file_mapped) : 0;
}

/* The upper bound, for debugfs: mapped shmem taken out of FILE_MAPPED. */
static unsigned long gmm_um_unmapped_upper(struct pglist_data *pgdat)
{
	unsigned long mapped = klpr_node_page_state(pgdat, NR_FILE_MAPPED);
	unsigned long shmem = klpr_node_page_state(pgdat, NR_SHMEM);
	unsigned long lru = klpr_node_page_state(pgdat, NR_INACTIVE_FILE) +
		klpr_node_page_state(pgdat, NR_ACTIVE_FILE);

	mapped = mapped > shmem ? mapped - shmem : 0;
	return lru > mapped ? lru - mapped : 0;
}

/*
 * The marks, in pages: start above @high, stop at @low.  Managed pages
 * (what page cache can fill, and what MemTotal shows), recomputed each
 * time because the balloon changes them.
 */
static void gmm_um_limits(struct pglist_data *pgdat, unsigned long *high,
			  unsigned long *low)
{
	unsigned long managed = 0, margin;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++)
		managed += zone_managed_pages(&pgdat->node_zones[z]);

	*high = managed * READ_ONCE(gmm_um_ratio) / 100;
	margin = managed / 100;
	*low = *high > margin ? *high - margin : 0;
}

/* The node's highest zone with managed pages. */
static int gmm_um_top_zone(struct pglist_data *pgdat)
{
	int z;

	for (z = MAX_NR_ZONES - 1; z > 0; z--)
		if (managed_zone(&pgdat->node_zones[z]))
			break;
	return z;
}

/*
 * A backed-off node: whether its backoff is over, because the unmapped
 * page cache grew by @margin since (new cache, likely clean) or because
 * its time ran out; ends it if so.  Any context.
 */
static bool gmm_um_backoff_done(struct gmm_um_node *n, unsigned long unmapped,
				unsigned long margin)
{
	enum gmm_um_counter why;

	if (unmapped > READ_ONCE(n->backoff_unmapped) + margin)
		why = GMM_UM_backoff_ends_growth;
	else if (time_after_eq(jiffies, READ_ONCE(n->backoff_until)))
		why = GMM_UM_backoff_ends_time;
	else
		return false;
	if (test_and_clear_bit(GMM_UM_BACKOFF, &n->flags))
		gmm_um_count(why, 1);
	return true;
}

/*
 * Whether the policy wants kswapd on @pgdat: above high, or still above
 * low since it went above high.  Any context.  vm.zone_reclaim_mode is
 * not looked at here: a pass that sees it set stands down and backs off,
 * visibly (counter, tracepoint).
 */
static bool gmm_um_over(struct pglist_data *pgdat)
{
	struct gmm_um_node *n = &gmm_um_nodes[pgdat->node_id];
	unsigned long high, low, unmapped;

	if (!READ_ONCE(gmm_um_enabled))
		return false;
	gmm_um_limits(pgdat, &high, &low);
	unmapped = gmm_um_unmapped(pgdat);
	if (test_bit_acquire(GMM_UM_BACKOFF, &n->flags) &&
	    !gmm_um_backoff_done(n, unmapped, high - low))
		return false;
	if (test_bit(GMM_UM_ACTIVE, &n->flags)) {
		if (unmapped > low)
			return true;
		clear_bit(GMM_UM_ACTIVE, &n->flags);
		return false;
	}
	if (unmapped <= high)
		return false;
	set_bit(GMM_UM_ACTIVE, &n->flags);
	return true;
}

/*
 * No pass for @n until its unmapped page cache grows past @unmapped by
 * the margin, or for GMM_UM_PERIOD << backoff_shift, the shift growing
 * if @escalate (a walk that found too little; not a stand-down for a
 * sysctl, which the next look after GMM_UM_PERIOD sees undone).  kswapd
 * only.
 */
static void gmm_um_backoff(struct gmm_um_node *n, unsigned long unmapped,
			   bool escalate)
{
	unsigned int shift = escalate ? READ_ONCE(n->backoff_shift) : 0;

	WRITE_ONCE(n->backoff_unmapped, unmapped);
	WRITE_ONCE(n->backoff_until, jiffies + (GMM_UM_PERIOD << shift));
	if (escalate && shift < GMM_UM_BACKOFF_MAX_SHIFT)
		WRITE_ONCE(n->backoff_shift, shift + 1);
	clear_bit(GMM_UM_ACTIVE, &n->flags);
	/* fully ordered: the limits are seen before the bit (test_bit_acquire) */
	if (!test_and_set_bit(GMM_UM_BACKOFF, &n->flags))
		gmm_um_count(GMM_UM_backoffs, 1);
}

/* A wake of ours now would cut kswapd's nap after a pass short. */
static bool gmm_um_resting(struct pglist_data *pgdat)
{
	return time_before(jiffies,
			   READ_ONCE(gmm_um_nodes[pgdat->node_id].rest_until));
}

/* ---- who called pgdat_balanced() ------------------------------------- */

enum gmm_um_caller {
	GMM_UM_CALLER_BALANCE_PGDAT,
	GMM_UM_CALLER_PREPARE_SLEEP,
	GMM_UM_CALLER_WAKEUP,
	GMM_UM_NR_CALLERS
};

/* The kernel functions' text ranges, found at load. */
static struct {
	unsigned long start;
	unsigned long size;
} gmm_um_callers[GMM_UM_NR_CALLERS];

/*
 * @addr: a livepatch relocation (ksyms.h), only compared with, never
 * called through.
 */
static int gmm_um_find_caller(enum gmm_um_caller c, const char *name,
			      const void *addr)
{
	unsigned long size, off;

	if (!klpe_kallsyms_lookup_size_offset((unsigned long)addr, &size,
					      &off) || off || !size) {
		pr_err("refusing to load: no size for %s in kallsyms\n", name);
		return -ENOENT;
	}
	gmm_um_callers[c].start = (unsigned long)addr;
	gmm_um_callers[c].size = size;
	return 0;
}

static int gmm_um_find_callers(void)
{
	return gmm_um_find_caller(GMM_UM_CALLER_BALANCE_PGDAT,
				  "balance_pgdat", klpe_balance_pgdat) ?:
	       gmm_um_find_caller(GMM_UM_CALLER_PREPARE_SLEEP,
				  "prepare_kswapd_sleep",
				  klpe_prepare_kswapd_sleep) ?:
	       gmm_um_find_caller(GMM_UM_CALLER_WAKEUP, "wakeup_kswapd",
				  klpe_wakeup_kswapd);
}

static enum gmm_um_caller gmm_um_caller(unsigned long ret_ip)
{
	int i;

	for (i = 0; i < GMM_UM_NR_CALLERS; i++)
		if (ret_ip - gmm_um_callers[i].start < gmm_um_callers[i].size)
			return i;
	return GMM_UM_NR_CALLERS;
}

/* ---- waking kswapd (probe, timer and parameter context) ---------------- */

/*
 * Wake @pgdat's kswapd if the policy wants it, it sleeps and it has
 * rested since our last pass: the kernel's wakeup_kswapd(), with gfp 0
 * and order 0 for the node's top zone, as rmqueue() wakes it for a
 * boosted watermark.  Our pgdat_balanced() then says "not balanced".
 */
static void gmm_um_wake(struct pglist_data *pgdat, enum gmm_um_counter source)
{
	int top;

	/*
	 * A lockless peek, as wakeup_kswapd() itself does before it wakes:
	 * kswapd awake needs no wake and no look at the counters.  A wake
	 * missed while kswapd goes to sleep is made up by the next batch of
	 * insertions or the timer.
	 */
	if (!waitqueue_active(&pgdat->kswapd_wait) || !gmm_um_active() ||
	    gmm_um_resting(pgdat) || !gmm_um_over(pgdat))
		return;
	top = gmm_um_top_zone(pgdat);
	gmm_um_count(source, 1);
	klpe_wakeup_kswapd(&pgdat->node_zones[top], 0, 0, top);
}

/* Every node; a parameter write (@end_backoff) also ends its backoff. */
static void gmm_um_kick_all(enum gmm_um_counter source, bool end_backoff)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		struct gmm_um_node *n = &gmm_um_nodes[nid];

		if (end_backoff) {
			clear_bit(GMM_UM_BACKOFF, &n->flags);
			WRITE_ONCE(n->backoff_shift, 0);
		}
		gmm_um_wake(NODE_DATA(nid), source);
	}
}

/*
 * Every GMM_UM_PERIOD, and when a node has rested after a pass that left
 * it above its low mark (gmm_um_pass_done() brings the timer forward).
 * Re-armed first, so that a pass this wake starts can bring it forward.
 */
static void gmm_um_timer_fn(struct timer_list *t)
{
	if (READ_ONCE(gmm_um_enabled))
		mod_timer(t, jiffies + GMM_UM_PERIOD);
	gmm_um_kick_all(GMM_UM_wakeups_timer, false);
}
static DEFINE_TIMER(gmm_um_timer, gmm_um_timer_fn);

/* ---- the pass, in kswapd ----------------------------------------------- */

/* The walk's stop test (gmm_um_pass.stop), after every batch and hold. */
static int gmm_um_pass_stop(const struct gmm_um_pass *p)
{
	if (kthread_should_stop() || freezing(current))
		return GMM_UM_STOP_KTHREAD;
	if (!gmm_um_active())
		return GMM_UM_STOP_DISABLED;
	/* re-read on every check: RECLAIM_UNMAP/WRITE must never meet us */
	if (READ_ONCE(klpe_node_reclaim_mode))
		return GMM_UM_STOP_RECLAIM_MODE;
	if (p->st.reclaimed >= p->nr_to_reclaim)
		return GMM_UM_STOP_TARGET;
	if (p->st.scanned >= p->scan_budget)
		return GMM_UM_STOP_BUDGET;
	if (!klpr_pgdat_balanced(p->pgdat, p->order, p->highest_zoneidx))
		return GMM_UM_STOP_WATERMARK;
	return -1;
}

static void gmm_um_pass_count(const struct gmm_um_pass *p)
{
	const struct gmm_um_pass_stats *st = &p->st;

	/* the stop_* counters are in enum gmm_um_stop's order */
	BUILD_BUG_ON(GMM_UM_stop_reclaim_mode - GMM_UM_stop_target !=
		     GMM_UM_STOP_RECLAIM_MODE - GMM_UM_STOP_TARGET);
	gmm_um_count(GMM_UM_passes, 1);
	gmm_um_count(GMM_UM_pages_scanned, st->scanned);
	gmm_um_count(GMM_UM_pages_reclaimed, st->reclaimed);
	gmm_um_count(GMM_UM_skipped_mapped, st->skipped_mapped);
	gmm_um_count(GMM_UM_skipped_dirty, st->skipped_dirty);
	gmm_um_count(GMM_UM_skipped_writeback, st->skipped_writeback);
	gmm_um_count(GMM_UM_skipped_locked, st->skipped_locked);
	gmm_um_count(GMM_UM_skipped_other, st->skipped_other);
	gmm_um_count(GMM_UM_skipped_protected, st->protected_memcgs);
	gmm_um_count(GMM_UM_isolate_raced, st->raced);
	gmm_um_count(GMM_UM_flusher_wakeups, p->woke_flusher);
	gmm_um_count(GMM_UM_time_ns, st->ns);
	if (st->stop >= 0 && st->stop < GMM_UM_NR_STOP)
		gmm_um_count(GMM_UM_stop_target + st->stop, 1);
}

/*
 * After a pass: back off, or have the timer wake kswapd again when it has
 * rested if the node is still above its low mark.
 */
static void gmm_um_pass_done(struct gmm_um_node *n, const struct gmm_um_pass *p)
{
	const struct gmm_um_pass_stats *st = &p->st;

	switch (st->stop) {
	case GMM_UM_STOP_RECLAIM_MODE:
		pr_warn_ratelimited("unmapped_page_control: standing down: vm.zone_reclaim_mode is %d, must be 0\n",
				    READ_ONCE(klpe_node_reclaim_mode));
		gmm_um_backoff(n, st->unmapped_after, false);
		return;
	case GMM_UM_STOP_EXHAUSTED:
	case GMM_UM_STOP_BUDGET:
		/*
		 * The walk saw every folio it may take and found less than
		 * an eighth of what it wanted: what is left above the mark
		 * is mapped, dirty or busy, and another walk now would find
		 * the same.
		 */
		if (st->unmapped_after > st->low &&
		    st->reclaimed < p->nr_to_reclaim / 8) {
			gmm_um_backoff(n, st->unmapped_after, true);
			return;
		}
		break;
	case GMM_UM_STOP_TARGET:
		WRITE_ONCE(n->backoff_shift, 0);
		break;
	default:
		break;
	}
	if (st->unmapped_after > st->low && gmm_um_active()) {
		gmm_um_count(GMM_UM_rewakes, 1);
		timer_reduce(&gmm_um_timer, READ_ONCE(n->rest_until));
	}
}

/*
 * One pass in kswapd, from balance_pgdat() where it found the node
 * balanced.  Returns pgdat_balanced()'s answer for balance_pgdat():
 * false only if a watermark broke during the pass.
 */
static bool gmm_um_kswapd_pass(pg_data_t *pgdat, int order,
			       int highest_zoneidx)
{
	struct gmm_um_node *n = &gmm_um_nodes[pgdat->node_id];
	struct gmm_um_pass p = {
		.stop = gmm_um_pass_stop,
		.pgdat = pgdat,
		.order = order,
		.highest_zoneidx = highest_zoneidx,
		.reclaim_idx = gmm_um_top_zone(pgdat),
		.st = { .nid = pgdat->node_id, .stop = -1 },
	};
	unsigned long excess;
	u64 t0 = ktime_get_ns();

	gmm_um_limits(pgdat, &p.st.high, &p.st.low);
	p.st.unmapped_before = gmm_um_unmapped(pgdat);
	excess = p.st.unmapped_before > p.st.low ?
		 p.st.unmapped_before - p.st.low : 0;
	p.nr_to_reclaim = clamp(excess, (unsigned long)SWAP_CLUSTER_MAX,
				GMM_UM_PASS_MAX);
	/*
	 * guestmm: mapped and dirty folios keep their place, so every pass
	 * looks at them again; the budget lets a pass walk the whole file
	 * LRU once, or a mapped file at its tail ends every pass empty.
	 */
	p.scan_budget = 4 * p.nr_to_reclaim + 4096 +
			klpr_node_page_state(pgdat, NR_INACTIVE_FILE) +
			klpr_node_page_state(pgdat, NR_ACTIVE_FILE);

	gmm_uw_run(&p);

	p.st.ns = ktime_get_ns() - t0;
	p.st.unmapped_after = gmm_um_unmapped(pgdat);
	WRITE_ONCE(n->rest_until, jiffies + GMM_UM_REST);
	gmm_um_pass_done(n, &p);
	gmm_um_pass_count(&p);
	gmm_trace(guestmm_klp_unmapped_pass, &p.st);
	return p.st.stop != GMM_UM_STOP_WATERMARK;
}

/*
 * balance_pgdat() asks, the watermarks are fine (@balanced is their
 * answer).  mm/vmscan.c: balance_pgdat() of 6.1 (7104-7116) and 6.12
 * (6936-6948) ends there unless a boost is being reclaimed.
 */
static bool gmm_um_in_balance_pgdat(pg_data_t *pgdat, int order,
				    int highest_zoneidx)
{
	if (!current_is_kswapd() ||
	    klpr_pgdat_watermark_boosted(pgdat, highest_zoneidx) ||
	    !gmm_um_over(pgdat))
		return true;
	return gmm_um_kswapd_pass(pgdat, order, highest_zoneidx);
}

/*
 * The replacement of mm/vmscan.c: pgdat_balanced(), same prototype in 6.1
 * and 6.12.  The watermark test is the kernel's, verbatim
 * (variants/<V>/vmscan.h: klpr_pgdat_balanced()).  noinline: the return
 * address must be the kernel caller's (klp's ftrace handler only changes
 * the instruction pointer, the stack is the caller's).
 */
noinline bool gmm_pgdat_balanced(pg_data_t *pgdat, int order,
				 int highest_zoneidx)
{
	unsigned long ret_ip = (unsigned long)__builtin_return_address(0);
	bool ok = klpr_pgdat_balanced(pgdat, order, highest_zoneidx);

	if (!ok || !gmm_um_active())
		return ok;
	switch (gmm_um_caller(ret_ip)) {
	case GMM_UM_CALLER_BALANCE_PGDAT:
		return gmm_um_in_balance_pgdat(pgdat, order, highest_zoneidx);
	case GMM_UM_CALLER_WAKEUP:
		if (gmm_um_resting(pgdat) || !gmm_um_over(pgdat))
			return true;
		gmm_um_count(GMM_UM_predicate_wake, 1);
		return false;
	case GMM_UM_CALLER_PREPARE_SLEEP:
		return true;
	default:
		gmm_um_count(GMM_UM_predicate_other, 1);
		return true;
	}
}

/*
 * Page cache grows long before any watermark is low, so growth itself
 * wakes kswapd: every GMM_UM_ADD_BATCH pages per CPU, a look at the
 * folio's node.  mm/filemap.c fires the tracepoint after the insertion,
 * outside the xarray lock; probes run with preemption off.
 */
static DEFINE_PER_CPU(unsigned int, gmm_um_adds);

static void gmm_um_probe_add_to_page_cache(void *data, struct folio *folio)
{
	if (this_cpu_add_return(gmm_um_adds, folio_nr_pages(folio)) <
	    GMM_UM_ADD_BATCH)
		return;
	this_cpu_write(gmm_um_adds, 0);
	gmm_um_wake(folio_pgdat(folio), GMM_UM_wakeups_pagecache);
}

static struct tracepoint *gmm_um_add_tp;

static void gmm_um_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_filemap_add_to_page_cache"))
		gmm_um_add_tp = tp;
}

/* ---- on and off ------------------------------------------------------ */

static int gmm_um_start(void)
{
	int mode, ret;

	lockdep_assert_held(&gmm_um_lock);
	mode = READ_ONCE(klpe_node_reclaim_mode);
	if (mode) {
		pr_err("unmapped_page_control: refusing to enable: vm.zone_reclaim_mode is %d; set it to 0 first\n",
		       mode);
		return -EINVAL;
	}
	ret = tracepoint_probe_register(gmm_um_add_tp,
					gmm_um_probe_add_to_page_cache, NULL);
	if (ret) {
		pr_err("unmapped_page_control: cannot attach to tracepoint mm_filemap_add_to_page_cache (%d)\n",
		       ret);
		return ret;
	}
	WRITE_ONCE(gmm_um_enabled, true);
	mod_timer(&gmm_um_timer, jiffies + GMM_UM_PERIOD);
	gmm_um_kick_all(GMM_UM_wakeups_param, true);
	pr_info("unmapped page cache control on, max_unmapped_ratio=%u\n",
		READ_ONCE(gmm_um_ratio));
	return 0;
}

/* A pass in flight sees GMM_UM_STOP_DISABLED at its next check. */
static void gmm_um_stop(void)
{
	lockdep_assert_held(&gmm_um_lock);
	WRITE_ONCE(gmm_um_enabled, false);
	del_timer_sync(&gmm_um_timer);
	tracepoint_probe_unregister(gmm_um_add_tp,
				    gmm_um_probe_add_to_page_cache, NULL);
	pr_info("unmapped page cache control off\n");
}

static int gmm_um_control_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (gmm_parse_bool(val, &on))
		return gmm_param_invalid(val, kp, "0 or 1 (or n/y, N/Y, off/on)");
	mutex_lock(&gmm_um_lock);
	if (!gmm_um_ready)
		gmm_um_want = on;	/* at load: gmm_um_init() applies it */
	else if (on && !gmm_um_enabled)
		ret = gmm_um_start();
	else if (!on && gmm_um_enabled)
		gmm_um_stop();
	mutex_unlock(&gmm_um_lock);
	return ret;
}

static int gmm_um_control_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(gmm_um_enabled) ? 'Y' : 'N');
}

static const struct kernel_param_ops gmm_um_control_ops = {
	.set = gmm_um_control_set,
	.get = gmm_um_control_get,
};
module_param_cb(unmapped_page_control, &gmm_um_control_ops, NULL, 0644);
MODULE_PARM_DESC(unmapped_page_control,
		 "keep each node's unmapped page cache under max_unmapped_ratio (default N)");

static int gmm_um_ratio_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v < 1 || v > 100)
		return gmm_param_invalid(val, kp, "an integer from 1 to 100");
	WRITE_ONCE(gmm_um_ratio, v);
	/* A lower ratio applies now, not at the next page cache growth. */
	mutex_lock(&gmm_um_lock);
	if (gmm_um_ready && gmm_um_enabled)
		gmm_um_kick_all(GMM_UM_wakeups_param, true);
	mutex_unlock(&gmm_um_lock);
	return 0;
}

static int gmm_um_ratio_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(gmm_um_ratio));
}

static const struct kernel_param_ops gmm_um_ratio_ops = {
	.set = gmm_um_ratio_set,
	.get = gmm_um_ratio_get,
};
module_param_cb(max_unmapped_ratio, &gmm_um_ratio_ops, NULL, 0644);
MODULE_PARM_DESC(max_unmapped_ratio,
		 "unmapped page cache allowed per node, % of its memory (1..100, default 10)");

/* ---- debugfs ------------------------------------------------------- */

static void gmm_um_show_node(struct seq_file *m, int nid)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	struct gmm_um_node *n = &gmm_um_nodes[nid];
	unsigned long high, low;

	gmm_um_limits(pgdat, &high, &low);
	seq_printf(m, "node%d_unmapped %lu\n", nid, gmm_um_unmapped(pgdat));
	seq_printf(m, "node%d_unmapped_upper %lu\n", nid,
		   gmm_um_unmapped_upper(pgdat));
	seq_printf(m, "node%d_high %lu\nnode%d_low %lu\n", nid, high, nid, low);
	seq_printf(m, "node%d_active %d\nnode%d_backoff %d\n",
		   nid, test_bit(GMM_UM_ACTIVE, &n->flags),
		   nid, test_bit(GMM_UM_BACKOFF, &n->flags));
	seq_printf(m, "node%d_backoff_shift %u\nnode%d_backoff_unmapped %lu\n",
		   nid, READ_ONCE(n->backoff_shift),
		   nid, READ_ONCE(n->backoff_unmapped));
}

static int gmm_um_stats_show(struct seq_file *m, void *v)
{
	int i, nid;

	seq_printf(m, "enabled %d\n", READ_ONCE(gmm_um_enabled));
	seq_printf(m, "max_unmapped_ratio %u\n", READ_ONCE(gmm_um_ratio));
	for (i = 0; i < GMM_UM_NR_COUNTERS; i++)
		seq_printf(m, "%s %ld\n", gmm_um_counter_names[i],
			   atomic_long_read(&gmm_um_stats[i]));
	for_each_node_state(nid, N_MEMORY)
		gmm_um_show_node(m, nid);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmm_um_stats);

/* ---- init and exit ------------------------------------------------- */

int gmm_um_init(struct dentry *debugfs_dir)
{
	int ret;

	for_each_kernel_tracepoint(gmm_um_find_tp, NULL);
	if (!gmm_um_add_tp) {
		pr_err("refusing to load: tracepoint mm_filemap_add_to_page_cache not found\n");
		return -ENOENT;
	}
	ret = gmm_um_find_callers();
	if (ret)
		return ret;

	mutex_lock(&gmm_um_lock);
	gmm_um_ready = true;
	ret = gmm_um_want ? gmm_um_start() : 0;
	if (ret)
		gmm_um_ready = false;
	mutex_unlock(&gmm_um_lock);
	if (ret)
		return ret;

	debugfs_create_file("unmapped", 0400, debugfs_dir, NULL,
			    &gmm_um_stats_fops);
	return 0;
}

/* klp callbacks of the vmlinux object (main.c): see gmm_um_unpatching. */
void gmm_um_pre_unpatch(void)
{
	WRITE_ONCE(gmm_um_unpatching, true);
}

void gmm_um_post_patch(void)
{
	WRITE_ONCE(gmm_um_unpatching, false);
}

/*
 * Module exit, or init failing after gmm_um_init(): the patch is off, so
 * no pass runs; stop the waker.  The timer goes even if the control was
 * off: a pass that ended as it was turned off may have armed it.
 */
void gmm_um_exit(void)
{
	mutex_lock(&gmm_um_lock);
	if (gmm_um_enabled)
		gmm_um_stop();
	gmm_um_ready = false;
	mutex_unlock(&gmm_um_lock);
	del_timer_sync(&gmm_um_timer);
	/* No probe may still run when the module text goes. */
	tracepoint_synchronize_unregister();
}
