// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: unmapped page cache control (seed 001, Balbir Singh's
 * "Provide control over unmapped pages", 2010, never merged).
 *
 * A guest whose disk the host caches already has its file data in the
 * host's page cache; the guest's own copy is a duplicate as long as no
 * process maps it.  With unmapped_page_control on, when a node's unmapped
 * file pages (file LRU minus NR_FILE_MAPPED) go above max_unmapped_ratio
 * percent of the node's managed memory, a per-node kthread reclaims
 * unmapped, clean page cache until it is one percent of the node below
 * that (hysteresis), then sleeps again.  What it frees stays free, where
 * the balloon can take it.
 *
 * The reclaim is the kernel's own: on 6.1, __node_reclaim() with
 * vm.zone_reclaim_mode == 0 runs shrink_node() with may_unmap=0 and
 * may_writepage=0, so mapped folios are skipped at isolation, dirty ones
 * are not written, and anon folios (all mapped) are never swapped out.
 * It shrinks reclaimable slab too (shrink_node() -> shrink_slab()).
 *
 * The thread is woken, never polls: by probes on kswapd waking and going
 * to sleep, by a probe on page cache insertion (one check per
 * GMM_UM_ADD_BATCH pages per CPU), by a timer every GMM_UM_PERIOD, and by
 * parameter writes.  The probes only read counters and wake the thread.
 * docs/livepatch.md explains the choice.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/freezer.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timer.h>
#include <linux/topology.h>
#include <linux/tracepoint.h>
#include <linux/wait.h>

#include "tracing.h"
#include "ksyms.h"
#include "params.h"
#include "unmapped.h"

/*
 * Page cache insertions per CPU between two looks at the node's counters
 * from the insertion probe: 1 MiB, so a stream read overshoots the ratio
 * by at most about nr_cpus MiB before the thread is woken.
 */
#define GMM_UM_ADD_BATCH	256

/*
 * The timer catches growth that inserts nothing (munmap turns mapped
 * pages into unmapped ones, writeback cleans dirty ones) and ends a
 * backoff.  Five seconds costs nothing measurable when idle.
 */
#define GMM_UM_PERIOD		(5 * HZ)

/*
 * __node_reclaim() walks the priorities from NODE_RECLAIM_PRIORITY down
 * to 0 until it frees a page, so a pass that frees nothing has scanned
 * the whole LRU.  A few in a row mean there is no clean unmapped cache
 * left to take (it is dirty, under writeback, or mapped); stop then.
 */
#define GMM_UM_MAX_FAILS	4

/* Node bits in gmm_um_node.flags */
enum {
	GMM_UM_KICKED,		/* a waker asked the thread to look */
	GMM_UM_RUNNING,		/* the thread is reclaiming */
	GMM_UM_BACKOFF,		/* last run made no progress: wait for the timer */
};

struct gmm_um_node {
	struct pglist_data *pgdat;
	struct task_struct *task;
	wait_queue_head_t wait;
	unsigned long flags;
	/* what the thread's last __node_reclaim() freed (reclaim_end probe) */
	unsigned long last_reclaimed;
};

/* Indexed by node id, NULL for nodes without memory at load time. */
static struct gmm_um_node **gmm_um_nodes;

/* ---- parameters ------------------------------------------------------ */

static bool gmm_um_enabled;		/* unmapped_page_control */
static bool gmm_um_want;		/* ... as given at load, before init */
static unsigned int gmm_um_ratio = 10;	/* max_unmapped_ratio */
static bool gmm_um_ready;		/* init done; under gmm_um_lock */
static DEFINE_MUTEX(gmm_um_lock);	/* turning the policy on and off */

/* ---- counters (debugfs) ---------------------------------------------- */

