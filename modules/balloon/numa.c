// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA: which node inflation takes memory from, and which node deflation
 * on OOM gives it back to.
 *
 * Left to itself, the page allocator fills the balloon from the node of
 * the CPU that runs size_work and spills to another node only when that
 * one is down to its low watermark.  In a two-node guest one node ends up
 * full of balloon while the other keeps its free memory, and the first
 * node's tasks reclaim, swap or OOM with memory to spare next door.
 *
 * numa_inflate says how inflation spreads instead:
 *  - "free" (default): every node gives in proportion to its free memory
 *    above the high watermarks, read anew for each batch, so the nodes'
 *    free memory keeps its proportions as the balloon grows;
 *  - "W0,W1,...": a fixed weight per node (nodes not listed weigh 0);
 *  - "local": the allocator's own choice, as virtio_balloon's.
 * A node that cannot give its share (a failed __GFP_THISNODE allocation)
 * leaves it to the allocator's fallback, so a weight bends where memory
 * runs out instead of stopping the balloon.  The pages are dealt out by
 * smooth weighted round robin: each node's credit grows by its weight on
 * every page, the node with the most credit gives the page and pays the
 * total weight, so over any run every node gives its share within one
 * page (one block in chunk mode) and no node gives in bursts.
 *
 * The OOM notifier does not say which node ran out.  A node whose free
 * memory is below its high watermarks is under pressure; deflation on
 * OOM gives back those nodes' pages first, and any node's when they have
 * none (an OOM that is not bound to a node is helped by any page).
 *
 * Only one node online (or a machine without NUMA) costs nothing: every
 * choice is NUMA_NO_NODE and every filter is NULL.
 *
 * Per-node counts (debugfs "nodes") are kept for every page that enters
 * or leaves the balloon, and move with migrated pages.
 */
#include <linux/math64.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"

enum gmb_numa_mode { GMB_NUMA_FREE, GMB_NUMA_LOCAL, GMB_NUMA_WEIGHTS };

/* Largest weight numa_inflate takes. */
#define GMB_NUMA_WEIGHT_MAX	1000000U
/*
 * The weights of a batch are scaled to sum to this, so that credits left
 * from earlier batches (other weights, other free memory) count in the
 * same unit: a change of weights then shifts at most one block's share.
 */
#define GMB_NUMA_SCALE		(1UL << 16)

/* numa_inflate, as parsed; the weights table is read under the lock. */
static DEFINE_SPINLOCK(gmb_numa_lock);
static enum gmb_numa_mode gmb_numa_mode;
static unsigned int gmb_numa_weights[MAX_NUMNODES];

static int gmb_numa_parse_weights(const char *val, unsigned int *w)
{
	char buf[256], *s = buf, *tok;
	unsigned int n = 0, sum = 0;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	while ((tok = strsep(&s, ","))) {
		if (n >= nr_node_ids || kstrtouint(tok, 10, &w[n]) ||
		    w[n] > GMB_NUMA_WEIGHT_MAX)
			return -EINVAL;
		sum |= w[n++];
	}
	return sum ? 0 : -EINVAL;
}

