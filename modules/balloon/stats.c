// SPDX-License-Identifier: GPL-2.0
/*
 * The stats virtqueue.
 *
 * The host drives this queue: the driver keeps one buffer of stats posted;
 * when the host has read it (every guest-stats-polling-interval seconds in
 * QEMU), the vq callback asks us for a fresh one.
 *
 * Tags 0-9 are the ones QEMU 7.2 understands.  Tags 10-15 were added by
 * Linux 6.12; we send them on every kernel (QEMU 7.2 drops tags >= 10).
 * Values match what the guest shows in /proc/vmstat and /proc/meminfo.
 */
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/scatterlist.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#include "guestmm_balloon.h"

#define pages_to_bytes(x)	((u64)(x) << PAGE_SHIFT)

static void gmb_stat(struct gmb *vb, unsigned int *idx, u16 tag, u64 val)
{
	if (WARN_ON_ONCE(*idx >= ARRAY_SIZE(vb->stats)))
		return;
	vb->stats[*idx].tag = cpu_to_virtio16(vb->vdev, tag);
	vb->stats[*idx].val = cpu_to_virtio64(vb->vdev, val);
	(*idx)++;
}

/* Fill vb->stats; returns the number of entries. */
static unsigned int gmb_stats_fill(struct gmb *vb)
{
	unsigned long *ev = vb->vm_events;
	unsigned int idx = 0;
	struct sysinfo i;

	si_meminfo(&i);

#ifdef CONFIG_VM_EVENT_COUNTERS
	all_vm_events(ev);

	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_SWAP_IN,
		 pages_to_bytes(ev[PSWPIN]));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_SWAP_OUT,
		 pages_to_bytes(ev[PSWPOUT]));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_MAJFLT, ev[PGMAJFAULT]);
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_MINFLT, ev[PGFAULT]);
#ifdef CONFIG_HUGETLB_PAGE
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_HTLB_PGALLOC,
		 ev[HTLB_BUDDY_PGALLOC]);
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_HTLB_PGFAIL,
		 ev[HTLB_BUDDY_PGALLOC_FAIL]);
#endif
	{
		unsigned long stall = 0;
		int zid;

		/* allocstall_dma + _dma32 + _normal + _movable */
		for (zid = 0; zid < MAX_NR_ZONES; zid++)
			stall += ev[ALLOCSTALL_NORMAL - ZONE_NORMAL + zid];

		gmb_stat(vb, &idx, VIRTIO_BALLOON_S_OOM_KILL, ev[OOM_KILL]);
		gmb_stat(vb, &idx, VIRTIO_BALLOON_S_ALLOC_STALL, stall);
	}
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_ASYNC_SCAN,
		 pages_to_bytes(gmm_reclaim_stat(ev, PGSCAN_KSWAPD)));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_DIRECT_SCAN,
		 pages_to_bytes(gmm_reclaim_stat(ev, PGSCAN_DIRECT)));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_ASYNC_RECLAIM,
		 pages_to_bytes(gmm_reclaim_stat(ev, PGSTEAL_KSWAPD)));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_DIRECT_RECLAIM,
		 pages_to_bytes(gmm_reclaim_stat(ev, PGSTEAL_DIRECT)));
#endif
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_MEMFREE,
		 pages_to_bytes(i.freeram));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_MEMTOT,
		 pages_to_bytes(i.totalram));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_AVAIL,
		 pages_to_bytes(si_mem_available()));
	gmb_stat(vb, &idx, VIRTIO_BALLOON_S_CACHES,
		 pages_to_bytes(global_node_page_state(NR_FILE_PAGES)));

	return idx;
}

static int gmb_stats_post(struct gmb *vb)
{
	struct scatterlist sg;
	unsigned int n = gmb_stats_fill(vb);
	int err;

	sg_init_one(&sg, vb->stats, sizeof(vb->stats[0]) * n);
	err = virtqueue_add_outbuf(vb->stats_vq, &sg, 1, vb, GFP_KERNEL);
	if (err)
		return err;
	virtqueue_kick(vb->stats_vq);
	return 0;
}

/* vq callback (interrupt context): the host consumed our stats buffer. */
void gmb_stats_request(struct virtqueue *vq)
{
	struct gmb *vb = vq->vdev->priv;
	unsigned long flags;

	spin_lock_irqsave(&vb->stop_update_lock, flags);
	if (!vb->stop_update)
		queue_work(system_freezable_wq, &vb->stats_work);
	spin_unlock_irqrestore(&vb->stop_update_lock, flags);
}

void gmb_stats_work(struct work_struct *work)
{
	struct gmb *vb = container_of(work, struct gmb, stats_work);
	unsigned int len;
	int err;

	if (!virtqueue_get_buf(vb->stats_vq, &len))
		return;
	err = gmb_stats_post(vb);
	if (err)
		dev_warn_ratelimited(&vb->vdev->dev,
				     "cannot post stats buffer: %d\n", err);
	else
		gmb_count(vb, GMB_C_STATS_REQ, 1);
}

/* Post the first buffer so the host can signal us (init_vqs). */
int gmb_stats_prime(struct gmb *vb)
{
	int err = gmb_stats_post(vb);

	if (err)
		dev_warn(&vb->vdev->dev, "cannot prime stats vq: %d\n", err);
	return err;
}
