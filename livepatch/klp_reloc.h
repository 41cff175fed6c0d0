/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: non-exported kernel symbols as livepatch relocations.
 *
 * Each variant lists the kernel symbols it uses in its ksyms.h, once:
 *
 *	#define GMM_KLP_KSYMS(FUNC, DATA)				\
 *		FUNC(int, isolate_migratepages_block,			\
 *		     struct compact_control *, unsigned long,		\
 *		     unsigned long, isolate_mode_t)			\
 *		DATA(int, sysctl_compact_unevictable_allowed)
 *
 * and this header declares klpe_<name> for each.  The asm label names the
 * symbol ".klp.sym.vmlinux.<name>,0", the name the kernel's livepatch core
 * resolves (kernel/livepatch/core.c, klp_resolve_symbols()).  So a call
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
 * The same list gives the prototypes btf_check.c compares, parameter by
 * parameter, with the running kernel's BTF.
 */
#ifndef _GUESTMM_KLP_RELOC_H
#define _GUESTMM_KLP_RELOC_H

#define KLP_SYM_NAME(name)	".klp.sym.vmlinux." #name ",0"
#define KLP_RELOC(name)		__asm__("\"" KLP_SYM_NAME(name) "\"")

#define KLPE_DECLARE_FUNC(ret, name, ...)				\
	extern ret klpe_##name(__VA_ARGS__) KLP_RELOC(name);
#define KLPE_DECLARE_DATA(type, name)					\
	extern type klpe_##name KLP_RELOC(name);

/* What btf_check.c compares: the C spelling of the prototype. */
struct gmm_klp_proto {
	const char *name;
	const char *ret;
	const char *params;	/* "T1, T2, ..." or "void" */
};

#define KLPE_PROTO_FUNC(ret, name, ...)	{ #name, #ret, #__VA_ARGS__ },
#define KLPE_PROTO_DATA(type, name)

#endif /* _GUESTMM_KLP_RELOC_H */
