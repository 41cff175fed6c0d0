// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: resolve the non-exported kernel symbols the patch needs.
 *
 * kallsyms_lookup_name() is not exported since 5.7; its address is taken
 * from a kprobe placed on it (register, read .addr, unregister).  Every
 * symbol below must resolve to a non-zero address, or the module refuses
 * to load and names the missing symbol.  None of these names is duplicated
 * in the 6.1.192 kallsyms, so the first match is the only one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>

#include "ksyms.h"

enum compact_result (*klpe_compaction_suitable)(struct zone *zone, int order,
		unsigned int alloc_flags, int highest_zoneidx);
void (*klpe___reset_isolation_suitable)(struct zone *zone);
unsigned long (*klpe_release_freepages)(struct list_head *freelist);
int (*klpe_isolate_migratepages_block)(struct compact_control *cc,
		unsigned long low_pfn, unsigned long end_pfn,
		isolate_mode_t mode);
new_page_t *klpe_compaction_alloc;
free_page_t *klpe_compaction_free;
void *klpe_compact_zone;
int *klpe_sysctl_compact_unevictable_allowed;
unsigned int *klpe_sysctl_compaction_proactiveness;
int (*klpe_migrate_pages)(struct list_head *from, new_page_t get_new_page,
		free_page_t put_new_page, unsigned long private,
		enum migrate_mode mode, int reason, unsigned int *ret_succeeded);
void (*klpe_putback_movable_pages)(struct list_head *l);
void (*klpe_lru_add_drain)(void);
void (*klpe_lru_add_drain_cpu_zone)(struct zone *zone);
struct page *(*klpe___pageblock_pfn_to_page)(unsigned long start_pfn,
		unsigned long end_pfn, struct zone *zone);
unsigned long (*klpe_get_pfnblock_flags_mask)(const struct page *page,
		unsigned long pfn, unsigned long mask);
void (*klpe_set_pfnblock_flags_mask)(struct page *page, unsigned long flags,
		unsigned long pfn, unsigned long mask);
int (*klpe_find_suitable_fallback)(struct free_area *area, unsigned int order,
		int migratetype, bool only_stealable, bool *can_steal);
int *klpe_page_group_by_mobility_disabled;
unsigned int (*klpe_extfrag_for_order)(struct zone *zone, unsigned int order);
unsigned long *klpe___highest_present_section_nr;
int (*klpe___node_reclaim)(struct pglist_data *pgdat, gfp_t gfp_mask,
		unsigned int order);
int *klpe_node_reclaim_mode;
struct tracepoint *klpe___tracepoint_mm_compaction_begin;
struct tracepoint *klpe___tracepoint_mm_compaction_end;
struct tracepoint *klpe___tracepoint_mm_compaction_finished;
struct tracepoint *klpe___tracepoint_mm_compaction_migratepages;
int (*klpe___traceiter_mm_compaction_begin)(void *data,
		struct compact_control *cc, unsigned long zone_start,
		unsigned long zone_end, bool sync);
int (*klpe___traceiter_mm_compaction_end)(void *data,
		struct compact_control *cc, unsigned long zone_start,
		unsigned long zone_end, bool sync, int status);
int (*klpe___traceiter_mm_compaction_finished)(void *data, struct zone *zone,
		int order, int ret);
int (*klpe___traceiter_mm_compaction_migratepages)(void *data,
		struct compact_control *cc, unsigned int nr_succeeded);
struct btf *(*klpe_bpf_get_btf_vmlinux)(void);
s32 (*klpe_btf_find_by_name_kind)(const struct btf *btf, const char *name,
		u8 kind);
const char *(*klpe_btf_name_by_offset)(const struct btf *btf, u32 offset);

#define KSYM(sym, n) { .name = #sym, .addr = (void **)&klpe_##sym, .nargs = n }
#define KDATA(sym) KSYM(sym, -1)

/* nargs: the argument count of the 6.1.192 prototype, checked in BTF. */
const struct gmm_klp_ksym gmm_klp_ksyms[] = {
	KSYM(compact_zone, 2),
	KSYM(compaction_suitable, 4),
	KSYM(__reset_isolation_suitable, 1),
	KSYM(release_freepages, 1),
	KSYM(isolate_migratepages_block, 4),
	KSYM(compaction_alloc, 2),
	KSYM(compaction_free, 2),
	KDATA(sysctl_compact_unevictable_allowed),
	KDATA(sysctl_compaction_proactiveness),
	KSYM(migrate_pages, 7),
	KSYM(putback_movable_pages, 1),
	KSYM(lru_add_drain, 0),
	KSYM(lru_add_drain_cpu_zone, 1),
	KSYM(__pageblock_pfn_to_page, 3),
	KSYM(get_pfnblock_flags_mask, 3),
	KSYM(set_pfnblock_flags_mask, 4),
	KSYM(find_suitable_fallback, 5),
	KDATA(page_group_by_mobility_disabled),
	KSYM(extfrag_for_order, 2),
	KDATA(__highest_present_section_nr),
	KSYM(__node_reclaim, 3),
	KDATA(node_reclaim_mode),
	KDATA(__tracepoint_mm_compaction_begin),
	KDATA(__tracepoint_mm_compaction_end),
	KDATA(__tracepoint_mm_compaction_finished),
	KDATA(__tracepoint_mm_compaction_migratepages),
	KSYM(__traceiter_mm_compaction_begin, 5),
	KSYM(__traceiter_mm_compaction_end, 6),
	KSYM(__traceiter_mm_compaction_finished, 4),
	KSYM(__traceiter_mm_compaction_migratepages, 3),
	KSYM(bpf_get_btf_vmlinux, 0),
	KSYM(btf_find_by_name_kind, 3),
	KSYM(btf_name_by_offset, 2),
	{ }
};

static unsigned long (*kln)(const char *name);

unsigned long gmm_klp_lookup(const char *name)
{
	return kln ? kln(name) : 0;
}

static int find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret;

	ret = register_kprobe(&kp);
	if (ret < 0) {
		pr_err("cannot place a kprobe on kallsyms_lookup_name (%d); refusing to load\n",
		       ret);
		return ret;
	}
	kln = (unsigned long (*)(const char *))kp.addr;
	unregister_kprobe(&kp);
	if (!kln) {
		pr_err("kallsyms_lookup_name has no address; refusing to load\n");
		return -ENOENT;
	}
	return 0;
}

int gmm_klp_resolve(void)
{
	const struct gmm_klp_ksym *s;
	int ret;

	ret = find_kallsyms_lookup_name();
	if (ret)
		return ret;

	for (s = gmm_klp_ksyms; s->name; s++) {
		unsigned long addr = kln(s->name);

		if (!addr) {
			pr_err("kernel symbol %s not found; refusing to load\n",
			       s->name);
			return -ENOENT;
		}
		*s->addr = (void *)addr;
	}
	return 0;
}
