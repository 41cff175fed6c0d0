// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat load and unload: attach every program this
 * kernel supports, pin maps and links, attach guestmm module tracepoints.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "stat.h"
#include "guestmm.skel.h"

/* ------------------------------------------------------------------ */
/* kernel symbol availability                                          */

static struct btf *vmlinux_btf;

static bool btf_has(const char *name, int kind)
{
	return vmlinux_btf && btf__find_by_name_kind(vmlinux_btf, name, kind) >= 0;
}

/* fentry needs the function in BTF and an address in kallsyms (a
 * function the compiler renamed, e.g. foo.isra.0, has BTF but no "foo"). */
static bool kallsyms_has(const char *name)
{
	char line[512], sym[256], type;
	bool found = false;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return true;	/* cannot tell: let the verifier decide */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s", &type, sym) != 2)
			continue;
		if (!strcmp(sym, name)) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Decide whether one program can be loaded on this kernel.  Returns NULL
 * if yes, else a short reason for the skip message.
 */
static const char *prog_unsupported(const struct bpf_program *prog,
				    bool have_tracefs, char *buf, size_t len)
{
	const char *sec = bpf_program__section_name(prog);
	const char *arg;
	char path[PATH_MAX];

	if ((arg = strchr(sec, '/')) == NULL)
		return NULL;
	arg++;
	if (!strncmp(sec, "tp_btf/", 7)) {
		snprintf(path, sizeof(path), "btf_trace_%s", arg);
		if (!btf_has(path, BTF_KIND_TYPEDEF)) {
			snprintf(buf, len, "no tracepoint %s in kernel BTF", arg);
			return buf;
		}
	} else if (!strncmp(sec, "tracepoint/", 11)) {
		if (!have_tracefs)
			return "tracefs unavailable";
		snprintf(path, sizeof(path), "%s/events/%s", tracefs_root(), arg);
		if (!path_exists(path)) {
			snprintf(buf, len, "no tracepoint %s", arg);
			return buf;
		}
	} else if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6)) {
		if (!btf_has(arg, BTF_KIND_FUNC)) {
			snprintf(buf, len, "no function %s in kernel BTF", arg);
			return buf;
		}
		if (!kallsyms_has(arg)) {
			snprintf(buf, len, "function %s not in kallsyms (inlined?)", arg);
			return buf;
		}
	}
	return NULL;
}

static const char *short_name(const char *prog_name)
{
	size_t n = strlen(PROG_PREFIX);

	return strncmp(prog_name, PROG_PREFIX, n) ? prog_name : prog_name + n;
}

/* ------------------------------------------------------------------ */
/* guestmm module tracepoints                                          */

static int perf_tracepoint_open(long id)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	return syscall(__NR_perf_event_open, &attr, -1 /* pid */, 0 /* cpu */,
		       -1 /* group */, PERF_FLAG_FD_CLOEXEC);
}

static long read_event_id(const char *sys, const char *ev)
{
	char path[PATH_MAX];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs_root(), sys, ev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

/*
 * The field of a module event worth summing: the first of these names
 * found in its tracefs format, if it is a 4 or 8 byte unsigned integer.
 */
static void pick_sum_field(const char *sys, const char *ev, struct guestmm_modev *v)
{
	static const char *const wanted[] = { "nr", "nr_pages", "num_pages", "pages" };
	char path[PATH_MAX], line[256], type[128];
	unsigned int off, size, sgn, w, best = ~0U;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs_root(), sys, ev);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *name;

		if (sscanf(line, " field:%127[^;]; offset:%u; size:%u; signed:%u;",
			   type, &off, &size, &sgn) != 4)
			continue;
		/* "unsigned int nr" -> name is the last word */
		name = strrchr(type, ' ');
		name = name ? name + 1 : type;
		if (strchr(name, '['))
			continue;	/* arrays */
		if (sgn || (size != 4 && size != 8))
			continue;
		for (w = 0; w < sizeof(wanted) / sizeof(wanted[0]) && w < best; w++) {
			if (strcmp(name, wanted[w]))
				continue;
			best = w;
			v->sum_off = off;
			v->sum_size = size;
		}
	}
	fclose(f);
	if (best != ~0U)
		snprintf(v->sum_field, sizeof(v->sum_field), "%s", wanted[best]);
}

