// SPDX-License-Identifier: GPL-2.0
/*
 * The pinned maps: open them, read them into a struct
 * snapshot (per-CPU histograms summed), zero them (reset).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "stat.h"

/* ------------------------------------------------------------------ */
/* reading the pinned maps                                             */

static const struct map_desc {
	const char *name;
	size_t value_size;
	unsigned int entries;
	size_t offset;		/* in struct snapshot */
	bool percpu;		/* per-CPU array of struct guestmm_hist */
} maps[] = {
#define M(n, field, cnt) { #n, sizeof(((struct snapshot *)0)->field[0]), cnt, \
			   offsetof(struct snapshot, field), false }
#define H(n, cnt) { #n, sizeof(struct guestmm_hist), cnt, \
		    offsetof(struct snapshot, n), true }
	{ "compact", sizeof(struct guestmm_compact), 1,
	  offsetof(struct snapshot, compact), false },
	M(compact_direct, direct, GUESTMM_ORDERS),
	{ "extfrag", sizeof(struct guestmm_extfrag), 1,
	  offsetof(struct snapshot, extfrag), false },
	M(migrate, migrate, GUESTMM_MIGRATE_REASONS),
	{ "thp_migration", sizeof(struct guestmm_thp_migration), 1,
	  offsetof(struct snapshot, thp), false },
	{ "node_reclaim", sizeof(struct guestmm_node_reclaim), 1,
	  offsetof(struct snapshot, reclaim), false },
	{ "balloon", sizeof(struct guestmm_balloon), 1,
	  offsetof(struct snapshot, balloon), false },
	H(lat_compact, GUESTMM_KINDS),
	H(lat_direct, GUESTMM_ORDERS),
	H(lat_migrate, GUESTMM_MIG_KINDS),
	H(lat_reclaim, 1),
#undef M
#undef H
};
#define N_MAPS (sizeof(maps) / sizeof(maps[0]))

static int map_fds[N_MAPS];
static int modev_fd = -1;
static int n_cpus;
static struct guestmm_hist *percpu_buf;	/* n_cpus values */

/* A per-CPU histogram entry summed over CPUs (max: the largest). */
static int read_hist(int fd, __u32 key, struct guestmm_hist *out)
{
	int c, i;

	if (bpf_map_lookup_elem(fd, &key, percpu_buf))
		return -1;
	memset(out, 0, sizeof(*out));
	for (c = 0; c < n_cpus; c++) {
		const struct guestmm_hist *h = &percpu_buf[c];

		out->count += h->count;
		out->sum_ns += h->sum_ns;
		if (h->max_ns > out->max_ns)
			out->max_ns = h->max_ns;
		for (i = 0; i < GUESTMM_HIST_SLOTS; i++)
			out->slots[i] += h->slots[i];
	}
	return 0;
}

static int open_pinned_map(const char *name, size_t value_size)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", GUESTMM_PIN_DIR, name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.value_size != value_size) {
		err("%s has value size %u, this guestmm-stat expects %zu: "
		    "pins from another version, run `guestmm-stat unload` and load again",
		    path, info.value_size, value_size);
		close(fd);
		return -1;
	}
	return fd;
}

int open_maps(void)
{
	unsigned int i;

	if (check_root() || ensure_bpffs(false))
		return -1;
	if (!path_exists(GUESTMM_PIN_DIR)) {
		err("guestmm probes are not loaded (no %s); run `guestmm-stat load`",
		    GUESTMM_PIN_DIR);
		return -1;
	}
	n_cpus = libbpf_num_possible_cpus();
	if (n_cpus <= 0) {
		err("cannot count possible CPUs: %s", strerror(-n_cpus));
		return -1;
	}
	/* per-CPU values are 8-byte aligned; sizeof(guestmm_hist) already is */
	percpu_buf = calloc(n_cpus, sizeof(*percpu_buf));
	if (!percpu_buf) {
		err("out of memory");
		return -1;
	}
	for (i = 0; i < N_MAPS; i++) {
		map_fds[i] = open_pinned_map(maps[i].name, maps[i].value_size);
		if (map_fds[i] < 0)
			return -1;
	}
	modev_fd = open_pinned_map("module_events", sizeof(struct guestmm_modev));
	return modev_fd < 0 ? -1 : 0;
}

int read_snapshot(struct snapshot *s)
{
	unsigned int i, k;
	__u32 key, next, *prev = NULL;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < N_MAPS; i++) {
		char *base = (char *)s + maps[i].offset;

		for (k = 0; k < maps[i].entries; k++) {
			void *dst = base + k * maps[i].value_size;

			if (maps[i].percpu ? read_hist(map_fds[i], k, dst) :
			    bpf_map_lookup_elem(map_fds[i], &k, dst)) {
				err("reading %s[%u]: %s", maps[i].name, k, strerror(errno));
				return -1;
			}
		}
	}
	while (s->n_modev < MAX_MODEV && !bpf_map_get_next_key(modev_fd, prev, &next)) {
		if (!bpf_map_lookup_elem(modev_fd, &next, &s->modev[s->n_modev]))
			s->n_modev++;
		key = next;
		prev = &key;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* reset                                                               */

int cmd_reset(void)
{
	static char zero[4096];
	__u32 key, next, *prev = NULL;
	unsigned int i, k;
	int ret = 0;

	if (open_maps())
		return 1;
	for (i = 0; i < N_MAPS; i++) {
		for (k = 0; k < maps[i].entries; k++) {
			const void *z = zero;

			if (maps[i].percpu) {
				memset(percpu_buf, 0, n_cpus * sizeof(*percpu_buf));
				z = percpu_buf;
			}
			if (maps[i].value_size > sizeof(zero) ||
			    bpf_map_update_elem(map_fds[i], &k, z, BPF_ANY)) {
				err("cannot reset %s[%u]: %s", maps[i].name, k, strerror(errno));
				ret = 1;
			}
		}
	}
	while (!bpf_map_get_next_key(modev_fd, prev, &next)) {
		struct guestmm_modev v;

		if (!bpf_map_lookup_elem(modev_fd, &next, &v)) {
			v.count = 0;
			v.sum = 0;
			bpf_map_update_elem(modev_fd, &next, &v, BPF_EXIST);
		}
		key = next;
		prev = &key;
	}
	if (!ret)
		printf("guestmm counters reset\n");
	return ret;
}
