/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: our tracepoints (klp_trace.h) as a soft dependency.
 *
 * The tracepoints live in guestmm_klp_trace.ko, because the kernel makes
 * no trace events for a module with the livepatch taint
 * (trace_module_has_bad_taint()).  A hard reference to its symbols would
 * make a plain `insmod guestmm_klp.ko` fail with unknown symbols, so
 * guestmm_klp takes them with __symbol_get() at load (tracing.c): with the
 * trace module present, the tracepoints fire; without it, the patch works
 * and says at load that it has no tracepoints.
 */
#ifndef _GUESTMM_KLP_TRACING_H
#define _GUESTMM_KLP_TRACING_H

#include <linux/compiler.h>
#include <linux/preempt.h>
#include <linux/tracepoint-defs.h>

#include "klp_trace.h"

/* Our tracepoints, by the name gmm_trace() takes. */
enum gmm_tp_id {
	GMM_TP_guestmm_klp_run,
	GMM_TP_guestmm_klp_fast_search,
	GMM_TP_guestmm_klp_block,
	GMM_TP_guestmm_klp_unmapped_pass,
	GMM_NR_TP
};

/* One tracepoint of guestmm_klp_trace.ko, once taken. */
struct gmm_tp {
	const char *name;
	struct tracepoint *tp;		/* NULL: not taken */
	void *iter;			/* its __traceiter_<name>() */
};
extern struct gmm_tp gmm_tps[GMM_NR_TP];

/*
 * gmm_trace(name, args) fires tracepoint <name> the way the kernel's
 * trace_<name>() does (include/linux/tracepoint.h, __DO_TRACE): only when
 * it is enabled, through its iterator (whose type klp_trace.h declares),
 * with preemption off for RCU-sched.
 */
#define gmm_trace(name, ...)						\
	do {								\
		struct gmm_tp *__t = &gmm_tps[GMM_TP_##name];		\
		struct tracepoint *__tp = READ_ONCE(__t->tp);		\
									\
		if (__tp && static_key_enabled(&__tp->key)) {		\
			preempt_disable_notrace();			\
			((typeof(&__traceiter_##name))__t->iter)(NULL,	\
								 __VA_ARGS__); \
			preempt_enable_notrace();			\
		}							\
	} while (0)

/* Take the tracepoints from guestmm_klp_trace.ko if it is loaded. */
void gmm_klp_tracing_init(void);
/* Drop them again (module exit). */
void gmm_klp_tracing_exit(void);

#endif /* _GUESTMM_KLP_TRACING_H */
