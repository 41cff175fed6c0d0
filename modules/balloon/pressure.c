// SPDX-License-Identifier: GPL-2.0
/*
 * Giving memory back when the guest runs out.
 *
 * With VIRTIO_BALLOON_F_DEFLATE_ON_OOM the host allows the guest to
 * deflate on its own when it is about to OOM-kill.  Stock deflates 1 MiB
 * per OOM call and inflates straight back as soon as anything wakes its
 * resize work, which under a memory hog becomes a deflate/inflate busy
 * loop (vCPUs at 100 %, as seen in firecracker issue 4324).  We size the
 * step by pressure and hold re-inflation back:
 *  - OOM calls less than GMB_OOM_EPISODE_MS apart are one episode; within
 *    it every call doubles the step, from oom_pages up to 64 x oom_pages,
 *    so a hog is fed in a few calls rather than hundreds.
 *  - After an episode, inflation waits backoff_ms (2 s), doubled up to
 *    60 s whenever the next episode follows within twice the back-off of
 *    re-inflation resuming (the memory was needed after all), and reset
 *    otherwise.
 *  - Hysteresis: when the back-off is over, inflation resumes only while
 *    MemAvailable exceeds what the last episode deflated and inflation has
 *    not taken back yet, plus the step about to be taken; else it waits
 *    another back-off.  Once the balloon is back at the host's target
 *    the episode is forgotten.
 * Deflation towards a lower host target is never held back.  With more
 * than one node, the pages given back on OOM are the short nodes' first
 * (numa.c).
 */
#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/moduleparam.h>

#include "gmm_param.h"
#include "guestmm_balloon.h"
#include "trace.h"

unsigned int gmb_param_oom_pages = GMB_OOM_PAGES_DEFAULT;
GMM_UINT_PARAM(oom_pages, gmb_param_oom_pages, GMB_PAGES_PER_PAGE,
	       GMB_OOM_PAGES_MAX, 0644);
MODULE_PARM_DESC(oom_pages,
		 "4 KiB pages deflated per OOM notification with DEFLATE_ON_OOM (1-65536, default 256)");

/* A new OOM episode: reset the step, set the back-off.  Under oom_lock. */
static void gmb_oom_episode(struct gmb *vb, unsigned long now)
{
	unsigned long resumed = READ_ONCE(vb->oom_resumed_at);

	gmb_count(vb, GMB_C_OOM_EPISODES, 1);
	vb->oom_shift = 0;
	atomic_long_set(&vb->oom_held, 0);
	if (resumed && time_before(now, resumed +
				   msecs_to_jiffies(2 * vb->backoff_ms)))
		/* Back so soon after re-inflating: that memory was needed. */
		vb->backoff_ms = min(vb->backoff_ms * 2, GMB_BACKOFF_MAX_MS);
	else if (resumed || !vb->backoff_ms)
		vb->backoff_ms = GMB_BACKOFF_MIN_MS;
	/* else no re-inflation since the last episode: keep the back-off */
	WRITE_ONCE(vb->oom_resumed_at, 0);
}

