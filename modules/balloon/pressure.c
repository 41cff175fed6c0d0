// SPDX-License-Identifier: GPL-2.0
/*
 * Giving memory back when the guest runs out.
 *
 * With VIRTIO_BALLOON_F_DEFLATE_ON_OOM the host allows the guest to
 * deflate on its own when it is about to OOM-kill.  The OOM notifier
 * deflates oom_pages balloon pages per call (stock: 256 = 1 MiB) and
 * reports the new size.  The balloon is not re-inflated until the host
 * changes the target again.
 *
 * The floor keeps the host from ballooning the guest to death: the balloon
 * never grows past the point where the guest would keep less than
 * floor_mb of its memory.  The automatic floor (floor_mb=-1, default) is
 * the one hv_balloon uses: 104 MiB + 1/8 of RAM for 512 MiB..2 GiB guests
 * (232 MiB for 1 GiB), scaled for smaller and larger guests.  A host
 * target below the floor is not an error; the balloon stops at the floor
 * and tries again later.
 */
#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/sizes.h>

#include "guestmm_balloon.h"
#include "trace.h"

#define MIB_PAGES(mb)	((unsigned long)(mb) << (20 - PAGE_SHIFT))

/* Guest memory, in Linux pages, with the balloon counted as guest memory. */
static unsigned long gmb_guest_pages(struct gmb *vb)
{
	unsigned long total = totalram_pages();

	if (vb->adjust_managed)
		total += READ_ONCE(vb->num_pages) / GMB_PAGES_PER_PAGE;
	return total;
}

static unsigned long gmb_auto_floor(unsigned long total)
{
	if (total < MIB_PAGES(128))
		return MIB_PAGES(8) + (total >> 1);
	if (total < MIB_PAGES(512))
		return MIB_PAGES(40) + (total >> 2);
	if (total < MIB_PAGES(2048))
		return MIB_PAGES(104) + (total >> 3);
	if (total < MIB_PAGES(8192))
		return MIB_PAGES(232) + (total >> 4);
	return MIB_PAGES(488) + (total >> 5);
}

/* The floor in Linux pages (0 = none). */
unsigned long gmb_floor_pages(struct gmb *vb)
{
	int mb = READ_ONCE(gmb_param_floor_mb);

	if (mb == GMB_FLOOR_AUTO)
		return gmb_auto_floor(gmb_guest_pages(vb));
	return MIB_PAGES(mb);
}

/**
 * gmb_floor_allow - how much of an inflation the floor permits
 * @vb: the balloon
 * @num: balloon pages the host wants added
 *
 * Return: balloon pages that may be added (<= @num).
 */
unsigned int gmb_floor_allow(struct gmb *vb, unsigned int num)
{
	unsigned long total = gmb_guest_pages(vb);
	unsigned long floor = gmb_floor_pages(vb);
	unsigned long held = READ_ONCE(vb->num_pages) / GMB_PAGES_PER_PAGE;
	unsigned long room;

	room = total > floor + held ? total - floor - held : 0;
	if ((unsigned long)num / GMB_PAGES_PER_PAGE <= room)
		return num;
	gmb_count(vb, GMB_C_FLOOR_LIMITED, 1);
	dev_info_ratelimited(&vb->vdev->dev,
			     "not inflating below the floor of %lu MiB (host wants %u more pages)\n",
			     floor >> (20 - PAGE_SHIFT), num);
	return room * GMB_PAGES_PER_PAGE;
}

static int gmb_oom_notify(struct notifier_block *nb, unsigned long dummy,
			  void *parm)
{
	struct gmb *vb = container_of(nb, struct gmb, oom_nb);
	unsigned int want = READ_ONCE(gmb_param_oom_pages);
	unsigned long *freed = parm;
	unsigned int done = 0, n;

	gmb_count(vb, GMB_C_OOM_CALLS, 1);
	while (done < want) {
		n = gmb_leak(vb, want - done);
		if (!n)
			break;
		done += n;
	}
	gmb_write_actual(vb);

	*freed += done / GMB_PAGES_PER_PAGE;
	gmb_count(vb, GMB_C_OOM_DEFLATED, done / GMB_PAGES_PER_PAGE);
	trace_guestmm_balloon_oom_deflate(done, READ_ONCE(vb->num_pages));
	return NOTIFY_OK;
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
