// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameter parsing shared by guestmm's modules (gmm_param.h).
 * Not built on its own: modules/balloon/param.c and livepatch/params.c
 * include it.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "gmm_param.h"

/* The value up to its newline, for the message; a bare name is "". */
#define GMM_VAL(val)	(int)strcspn((val) ? (val) : "", "\n"), (val) ? (val) : ""

int gmm_param_invalid(const char *val, const struct kernel_param *kp,
		      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("invalid value '%.*s' for parameter '%s': expected %pV\n",
	       GMM_VAL(val), kp->name, &vaf);
	va_end(args);
	return -EINVAL;
}

int gmm_parse_bool(const char *val, bool *res)
{
	static const char * const yes[] = { "1", "y", "Y", "on" };
	static const char * const no[] = { "0", "n", "N", "off" };
	size_t len = strcspn(val, "\n");
	int i;

	if (val[len] == '\n' && val[len + 1])
		return -EINVAL;		/* text after the newline */
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
	return -EINVAL;
}

static int gmm_bool_set(const char *val, const struct kernel_param *kp)
{
	bool v = true;

	if (val && gmm_parse_bool(val, &v))
		return gmm_param_invalid(val, kp,
					 "0 or 1 (or n/y, N/Y, off/on)");
	WRITE_ONCE(*(bool *)kp->arg, v);
	return 0;
}

const struct kernel_param_ops gmm_bool_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = gmm_bool_set,
	.get = param_get_bool,
};

int gmm_uint_set(const char *val, const struct kernel_param *kp)
{
	const struct gmm_uint_param *p = kp->arg;
	unsigned int v;

	if (!val || kstrtouint(val, 0, &v) || v < p->min || v > p->max)
		return gmm_param_invalid(val, kp, "an integer from %u to %u",
					 p->min, p->max);
	WRITE_ONCE(*p->val, v);
	return 0;
}

int gmm_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct gmm_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

const struct kernel_param_ops gmm_uint_ops = {
	.set = gmm_uint_set,
	.get = gmm_uint_get,
};
