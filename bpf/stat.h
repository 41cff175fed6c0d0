/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of guestmm-stat share.
 *
 *   guestmm-stat.c     command line, show, main
 *   stat_sys.c         environment checks (root, bpffs, tracefs, BTF), pins
 *   stat_load.c        load and unload: support checks, module tracepoints
 *   stat_snapshot.c    the pinned maps read into struct snapshot; reset
 *   stat_names.c       enum names from BTF, labels, guestmm.h's counter
 *                      tables as struct counter_table, /proc/vmstat
 *                      equivalents
 *   stat_show.c        show: tables and log2 histograms
 *   stat_json.c        show -j (json-c); JSON lines for watch -j
 *   stat_prom.c        show -o prometheus
 *   stat_watch.c       watch
 *   stat_status.c      status: balloon driver, livepatch (and why not),
 *                      probes
 */
#ifndef GUESTMM_STAT_H
#define GUESTMM_STAT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "guestmm.h"

#define BPFFS_ROOT	"/sys/fs/bpf"
#define BPFFS_MAGIC	0xcafe4a11
#define TRACEFS_ROOT	"/sys/kernel/tracing"
#define DEBUGFS_TRACING	"/sys/kernel/debug/tracing"
#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"
#define LINK_DIR	GUESTMM_PIN_DIR "/" GUESTMM_LINK_SUBDIR
#define PROG_PREFIX	"guestmm_"
#define MODEV_PREFIX	"mod_"
/* Per-folio migration timing: opt-in (-f), see the -f help text. */
#define FOLIO_PREFIX	"move_folio"
/* The two sets of direct-compaction programs (stat_load.c, direct_source()) */
#define DIRECT_ADC_FUNC		"__alloc_pages_direct_compact"
#define DIRECT_ADC_PREFIX	"direct_compact_"
#define DIRECT_TC_PREFIX	"direct_tc_"

#define MAX_EXCLUDE	16
#define MAX_LINKS	512
#define MAX_MODEV	256

/* show's output (-o; -j is -o json) */
enum output_fmt {
	OUTPUT_TABLE,
	OUTPUT_JSON,
	OUTPUT_PROM,
};

/* The command line (guestmm-stat.c). */
struct env {
	const char *exclude[MAX_EXCLUDE];
	int n_exclude;
	bool verbose;
	enum output_fmt output;
	bool modules;
	bool folio;
	long interval;
	long count;
	const char *cmd;
};

extern struct env env;

/* stat_sys.c */
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int check_root(void);
bool is_bpffs(const char *path);
int ensure_bpffs(bool mount_it);
int check_btf(void);
const char *tracefs_root(void);
bool ensure_tracefs(void);
bool path_exists(const char *p);
int count_dir(const char *dir, const char *prefix);
int remove_pins(void);
int make_private_dir(const char *dir);
int link_names(char names[][NAME_MAX + 1], int max);
int cmp_name(const void *a, const void *b);

/*
 * Where the loaded probes take the direct-compaction figures from, by the
 * links pinned (stat_load.c attaches one set or the other): the function
 * they are counted around, or NULL when neither set is attached.
 */
static inline const char *direct_source(void)
{
	if (path_exists(LINK_DIR "/" DIRECT_ADC_PREFIX "exit"))
		return DIRECT_ADC_FUNC;
	if (path_exists(LINK_DIR "/" DIRECT_TC_PREFIX "exit"))
		return "try_to_compact_pages";
	return NULL;
}

/* stat_load.c */
int cmd_load(void);
int cmd_unload(void);

/* stat_snapshot.c: every pinned map, histograms summed over CPUs */
struct snapshot {
	struct guestmm_compact compact;
	struct guestmm_compact_direct direct[GUESTMM_ORDERS];
	struct guestmm_extfrag extfrag;
	struct guestmm_migrate migrate[GUESTMM_MIGRATE_REASONS];
	struct guestmm_thp_migration thp;
	struct guestmm_node_reclaim reclaim;
	struct guestmm_balloon balloon;
	struct guestmm_hist lat_compact[GUESTMM_KINDS];
	struct guestmm_hist lat_direct[GUESTMM_ORDERS];
	struct guestmm_hist lat_migrate[GUESTMM_MIG_KINDS];
	struct guestmm_hist lat_reclaim[1];
	int n_modev;
	struct guestmm_modev modev[MAX_MODEV];
};

int open_maps(void);
int read_snapshot(struct snapshot *s);
int cmd_reset(void);

