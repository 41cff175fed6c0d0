/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: non-exported kernel symbols as livepatch relocations.
 *
 * Each variant declares the kernel symbols it uses in its ksyms.h, as
 * plain C with the kernel's prototype:
 *
 *	extern int klpe_isolate_migratepages_block(struct compact_control *cc,
 *			unsigned long low_pfn, unsigned long end_pfn,
 *			isolate_mode_t mode)
 *		__asm__(KLP_SYM(isolate_migratepages_block));
 *	extern void (klpe_lru_add_drain)(void)
 *		__asm__(KLP_SYM(lru_add_drain));
 *	extern int klpe_sysctl_compact_unevictable_allowed
 *		__asm__(KLP_SYM(sysctl_compact_unevictable_allowed));
 *
 * (A function without parameters has its name in parentheses: the same C,
 * which checkpatch does not mistake for a definition.)
 *
 * The asm label names the symbol ".klp.sym.vmlinux.<name>,0", the name
 * the kernel's livepatch core resolves (kernel/livepatch/core.c,
 * klp_resolve_symbols()).  So a call
 * klpe_foo() is an ordinary direct call, compiled as "call <reloc>"; data
 * is read through an ordinary relocation.  No function pointer into kernel
 * text is ever formed by the module, which is what IBT needs: objtool seals
 * the ENDBR of kernel functions whose address the kernel never takes.
 *
 * After kbuild links the module, klp-postlink (livepatch/postlink/) marks
 * these symbols SHN_LIVEPATCH and moves their relocations into
 * .klp.rela.vmlinux.<section> sections, which the kernel applies while it
 * loads the module.  Position 0: the name must be unique in vmlinux
 * (scripts/klp-variant checks that for every build in kernels.tsv).
 *
 * The Kbuild reads the same declarations into the table of prototypes
 * btf_check.c compares, parameter by parameter, with the running kernel's
 * BTF (protos-h, protos.h).
 */
#ifndef _GUESTMM_KLP_RELOC_H
#define _GUESTMM_KLP_RELOC_H

/* The assembler name of kernel symbol @name: __asm__(KLP_SYM(name)) */
#define KLP_SYM(name)		"\".klp.sym.vmlinux." #name ",0\""

/* One row of protos.h: the C spelling of a kernel function's prototype. */
struct gmm_klp_proto {
	const char *name;
	const char *ret;
	const char *params;	/* "T1, T2, ..." or "void" */
};

#endif /* _GUESTMM_KLP_RELOC_H */
