/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: the unmapped page cache control (unmapped.c,
 * unmapped_walk.c).
 *
 * A livepatch of pgdat_balanced() (mm/vmscan.c): kswapd treats a node whose
 * unmapped page cache is above max_unmapped_ratio as not balanced, and
 * frees unmapped clean page cache in balance_pgdat().  reclaim.c hands
 * gmm_pgdat_balanced(), init, exit and the callbacks to main.c's patch.
 */
#ifndef _GUESTMM_KLP_UNMAPPED_H
#define _GUESTMM_KLP_UNMAPPED_H

#include <linux/mmzone.h>

struct dentry;

/* Find what the policy needs, apply unmapped_page_control=1 given at load. */
int gmm_um_init(struct dentry *debugfs_dir);
/* Turn the policy off; no probe or timer runs afterwards. */
void gmm_um_exit(void);
/* The replacement of pgdat_balanced(). */
bool gmm_pgdat_balanced(pg_data_t *pgdat, int order, int highest_zoneidx);
/* Around a disable transition: no pass while the patch leaves. */
void gmm_um_pre_unpatch(void);
void gmm_um_post_patch(void);

#endif /* _GUESTMM_KLP_UNMAPPED_H */
