/* SPDX-License-Identifier: GPL-2.0 */
/* guestmm_klp: the debugfs directory and its stats file (stats.c). */
#ifndef _GUESTMM_KLP_STATS_H
#define _GUESTMM_KLP_STATS_H

struct dentry;

/* Create /sys/kernel/debug/guestmm_klp/ with "stats"; return the dir. */
struct dentry *gmm_klp_stats_init(void);

#endif /* _GUESTMM_KLP_STATS_H */
