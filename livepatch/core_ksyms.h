/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: the non-exported kernel symbols the common code uses
 * whatever features are built (btf_check.c), as klpe_<name> bound to
 * livepatch relocations (klp_reloc.h).  protos-h reads the function
 * declarations for btf_check.c as it reads each feature's ksyms.h, so
 * declare one per statement, in this form, and name every parameter.
 */
#ifndef _GUESTMM_KLP_CORE_KSYMS_H
#define _GUESTMM_KLP_CORE_KSYMS_H

#include <linux/btf.h>
#include <linux/types.h>

#include "klp_reloc.h"

/* kernel/bpf/btf.c (btf_check.c) */
extern struct btf *(klpe_bpf_get_btf_vmlinux)(void)
	__asm__(KLP_SYM(bpf_get_btf_vmlinux));
extern s32 klpe_btf_find_by_name_kind(const struct btf *btf,
		const char *name, u8 kind)
	__asm__(KLP_SYM(btf_find_by_name_kind));
extern const char *klpe_btf_name_by_offset(const struct btf *btf,
		u32 offset)
	__asm__(KLP_SYM(btf_name_by_offset));

#endif /* _GUESTMM_KLP_CORE_KSYMS_H */
