// SPDX-License-Identifier: GPL-2.0
/* guestmm_balloon's copy of the shared parameter parsing (gmm_param.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "gmm_param.c"