/*
 * Attach the pinned module-event program to every event of every tracefs
 * system whose name starts with "guestmm" that is not attached yet.
 * Returns the number of newly attached events; prints what it did.
 */
static int attach_module_events(int prog_fd, int map_fd)
{
	char path[PATH_MAX], pin[PATH_MAX], evdir[PATH_MAX];
	struct dirent *sde, *ede;
	int attached = 0, seen = 0;
	DIR *sd, *ed;

	snprintf(path, sizeof(path), "%s/events", tracefs_root());
	sd = opendir(path);
	if (!sd) {
		printf("  module tracepoints: skipped (no tracefs)\n");
		return 0;
	}
	while ((sde = readdir(sd))) {
		if (strncmp(sde->d_name, "guestmm", 7))
			continue;
		if (snprintf(evdir, sizeof(evdir), "%s/%s", path, sde->d_name) >=
		    (int)sizeof(evdir))
			continue;
		ed = opendir(evdir);
		if (!ed)
			continue;
		while ((ede = readdir(ed))) {
			LIBBPF_OPTS(bpf_link_create_opts, lopts);
			struct guestmm_modev v;
			int pfd, lfd;
			__u32 key;
			long id;

			if (ede->d_name[0] == '.' || ede->d_type != DT_DIR)
				continue;
			id = read_event_id(sde->d_name, ede->d_name);
			if (id < 0)
				continue;
			seen++;
			snprintf(pin, sizeof(pin), "%s/" MODEV_PREFIX "%s_%s", LINK_DIR,
				 sde->d_name, ede->d_name);
			if (path_exists(pin))
				continue;
			memset(&v, 0, sizeof(v));
			if (snprintf(v.name, sizeof(v.name), "%s:%s", sde->d_name,
				     ede->d_name) >= (int)sizeof(v.name)) {
				err("tracepoint name too long, not attaching %s:%s",
				    sde->d_name, ede->d_name);
				continue;
			}
			pick_sum_field(sde->d_name, ede->d_name, &v);
			key = id;
			if (bpf_map_update_elem(map_fd, &key, &v, BPF_NOEXIST) &&
			    errno != EEXIST) {
				err("module_events map full, not attaching %s", v.name);
				continue;
			}
			pfd = perf_tracepoint_open(id);
			if (pfd < 0) {
				err("cannot open tracepoint %s: %s", v.name, strerror(errno));
				continue;
			}
			lopts.perf_event.bpf_cookie = id;
			lfd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lopts);
			if (lfd < 0) {
				err("cannot attach to %s: %s", v.name, strerror(-lfd));
				close(pfd);
				continue;
			}
			if (bpf_obj_pin(lfd, pin))
				err("cannot pin %s: %s", pin, strerror(errno));
			else
				attached++;
			close(lfd);
			close(pfd);
		}
		closedir(ed);
	}
	closedir(sd);
	if (!seen)
		printf("  module tracepoints: skipped, none present (no events/guestmm* in tracefs; guestmm modules not loaded)\n");
	else
		printf("  module tracepoints: %d present, %d newly attached "
		       "(rmmod needs `guestmm-stat unload` first)\n", seen, attached);
	return attached;
}

/* ------------------------------------------------------------------ */
/* load                                                                */

