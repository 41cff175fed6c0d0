// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_balloon - a virtio balloon driver whose pages compaction can move.
 *
 * This file: module parameters, the virtio driver (features, validate, probe,
 * remove, freeze/restore), virtqueue setup, and the config-change work
 * that moves the balloon toward the host's target.
 *
 * It binds to the same device as the stock virtio_balloon and speaks the
 * same protocol; see docs/balloon.md for how to switch between the two.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/poison.h>
#include <linux/slab.h>
#include <linux/virtio.h>
#include <linux/virtio_balloon.h>
#include <linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/* ---- module parameters ---- */

bool gmb_param_movable = true;
/* 2 MiB chunks and background defrag by default (docs/balloon.md). */
unsigned int gmb_param_chunk_order = pageblock_order;

/*
 * chunk_order: 0, or pageblock_order (9 on x86: 2 MiB, the host's THP and
 * hugetlbfs size).  Other orders buy nothing: smaller blocks free no host
 * huge page, and larger ones would not fit one 512-PFN buffer.
 */
static int gmb_param_set_chunk(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (!val || kstrtouint(val, 0, &v) ||
	    (v && (v != pageblock_order ||
		   (GMB_PAGES_PER_PAGE << v) > GMB_PFNS_MAX)))
		return gmm_param_invalid(val, kp, "0 or %u (pageblock_order)",
					 (unsigned int)pageblock_order);
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops gmb_chunk_ops = {
	.set = gmb_param_set_chunk,
	.get = param_get_uint,
};

module_param_cb(movable, &gmm_bool_ops, &gmb_param_movable, 0444);
MODULE_PARM_DESC(movable,
		 "Balloon pages can be migrated by compaction (1, default) or are pinned (0, pre-3.8 behaviour). Read at probe.");
module_param_cb(chunk_order, &gmb_chunk_ops, &gmb_param_chunk_order, 0444);
MODULE_PARM_DESC(chunk_order,
		 "Inflate whole aligned blocks of this order (pageblock_order, 2 MiB on x86, default; or 0 = 4 KiB pages only). Read at probe.");

/* Only one balloon device is supported (QEMU allows only one per VM). */
static atomic_t gmb_bound = ATOMIC_INIT(0);

static void gmb_queue_size_work(struct gmb *vb, unsigned long delay)
{
	gmb_queue_work(vb, &vb->size_work, delay);
}

/*
 * One batch toward the target per run, then requeue: this keeps the work
 * cancellable and freezable, and picks up target changes immediately.
 * When allocation fails we back off exponentially (200 ms .. 5 s) instead
 * of spinning; a target larger than the guest therefore costs little.
 */
static void gmb_size_work(struct work_struct *work)
{
	struct gmb *vb = container_of(to_delayed_work(work), struct gmb,
				      size_work);
	unsigned long delay = 0;
	bool puff = false;
	unsigned int done;
	s64 diff;

	diff = gmb_towards_target(vb);
	if (!diff) {
		vb->puff_delay_ms = 0;
		gmb_reinflate_done(vb);
		gmb_source_idle(vb);
		/* New strays to gather, maybe: wake an idle defrag. */
		gmb_defrag_start(vb);
		return;
	}

	if (diff > 0) {
		/* After deflating on OOM: back-off and hysteresis first. */
		delay = gmb_reinflate_wait(vb, min_t(s64, diff,
						     gmb_param_batch_pages));
		if (delay) {
			gmb_queue_size_work(vb, delay);
			return;
		}
	}

	if (diff > 0) {
		done = gmb_fill(vb, min_t(s64, diff, UINT_MAX), &puff);
		gmb_reinflated(vb, done);
	} else {
		done = gmb_leak(vb, min_t(s64, -diff, UINT_MAX), GMB_LEAK_HOST,
				 NULL);
	}
	gmb_write_actual(vb);

	if (puff) {
		vb->puff_delay_ms = clamp(vb->puff_delay_ms * 2,
					  GMB_PUFF_DELAY_MIN_MS,
					  GMB_PUFF_DELAY_MAX_MS);
		delay = msecs_to_jiffies(vb->puff_delay_ms);
	} else {
		vb->puff_delay_ms = 0;
		/* Every page isolated for migration right now: retry soon. */
		if (!done)
			delay = 1;
	}
	/*
	 * Requeue even when this batch reached the target: the next run
	 * returns at once if it holds, and corrects a diff read while a
	 * defrag run had the balloon one block over (defrag.c).
	 */
	gmb_queue_size_work(vb, delay);
}

/* Config-change interrupt: new target and/or new free page hint id. */
static void gmb_config_changed(struct virtio_device *vdev)
{
	struct gmb *vb = vdev->priv;
	unsigned long flags;

	spin_lock_irqsave(&vb->stop_update_lock, flags);
	if (!vb->stop_update) {
		mod_delayed_work(system_freezable_wq, &vb->size_work, 0);
		gmb_hint_config_changed(vb);
	}
	spin_unlock_irqrestore(&vb->stop_update_lock, flags);
}

/* ---- virtqueues ---- */

/*
 * Delete the virtqueues and forget them: a NULL inflate_vq is how remove
 * knows that a failed restore left none to take down.
 */
static void gmb_del_vqs(struct gmb *vb)
{
	vb->vdev->config->del_vqs(vb->vdev);
	vb->inflate_vq = NULL;
	vb->deflate_vq = NULL;
	vb->stats_vq = NULL;
	vb->free_page_vq = NULL;
	vb->reporting_vq = NULL;
}

static int gmb_init_vqs(struct gmb *vb)
{
	vq_callback_t *all_cbs[GMB_VQ_MAX] = {};
	const char *all_names[GMB_VQ_MAX] = {};
	struct virtqueue *vqs[GMB_VQ_MAX] = {};
	vq_callback_t *callbacks[GMB_VQ_MAX];
	struct virtqueue *found[GMB_VQ_MAX];
	const char *names[GMB_VQ_MAX];
	unsigned int i, n = 0;
	int err;

	all_names[GMB_VQ_INFLATE] = "inflate";
	all_cbs[GMB_VQ_INFLATE] = gmb_vq_ack;
	all_names[GMB_VQ_DEFLATE] = "deflate";
	all_cbs[GMB_VQ_DEFLATE] = gmb_vq_ack;
	if (gmb_has(vb, VIRTIO_BALLOON_F_STATS_VQ)) {
		all_names[GMB_VQ_STATS] = "stats";
		all_cbs[GMB_VQ_STATS] = gmb_stats_request;
	}
	if (gmb_has(vb, VIRTIO_BALLOON_F_FREE_PAGE_HINT))
		all_names[GMB_VQ_FREE_PAGE] = "free_page_vq";
	if (gmb_has(vb, VIRTIO_BALLOON_F_REPORTING)) {
		all_names[GMB_VQ_REPORTING] = "reporting_vq";
		all_cbs[GMB_VQ_REPORTING] = gmb_vq_ack;
	}

	/*
	 * The device numbers only the queues that exist, in the order
	 * above (inflate, deflate, [stats], [free_page], [reporting]).
	 * Transports give a NULL name no queue index, so we could pass
	 * the sparse table; instead we pass only the present queues,
	 * which yields the same device indices.  This sidesteps a virtio_pci
	 * bug in 6.11+ (Debian's 6.12.95 has it): info is stored at the
	 * table slot but looked up by queue index, so a hole before a present
	 * queue (REPORTING without FREE_PAGE_HINT) makes del_vqs oops; the
	 * stock virtio_balloon crashes on unbind there.  Upstream fix:
	 * "virtio_pci: fix vq info pointer lookup via wrong index" (2026).
	 */
	for (i = 0; i < GMB_VQ_MAX; i++) {
		if (!all_names[i])
			continue;
		names[n] = all_names[i];
		callbacks[n] = all_cbs[i];
		n++;
	}
	err = gmm_find_vqs(vb->vdev, n, found, callbacks, names);
	if (err)
		return err;
	for (i = 0, n = 0; i < GMB_VQ_MAX; i++)
		if (all_names[i])
			vqs[i] = found[n++];

	vb->inflate_vq = vqs[GMB_VQ_INFLATE];
	vb->deflate_vq = vqs[GMB_VQ_DEFLATE];
	vb->stats_vq = vqs[GMB_VQ_STATS];
	vb->free_page_vq = vqs[GMB_VQ_FREE_PAGE];
	vb->reporting_vq = vqs[GMB_VQ_REPORTING];

	if (vb->stats_vq) {
		err = gmb_stats_prime(vb);
		if (err) {
			gmb_del_vqs(vb);
			return err;
		}
	}
	return 0;
}

static void gmb_write_poison(struct gmb *vb)
{
	u32 poison_val = 0;

	if (!gmb_has(vb, VIRTIO_BALLOON_F_PAGE_POISON))
		return;
	/*
	 * 0 means "free pages are zeroed" (init_on_free); otherwise every
	 * byte of a free page holds PAGE_POISON.  One byte repeated, so no
	 * byte swapping is needed.
	 */
	if (!want_init_on_free())
		memset(&poison_val, PAGE_POISON, sizeof(poison_val));
	virtio_cwrite_le(vb->vdev, struct virtio_balloon_config, poison_val,
			 &poison_val);
}

/* ---- driver ---- */

static int gmb_validate(struct virtio_device *vdev)
{
	/*
	 * PAGE_POISON only makes sense if free pages have known contents.
	 * If they do but we cannot tell the host, reporting could change
	 * them behind our back: drop REPORTING.
	 */
	if (!want_init_on_free() && !page_poisoning_enabled_static())
		__virtio_clear_bit(vdev, VIRTIO_BALLOON_F_PAGE_POISON);
	else if (!virtio_has_feature(vdev, VIRTIO_BALLOON_F_PAGE_POISON))
		__virtio_clear_bit(vdev, VIRTIO_BALLOON_F_REPORTING);

	/* No allocations in virtqueue_add: the report path cannot sleep. */
	__virtio_clear_bit(vdev, VIRTIO_RING_F_INDIRECT_DESC);
	__virtio_clear_bit(vdev, VIRTIO_F_ACCESS_PLATFORM);
	return 0;
}

static int gmb_probe(struct virtio_device *vdev)
{
	struct gmb *vb;
	int err;

	if (!vdev->config->get) {
		dev_err(&vdev->dev, "config space access is not available\n");
		return -EINVAL;
	}
	if (atomic_cmpxchg(&gmb_bound, 0, 1)) {
		dev_err(&vdev->dev,
			"already bound to another balloon device; only one is supported\n");
		return -EBUSY;
	}

	vb = kzalloc(sizeof(*vb), GFP_KERNEL);
	if (!vb) {
		err = -ENOMEM;
		goto out_unbind;
	}
	vdev->priv = vb;
	vb->vdev = vdev;
	vb->movable = READ_ONCE(gmb_param_movable);
	vb->adjust_managed = !gmb_has(vb, VIRTIO_BALLOON_F_DEFLATE_ON_OOM);
	vb->chunk_order = READ_ONCE(gmb_param_chunk_order);
	if (vb->movable && vb->chunk_order && !gmb_core_chunk_mops()) {
		dev_warn(&vdev->dev,
			 "chunk_order=%u with movable=1 needs movable_operations of the driver's own, which this kernel's balloon core does not take: the balloon uses 4 KiB pages\n",
			 vb->chunk_order);
		vb->chunk_order = 0;
	}
	INIT_DELAYED_WORK(&vb->size_work, gmb_size_work);
	INIT_WORK(&vb->stats_work, gmb_stats_work);
	spin_lock_init(&vb->stop_update_lock);
	init_waitqueue_head(&vb->acked);
	mutex_init(&vb->balloon_lock);
	gmb_core_init(vb);
	INIT_LIST_HEAD(&vb->pinned_pages);

	err = gmb_numa_init(vb);
	if (err)
		goto out_free;
	gmb_defrag_init(vb);
	err = gmb_blocks_init(vb);
	if (err)
		goto out_free;

	err = gmb_init_vqs(vb);
	if (err)
		goto out_free;

	gmb_host_init(vb);

	err = gmb_hint_init(vb);
	if (err)
		goto out_del_vqs;

	err = gmb_oom_register(vb);
	if (err)
		goto out_hint;

	gmb_write_poison(vb);
	gmb_reporting_start(vb);
	gmb_debugfs_init(vb);

	virtio_device_ready(vdev);

	dev_info(&vdev->dev,
		 "guestmm_balloon bound: features 0x%llx movable=%d adjust_managed=%d chunk_order=%u\n",
		 vdev->features, vb->movable, vb->adjust_managed,
		 vb->chunk_order);

	if (gmb_towards_target(vb))
		gmb_config_changed(vdev);
	gmb_defrag_start(vb);
	gmb_host_bind(vb);
	return 0;

out_hint:
	gmb_hint_exit(vb);
out_del_vqs:
	virtio_reset_device(vdev);
	gmb_del_vqs(vb);
out_free:
	gmb_blocks_exit(vb);
	gmb_numa_exit(vb);
	kfree(vb);
	vdev->priv = NULL;
out_unbind:
	atomic_set(&gmb_bound, 0);
	return err;
}

/* Give every page back, tell the host, and take down the queues. */
static void gmb_remove_common(struct gmb *vb)
{
	gmb_leak_all(vb);
	gmb_migrate_stop(vb);
	gmb_write_actual(vb);
	gmb_hint_return_all(vb);

	virtio_reset_device(vb->vdev);
	gmb_del_vqs(vb);
}

static void gmb_stop_updates(struct gmb *vb)
{
	spin_lock_irq(&vb->stop_update_lock);
	vb->stop_update = true;
	spin_unlock_irq(&vb->stop_update_lock);
	cancel_delayed_work_sync(&vb->size_work);
	cancel_delayed_work_sync(&vb->defrag_work);
	cancel_work_sync(&vb->stats_work);
}

static void gmb_remove(struct virtio_device *vdev)
{
	struct gmb *vb = vdev->priv;
	unsigned int had = vb->num_pages;

	gmb_host_bind(NULL);
	/* A defrag run from debugfs ends now, so debugfs_remove() returns. */
	WRITE_ONCE(vb->stopping, true);
	gmb_debugfs_exit(vb);
	gmb_reporting_stop(vb);
	gmb_oom_unregister(vb);
	gmb_stop_updates(vb);
	gmb_hint_exit(vb);

	/* After a failed restore the balloon is empty and has no queues. */
	if (vb->inflate_vq)
		gmb_remove_common(vb);
	dev_info(&vdev->dev, "unbound; returned %u balloon pages\n", had);

	gmb_blocks_exit(vb);
	gmb_numa_exit(vb);
	kfree(vb);
	atomic_set(&gmb_bound, 0);
}

#ifdef CONFIG_PM_SLEEP
static int gmb_freeze(struct virtio_device *vdev)
{
	struct gmb *vb = vdev->priv;

	/*
	 * The freezable workqueues are already frozen.  Reporting runs on a
	 * non-freezable workqueue and the OOM notifier can run at any time,
	 * so take both out while the queues are gone.
	 */
	gmb_reporting_stop(vb);
	gmb_oom_unregister(vb);
	/* Frozen, but it would run against deleted queues after a failed restore. */
	cancel_delayed_work_sync(&vb->defrag_work);
	gmb_remove_common(vb);
	return 0;
}

static int gmb_restore(struct virtio_device *vdev)
{
	struct gmb *vb = vdev->priv;
	int err;

	err = gmb_init_vqs(vb);
	if (err) {
		/*
		 * No queues: no work may run against them, and the host's
		 * config changes are ignored until the driver is rebound.
		 */
		gmb_stop_updates(vb);
		dev_err(&vdev->dev, "restore failed, no virtqueues: %d\n",
			err);
		return err;
	}

	err = gmb_oom_register(vb);
	if (err)
		dev_warn(&vdev->dev, "cannot re-register OOM notifier: %d\n",
			 err);
	gmb_write_poison(vb);
	gmb_reporting_start(vb);

	virtio_device_ready(vdev);

	if (gmb_towards_target(vb))
		gmb_config_changed(vdev);
	gmb_write_actual(vb);
	gmb_defrag_start(vb);
	return 0;
}
#endif

static unsigned int gmb_features[] = {
	VIRTIO_BALLOON_F_MUST_TELL_HOST,
	VIRTIO_BALLOON_F_STATS_VQ,
	VIRTIO_BALLOON_F_DEFLATE_ON_OOM,
	VIRTIO_BALLOON_F_FREE_PAGE_HINT,
	VIRTIO_BALLOON_F_PAGE_POISON,
	VIRTIO_BALLOON_F_REPORTING,
};

static const struct virtio_device_id gmb_id_table[] = {
	{ VIRTIO_ID_BALLOON, VIRTIO_DEV_ANY_ID },
	{ 0 },
};

static struct virtio_driver gmb_driver = {
	.feature_table		= gmb_features,
	.feature_table_size	= ARRAY_SIZE(gmb_features),
	.driver.name		= KBUILD_MODNAME,
	.driver.owner		= THIS_MODULE,
	.id_table		= gmb_id_table,
	.validate		= gmb_validate,
	.probe			= gmb_probe,
	.remove			= gmb_remove,
	.config_changed		= gmb_config_changed,
#ifdef CONFIG_PM_SLEEP
	.freeze			= gmb_freeze,
	.restore		= gmb_restore,
#endif
};

module_virtio_driver(gmb_driver);
MODULE_DEVICE_TABLE(virtio, gmb_id_table);
MODULE_DESCRIPTION("guestmm movable virtio balloon driver");
MODULE_LICENSE("GPL");
