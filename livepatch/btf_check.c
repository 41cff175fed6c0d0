// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: check what the mirror assumes about the running kernel
 * against the kernel's own BTF (/sys/kernel/btf/vmlinux).
 *
 * - Layouts, each feature's (its variants/<V>/layout.c): struct
 *   compact_control and struct capture_control live in mm/internal.h, in
 *   no installed header.  The compaction variant carries copies
 *   (compaction/variants/<V>/compact.h) that the kernel's own functions
 *   read, so every member's name and offset and the size must match.  Of
 *   struct scan_control (mm/vmscan.c, reclaim/variants/<V>/vmscan.h) the
 *   size and the members shrink_folio_list() reads are compared,
 *   bitfields by bit offset and width.
 * - Prototypes: every kernel function the module calls or hands to the
 *   kernel (core_ksyms.h and each built feature's variants/<V>/ksyms.h,
 *   read into protos.h) must have, in BTF,
 *   the same return type and the same parameter types, compared as C
 *   spellings ("struct compact_control *", "unsigned long", typedef
 *   names as written).
 *
 * Any difference refuses the load; nothing can skip this.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/btf.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/btf.h>

#include "btf_check.h"
#include "core_ksyms.h"
#include "feature.h"

static const struct gmm_klp_proto gmm_klp_protos[] = {
#include "protos.h"
	{ }
};

/* A C type spelled as a short string; enough for any prototype here. */
#define GMM_TYPE_LEN	128

/* DWARF's names of the integer types, and how C code spells them. */
static const char * const int_spelling[][2] = {
	{ "long unsigned int", "unsigned long" },
	{ "long int", "long" },
	{ "long long unsigned int", "unsigned long long" },
	{ "long long int", "long long" },
	{ "short unsigned int", "unsigned short" },
	{ "short int", "short" },
};

static const char *c_int_name(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(int_spelling); i++)
		if (!strcmp(name, int_spelling[i][0]))
			return int_spelling[i][1];
	return name;
}

/* Append @s to @buf (GMM_TYPE_LEN bytes). */
static void put(char *buf, const char *s)
{
	strlcat(buf, s, GMM_TYPE_LEN);
}

/* @s without white space, so that spellings compare token by token. */
static void squash(char *dst, const char *s)
{
	size_t n = 0;

	for (; *s && n < GMM_TYPE_LEN - 1; s++)
		if (!isspace(*s))
			dst[n++] = *s;
	dst[n] = '\0';
}

/* Spell BTF type @id as C would, appended to @buf. */
static void type_spelling(const struct btf *btf, u32 id, char *buf, int depth)
{
	const struct btf_type *t = id ? btf_type_by_id(btf, id) : NULL;
	const char *name;

	if (!id) {
		put(buf, "void");
		return;
	}
	if (!t || depth > 8) {
		put(buf, "?");
		return;
	}
	name = klpe_btf_name_by_offset(btf, t->name_off) ?: "?";
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_PTR:
		type_spelling(btf, t->type, buf, depth + 1);
		put(buf, " *");
		break;
	case BTF_KIND_CONST:
		put(buf, "const ");
		type_spelling(btf, t->type, buf, depth + 1);
		break;
	case BTF_KIND_VOLATILE:
		put(buf, "volatile ");
		type_spelling(btf, t->type, buf, depth + 1);
		break;
	case BTF_KIND_STRUCT:
		put(buf, "struct ");
		put(buf, name);
		break;
	case BTF_KIND_UNION:
		put(buf, "union ");
		put(buf, name);
		break;
	case BTF_KIND_FWD:
		put(buf, BTF_INFO_KFLAG(t->info) ? "union " : "struct ");
		put(buf, name);
		break;
	case BTF_KIND_ENUM:
		put(buf, "enum ");
		put(buf, name);
		break;
	case BTF_KIND_INT:
		put(buf, c_int_name(name));
		break;
	case BTF_KIND_TYPEDEF:
		put(buf, name);
		break;
	default:
		put(buf, "?");
		break;
	}
}

void gmm_klp_bitfield(const void *obj, size_t size, unsigned int *bit,
		      unsigned int *width)
{
	const u8 *p = obj;
	unsigned int i;

	*bit = 0;
	*width = 0;
	for (i = 0; i < size * BITS_PER_BYTE; i++) {
		if (!(p[i / BITS_PER_BYTE] & BIT(i % BITS_PER_BYTE)))
			continue;
		if (!*width)
			*bit = i;
		(*width)++;
	}
}

/* Our member @m's bit offset and bitfield width (0: not a bitfield). */
static void our_bits(const struct gmm_klp_member *m, unsigned int *bit,
		     unsigned int *width)
{
	if (m->bitfield) {
		m->bitfield(bit, width);
		return;
	}
	*bit = m->offset * BITS_PER_BYTE;
	*width = 0;
}

