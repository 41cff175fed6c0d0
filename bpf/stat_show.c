// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat show: counter tables and log2 histograms.
 */
#include <stdio.h>
#include <string.h>
#include "stat.h"

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

static void fmt_pow2(char *buf, size_t len, unsigned int e)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	unsigned long long v = 1ULL << e;
	unsigned int u = 0;

	while (u < 3 && v >= 1024) {
		v /= 1024;	/* powers of two: label 1024ns as 1us, close enough */
		u++;
	}
	snprintf(buf, len, "%llu%s", v, unit[u]);
}

static void print_hist(const char *title, const struct guestmm_hist *h)
{
	unsigned int i, first = GUESTMM_HIST_SLOTS, last = 0;
	char lo[32], hi[32], avg[16], max[16];
	__u64 peak = 0;

	if (!h->count)
		return;
	for (i = 0; i < GUESTMM_HIST_SLOTS; i++) {
		if (!h->slots[i])
			continue;
		if (i < first)
			first = i;
		last = i;
		if (h->slots[i] > peak)
			peak = h->slots[i];
	}
	fmt_ns(avg, sizeof(avg), (double)h->sum_ns / h->count);
	fmt_ns(max, sizeof(max), h->max_ns);
	printf("\n%s: %llu, avg %s, max %s\n", title,
	       (unsigned long long)h->count, avg, max);
	printf("  %-17s : %-8s |%-40s|\n", "latency", "count", "distribution");
	for (i = first; i <= last && first < GUESTMM_HIST_SLOTS; i++) {
		unsigned int stars = peak ? (h->slots[i] * 40 + peak - 1) / peak : 0;
		char bar[41];

		memset(bar, '*', stars);
		bar[stars] = 0;
		if (i == 0)
			snprintf(lo, sizeof(lo), "0");
		else
			fmt_pow2(lo, sizeof(lo), i);
		fmt_pow2(hi, sizeof(hi), i + 1);
		printf("  %7s -> %-7s : %-8llu |%-40s|\n", lo, hi,
		       (unsigned long long)h->slots[i], bar);
	}
}

static void print_named_counts(const char *label, const __u64 *v, unsigned int n,
			       const struct enum_names *en)
{
	char buf[16];
	unsigned int i;
	bool any = false;

	printf("  %-22s", label);
	for (i = 0; i < n; i++) {
		if (!v[i])
			continue;
		printf(" %s %llu", enum_name(en, i, buf, sizeof(buf)),
		       (unsigned long long)v[i]);
		any = true;
	}
	printf("%s\n", any ? "" : " -");
}

static char links[MAX_LINKS][NAME_MAX + 1];

static void print_links(void)
{
	int i, n = link_names(links, MAX_LINKS);
	size_t col = 0;

	printf("attached (links in %s):\n ", LINK_DIR);
	for (i = 0; i < n; i++) {
		if (col + strlen(links[i]) > 76) {
			printf("\n ");
			col = 0;
		}
		col += printf(" %s", links[i]);
	}
	printf("%s\n", n ? "" : " none");
}

