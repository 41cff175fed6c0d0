// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: take our tracepoints from guestmm_klp_trace.ko, if loaded
 * (tracing.h explains why they are a soft dependency).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "tracing.h"

struct gmm_tp gmm_tps[GMM_NR_TP] = {
	[GMM_TP_guestmm_klp_run] = { "guestmm_klp_run" },
	[GMM_TP_guestmm_klp_fast_search] = { "guestmm_klp_fast_search" },
	[GMM_TP_guestmm_klp_block] = { "guestmm_klp_block" },
	[GMM_TP_guestmm_klp_unmapped_pass] = { "guestmm_klp_unmapped_pass" },
};

/* __tracepoint_<name> or __traceiter_<name> */
static void tp_symbol(char *buf, const char *kind, const struct gmm_tp *t)
{
	snprintf(buf, KSYM_NAME_LEN, "__%s_%s", kind, t->name);
}

/* Both symbols of one tracepoint, or neither; true if taken. */
static bool take(struct gmm_tp *t)
{
	char iter[KSYM_NAME_LEN], tp[KSYM_NAME_LEN];
	struct tracepoint *p;

	tp_symbol(iter, "traceiter", t);
	tp_symbol(tp, "tracepoint", t);
	t->iter = __symbol_get(iter);
	if (!t->iter)
		return false;
	p = __symbol_get(tp);
	if (!p) {
		__symbol_put(iter);
		t->iter = NULL;
		return false;
	}
	/* The iterator before the pointer gmm_trace() tests. */
	smp_store_release(&t->tp, p);
	return true;
}

static void drop(struct gmm_tp *t)
{
	char buf[KSYM_NAME_LEN];

	if (!t->tp)
		return;
	WRITE_ONCE(t->tp, NULL);
	tp_symbol(buf, "tracepoint", t);
	__symbol_put(buf);
	tp_symbol(buf, "traceiter", t);
	__symbol_put(buf);
	t->iter = NULL;
}

void gmm_klp_tracing_init(void)
{
	int i, found = 0;

	for (i = 0; i < GMM_NR_TP; i++)
		found += take(&gmm_tps[i]);
	if (found < GMM_NR_TP)
		pr_info("%d of %d tracepoints: load guestmm_klp_trace before guestmm_klp for events/guestmm_klp (modprobe does)\n",
			found, GMM_NR_TP);
}

void gmm_klp_tracing_exit(void)
{
	int i;

	for (i = 0; i < GMM_NR_TP; i++)
		drop(&gmm_tps[i]);
}