static int load_already_loaded(void)
{
	int prog_fd, map_fd;

	printf("guestmm probes already loaded (%d links pinned under %s)\n",
	       count_dir(LINK_DIR, NULL), LINK_DIR);
	if (!env.modules)
		return 0;
	prog_fd = bpf_obj_get(GUESTMM_PIN_DIR "/" GUESTMM_MODEV_PROG_PIN);
	map_fd = bpf_obj_get(GUESTMM_PIN_DIR "/module_events");
	if (prog_fd >= 0 && map_fd >= 0 && ensure_tracefs())
		attach_module_events(prog_fd, map_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (map_fd >= 0)
		close(map_fd);
	return 0;
}

/* A fresh pin directory: stale pins of an interrupted load removed. */
static int make_pin_dirs(void)
{
	if (path_exists(GUESTMM_PIN_DIR)) {
		/* maps without links: left by an interrupted load */
		fprintf(stderr, "guestmm-stat: removing stale pins in %s\n", GUESTMM_PIN_DIR);
		if (remove_pins())
			return -1;
	}
	if (make_private_dir(GUESTMM_PIN_DIR) || make_private_dir(LINK_DIR))
		return -1;
	return 0;
}

/* Whether -x excludes the program of this short name. */
static bool excluded(const char *name)
{
	int i;

	for (i = 0; i < env.n_exclude; i++)
		if (!strncmp(name, env.exclude[i], strlen(env.exclude[i])))
			return true;
	return false;
}

/*
 * The direct-compaction figures come from one of two sets of programs:
 * around __alloc_pages_direct_compact() where the kernel has it as a
 * function (and -x does not exclude those programs), else around
 * try_to_compact_pages() and get_page_from_freelist() (7.2 on inline it).
 * Returns why prog is not in the set used, or NULL (also for programs in
 * neither set).
 */
static const char *direct_unused(const struct bpf_program *prog, bool have_adc)
{
	const char *name = short_name(bpf_program__name(prog));

	if (have_adc && !strncmp(name, DIRECT_TC_PREFIX, strlen(DIRECT_TC_PREFIX)))
		return "direct compaction counted in " DIRECT_ADC_FUNC "()";
	if (!have_adc && (!strncmp(name, DIRECT_ADC_PREFIX, strlen(DIRECT_ADC_PREFIX)) ||
			  !strcmp(name, "try_to_compact_exit")))
		return "direct compaction counted around try_to_compact_pages()";
	return NULL;
}

/*
 * Switch off the programs this kernel cannot take, the direct-compaction
 * set it does not use, -x excludes and, unless -f, the per-folio timing;
 * each is named.  Returns how many.
 */
static int skip_programs(struct guestmm_bpf *skel, bool have_tracefs)
{
	struct bpf_program *prog, *adc = skel->progs.guestmm_direct_compact_exit;
	char reason[256];
	int n_skipped = 0;
	bool have_adc;

	have_adc = !prog_unsupported(adc, have_tracefs, reason, sizeof(reason)) &&
		   !excluded(short_name(bpf_program__name(adc)));
	bpf_object__for_each_program(prog, skel->obj) {
		const char *why = prog_unsupported(prog, have_tracefs, reason, sizeof(reason));
		const char *name = short_name(bpf_program__name(prog));

		if (!why && excluded(name))
			why = "excluded (-x)";
		if (!why)
			why = direct_unused(prog, have_adc);
		if (!why && !env.folio && !strncmp(name, FOLIO_PREFIX, strlen(FOLIO_PREFIX)))
			why = "per-folio timing is opt-in (-f)";
		if (!why)
			continue;
		bpf_program__set_autoload(prog, false);
		printf("  skipped %-28s %s\n", name, why);
		n_skipped++;
	}
	return n_skipped;
}

/*
 * Attach every loaded program but the module-event one and pin its link
 * as links/<name>.  Returns how many, or -1 if a link could not be pinned;
 * *n_skipped counts those that failed to attach.
 */
static int attach_programs(struct guestmm_bpf *skel, int *n_skipped)
{
	struct bpf_program *prog;
	char pin[PATH_MAX];
	int n_attached = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = short_name(bpf_program__name(prog));
		struct bpf_link *link;
		int e;

		if (!bpf_program__autoload(prog) || prog == skel->progs.guestmm_module_event)
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			printf("  skipped %-28s attach failed: %s\n", name, strerror(errno));
			(*n_skipped)++;
			continue;
		}
		snprintf(pin, sizeof(pin), "%s/%s", LINK_DIR, name);
		e = bpf_link__pin(link, pin);
		if (e) {
			err("cannot pin link %s: %s", pin, strerror(-e));
			bpf_link__destroy(link);
			return -1;
		}
		/* keep the kernel link alive through the pin only */
		bpf_link__disconnect(link);
		bpf_link__destroy(link);
		n_attached++;
	}
	return n_attached;
}

