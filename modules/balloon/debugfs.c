// SPDX-License-Identifier: GPL-2.0
/*
 * Debugfs: /sys/kernel/debug/guestmm_balloon/
 *
 * One read-only (0400, root) file per counter, plus "state", which prints
 * the current balloon state and all counters as "name value" lines,
 * "blocks" (chunk mode), "nodes" (per-node counts, numa.c), and the
 * write-only "defrag": writing N completes up to N blocks now (defrag.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "guestmm_balloon.h"

static const char * const gmb_counter_names[GMB_NR_COUNTERS] = {
#define GMB_COUNTER(id, name) \
	[GMB_C_##id] = #name,
#include "counters.h"
#undef GMB_COUNTER
};

static int gmb_counter_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(gmb_counter_fops, gmb_counter_get, NULL, "%llu\n");

static int gmb_state_show(struct seq_file *m, void *unused)
{
	struct gmb *vb = m->private;
	unsigned long isolated = gmb_core_isolated(vb), hold;
	int i;

	seq_printf(m, "num_pages %u\n", READ_ONCE(vb->num_pages));
	seq_printf(m, "target %u\n", READ_ONCE(vb->target));
	seq_printf(m, "floor_pages %lu\n", gmb_floor_pages(vb));
	seq_printf(m, "isolated_pages %lu\n", isolated);
	seq_printf(m, "movable %d\n", vb->movable);
	seq_printf(m, "adjust_managed %d\n", vb->adjust_managed);
	seq_printf(m, "features 0x%llx\n", vb->vdev->features);
	seq_printf(m, "reporting %d\n", vb->reporting_registered);
	seq_printf(m, "hint_blocks_held %lu\n", READ_ONCE(vb->nr_hint_blocks));
	seq_printf(m, "oom_step_pages %u\n",
		   READ_ONCE(gmb_param_oom_pages) << READ_ONCE(vb->oom_shift));
	seq_printf(m, "backoff_ms %u\n", READ_ONCE(vb->backoff_ms));
	seq_printf(m, "oom_held_pages %ld\n", atomic_long_read(&vb->oom_held));
	hold = READ_ONCE(vb->report_hold_until);
	seq_printf(m, "report_hold_ms %u\n", hold && time_before(jiffies, hold) ?
		   jiffies_to_msecs(hold - jiffies) : 0);
	seq_printf(m, "migrate_sync %d\n", vb->mig_sync);
	seq_printf(m, "migrate_queued_in %u\n", READ_ONCE(vb->mig[GMB_MIG_IN].nr));
	seq_printf(m, "migrate_queued_out %u\n",
		   READ_ONCE(vb->mig[GMB_MIG_OUT].nr));
	/* Every page the balloon allocates is zeroed first (docs/balloon.md). */
	seq_printf(m, "init_on_alloc %d\n", want_init_on_alloc(GFP_KERNEL));
	seq_printf(m, "chunk_order %u\n", vb->chunk_order);
	seq_printf(m, "complete_blocks %lu\n", READ_ONCE(vb->complete_blocks));
	seq_printf(m, "tracked_blocks %lu\n", READ_ONCE(vb->nr_blks));
	seq_printf(m, "stray_pages %lu\n",
		   vb->chunk_order ? gmb_chunk_stray_pages(vb) :
		   READ_ONCE(vb->num_pages) / GMB_PAGES_PER_PAGE);
	for (i = 0; i < GMB_NR_COUNTERS; i++)
		seq_printf(m, "%s %lld\n", gmb_counter_names[i],
			   (long long)atomic64_read(&vb->counters[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmb_state);

static int gmb_blocks_show(struct seq_file *m, void *unused)
{
	gmb_chunk_show_blocks(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmb_blocks);

static int gmb_nodes_show(struct seq_file *m, void *unused)
{
	gmb_numa_show(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmb_nodes);

/* Blocks one write to "defrag" may ask for; a run with no time budget. */
#define GMB_DEFRAG_WRITE_MAX	(1U << 20)

static int gmb_defrag_set(void *data, u64 val)
{
	struct gmb *vb = data;
	int ret;

	if (!val || val > GMB_DEFRAG_WRITE_MAX)
		return -EINVAL;
	ret = gmb_defrag(vb, val, 0);
	return ret < 0 ? ret : 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(gmb_defrag_fops, NULL, gmb_defrag_set, "%llu\n");

void gmb_debugfs_init(struct gmb *vb)
{
	struct dentry *dir;
	int i;

	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	vb->debugfs_dir = dir;
	debugfs_create_file("state", 0400, dir, vb, &gmb_state_fops);
	debugfs_create_file("blocks", 0400, dir, vb, &gmb_blocks_fops);
	debugfs_create_file("nodes", 0400, dir, vb, &gmb_nodes_fops);
	debugfs_create_file_unsafe("defrag", 0200, dir, vb, &gmb_defrag_fops);
	for (i = 0; i < GMB_NR_COUNTERS; i++)
		debugfs_create_file_unsafe(gmb_counter_names[i], 0400, dir,
					   &vb->counters[i], &gmb_counter_fops);
}

void gmb_debugfs_exit(struct gmb *vb)
{
	debugfs_remove(vb->debugfs_dir);
	vb->debugfs_dir = NULL;
}