enum gmm_um_counter {
	/* wakeups by source: the first five, see gmm_um_kick() */
	GMM_UM_wakeups_kswapd_wake,
	GMM_UM_wakeups_kswapd_sleep,
	GMM_UM_wakeups_pagecache,
	GMM_UM_wakeups_timer,
	GMM_UM_wakeups_param,
	GMM_UM_checks,			/* thread woke and looked */
	GMM_UM_runs,			/* ... and found the node above the ratio */
	GMM_UM_passes,			/* __node_reclaim() calls */
	GMM_UM_pages_reclaimed,		/* pages they freed (incl. slab) */
	GMM_UM_time_ns,			/* time spent in them */
	GMM_UM_stop_target,		/* runs that reached the low mark */
	GMM_UM_stop_no_progress,	/* ... that gave up */
	GMM_UM_stop_disabled,		/* ... cut short by turning it off */
	GMM_UM_stop_reclaim_mode,	/* ... refused: zone_reclaim_mode != 0 */
	GMM_UM_lock_busy,		/* PGDAT_RECLAIM_LOCKED held by another */
	GMM_UM_NR_COUNTERS
};

static const char * const gmm_um_counter_names[GMM_UM_NR_COUNTERS] = {
	[GMM_UM_wakeups_kswapd_wake] = "wakeups_kswapd_wake",
	[GMM_UM_wakeups_kswapd_sleep] = "wakeups_kswapd_sleep",
	[GMM_UM_wakeups_pagecache] = "wakeups_pagecache",
	[GMM_UM_wakeups_timer] = "wakeups_timer",
	[GMM_UM_wakeups_param] = "wakeups_param",
	[GMM_UM_checks] = "checks",
	[GMM_UM_runs] = "runs",
	[GMM_UM_passes] = "passes",
	[GMM_UM_pages_reclaimed] = "pages_reclaimed",
	[GMM_UM_time_ns] = "time_ns",
	[GMM_UM_stop_target] = "stop_target",
	[GMM_UM_stop_no_progress] = "stop_no_progress",
	[GMM_UM_stop_disabled] = "stop_disabled",
	[GMM_UM_stop_reclaim_mode] = "stop_reclaim_mode",
	[GMM_UM_lock_busy] = "lock_busy",
};

static atomic_long_t gmm_um_stats[GMM_UM_NR_COUNTERS];

static void gmm_um_count(enum gmm_um_counter c, long n)
{
	atomic_long_add(n, &gmm_um_stats[c]);
}

/* ---- what the policy measures ---------------------------------------- */

/*
 * mm/vmstat.c: node_page_state_pages(), not exported.  Per-cpu deltas not
 * yet folded are missed, at most the vmstat threshold per CPU.
 */
static unsigned long klpr_node_page_state(struct pglist_data *pgdat,
					  enum node_stat_item item)
{
	long x = atomic_long_read(&pgdat->vm_stat[item]);

	return x < 0 ? 0 : x;
}

/* mm/vmscan.c: node_unmapped_file_pages(), the quantity __node_reclaim uses */
static unsigned long gmm_um_unmapped(struct pglist_data *pgdat)
{
	unsigned long mapped = klpr_node_page_state(pgdat, NR_FILE_MAPPED);
	unsigned long lru = klpr_node_page_state(pgdat, NR_ACTIVE_FILE) +
			    klpr_node_page_state(pgdat, NR_INACTIVE_FILE);

	/* tmpfs pages count as FILE_MAPPED but sit on the anon LRU */
	return lru > mapped ? lru - mapped : 0;
}

/*
 * The marks, in pages: start above @high, stop at @low.  Managed pages,
 * not present ones: that is the memory page cache can fill, and what
 * MemTotal shows.  It is recomputed each time because the balloon
 * changes it.
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
	/*
	 * __node_reclaim() does nothing once unmapped clean cache is at
	 * vm.min_unmapped_ratio; aiming lower would only burn passes.
	 */
	*low = max(*low, READ_ONCE(pgdat->min_unmapped_pages));
	*low = min(*low, *high);
}

/* ---- waking the thread (probe, timer and parameter context) ----------- */

/*
 * Ask node @nid's thread to look, if the node is above its high mark.
 * Runs in tracepoint probes and the timer: it reads counters and wakes a
 * thread, nothing else.
 */
