// SPDX-License-Identifier: GPL-2.0
/*
 * klp-postlink: make livepatch relocations out of a kbuild-linked module.
 *
 * The module's source names every non-exported kernel symbol it uses
 * ".klp.sym.<object>.<name>,<position>" (livepatch/klp_reloc.h), so its
 * calls are direct calls and its data references plain relocations, all
 * against undefined symbols that no module loader could resolve.  This
 * step gives them the form of Documentation/livepatch/module-elf-format.rst:
 *
 *  - each such symbol gets st_shndx = SHN_LIVEPATCH, which the module
 *    loader leaves to the livepatch core;
 *  - each relocation against one moves out of .rela<section> into
 *    .klp.rela.<object>.<section> (SHT_RELA; SHF_ALLOC, SHF_INFO_LINK and
 *    SHF_RELA_LIVEPATCH; same symbol table, same target section), which
 *    the livepatch core resolves with kallsyms and applies while the
 *    module loads (kernel/livepatch/core.c, klp_apply_section_relocs()).
 *
 * With -s Module.symvers it also checks every other undefined symbol is
 * one the kernel exports: modpost is told to only warn about undefined
 * symbols (it does not know the .klp.sym names), so this keeps the check.
 *
 *   klp-postlink [-s Module.symvers] MODULE.ko   convert in place
 *   klp-postlink --check MODULE.ko               verify, change nothing
 *
 * Running it on a converted module changes nothing.  Only 64-bit
 * little-endian relocatable x86-64 objects are accepted; a module with an
 * appended signature is refused (sign after this step).
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHN_LIVEPATCH
#define SHN_LIVEPATCH		0xff20
#endif
#ifndef SHF_RELA_LIVEPATCH
#define SHF_RELA_LIVEPATCH	0x00100000
#endif

#define KLP_SYM_PREFIX		".klp.sym."
#define KLP_RELA_PREFIX		".klp.rela."
#define MODULE_SIG_STRING	"~Module signature appended~\n"
/* kernel/livepatch/core.c reads the object name with %55[^.] */
#define KLP_OBJNAME_LEN		56

struct elf {
	const char *path;
	unsigned char *buf;
	size_t size;
	Elf64_Ehdr *ehdr;
	Elf64_Shdr *shdr;	/* a private copy, grown by add_section() */
	unsigned int shnum;
	unsigned char **data;	/* section contents, by index */
	char *shstr;		/* section names (a private copy) */
	size_t shstr_size;
	unsigned int symtab;
	Elf64_Sym *syms;
	unsigned int nsyms;
	const char *strtab;
};

static const char *prog = "klp-postlink";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

static const char *sec_name(const struct elf *e, unsigned int i)
{
	return e->shstr + e->shdr[i].sh_name;
}

static const char *sym_name(const struct elf *e, unsigned int i)
{
	return e->strtab + e->syms[i].st_name;
}

static bool is_klp_name(const char *name)
{
	return !strncmp(name, KLP_SYM_PREFIX, strlen(KLP_SYM_PREFIX));
}

/* The object part of ".klp.sym.<object>.<name>,<pos>", checked. */
static void klp_sym_object(const char *name, char *obj)
{
	char sym[512];
	unsigned long pos;
	char end;

	if (sscanf(name, KLP_SYM_PREFIX "%55[^.].%511[^,],%lu%c",
		   obj, sym, &pos, &end) != 3)
		die("symbol %s is not .klp.sym.<object>.<name>,<position>",
		    name);
}

