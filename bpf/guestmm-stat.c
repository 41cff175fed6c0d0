// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat - load the guestmm BPF probes, pin them, read them back.
 *
 *   guestmm-stat load       attach every probe this kernel supports, pin
 *                           maps and links under /sys/fs/bpf/guestmm, exit
 *   guestmm-stat show [-j]  tables and log2 histograms (or JSON)
 *   guestmm-stat watch [-i SEC] [-c N]   per-interval deltas
 *   guestmm-stat reset      zero every counter and histogram
 *   guestmm-stat unload     remove the pins; the probes detach
 *
 * Counting continues after `load` exits because the links are pinned.
 * The maps are plain BTF-typed arrays, so bpftool reads them too:
 *   bpftool map dump pinned /sys/fs/bpf/guestmm/compact
 */
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "guestmm.h"
#include "guestmm.skel.h"

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

#define MAX_EXCLUDE 16

static struct env {
	const char *exclude[MAX_EXCLUDE];
	int n_exclude;
	bool verbose;
	bool json;
	bool modules;
	bool folio;
	long interval;
	long count;
	const char *cmd;
} env = {
	.interval = 1,
	.count = -1,
};

const char *argp_program_version = "guestmm-stat 0.1";
static const char argp_doc[] =
"Load, read and unload the guestmm BPF probes (compaction, migration,\n"
"THP migration, node reclaim, balloon).\n"
"\n"
"COMMANDS:\n"
"  load      attach the probes and pin maps and links under " GUESTMM_PIN_DIR "\n"
"            (programs whose tracepoint or function this kernel lacks are\n"
"            skipped and named); counting continues after load exits\n"
"  show      print counters and latency histograms (-j: JSON)\n"
"  watch     print per-interval deltas every -i SEC seconds (-c N times)\n"
"  reset     zero all counters and histograms\n"
"  unload    remove the pins; the probes detach\n"
"\n"
"EXAMPLES:\n"
"  guestmm-stat load\n"
"  guestmm-stat show -j\n"
"  guestmm-stat watch -i 5\n"
"  bpftool map dump pinned " GUESTMM_PIN_DIR "/compact\n";

