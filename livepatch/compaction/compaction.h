/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: the compaction feature (compaction/, kernels.tsv's
 * compaction column), as main.c puts it in the patch: our compact_zone()
 * (compaction/variants/<V>/compact_zone.c), its scanner's tunables
 * (tunables.c) and counters (stats.c).
 */
#ifndef _GUESTMM_KLP_COMPACTION_H
#define _GUESTMM_KLP_COMPACTION_H

#include "btf_check.h"
#include "feature.h"

extern const struct gmm_klp_feature gmm_klp_compaction;

/* variants/<V>/layout.c: for btf_check.c, ended by an entry without a name */
extern const struct gmm_klp_layout gmm_klp_compaction_layouts[];

#endif /* _GUESTMM_KLP_COMPACTION_H */
