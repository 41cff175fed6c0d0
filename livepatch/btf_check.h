/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guestmm_klp: what btf_check.c compares with the running kernel's BTF.
 * Each feature's variant provides its layouts (<feature>/variants/<V>/
 * layout.c, through struct gmm_klp_feature) and its prototypes (the
 * declarations in <feature>/variants/<V>/ksyms.h, read by protos-h).
 *
 * A bitfield has no offsetof(): its entry names a function that sets the
 * field to all ones in a zeroed copy of our struct and hands the copy to
 * gmm_klp_bitfield(), which finds the field's bit offset and width (x86
 * is little-endian, so they compare with BTF's directly).
 */
#ifndef _GUESTMM_KLP_BTF_CHECK_H
#define _GUESTMM_KLP_BTF_CHECK_H

#include <linux/types.h>

/* One member of a private kernel struct the mirror carries a copy of. */
struct gmm_klp_member {
	const char *kname;	/* the member's name in the kernel */
	size_t offset;		/* its offset in our copy (not a bitfield) */
	/* a bitfield: its bit offset and width in our copy */
	void (*bitfield)(unsigned int *bit, unsigned int *width);
};

struct gmm_klp_layout {
	const char *name;	/* struct <name> in the kernel's BTF */
	size_t size;		/* sizeof our copy */
	const struct gmm_klp_member *members;
	unsigned int nr;
	/*
	 * false: @members are all the kernel's members, in its order.
	 * true: only those the kernel reads from our copy, found by name
	 * (the size is still compared).
	 */
	bool subset;
};

/*
 * For a ->bitfield function: the first set bit of @obj (@size bytes) and
 * how many bits are set.
 */
void gmm_klp_bitfield(const void *obj, size_t size, unsigned int *bit,
		      unsigned int *width);

struct gmm_klp_feature;

/*
 * The layouts of the @nr @features (each array ended by an entry without
 * a name), then every prototype; 0 or -errno with a message.
 */
int gmm_klp_btf_check(const struct gmm_klp_feature *const *features,
		      unsigned int nr);

#endif /* _GUESTMM_KLP_BTF_CHECK_H */
