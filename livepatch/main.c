// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: a livepatch for Debian 12's 6.1 kernel that replaces
 * compact_zone() with ours (compact_zone.c), which uses our own
 * migrate-source scanner (migrate_scan.c).
 *
 * It also carries the unmapped page cache control (unmapped.c), which
 * patches no function: it only calls the kernel's node reclaim.
 *
 * This file holds the klp_patch, the checks that the running kernel is
 * exactly the one the patch was written for, the tunables and the debugfs
 * counters.  See docs/livepatch.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/utsname.h>

#ifdef GMM_KLP_6_1

#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/livepatch.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <asm/cpufeature.h>

#include "compact.h"
#include "ksyms.h"
#include "unmapped.h"

/* ---- identity of the kernel this patch was written for ---------------- */

static char *expect_version = "Debian 6.1.192-3";
module_param(expect_version, charp, 0444);
MODULE_PARM_DESC(expect_version,
		 "load only if uname -v contains this (default: Debian 6.1.192-3)");

static unsigned int expect_compact_zone_size = 0xdb0;
module_param(expect_compact_zone_size, uint, 0444);
MODULE_PARM_DESC(expect_compact_zone_size,
		 "size in bytes of the kernel's compact_zone() (default 0xdb0)");

static bool force;
module_param(force, bool, 0444);
MODULE_PARM_DESC(force,
		 "load despite a version or compact_zone size mismatch (dangerous)");

/* ---- tunables ------------------------------------------------------- */

struct gmm_klp_tunables gmm_klp_tun = {
	.fast_search = true,
	.search_depth = COMPACT_CLUSTER_MAX,
	.candidates = 1,
	.balloon_cost = 4,
};

/*
 * Only the exact spellings below count, with an optional trailing newline
 * from echo; anything else is refused with a message naming the parameter.
 */
int gmm_klp_parse_bool(const char *val, const char *name, bool *res)
{
	static const char * const yes[] = { "1", "y", "Y", "on" };
	static const char * const no[] = { "0", "n", "N", "off" };
	size_t len = strcspn(val, "\n");
	int i;

	if (val[len] == '\n' && val[len + 1])
		len = 0;	/* text after the newline: refuse */
	for (i = 0; len && i < ARRAY_SIZE(yes); i++) {
		if (strlen(yes[i]) == len && !strncmp(val, yes[i], len)) {
			*res = true;
			return 0;
		}
		if (strlen(no[i]) == len && !strncmp(val, no[i], len)) {
			*res = false;
			return 0;
		}
	}
	pr_err("%s: invalid value '%.*s' (allowed 0/1, n/y, N/Y, off/on)\n",
	       name, (int)strcspn(val, "\n"), val);
	return -EINVAL;
}

