// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: check our copies of private kernel types and prototypes
 * against the running kernel's own BTF (/sys/kernel/btf/vmlinux).
 *
 * struct compact_control and struct capture_control live in mm/internal.h
 * and are not in any installed header.  The module carries copies
 * (compact.h); the kernel functions we call (isolate_migratepages_block,
 * compaction_alloc, the compaction tracepoints) read them.  Any difference
 * in a member's name, offset or in the structure size refuses the load.
 * Each resolved function's argument count is checked against its BTF
 * prototype too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <uapi/linux/btf.h>

#include "compact.h"
#include "ksyms.h"

struct gmm_klp_member {
	const char *kname;	/* the member's name in the running kernel */
	size_t offset;		/* offset in our copy */
};

#define M(ours, theirs) { #theirs, offsetof(struct compact_control, ours) }
static const struct gmm_klp_member cc_members[] = {
	M(freepages, freepages),
	M(migratepages, migratepages),
	M(nr_freepages, nr_freepages),
	M(nr_migratepages, nr_migratepages),
	M(free_pfn, free_pfn),
	M(migrate_pfn, migrate_pfn),
	M(fast_start_pfn, fast_start_pfn),
	M(zone, zone),
	M(total_migrate_scanned, total_migrate_scanned),
	M(total_free_scanned, total_free_scanned),
	M(fast_search_fail, fast_search_fail),
	M(search_order, search_order),
	M(gfp_mask, gfp_mask),
	M(order, order),
	M(migratetype, migratetype),
	M(alloc_flags, alloc_flags),
	M(highest_zoneidx, highest_zoneidx),
	M(mode, mode),
	M(ignore_skip_hint, ignore_skip_hint),
	M(no_set_skip_hint, no_set_skip_hint),
	M(ignore_block_suitable, ignore_block_suitable),
	M(direct_compaction, direct_compaction),
	M(proactive_compaction, proactive_compaction),
	M(whole_zone, whole_zone),
	M(contended, contended),
	M(finish_pageblock, rescan),
	M(alloc_contig, alloc_contig),
};
#undef M

static const struct gmm_klp_member capc_members[] = {
	{ "cc", offsetof(struct capture_control, cc) },
	{ "page", offsetof(struct capture_control, page) },
};

static int check_struct(const struct btf *btf, const char *name, size_t size,
			const struct gmm_klp_member *ours, unsigned int n)
{
	const struct btf_type *t;
	const struct btf_member *m;
	unsigned int i, vlen;
	s32 id;

	id = klpe_btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (id < 0) {
		pr_err("struct %s is not in the kernel's BTF; refusing to load\n",
		       name);
		return -ENOENT;
	}
	t = btf_type_by_id(btf, id);
	vlen = btf_type_vlen(t);
	if (t->size != size || vlen != n) {
		pr_err("struct %s differs: kernel %u bytes/%u members, module %zu/%u; refusing to load\n",
		       name, t->size, vlen, size, n);
		return -EINVAL;
	}
	m = btf_type_member(t);
	for (i = 0; i < vlen; i++, m++) {
		const char *mname = klpe_btf_name_by_offset(btf, m->name_off);
		u32 bits = btf_member_bit_offset(t, i);

		if (!mname || strcmp(mname, ours[i].kname) ||
		    bits != ours[i].offset * BITS_PER_BYTE) {
			pr_err("struct %s member %u: kernel %s@%u bits, module %s@%zu bytes; refusing to load\n",
			       name, i, mname ?: "?", bits, ours[i].kname,
			       ours[i].offset);
			return -EINVAL;
		}
	}
	return 0;
}

static int check_prototype(const struct btf *btf, const struct gmm_klp_ksym *s)
{
	const struct btf_type *t;
	s32 id;

	id = klpe_btf_find_by_name_kind(btf, s->name, BTF_KIND_FUNC);
	if (id < 0) {
		pr_err("function %s is not in the kernel's BTF; refusing to load\n",
		       s->name);
		return -ENOENT;
	}
	t = btf_type_by_id(btf, id);
	t = t ? btf_type_by_id(btf, t->type) : NULL;
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC_PROTO ||
	    btf_type_vlen(t) != s->nargs) {
		pr_err("function %s: kernel takes %d arguments, module expects %d; refusing to load\n",
		       s->name, t ? btf_type_vlen(t) : -1, s->nargs);
		return -EINVAL;
	}
	return 0;
}

int gmm_klp_btf_check(void)
{
	const struct gmm_klp_ksym *s;
	struct btf *btf;
	int ret;

	btf = klpe_bpf_get_btf_vmlinux();
	if (IS_ERR_OR_NULL(btf)) {
		pr_err("the kernel's BTF is not available (%ld); cannot verify struct compact_control, refusing to load\n",
		       PTR_ERR(btf));
		return -ENOENT;
	}
	ret = check_struct(btf, "compact_control",
			   sizeof(struct compact_control), cc_members,
			   ARRAY_SIZE(cc_members));
	if (!ret)
		ret = check_struct(btf, "capture_control",
				   sizeof(struct capture_control), capc_members,
				   ARRAY_SIZE(capc_members));
	for (s = gmm_klp_ksyms; !ret && s->name; s++)
		if (s->nargs >= 0)
			ret = check_prototype(btf, s);
	return ret;
}
