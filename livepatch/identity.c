// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: refuse any kernel but the builds this module's features
 * were checked against.
 *
 * The Kbuild compiles in the rows of livepatch/kernels.tsv whose feature
 * columns are exactly the features and variants it built (builds.h):
 * every Debian build whose mirrored source scripts/klp-variant found
 * identical, feature by feature.  A module built for one build can still
 * meet another (a rebuild from other sources with the same version, or a
 * Debian revision that keeps the ABI, which dkms autoinstall does not
 * rebuild for); it loads there only if that build is one of those rows,
 * so never where a feature it carries was not verified, nor where the
 * table has a feature it lacks.  The running kernel must match a row
 * exactly: release, the whole uname -v string, and the vmlinux build ID.
 * Then the BTF checks (btf_check.c).  There is no way to skip either.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/buildid.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "btf_check.h"
#include "identity.h"
#include "klp_reloc.h"

#include "builds.h"

/* lib/buildid.c: filled at boot (CONFIG_CRASH_CORE/VMCORE_INFO, both y) */
extern unsigned char klpe_vmlinux_build_id[BUILD_ID_SIZE_MAX]
	__asm__(KLP_SYM(vmlinux_build_id));

/* The gcc build ID is 20 bytes of SHA-1. */
#define GMM_BUILD_ID_LEN	20

static const struct gmm_klp_build *find_build(const char *release,
					      const char *version)
{
	const struct gmm_klp_build *b;

	for (b = gmm_klp_builds; b->release; b++)
		if (!strcmp(b->release, release) && !strcmp(b->version, version))
			return b;
	return NULL;
}

static int check_build(void)
{
	const char *release = init_utsname()->release;
	const char *version = init_utsname()->version;
	char id[2 * GMM_BUILD_ID_LEN + 1];
	const struct gmm_klp_build *b;

	bin2hex(id, klpe_vmlinux_build_id, GMM_BUILD_ID_LEN);
	id[2 * GMM_BUILD_ID_LEN] = '\0';

	b = find_build(release, version);
	if (!b) {
		pr_err("refusing to load: kernel %s '%s' (build ID %s) is not a build this module was checked against with its features (%s; first build %s). A maintainer checks a new Debian build with: scripts/klp-variant check <version>\n",
		       release, version, id, GMM_KLP_FEATURES,
		       gmm_klp_builds[0].version ?: "none");
		return -EINVAL;
	}
	if (strcmp(b->build_id, "-") && strcmp(b->build_id, id)) {
		pr_err("refusing to load: kernel %s '%s' has build ID %s, the checked build has %s (rebuilt from other sources?)\n",
		       release, version, id, b->build_id);
		return -EINVAL;
	}
	return 0;
}

int gmm_klp_check_identity(const struct gmm_klp_feature *const *features,
			   unsigned int nr)
{
	int ret = check_build();

	return ret ?: gmm_klp_btf_check(features, nr);
}
