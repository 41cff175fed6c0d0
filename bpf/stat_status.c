// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat status [-j]: what of guestmm runs on this kernel, a report
 * read from sysfs and bpffs, not a check (exit 0 whatever it finds):
 *
 * - balloon: the driver bound to each virtio balloon device (virtio
 *   device id 5), and whether guestmm_balloon is loaded;
 * - livepatch: guestmm_klp's state in /sys/kernel/livepatch and the
 *   features its patched functions stand for; when it is not loaded, why,
 *   in the words of klp-check (scripts/guestmm-klp-check, installed as
 *   /usr/lib/guestmm/klp-check; $GUESTMM_KLP_CHECK names another), which
 *   is what guestmm-klp.service and DKMS's install say too;
 * - probes: whether they are pinned, how many links, and where the
 *   direct-compaction figures come from.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <json-c/json.h>
#include "stat.h"

#define VIRTIO_DEVICES	"/sys/bus/virtio/devices"
#define VIRTIO_ID_BALLOON	"0x0005"
#define BALLOON_MODULE	"/sys/module/guestmm_balloon"
#define KLP_MODULE	"/sys/module/guestmm_klp"
#define KLP_SYSFS	"/sys/kernel/livepatch/guestmm_klp"
#define KLP_CHECK	"/usr/lib/guestmm/klp-check"

#define MAX_BALLOONS	8
#define MAX_FUNCS	16
#define MAX_REASON	16
#define REASON_LEN	1024

/* The functions each feature of the livepatch replaces (livepatch/<f>/). */
static const struct {
	const char *func;
	const char *feature;
} klp_features[] = {
	{ "compact_zone", "compaction" },
	{ "pgdat_balanced", "reclaim" },
};

struct status {
	char release[65];

	int n_balloons;
	struct {
		char dev[NAME_MAX + 1];
		char driver[NAME_MAX + 1];	/* "": none bound */
	} balloon[MAX_BALLOONS];
	bool guestmm_balloon;

	const char *klp_state;	/* "enabled", "enabling", ... */
	bool klp_loaded;	/* the patch is in /sys/kernel/livepatch */
	bool klp_enabled;
	bool klp_transition;
	int n_funcs;
	char funcs[MAX_FUNCS][NAME_MAX + 1];
	const char *klp_check;	/* the klp-check that was asked */
	int klp_check_rc;	/* its exit status; -1: not run */
	int n_reason;
	char reason[MAX_REASON][REASON_LEN];

	int probes;		/* 1: pinned, 0: not, -1: cannot tell (not root) */
	int links;		/* -1: the pin directory is not readable */
	int module_links;
	const char *direct;	/* direct_source(); NULL: none or not readable */
};

/* The first line of a sysfs file into buf (newline stripped); 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool read_bool(const char *path)
{
	char buf[16];

	return read_line(path, buf, sizeof(buf)) == 0 && !strcmp(buf, "1");
}

__attribute__((format(printf, 2, 3)))
static void add_reason(struct status *st, const char *fmt, ...)
{
	va_list ap;

	if (st->n_reason == MAX_REASON)
		return;
	va_start(ap, fmt);
	vsnprintf(st->reason[st->n_reason++], REASON_LEN, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* balloon                                                             */

static void read_balloon(struct status *st)
{
	char path[PATH_MAX], buf[PATH_MAX];
	struct dirent *de;
	const char *drv;
	ssize_t n;
	DIR *d;

	st->guestmm_balloon = path_exists(BALLOON_MODULE);
	d = opendir(VIRTIO_DEVICES);
	if (!d)
		return;
	while ((de = readdir(d)) && st->n_balloons < MAX_BALLOONS) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), VIRTIO_DEVICES "/%s/device", de->d_name);
		if (read_line(path, buf, sizeof(buf)) || strcmp(buf, VIRTIO_ID_BALLOON))
			continue;
		snprintf(st->balloon[st->n_balloons].dev, NAME_MAX + 1, "%s",
			 de->d_name);
		snprintf(path, sizeof(path), VIRTIO_DEVICES "/%s/driver", de->d_name);
		n = readlink(path, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		drv = strrchr(buf, '/');
		snprintf(st->balloon[st->n_balloons].driver, NAME_MAX + 1, "%.*s",
			 NAME_MAX, drv ? drv + 1 : buf);
		st->n_balloons++;
	}
	closedir(d);
	qsort(st->balloon, st->n_balloons, sizeof(st->balloon[0]), cmp_name);
}

/* ------------------------------------------------------------------ */
/* livepatch                                                           */

/*
 * The patched functions: the "<func>,<sympos>" directories under each
 * object's directory (vmlinux, or a module) of the patch.
 */
