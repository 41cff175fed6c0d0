// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_warn: a test-only module whose load triggers one WARN.
 *
 * It exists to prove that the test harness's kernel-log checker fails a
 * case when the kernel warns: a checker that never bites proves nothing.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init guestmm_warn_init(void)
{
	WARN(1, "guestmm_warn: deliberate warning to prove the log checker\n");
	return 0;
}

static void __exit guestmm_warn_exit(void)
{
}

module_init(guestmm_warn_init);
module_exit(guestmm_warn_exit);
MODULE_DESCRIPTION("guestmm test module: WARN once at load");
MODULE_LICENSE("GPL");
