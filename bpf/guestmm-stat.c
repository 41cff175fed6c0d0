// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm-stat - load the guestmm BPF probes, pin them, read them back.
 *
 *   guestmm-stat load       attach every probe this kernel supports, pin
 *                           maps and links under /sys/fs/bpf/guestmm, exit
 *   guestmm-stat show [-j | -o prometheus]
 *                           tables and log2 histograms (or JSON, or the
 *                           Prometheus text format)
 *   guestmm-stat watch [-i SEC] [-c N]   per-interval deltas
 *   guestmm-stat reset      zero every counter and histogram
 *   guestmm-stat unload     remove the pins; the probes detach
 *   guestmm-stat status [-j]
 *                           which balloon driver, livepatch (or why not)
 *                           and probes this kernel runs
 *
 * Counting continues after `load` exits because the links are pinned.
 * The maps are plain BTF-typed arrays, so bpftool reads them too:
 *   bpftool map dump pinned /sys/fs/bpf/guestmm/compact
 *
 * This file parses the command line and dispatches; stat.h lists the
 * other files, one job each.
 */
#include <argp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "stat.h"

struct env env = {
	.interval = 1,
	.count = -1,
};

#ifndef GUESTMM_VERSION
#define GUESTMM_VERSION "unknown"
#endif
const char *argp_program_version = "guestmm-stat " GUESTMM_VERSION;
static const char argp_doc[] =
"Load, read and unload the guestmm BPF probes (compaction, migration,\n"
"THP migration, node reclaim, balloon).\n"
"\n"
"COMMANDS:\n"
"  load      attach the probes and pin maps and links under " GUESTMM_PIN_DIR "\n"
"            (programs whose tracepoint or function this kernel lacks are\n"
"            skipped and named); counting continues after load exits\n"
"  show      print counters and latency histograms (-j or -o json: JSON,\n"
"            -o prometheus: Prometheus text format 0.0.4)\n"
"  watch     print per-interval deltas every -i SEC seconds (-c N times)\n"
"  reset     zero all counters and histograms\n"
"  unload    remove the pins; the probes detach\n"
"  status    which driver has the balloon, whether the livepatch is enabled\n"
"            and its features (if not, why: /usr/lib/guestmm/klp-check),\n"
"            whether the probes are loaded (-j: JSON); exit 0 whatever it finds\n"
"\n"
"EXAMPLES:\n"
"  guestmm-stat load\n"
"  guestmm-stat show -j\n"
"  guestmm-stat status\n"
"  guestmm-stat show -o prometheus\n"
"  guestmm-stat watch -i 5\n"
"  bpftool map dump pinned " GUESTMM_PIN_DIR "/compact\n";

static const struct argp_option opts[] = {
	{ "json", 'j', NULL, 0, "JSON output (show, watch, status); same as -o json", 0 },
	{ "output", 'o', "FORMAT", 0,
	  "Output format: table (default), json (as -j) or prometheus "
	  "(show only: the Prometheus text format 0.0.4)", 0 },
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

static enum output_fmt parse_output(const char *arg, struct argp_state *state)
{
	if (!strcmp(arg, "table"))
		return OUTPUT_TABLE;
	if (!strcmp(arg, "json"))
		return OUTPUT_JSON;
	if (!strcmp(arg, "prometheus"))
		return OUTPUT_PROM;
	argp_error(state, "invalid output format '%s' (table, json, prometheus)", arg);
	return OUTPUT_TABLE;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		env.output = OUTPUT_JSON;
		break;
	case 'o':
		env.output = parse_output(arg, state);
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

static struct snapshot snap;

static int cmd_show(void)
{
	if (open_maps() || read_snapshot(&snap))
		return 1;
	names_init();
	if (env.output == OUTPUT_JSON)
		return show_json(&snap);
	if (env.output == OUTPUT_PROM)
		show_prom(&snap);
	else
		show_human(&snap);
	return 0;
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
	if (!strcmp(env.cmd, "status"))
		return cmd_status();
	err("unknown command '%s' (load, show, watch, reset, unload, status; -h for help)",
	    env.cmd);
	return 1;
}