static void read_klp_funcs(struct status *st)
{
	char path[PATH_MAX];
	struct dirent *de, *fe;
	DIR *d, *o;

	d = opendir(KLP_SYSFS);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), KLP_SYSFS "/%s", de->d_name);
		o = opendir(path);
		if (!o)
			continue;	/* an attribute: enabled, transition, ... */
		while ((fe = readdir(o)) && st->n_funcs < MAX_FUNCS) {
			if (fe->d_name[0] == '.' || !strchr(fe->d_name, ','))
				continue;
			snprintf(st->funcs[st->n_funcs], NAME_MAX + 1, "%.*s",
				 (int)strcspn(fe->d_name, ","), fe->d_name);
			st->n_funcs++;
		}
		closedir(o);
	}
	closedir(d);
	qsort(st->funcs, st->n_funcs, NAME_MAX + 1, cmp_name);
}

static const char *feature_of(const char *func)
{
	unsigned int i;

	for (i = 0; i < sizeof(klp_features) / sizeof(klp_features[0]); i++)
		if (!strcmp(func, klp_features[i].func))
			return klp_features[i].feature;
	return NULL;
}

/*
 * klp-check RELEASE: its stdout lines into the reasons; returns its exit
 * status (126/127: it could not be run), or -1 if it could not be started.
 * Its stderr is ours.
 */
static int run_klp_check(struct status *st)
{
	int pipefd[2], wstatus;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(st->klp_check, st->klp_check, st->release, (char *)NULL);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	if (f) {
		while (getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0])
				add_reason(st, "%s", line);
		}
		free(line);
		fclose(f);
	} else {
		close(pipefd[0]);
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return 128 + WTERMSIG(wstatus);
}

/* Why the patch is not there: klp-check's words, or ours without it. */
static void klp_reason(struct status *st)
{
	const char *env_check = getenv("GUESTMM_KLP_CHECK");

	if (path_exists(KLP_MODULE)) {
		add_reason(st, "guestmm_klp is loaded but its patch is disabled: "
			   "rmmod guestmm_klp, then modprobe guestmm_klp to apply it again.");
		return;
	}
	st->klp_check = env_check && *env_check ? env_check : KLP_CHECK;
	if (!path_exists(st->klp_check)) {
		add_reason(st, "%s, which says why, is not installed (guestmm-tools "
			   "has it, a source install does not): dkms status guestmm "
			   "says whether DKMS built guestmm_klp for kernel %s.",
			   st->klp_check, st->release);
		return;
	}
	st->klp_check_rc = run_klp_check(st);
	if (st->klp_check_rc < 0)
		add_reason(st, "%s could not be run: %s.", st->klp_check,
			   strerror(errno));
	else if (st->klp_check_rc == 0)
		add_reason(st, "guestmm_klp is installed for kernel %s but not "
			   "loaded: modprobe guestmm_klp (guestmm-klp.service "
			   "loads it at boot).", st->release);
	else if (st->klp_check_rc != 1)
		add_reason(st, "%s failed (exit status %d).", st->klp_check,
			   st->klp_check_rc);
}

static void read_livepatch(struct status *st)
{
	st->klp_check_rc = -1;
	st->klp_loaded = path_exists(KLP_SYSFS);
	if (!st->klp_loaded) {
		st->klp_state = path_exists(KLP_MODULE) ? "disabled" : "not loaded";
		klp_reason(st);
		return;
	}
	st->klp_enabled = read_bool(KLP_SYSFS "/enabled");
	st->klp_transition = read_bool(KLP_SYSFS "/transition");
	if (st->klp_enabled)
		st->klp_state = st->klp_transition ? "enabling" : "enabled";
	else
		st->klp_state = st->klp_transition ? "disabling" : "disabled";
	read_klp_funcs(st);
}

/* ------------------------------------------------------------------ */
/* probes                                                              */

static void read_probes(struct status *st)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (!is_bpffs(BPFFS_ROOT))
		return;
	if (stat(GUESTMM_PIN_DIR, &sb)) {
		/* systemd mounts bpffs root-only */
		st->probes = errno == ENOENT ? 0 : -1;
		return;
	}
	st->probes = 1;
	d = opendir(LINK_DIR);
	if (!d) {
		st->links = errno == ENOENT ? 0 : -1;
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		st->links++;
		if (!strncmp(de->d_name, MODEV_PREFIX, strlen(MODEV_PREFIX)))
			st->module_links++;
	}
	closedir(d);
	st->direct = direct_source();
}

/* ------------------------------------------------------------------ */
/* output                                                              */

#define LABEL	"%-11s"

/* v, or JSON null where v is NULL (json_add() takes NULL for a failure). */
static void json_add_or_null(struct json_object *o, const char *key,
			     struct json_object *v)
{
	if (v)
		json_add(o, key, v);
	else if (o)
		json_object_object_add(o, key, NULL);
}