static void gmm_um_kick(int nid, enum gmm_um_counter source, bool backoff)
{
	struct gmm_um_node *n;
	unsigned long high, low;

	if (!READ_ONCE(gmm_um_enabled) || nid < 0 || nid >= nr_node_ids)
		return;
	n = gmm_um_nodes[nid];
	if (!n || test_bit(GMM_UM_RUNNING, &n->flags))
		return;
	if (backoff && test_bit(GMM_UM_BACKOFF, &n->flags))
		return;
	gmm_um_limits(n->pgdat, &high, &low);
	if (gmm_um_unmapped(n->pgdat) <= high)
		return;
	if (test_and_set_bit(GMM_UM_KICKED, &n->flags))
		return;
	gmm_um_count(source, 1);
	wake_up(&n->wait);
}

/* Timer and parameter writes: also end a backoff. */
static void gmm_um_kick_all(enum gmm_um_counter source)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++) {
		if (!gmm_um_nodes[nid])
			continue;
		clear_bit(GMM_UM_BACKOFF, &gmm_um_nodes[nid]->flags);
		gmm_um_kick(nid, source, false);
	}
}

static void gmm_um_timer_fn(struct timer_list *t)
{
	gmm_um_kick_all(GMM_UM_wakeups_timer);
	if (READ_ONCE(gmm_um_enabled))
		mod_timer(t, jiffies + GMM_UM_PERIOD);
}
static DEFINE_TIMER(gmm_um_timer, gmm_um_timer_fn);

/*
 * kswapd is woken when a zone of the node falls below its low watermark:
 * page cache we drop now is memory kswapd does not have to find.
 */
static void gmm_um_probe_kswapd_wake(void *data, int nid, int zid, int order)
{
	gmm_um_kick(nid, GMM_UM_wakeups_kswapd_wake, false);
}

/* kswapd is done: whatever it left above the ratio is ours. */
static void gmm_um_probe_kswapd_sleep(void *data, int nid)
{
	gmm_um_kick(nid, GMM_UM_wakeups_kswapd_sleep, false);
}

/*
 * Page cache grows long before kswapd wakes (free memory is plentiful in
 * a guest that has just booted), so growth itself must wake the thread.
 * Only every GMM_UM_ADD_BATCH pages per CPU, to keep the insertion path
 * at a per-cpu add.  Tracepoint probes run with preemption off.
 */
static DEFINE_PER_CPU(unsigned int, gmm_um_adds);

static void gmm_um_probe_add_to_page_cache(void *data, struct folio *folio)
{
	if (this_cpu_add_return(gmm_um_adds, folio_nr_pages(folio)) <
	    GMM_UM_ADD_BATCH)
		return;
	this_cpu_write(gmm_um_adds, 0);
	gmm_um_kick(folio_nid(folio), GMM_UM_wakeups_pagecache, true);
}

/*
 * __node_reclaim() returns only whether it freed a page; its end
 * tracepoint has the count.  Only our threads' calls are recorded.
 */
static void gmm_um_probe_node_reclaim_end(void *data,
					  unsigned long nr_reclaimed)
{
	int nid;

	if (!(current->flags & PF_KTHREAD))
		return;
	for (nid = 0; nid < nr_node_ids; nid++) {
		struct gmm_um_node *n = gmm_um_nodes[nid];

		if (n && n->task == current) {
			WRITE_ONCE(n->last_reclaimed, nr_reclaimed);
			return;
		}
	}
}

struct gmm_um_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

/* The wakers, registered only while the policy is on. */
static struct gmm_um_tp gmm_um_wakers[] = {
	{ "mm_vmscan_kswapd_wake", gmm_um_probe_kswapd_wake },
	{ "mm_vmscan_kswapd_sleep", gmm_um_probe_kswapd_sleep },
	{ "mm_filemap_add_to_page_cache", gmm_um_probe_add_to_page_cache },
};

/* Registered from load to unload, so no pass loses its count. */
static struct gmm_um_tp gmm_um_reclaim_end = {
	"mm_vmscan_node_reclaim_end", gmm_um_probe_node_reclaim_end
};

static void gmm_um_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gmm_um_wakers); i++)
		if (!strcmp(tp->name, gmm_um_wakers[i].name))
			gmm_um_wakers[i].tp = tp;
	if (!strcmp(tp->name, gmm_um_reclaim_end.name))
		gmm_um_reclaim_end.tp = tp;
}

