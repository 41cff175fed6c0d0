// SPDX-License-Identifier: GPL-2.0
/*
 * What the driver tells the host, and the gate its work goes through:
 *  - the config space: the host's target, the balloon's actual size;
 *  - the stop gate: every work item is queued through gmb_queue_work*(),
 *    which queue nothing once remove or freeze has begun;
 *  - the inflate and deflate messages, one buffer each, waited for;
 *  - the queue of balloon page migrations the host has not heard of yet;
 *  - the bound device, for parameters that act on it at once.
 *
 * Migration notices: stock virtio_balloon tells the host at once: a 1-PFN inflate and a
 * 1-PFN deflate, two virtqueue round trips per migrated page, which is
 * what compaction in a ballooned guest mostly waits for.  Unless
 * MUST_TELL_HOST is negotiated the driver may reuse a page before the
 * device learns it left the balloon (virtio spec, balloon "Device
 * Operation"), and a frame the host has not yet been told to take is
 * simply still backed.  So we queue both frames and tell the host in
 * batches: when a queue holds migrate_batch pages, GMB_MIG_FLUSH_MS after
 * the first queued migration, and before any other inflate or deflate
 * message (gmb_tell_host()), which keeps every frame's changes in order.
 * A frame about to be queued one way while the other queue holds it (a
 * new frame migrated away again, an old frame reused as a target) sends
 * both queues first (gmb_migrate_queue()).  So a frame is in at most one
 * queue, and the two queues can be sent in either order.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/virtio.h>
#include <linux/virtio_balloon.h>
#include <linux/virtio_config.h>
#include <linux/workqueue.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"

unsigned int gmb_param_migrate_batch = GMB_MIG_BATCH_DEFAULT;
GMM_UINT_PARAM(migrate_batch, gmb_param_migrate_batch, GMB_PAGES_PER_PAGE,
	       GMB_PFNS_MAX, 0644);
MODULE_PARM_DESC(migrate_batch,
		 "Balloon page migrations told to the host per message (1-512, default 256; 1 = at once, as stock; always 1 with MUST_TELL_HOST)");

/* ---- the bound device ---- */

static DEFINE_MUTEX(gmb_dev_lock);
static struct gmb *gmb_dev;

/* Probe binds @vb, remove binds NULL. */
void gmb_host_bind(struct gmb *vb)
{
	mutex_lock(&gmb_dev_lock);
	gmb_dev = vb;
	mutex_unlock(&gmb_dev_lock);
}

/*
 * The bound device (or NULL), which stays bound until gmb_host_unlock():
 * for a parameter that acts on it at once.
 */
struct gmb *gmb_host_lock(void)
{
	mutex_lock(&gmb_dev_lock);
	return gmb_dev;
}

void gmb_host_unlock(void)
{
	mutex_unlock(&gmb_dev_lock);
}

/* ---- config space and the stop gate ---- */

u32 gmb_read_target(struct gmb *vb)
{
	u32 num_pages;

	/* The balloon config space is little-endian even for legacy. */
	virtio_cread_le(vb->vdev, struct virtio_balloon_config, num_pages,
			&num_pages);
	return num_pages;
}

/* Balloon pages to add (> 0) or remove (< 0) to reach the host's target. */
s64 gmb_towards_target(struct gmb *vb)
{
	/* Round up to whole guest pages so we never oscillate. */
	u32 target = ALIGN(gmb_read_target(vb), GMB_PAGES_PER_PAGE);

	WRITE_ONCE(vb->target, target);
	return (s64)target - READ_ONCE(vb->num_pages);
}

void gmb_write_actual(struct gmb *vb)
{
	u32 actual = READ_ONCE(vb->num_pages);

	virtio_cwrite_le(vb->vdev, struct virtio_balloon_config, actual,
			 &actual);
}

/*
 * The stop gate: queue @dw after @delay unless remove or freeze has begun
 * (stop_update); @rearm moves a queued @dw to the new time, else it keeps
 * its own.
 */
