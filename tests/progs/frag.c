// SPDX-License-Identifier: GPL-2.0
/*
 * frag: fragment a guest's free memory, then hold it until killed.
 *
 *   frag MIB [STRIDE [keep]]
 *
 * Faults in MIB MiB of anonymous memory, 4 KiB at a time, then gives back
 * one page in every STRIDE (default 2).  The freed pages are scattered
 * over nearly every pageblock the mapping touched, so whatever allocates
 * 4 KiB pages next (the balloon) lands all over memory.  With "keep" it
 * keeps one page in every STRIDE and gives back the rest instead: memory
 * that is mostly free, but has no free 2 MiB block.  Prints
 * "FRAG ready kept_kib=N freed_kib=N" and sleeps until a signal arrives.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib, stride, len, page = (size_t)sysconf(_SC_PAGESIZE);
	size_t i, freed = 0;
	int keep = 0;
	char *p;

	if (argc < 2 || argc > 4 ||
	    (argc == 4 && strcmp(argv[3], "keep"))) {
		fprintf(stderr, "usage: frag MIB [STRIDE [keep]]\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	stride = argc >= 3 ? strtoul(argv[2], NULL, 0) : 2;
	keep = argc == 4;
	if (!mib || stride < 2) {
		fprintf(stderr, "frag: MIB must be > 0 and STRIDE >= 2\n");
		return 2;
	}
	len = mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("frag: mmap");
		return 1;
	}
	/* Base pages only: a THP would be freed whole, leaving no holes. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += page)
		p[i] = 1;
	for (i = 0; i < len; i += stride * page) {
		size_t off = keep ? page : 0;
		size_t n = keep ? (stride - 1) * page : page;

		if (i + off + n > len)
			n = len > i + off ? len - i - off : 0;
		if (n && madvise(p + i + off, n, MADV_DONTNEED) == 0)
			freed += n;
	}
	printf("FRAG ready kept_kib=%zu freed_kib=%zu\n",
	       (len - freed) >> 10, freed >> 10);
	fflush(stdout);
	pause();
	return 0;
}