static void read_elf(struct elf *e, const char *path)
{
	size_t siglen = strlen(MODULE_SIG_STRING);
	unsigned int i;
	FILE *f;
	long n;

	e->path = path;
	f = fopen(path, "rb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END))
		die("%s: cannot size it", path);
	n = ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET))
		die("%s: cannot size it", path);
	e->size = n;
	e->buf = xmalloc(e->size);
	if (fread(e->buf, 1, e->size, f) != e->size)
		die("%s: short read", path);
	fclose(f);

	e->ehdr = (Elf64_Ehdr *)e->buf;
	if (e->size < sizeof(*e->ehdr) ||
	    memcmp(e->ehdr->e_ident, ELFMAG, SELFMAG) ||
	    e->ehdr->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->ehdr->e_ident[EI_DATA] != ELFDATA2LSB ||
	    e->ehdr->e_type != ET_REL || e->ehdr->e_machine != EM_X86_64)
		die("%s: not a 64-bit little-endian x86-64 relocatable object",
		    path);
	if (e->size > siglen &&
	    !memcmp(e->buf + e->size - siglen, MODULE_SIG_STRING, siglen))
		die("%s: has a module signature; convert before signing", path);

	e->shnum = e->ehdr->e_shnum;
	if (!e->shnum || e->ehdr->e_shstrndx >= e->shnum ||
	    e->ehdr->e_shentsize != sizeof(Elf64_Shdr) ||
	    e->ehdr->e_shoff > e->size ||
	    (e->size - e->ehdr->e_shoff) / sizeof(Elf64_Shdr) < e->shnum)
		die("%s: bad section header table", path);

	e->shdr = xmalloc(e->shnum * sizeof(Elf64_Shdr));
	memcpy(e->shdr, e->buf + e->ehdr->e_shoff,
	       e->shnum * sizeof(Elf64_Shdr));
	e->data = xmalloc(e->shnum * sizeof(*e->data));
	for (i = 0; i < e->shnum; i++) {
		Elf64_Shdr *s = &e->shdr[i];

		if (s->sh_type == SHT_NOBITS || !s->sh_size)
			continue;
		if (s->sh_offset > e->size || e->size - s->sh_offset < s->sh_size)
			die("%s: section %u lies outside the file", path, i);
		e->data[i] = e->buf + s->sh_offset;
	}

	/* Section names: a copy with room for the names we add. */
	e->shstr_size = e->shdr[e->ehdr->e_shstrndx].sh_size;
	e->shstr = xmalloc(e->shstr_size + 1);
	memcpy(e->shstr, e->data[e->ehdr->e_shstrndx], e->shstr_size);
	for (i = 0; i < e->shnum; i++)
		if (e->shdr[i].sh_name >= e->shstr_size)
			die("%s: section %u has a bad name", path, i);

	for (i = 0; i < e->shnum; i++) {
		if (e->shdr[i].sh_type != SHT_SYMTAB)
			continue;
		if (e->symtab)
			die("%s: more than one symbol table", path);
		e->symtab = i;
	}
	if (!e->symtab)
		die("%s: no symbol table (stripped?)", path);
	if (e->shdr[e->symtab].sh_entsize != sizeof(Elf64_Sym) ||
	    e->shdr[e->symtab].sh_link >= e->shnum)
		die("%s: bad symbol table", path);
	e->syms = (Elf64_Sym *)e->data[e->symtab];
	e->nsyms = e->shdr[e->symtab].sh_size / sizeof(Elf64_Sym);
	e->strtab = (const char *)e->data[e->shdr[e->symtab].sh_link];
	if (!e->strtab ||
	    e->data[e->shdr[e->symtab].sh_link][e->shdr[e->shdr[e->symtab].sh_link].sh_size - 1])
		die("%s: bad string table", path);
}

/* Append a section; its contents are @data (owned by the caller). */
static unsigned int add_section(struct elf *e, const char *name,
				const Elf64_Shdr *tmpl, unsigned char *data)
{
	size_t len = strlen(name) + 1;
	unsigned int i = e->shnum++;

	e->shdr = realloc(e->shdr, e->shnum * sizeof(Elf64_Shdr));
	e->data = realloc(e->data, e->shnum * sizeof(*e->data));
	e->shstr = realloc(e->shstr, e->shstr_size + len);
	if (!e->shdr || !e->data || !e->shstr)
		die("out of memory");
	memcpy(e->shstr + e->shstr_size, name, len);
	e->shdr[i] = *tmpl;
	e->shdr[i].sh_name = e->shstr_size;
	e->shstr_size += len;
	e->data[i] = data;
	return i;
}