static void gmb_gate(struct gmb *vb, struct delayed_work *dw,
		     unsigned long delay, bool rearm)
{
	unsigned long flags;

	spin_lock_irqsave(&vb->stop_update_lock, flags);
	if (!vb->stop_update && rearm)
		mod_delayed_work(system_freezable_wq, dw, delay);
	else if (!vb->stop_update)
		queue_delayed_work(system_freezable_wq, dw, delay);
	spin_unlock_irqrestore(&vb->stop_update_lock, flags);
}

/* (Re)arm @dw to run after @delay, unless the device is going away. */
void gmb_queue_work(struct gmb *vb, struct delayed_work *dw,
		    unsigned long delay)
{
	gmb_gate(vb, dw, delay, true);
}

/*
 * Run @dw after @delay unless it is queued already (then it keeps its
 * time), and not once the device is going away.
 */
void gmb_queue_work_later(struct gmb *vb, struct delayed_work *dw,
			  unsigned long delay)
{
	gmb_gate(vb, dw, delay, false);
}

/* Run size_work after @delay unless it is queued already (sooner). */
void gmb_resize_later(struct gmb *vb, unsigned long delay)
{
	gmb_queue_work_later(vb, &vb->size_work, delay);
}

/* ---- inflate and deflate messages ---- */

void gmb_vq_ack(struct virtqueue *vq)
{
	struct gmb *vb = vq->vdev->priv;

	wake_up(&vb->acked);
}

/* Send @num pfns from @pfns on @vq and wait until the host has used them. */
void gmb_send_pfns(struct gmb *vb, struct virtqueue *vq, __virtio32 *pfns,
		   unsigned int num)
{
	struct scatterlist sg;
	unsigned int len;
	int err;

	lockdep_assert_held(&vb->balloon_lock);
	sg_init_one(&sg, pfns, sizeof(pfns[0]) * num);

	/* The queue is empty here, so one buffer always fits. */
	err = virtqueue_add_outbuf(vq, &sg, 1, vb, GFP_KERNEL);
	if (unlikely(err)) {
		dev_err_ratelimited(&vb->vdev->dev,
				    "cannot queue %u pfns on %s: %d\n",
				    num, vq->name, err);
		return;
	}
	virtqueue_kick(vq);
	wait_event(vb->acked, virtqueue_get_buf(vq, &len));

	if (vq == vb->inflate_vq) {
		gmb_count(vb, GMB_C_MSG_INFLATE, 1);
		gmb_count(vb, GMB_C_TOLD_IN, num / GMB_PAGES_PER_PAGE);
	} else {
		gmb_count(vb, GMB_C_MSG_DEFLATE, 1);
		gmb_count(vb, GMB_C_TOLD_OUT, num / GMB_PAGES_PER_PAGE);
	}
}

/*
 * Send vb->pfns[0..num_pfns) on @vq.  Migrations still queued go first,
 * so the host learns of every frame's changes in the order they happened.
 */
void gmb_tell_host(struct gmb *vb, struct virtqueue *vq)
{
	lockdep_assert_held(&vb->balloon_lock);
	gmb_migrate_flush(vb);
	gmb_send_pfns(vb, vq, vb->pfns, vb->num_pfns);
}

void gmb_set_page_pfns(struct gmb *vb, __virtio32 pfns[], struct page *page)
{
	u32 first = page_to_pfn(page) * GMB_PAGES_PER_PAGE;
	unsigned int i;

	BUILD_BUG_ON(PAGE_SHIFT < VIRTIO_BALLOON_PFN_SHIFT);
	BUILD_BUG_ON(GMB_PAGES_PER_PAGE > GMB_PFNS_MAX);

	for (i = 0; i < GMB_PAGES_PER_PAGE; i++)
		pfns[i] = cpu_to_virtio32(vb->vdev, first + i);
}

/* ---- migration notices ---- */

static struct virtqueue *gmb_mig_vq(struct gmb *vb, int dir)
{
	return dir == GMB_MIG_IN ? vb->inflate_vq : vb->deflate_vq;
}

