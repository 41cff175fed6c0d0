/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: the reclaim feature (reclaim/, kernels.tsv's reclaim
 * column), as main.c puts it in the patch: the unmapped page cache
 * control (unmapped.c, unmapped_walk.c), which replaces pgdat_balanced().
 */
#ifndef _GUESTMM_KLP_RECLAIM_H
#define _GUESTMM_KLP_RECLAIM_H

#include "btf_check.h"
#include "feature.h"

extern const struct gmm_klp_feature gmm_klp_reclaim;

/* variants/<V>/layout.c: for btf_check.c, ended by an entry without a name */
extern const struct gmm_klp_layout gmm_klp_reclaim_layouts[];

#endif /* _GUESTMM_KLP_RECLAIM_H */
