/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: what a feature of the livepatch supplies to main.c, which
 * declares the one patch of all the features built (kernels.tsv has a
 * column per feature; the Kbuild builds those select-variant names).
 */
#ifndef _GUESTMM_KLP_FEATURE_H
#define _GUESTMM_KLP_FEATURE_H

#include <linux/livepatch.h>

struct dentry;
struct gmm_klp_layout;

struct gmm_klp_feature {
	const char *name;		/* its kernels.tsv column */
	const char *variant;		/* <name>/variants/<variant>/ */
	/* the vmlinux functions it replaces, ended by an empty entry */
	const struct klp_func *funcs;
	/* our copies of private kernel structs, for btf_check.c */
	const struct gmm_klp_layout *layouts;
	/*
	 * Before the patch is enabled: set up, in @debugfs_dir too; 0 or
	 * -errno after a message.  exit() undoes it; it runs only after an
	 * init() that succeeded (module exit, or a later init or the enable
	 * failing).
	 */
	int (*init)(struct dentry *debugfs_dir);
	void (*exit)(void);
	/* optional: the patch's callbacks, around a transition */
	void (*post_patch)(void);
	void (*pre_unpatch)(void);
};

#endif /* _GUESTMM_KLP_FEATURE_H */
