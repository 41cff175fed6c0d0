// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: take our tracepoints from guestmm_klp_trace.ko, if loaded
 * (tracing.h explains why they are a soft dependency).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>

#include "tracing.h"

#define GMM_TP_DEFINE(name)						\
	struct tracepoint *gmm_tp_##name;				\
	typeof(&__traceiter_##name) gmm_iter_##name;
GMM_TRACEPOINTS(GMM_TP_DEFINE)
#undef GMM_TP_DEFINE

/*
 * Both symbols of one tracepoint, or neither.  The iterator is set before
 * the tracepoint pointer that gmm_trace() tests.
 */
#define GMM_TP_GET(name)						\
	do {								\
		gmm_iter_##name = symbol_get(__traceiter_##name);	\
		if (gmm_iter_##name)					\
			WRITE_ONCE(gmm_tp_##name,			\
				   symbol_get(__tracepoint_##name));	\
		if (gmm_iter_##name && !gmm_tp_##name) {		\
			symbol_put(__traceiter_##name);			\
			gmm_iter_##name = NULL;				\
		}							\
		found += !!gmm_tp_##name;				\
		wanted++;						\
	} while (0);

#define GMM_TP_PUT(name)						\
	do {								\
		if (gmm_tp_##name) {					\
			WRITE_ONCE(gmm_tp_##name, NULL);		\
			symbol_put(__tracepoint_##name);		\
			symbol_put(__traceiter_##name);			\
		}							\
	} while (0);

void gmm_klp_tracing_init(void)
{
	int found = 0, wanted = 0;

	GMM_TRACEPOINTS(GMM_TP_GET)
	if (found < wanted)
		pr_info("%d of %d tracepoints: load guestmm_klp_trace before guestmm_klp for events/guestmm_klp (modprobe does)\n",
			found, wanted);
}

void gmm_klp_tracing_exit(void)
{
	GMM_TRACEPOINTS(GMM_TP_PUT)
}