/* ---- the reclaim thread ---------------------------------------------- */

/* One __node_reclaim() call; returns the pages it freed. */
static unsigned long gmm_um_pass(struct gmm_um_node *n, u64 *ns)
{
	struct pglist_data *pgdat = n->pgdat;
	u64 t0;

	*ns = 0;
	/*
	 * node_reclaim() takes this bit around __node_reclaim(): one
	 * node reclaimer at a time.  With zone_reclaim_mode 0 the allocator
	 * never calls node_reclaim(), so this is normally free.
	 */
	if (test_and_set_bit(PGDAT_RECLAIM_LOCKED, &pgdat->flags)) {
		gmm_um_count(GMM_UM_lock_busy, 1);
		return 0;
	}
	WRITE_ONCE(n->last_reclaimed, 0);
	t0 = ktime_get_ns();
	/*
	 * GFP_HIGHUSER_MOVABLE: may do IO and enter the filesystem, as
	 * GFP_KERNEL, and its zone is ZONE_MOVABLE, so reclaim_idx covers
	 * every zone where page cache can live.
	 */
	klpe___node_reclaim(pgdat, GFP_HIGHUSER_MOVABLE, 0);
	*ns = ktime_get_ns() - t0;
	clear_bit_unlock(PGDAT_RECLAIM_LOCKED, &pgdat->flags);
	return READ_ONCE(n->last_reclaimed);
}

static void gmm_um_balance(struct gmm_um_node *n)
{
	struct pglist_data *pgdat = n->pgdat;
	unsigned long high, low, before, unmapped, nr, reclaimed = 0;
	unsigned int passes = 0, fails = 0;
	u64 ns, run_ns = 0;
	int mode, reason;

	gmm_um_count(GMM_UM_checks, 1);
	if (!READ_ONCE(gmm_um_enabled))
		return;
	gmm_um_limits(pgdat, &high, &low);
	before = unmapped = gmm_um_unmapped(pgdat);
	if (unmapped <= high)
		return;

	/*
	 * Checked again here, not only when turned on: with RECLAIM_UNMAP
	 * or RECLAIM_WRITE set, __node_reclaim() would unmap or write back.
	 */
	mode = READ_ONCE(klpe_node_reclaim_mode);
	if (mode) {
		pr_warn_ratelimited("unmapped_page_control: not reclaiming: vm.zone_reclaim_mode is %d, must be 0\n",
				    mode);
		set_bit(GMM_UM_BACKOFF, &n->flags);
		gmm_um_count(GMM_UM_stop_reclaim_mode, 1);
		gmm_trace(guestmm_klp_unmapped_run, pgdat->node_id,
					       GMM_UM_STOP_RECLAIM_MODE, 0, 0,
					       before, unmapped, 0);
		return;
	}

	set_bit(GMM_UM_RUNNING, &n->flags);
	gmm_um_count(GMM_UM_runs, 1);
	for (;;) {
		if (!READ_ONCE(gmm_um_enabled) || kthread_should_stop()) {
			reason = GMM_UM_STOP_DISABLED;
			break;
		}
		if (unmapped <= low) {
			reason = GMM_UM_STOP_TARGET;
			break;
		}
		if (fails >= GMM_UM_MAX_FAILS) {
			/* Page cache growth alone will not retry; the timer will. */
			set_bit(GMM_UM_BACKOFF, &n->flags);
			reason = GMM_UM_STOP_NO_PROGRESS;
			break;
		}
		nr = gmm_um_pass(n, &ns);
		passes++;
		reclaimed += nr;
		run_ns += ns;
		fails = nr ? 0 : fails + 1;
		gmm_um_count(GMM_UM_passes, 1);
		gmm_um_count(GMM_UM_pages_reclaimed, nr);
		gmm_um_count(GMM_UM_time_ns, ns);
		/* the ratio may have been changed, the balloon may have moved */
		gmm_um_limits(pgdat, &high, &low);
		unmapped = gmm_um_unmapped(pgdat);
		gmm_trace(guestmm_klp_unmapped_pass, pgdat->node_id, nr, unmapped,
						high, low, ns);
		cond_resched();
	}
	clear_bit(GMM_UM_RUNNING, &n->flags);
	gmm_um_count(GMM_UM_stop_target + reason, 1);
	gmm_trace(guestmm_klp_unmapped_run, pgdat->node_id, reason, passes,
				       reclaimed, before, unmapped, run_ns);
}

