/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, variant 6.12: the non-exported kernel symbols it uses, with
 * their Debian 6.12 (6.12.95+deb12, 6.12.118+deb13) prototypes.
 * klp_reloc.h turns each into a klpe_<name> declaration bound to a
 * livepatch relocation; btf_check.c compares every prototype with the
 * running kernel's BTF.
 *
 * Differences from 6.1's list: compaction_suitable() returns bool and no
 * longer takes alloc_flags (the watermark test moved to the caller, hence
 * zone_watermark_ok); release_free_list() replaces release_freepages();
 * migration callbacks and compaction_alloc/free take folios;
 * mm_compaction_migratepages takes the two counts, not cc.
 */
#ifndef _GUESTMM_KLP_V612_KSYMS_H
#define _GUESTMM_KLP_V612_KSYMS_H

#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/tracepoint-defs.h>

#include "../../klp_reloc.h"

struct btf;
struct compact_control;
struct folio;

#define GMM_KLP_KSYMS(FUNC, DATA)					\
	/* mm/compaction.c */						\
	FUNC(bool, compaction_suitable, struct zone *, int, int)	\
	FUNC(void, __reset_isolation_suitable, struct zone *)		\
	FUNC(unsigned long, release_free_list, struct list_head *)	\
	FUNC(int, isolate_migratepages_block, struct compact_control *,	\
	     unsigned long, unsigned long, isolate_mode_t)		\
	FUNC(struct folio *, compaction_alloc, struct folio *,		\
	     unsigned long)						\
	FUNC(void, compaction_free, struct folio *, unsigned long)	\
	DATA(int, sysctl_compact_unevictable_allowed)			\
	DATA(unsigned int, sysctl_compaction_proactiveness)		\
	/* mm/migrate.c */						\
	FUNC(int, migrate_pages, struct list_head *, new_folio_t,	\
	     free_folio_t, unsigned long, enum migrate_mode, int,	\
	     unsigned int *)						\
	FUNC(void, putback_movable_pages, struct list_head *)		\
	/* mm/swap.c */							\
	FUNC(void, lru_add_drain, void)					\
	FUNC(void, lru_add_drain_cpu_zone, struct zone *)		\
	/* mm/page_alloc.c */						\
	FUNC(bool, zone_watermark_ok, struct zone *, unsigned int,	\
	     unsigned long, int, unsigned int)				\
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
	     unsigned int, unsigned int)				\
	/* kernel/bpf/btf.c (btf_check.c) */				\
	FUNC(struct btf *, bpf_get_btf_vmlinux, void)			\
	FUNC(s32, btf_find_by_name_kind, const struct btf *,		\
	     const char *, u8)						\
	FUNC(const char *, btf_name_by_offset, const struct btf *, u32)

GMM_KLP_KSYMS(KLPE_DECLARE_FUNC, KLPE_DECLARE_DATA)

#endif /* _GUESTMM_KLP_V612_KSYMS_H */