/* Write sections in index order after the ELF header, then the headers. */
static void write_elf(struct elf *e)
{
	unsigned int strndx = e->ehdr->e_shstrndx, i;
	char *tmp;
	size_t off = sizeof(Elf64_Ehdr);
	FILE *f;

	e->shdr[strndx].sh_size = e->shstr_size;
	e->data[strndx] = (unsigned char *)e->shstr;

	tmp = xmalloc(strlen(e->path) + 8);
	sprintf(tmp, "%s.tmp", e->path);
	f = fopen(tmp, "wb");
	if (!f)
		die("%s: %s", tmp, strerror(errno));

	e->ehdr->e_shnum = e->shnum;
	fwrite(e->ehdr, sizeof(Elf64_Ehdr), 1, f);
	for (i = 1; i < e->shnum; i++) {
		Elf64_Shdr *s = &e->shdr[i];
		size_t align = s->sh_addralign > 1 ? s->sh_addralign : 1;

		if (s->sh_type == SHT_NOBITS || !s->sh_size) {
			s->sh_offset = off;
			continue;
		}
		while (off % align) {
			fputc(0, f);
			off++;
		}
		s->sh_offset = off;
		fwrite(e->data[i], 1, s->sh_size, f);
		off += s->sh_size;
	}
	while (off % 8) {
		fputc(0, f);
		off++;
	}
	fwrite(e->shdr, sizeof(Elf64_Shdr), e->shnum, f);
	/* e_shoff, now that it is known */
	e->ehdr->e_shoff = off;
	if (fseek(f, 0, SEEK_SET) ||
	    fwrite(e->ehdr, sizeof(Elf64_Ehdr), 1, f) != 1 ||
	    fclose(f))
		die("%s: write failed", tmp);
	if (rename(tmp, e->path))
		die("%s: %s", e->path, strerror(errno));
	free(tmp);
}

/* Is relocation @r (in a .rela section of @e) against a .klp.sym symbol? */
static bool rela_is_klp(const struct elf *e, const Elf64_Rela *r)
{
	unsigned int sym = ELF64_R_SYM(r->r_info);

	if (sym >= e->nsyms)
		die("%s: relocation against symbol %u of %u", e->path, sym,
		    e->nsyms);
	return is_klp_name(sym_name(e, sym));
}

static bool is_rela_of_alloc(const struct elf *e, unsigned int i)
{
	const Elf64_Shdr *s = &e->shdr[i];

	return s->sh_type == SHT_RELA && s->sh_link == e->symtab &&
		s->sh_info && s->sh_info < e->shnum &&
		(e->shdr[s->sh_info].sh_flags & SHF_ALLOC);
}

/* Mark the .klp.sym symbols SHN_LIVEPATCH; return how many were changed. */
static unsigned int mark_symbols(struct elf *e, unsigned int *total)
{
	char obj[KLP_OBJNAME_LEN];
	unsigned int i, n = 0;

	*total = 0;
	for (i = 1; i < e->nsyms; i++) {
		Elf64_Sym *s = &e->syms[i];

		if (!is_klp_name(sym_name(e, i)))
			continue;
		klp_sym_object(sym_name(e, i), obj);
		if (ELF64_ST_BIND(s->st_info) != STB_GLOBAL)
			die("%s: %s is not a global symbol", e->path,
			    sym_name(e, i));
		if (s->st_shndx == SHN_UNDEF) {
			s->st_shndx = SHN_LIVEPATCH;
			n++;
		} else if (s->st_shndx != SHN_LIVEPATCH) {
			die("%s: %s is defined in the module", e->path,
			    sym_name(e, i));
		}
		(*total)++;
	}
	return n;
}

/*
 * Move the relocations against .klp.sym symbols of section @ri, for one
 * object name, into a new .klp.rela section; return how many moved.
 */