static int gmm_um_thread(void *arg)
{
	struct gmm_um_node *n = arg;

	/* Reclaiming while the system suspends would fight the freezer. */
	set_freezable();
	for (;;) {
		wait_event_freezable(n->wait, kthread_should_stop() ||
				     test_and_clear_bit(GMM_UM_KICKED,
							&n->flags));
		if (kthread_should_stop())
			break;
		gmm_um_balance(n);
	}
	return 0;
}

/* ---- on and off ------------------------------------------------------ */

static void gmm_um_unregister_wakers(unsigned int nr)
{
	while (nr--)
		tracepoint_probe_unregister(gmm_um_wakers[nr].tp,
					    gmm_um_wakers[nr].probe, NULL);
}

/* Under gmm_um_lock, after init. */
static int gmm_um_start(void)
{
	unsigned int i;
	int mode, ret;

	mode = READ_ONCE(klpe_node_reclaim_mode);
	if (mode) {
		pr_err("unmapped_page_control: refusing to enable: vm.zone_reclaim_mode is %d; node reclaim would then also unmap or write back pages; set it to 0 first\n",
		       mode);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(gmm_um_wakers); i++) {
		ret = tracepoint_probe_register(gmm_um_wakers[i].tp,
						gmm_um_wakers[i].probe, NULL);
		if (ret) {
			pr_err("unmapped_page_control: cannot attach to tracepoint %s (%d)\n",
			       gmm_um_wakers[i].name, ret);
			gmm_um_unregister_wakers(i);
			return ret;
		}
	}
	WRITE_ONCE(gmm_um_enabled, true);
	mod_timer(&gmm_um_timer, jiffies + GMM_UM_PERIOD);
	gmm_um_kick_all(GMM_UM_wakeups_param);
	pr_info("unmapped page cache control on, max_unmapped_ratio=%u\n",
		READ_ONCE(gmm_um_ratio));
	return 0;
}

/* Under gmm_um_lock.  A running pass finishes; the run then stops. */
static void gmm_um_stop(void)
{
	WRITE_ONCE(gmm_um_enabled, false);
	del_timer_sync(&gmm_um_timer);
	gmm_um_unregister_wakers(ARRAY_SIZE(gmm_um_wakers));
	pr_info("unmapped page cache control off\n");
}

static int gmm_um_control_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = 0;

	if (gmm_klp_parse_bool(val, kp->name, &on))
		return -EINVAL;
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

	if (kstrtouint(val, 10, &v) || v < 1 || v > 100) {
		pr_err("%s: invalid value '%.*s' (allowed 1..100)\n",
		       kp->name, (int)strcspn(val, "\n"), val);
		return -EINVAL;
	}
	WRITE_ONCE(gmm_um_ratio, v);
	/* A lower ratio applies now, not at the next page cache growth. */
	mutex_lock(&gmm_um_lock);
	if (gmm_um_ready && gmm_um_enabled)
		gmm_um_kick_all(GMM_UM_wakeups_param);
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

static int gmm_um_stats_show(struct seq_file *m, void *v)
{
	unsigned long high, low;
	int i, nid;

	seq_printf(m, "enabled %d\n", READ_ONCE(gmm_um_enabled));
	seq_printf(m, "max_unmapped_ratio %u\n", READ_ONCE(gmm_um_ratio));
	for (i = 0; i < GMM_UM_NR_COUNTERS; i++)
		seq_printf(m, "%s %ld\n", gmm_um_counter_names[i],
			   atomic_long_read(&gmm_um_stats[i]));
	for (nid = 0; nid < nr_node_ids; nid++) {
		struct gmm_um_node *n = gmm_um_nodes[nid];

		if (!n)
			continue;
		gmm_um_limits(n->pgdat, &high, &low);
		seq_printf(m, "node%d_unmapped %lu\n", nid,
			   gmm_um_unmapped(n->pgdat));
		seq_printf(m, "node%d_high %lu\nnode%d_low %lu\n", nid, high,
			   nid, low);
		seq_printf(m, "node%d_pid %d\n", nid, task_pid_nr(n->task));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmm_um_stats);

/* ---- init and exit ------------------------------------------------- */

/* Stop every thread; the nodes stay until no probe can see them. */
static void gmm_um_stop_threads(void)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		if (gmm_um_nodes[nid])
			kthread_stop(gmm_um_nodes[nid]->task);
}