/* Tell the host about every queued migration. */
void gmb_migrate_flush(struct gmb *vb)
{
	bool sent = false;
	int dir;

	lockdep_assert_held(&vb->balloon_lock);
	for (dir = GMB_MIG_IN; dir <= GMB_MIG_OUT; dir++) {
		struct gmb_mig_queue *q = &vb->mig[dir];

		if (!q->nr)
			continue;
		gmb_send_pfns(vb, gmb_mig_vq(vb, dir), q->pfns,
			      q->nr * GMB_PAGES_PER_PAGE);
		q->nr = 0;
		sent = true;
	}
	if (sent)
		gmb_count(vb, GMB_C_MIG_FLUSHES, 1);
}

static void gmb_migrate_work(struct work_struct *work)
{
	struct gmb *vb = container_of(to_delayed_work(work), struct gmb,
				      mig_work);

	mutex_lock(&vb->balloon_lock);
	gmb_migrate_flush(vb);
	mutex_unlock(&vb->balloon_lock);
}

/*
 * Queue @page's frame for the host in direction @dir.  If the other queue
 * holds the frame already (a new frame migrated away again, or an old
 * frame reused as a migration target, within one batch), send both queues
 * first: the host must see the frame's changes in order, and the two
 * messages of a flush cannot say which came first.  Dropping both entries
 * instead would be wrong for an old frame that comes back: it may have
 * been written in between (a migration target is zeroed under
 * init_on_alloc), so the host backs it again and must be told to take it.
 */
static void gmb_migrate_queue(struct gmb *vb, int dir, struct page *page)
{
	struct gmb_mig_queue *q = &vb->mig[dir], *other = &vb->mig[!dir];
	__virtio32 first[GMB_PAGES_PER_PAGE];
	unsigned int i;

	lockdep_assert_held(&vb->balloon_lock);
	gmb_set_page_pfns(vb, first, page);
	for (i = 0; i < other->nr; i++) {
		if (other->pfns[i * GMB_PAGES_PER_PAGE] == first[0]) {
			gmb_count(vb, GMB_C_MIG_COLLISIONS, 1);
			gmb_migrate_flush(vb);
			break;
		}
	}
	memcpy(&q->pfns[q->nr * GMB_PAGES_PER_PAGE], first, sizeof(first));
	q->nr++;
}

/* Pages per batch now: migrate_batch, in 4 KiB pfns, as whole pages. */
static unsigned int gmb_migrate_batch(struct gmb *vb)
{
	unsigned int pfns = READ_ONCE(gmb_param_migrate_batch);

	if (vb->mig_sync)
		return 1;
	return max(1U, min_t(unsigned int, pfns, GMB_PFNS_MAX) /
		       GMB_PAGES_PER_PAGE);
}

/*
 * The host learns that @newpage replaced @page: now (migrate_batch=1 or
 * MUST_TELL_HOST: inflate the new frame, then deflate the old one, as
 * stock does) or with the next batch.
 */
void gmb_migrate_tell(struct gmb *vb, struct page *newpage,
		      struct page *page)
{
	unsigned int batch = gmb_migrate_batch(vb);

	lockdep_assert_held(&vb->balloon_lock);
	gmb_migrate_queue(vb, GMB_MIG_IN, newpage);
	gmb_migrate_queue(vb, GMB_MIG_OUT, page);
	if (vb->mig[GMB_MIG_IN].nr >= batch ||
	    vb->mig[GMB_MIG_OUT].nr >= batch)
		gmb_migrate_flush(vb);
	else if (vb->mig[GMB_MIG_IN].nr || vb->mig[GMB_MIG_OUT].nr)
		queue_delayed_work(system_freezable_wq, &vb->mig_work,
				   msecs_to_jiffies(GMB_MIG_FLUSH_MS));
}

void gmb_host_init(struct gmb *vb)
{
	INIT_DELAYED_WORK(&vb->mig_work, gmb_migrate_work);
	vb->mig_sync = gmb_has(vb, VIRTIO_BALLOON_F_MUST_TELL_HOST);
}

/*
 * Before the virtqueues go (remove, freeze; the balloon is empty, so no
 * migration can queue more): send what is queued, then make sure the
 * flush work is not running.
 */
void gmb_migrate_stop(struct gmb *vb)
{
	mutex_lock(&vb->balloon_lock);
	gmb_migrate_flush(vb);
	mutex_unlock(&vb->balloon_lock);
	cancel_delayed_work_sync(&vb->mig_work);
}
