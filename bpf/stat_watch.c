// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat watch: per-interval deltas of the main
 * counters, as a table or as JSON lines (json-c, see stat_json.c).
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "stat.h"

static struct snapshot snap_a, snap_b;
static volatile sig_atomic_t exiting;

static void sig_int(int signo)
{
	(void)signo;
	exiting = 1;
}

/* One interval as a JSON line: time, interval, passes, the vmstat deltas. */
static int json_line(const char *ts, __u64 passes, const struct vmstat_eq *va,
		     const struct vmstat_eq *vb)
{
	struct json_object *o = json_object_new_object();
	unsigned int i;

	json_add(o, "time", json_object_new_string(ts));
	json_add(o, "interval", json_object_new_int64(env.interval));
	json_add(o, "passes", json_object_new_uint64(passes));
	for (i = 0; i < N_VMSTAT; i++)
		json_add(o, vb[i].name, json_object_new_uint64(vb[i].v - va[i].v));
	return json_print(o);
}

int cmd_watch(void)
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

	if (env.output == OUTPUT_PROM) {
		err("watch prints deltas, not Prometheus samples: use show -o prometheus");
		return 1;
	}
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
		if (env.output == OUTPUT_JSON) {
			if (json_line(ts, cur->compact.end - prev->compact.end, va, vb))
				return 1;
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
