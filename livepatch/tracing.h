/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: our tracepoints (klp_trace.h) as a soft dependency.
 *
 * The tracepoints live in guestmm_klp_trace.ko, because the kernel makes
 * no trace events for a module with the livepatch taint
 * (trace_module_has_bad_taint()).  A hard reference to its symbols would
 * make a plain `insmod guestmm_klp.ko` fail with unknown symbols, so
 * guestmm_klp takes them with symbol_get() at load (tracing.c): with the
 * trace module present, the tracepoints fire; without it, the patch works
 * and says at load that it has no tracepoints.
 *
 * gmm_trace(name, args) fires tracepoint <name> the way the kernel's
 * trace_<name>() does (include/linux/tracepoint.h, __DO_TRACE): only when
 * it is enabled, through its iterator, with preemption off for
 * RCU-sched.
 */
#ifndef _GUESTMM_KLP_TRACING_H
#define _GUESTMM_KLP_TRACING_H

#include <linux/preempt.h>
#include <linux/tracepoint-defs.h>

#include "klp_trace.h"

#define GMM_TRACEPOINTS(X)						\
	X(guestmm_klp_run)						\
	X(guestmm_klp_fast_search)					\
	X(guestmm_klp_block)						\
	X(guestmm_klp_unmapped_pass)					\
	X(guestmm_klp_unmapped_run)

#define GMM_TP_DECLARE(name)						\
	extern struct tracepoint *gmm_tp_##name;			\
	extern typeof(&__traceiter_##name) gmm_iter_##name;
GMM_TRACEPOINTS(GMM_TP_DECLARE)
#undef GMM_TP_DECLARE

#define gmm_trace(name, ...)						\
	do {								\
		struct tracepoint *__tp = READ_ONCE(gmm_tp_##name);	\
									\
		if (__tp && static_key_enabled(&__tp->key)) {		\
			preempt_disable_notrace();			\
			gmm_iter_##name(NULL, __VA_ARGS__);		\
			preempt_enable_notrace();			\
		}							\
	} while (0)

/* Take the tracepoints from guestmm_klp_trace.ko if it is loaded. */
void gmm_klp_tracing_init(void);
/* Drop them again (module exit). */
void gmm_klp_tracing_exit(void);

#endif /* _GUESTMM_KLP_TRACING_H */