static int gmm_bool_set(const char *val, const struct kernel_param *kp)
{
	bool v;

	if (gmm_klp_parse_bool(val, kp->name, &v))
		return -EINVAL;
	WRITE_ONCE(*(bool *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops gmm_bool_ops = {
	.set = gmm_bool_set,
	.get = param_get_bool,
};

module_param_cb(fast_search, &gmm_bool_ops, &gmm_klp_tun.fast_search, 0644);
MODULE_PARM_DESC(fast_search,
		 "search the free lists for a migration source first (default Y)");

/* An unsigned tunable that only takes values in [min, max]. */
struct gmm_uint_param {
	unsigned int *val;
	unsigned int min, max;
};

static int gmm_uint_set(const char *val, const struct kernel_param *kp)
{
	const struct gmm_uint_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < p->min || v > p->max) {
		pr_err("%s: invalid value '%.*s' (allowed %u..%u)\n",
		       kp->name, (int)strcspn(val, "\n"), val, p->min, p->max);
		return -EINVAL;
	}
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int gmm_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct gmm_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops gmm_uint_ops = {
	.set = gmm_uint_set,
	.get = gmm_uint_get,
};

static struct gmm_uint_param search_depth_p = {
	&gmm_klp_tun.search_depth, 1, 1024
};
module_param_cb(search_depth, &gmm_uint_ops, &search_depth_p, 0644);
MODULE_PARM_DESC(search_depth,
		 "free-list entries one search examines (1..1024, default 32)");

static struct gmm_uint_param candidates_p = {
	&gmm_klp_tun.candidates, 1, 16
};
module_param_cb(candidates, &gmm_uint_ops, &candidates_p, 0644);
MODULE_PARM_DESC(candidates,
		 "source pageblocks scored per search, 1 = upstream first-fit (1..16, default 1)");

static struct gmm_uint_param balloon_cost_p = {
	&gmm_klp_tun.balloon_cost, 1, 512
};
module_param_cb(balloon_cost, &gmm_uint_ops, &balloon_cost_p, 0644);
MODULE_PARM_DESC(balloon_cost,
		 "migration cost of a balloon page in base pages (1..512, default 4)");

/* ---- counters (debugfs, root only) ----------------------------------- */

atomic_long_t gmm_klp_stats[GMM_KLP_NR_COUNTERS];

static const char * const gmm_klp_stat_names[GMM_KLP_NR_COUNTERS] = {
	[GMM_KLP_runs] = "runs",
	[GMM_KLP_runs_not_suitable] = "runs_not_suitable",
	[GMM_KLP_fast_search] = "fast_search",
	[GMM_KLP_fast_hit] = "fast_hit",
	[GMM_KLP_fast_miss] = "fast_miss",
	[GMM_KLP_fast_scanned] = "fast_scanned",
	[GMM_KLP_fast_candidates] = "fast_candidates",
	[GMM_KLP_score_scanned] = "score_scanned",
	[GMM_KLP_score_rejected] = "score_rejected",
	[GMM_KLP_linear_blocks] = "linear_blocks",
	[GMM_KLP_blocks_skip_hint] = "blocks_skip_hint",
	[GMM_KLP_blocks_unsuitable] = "blocks_unsuitable",
	[GMM_KLP_blocks_isolated] = "blocks_isolated",
	[GMM_KLP_hole_pfns_skipped] = "hole_pfns_skipped",
	[GMM_KLP_finish_rescans] = "finish_rescans",
	[GMM_KLP_fast_block_skipped] = "fast_block_skipped",
	[GMM_KLP_capture_stops] = "capture_stops",
	[GMM_KLP_migrate_batches] = "migrate_batches",
	[GMM_KLP_migrate_success] = "migrate_success",
	[GMM_KLP_migrate_scanned] = "migrate_scanned",
	[GMM_KLP_free_scanned] = "free_scanned",
};

static int gmm_klp_stats_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < GMM_KLP_NR_COUNTERS; i++)
		seq_printf(m, "%s %ld\n", gmm_klp_stat_names[i],
			   atomic_long_read(&gmm_klp_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gmm_klp_stats);

static struct dentry *gmm_klp_debugfs;

/* ---- identity checks ------------------------------------------------- */

static int gmm_klp_check_version(void)
{
	const char *version = init_utsname()->version;

	if (expect_version && *expect_version &&
	    strstr(version, expect_version))
		return 0;
	if (force) {
		pr_warn("FORCED: kernel version '%s' does not contain '%s'; loading anyway, compaction may corrupt memory\n",
			version, expect_version);
		return 0;
	}
	pr_err("refusing to load: kernel version '%s' does not contain '%s', the only build this patch was written and tested for\n",
	       version, expect_version);
	return -EINVAL;
}

/* The size of compact_zone() from "compact_zone+0x0/0xdb0". */
static int gmm_klp_check_size(void)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *slash;

	sprint_symbol(buf, (unsigned long)klpe_compact_zone);
	slash = strrchr(buf, '/');
	if (!strstarts(buf, "compact_zone+0x0/") || !slash ||
	    kstrtoul(slash + 1, 16, &size)) {
		pr_err("refusing to load: cannot read the size of compact_zone ('%s')\n",
		       buf);
		return -EINVAL;
	}
	if (size == expect_compact_zone_size)
		return 0;
	if (force) {
		pr_warn("FORCED: compact_zone is %lu bytes, expected %u; loading anyway\n",
			size, expect_compact_zone_size);
		return 0;
	}
	pr_err("refusing to load: compact_zone is %lu bytes, expected %u: not the Debian 6.1.192-3 build\n",
	       size, expect_compact_zone_size);
	return -EINVAL;
}

/* ---- the livepatch --------------------------------------------------- */

static struct klp_func gmm_klp_funcs[] = {
	{
		.old_name = "compact_zone",
		.new_func = gmm_klp_compact_zone,
	},
	{ }
};

static struct klp_object gmm_klp_objs[] = {
	{
		/* name == NULL: vmlinux */
		.funcs = gmm_klp_funcs,
	},
	{ }
};

static struct klp_patch gmm_klp_patch = {
	.mod = THIS_MODULE,
	.objs = gmm_klp_objs,
};

static int __init gmm_klp_init(void)
{
	int ret;

	/*
	 * The klpe_ pointers are called indirectly.  With IBT on, calls to
	 * functions without ENDBR (compact_zone, isolate_migratepages_block)
	 * would fault.  Debian's 6.1 has no IBT, so this only trips on an
	 * unknown build; it cannot be forced.
	 */
	if (cpu_feature_enabled(X86_FEATURE_IBT)) {
		pr_err("refusing to load: indirect branch tracking is on; this patch calls kernel functions through pointers\n");
		return -EOPNOTSUPP;
	}

	ret = gmm_klp_check_version();
	if (ret)
		return ret;

	ret = gmm_klp_resolve();
	if (ret)
		return ret;

	ret = gmm_klp_check_size();
	if (ret)
		return ret;

	ret = gmm_klp_btf_check();
	if (ret)
		return ret;

	gmm_klp_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0400, gmm_klp_debugfs, NULL,
			    &gmm_klp_stats_fops);

	/*
	 * Before the patch: once klp_enable_patch() succeeded, init must not
	 * fail any more.
	 */
	ret = gmm_um_init(gmm_klp_debugfs);
	if (ret) {
		debugfs_remove_recursive(gmm_klp_debugfs);
		return ret;
	}

	ret = klp_enable_patch(&gmm_klp_patch);
	if (ret) {
		pr_err("klp_enable_patch failed: %d\n", ret);
		debugfs_remove_recursive(gmm_klp_debugfs);
		gmm_um_exit();
		return ret;
	}
	pr_info("compact_zone replaced (kernel '%s')\n", init_utsname()->version);
	return 0;
}

static void __exit gmm_klp_exit(void)
{
	debugfs_remove_recursive(gmm_klp_debugfs);
	gmm_um_exit();
}

#else /* !GMM_KLP_6_1 */

/*
 * Any other kernel: the private layouts this patch mirrors differ (6.12:
 * compact_control.freepages[], folio migration callbacks) and 6.12 has
 * IBT, under which our pointer calls into compact_zone's callees fault.
 * The unmapped page cache control would do nothing there either: with
 * MGLRU on (Debian's default), lru_gen_shrink_node() returns at once when
 * may_unmap or may_writepage is 0, so __node_reclaim() in mode 0 frees
 * nothing.
 */
static int __init gmm_klp_init(void)
{
	pr_err("refusing to load: written for Debian 6.1 (6.1.0-*-amd64, Debian 6.1.192-3) only, this kernel is %s '%s'\n",
	       init_utsname()->release, init_utsname()->version);
	return -EOPNOTSUPP;
}

static void __exit gmm_klp_exit(void)
{
}

#endif /* GMM_KLP_6_1 */

module_init(gmm_klp_init);
module_exit(gmm_klp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestmm: livepatch of compaction's migrate-source scanner, unmapped page cache control (Debian 6.1)");
MODULE_INFO(livepatch, "Y");