/* stat_names.c */
struct enum_names {
	const char *btf_enum;
	const char *strip;
	const char *const *fallback;
	unsigned int n_fallback;
	char names[GUESTMM_COMPACT_RESULTS + GUESTMM_MIGRATE_REASONS][32];
	unsigned int n;		/* valid names, by value */
};

extern struct enum_names en_result, en_reason, en_mode, en_prio, en_mt;
extern const char *const kind_names[GUESTMM_KINDS];
extern const char *const mig_names[GUESTMM_MIG_KINDS];

void names_init(void);
unsigned int enum_count(const struct enum_names *en, unsigned int cap);
const char *enum_name(const struct enum_names *en, unsigned int v, char *buf, size_t len);

/*
 * A label: the values 0..dim_n()-1 of an array's index or of a map's key,
 * named by en (the kernel's enum), by names, or numbered.
 */
struct dim {
	const char *key;	/* the label's name */
	unsigned int cap;	/* at most this many values */
	const struct enum_names *en;
	const char *const *names;
};

extern const struct dim dim_kind, dim_status, dim_result, dim_order, dim_prio,
	dim_migratetype, dim_mode, dim_reason, dim_folio;

unsigned int dim_n(const struct dim *d);
const char *dim_name(const struct dim *d, unsigned int i, char *buf, size_t len);

/* A counter of guestmm.h's tables: where show prints it (SHOW_*). */
enum show_how {
	SHOW_NONE,
	SHOW_PART,	/* part pos of the line titled label, fmt */
	SHOW_NONZERO,	/* array: a line of its non-zero elements */
	SHOW_EVERY,	/* array: a line of all its elements */
	SHOW_COLUMN,	/* a column headed label, width wide */
	SHOW_COLUMNS,	/* array: a column per element */
	SHOW_AVERAGE,	/* a column: the time divided by the counter over */
};

struct show_spec {
	enum show_how how;
	const char *label;
	unsigned int pos;
	const char *fmt;
	unsigned int idx;	/* SHOW_PART of an array: its element */
	int width;
	const char *over;
};

struct counter {
	const char *name;	/* the struct member, the show -j key */
	size_t off;		/* in the map's value */
	unsigned int n;		/* array length; 0: a __u64 */
	bool ns;		/* nanoseconds */
	const struct dim *dim;	/* arrays: what the index is */
	bool json_list;		/* arrays: show -j prints a list */
	const char *prom;	/* Prometheus family */
	const char *help;
	struct show_spec show;
	int vm_slot;		/* place in the vmstat equivalents, or -1 */
	const char *vm_name;
	unsigned int vm_idx;	/* arrays: the element that is it */
};

/* One map's counters, and where its value(s) are in struct snapshot. */
struct counter_table {
	const struct counter *c;
	unsigned int n;
	size_t snap_off;
	unsigned int rows;	/* map entries */
	size_t stride;		/* sizeof the value */
};

extern const struct counter_table ct_compact, ct_direct, ct_extfrag, ct_migrate,
	ct_thp, ct_reclaim, ct_balloon;

/* The __u64 (or the first of the array) counter c in the map value row. */
static inline const __u64 *counter_at(const struct counter *c, const void *row)
{
	return (const __u64 *)((const char *)row + c->off);
}

/* Row r of the map in snapshot s. */
static inline const void *table_row(const struct counter_table *t,
				    const struct snapshot *s, unsigned int r)
{
	return (const char *)s + t->snap_off + r * t->stride;
}

unsigned int counter_index(const struct counter_table *t, const char *name);

struct vmstat_eq {
	const char *name;
	__u64 v;
};

/* VMSTAT() slots 0..N_VMSTAT-1 in guestmm.h (tests/unit/test_counters.py) */
#define N_VMSTAT 18

void vmstat_equivalents(const struct snapshot *s, struct vmstat_eq *o);

/* stat_show.c, stat_json.c, stat_prom.c */
void show_human(const struct snapshot *s);
int show_json(const struct snapshot *s);
void show_prom(const struct snapshot *s);

/* stat_json.c: json-c trees (json_add: see there) printed on one line */
struct json_object;
struct json_object *json_add(struct json_object *o, const char *key,
			     struct json_object *v);
int json_print(struct json_object *o);

/* stat_watch.c */
int cmd_watch(void);

/* stat_status.c */
int cmd_status(void);

#endif /* GUESTMM_STAT_H */
