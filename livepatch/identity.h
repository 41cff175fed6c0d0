/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: is the running kernel a build this module was made for?
 * (identity.c)
 */
#ifndef _GUESTMM_KLP_IDENTITY_H
#define _GUESTMM_KLP_IDENTITY_H

/* One row of livepatch/kernels.tsv for this variant (builds.h, generated). */
struct gmm_klp_build {
	const char *release;	/* uname -r */
	const char *version;	/* uname -v, exactly */
	const char *build_id;	/* vmlinux GNU build ID in hex, or "-" */
};

/* The exact build, then BTF; 0 or -errno after a message. */
int gmm_klp_check_identity(void);

#endif /* _GUESTMM_KLP_IDENTITY_H */