static void gmm_um_free_nodes(void)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		kfree(gmm_um_nodes[nid]);
	kfree(gmm_um_nodes);
	gmm_um_nodes = NULL;
}

static int gmm_um_start_threads(void)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		const struct cpumask *cpus = cpumask_of_node(nid);
		struct gmm_um_node *n;

		n = kzalloc_node(sizeof(*n), GFP_KERNEL, nid);
		if (!n)
			return -ENOMEM;
		n->pgdat = NODE_DATA(nid);
		init_waitqueue_head(&n->wait);
		n->task = kthread_create_on_node(gmm_um_thread, n, nid,
						 "gmm_unmapped/%d", nid);
		if (IS_ERR(n->task)) {
			int ret = PTR_ERR(n->task);

			kfree(n);
			return ret;
		}
		/* Like kswapd: reclaim a node from its own CPUs. */
		if (!cpumask_empty(cpus))
			set_cpus_allowed_ptr(n->task, cpus);
		gmm_um_nodes[nid] = n;
		wake_up_process(n->task);
	}
	return 0;
}

int gmm_um_init(struct dentry *debugfs_dir)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(gmm_um_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(gmm_um_wakers); i++) {
		if (!gmm_um_wakers[i].tp) {
			pr_err("refusing to load: tracepoint %s not found\n",
			       gmm_um_wakers[i].name);
			return -ENOENT;
		}
	}
	if (!gmm_um_reclaim_end.tp) {
		pr_err("refusing to load: tracepoint %s not found\n",
		       gmm_um_reclaim_end.name);
		return -ENOENT;
	}

	gmm_um_nodes = kcalloc(nr_node_ids, sizeof(*gmm_um_nodes), GFP_KERNEL);
	if (!gmm_um_nodes)
		return -ENOMEM;
	ret = gmm_um_start_threads();
	if (ret) {
		pr_err("cannot start the unmapped page cache threads (%d)\n",
		       ret);
		goto out_free;
	}
	ret = tracepoint_probe_register(gmm_um_reclaim_end.tp,
					gmm_um_reclaim_end.probe, NULL);
	if (ret) {
		pr_err("cannot attach to tracepoint %s (%d)\n",
		       gmm_um_reclaim_end.name, ret);
		goto out_free;
	}

	mutex_lock(&gmm_um_lock);
	gmm_um_ready = true;
	ret = gmm_um_want ? gmm_um_start() : 0;
	if (ret)
		gmm_um_ready = false;
	mutex_unlock(&gmm_um_lock);
	if (ret)
		goto out_unregister;

	debugfs_create_file("unmapped", 0400, debugfs_dir, NULL,
			    &gmm_um_stats_fops);
	return 0;

out_unregister:
	tracepoint_probe_unregister(gmm_um_reclaim_end.tp,
				    gmm_um_reclaim_end.probe, NULL);
	tracepoint_synchronize_unregister();
out_free:
	gmm_um_stop_threads();
	gmm_um_free_nodes();
	return ret;
}

void gmm_um_exit(void)
{
	mutex_lock(&gmm_um_lock);
	if (gmm_um_enabled)
		gmm_um_stop();
	gmm_um_ready = false;
	mutex_unlock(&gmm_um_lock);
	/* Threads first: a pass in flight still needs the reclaim_end probe. */
	gmm_um_stop_threads();
	tracepoint_probe_unregister(gmm_um_reclaim_end.tp,
				    gmm_um_reclaim_end.probe, NULL);
	/* No probe or timer may still look at a node when it is freed. */
	tracepoint_synchronize_unregister();
	gmm_um_free_nodes();
}