static int gmb_numa_param_set(const char *val, const struct kernel_param *kp)
{
	enum gmb_numa_mode mode = GMB_NUMA_WEIGHTS;
	unsigned int *w;

	w = kcalloc(MAX_NUMNODES, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	if (sysfs_streq(val, "free"))
		mode = GMB_NUMA_FREE;
	else if (sysfs_streq(val, "local"))
		mode = GMB_NUMA_LOCAL;
	else if (gmb_numa_parse_weights(val, w)) {
		kfree(w);
		return gmm_param_invalid(val, kp,
					 "free, local, or up to %u comma-separated node weights (0-%u, not all 0)",
					 nr_node_ids, GMB_NUMA_WEIGHT_MAX);
	}

	spin_lock(&gmb_numa_lock);
	gmb_numa_mode = mode;
	memcpy(gmb_numa_weights, w, sizeof(gmb_numa_weights));
	spin_unlock(&gmb_numa_lock);
	kfree(w);
	return 0;
}

static int gmb_numa_param_get(char *buf, const struct kernel_param *kp)
{
	unsigned int i, last = 0, len = 0;

	spin_lock(&gmb_numa_lock);
	if (gmb_numa_mode != GMB_NUMA_WEIGHTS) {
		len = sysfs_emit(buf, "%s\n", gmb_numa_mode == GMB_NUMA_FREE ?
				 "free" : "local");
		goto out;
	}
	for (i = 0; i < nr_node_ids; i++)
		if (gmb_numa_weights[i])
			last = i;
	for (i = 0; i <= last; i++)
		len += sysfs_emit_at(buf, len, "%s%u", i ? "," : "",
				     gmb_numa_weights[i]);
	len += sysfs_emit_at(buf, len, "\n");
out:
	spin_unlock(&gmb_numa_lock);
	return len;
}

static const struct kernel_param_ops gmb_numa_ops = {
	.set = gmb_numa_param_set,
	.get = gmb_numa_param_get,
};
module_param_cb(numa_inflate, &gmb_numa_ops, NULL, 0644);
MODULE_PARM_DESC(numa_inflate,
		 "Where inflation takes memory: free (default; each node in proportion to its free memory), local (the allocator's choice, as virtio_balloon), or node weights W0,W1,...");

/* Free pages of @pgdat above the high watermarks of its zones. */
static unsigned long gmb_node_spare(pg_data_t *pgdat)
{
	unsigned long free, high, spare = 0;
	int i;

	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &pgdat->node_zones[i];

		if (!managed_zone(zone))
			continue;
		free = zone_page_state(zone, NR_FREE_PAGES);
		high = high_wmark_pages(zone);
		if (free > high)
			spare += free - high;
	}
	return spare;
}

/* Is @nid short of memory: free below the high watermarks of its zones? */
static bool gmb_node_short(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long free = 0, high = 0;
	int i;

	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &pgdat->node_zones[i];

		if (!managed_zone(zone))
			continue;
		free += zone_page_state(zone, NR_FREE_PAGES);
		high += high_wmark_pages(zone);
	}
	return free < high;
}

/*
 * Refresh the weights for the next batch: numa_inflate's, or each node's
 * spare memory.  Returns false when inflation should not steer (one node,
 * "local", or no node with a weight).  size_work only.
 */
bool gmb_numa_plan(struct gmb *vb)
{
	unsigned long total = 0;
	enum gmb_numa_mode mode;
	int nid;

	if (!vb->numa_weight || num_node_state(N_MEMORY) < 2)
		return false;

	spin_lock(&gmb_numa_lock);
	mode = gmb_numa_mode;
	for_each_node(nid)
		vb->numa_weight[nid] = mode == GMB_NUMA_WEIGHTS ?
				       gmb_numa_weights[nid] : 0;
	spin_unlock(&gmb_numa_lock);

	if (mode == GMB_NUMA_LOCAL)
		return false;
	for_each_node(nid) {
		if (!node_state(nid, N_MEMORY))
			vb->numa_weight[nid] = 0;
		else if (mode == GMB_NUMA_FREE)
			vb->numa_weight[nid] = gmb_node_spare(NODE_DATA(nid));
		total += vb->numa_weight[nid];
	}
	if (!total)
		return false;

	vb->numa_total = 0;
	for_each_node(nid) {
		vb->numa_weight[nid] = div64_ul((u64)vb->numa_weight[nid] *
						GMB_NUMA_SCALE, total);
		if (!vb->numa_weight[nid])
			vb->numa_credit[nid] = 0;
		vb->numa_total += vb->numa_weight[nid];
	}
	return vb->numa_total != 0;
}

/*
 * The node the next @pages pages come from, by smooth weighted round
 * robin over the weights gmb_numa_plan() set.  size_work only.
 */
int gmb_numa_next(struct gmb *vb, unsigned int pages)
{
	int nid, best = NUMA_NO_NODE;

	for_each_node_state(nid, N_MEMORY) {
		if (!vb->numa_weight[nid])
			continue;
		vb->numa_credit[nid] += (long)vb->numa_weight[nid] * pages;
		if (best == NUMA_NO_NODE ||
		    vb->numa_credit[nid] > vb->numa_credit[best])
			best = nid;
	}
	if (best != NUMA_NO_NODE)
		vb->numa_credit[best] -= (long)vb->numa_total * pages;
	return best;
}

