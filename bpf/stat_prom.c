// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat show -o prometheus: the snapshot show -j prints, in the
 * Prometheus text exposition format 0.0.4.
 *
 * Families are guestmm_<area>_<what>: counters end in _total, times are
 * in seconds (nanoseconds / 1e9, printed exactly with nine decimals) and
 * page counts say _pages.  What show -j keys by name (kind, order, status,
 * result, prio, migratetype, reason, mode, event) is a label.  Each family
 * is printed once, # HELP and # TYPE first, then all its samples.  The
 * counter families come from guestmm.h's tables (a map's __u64s, then its
 * arrays); they are listed in docs/bpf.md; tests/lib/promfmt.py
 * json_to_prom() derives these samples from show -j.
 *
 * Histograms: slot i counts integer nanosecond values in [2^i, 2^(i+1)),
 * slot 0 also 0 and the last slot everything from 2^39 ns up.  Bucket i
 * is le = 2^(i+1) - 1 ns, the largest value slots 0..i hold, so le is
 * exact; the last slot has no finite bound and is only in le="+Inf".
 * The per-CPU slots and count are read without a lock, so the slots may
 * not add up to count: each bucket is the cumulative slot sum capped at
 * count, and le="+Inf" is count.  The buckets never decrease and never
 * exceed _count; values missing from the slots appear only in +Inf.
 *
 * show -j fields without samples of their own:
 *  - migrate[].reason_id: the value behind the reason label (a reason
 *    the kernel's BTF does not name is labelled with this number).
 *  - thp_migration.folios_moved_base/_thp: the same values as
 *    guestmm_migrate_folio_duration_seconds_count{folio="base"/"thp"}.
 *  - module_events.*.sum_field: the field label of
 *    guestmm_module_event_field_sum_total.
 *  - histograms.*.log2_ns_slots: the _bucket samples, cumulative.
 * A module event name listed twice (a stale map entry, possible only if
 * pins were removed by hand) is exported once, from its last entry, as a
 * JSON parser keeps the last of two equal keys; stderr says so.
 */
#include <stdio.h>
#include <string.h>
#include "stat.h"

#define NSEC_PER_SEC	1000000000ULL

/*
 * Label pairs of one sample, escaped, without the braces.  Large enough
 * for the longest set printed here: a link name (NAME_MAX) escaped.
 */
struct labels {
	char s[1024];
	size_t n;
};

static void lbl_init(struct labels *l)
{
	l->n = 0;
	l->s[0] = 0;
}

static void lbl_putc(struct labels *l, char c)
{
	if (l->n + 1 < sizeof(l->s))
		l->s[l->n++] = c;
	l->s[l->n] = 0;
}

static void lbl_puts(struct labels *l, const char *s)
{
	for (; *s; s++)
		lbl_putc(l, *s);
}

/* Append key="val", val escaped: backslash, double quote, newline. */
static void lbl_add(struct labels *l, const char *key, const char *val)
{
	if (l->n)
		lbl_putc(l, ',');
	lbl_puts(l, key);
	lbl_puts(l, "=\"");
	for (; *val; val++) {
		if (*val == '\\' || *val == '"') {
			lbl_putc(l, '\\');
			lbl_putc(l, *val);
		} else if (*val == '\n') {
			lbl_puts(l, "\\n");
		} else {
			lbl_putc(l, *val);
		}
	}
	lbl_putc(l, '"');
}

static void lbl_dim(struct labels *l, const struct dim *d, unsigned int i)
{
	char buf[32];

	if (d)
		lbl_add(l, d->key, dim_name(d, i, buf, sizeof(buf)));
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_head(const char *name, const char *suffix, const struct labels *l)
{
	printf("%s%s", name, suffix);
	if (l && l->n)
		printf("{%s}", l->s);
	putchar(' ');
}

static void sample(const char *name, const struct labels *l, __u64 v)
{
	sample_head(name, "", l);
	printf("%llu\n", (unsigned long long)v);
}

/* ns nanoseconds as seconds, exactly */
static void sample_ns(const char *name, const char *suffix, const struct labels *l,
		      __u64 ns)
{
	sample_head(name, suffix, l);
	printf("%llu.%09llu\n", (unsigned long long)(ns / NSEC_PER_SEC),
	       (unsigned long long)(ns % NSEC_PER_SEC));
}

/*
 * One counter family.  row: the structs at base + i * stride, a label
 * value each (NULL: base alone, no label).  col: the __u64 array at off
 * in each struct, a label value per element (NULL: the __u64 at off).
 */
static void counter(const char *name, const char *help, bool ns, const struct dim *row,
		    const struct dim *col, const void *base, size_t stride, size_t off)
{
	unsigned int i, k, nrow = row ? dim_n(row) : 1, ncol = col ? dim_n(col) : 1;
	struct labels l;

	family(name, "counter", help);
	for (i = 0; i < nrow; i++) {
		const __u64 *v = (const void *)((const char *)base + i * stride + off);

		for (k = 0; k < ncol; k++) {
			lbl_init(&l);
			lbl_dim(&l, row, i);
			lbl_dim(&l, col, k);
			if (ns)
				sample_ns(name, "", &l, v[k]);
			else
				sample(name, &l, v[k]);
		}
	}
}

/*
 * A map's counters, a family each: its __u64s, then its arrays (labelled
 * by their dim), in guestmm.h's order; row labels the map's entries.
 */
static void counters(const struct counter_table *t, const struct snapshot *s,
		     const struct dim *row)
{
	const void *base = table_row(t, s, 0);
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!t->c[i].n)
			counter(t->c[i].prom, t->c[i].help, t->c[i].ns, row, NULL,
				base, t->stride, t->c[i].off);
	for (i = 0; i < t->n; i++)
		if (t->c[i].n)
			counter(t->c[i].prom, t->c[i].help, t->c[i].ns, row, t->c[i].dim,
				base, t->stride, t->c[i].off);
}

static void gauge1(const char *name, const char *help, const char *key,
		   const char *val, __u64 v)
{
	struct labels l;

	family(name, "gauge", help);
	lbl_init(&l);
	if (key)
		lbl_add(&l, key, val);
	sample(name, &l, v);
}

/* name_seconds: a histogram per row; name_max_seconds: the maxima. */
static void histogram(const char *name, const char *help, const struct dim *row,
		      const struct guestmm_hist *h)
{
	unsigned int i, k, nrow = row ? dim_n(row) : 1;
	char fam[128], le[32], mhelp[160];
	struct labels l, lb;

	snprintf(fam, sizeof(fam), "%s_seconds", name);
	family(fam, "histogram", help);
	for (i = 0; i < nrow; i++) {
		__u64 cum = 0;

		lbl_init(&l);
		lbl_dim(&l, row, i);
		for (k = 0; k < GUESTMM_HIST_SLOTS - 1; k++) {
			__u64 le_ns = (1ULL << (k + 1)) - 1;

			cum += h[i].slots[k];
			snprintf(le, sizeof(le), "%llu.%09llu",
				 (unsigned long long)(le_ns / NSEC_PER_SEC),
				 (unsigned long long)(le_ns % NSEC_PER_SEC));
			lb = l;
			lbl_add(&lb, "le", le);
			sample_head(fam, "_bucket", &lb);
			printf("%llu\n", (unsigned long long)(cum < h[i].count ? cum : h[i].count));
		}
		lb = l;
		lbl_add(&lb, "le", "+Inf");
		sample_head(fam, "_bucket", &lb);
		printf("%llu\n", (unsigned long long)h[i].count);
		sample_ns(fam, "_sum", &l, h[i].sum_ns);
		sample_head(fam, "_count", &l);
		printf("%llu\n", (unsigned long long)h[i].count);
	}

	snprintf(fam, sizeof(fam), "%s_max_seconds", name);
	snprintf(mhelp, sizeof(mhelp), "%s: the largest value (racy maximum)", help);
	family(fam, "gauge", mhelp);
	for (i = 0; i < nrow; i++) {
		lbl_init(&l);
		lbl_dim(&l, row, i);
		sample_ns(fam, "", &l, h[i].max_ns);
	}
}

static char links[MAX_LINKS][NAME_MAX + 1];

static void prom_probe(void)
{
	struct labels l;
	int i, n;

	gauge1("guestmm_probe_info", "Where the probes' maps and links are pinned",
	       "pin_dir", GUESTMM_PIN_DIR, 1);
	family("guestmm_probe_attached", "gauge",
	       "1 for each link pinned in " LINK_DIR " (a program attached)");
	n = link_names(links, MAX_LINKS);
	for (i = 0; i < n; i++) {
		lbl_init(&l);
		lbl_add(&l, "link", links[i]);
		sample("guestmm_probe_attached", &l, 1);
	}
}

static void prom_vmstat(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	char name[96], help[128];
	unsigned int i;

	vmstat_equivalents(s, vm);
	for (i = 0; i < N_VMSTAT; i++) {
		snprintf(name, sizeof(name), "guestmm_vmstat_%s_total", vm[i].name);
		snprintf(help, sizeof(help),
			 "The probes' count of /proc/vmstat %s since load or reset", vm[i].name);
		family(name, "counter", help);
		sample(name, NULL, vm[i].v);
	}
}

/* true if entry i's name comes again later: the later one is exported */
static bool modev_repeated(const struct snapshot *s, int i)
{
	int j;

	for (j = i + 1; j < s->n_modev; j++)
		if (!strcmp(s->modev[i].name, s->modev[j].name))
			return true;
	return false;
}

static void prom_modev(const struct snapshot *s)
{
	struct labels l;
	int i;

	family("guestmm_module_events_total", "counter",
	       "guestmm module tracepoint events (load -m)");
	for (i = 0; i < s->n_modev; i++) {
		if (modev_repeated(s, i)) {
			err("module event %s listed twice (stale entry), exported once",
			    s->modev[i].name);
			continue;
		}
		lbl_init(&l);
		lbl_add(&l, "event", s->modev[i].name);
		sample("guestmm_module_events_total", &l, s->modev[i].count);
	}
	family("guestmm_module_event_field_sum_total", "counter",
	       "Sum of a guestmm module tracepoint's field (nr, nr_pages, num_pages or pages)");
	for (i = 0; i < s->n_modev; i++) {
		if (!s->modev[i].sum_size || modev_repeated(s, i))
			continue;
		lbl_init(&l);
		lbl_add(&l, "event", s->modev[i].name);
		lbl_add(&l, "field", s->modev[i].sum_field);
		sample("guestmm_module_event_field_sum_total", &l, s->modev[i].sum);
	}
}

void show_prom(const struct snapshot *s)
{
	prom_probe();
	prom_vmstat(s);
	counters(&ct_compact, s, NULL);
	counters(&ct_direct, s, &dim_order);
	counters(&ct_extfrag, s, NULL);
	counters(&ct_migrate, s, &dim_reason);
	counters(&ct_thp, s, NULL);
	gauge1("guestmm_thp_migration_folio_timing_enabled",
	       "1 if migrated folios are timed (load -f), else 0", NULL, NULL,
	       path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit"));
	counters(&ct_reclaim, s, NULL);
	counters(&ct_balloon, s, NULL);
	prom_modev(s);

	histogram("guestmm_compact_pass_duration",
		  "Compaction pass latency (compact_zone()), by caller", &dim_kind,
		  s->lat_compact);
	histogram("guestmm_compact_direct_stall_duration",
		  "Direct compaction stall latency, by order", &dim_order, s->lat_direct);
	histogram("guestmm_migrate_folio_duration",
		  "move_to_new_folio() latency per folio moved (load -f)", &dim_folio,
		  s->lat_migrate);
	histogram("guestmm_node_reclaim_pass_duration", "Node reclaim pass latency", NULL,
		  s->lat_reclaim);
}