static unsigned int split_one(struct elf *e, unsigned int ri, const char *obj)
{
	Elf64_Rela *r = (Elf64_Rela *)e->data[ri];
	unsigned int n = e->shdr[ri].sh_size / sizeof(Elf64_Rela);
	unsigned int i, keep = 0, moved = 0;
	char sobj[KLP_OBJNAME_LEN], *name;
	Elf64_Rela *out = xmalloc(n * sizeof(Elf64_Rela));
	Elf64_Rela *kept = xmalloc(n * sizeof(Elf64_Rela));
	Elf64_Shdr tmpl;

	for (i = 0; i < n; i++) {
		if (rela_is_klp(e, &r[i])) {
			klp_sym_object(sym_name(e, ELF64_R_SYM(r[i].r_info)),
				       sobj);
			if (!strcmp(sobj, obj)) {
				out[moved++] = r[i];
				continue;
			}
		}
		kept[keep++] = r[i];
	}
	if (!moved) {
		free(out);
		free(kept);
		return 0;
	}
	memcpy(r, kept, keep * sizeof(Elf64_Rela));
	e->shdr[ri].sh_size = keep * sizeof(Elf64_Rela);
	free(kept);

	name = xmalloc(strlen(KLP_RELA_PREFIX) + strlen(obj) + 1 +
		       strlen(sec_name(e, e->shdr[ri].sh_info)) + 1);
	sprintf(name, KLP_RELA_PREFIX "%s.%s", obj,
		sec_name(e, e->shdr[ri].sh_info));
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.sh_type = SHT_RELA;
	tmpl.sh_flags = SHF_ALLOC | SHF_INFO_LINK | SHF_RELA_LIVEPATCH;
	tmpl.sh_size = moved * sizeof(Elf64_Rela);
	tmpl.sh_link = e->symtab;
	tmpl.sh_info = e->shdr[ri].sh_info;
	tmpl.sh_addralign = 8;
	tmpl.sh_entsize = sizeof(Elf64_Rela);
	add_section(e, name, &tmpl, (unsigned char *)out);
	free(name);
	return moved;
}

/* Split every .rela section of an allocated section; return moved count. */
static unsigned int split_relocations(struct elf *e, unsigned int *nsecs)
{
	unsigned int shnum = e->shnum, i, j, moved = 0, m;
	char obj[KLP_OBJNAME_LEN];

	*nsecs = 0;
	for (i = 1; i < shnum; i++) {
		if (!is_rela_of_alloc(e, i) ||
		    (e->shdr[i].sh_flags & SHF_RELA_LIVEPATCH))
			continue;
		/* Each object the section refers to gets its own section. */
		for (j = 0; j < e->shdr[i].sh_size / sizeof(Elf64_Rela); j++) {
			Elf64_Rela *r = (Elf64_Rela *)e->data[i] + j;

			if (!rela_is_klp(e, r))
				continue;
			klp_sym_object(sym_name(e, ELF64_R_SYM(r->r_info)), obj);
			m = split_one(e, i, obj);
			moved += m;
			*nsecs += !!m;
			j = -1;	/* the section shrank: look again */
		}
	}
	return moved;
}

