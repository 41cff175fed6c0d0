/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: strict parsers for module parameters (params.c), shared by
 * the scanner's tunables and the unmapped page cache control.
 */
#ifndef _GUESTMM_KLP_PARAMS_H
#define _GUESTMM_KLP_PARAMS_H

#include <linux/types.h>

/*
 * Parse a bool strictly: kstrtobool() reads only the first character or
 * two, so "12abc" would turn a policy on.
 */
int gmm_klp_parse_bool(const char *val, const char *name, bool *res);

#endif /* _GUESTMM_KLP_PARAMS_H */
