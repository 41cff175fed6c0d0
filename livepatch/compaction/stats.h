/* SPDX-License-Identifier: GPL-2.0 */
/* guestmm_klp: the scanner's counters in debugfs (stats.c). */
#ifndef _GUESTMM_KLP_STATS_H
#define _GUESTMM_KLP_STATS_H

struct dentry;

/* Create "stats" in @dir, /sys/kernel/debug/guestmm_klp/. */
int gmm_klp_stats_init(struct dentry *dir);

#endif /* _GUESTMM_KLP_STATS_H */
