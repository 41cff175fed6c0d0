// SPDX-License-Identifier: GPL-2.0
/*
 * Free page reporting and free page hinting.
 *
 * Reporting (VIRTIO_BALLOON_F_REPORTING): the page_reporting core hands us
 * scatterlists of free pages of at least the reporting order; we put them
 * on the reporting vq and wait until the host has discarded them.  Only one
 * reporting device can exist system-wide; if registration is refused the
 * driver says so and runs without reporting.
 *
 * Hinting (VIRTIO_BALLOON_F_FREE_PAGE_HINT): when the host publishes a new
 * command id (during live migration) we allocate as many max-order blocks
 * as we can without reclaim and post them on the free page vq, bracketed
 * by the command id and a stop id.  The host may skip them during
 * migration.  The blocks come back to the guest when the host says DONE,
 * or earlier through a shrinker when the guest needs memory.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/moduleparam.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"

unsigned int gmb_param_report_order;
unsigned int gmb_param_report_delay_ms;
GMM_UINT_PARAM(report_order, gmb_param_report_order, 0, GMM_MAX_PAGE_ORDER,
	       0444);
GMM_UINT_PARAM(report_delay_ms, gmb_param_report_delay_ms, 0,
	       GMB_REPORT_DELAY_MAX_MS, 0644);
MODULE_PARM_DESC(report_delay_ms,
		 "Report freed pages to the host this long after they are freed (0-600000 ms; 0 = the kernel's own 2 s)");
MODULE_PARM_DESC(report_order,
		 "Free page reporting order (0 = kernel default, pageblock_order). Read at probe.");

enum { GMB_CONFIG_READ_CMD_ID = 0 };

/* ---- free page reporting ---- */

/* PAGE_REPORTING_DELAY, in the mm-internal mm/page_reporting.h: 2 s (6.1, 6.12) */
#define GMB_KERNEL_REPORT_DELAY	(2 * HZ)

/*
 * report_delay_ms: the page_reporting core reports freed pages about 2 s
 * after the first free, a fixed delay.  A longer one lets freed memory be
 * reused or merge before the host drops it.  The first call of a round is
 * refused, so the core puts its pages back unreported, and the core's own
 * reporting work (ours to schedule: it lives in pr_dev_info) is queued for
 * the end of the delay, when that pass reports everything.  Calls less
 * than a second apart belong to one pass.  Only the core's work calls
 * gmb_report(), one call at a time, so no lock is needed.
 */
static bool gmb_report_hold(struct gmb *vb)
{
	unsigned long delay = msecs_to_jiffies(READ_ONCE(gmb_param_report_delay_ms));
	unsigned long now = jiffies, last = vb->report_last;

	vb->report_last = now;
	if (delay <= GMB_KERNEL_REPORT_DELAY)
		return false;
	if (vb->report_hold_until) {
		if (time_before(now, vb->report_hold_until))
			goto hold;
		vb->report_hold_until = 0;	/* the held pass */
		return false;
	}
	if (last && time_before(now, last + HZ))
		return false;			/* the same pass */
	vb->report_hold_until = now + delay - GMB_KERNEL_REPORT_DELAY;
hold:
	schedule_delayed_work(&vb->pr_dev_info.work,
			      vb->report_hold_until - now);
	gmb_count(vb, GMB_C_REPORTS_HELD, 1);
	return true;
}

static int gmb_report(struct page_reporting_dev_info *pr_dev_info,
		      struct scatterlist *sgl, unsigned int nents)
{
	struct gmb *vb = container_of(pr_dev_info, struct gmb, pr_dev_info);
	struct virtqueue *vq = vb->reporting_vq;
	struct scatterlist *sg;
	unsigned long bytes = 0;
	unsigned int unused, i;
	int err;

	if (gmb_report_hold(vb))
		return -EAGAIN;

	/* Indirect descriptors are off (validate), so this cannot allocate. */
	err = virtqueue_add_inbuf(vq, sgl, nents, vb, GFP_NOWAIT | __GFP_NOWARN);
	if (WARN_ON_ONCE(err))
		return err;
	virtqueue_kick(vq);
	wait_event(vb->acked, virtqueue_get_buf(vq, &unused));

	for_each_sg(sgl, sg, nents, i)
		bytes += sg->length;
	gmb_count(vb, GMB_C_REPORTS, 1);
	gmb_count(vb, GMB_C_REPORTED_PAGES, bytes >> PAGE_SHIFT);
	return 0;
}