/* Index of member @name in struct @t, or -1. */
static int find_member(const struct btf *btf, const struct btf_type *t,
		       const char *name)
{
	const struct btf_member *m = btf_type_member(t);
	unsigned int i;

	for (i = 0; i < btf_type_vlen(t); i++, m++) {
		const char *mname = klpe_btf_name_by_offset(btf, m->name_off);

		if (mname && !strcmp(mname, name))
			return i;
	}
	return -1;
}

/* Our member @i against the kernel's member @k of struct @t. */
static int check_member(const struct btf *btf, const struct btf_type *t,
			const struct gmm_klp_layout *l, unsigned int i, int k)
{
	const char *mname = "?";
	unsigned int bits = 0, width = 0, our_bit, our_width;

	our_bits(&l->members[i], &our_bit, &our_width);
	if (k >= 0) {
		mname = klpe_btf_name_by_offset(btf,
				btf_type_member(t)[k].name_off) ?: "?";
		bits = btf_member_bit_offset(t, k);
		width = btf_member_bitfield_size(t, k);
	}
	if (k >= 0 && !strcmp(mname, l->members[i].kname) &&
	    bits == our_bit && width == our_width)
		return 0;
	pr_err("refusing to load: struct %s member %u: kernel %s@%u bits (width %u), module %s@%u bits (width %u)\n",
	       l->name, i, mname, bits, width, l->members[i].kname, our_bit,
	       our_width);
	return -EINVAL;
}

static int check_layout(const struct btf *btf, const struct gmm_klp_layout *l)
{
	const struct btf_type *t;
	unsigned int i, vlen;
	int ret = 0;
	s32 id;

	id = klpe_btf_find_by_name_kind(btf, l->name, BTF_KIND_STRUCT);
	if (id < 0) {
		pr_err("refusing to load: struct %s is not in the kernel's BTF\n",
		       l->name);
		return -ENOENT;
	}
	t = btf_type_by_id(btf, id);
	vlen = btf_type_vlen(t);
	if (t->size != l->size || (!l->subset && vlen != l->nr)) {
		pr_err("refusing to load: struct %s differs: kernel %u bytes/%u members, module %zu/%u\n",
		       l->name, t->size, vlen, l->size, l->nr);
		return -EINVAL;
	}
	for (i = 0; !ret && i < l->nr; i++)
		ret = check_member(btf, t, l, i, l->subset ?
				   find_member(btf, t, l->members[i].kname) : i);
	return ret;
}

static int check_proto(const struct btf *btf, const struct gmm_klp_proto *p)
{
	char *theirs, *ours, *a, *b;
	const struct btf_param *args;
	const struct btf_type *t;
	unsigned int i, vlen;
	int ret = -EINVAL;
	s32 id;

	id = klpe_btf_find_by_name_kind(btf, p->name, BTF_KIND_FUNC);
	if (id < 0) {
		pr_err("refusing to load: function %s is not in the kernel's BTF\n",
		       p->name);
		return -ENOENT;
	}
	t = btf_type_by_id(btf, id);
	t = t ? btf_type_by_id(btf, t->type) : NULL;
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC_PROTO) {
		pr_err("refusing to load: %s has no prototype in the kernel's BTF\n",
		       p->name);
		return -EINVAL;
	}

	theirs = kzalloc(4 * GMM_TYPE_LEN, GFP_KERNEL);
	if (!theirs)
		return -ENOMEM;
	ours = theirs + GMM_TYPE_LEN;
	a = ours + GMM_TYPE_LEN;
	b = a + GMM_TYPE_LEN;

	/* "ret (T1, T2, ...)" or "ret (void)" */
	type_spelling(btf, t->type, theirs, 0);
	put(theirs, " (");
	vlen = btf_type_vlen(t);
	args = btf_params(t);
	for (i = 0; i < vlen; i++) {
		if (i)
			put(theirs, ", ");
		type_spelling(btf, args[i].type, theirs, 0);
	}
	if (!vlen)
		put(theirs, "void");
	put(theirs, ")");
	snprintf(ours, GMM_TYPE_LEN, "%s (%s)", p->ret, p->params);

	squash(a, theirs);
	squash(b, ours);
	if (!strcmp(a, b))
		ret = 0;
	else
		pr_err("refusing to load: %s is %s in the kernel, the module expects %s\n",
		       p->name, theirs, ours);
	kfree(theirs);
	return ret;
}

int gmm_klp_btf_check(const struct gmm_klp_feature *const *features,
		      unsigned int nr)
{
	const struct gmm_klp_layout *l;
	unsigned int i;
	const struct gmm_klp_proto *p;
	struct btf *btf;
	int ret = 0;

	btf = klpe_bpf_get_btf_vmlinux();
	if (IS_ERR_OR_NULL(btf)) {
		pr_err("refusing to load: the kernel's BTF is not available (%ld), so the private layouts cannot be verified\n",
		       PTR_ERR(btf));
		return -ENOENT;
	}
	for (i = 0; !ret && i < nr; i++)
		for (l = features[i]->layouts; !ret && l->name; l++)
			ret = check_layout(btf, l);
	for (p = gmm_klp_protos; !ret && p->name; p++)
		ret = check_proto(btf, p);
	return ret;
}
