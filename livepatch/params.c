// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the parsers of the features' module parameters, which
 * refuse bad values with a message and keep the old value: the ones the
 * balloon uses (modules/gmm_param.[ch]), compiled in here once for the
 * compaction feature's tunables (compaction/tunables.c) and the reclaim
 * feature's parameters (reclaim/unmapped.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/sysfs.h>

#include "../modules/gmm_param.c"