int gmb_reporting_start(struct gmb *vb)
{
	struct device *dev = &vb->vdev->dev;
	unsigned int capacity, order;
	int err;

	if (!gmb_has(vb, VIRTIO_BALLOON_F_REPORTING))
		return 0;

	capacity = virtqueue_get_vring_size(vb->reporting_vq);
	if (capacity < PAGE_REPORTING_CAPACITY) {
		dev_warn(dev,
			 "free page reporting disabled: reporting vq has %u entries, need %u\n",
			 capacity, PAGE_REPORTING_CAPACITY);
		return 0;
	}

	vb->pr_dev_info.report = gmb_report;
	/* 0 lets the core pick pageblock_order (2 MiB on x86). */
	order = READ_ONCE(gmb_param_report_order);
	vb->pr_dev_info.order = gmm_report_order(order);

	err = page_reporting_register(&vb->pr_dev_info);
	if (err == -EBUSY) {
		dev_warn(dev,
			 "free page reporting NOT enabled: another free page reporting device is registered (only one may exist); continuing without it\n");
		return 0;
	}
	if (err) {
		dev_warn(dev,
			 "free page reporting NOT enabled (error %d); continuing without it\n",
			 err);
		return 0;
	}
	vb->reporting_registered = true;
	dev_info(dev, "free page reporting enabled (order %u, delay %u ms)\n",
		 order ? order : (unsigned int)pageblock_order,
		 max(READ_ONCE(gmb_param_report_delay_ms),
		     jiffies_to_msecs(GMB_KERNEL_REPORT_DELAY)));
	return 0;
}

void gmb_reporting_stop(struct gmb *vb)
{
	if (!vb->reporting_registered)
		return;
	page_reporting_unregister(&vb->pr_dev_info);
	vb->reporting_registered = false;
}

/* ---- free page hinting ---- */

static u32 gmb_cmd_id_received(struct gmb *vb)
{
	if (test_and_clear_bit(GMB_CONFIG_READ_CMD_ID, &vb->config_read_bitmap))
		virtio_cread_le(vb->vdev, struct virtio_balloon_config,
				free_page_hint_cmd_id,
				&vb->cmd_id_received_cache);
	return vb->cmd_id_received_cache;
}

/* Give up to @nr hint blocks back to the page allocator. */
static unsigned long gmb_hint_return(struct gmb *vb, unsigned long nr)
{
	unsigned long done;
	struct page *page;

	spin_lock_irq(&vb->hint_lock);
	for (done = 0; done < nr; done++) {
		page = gmb_page_pop(&vb->hint_pages);
		if (!page)
			break;
		__free_pages(page, GMB_HINT_ORDER);
	}
	vb->nr_hint_blocks -= done;
	spin_unlock_irq(&vb->hint_lock);

	gmb_count(vb, GMB_C_HINT_RETURNED, done);
	return done;
}

void gmb_hint_return_all(struct gmb *vb)
{
	if (gmb_has(vb, VIRTIO_BALLOON_F_FREE_PAGE_HINT))
		gmb_hint_return(vb, ULONG_MAX);
}

static void gmb_hint_drain(struct virtqueue *vq)
{
	unsigned int unused;

	while (virtqueue_get_buf(vq, &unused))
		;
}

static int gmb_hint_send_id(struct gmb *vb, __virtio32 *id)
{
	struct virtqueue *vq = vb->free_page_vq;
	struct scatterlist sg;
	int err;

	gmb_hint_drain(vq);
	sg_init_one(&sg, id, sizeof(*id));
	err = virtqueue_add_outbuf(vq, &sg, 1, id, GFP_KERNEL);
	if (!err)
		virtqueue_kick(vq);
	return err;
}

/* Returns 1 when no more blocks can be allocated, 0 to go on, or -errno. */
static int gmb_hint_send_block(struct gmb *vb)
{
	struct virtqueue *vq = vb->free_page_vq;
	struct scatterlist sg;
	struct page *page;
	void *p;
	int err;

	gmb_hint_drain(vq);

	page = alloc_pages(GMB_HINT_GFP, GMB_HINT_ORDER);
	if (!page)
		return 1;

	p = page_address(page);
	/* One entry stays free for the stop id. */
	if (vq->num_free <= 1) {
		__free_pages(page, GMB_HINT_ORDER);
		return 0;
	}
	sg_init_one(&sg, p, GMB_HINT_PAGES << PAGE_SHIFT);
	err = virtqueue_add_inbuf(vq, &sg, 1, p, GFP_KERNEL);
	if (unlikely(err)) {
		__free_pages(page, GMB_HINT_ORDER);
		return err;
	}
	virtqueue_kick(vq);

	spin_lock_irq(&vb->hint_lock);
	gmb_page_push(&vb->hint_pages, page);
	vb->nr_hint_blocks++;
	spin_unlock_irq(&vb->hint_lock);
	gmb_count(vb, GMB_C_HINT_BLOCKS, 1);
	return 0;
}