static const struct argp_option opts[] = {
	{ "json", 'j', NULL, 0, "JSON output (show, watch)", 0 },
	{ "interval", 'i', "SEC", 0, "Interval for watch (default 1)", 0 },
	{ "count", 'c', "N", 0, "Number of watch intervals (default: until ^C)", 0 },
	{ "exclude", 'x', "PROG", 0,
	  "load: do not load programs whose name starts with PROG (repeatable; "
	  "e.g. -x migrate_pages)", 0 },
	{ "folio", 'f', NULL, 0,
	  "load: also time every migrated folio (the base/THP migration "
	  "histograms and folio counts); two probes and two clock reads per "
	  "folio, which is what load costs most where migration is heavy", 0 },
	{ "modules", 'm', NULL, 0,
	  "load: also count the guestmm modules' own tracepoints (each "
	  "attached module cannot be removed until unload)", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (libbpf, verifier)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};

static long parse_long(const char *arg, struct argp_state *state, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < min) {
		argp_error(state, "invalid number: %s", arg);
		return 0;
	}
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		env.json = true;
		break;
	case 'i':
		env.interval = parse_long(arg, state, 1);
		break;
	case 'c':
		env.count = parse_long(arg, state, 1);
		break;
	case 'm':
		env.modules = true;
		break;
	case 'f':
		env.folio = true;
		break;
	case 'x':
		if (env.n_exclude >= MAX_EXCLUDE)
			argp_error(state, "at most %d -x options", MAX_EXCLUDE);
		else
			env.exclude[env.n_exclude++] = arg;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (env.cmd)
			argp_error(state, "unexpected argument: %s", arg);
		env.cmd = arg;
		break;
	case ARGP_KEY_END:
		if (!env.cmd)
			argp_error(state, "a COMMAND is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format,
			   va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	fputs("guestmm-stat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* environment checks                                                  */

static int check_root(void)
{
	if (geteuid() == 0)
		return 0;
	err("must be run as root: BPF programs and %s are root-only", GUESTMM_PIN_DIR);
	return -1;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (unsigned long)st.f_type == BPFFS_MAGIC;
}

/* bpffs must be mounted at /sys/fs/bpf; load mounts it, others report. */
static int ensure_bpffs(bool mount_it)
{
	if (is_bpffs(BPFFS_ROOT))
		return 0;
	if (!mount_it) {
		err("bpffs is not mounted at %s, so nothing is loaded", BPFFS_ROOT);
		return -1;
	}
	if (mkdir(BPFFS_ROOT, 0755) && errno != EEXIST) {
		err("cannot create %s: %s", BPFFS_ROOT, strerror(errno));
		return -1;
	}
	if (mount("bpf", BPFFS_ROOT, "bpf", 0, NULL)) {
		err("bpffs is not mounted at %s and mounting it failed: %s",
		    BPFFS_ROOT, strerror(errno));
		return -1;
	}
	fprintf(stderr, "guestmm-stat: mounted bpffs at %s\n", BPFFS_ROOT);
	return 0;
}

static int check_btf(void)
{
	if (access(VMLINUX_BTF, R_OK) == 0)
		return 0;
	err("no kernel BTF at %s: this kernel was built without "
	    "CONFIG_DEBUG_INFO_BTF, CO-RE probes cannot load", VMLINUX_BTF);
	return -1;
}

/* The tracefs root libbpf 1.x uses for tracepoint ids. */
static const char *tracefs_root(void)
{
	if (access(DEBUGFS_TRACING, F_OK) == 0)
		return DEBUGFS_TRACING;
	return TRACEFS_ROOT;
}

/* Classic tracepoints need tracefs; mount it if nobody did.  Returns
 * false if tracefs is unavailable (those programs are then skipped). */
static bool ensure_tracefs(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events", tracefs_root());
	if (access(path, F_OK) == 0)
		return true;
	if (mount("tracefs", TRACEFS_ROOT, "tracefs", 0, NULL)) {
		err("tracefs is not mounted at %s and mounting it failed: %s",
		    TRACEFS_ROOT, strerror(errno));
		return false;
	}
	fprintf(stderr, "guestmm-stat: mounted tracefs at %s\n", TRACEFS_ROOT);
	return access(TRACEFS_ROOT "/events", F_OK) == 0;
}

/* ------------------------------------------------------------------ */
/* pins                                                                */

static bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static int count_dir(const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (prefix && strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* Remove every pin in dir (not recursive), then dir. */
static int remove_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type == DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path)) {
			err("cannot remove %s: %s", path, strerror(errno));
			ret = -1;
		}
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT) {
		err("cannot remove %s: %s", dir, strerror(errno));
		ret = -1;
	}
	return ret;
}

static int remove_pins(void)
{
	int ret = remove_dir(LINK_DIR);

	return remove_dir(GUESTMM_PIN_DIR) ? -1 : ret;
}

static int make_private_dir(const char *dir)
{
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	/* mkdir honours umask; make sure it is exactly root-only */
	if (chmod(dir, 0700)) {
		err("cannot chmod %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

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

static int cmd_load(void)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts,
		    .pin_root_path = GUESTMM_PIN_DIR);
	char pin[PATH_MAX], reason[256];
	struct guestmm_bpf *skel = NULL;
	struct bpf_program *prog;
	int n_attached = 0, n_skipped = 0, ret = 1;
	bool have_tracefs;

	if (check_root() || check_btf() || ensure_bpffs(true))
		return 1;
	if (count_dir(LINK_DIR, NULL) > 0)
		return load_already_loaded();
	if (path_exists(GUESTMM_PIN_DIR)) {
		/* maps without links: left by an interrupted load */
		fprintf(stderr, "guestmm-stat: removing stale pins in %s\n", GUESTMM_PIN_DIR);
		if (remove_pins())
			return 1;
	}
	if (make_private_dir(GUESTMM_PIN_DIR) || make_private_dir(LINK_DIR))
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

	bpf_object__for_each_program(prog, skel->obj) {
		const char *why = prog_unsupported(prog, have_tracefs, reason, sizeof(reason));
		const char *name = short_name(bpf_program__name(prog));
		int i;

		for (i = 0; i < env.n_exclude && !why; i++)
			if (!strncmp(name, env.exclude[i], strlen(env.exclude[i])))
				why = "excluded (-x)";
		if (!why && !env.folio && !strncmp(name, FOLIO_PREFIX, strlen(FOLIO_PREFIX)))
			why = "per-folio timing is opt-in (-f)";
		if (!why)
			continue;
		bpf_program__set_autoload(prog, false);
		printf("  skipped %-28s %s\n", name, why);
		n_skipped++;
	}

	ret = guestmm_bpf__load(skel);
	if (ret) {
		err("loading the BPF programs failed: %s (run with -v for the verifier log)",
		    strerror(-ret));
		ret = 1;
		goto out_unpin;
	}
	ret = 1;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = short_name(bpf_program__name(prog));
		struct bpf_link *link;
		int e;

		if (!bpf_program__autoload(prog) || prog == skel->progs.guestmm_module_event)
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			printf("  skipped %-28s attach failed: %s\n", name, strerror(errno));
			n_skipped++;
			continue;
		}
		snprintf(pin, sizeof(pin), "%s/%s", LINK_DIR, name);
		e = bpf_link__pin(link, pin);
		if (e) {
			err("cannot pin link %s: %s", pin, strerror(-e));
			bpf_link__destroy(link);
			goto out_unpin;
		}
		/* keep the kernel link alive through the pin only */
		bpf_link__disconnect(link);
		bpf_link__destroy(link);
		n_attached++;
	}

	if (!env.modules) {
		printf("  module tracepoints: not attached (use -m)\n");
	} else {
		int pfd = bpf_program__fd(skel->progs.guestmm_module_event);

		if (bpf_program__pin(skel->progs.guestmm_module_event,
				     GUESTMM_PIN_DIR "/" GUESTMM_MODEV_PROG_PIN))
			err("cannot pin the module-event program; later loads cannot add module tracepoints");
		if (have_tracefs)
			n_attached += attach_module_events(pfd, bpf_map__fd(skel->maps.module_events));
		else
			printf("  module tracepoints: skipped (tracefs unavailable)\n");
	}

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

static int cmd_unload(void)
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

/* ------------------------------------------------------------------ */
/* reading the pinned maps                                             */

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
	struct guestmm_modev modev[256];
};

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

