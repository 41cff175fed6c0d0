// SPDX-License-Identifier: GPL-2.0
/*
 * thp_hold: order-9 allocations with direct compaction, from user space,
 * held until killed (guestmm_highalloc's job where that module is not
 * built: tests/lib/bpfcheck.py).
 *
 *   thp_hold N
 *
 * Faults N aligned 2 MiB ranges of an MADV_HUGEPAGE mapping, one at a
 * time.  With the THP defrag setting "madvise" (Debian's default) or
 * "always", each fault tries a transparent huge page with direct reclaim
 * and compaction, the way an order-9 GFP_TRANSHUGE allocation does; when
 * that fails, the fault takes a base page, which is given back at once
 * (MADV_DONTNEED), so that only the huge pages are held, as
 * guestmm_highalloc keeps only what it got.  A fault got a huge page if
 * the range's second base page is present too (/proc/self/pagemap).
 * Prints "THP_HOLD ready attempts=N huge=N" and sleeps until a signal
 * arrives; exiting frees everything.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HPAGE		(2UL << 20)

static int present(int pagemap, void *addr)
{
	uint64_t ent;
	off_t off = (uintptr_t)addr / getpagesize() * 8;

	return pread(pagemap, &ent, 8, off) == 8 && (ent >> 63);
}

int main(int argc, char **argv)
{
	size_t n, i, huge = 0;
	int pagemap;
	char *p;

	if (argc != 2 || !(n = strtoul(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: thp_hold N\n");
		return 2;
	}
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap < 0) {
		perror("thp_hold: /proc/self/pagemap");
		return 1;
	}
	p = mmap(NULL, (n + 1) * HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("thp_hold: mmap");
		return 1;
	}
	p = (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, n * HPAGE, MADV_HUGEPAGE)) {
		perror("thp_hold: madvise(MADV_HUGEPAGE)");
		return 1;
	}
	for (i = 0; i < n; i++) {
		char *r = p + i * HPAGE;

		r[0] = 1;
		if (present(pagemap, r + getpagesize()))
			huge++;
		else
			madvise(r, HPAGE, MADV_DONTNEED);
	}
	printf("THP_HOLD ready attempts=%zu huge=%zu\n", n, huge);
	fflush(stdout);
	pause();
	return 0;
}
