/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp, reclaim variant 6.12: the non-exported kernel symbols the
 * unmapped page cache control (unmapped.c, unmapped_walk.c, vmscan.h)
 * uses, with their Debian 6.12 prototypes.  Each is klpe_<name> bound to a
 * livepatch relocation (klp_reloc.h).  The Kbuild turns the function
 * declarations into the table btf_check.c compares, parameter by
 * parameter, with the running kernel's BTF (protos-h), so declare one
 * per statement, in this form, and name every parameter.
 *
 * What differs from 6.1's list: folio_isolate_lru() returns bool.
 */
#ifndef _GUESTMM_KLP_RECLAIM_V612_KSYMS_H
#define _GUESTMM_KLP_RECLAIM_V612_KSYMS_H

#include <linux/backing-dev-defs.h>
#include <linux/memcontrol.h>
#include <linux/mmzone.h>
#include <linux/vmstat.h>

#include "klp_reloc.h"

struct scan_control;

/* mm/swap.c */
extern void (klpe_lru_add_drain)(void)
	__asm__(KLP_SYM(lru_add_drain));

/* mm/vmscan.c, the memcg walk, kswapd's wakeup and caller ranges */
extern unsigned int klpe_shrink_folio_list(struct list_head *folio_list,
		struct pglist_data *pgdat, struct scan_control *sc,
		struct reclaim_stat *stat, bool ignore_references)
	__asm__(KLP_SYM(shrink_folio_list));
extern bool klpe_folio_isolate_lru(struct folio *folio)
	__asm__(KLP_SYM(folio_isolate_lru));
extern void klpe_folio_putback_lru(struct folio *folio)
	__asm__(KLP_SYM(folio_putback_lru));
extern bool klpe_zone_watermark_ok_safe(struct zone *z, unsigned int order,
		unsigned long mark, int highest_zoneidx)
	__asm__(KLP_SYM(zone_watermark_ok_safe));
extern void klpe_wakeup_kswapd(struct zone *zone, gfp_t gfp_flags,
		int order, enum zone_type highest_zoneidx)
	__asm__(KLP_SYM(wakeup_kswapd));
extern void klpe_wakeup_flusher_threads(enum wb_reason reason)
	__asm__(KLP_SYM(wakeup_flusher_threads));
extern struct mem_cgroup *klpe_mem_cgroup_iter(struct mem_cgroup *root,
		struct mem_cgroup *prev,
		struct mem_cgroup_reclaim_cookie *reclaim)
	__asm__(KLP_SYM(mem_cgroup_iter));
extern void klpe_mem_cgroup_iter_break(struct mem_cgroup *root,
		struct mem_cgroup *prev)
	__asm__(KLP_SYM(mem_cgroup_iter_break));
extern void klpe_mem_cgroup_calculate_protection(struct mem_cgroup *root,
		struct mem_cgroup *memcg)
	__asm__(KLP_SYM(mem_cgroup_calculate_protection));
extern void klpe___count_memcg_events(struct mem_cgroup *memcg,
		enum vm_event_item idx, unsigned long count)
	__asm__(KLP_SYM(__count_memcg_events));
extern int klpe_kallsyms_lookup_size_offset(unsigned long addr,
		unsigned long *symbolsize, unsigned long *offset)
	__asm__(KLP_SYM(kallsyms_lookup_size_offset));
extern struct mem_cgroup *klpe_root_mem_cgroup
	__asm__(KLP_SYM(root_mem_cgroup));
extern int klpe_sysctl_numa_balancing_mode
	__asm__(KLP_SYM(sysctl_numa_balancing_mode));
extern int klpe_node_reclaim_mode
	__asm__(KLP_SYM(node_reclaim_mode));
/*
 * Code addresses only, never called: where pgdat_balanced() was called
 * from (unmapped.c).  Arrays, so that protos-h does not take them for
 * prototypes.
 */
extern const char klpe_balance_pgdat[]
	__asm__(KLP_SYM(balance_pgdat));
extern const char klpe_prepare_kswapd_sleep[]
	__asm__(KLP_SYM(prepare_kswapd_sleep));

#endif /* _GUESTMM_KLP_RECLAIM_V612_KSYMS_H */