static int open_maps(void)
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

static int read_snapshot(struct snapshot *s)
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
	while (s->n_modev < 256 && !bpf_map_get_next_key(modev_fd, prev, &next)) {
		if (!bpf_map_lookup_elem(modev_fd, &next, &s->modev[s->n_modev]))
			s->n_modev++;
		key = next;
		prev = &key;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* enum names, from the running kernel's BTF where possible            */

static const char *const compact_result_61[] = {
	"not_suitable_zone", "skipped", "deferred", "no_suitable_page",
	"continue", "complete", "partial_skipped", "contended", "success",
};
static const char *const migrate_reason_61[] = {
	"compaction", "memory_failure", "memory_hotplug", "syscall_or_cpuset",
	"mempolicy_mbind", "numa_misplaced", "contig_range", "longterm_pin",
	"demotion",
};
static const char *const migrate_mode_61[] = {
	"async", "sync_light", "sync", "sync_no_copy",
};
static const char *const compact_prio_61[] = {
	"sync_full", "sync_light", "async",
};
static const char *const migratetype_61[] = {
	"unmovable", "movable", "reclaimable", "highatomic", "cma", "isolate",
};
static const char *const kind_names[GUESTMM_KINDS] = {
	"direct", "kcompactd", "proactive", "manual",
};
static const char *const mig_names[GUESTMM_MIG_KINDS] = { "base", "thp" };

struct enum_names {
	const char *btf_enum;
	const char *strip;
	const char *const *fallback;
	unsigned int n_fallback;
	char names[GUESTMM_COMPACT_RESULTS + GUESTMM_MIGRATE_REASONS][32];
	unsigned int n;		/* valid names, by value */
};

#define ENUM_NAMES(e, s, fb) { e, s, fb, sizeof(fb) / sizeof(fb[0]), { { 0 } }, 0 }
static struct enum_names en_result = ENUM_NAMES("compact_result", "COMPACT_", compact_result_61);
static struct enum_names en_reason = ENUM_NAMES("migrate_reason", "MR_", migrate_reason_61);
static struct enum_names en_mode = ENUM_NAMES("migrate_mode", "MIGRATE_", migrate_mode_61);
static struct enum_names en_prio = ENUM_NAMES("compact_priority", "COMPACT_PRIO_", compact_prio_61);
static struct enum_names en_mt = ENUM_NAMES("migratetype", "MIGRATE_", migratetype_61);

static void enum_names_init(struct enum_names *en, const struct btf *btf)
{
	unsigned int max = sizeof(en->names) / sizeof(en->names[0]);
	unsigned int i;
	int id = btf ? btf__find_by_name_kind(btf, en->btf_enum, BTF_KIND_ENUM) : -1;

	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t); i++) {
			const char *n = btf__name_by_offset(btf, e[i].name_off);
			size_t sl = strlen(en->strip);
			unsigned int v = e[i].val;
			char *d;

			if (v >= max || !n)
				continue;
			if (!strncmp(n, en->strip, sl))
				n += sl;
			/* keep the first name for a value (aliases such as
			 * COMPACT_PRIO_SYNC_FULL == MIN_COMPACT_PRIORITY) */
			if (en->names[v][0])
				continue;
			snprintf(en->names[v], sizeof(en->names[v]), "%s", n);
			for (d = en->names[v]; *d; d++)
				if (*d >= 'A' && *d <= 'Z')
					*d += 'a' - 'A';
			if (v + 1 > en->n)
				en->n = v + 1;
		}
	}
	if (!en->n) {
		for (i = 0; i < en->n_fallback && i < max; i++)
			snprintf(en->names[i], sizeof(en->names[i]), "%s", en->fallback[i]);
		en->n = en->n_fallback;
	}
}

