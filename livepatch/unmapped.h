/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: the unmapped page cache policy (unmapped.c).
 *
 * Not a livepatch of any kernel function: per-node kthreads that call the
 * kernel's __node_reclaim() when a node's unmapped page cache is above
 * max_unmapped_ratio.  main.c starts and stops it.
 */
#ifndef _GUESTMM_KLP_UNMAPPED_H
#define _GUESTMM_KLP_UNMAPPED_H

struct dentry;

#ifdef GMM_KLP_UNMAPPED
/* Start the threads, apply unmapped_page_control=1 given at load. */
int gmm_um_init(struct dentry *debugfs_dir);
/* Turn the policy off, stop the threads; no probe runs afterwards. */
void gmm_um_exit(void);
#else
/*
 * The variant has no unmapped page cache control (its Kbuild.inc says
 * why): no parameters, no threads.
 */
static inline int gmm_um_init(struct dentry *debugfs_dir)
{
	return 0;
}

static inline void gmm_um_exit(void)
{
}
#endif

#endif /* _GUESTMM_KLP_UNMAPPED_H */
