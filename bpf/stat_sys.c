// SPDX-License-Identifier: GPL-2.0
/*
 * What guestmm-stat needs from the system: root, bpffs,
 * tracefs, kernel BTF, and the pin directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "stat.h"

void err(const char *fmt, ...)
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

int check_root(void)
{
	if (geteuid() == 0)
		return 0;
	err("must be run as root: BPF programs and %s are root-only", GUESTMM_PIN_DIR);
	return -1;
}

bool is_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (unsigned long)st.f_type == BPFFS_MAGIC;
}

/* bpffs must be mounted at /sys/fs/bpf; load mounts it, others report. */
int ensure_bpffs(bool mount_it)
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

int check_btf(void)
{
	if (access(VMLINUX_BTF, R_OK) == 0)
		return 0;
	err("no kernel BTF at %s: this kernel was built without "
	    "CONFIG_DEBUG_INFO_BTF, CO-RE probes cannot load", VMLINUX_BTF);
	return -1;
}

/* The tracefs root libbpf 1.x uses for tracepoint ids. */
const char *tracefs_root(void)
{
	if (access(DEBUGFS_TRACING, F_OK) == 0)
		return DEBUGFS_TRACING;
	return TRACEFS_ROOT;
}

/* Classic tracepoints need tracefs; mount it if nobody did.  Returns
 * false if tracefs is unavailable (those programs are then skipped). */
bool ensure_tracefs(void)
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

bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

int count_dir(const char *dir, const char *prefix)
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

int remove_pins(void)
{
	int ret = remove_dir(LINK_DIR);

	return remove_dir(GUESTMM_PIN_DIR) ? -1 : ret;
}

int make_private_dir(const char *dir)
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

/* strcmp() of two names, or of two structs that begin with one (qsort) */
int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Names of the pinned links, sorted; returns how many (at most max). */
int link_names(char names[][NAME_MAX + 1], int max)
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