/* MR_TYPES, NR_MIGRATETYPES, ... are counts, not values worth a column */
static unsigned int enum_count(const struct enum_names *en, unsigned int cap)
{
	unsigned int n = en->n;

	if (n && (!strcmp(en->names[n - 1], "types") ||
		  !strncmp(en->names[n - 1], "nr_", 3)))
		n--;
	return n < cap ? n : cap;
}

static const char *enum_name(const struct enum_names *en, unsigned int v, char *buf, size_t len)
{
	if (v < en->n && en->names[v][0])
		return en->names[v];
	snprintf(buf, len, "%u", v);
	return buf;
}

static void names_init(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	enum_names_init(&en_result, btf);
	enum_names_init(&en_reason, btf);
	enum_names_init(&en_mode, btf);
	enum_names_init(&en_prio, btf);
	enum_names_init(&en_mt, btf);
	btf__free(btf);
}

/* ------------------------------------------------------------------ */
/* derived /proc/vmstat-equivalent counters                            */

struct vmstat_eq {
	const char *name;
	__u64 v;
};

#define N_VMSTAT 18

static void vmstat_equivalents(const struct snapshot *s, struct vmstat_eq *o)
{
	__u64 stall = 0, success = 0, fail = 0;
	__u64 ok = 0, bad = 0, thp_ok = 0, thp_bad = 0, thp_split = 0;
	unsigned int i = 0, k;

	for (k = 0; k < GUESTMM_ORDERS; k++) {
		stall += s->direct[k].stall;
		success += s->direct[k].success;
		fail += s->direct[k].fail;
	}
	for (k = 0; k < GUESTMM_MIGRATE_REASONS; k++) {
		ok += s->migrate[k].succeeded;
		bad += s->migrate[k].failed;
		thp_ok += s->migrate[k].thp_succeeded;
		thp_bad += s->migrate[k].thp_failed;
		thp_split += s->migrate[k].thp_split;
	}
#define V(n, val) do { o[i].name = n; o[i].v = (val); i++; } while (0)
	V("compact_stall", stall);
	V("compact_success", success);
	V("compact_fail", fail);
	V("compact_migrate_scanned", s->compact.migrate_scanned);
	V("compact_free_scanned", s->compact.free_scanned);
	V("compact_daemon_wake", s->compact.kcompactd_wake);
	V("compact_daemon_migrate_scanned", s->compact.kind_migrate_scanned[GUESTMM_KIND_KCOMPACTD]);
	V("compact_daemon_free_scanned", s->compact.kind_free_scanned[GUESTMM_KIND_KCOMPACTD]);
	V("pgmigrate_success", ok);
	V("pgmigrate_fail", bad);
	V("thp_migration_success", thp_ok);
	V("thp_migration_fail", thp_bad);
	V("thp_migration_split", thp_split);
	V("balloon_inflate", s->balloon.inflate);
	V("balloon_deflate", s->balloon.deflate);
	V("balloon_migrate", s->balloon.migrate);
	V("zone_reclaim_failed", s->reclaim.failed);
	V("compact_daemon_wake_requests", s->compact.wakeup_kcompactd);
#undef V
}

