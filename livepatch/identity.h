/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: is the running kernel a build this module was made for?
 * (identity.c)
 */
#ifndef _GUESTMM_KLP_IDENTITY_H
#define _GUESTMM_KLP_IDENTITY_H

struct gmm_klp_feature;

/*
 * One row of livepatch/kernels.tsv whose features are the module's
 * (builds.h, generated).
 */
struct gmm_klp_build {
	const char *release;	/* uname -r */
	const char *version;	/* uname -v, exactly */
	const char *build_id;	/* vmlinux GNU build ID in hex, or "-" */
};

/*
 * The exact build, then BTF (the @nr @features' layouts and every
 * prototype); 0 or -errno after a message.
 */
int gmm_klp_check_identity(const struct gmm_klp_feature *const *features,
			   unsigned int nr);

#endif /* _GUESTMM_KLP_IDENTITY_H */
