// SPDX-License-Identifier: GPL-2.0
/*
 * kpf_bitmap: which guest page frames are balloon pages and which are
 * certainly in use, from /proc/kpageflags, as two hex bitmaps the host
 * compares with QEMU's own page table (tests/lib/residency.py).
 *
 *   kpf_bitmap
 *
 * prints
 *   pfns <N>
 *   offline <hex>     bit i set: pfn i is PageOffline (a balloon page)
 *   used <hex>        bit i set: pfn i is on an LRU list or slab
 *
 * Each hex string has N/4 digits (N rounded up to a multiple of 8), two
 * digits per byte, bit i of the bitmap in byte i/8 at position i%8.
 * "used" is deliberately narrow: a page on the LRU or in a slab was
 * written by the guest (or by DMA), so the host must back it; a free
 * page, or one on a per-CPU free list that kpageflags cannot tell from
 * an allocated one, may legitimately be absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_SLAB	7
#define KPF_LRU		5
#define KPF_OFFLINE	23

#define CHUNK		4096

static void put_hex(const char *name, const uint8_t *map, size_t bytes)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	fputs(name, stdout);
	putchar(' ');
	for (i = 0; i < bytes; i++) {
		putchar(digits[map[i] >> 4]);
		putchar(digits[map[i] & 15]);
	}
	putchar('\n');
}

int main(void)
{
	uint64_t flags[CHUNK];
	uint8_t *offline, *used;
	size_t pfns, bytes, pfn = 0;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "kpf_bitmap: /proc/kpageflags: %s\n",
			strerror(errno));
		return 1;
	}
	/* The file's size is max_pfn * 8; procfs may report 0: then read on. */
	pfns = st.st_size / 8;
	if (!pfns)
		pfns = (size_t)1 << 30;
	bytes = (pfns + 7) / 8;
	offline = calloc(bytes, 1);
	used = calloc(bytes, 1);
	if (!offline || !used) {
		fprintf(stderr, "kpf_bitmap: out of memory\n");
		return 1;
	}
	while (pfn < pfns) {
		size_t i, want = pfns - pfn < CHUNK ? pfns - pfn : CHUNK;

		n = pread(fd, flags, want * 8, (off_t)pfn * 8);
		if (n < 0) {
			fprintf(stderr, "kpf_bitmap: read at pfn %zu: %s\n",
				pfn, strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		for (i = 0; i < (size_t)n / 8; i++, pfn++) {
			if (flags[i] & (1ULL << KPF_OFFLINE))
				offline[pfn / 8] |= 1 << (pfn % 8);
			if (flags[i] & (1ULL << KPF_LRU | 1ULL << KPF_SLAB))
				used[pfn / 8] |= 1 << (pfn % 8);
		}
	}
	bytes = (pfn + 7) / 8;
	printf("pfns %zu\n", pfn);
	put_hex("offline", offline, bytes);
	put_hex("used", used, bytes);
	return 0;
}
