/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, variant 6.1: the non-exported kernel symbols it uses, with
 * their Debian 6.1 (6.1.176 .. 6.1.192) prototypes.  klp_reloc.h turns
 * each into a klpe_<name> declaration bound to a livepatch relocation;
 * btf_check.c compares every prototype with the running kernel's BTF.
 */
#ifndef _GUESTMM_KLP_V61_KSYMS_H
#define _GUESTMM_KLP_V61_KSYMS_H

#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/tracepoint-defs.h>

#include "../../klp_reloc.h"

struct compact_control;

#define GMM_KLP_KSYMS(FUNC, DATA)					\
	/* mm/compaction.c */						\
	FUNC(enum compact_result, compaction_suitable,			\
	     struct zone *, int, unsigned int, int)			\
	FUNC(void, __reset_isolation_suitable, struct zone *)		\
	FUNC(unsigned long, release_freepages, struct list_head *)	\
	FUNC(int, isolate_migratepages_block, struct compact_control *,	\
	     unsigned long, unsigned long, isolate_mode_t)		\
	FUNC(struct page *, compaction_alloc, struct page *,		\
	     unsigned long)						\
	FUNC(void, compaction_free, struct page *, unsigned long)	\
	DATA(int, sysctl_compact_unevictable_allowed)			\
	DATA(unsigned int, sysctl_compaction_proactiveness)		\
	/* mm/migrate.c */						\
	FUNC(int, migrate_pages, struct list_head *, new_page_t *,	\
	     free_page_t *, unsigned long, enum migrate_mode, int,	\
	     unsigned int *)						\
	FUNC(void, putback_movable_pages, struct list_head *)		\
	/* mm/swap.c */							\
	FUNC(void, lru_add_drain, void)					\
	FUNC(void, lru_add_drain_cpu_zone, struct zone *)		\
	/* mm/page_alloc.c */						\
	FUNC(struct page *, __pageblock_pfn_to_page, unsigned long,	\
	     unsigned long, struct zone *)				\
	FUNC(unsigned long, get_pfnblock_flags_mask,			\
	     const struct page *, unsigned long, unsigned long)		\
	FUNC(void, set_pfnblock_flags_mask, struct page *,		\
	     unsigned long, unsigned long, unsigned long)		\
	FUNC(int, find_suitable_fallback, struct free_area *,		\
	     unsigned int, int, bool, bool *)				\
	DATA(int, page_group_by_mobility_disabled)			\
	/* mm/vmstat.c */						\
	FUNC(unsigned int, extfrag_for_order, struct zone *,		\
	     unsigned int)						\
	/* mm/sparse.c */						\
	DATA(unsigned long, __highest_present_section_nr)		\
	/* mm/vmscan.c (the unmapped page cache policy) */		\
	FUNC(int, __node_reclaim, struct pglist_data *, gfp_t,		\
	     unsigned int)						\
	DATA(int, node_reclaim_mode)					\
	/* include/trace/events/compaction.h */				\
	DATA(struct tracepoint, __tracepoint_mm_compaction_begin)	\
	DATA(struct tracepoint, __tracepoint_mm_compaction_end)		\
	DATA(struct tracepoint, __tracepoint_mm_compaction_finished)	\
	DATA(struct tracepoint, __tracepoint_mm_compaction_migratepages) \
	FUNC(int, __traceiter_mm_compaction_begin, void *,		\
	     struct compact_control *, unsigned long, unsigned long,	\
	     bool)							\
	FUNC(int, __traceiter_mm_compaction_end, void *,		\
	     struct compact_control *, unsigned long, unsigned long,	\
	     bool, int)							\
	FUNC(int, __traceiter_mm_compaction_finished, void *,		\
	     struct zone *, int, int)					\
	FUNC(int, __traceiter_mm_compaction_migratepages, void *,	\
	     struct compact_control *, unsigned int)			\
	/* kernel/bpf/btf.c (btf_check.c) */				\
	FUNC(struct btf *, bpf_get_btf_vmlinux, void)			\
	FUNC(s32, btf_find_by_name_kind, const struct btf *,		\
	     const char *, u8)						\
	FUNC(const char *, btf_name_by_offset, const struct btf *, u32)

GMM_KLP_KSYMS(KLPE_DECLARE_FUNC, KLPE_DECLARE_DATA)

#endif /* _GUESTMM_KLP_V61_KSYMS_H */
