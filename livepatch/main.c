// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: a livepatch that replaces compact_zone() with ours, whose
 * migrate-source scanner is our own (variants/<V>/, one directory per
 * source variant of the kernel code it mirrors; kernels.tsv says which
 * Debian build has which).  It also carries the unmapped page cache
 * control (unmapped.c), which replaces pgdat_balanced().
 *
 * The patch is declared here, in one table; the rest of init is the
 * identity checks (identity.c, btf_check.c), debugfs (stats.c) and our
 * tracepoints (tracing.c).  See docs/livepatch.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/utsname.h>

#include "compact.h"
#include "identity.h"
#include "stats.h"
#include "tracing.h"
#include "unmapped.h"

static struct klp_func gmm_klp_funcs[] = {
	{
		.old_name = "compact_zone",
		.new_func = gmm_klp_compact_zone,
	},
#ifdef GMM_KLP_UNMAPPED
	{
		/* unmapped.c: the unmapped page cache control, in kswapd */
		.old_name = "pgdat_balanced",
		.new_func = gmm_pgdat_balanced,
	},
#endif
	{ }
};

static void gmm_klp_post_patch(struct klp_object *obj)
{
	gmm_um_post_patch();
}

static void gmm_klp_pre_unpatch(struct klp_object *obj)
{
	gmm_um_pre_unpatch();
}

static struct klp_object gmm_klp_objs[] = {
	{
		/* name == NULL: vmlinux */
		.funcs = gmm_klp_funcs,
		.callbacks = {
			.post_patch = gmm_klp_post_patch,
			.pre_unpatch = gmm_klp_pre_unpatch,
		},
	},
	{ }
};

static struct klp_patch gmm_klp_patch = {
	.mod = THIS_MODULE,
	.objs = gmm_klp_objs,
};

static struct dentry *gmm_klp_debugfs;

static int __init gmm_klp_init(void)
{
	int ret;

	ret = gmm_klp_check_identity();
	if (ret)
		return ret;

	gmm_klp_tracing_init();
	gmm_klp_debugfs = gmm_klp_stats_init();

	/*
	 * Before the patch: once klp_enable_patch() succeeded, init must not
	 * fail any more.
	 */
	ret = gmm_um_init(gmm_klp_debugfs);
	if (ret)
		goto err;

	ret = klp_enable_patch(&gmm_klp_patch);
	if (ret) {
		pr_err("klp_enable_patch failed: %d\n", ret);
		gmm_um_exit();
		goto err;
	}
	pr_info("compact_zone replaced (variant %s, kernel '%s')\n",
		GMM_KLP_VARIANT, init_utsname()->version);
	return 0;

err:
	debugfs_remove_recursive(gmm_klp_debugfs);
	gmm_klp_tracing_exit();
	return ret;
}

static void __exit gmm_klp_exit(void)
{
	debugfs_remove_recursive(gmm_klp_debugfs);
	gmm_um_exit();
	gmm_klp_tracing_exit();
}

module_init(gmm_klp_init);
module_exit(gmm_klp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestmm: livepatch of compaction's migrate-source scanner, unmapped page cache control");
MODULE_INFO(livepatch, "Y");
MODULE_SOFTDEP("pre: guestmm_klp_trace");
