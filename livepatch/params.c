// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the scanner's tunables, as module parameters that refuse
 * bad values with a message and keep the old value.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/sysfs.h>

#include "params.h"
#include "scanner.h"

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

