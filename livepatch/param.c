// SPDX-License-Identifier: GPL-2.0
/* guestmm_klp's copy of the shared parameter parsing (gmm_param.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "../modules/gmm_param.c"