static void print_human(const struct status *st)
{
	const char *feat;
	int i;

	printf(LABEL "%s\n", "kernel:", st->release);

	printf(LABEL, "balloon:");
	if (!st->n_balloons)
		printf("no virtio balloon device");
	for (i = 0; i < st->n_balloons; i++)
		printf("%s%s %s%s", i ? ", " : "", st->balloon[i].dev,
		       st->balloon[i].driver[0] ? "bound to " : "with no driver",
		       st->balloon[i].driver);
	printf("; guestmm_balloon %s\n",
	       st->guestmm_balloon ? "loaded" : "not loaded");

	printf(LABEL "%s", "livepatch:", st->klp_state);
	if (st->klp_loaded) {
		printf("; features:");
		for (i = 0; i < st->n_funcs; i++) {
			feat = feature_of(st->funcs[i]);
			printf("%s %s (%s)", i ? "," : "", feat ? feat : "?",
			       st->funcs[i]);
		}
		if (!st->n_funcs)
			printf(" none");
	}
	printf("\n");
	for (i = 0; i < st->n_reason; i++)
		printf(LABEL "%s\n", "", st->reason[i]);

	printf(LABEL, "probes:");
	if (!st->probes)
		printf("not loaded (no %s)\n", GUESTMM_PIN_DIR);
	else if (st->probes < 0)
		printf("unknown: %s is not readable (run as root)\n", BPFFS_ROOT);
	else if (st->links < 0)
		printf("loaded, %s not readable (run as root)\n", LINK_DIR);
	else
		printf("loaded, %d links pinned in %s (%d module tracepoints); "
		       "direct compaction: %s\n", st->links, LINK_DIR,
		       st->module_links, st->direct ? st->direct : "not attached");
}

static int print_json(const struct status *st)
{
	struct json_object *root = json_object_new_object();
	struct json_object *o, *a, *e;
	const char *feat;
	int i;

	json_add(root, "kernel", json_object_new_string(st->release));

	o = json_add(root, "balloon", json_object_new_object());
	a = json_add(o, "devices", json_object_new_array());
	for (i = 0; i < st->n_balloons; i++) {
		e = json_add(a, NULL, json_object_new_object());
		json_add(e, "device", json_object_new_string(st->balloon[i].dev));
		json_add_or_null(e, "driver", st->balloon[i].driver[0] ?
			 json_object_new_string(st->balloon[i].driver) : NULL);
	}
	json_add(o, "guestmm_balloon_loaded",
		 json_object_new_boolean(st->guestmm_balloon));

	o = json_add(root, "livepatch", json_object_new_object());
	json_add(o, "state", json_object_new_string(st->klp_state));
	json_add(o, "loaded", json_object_new_boolean(st->klp_loaded));
	json_add(o, "enabled", json_object_new_boolean(st->klp_enabled));
	json_add(o, "transition", json_object_new_boolean(st->klp_transition));
	a = json_add(o, "features", json_object_new_array());
	for (i = 0; i < st->n_funcs; i++) {
		feat = feature_of(st->funcs[i]);
		if (feat)
			json_add(a, NULL, json_object_new_string(feat));
	}
	a = json_add(o, "functions", json_object_new_array());
	for (i = 0; i < st->n_funcs; i++)
		json_add(a, NULL, json_object_new_string(st->funcs[i]));
	a = json_add(o, "reason", json_object_new_array());
	for (i = 0; i < st->n_reason; i++)
		json_add(a, NULL, json_object_new_string(st->reason[i]));
	if (st->klp_check) {
		e = json_add(o, "klp_check", json_object_new_object());
		json_add(e, "path", json_object_new_string(st->klp_check));
		json_add_or_null(e, "exit_status", st->klp_check_rc < 0 ? NULL :
			 json_object_new_int(st->klp_check_rc));
	}

	o = json_add(root, "probes", json_object_new_object());
	json_add_or_null(o, "loaded", st->probes < 0 ? NULL :
			 json_object_new_boolean(st->probes));
	json_add(o, "pin_dir", json_object_new_string(GUESTMM_PIN_DIR));
	json_add_or_null(o, "links", st->probes < 0 || st->links < 0 ? NULL :
			 json_object_new_int(st->links));
	json_add_or_null(o, "module_links", st->probes < 0 || st->links < 0 ?
			 NULL : json_object_new_int(st->module_links));
	json_add_or_null(o, "direct_compaction", st->direct ?
			 json_object_new_string(st->direct) : NULL);
	return json_print(root);
}

int cmd_status(void)
{
	static struct status st;
	struct utsname u;

	if (env.output == OUTPUT_PROM) {
		err("status is a report, not samples: use -j, or show -o prometheus");
		return 1;
	}
	if (!uname(&u))
		snprintf(st.release, sizeof(st.release), "%s", u.release);
	read_balloon(&st);
	read_livepatch(&st);
	read_probes(&st);
	if (env.output == OUTPUT_JSON)
		return print_json(&st);
	print_human(&st);
	return 0;
}
