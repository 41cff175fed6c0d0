/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, compaction variant 6.12: the non-exported kernel symbols
 * compact_zone.c, migrate_scan.c and klpr.h use, with their Debian 6.12
 * (6.12.95+deb12 .. 6.12.118+deb13) prototypes.  Each is klpe_<name> bound
 * to a livepatch relocation (klp_reloc.h).  The Kbuild turns the function
 * declarations into the table btf_check.c compares, parameter by
 * parameter, with the running kernel's BTF (protos-h), so declare one per
 * statement, in this form, and name every parameter.
 *
 * What differs from 6.1's list: compaction_suitable() returns bool and
 * takes no alloc_flags (compact_zone() tests the watermark itself, hence
 * zone_watermark_ok()); release_free_list() replaces release_freepages();
 * the migration callbacks take folios; mm_compaction_migratepages takes
 * the two counts instead of cc.
 */
#ifndef _GUESTMM_KLP_COMPACTION_V612_KSYMS_H
#define _GUESTMM_KLP_COMPACTION_V612_KSYMS_H

#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/tracepoint-defs.h>
#include <linux/vmstat.h>

#include "klp_reloc.h"

struct compact_control;

/* mm/compaction.c */
extern bool klpe_compaction_suitable(struct zone *zone, int order,
		int highest_zoneidx)
	__asm__(KLP_SYM(compaction_suitable));
extern void klpe___reset_isolation_suitable(struct zone *zone)
	__asm__(KLP_SYM(__reset_isolation_suitable));
extern unsigned long klpe_release_free_list(struct list_head *freepages)
	__asm__(KLP_SYM(release_free_list));
extern int klpe_isolate_migratepages_block(struct compact_control *cc,
		unsigned long low_pfn, unsigned long end_pfn,
		isolate_mode_t mode)
	__asm__(KLP_SYM(isolate_migratepages_block));
extern struct folio *klpe_compaction_alloc(struct folio *src,
		unsigned long data)
	__asm__(KLP_SYM(compaction_alloc));
extern void klpe_compaction_free(struct folio *dst, unsigned long data)
	__asm__(KLP_SYM(compaction_free));
extern int klpe_sysctl_compact_unevictable_allowed
	__asm__(KLP_SYM(sysctl_compact_unevictable_allowed));
extern unsigned int klpe_sysctl_compaction_proactiveness
	__asm__(KLP_SYM(sysctl_compaction_proactiveness));

/* mm/migrate.c */
extern int klpe_migrate_pages(struct list_head *from,
		new_folio_t *get_new_folio, free_folio_t *put_new_folio,
		unsigned long private, enum migrate_mode mode, int reason,
		unsigned int *ret_succeeded)
	__asm__(KLP_SYM(migrate_pages));
extern void klpe_putback_movable_pages(struct list_head *l)
	__asm__(KLP_SYM(putback_movable_pages));

/* mm/swap.c */
extern void (klpe_lru_add_drain)(void)
	__asm__(KLP_SYM(lru_add_drain));
extern void klpe_lru_add_drain_cpu_zone(struct zone *zone)
	__asm__(KLP_SYM(lru_add_drain_cpu_zone));

/* mm/page_alloc.c */
extern bool klpe_zone_watermark_ok(struct zone *z, unsigned int order,
		unsigned long mark, int highest_zoneidx,
		unsigned int alloc_flags)
	__asm__(KLP_SYM(zone_watermark_ok));
extern struct page *klpe___pageblock_pfn_to_page(unsigned long start_pfn,
		unsigned long end_pfn, struct zone *zone)
	__asm__(KLP_SYM(__pageblock_pfn_to_page));
extern unsigned long klpe_get_pfnblock_flags_mask(const struct page *page,
		unsigned long pfn, unsigned long mask)
	__asm__(KLP_SYM(get_pfnblock_flags_mask));
extern void klpe_set_pfnblock_flags_mask(struct page *page,
		unsigned long flags, unsigned long pfn, unsigned long mask)
	__asm__(KLP_SYM(set_pfnblock_flags_mask));
extern int klpe_find_suitable_fallback(struct free_area *area,
		unsigned int order, int migratetype, bool only_stealable,
		bool *can_steal)
	__asm__(KLP_SYM(find_suitable_fallback));
extern int klpe_page_group_by_mobility_disabled
	__asm__(KLP_SYM(page_group_by_mobility_disabled));

/* mm/vmstat.c */
extern unsigned int klpe_extfrag_for_order(struct zone *zone,
		unsigned int order)
	__asm__(KLP_SYM(extfrag_for_order));

/* mm/sparse.c */
extern unsigned long klpe___highest_present_section_nr
	__asm__(KLP_SYM(__highest_present_section_nr));

/* include/trace/events/compaction.h: the kernel's tracepoints */
extern struct tracepoint klpe___tracepoint_mm_compaction_begin
	__asm__(KLP_SYM(__tracepoint_mm_compaction_begin));
extern struct tracepoint klpe___tracepoint_mm_compaction_end
	__asm__(KLP_SYM(__tracepoint_mm_compaction_end));
extern struct tracepoint klpe___tracepoint_mm_compaction_finished
	__asm__(KLP_SYM(__tracepoint_mm_compaction_finished));
extern struct tracepoint klpe___tracepoint_mm_compaction_migratepages
	__asm__(KLP_SYM(__tracepoint_mm_compaction_migratepages));
extern int klpe___traceiter_mm_compaction_begin(void *__data,
		struct compact_control *cc, unsigned long zone_start,
		unsigned long zone_end, bool sync)
	__asm__(KLP_SYM(__traceiter_mm_compaction_begin));
extern int klpe___traceiter_mm_compaction_end(void *__data,
		struct compact_control *cc, unsigned long zone_start,
		unsigned long zone_end, bool sync, int status)
	__asm__(KLP_SYM(__traceiter_mm_compaction_end));
extern int klpe___traceiter_mm_compaction_finished(void *__data,
		struct zone *zone, int order, int ret)
	__asm__(KLP_SYM(__traceiter_mm_compaction_finished));
extern int klpe___traceiter_mm_compaction_migratepages(void *__data,
		unsigned int nr_migratepages, unsigned int nr_succeeded)
	__asm__(KLP_SYM(__traceiter_mm_compaction_migratepages));

#endif /* _GUESTMM_KLP_COMPACTION_V612_KSYMS_H */