/*
 * Take back what gmb_numa_next(@pages) charged when it chose @nid: a chunk
 * step that found no block, whose pages then come 4 KiB at a time and are
 * charged one by one.
 */
void gmb_numa_undo(struct gmb *vb, int nid, unsigned int pages)
{
	int n;

	if (nid == NUMA_NO_NODE)
		return;
	for_each_node_state(n, N_MEMORY)
		vb->numa_credit[n] -= (long)vb->numa_weight[n] * pages;
	vb->numa_credit[nid] += (long)vb->numa_total * pages;
}

/*
 * The nodes under pressure, for deflation on OOM; NULL when there are
 * none or only one node, which means "any page".
 */
const nodemask_t *gmb_numa_short_nodes(nodemask_t *mask)
{
	int nid;

	if (num_node_state(N_MEMORY) < 2)
		return NULL;
	nodes_clear(*mask);
	for_each_node_state(nid, N_MEMORY)
		if (gmb_node_short(nid))
			node_set(nid, *mask);
	return nodes_empty(*mask) ? NULL : mask;
}

/* @page enters (@delta 1) or leaves (-1) the balloon; @oom: on OOM. */
void gmb_numa_track(struct gmb *vb, struct page *page, int delta, bool oom)
{
	atomic_long_t *s;

	if (!vb->node_stats)
		return;
	s = vb->node_stats[page_to_nid(page)];
	atomic_long_add(delta, &s[GMB_N_PAGES]);
	if (delta > 0)
		atomic_long_inc(&s[GMB_N_INFLATED]);
	else
		atomic_long_inc(&s[oom ? GMB_N_OOM_DEFLATED : GMB_N_DEFLATED]);
}

/* A migration moved a balloon page from @page's node to @newpage's. */
void gmb_numa_migrate(struct gmb *vb, struct page *newpage, struct page *page)
{
	int from = page_to_nid(page), to = page_to_nid(newpage);

	if (!vb->node_stats || from == to)
		return;
	atomic_long_dec(&vb->node_stats[from][GMB_N_PAGES]);
	atomic_long_inc(&vb->node_stats[to][GMB_N_PAGES]);
	atomic_long_inc(&vb->node_stats[to][GMB_N_MIGRATED_IN]);
}

/* debugfs "nodes": one line per node with memory. */
void gmb_numa_show(struct gmb *vb, struct seq_file *m)
{
	atomic_long_t *s;
	int nid;

	if (!vb->node_stats)
		return;
	for_each_node_state(nid, N_MEMORY) {
		s = vb->node_stats[nid];
		seq_printf(m, "node %d pages %ld inflated %ld deflated %ld oom_deflated %ld migrated_in %ld spare %lu weight %lu\n",
			   nid, atomic_long_read(&s[GMB_N_PAGES]),
			   atomic_long_read(&s[GMB_N_INFLATED]),
			   atomic_long_read(&s[GMB_N_DEFLATED]),
			   atomic_long_read(&s[GMB_N_OOM_DEFLATED]),
			   atomic_long_read(&s[GMB_N_MIGRATED_IN]),
			   gmb_node_spare(NODE_DATA(nid)),
			   READ_ONCE(vb->numa_weight[nid]));
	}
}

int gmb_numa_init(struct gmb *vb)
{
	vb->node_stats = kcalloc(nr_node_ids, sizeof(*vb->node_stats),
				 GFP_KERNEL);
	vb->numa_weight = kcalloc(nr_node_ids, sizeof(*vb->numa_weight),
				  GFP_KERNEL);
	vb->numa_credit = kcalloc(nr_node_ids, sizeof(*vb->numa_credit),
				  GFP_KERNEL);
	if (!vb->node_stats || !vb->numa_weight || !vb->numa_credit) {
		gmb_numa_exit(vb);
		return -ENOMEM;
	}
	return 0;
}

void gmb_numa_exit(struct gmb *vb)
{
	kfree(vb->node_stats);
	kfree(vb->numa_weight);
	kfree(vb->numa_credit);
	vb->node_stats = NULL;
	vb->numa_weight = NULL;
	vb->numa_credit = NULL;
}
