/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The balloon core's contract, behind one interface.
 *
 * The kernel's balloon core keeps the movable balloon pages (movable=1)
 * on b_dev_info.pages and lets compaction migrate them.  Its API differs
 * between kernels (compat.h: GMM_BALLOON_CORE_V2), and one backend file
 * serves each (core.c has the calls that are the same on both):
 *
 *  - core_compaction.c, mm/balloon_compaction.c (6.x): pages_lock is the
 *    device's and exported, and the driver's migratepage inserts the new
 *    page and finalizes the old one itself.
 *  - core_balloon.c, mm/balloon.c (7.x): the core's lock is private, and
 *    the core inserts, finalizes and counts; migratepage only tells the
 *    host.
 *
 * Everything else in the driver goes through these functions, and
 * gmb_blocks_lock() (guestmm_balloon.h) names the lock of the block
 * counts.  Chunk mode's own movable_operations (chunk_mops.c) build on
 * the 6.x core alone.
 */
#ifndef _GUESTMM_BALLOON_CORE_H
#define _GUESTMM_BALLOON_CORE_H

#include <linux/list.h>
#include <linux/mm_types.h>

struct gmb;

/* At probe: the device's balloon_dev_info and its migration callback. */
void gmb_core_init(struct gmb *vb);

/* A page for the balloon core (balloon_page_alloc()), or NULL. */
struct page *gmb_core_alloc(void);

/* A page enters the core's list, movable from now on. */
void gmb_core_enqueue(struct gmb *vb, struct page *page);

/*
 * Up to @n pages off the core's list onto @pages, no longer balloon pages.
 * Fewer (even 0) while pages remain when those are isolated for
 * migration right now.  Returns how many.
 */
unsigned int gmb_core_dequeue(struct gmb *vb, struct list_head *pages,
			      unsigned int n);

/*
 * Whether chunk mode's own movable_operations (chunk_mops.c) can be set
 * on a page: the 6.x core's __SetPageMovable().  The 7.x core gives every
 * balloon page its balloon_mops.
 */
bool gmb_core_chunk_mops(void);

/* Pages isolated for migration right now (debugfs). */
unsigned long gmb_core_isolated(struct gmb *vb);

#endif /* _GUESTMM_BALLOON_CORE_H */
