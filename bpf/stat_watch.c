// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat watch: per-interval deltas of the main
 * counters, as a table or as JSON lines.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "stat.h"

static struct snapshot snap_a, snap_b;
static volatile sig_atomic_t exiting;

static void sig_int(int signo)
{
	(void)signo;
	exiting = 1;
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
