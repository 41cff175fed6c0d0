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

/* The n elements of v, named by d; only the non-zero ones unless every. */
static void print_named_counts(const char *label, const __u64 *v, unsigned int n,
			       const struct dim *d, bool every)
{
	char buf[16];
	unsigned int i;
	bool any = false;

	printf("  %-22s", label);
	for (i = 0; i < n; i++) {
		if (!v[i] && !every)
			continue;
		printf(" %s %llu", dim_name(d, i, buf, sizeof(buf)),
		       (unsigned long long)v[i]);
		any = true;
	}
	printf("%s\n", any ? "" : " -");
}

/* The value of counter c (element i of an array) as show prints it. */
static const char *value_str(char *buf, size_t len, const struct counter *c,
			     const void *row, unsigned int i)
{
	__u64 v = counter_at(c, row)[i];

	if (c->ns)
		fmt_ns(buf, len, v);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* fmt with its "%s" replaced by v */
static void print_part(const char *fmt, const char *v)
{
	const char *at = strstr(fmt, "%s");

	if (!at) {
		fputs(fmt, stdout);
		return;
	}
	printf("%.*s%s%s", (int)(at - fmt), fmt, v, at + 2);
}

/* The line titled c->show.label: its parts (SHOW_PART), by pos. */
static void print_parts(const struct counter_table *t, const struct counter *c,
			const void *row)
{
	unsigned int i, pos;
	bool found = true;
	char buf[32];

	printf("  %-22s ", c->show.label);
	for (pos = 0; found; pos++) {
		found = false;
		for (i = 0; i < t->n; i++) {
			const struct counter *p = &t->c[i];

			if (p->show.how != SHOW_PART || p->show.pos != pos ||
			    strcmp(p->show.label, c->show.label))
				continue;
			print_part(p->show.fmt, value_str(buf, sizeof(buf), p, row, p->show.idx));
			found = true;
		}
	}
	printf("\n");
}

/*
 * The lines of a one-entry map's counters (SHOW_PART, SHOW_NONZERO,
 * SHOW_EVERY), in the order their first counters come in guestmm.h.
 */
static void print_lines(const struct counter_table *t, const void *row)
{
	unsigned int i, j;

	for (i = 0; i < t->n; i++) {
		const struct counter *c = &t->c[i];

		switch (c->show.how) {
		case SHOW_PART:
			for (j = 0; j < i; j++)
				if (t->c[j].show.how == SHOW_PART &&
				    !strcmp(t->c[j].show.label, c->show.label))
					break;
			if (j == i)
				print_parts(t, c, row);
			break;
		case SHOW_NONZERO:
		case SHOW_EVERY:
			print_named_counts(c->show.label, counter_at(c, row), c->n, c->dim,
					   c->show.how == SHOW_EVERY);
			break;
		default:
			break;
		}
	}
}

/* The column heads of a map's table (SHOW_COLUMN, _COLUMNS, _AVERAGE). */
static void print_heads(const struct counter_table *t)
{
	unsigned int i, k;
	char buf[16];

	for (i = 0; i < t->n; i++) {
		const struct counter *c = &t->c[i];

		if (c->show.how == SHOW_COLUMNS)
			for (k = 0; k < dim_n(c->dim); k++)
				printf(" %*s", c->show.width, dim_name(c->dim, k, buf, sizeof(buf)));
		else if (c->show.how == SHOW_COLUMN || c->show.how == SHOW_AVERAGE)
			printf(" %*s", c->show.width, c->show.label);
	}
	printf("\n");
}

/* One row of a map's table: the map value row. */
static void print_row(const struct counter_table *t, const void *row)
{
	unsigned int i, k;
	char buf[32];
	__u64 n;

	for (i = 0; i < t->n; i++) {
		const struct counter *c = &t->c[i];

		switch (c->show.how) {
		case SHOW_COLUMN:
			printf(" %*llu", c->show.width, (unsigned long long)*counter_at(c, row));
			break;
		case SHOW_COLUMNS:
			for (k = 0; k < dim_n(c->dim); k++)
				printf(" %*llu", c->show.width,
				       (unsigned long long)counter_at(c, row)[k]);
			break;
		case SHOW_AVERAGE:
			n = *counter_at(&t->c[counter_index(t, c->show.over)], row);
			if (n)
				fmt_ns(buf, sizeof(buf), (double)*counter_at(c, row) / n);
			else
				snprintf(buf, sizeof(buf), "-");
			printf(" %*s", c->show.width, buf);
			break;
		default:
			break;
		}
	}
	printf("\n");
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

static void show_direct(const struct snapshot *s)
{
	const char *src = direct_source();
	const struct guestmm_compact_direct *d;
	unsigned int i;

	printf("\ndirect compaction by order (%s):\n",
	       src ? src : "not attached");
	printf("  %5s", "order");
	print_heads(&ct_direct);
	for (i = 0; i < GUESTMM_ORDERS; i++) {
		d = &s->direct[i];
		if (!d->try_to_compact && !d->stall && !d->skipped)
			continue;
		printf("  %5u", i);
		print_row(&ct_direct, d);
	}
}

static void show_migrate(const struct snapshot *s)
{
	const struct guestmm_migrate *m;
	unsigned int i;
	char buf[32];

	printf("\nmigrate_pages() by reason:\n");
	printf("  %-18s", "reason");
	print_heads(&ct_migrate);
	for (i = 0; i < GUESTMM_MIGRATE_REASONS; i++) {
		m = &s->migrate[i];
		if (!m->calls && !m->start)
			continue;
		printf("  %-18s", enum_name(&en_reason, i, buf, sizeof(buf)));
		print_row(&ct_migrate, m);
	}
}

static void show_modev(const struct snapshot *s)
{
	int i;

	printf("\nguestmm module tracepoints:\n");
	if (!s->n_modev)
		printf("  none attached\n");
	for (i = 0; i < s->n_modev; i++) {
		printf("  %-48s %llu", s->modev[i].name,
		       (unsigned long long)s->modev[i].count);
		if (s->modev[i].sum_size)
			printf("  (sum of %s: %llu)", s->modev[i].sum_field,
			       (unsigned long long)s->modev[i].sum);
		printf("\n");
	}
}

static void show_hists(const struct snapshot *s)
{
	char title[96];
	unsigned int k;

	for (k = 0; k < GUESTMM_KINDS; k++) {
		snprintf(title, sizeof(title), "compaction pass latency, %s passes",
			 kind_names[k]);
		print_hist(title, &s->lat_compact[k]);
	}
	for (k = 0; k < GUESTMM_ORDERS; k++) {
		snprintf(title, sizeof(title), "direct compaction stall, order %u, stalls", k);
		print_hist(title, &s->lat_direct[k]);
	}
	for (k = 0; k < GUESTMM_MIG_KINDS; k++) {
		snprintf(title, sizeof(title), "folio migration (move_to_new_folio), %s folios",
			 mig_names[k]);
		print_hist(title, &s->lat_migrate[k]);
	}
	print_hist("node reclaim pass latency, passes", &s->lat_reclaim[0]);
}

void show_human(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	unsigned int i;

	print_links();

	vmstat_equivalents(s, vm);
	printf("\n/proc/vmstat equivalents (since load or reset):\n");
	for (i = 0; i < N_VMSTAT; i++)
		printf("  %-32s %llu\n", vm[i].name, (unsigned long long)vm[i].v);

	printf("\ncompaction passes (compact_zone):\n");
	print_lines(&ct_compact, &s->compact);
	show_direct(s);
	printf("\nfallback allocations (mm_page_alloc_extfrag):\n");
	print_lines(&ct_extfrag, &s->extfrag);
	show_migrate(s);

	printf("\nTHP and folio migration:\n");
	print_lines(&ct_thp, &s->thp);
	if (path_exists(LINK_DIR "/" FOLIO_PREFIX "_exit"))
		printf("  %-22s base %llu, thp %llu, failed %llu\n", "folios moved",
		       (unsigned long long)s->lat_migrate[GUESTMM_MIG_BASE].count,
		       (unsigned long long)s->lat_migrate[GUESTMM_MIG_THP].count,
		       (unsigned long long)s->thp.folios_move_failed);
	else
		printf("  %-22s not timed (load -f)\n", "folios moved");

	printf("\nnode reclaim (zone_reclaim_mode):\n");
	print_lines(&ct_reclaim, &s->reclaim);
	printf("\nballoon (balloon_compaction):\n");
	print_lines(&ct_balloon, &s->balloon);

	show_modev(s);
	show_hists(s);
}
