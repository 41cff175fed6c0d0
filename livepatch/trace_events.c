// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp_trace.ko: the tracepoints of guestmm_klp (klp_trace.h).
 *
 * They live in a module of their own because the kernel creates no trace
 * events and registers no tracepoints for a module with the livepatch
 * taint (trace_module_has_bad_taint() accepts only O, C and E).
 * guestmm_klp.ko uses the exported tracepoints; modprobe loads this module
 * first.
 */
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "klp_trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(guestmm_klp_run);
EXPORT_TRACEPOINT_SYMBOL_GPL(guestmm_klp_fast_search);
EXPORT_TRACEPOINT_SYMBOL_GPL(guestmm_klp_block);
EXPORT_TRACEPOINT_SYMBOL_GPL(guestmm_klp_unmapped_pass);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestmm: tracepoints of the guestmm_klp livepatch");