static void gmb_hint_run(struct gmb *vb)
{
	struct device *dev = &vb->vdev->dev;
	int err;

	gmb_count(vb, GMB_C_HINT_RUNS, 1);

	vb->cmd_id_active = cpu_to_virtio32(vb->vdev, gmb_cmd_id_received(vb));
	err = gmb_hint_send_id(vb, &vb->cmd_id_active);
	if (err)
		dev_err(dev, "free page hint: cannot send start id: %d\n", err);

	/* Stop as soon as the host publishes another id (or STOP). */
	while (virtio32_to_cpu(vb->vdev, vb->cmd_id_active) ==
	       gmb_cmd_id_received(vb)) {
		err = gmb_hint_send_block(vb);
		if (err > 0)
			break;
		if (err < 0) {
			dev_err(dev, "free page hint: cannot send block: %d\n",
				err);
			break;
		}
	}

	err = gmb_hint_send_id(vb, &vb->cmd_id_stop);
	if (err)
		dev_err(dev, "free page hint: cannot send stop id: %d\n", err);
}

static void gmb_hint_work(struct work_struct *work)
{
	struct gmb *vb = container_of(work, struct gmb, hint_work);
	u32 cmd = gmb_cmd_id_received(vb);

	if (cmd == VIRTIO_BALLOON_CMD_ID_DONE)
		gmb_hint_return(vb, ULONG_MAX);
	else if (cmd != VIRTIO_BALLOON_CMD_ID_STOP &&
		 cmd != virtio32_to_cpu(vb->vdev, vb->cmd_id_active))
		gmb_hint_run(vb);
}

/* Config interrupt, under stop_update_lock. */
void gmb_hint_config_changed(struct gmb *vb)
{
	if (!gmb_has(vb, VIRTIO_BALLOON_F_FREE_PAGE_HINT))
		return;
	if (test_and_set_bit(GMB_CONFIG_READ_CMD_ID, &vb->config_read_bitmap))
		return;
	queue_work(vb->hint_wq, &vb->hint_work);
}

static unsigned long gmb_hint_count(struct shrinker *s,
				    struct shrink_control *sc)
{
	struct gmb *vb = gmm_shrinker_priv(s);

	return READ_ONCE(vb->nr_hint_blocks) * GMB_HINT_PAGES;
}

static unsigned long gmb_hint_scan(struct shrinker *s,
				   struct shrink_control *sc)
{
	struct gmb *vb = gmm_shrinker_priv(s);
	unsigned long blocks = DIV_ROUND_UP(sc->nr_to_scan, GMB_HINT_PAGES);

	return gmb_hint_return(vb, blocks) * GMB_HINT_PAGES;
}

int gmb_hint_init(struct gmb *vb)
{
	struct shrinker *s;

	if (!gmb_has(vb, VIRTIO_BALLOON_F_FREE_PAGE_HINT))
		return 0;

	/* One entry is always kept for the command id. */
	if (virtqueue_get_vring_size(vb->free_page_vq) < 2) {
		dev_err(&vb->vdev->dev, "free page vq too small\n");
		return -ENOSPC;
	}

	vb->hint_wq = alloc_workqueue("guestmm_balloon_hint",
				      WQ_FREEZABLE | WQ_CPU_INTENSIVE, 0);
	if (!vb->hint_wq)
		return -ENOMEM;
	INIT_WORK(&vb->hint_work, gmb_hint_work);
	spin_lock_init(&vb->hint_lock);
	INIT_LIST_HEAD(&vb->hint_pages);
	vb->cmd_id_received_cache = VIRTIO_BALLOON_CMD_ID_STOP;
	vb->cmd_id_active = cpu_to_virtio32(vb->vdev,
					    VIRTIO_BALLOON_CMD_ID_STOP);
	vb->cmd_id_stop = cpu_to_virtio32(vb->vdev, VIRTIO_BALLOON_CMD_ID_STOP);

	/* Hint blocks are free memory the guest may take back at any time. */
	s = gmm_shrinker_create(gmb_hint_count, gmb_hint_scan, vb,
				"guestmm-balloon-hint");
	if (IS_ERR(s)) {
		destroy_workqueue(vb->hint_wq);
		vb->hint_wq = NULL;
		return PTR_ERR(s);
	}
	vb->hint_shrinker = s;
	return 0;
}

/* Stop hinting activity; blocks still held are returned by the caller. */
void gmb_hint_exit(struct gmb *vb)
{
	if (!vb->hint_wq)
		return;
	gmm_shrinker_destroy(vb->hint_shrinker);
	vb->hint_shrinker = NULL;
	cancel_work_sync(&vb->hint_work);
	destroy_workqueue(vb->hint_wq);
	vb->hint_wq = NULL;
}
