/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters of guestmm's modules (guestmm_balloon, guestmm_klp):
 * one way to parse a value and one message for a bad one, which quotes
 * the value, names the parameter and says what is expected; the old value
 * stays.  gmm_param.c is compiled into each module once
 * (modules/balloon/param.c, livepatch/params.c), so each message carries
 * that module's name.
 */
#ifndef _GUESTMM_PARAM_H
#define _GUESTMM_PARAM_H

#include <linux/moduleparam.h>
#include <linux/types.h>

/* An unsigned int that takes only values in [min, max]. */
struct gmm_uint_param {
	unsigned int *val;
	unsigned int min, max;
};

/* kernel_param_ops for a struct gmm_uint_param. */
extern const struct kernel_param_ops gmm_uint_ops;
int gmm_uint_set(const char *val, const struct kernel_param *kp);
int gmm_uint_get(char *buf, const struct kernel_param *kp);

/* kernel_param_ops for a bool; the bare name means 1. */
extern const struct kernel_param_ops gmm_bool_ops;

/*
 * Parse a bool strictly: 0/1, n/y, N/Y or off/on, with the one trailing
 * newline echo adds.  kstrtobool() reads only the first character or
 * two, so "12abc" would turn a policy on.
 */
int gmm_parse_bool(const char *val, bool *res);

/*
 * Log "invalid value 'VAL' for parameter 'NAME': expected ..." (the rest
 * formatted from @fmt) and return -EINVAL.
 */
__printf(3, 4)
int gmm_param_invalid(const char *val, const struct kernel_param *kp,
		      const char *fmt, ...);

/* module_param_cb() for an unsigned int @var limited to [@min, @max]. */
#define GMM_UINT_PARAM(name, var, min, max, mode)			\
	static struct gmm_uint_param gmm_range_##name = {		\
		&(var), (min), (max)					\
	};								\
	module_param_cb(name, &gmm_uint_ops, &gmm_range_##name, mode)

#endif /* _GUESTMM_PARAM_H */
