/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: non-exported kernel symbols, resolved at load (ksyms.c).
 *
 * Every pointer is named klpe_<kernel name> and has the kernel's 6.1.192
 * prototype; gmm_klp_resolve() fills them all or fails the load.  The
 * prototypes are checked against the running kernel's BTF (argument
 * counts, btf_check.c).
 */
#ifndef _GUESTMM_KLP_KSYMS_H
#define _GUESTMM_KLP_KSYMS_H

#include <linux/btf.h>
#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/tracepoint-defs.h>

struct compact_control;

/* mm/compaction.c */
extern enum compact_result (*klpe_compaction_suitable)(struct zone *zone,
		int order, unsigned int alloc_flags, int highest_zoneidx);
extern void (*klpe___reset_isolation_suitable)(struct zone *zone);
extern unsigned long (*klpe_release_freepages)(struct list_head *freelist);
extern int (*klpe_isolate_migratepages_block)(struct compact_control *cc,
		unsigned long low_pfn, unsigned long end_pfn,
		isolate_mode_t mode);
extern new_page_t *klpe_compaction_alloc;
extern free_page_t *klpe_compaction_free;
extern void *klpe_compact_zone;
extern int *klpe_sysctl_compact_unevictable_allowed;
extern unsigned int *klpe_sysctl_compaction_proactiveness;

/* mm/migrate.c */
extern int (*klpe_migrate_pages)(struct list_head *from, new_page_t get_new_page,
		free_page_t put_new_page, unsigned long private,
		enum migrate_mode mode, int reason, unsigned int *ret_succeeded);
extern void (*klpe_putback_movable_pages)(struct list_head *l);

/* mm/swap.c */
extern void (*klpe_lru_add_drain)(void);
extern void (*klpe_lru_add_drain_cpu_zone)(struct zone *zone);

/* mm/page_alloc.c */
extern struct page *(*klpe___pageblock_pfn_to_page)(unsigned long start_pfn,
		unsigned long end_pfn, struct zone *zone);
extern unsigned long (*klpe_get_pfnblock_flags_mask)(const struct page *page,
		unsigned long pfn, unsigned long mask);
extern void (*klpe_set_pfnblock_flags_mask)(struct page *page,
		unsigned long flags, unsigned long pfn, unsigned long mask);
extern int (*klpe_find_suitable_fallback)(struct free_area *area,
		unsigned int order, int migratetype, bool only_stealable,
		bool *can_steal);
extern int *klpe_page_group_by_mobility_disabled;

/* mm/vmstat.c */
extern unsigned int (*klpe_extfrag_for_order)(struct zone *zone,
		unsigned int order);

/* mm/vmscan.c (the unmapped page cache policy, unmapped.c) */
extern int (*klpe___node_reclaim)(struct pglist_data *pgdat, gfp_t gfp_mask,
		unsigned int order);
extern int *klpe_node_reclaim_mode;

/* mm/sparse.c */
extern unsigned long *klpe___highest_present_section_nr;

/* The kernel's compaction tracepoints (include/trace/events/compaction.h) */
extern struct tracepoint *klpe___tracepoint_mm_compaction_begin;
extern struct tracepoint *klpe___tracepoint_mm_compaction_end;
extern struct tracepoint *klpe___tracepoint_mm_compaction_finished;
extern struct tracepoint *klpe___tracepoint_mm_compaction_migratepages;
extern int (*klpe___traceiter_mm_compaction_begin)(void *data,
		struct compact_control *cc, unsigned long zone_start,
		unsigned long zone_end, bool sync);
extern int (*klpe___traceiter_mm_compaction_end)(void *data,
		struct compact_control *cc, unsigned long zone_start,
		unsigned long zone_end, bool sync, int status);
extern int (*klpe___traceiter_mm_compaction_finished)(void *data,
		struct zone *zone, int order, int ret);
extern int (*klpe___traceiter_mm_compaction_migratepages)(void *data,
		struct compact_control *cc, unsigned int nr_succeeded);

/* kernel/bpf (for btf_check.c) */
extern struct btf *(*klpe_bpf_get_btf_vmlinux)(void);
extern s32 (*klpe_btf_find_by_name_kind)(const struct btf *btf,
		const char *name, u8 kind);
extern const char *(*klpe_btf_name_by_offset)(const struct btf *btf,
		u32 offset);

/* One resolved symbol; nargs < 0 for data, else the BTF argument count. */
struct gmm_klp_ksym {
	const char *name;
	void **addr;
	int nargs;
};
extern const struct gmm_klp_ksym gmm_klp_ksyms[];

int gmm_klp_resolve(void);
unsigned long gmm_klp_lookup(const char *name);

#endif /* _GUESTMM_KLP_KSYMS_H */