/* -m: pin the module-event program and attach it.  Returns how many. */
static int attach_modules(struct guestmm_bpf *skel, bool have_tracefs)
{
	int pfd = bpf_program__fd(skel->progs.guestmm_module_event);

	if (!env.modules) {
		printf("  module tracepoints: not attached (use -m)\n");
		return 0;
	}
	if (bpf_program__pin(skel->progs.guestmm_module_event,
			     GUESTMM_PIN_DIR "/" GUESTMM_MODEV_PROG_PIN))
		err("cannot pin the module-event program; later loads cannot add module tracepoints");
	if (!have_tracefs) {
		printf("  module tracepoints: skipped (tracefs unavailable)\n");
		return 0;
	}
	return attach_module_events(pfd, bpf_map__fd(skel->maps.module_events));
}

int cmd_load(void)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts,
		    .pin_root_path = GUESTMM_PIN_DIR);
	struct guestmm_bpf *skel = NULL;
	int n_attached, n_skipped, ret = 1;
	bool have_tracefs;

	if (check_root() || check_btf() || ensure_bpffs(true))
		return 1;
	if (count_dir(LINK_DIR, NULL) > 0)
		return load_already_loaded();
	if (make_pin_dirs())
		return 1;

	have_tracefs = ensure_tracefs();
	vmlinux_btf = btf__load_vmlinux_btf();
	if (!vmlinux_btf) {
		err("cannot parse kernel BTF %s: %s", VMLINUX_BTF, strerror(errno));
		goto out_unpin;
	}
	skel = guestmm_bpf__open_opts(&open_opts);
	if (!skel) {
		err("cannot open the BPF object: %s", strerror(errno));
		goto out_unpin;
	}
	n_skipped = skip_programs(skel, have_tracefs);
	ret = guestmm_bpf__load(skel);
	if (ret) {
		err("loading the BPF programs failed: %s (run with -v for the verifier log)",
		    strerror(-ret));
		ret = 1;
		goto out_unpin;
	}
	ret = 1;
	n_attached = attach_programs(skel, &n_skipped);
	if (n_attached < 0)
		goto out_unpin;
	n_attached += attach_modules(skel, have_tracefs);

	printf("guestmm probes loaded: %d attached, %d skipped; maps in %s, links in %s\n",
	       n_attached, n_skipped, GUESTMM_PIN_DIR, LINK_DIR);
	ret = 0;
	goto out;

out_unpin:
	remove_pins();
out:
	guestmm_bpf__destroy(skel);
	btf__free(vmlinux_btf);
	return ret;
}

/* ------------------------------------------------------------------ */
/* unload                                                              */

int cmd_unload(void)
{
	int n;

	if (check_root())
		return 1;
	if (!is_bpffs(BPFFS_ROOT) || !path_exists(GUESTMM_PIN_DIR)) {
		printf("guestmm probes are not loaded\n");
		return 0;
	}
	n = count_dir(LINK_DIR, NULL);
	if (remove_pins())
		return 1;
	printf("guestmm probes unloaded (%d links removed)\n", n);
	return 0;
}
