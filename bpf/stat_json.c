// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat show -j: the snapshot as one JSON object.
 */
#include <stdio.h>
#include "stat.h"

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_named(const char *key, const __u64 *v, unsigned int n,
		       const struct enum_names *en)
{
	char buf[16];
	unsigned int i;

	printf("\"%s\":{", key);
	for (i = 0; i < n; i++) {
		printf("%s", i ? "," : "");
		json_str(enum_name(en, i, buf, sizeof(buf)));
		printf(":%llu", (unsigned long long)v[i]);
	}
	printf("}");
}

static void json_u64s(const char *key, const __u64 *v, unsigned int n)
{
	unsigned int i;

	printf("\"%s\":[", key);
	for (i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

static void json_hist(const struct guestmm_hist *h)
{
	printf("{\"count\":%llu,\"sum_ns\":%llu,\"max_ns\":%llu,",
	       (unsigned long long)h->count, (unsigned long long)h->sum_ns,
	       (unsigned long long)h->max_ns);
	json_u64s("log2_ns_slots", h->slots, GUESTMM_HIST_SLOTS);
	printf("}");
}

#define JU(obj, f) printf("\"" #f "\":%llu", (unsigned long long)(obj)->f)

static char links[MAX_LINKS][NAME_MAX + 1];

void show_json(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	const struct guestmm_compact *c = &s->compact;
	unsigned int i, k, nres = enum_count(&en_result, GUESTMM_COMPACT_RESULTS);
	char buf[32];
	int n;

	vmstat_equivalents(s, vm);
	printf("{\"pin_dir\":\"%s\",\"links\":[", GUESTMM_PIN_DIR);
	n = link_names(links, MAX_LINKS);
	for (k = 0; k < (unsigned int)n; k++) {
		printf("%s", k ? "," : "");
		json_str(links[k]);
	}
	printf("],\"vmstat\":{");
	for (i = 0; i < N_VMSTAT; i++)
		printf("%s\"%s\":%llu", i ? "," : "", vm[i].name, (unsigned long long)vm[i].v);

	printf("},\"compact\":{");
	JU(c, begin); printf(","); JU(c, end); printf(",");
	JU(c, sync); printf(","); JU(c, async); printf(",\"kind\":{");
	for (k = 0; k < GUESTMM_KINDS; k++)
		printf("%s\"%s\":%llu", k ? "," : "", kind_names[k], (unsigned long long)c->kind[k]);
	printf("},");
	json_named("status", c->status, nres, &en_result); printf(",");
	JU(c, migrate_scanned); printf(","); JU(c, free_scanned); printf(",");
	json_u64s("kind_migrate_scanned", c->kind_migrate_scanned, GUESTMM_KINDS); printf(",");
	json_u64s("kind_free_scanned", c->kind_free_scanned, GUESTMM_KINDS); printf(",");
	JU(c, run_ns); printf(","); JU(c, migratepages); printf(",");
	JU(c, nr_migrated); printf(","); JU(c, nr_failed); printf(",");
	JU(c, isolate_migrate); printf(","); JU(c, isolate_migrate_scanned); printf(",");
	JU(c, isolate_migrate_taken); printf(","); JU(c, isolate_free); printf(",");
	JU(c, isolate_free_scanned); printf(","); JU(c, isolate_free_taken); printf(",");
	json_named("suitable", c->suitable, nres, &en_result); printf(",");
	json_named("finished", c->finished, nres, &en_result); printf(",");
	JU(c, deferred); printf(","); JU(c, defer_compaction); printf(",");
	JU(c, defer_reset); printf(","); JU(c, kcompactd_wake); printf(",");
	JU(c, kcompactd_sleep); printf(","); JU(c, wakeup_kcompactd);

	printf("},\"compact_direct\":[");
	for (i = 0; i < GUESTMM_ORDERS; i++) {
		const struct guestmm_compact_direct *dd = &s->direct[i];

		printf("%s{\"order\":%u,", i ? "," : "", i);
		JU(dd, try_to_compact); printf(",");
		json_named("prio", dd->prio, enum_count(&en_prio, GUESTMM_COMPACT_PRIOS), &en_prio);
		printf(","); JU(dd, stall); printf(","); JU(dd, success); printf(",");
		JU(dd, fail); printf(","); JU(dd, skipped); printf(","); JU(dd, stall_ns);
		printf("}");
	}

	printf("],\"extfrag\":{");
	JU(&s->extfrag, events); printf(","); JU(&s->extfrag, fragmenting); printf(",");
	JU(&s->extfrag, change_ownership); printf(",");
	json_named("alloc_migratetype", s->extfrag.alloc_migratetype,
		   enum_count(&en_mt, GUESTMM_MIGRATETYPES), &en_mt);
	printf(",");
	json_named("fallback_migratetype", s->extfrag.fallback_migratetype,
		   enum_count(&en_mt, GUESTMM_MIGRATETYPES), &en_mt);

	printf("},\"migrate\":[");
	for (i = 0; i < enum_count(&en_reason, GUESTMM_MIGRATE_REASONS); i++) {
		const struct guestmm_migrate *m = &s->migrate[i];

		printf("%s{\"reason\":", i ? "," : "");
		json_str(enum_name(&en_reason, i, buf, sizeof(buf)));
		printf(",\"reason_id\":%u,", i);
		JU(m, start); printf(","); JU(m, calls); printf(",");
		JU(m, succeeded); printf(","); JU(m, failed); printf(",");
		JU(m, thp_succeeded); printf(","); JU(m, thp_failed); printf(",");
		JU(m, thp_split); printf(","); JU(m, large_folio_split); printf(",");
		json_named("mode", m->mode, enum_count(&en_mode, GUESTMM_MIGRATE_MODES), &en_mode);
		printf(","); JU(m, call_ns); printf("}");
	}

	printf("],\"thp_migration\":{");
	JU(&s->thp, set_migration_pmd); printf(","); JU(&s->thp, remove_migration_pmd); printf(",");
	printf("\"folio_timing\":%s,",
	       path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit") ? "true" : "false");
	printf("\"folios_moved_base\":%llu,\"folios_moved_thp\":%llu,",
	       (unsigned long long)s->lat_migrate[GUESTMM_MIG_BASE].count,
	       (unsigned long long)s->lat_migrate[GUESTMM_MIG_THP].count);
	JU(&s->thp, folios_move_failed);

	printf("},\"node_reclaim\":{");
	JU(&s->reclaim, begin); printf(","); JU(&s->reclaim, end); printf(",");
	JU(&s->reclaim, nr_reclaimed); printf(","); JU(&s->reclaim, empty); printf(",");
	JU(&s->reclaim, failed); printf(",");
	json_u64s("order", s->reclaim.order, GUESTMM_ORDERS); printf(",");
	JU(&s->reclaim, run_ns);

	printf("},\"balloon\":{");
	JU(&s->balloon, inflate); printf(","); JU(&s->balloon, deflate); printf(",");
	JU(&s->balloon, migrate); printf(","); JU(&s->balloon, migrate_failed); printf(",");
	JU(&s->balloon, dequeue_empty);

	printf("},\"module_events\":{");
	for (i = 0; i < (unsigned int)s->n_modev; i++) {
		printf("%s", i ? "," : "");
		json_str(s->modev[i].name);
		printf(":{\"count\":%llu", (unsigned long long)s->modev[i].count);
		if (s->modev[i].sum_size) {
			printf(",\"sum_field\":");
			json_str(s->modev[i].sum_field);
			printf(",\"sum\":%llu", (unsigned long long)s->modev[i].sum);
		}
		printf("}");
	}

	printf("},\"histograms\":{\"compaction_pass\":{");
	for (k = 0; k < GUESTMM_KINDS; k++) {
		printf("%s\"%s\":", k ? "," : "", kind_names[k]);
		json_hist(&s->lat_compact[k]);
	}
	printf("},\"direct_compaction_stall\":{");
	for (k = 0; k < GUESTMM_ORDERS; k++) {
		printf("%s\"%u\":", k ? "," : "", k);
		json_hist(&s->lat_direct[k]);
	}
	printf("},\"folio_migration\":{");
	for (k = 0; k < GUESTMM_MIG_KINDS; k++) {
		printf("%s\"%s\":", k ? "," : "", mig_names[k]);
		json_hist(&s->lat_migrate[k]);
	}
	printf("},\"node_reclaim\":");
	json_hist(&s->lat_reclaim[0]);
	printf("}}\n");
}