/* Undefined symbols other than .klp.sym ones must be exported. */
static void check_exported(const struct elf *e, const char *symvers)
{
	char line[1024], **names = NULL;
	size_t nnames = 0, cap = 0;
	unsigned int i, bad = 0;
	FILE *f = fopen(symvers, "r");

	if (!f)
		die("%s: %s", symvers, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *end;

		if (!tab)
			continue;
		end = strchr(tab + 1, '\t');
		if (!end)
			continue;
		*end = '\0';
		if (nnames == cap) {
			cap = cap ? 2 * cap : 4096;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				die("out of memory");
		}
		names[nnames] = strdup(tab + 1);
		if (!names[nnames++])
			die("out of memory");
	}
	fclose(f);

	for (i = 1; i < e->nsyms; i++) {
		const char *name = sym_name(e, i);
		size_t k;

		if (e->syms[i].st_shndx != SHN_UNDEF || !*name ||
		    is_klp_name(name))
			continue;
		for (k = 0; k < nnames; k++)
			if (!strcmp(names[k], name))
				break;
		if (k == nnames) {
			fprintf(stderr, "%s: %s: undefined symbol %s is not exported by the kernel (%s)\n",
				prog, e->path, name, symvers);
			bad++;
		}
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (bad)
		exit(1);
}

/*
 * --check: every .klp.sym symbol is SHN_LIVEPATCH, and every relocation
 * against one is in a .klp.rela.<its object>.<target> section.
 */
static int check(const struct elf *e)
{
	unsigned int i, j, nsyms = 0, nrelas = 0, nsecs = 0, bad = 0;
	char obj[KLP_OBJNAME_LEN];

	for (i = 1; i < e->nsyms; i++) {
		if (!is_klp_name(sym_name(e, i)))
			continue;
		klp_sym_object(sym_name(e, i), obj);
		nsyms++;
		if (e->syms[i].st_shndx != SHN_LIVEPATCH) {
			fprintf(stderr, "%s: %s: %s is not SHN_LIVEPATCH\n",
				prog, e->path, sym_name(e, i));
			bad++;
		}
	}
	for (i = 1; i < e->shnum; i++) {
		const Elf64_Shdr *s = &e->shdr[i];
		bool klp_sec = s->sh_flags & SHF_RELA_LIVEPATCH;

		if (s->sh_type != SHT_RELA || s->sh_link != e->symtab)
			continue;
		nsecs += klp_sec;
		for (j = 0; j < s->sh_size / sizeof(Elf64_Rela); j++) {
			const Elf64_Rela *r = (Elf64_Rela *)e->data[i] + j;
			char want[600];

			if (!rela_is_klp(e, r)) {
				if (klp_sec) {
					fprintf(stderr, "%s: %s: %s holds a relocation against %s\n",
						prog, e->path, sec_name(e, i),
						sym_name(e, ELF64_R_SYM(r->r_info)));
					bad++;
				}
				continue;
			}
			if (!is_rela_of_alloc(e, i))
				continue;
			klp_sym_object(sym_name(e, ELF64_R_SYM(r->r_info)), obj);
			snprintf(want, sizeof(want), KLP_RELA_PREFIX "%s.%s",
				 obj, sec_name(e, s->sh_info));
			if (!klp_sec || strcmp(sec_name(e, i), want)) {
				fprintf(stderr, "%s: %s: relocation against %s in %s, not in %s\n",
					prog, e->path,
					sym_name(e, ELF64_R_SYM(r->r_info)),
					sec_name(e, i), want);
				bad++;
			}
			nrelas++;
		}
	}
	if (nsyms || bad)
		printf("%s: %u livepatch symbols, %u relocations in %u .klp.rela sections%s\n",
		       e->path, nsyms, nrelas, nsecs,
		       bad ? ": NOT CONVERTED" : "");
	return bad ? 1 : 0;
}

static void usage_exit(void)
{
	fprintf(stderr, "usage: %s [-s Module.symvers] MODULE.ko\n"
		"       %s --check MODULE.ko\n", prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *symvers = NULL, *path = NULL;
	unsigned int marked, total, moved, nsecs;
	bool check_only = false;
	struct elf e = { 0 };
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check_only = true;
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			symvers = argv[++i];
		else if (argv[i][0] == '-' || path)
			usage_exit();
		else
			path = argv[i];
	}
	if (!path)
		usage_exit();

	read_elf(&e, path);
	if (check_only)
		return check(&e);

	marked = mark_symbols(&e, &total);
	moved = split_relocations(&e, &nsecs);
	if (symvers)
		check_exported(&e, symvers);
	if (marked || moved)
		write_elf(&e);
	if (total)
		printf("%s: %u livepatch symbols (%u newly marked), %u relocations moved into %u new .klp.rela sections\n",
		       path, total, marked, moved, nsecs);
	return check(&e);
}