static int gmb_oom_notify(struct notifier_block *nb, unsigned long dummy,
			  void *parm)
{
	struct gmb *vb = container_of(nb, struct gmb, oom_nb);
	unsigned long now = jiffies, *freed = parm;
	unsigned long want, done = 0, n;
	const nodemask_t *nodes;
	nodemask_t short_nodes;

	gmb_count(vb, GMB_C_OOM_CALLS, 1);
	if (vb->oom_last &&
	    time_before(now, vb->oom_last + msecs_to_jiffies(GMB_OOM_EPISODE_MS)))
		vb->oom_shift = min(vb->oom_shift + 1, GMB_OOM_STEP_SHIFT_MAX);
	else
		gmb_oom_episode(vb, now);
	vb->oom_last = now;

	want = (unsigned long)READ_ONCE(gmb_param_oom_pages) << vb->oom_shift;
	/* The nodes under pressure first, then any (numa.c). */
	nodes = gmb_numa_short_nodes(&short_nodes);
	while (done < want) {
		n = gmb_leak(vb, min_t(unsigned long, want - done, UINT_MAX),
			     GMB_LEAK_OOM, nodes);
		if (!n && nodes) {
			nodes = NULL;
			continue;
		}
		if (!n)
			break;
		done += n;
	}
	gmb_write_actual(vb);

	atomic_long_add(done / GMB_PAGES_PER_PAGE, &vb->oom_held);
	WRITE_ONCE(vb->reinflate_after, now + msecs_to_jiffies(vb->backoff_ms));
	/* Without a host request nothing else would ever resume inflation. */
	gmb_resize_later(vb, msecs_to_jiffies(vb->backoff_ms));

	*freed += done / GMB_PAGES_PER_PAGE;
	gmb_count(vb, GMB_C_OOM_DEFLATED, done / GMB_PAGES_PER_PAGE);
	trace_guestmm_balloon_oom_deflate(done, READ_ONCE(vb->num_pages));
	return NOTIFY_OK;
}

/**
 * gmb_reinflate_wait - may the balloon grow by @num pages now?
 * @vb: the balloon
 * @num: balloon pages the next inflation step would add
 *
 * Return: 0 to go ahead, else jiffies to wait (back-off or hysteresis).
 */
unsigned long gmb_reinflate_wait(struct gmb *vb, unsigned long num)
{
	unsigned long held = atomic_long_read(&vb->oom_held);
	unsigned long after = READ_ONCE(vb->reinflate_after);
	unsigned long now = jiffies;

	if (!held)
		return 0;
	if (time_before(now, after)) {
		gmb_count(vb, GMB_C_REINFLATE_WAITS, 1);
		return after - now;
	}
	if (si_mem_available() < held + num / GMB_PAGES_PER_PAGE) {
		gmb_count(vb, GMB_C_REINFLATE_WAITS, 1);
		return msecs_to_jiffies(READ_ONCE(vb->backoff_ms));
	}
	if (!READ_ONCE(vb->oom_resumed_at)) {
		/* The first step after this episode (never 0: see above). */
		gmb_count(vb, GMB_C_REINFLATIONS, 1);
		WRITE_ONCE(vb->oom_resumed_at, now | 1);
	}
	return 0;
}

/* The balloon reached the host's target: the last episode is over. */
void gmb_reinflate_done(struct gmb *vb)
{
	atomic_long_set(&vb->oom_held, 0);
}

/*
 * Inflation took @pages (balloon pages) back: that much of what the last
 * episode deflated is no longer held.  The hysteresis then asks, at every
 * step, for the same margin it asked for before the first one (the step,
 * once all of it is back): MemAvailable and what is still held fall
 * together.  Counting the whole episode at every step would ask the
 * guest for twice what the episode gave it before the last steps, and a
 * guest using that much more than at the start would stop short of the
 * host's target for good.
 */
void gmb_reinflated(struct gmb *vb, unsigned long pages)
{
	long held = atomic_long_read(&vb->oom_held);

	pages /= GMB_PAGES_PER_PAGE;
	do {
		if (held <= 0)
			return;
	} while (!atomic_long_try_cmpxchg(&vb->oom_held, &held,
					  held - min_t(long, held, pages)));
}

int gmb_oom_register(struct gmb *vb)
{
	if (!gmb_has(vb, VIRTIO_BALLOON_F_DEFLATE_ON_OOM))
		return 0;
	vb->oom_nb.notifier_call = gmb_oom_notify;
	vb->oom_nb.priority = GMB_OOM_PRIORITY;
	return register_oom_notifier(&vb->oom_nb);
}

void gmb_oom_unregister(struct gmb *vb)
{
	if (!gmb_has(vb, VIRTIO_BALLOON_F_DEFLATE_ON_OOM))
		return;
	unregister_oom_notifier(&vb->oom_nb);
}
