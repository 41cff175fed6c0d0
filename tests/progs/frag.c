// SPDX-License-Identifier: GPL-2.0
/*
 * frag: fragment a guest's free memory, then hold it until killed.
 *
 *   frag MIB [STRIDE]
 *
 * Faults in MIB MiB of anonymous memory, 4 KiB at a time, then gives back
 * one page in every STRIDE (default 2).  The freed pages are scattered
 * over nearly every pageblock the mapping touched, so whatever allocates
 * 4 KiB pages next (the balloon) lands all over memory.  Prints
 * "FRAG ready kept_kib=N freed_kib=N" and sleeps until a signal arrives.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib, stride, len, page = (size_t)sysconf(_SC_PAGESIZE);
	size_t i, freed = 0;
	char *p;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: frag MIB [STRIDE]\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	stride = argc == 3 ? strtoul(argv[2], NULL, 0) : 2;
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
		if (madvise(p + i, page, MADV_DONTNEED) == 0)
			freed += page;
	}
	printf("FRAG ready kept_kib=%zu freed_kib=%zu\n",
	       (len - freed) >> 10, freed >> 10);
	fflush(stdout);
	pause();
	return 0;
}