/* ------------------------------------------------------------------ */
/* human output                                                        */

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

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Names of the pinned links, sorted; returns how many (at most max). */
static int link_names(char names[][NAME_MAX + 1], int max)
{
	struct dirent *de;
	DIR *d = opendir(LINK_DIR);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(names[n++], NAME_MAX + 1, "%s", de->d_name);
	}
	closedir(d);
	qsort(names, n, NAME_MAX + 1, cmp_name);
	return n;
}

static char links[512][NAME_MAX + 1];

static void print_links(void)
{
	int i, n = link_names(links, 512);
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

static void show_human(const struct snapshot *s)
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

/* ------------------------------------------------------------------ */
/* JSON output                                                         */

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

static void show_json(const struct snapshot *s)
{
	struct vmstat_eq vm[N_VMSTAT];
	const struct guestmm_compact *c = &s->compact;
	unsigned int i, k, nres = enum_count(&en_result, GUESTMM_COMPACT_RESULTS);
	char buf[32];
	int n;

	vmstat_equivalents(s, vm);
	printf("{\"pin_dir\":\"%s\",\"links\":[", GUESTMM_PIN_DIR);
	n = link_names(links, 512);
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

static struct snapshot snap_a, snap_b;

static int cmd_show(void)
{
	if (open_maps() || read_snapshot(&snap_a))
		return 1;
	names_init();
	if (env.json)
		show_json(&snap_a);
	else
		show_human(&snap_a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* watch                                                               */

static volatile sig_atomic_t exiting;

static void sig_int(int signo)
{
	(void)signo;
	exiting = 1;
}

static int cmd_watch(void)
{
	static const unsigned int cols[] = { 0, 1, 2, 3, 4, 8, 9, 10, 12, 13, 14, 15 };
	static const char *const hdr[] = {
		"stall", "success", "fail", "mscan", "fscan", "mig_ok", "mig_fail",
		"thp_ok", "thp_split", "b_infl", "b_defl", "b_migr",
	};
	struct vmstat_eq va[N_VMSTAT], vb[N_VMSTAT];
	struct snapshot *prev = &snap_a, *cur = &snap_b, *t;
	unsigned int i, ncol = sizeof(cols) / sizeof(cols[0]);
	long n = 0;

	if (open_maps() || read_snapshot(prev))
		return 1;
	signal(SIGINT, sig_int);
	signal(SIGTERM, sig_int);
	while (!exiting && (env.count < 0 || n < env.count)) {
		char ts[16];
		time_t now;

		sleep(env.interval);
		if (exiting || read_snapshot(cur))
			break;
		vmstat_equivalents(prev, va);
		vmstat_equivalents(cur, vb);
		now = time(NULL);
		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
		if (env.json) {
			printf("{\"time\":\"%s\",\"interval\":%ld,\"passes\":%llu", ts,
			       env.interval,
			       (unsigned long long)(cur->compact.end - prev->compact.end));
			for (i = 0; i < N_VMSTAT; i++)
				printf(",\"%s\":%llu", vb[i].name,
				       (unsigned long long)(vb[i].v - va[i].v));
			printf("}\n");
		} else {
			if (n % 20 == 0) {
				printf("%-8s %7s", "time", "passes");
				for (i = 0; i < ncol; i++)
					printf(" %9s", hdr[i]);
				printf("\n");
			}
			printf("%-8s %7llu", ts,
			       (unsigned long long)(cur->compact.end - prev->compact.end));
			for (i = 0; i < ncol; i++)
				printf(" %9llu", (unsigned long long)(vb[cols[i]].v - va[cols[i]].v));
			printf("\n");
		}
		fflush(stdout);
		t = prev;
		prev = cur;
		cur = t;
		n++;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* reset                                                               */

static int cmd_reset(void)
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

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "COMMAND",
		.doc = argp_doc,
	};
	int err_;

	err_ = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err_)
		return 1;
	libbpf_set_print(libbpf_print_fn);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(env.cmd, "load"))
		return cmd_load();
	if (!strcmp(env.cmd, "show"))
		return cmd_show();
	if (!strcmp(env.cmd, "watch"))
		return cmd_watch();
	if (!strcmp(env.cmd, "reset"))
		return cmd_reset();
	if (!strcmp(env.cmd, "unload"))
		return cmd_unload();
	err("unknown command '%s' (load, show, watch, reset, unload; -h for help)", env.cmd);
	return 1;
}