void show_human(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	const struct guestmm_compact *c = &s->compact;
	char buf[32], t1[16];
	unsigned int i, k;

	print_links();

	vmstat_equivalents(s, vm);
	printf("\n/proc/vmstat equivalents (since load or reset):\n");
	for (i = 0; i < N_VMSTAT; i++)
		printf("  %-32s %llu\n", vm[i].name, (unsigned long long)vm[i].v);

	printf("\ncompaction passes (compact_zone):\n");
	fmt_ns(t1, sizeof(t1), c->run_ns);
	printf("  %-22s %llu begun, %llu ended, %llu sync, %llu async, %s total\n", "passes",
	       (unsigned long long)c->begin, (unsigned long long)c->end,
	       (unsigned long long)c->sync, (unsigned long long)c->async, t1);
	printf("  %-22s", "by caller");
	for (k = 0; k < GUESTMM_KINDS; k++)
		printf(" %s %llu", kind_names[k], (unsigned long long)c->kind[k]);
	printf("\n");
	print_named_counts("end status", c->status, GUESTMM_COMPACT_RESULTS, &en_result);
	printf("  %-22s migrate %llu, free %llu (kcompactd: migrate %llu, free %llu)\n",
	       "pages scanned", (unsigned long long)c->migrate_scanned,
	       (unsigned long long)c->free_scanned,
	       (unsigned long long)c->kind_migrate_scanned[GUESTMM_KIND_KCOMPACTD],
	       (unsigned long long)c->kind_free_scanned[GUESTMM_KIND_KCOMPACTD]);
	printf("  %-22s %llu batches, %llu migrated, %llu failed\n", "migratepages",
	       (unsigned long long)c->migratepages, (unsigned long long)c->nr_migrated,
	       (unsigned long long)c->nr_failed);
	printf("  %-22s %llu blocks, %llu scanned, %llu taken\n", "isolate_migratepages",
	       (unsigned long long)c->isolate_migrate,
	       (unsigned long long)c->isolate_migrate_scanned,
	       (unsigned long long)c->isolate_migrate_taken);
	printf("  %-22s %llu blocks, %llu scanned, %llu taken\n", "isolate_freepages",
	       (unsigned long long)c->isolate_free,
	       (unsigned long long)c->isolate_free_scanned,
	       (unsigned long long)c->isolate_free_taken);
	print_named_counts("suitable", c->suitable, GUESTMM_COMPACT_RESULTS, &en_result);
	print_named_counts("finished", c->finished, GUESTMM_COMPACT_RESULTS, &en_result);
	printf("  %-22s deferred %llu, defer_compaction %llu, defer_reset %llu\n", "deferral",
	       (unsigned long long)c->deferred, (unsigned long long)c->defer_compaction,
	       (unsigned long long)c->defer_reset);
	printf("  %-22s woken %llu (requested %llu), slept %llu\n", "kcompactd",
	       (unsigned long long)c->kcompactd_wake,
	       (unsigned long long)c->wakeup_kcompactd,
	       (unsigned long long)c->kcompactd_sleep);

	printf("\ndirect compaction by order (__alloc_pages_direct_compact):\n");
	printf("  %5s %8s", "order", "tries");
	for (k = 0; k < enum_count(&en_prio, GUESTMM_COMPACT_PRIOS); k++)
		printf(" %10s", enum_name(&en_prio, k, buf, sizeof(buf)));
	printf(" %8s %8s %8s %8s %10s\n", "stall", "success", "fail", "skipped", "avg_stall");
	for (i = 0; i < GUESTMM_ORDERS; i++) {
		const struct guestmm_compact_direct *d = &s->direct[i];

		if (!d->try_to_compact && !d->stall && !d->skipped)
			continue;
		printf("  %5u %8llu", i, (unsigned long long)d->try_to_compact);
		for (k = 0; k < enum_count(&en_prio, GUESTMM_COMPACT_PRIOS); k++)
			printf(" %10llu", (unsigned long long)d->prio[k]);
		if (d->stall)
			fmt_ns(t1, sizeof(t1), (double)d->stall_ns / d->stall);
		else
			snprintf(t1, sizeof(t1), "-");
		printf(" %8llu %8llu %8llu %8llu %10s\n", (unsigned long long)d->stall,
		       (unsigned long long)d->success, (unsigned long long)d->fail,
		       (unsigned long long)d->skipped, t1);
	}

	printf("\nfallback allocations (mm_page_alloc_extfrag):\n");
	printf("  %-22s %llu, fragmenting %llu, pageblock stolen %llu\n", "events",
	       (unsigned long long)s->extfrag.events,
	       (unsigned long long)s->extfrag.fragmenting,
	       (unsigned long long)s->extfrag.change_ownership);
	print_named_counts("wanted migratetype", s->extfrag.alloc_migratetype,
			   GUESTMM_MIGRATETYPES, &en_mt);
	print_named_counts("took from", s->extfrag.fallback_migratetype,
			   GUESTMM_MIGRATETYPES, &en_mt);

	printf("\nmigrate_pages() by reason:\n");
	printf("  %-18s %7s %10s %8s %8s %8s %8s %10s\n", "reason", "calls", "succeeded",
	       "failed", "thp_ok", "thp_fail", "thp_split", "avg_call");
	for (i = 0; i < GUESTMM_MIGRATE_REASONS; i++) {
		const struct guestmm_migrate *m = &s->migrate[i];

		if (!m->calls && !m->start)
			continue;
		if (m->calls)
			fmt_ns(t1, sizeof(t1), (double)m->call_ns / m->calls);
		else
			snprintf(t1, sizeof(t1), "-");
		printf("  %-18s %7llu %10llu %8llu %8llu %8llu %8llu %10s\n",
		       enum_name(&en_reason, i, buf, sizeof(buf)),
		       (unsigned long long)m->calls, (unsigned long long)m->succeeded,
		       (unsigned long long)m->failed, (unsigned long long)m->thp_succeeded,
		       (unsigned long long)m->thp_failed, (unsigned long long)m->thp_split, t1);
	}

	printf("\nTHP and folio migration:\n");
	printf("  %-22s set %llu, remove %llu (THP moved whole)\n", "migration pmd",
	       (unsigned long long)s->thp.set_migration_pmd,
	       (unsigned long long)s->thp.remove_migration_pmd);
	if (path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit"))
		printf("  %-22s base %llu, thp %llu, failed %llu\n", "folios moved",
		       (unsigned long long)s->lat_migrate[GUESTMM_MIG_BASE].count,
		       (unsigned long long)s->lat_migrate[GUESTMM_MIG_THP].count,
		       (unsigned long long)s->thp.folios_move_failed);
	else
		printf("  %-22s not timed (load -f)\n", "folios moved");

	fmt_ns(t1, sizeof(t1), s->reclaim.run_ns);
	printf("\nnode reclaim (zone_reclaim_mode):\n");
	printf("  %-22s %llu begun, %llu ended, %llu pages reclaimed, %llu empty, "
	       "%llu failed, %s total\n",
	       "passes", (unsigned long long)s->reclaim.begin,
	       (unsigned long long)s->reclaim.end,
	       (unsigned long long)s->reclaim.nr_reclaimed,
	       (unsigned long long)s->reclaim.empty,
	       (unsigned long long)s->reclaim.failed, t1);

	printf("\nballoon (balloon_compaction):\n");
	printf("  %-22s inflate %llu, deflate %llu, migrate %llu, migrate failed %llu\n",
	       "pages", (unsigned long long)s->balloon.inflate,
	       (unsigned long long)s->balloon.deflate,
	       (unsigned long long)s->balloon.migrate,
	       (unsigned long long)s->balloon.migrate_failed);

	printf("\nguestmm module tracepoints:\n");
	if (!s->n_modev)
		printf("  none attached\n");
	for (i = 0; i < (unsigned int)s->n_modev; i++) {
		printf("  %-48s %llu", s->modev[i].name,
		       (unsigned long long)s->modev[i].count);
		if (s->modev[i].sum_size)
			printf("  (sum of %s: %llu)", s->modev[i].sum_field,
			       (unsigned long long)s->modev[i].sum);
		printf("\n");
	}

	for (k = 0; k < GUESTMM_KINDS; k++) {
		char title[96];

		snprintf(title, sizeof(title), "compaction pass latency, %s passes",
			 kind_names[k]);
		print_hist(title, &s->lat_compact[k]);
	}
	for (k = 0; k < GUESTMM_ORDERS; k++) {
		char title[96];

		snprintf(title, sizeof(title), "direct compaction stall, order %u, stalls", k);
		print_hist(title, &s->lat_direct[k]);
	}
	for (k = 0; k < GUESTMM_MIG_KINDS; k++) {
		char title[96];

		snprintf(title, sizeof(title), "folio migration (move_to_new_folio), %s folios",
			 mig_names[k]);
		print_hist(title, &s->lat_migrate[k]);
	}
	print_hist("node reclaim pass latency, passes", &s->lat_reclaim[0]);
}
