// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: one livepatch of the features built for this kernel, each
 * with its own variants and its own kernels.tsv column:
 *
 * - compaction (compaction/): replaces compact_zone() with ours, whose
 *   migrate-source scanner is our own;
 * - reclaim (reclaim/): the unmapped page cache control, which replaces
 *   pgdat_balanced().
 *
 * A feature whose column is "-" for this build is not compiled in
 * (livepatch/Kbuild, select-variant).  The patch is declared here, in one
 * table of the features; their functions make one klp_object, enabled in
 * one transition.  The rest of init is the identity checks (identity.c,
 * btf_check.c), debugfs and our tracepoints (tracing.c).  See
 * docs/livepatch.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/utsname.h>

#include "feature.h"
#include "identity.h"
#include "tracing.h"
#ifdef GMM_KLP_COMPACTION
#include "compaction/compaction.h"
#endif
#ifdef GMM_KLP_RECLAIM
#include "reclaim/reclaim.h"
#endif

/* The patch: every feature built for this kernel. */
static const struct gmm_klp_feature *const gmm_klp_features[] = {
#ifdef GMM_KLP_COMPACTION
	&gmm_klp_compaction,
#endif
#ifdef GMM_KLP_RECLAIM
	&gmm_klp_reclaim,
#endif
};
#define GMM_KLP_NR_FEATURES	ARRAY_SIZE(gmm_klp_features)

/* Room for every feature's functions, and the empty entry that ends them. */
#define GMM_KLP_MAX_FUNCS	8
static struct klp_func gmm_klp_funcs[GMM_KLP_MAX_FUNCS + 1];

static void gmm_klp_post_patch(struct klp_object *obj)
{
	unsigned int i;

	for (i = 0; i < GMM_KLP_NR_FEATURES; i++)
		if (gmm_klp_features[i]->post_patch)
			gmm_klp_features[i]->post_patch();
}

static void gmm_klp_pre_unpatch(struct klp_object *obj)
{
	unsigned int i;

	for (i = 0; i < GMM_KLP_NR_FEATURES; i++)
		if (gmm_klp_features[i]->pre_unpatch)
			gmm_klp_features[i]->pre_unpatch();
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

/* The features' functions, in table order, into gmm_klp_funcs[]. */
static int gmm_klp_collect_funcs(void)
{
	const struct klp_func *f;
	unsigned int i, n = 0;

	for (i = 0; i < GMM_KLP_NR_FEATURES; i++) {
		for (f = gmm_klp_features[i]->funcs; f->old_name; f++) {
			if (WARN_ON(n == GMM_KLP_MAX_FUNCS))
				return -E2BIG;
			gmm_klp_funcs[n].old_name = f->old_name;
			gmm_klp_funcs[n].new_func = f->new_func;
			gmm_klp_funcs[n].old_sympos = f->old_sympos;
			n++;
		}
	}
	return 0;
}

/* exit() of the first @n features, the last first. */
static void gmm_klp_features_exit(unsigned int n)
{
	while (n--)
		gmm_klp_features[n]->exit();
}

static int __init gmm_klp_init(void)
{
	const struct gmm_klp_feature *feat;
	const struct klp_func *f;
	unsigned int i;
	int ret;

	BUILD_BUG_ON(GMM_KLP_NR_FEATURES == 0);
	ret = gmm_klp_collect_funcs();
	if (ret)
		return ret;
	ret = gmm_klp_check_identity(gmm_klp_features, GMM_KLP_NR_FEATURES);
	if (ret)
		return ret;

	gmm_klp_tracing_init();
	gmm_klp_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);

	/*
	 * Before the patch: once klp_enable_patch() succeeded, init must not
	 * fail any more.
	 */
	for (i = 0; i < GMM_KLP_NR_FEATURES; i++) {
		ret = gmm_klp_features[i]->init(gmm_klp_debugfs);
		if (ret) {
			gmm_klp_features_exit(i);
			goto err;
		}
	}

	ret = klp_enable_patch(&gmm_klp_patch);
	if (ret) {
		pr_err("klp_enable_patch failed: %d\n", ret);
		gmm_klp_features_exit(GMM_KLP_NR_FEATURES);
		goto err;
	}
	for (i = 0; i < GMM_KLP_NR_FEATURES; i++) {
		feat = gmm_klp_features[i];
		for (f = feat->funcs; f->old_name; f++)
			pr_info("%s replaced (%s variant %s, kernel '%s')\n",
				f->old_name, feat->name, feat->variant,
				init_utsname()->version);
	}
	return 0;

err:
	debugfs_remove_recursive(gmm_klp_debugfs);
	gmm_klp_tracing_exit();
	return ret;
}

static void __exit gmm_klp_exit(void)
{
	debugfs_remove_recursive(gmm_klp_debugfs);
	gmm_klp_features_exit(GMM_KLP_NR_FEATURES);
	gmm_klp_tracing_exit();
}

module_init(gmm_klp_init);
module_exit(gmm_klp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("guestmm: livepatch of compaction's migrate-source scanner, unmapped page cache control (" GMM_KLP_FEATURES ")");
MODULE_INFO(livepatch, "Y");
MODULE_SOFTDEP("pre: guestmm_klp_trace");
