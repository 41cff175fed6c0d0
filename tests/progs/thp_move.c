// SPDX-License-Identifier: GPL-2.0
/*
 * thp_move: time move_pages(2) of 1x4 KiB, 1x2 MiB THP and 512x4 KiB
 * between two NUMA nodes (the measurement of Zi Yan's THP migration
 * series: a THP should move whole, about 3x faster than 512 base pages).
 *
 *   thp_move [ITERS] [CASE]      CASE: base1 | thp | base512 | all (default)
 *
 * Each iteration moves the region to the other node and checks every
 * page's status is the target node.  Prints one line per case:
 *   THPMOVE case=thp pages=1 bytes=2097152 iters=8 ok=8 avg_us=... min_us=... gbps=...
 * Raw syscalls (no libnuma).  Exit 1 if a move fails, 2 on usage/setup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define MPOL_MF_MOVE	(1 << 1)
#define SZ_2M		(2UL << 20)

static long page_size;

static long move_pages(unsigned long n, void **pages, const int *nodes, int *status)
{
	return syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A 2 MiB aligned, 2 MiB long anonymous region. */
static char *region(int huge)
{
	char *p = mmap(NULL, 2 * SZ_2M, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + SZ_2M - 1) & ~(SZ_2M - 1));
	madvise(a, SZ_2M, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(a, 0x5a, SZ_2M);
	return a;
}

static int run_case(const char *name, int huge, unsigned long npages, int iters)
{
	unsigned long i, n = huge ? 1 : npages;
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes));
	int *status = calloc(n, sizeof(*status));
	double total = 0, min = 1e18;
	unsigned long bytes = huge ? SZ_2M : npages * page_size;
	int it, ok = 0, node;
	char *a = region(huge);

	if (!a || !pages || !nodes || !status) {
		fprintf(stderr, "thp_move: out of memory\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		pages[i] = a + i * page_size;
	/* where is it now? */
	if (move_pages(n, pages, NULL, status) < 0 || status[0] < 0) {
		fprintf(stderr, "thp_move: cannot query node: %s\n", strerror(errno));
		return 2;
	}
	node = status[0];
	for (it = 0; it < iters; it++) {
		double t0, dt;
		long r;
		int good = 1;

		node = !node;
		for (i = 0; i < n; i++)
			nodes[i] = node;
		t0 = now_us();
		r = move_pages(n, pages, nodes, status);
		dt = now_us() - t0;
		for (i = 0; i < n; i++)
			if (status[i] != node)
				good = 0;
		if (r != 0 || !good) {
			fprintf(stderr, "thp_move: %s iteration %d: r=%ld status[0]=%d\n",
				name, it, r, status[0]);
			continue;
		}
		/* the data came along */
		for (i = 0; i < bytes; i += page_size)
			if (a[i] != 0x5a)
				good = 0;
		if (!good) {
			fprintf(stderr, "thp_move: %s: data changed\n", name);
			continue;
		}
		ok++;
		total += dt;
		if (dt < min)
			min = dt;
	}
	printf("THPMOVE case=%s pages=%lu bytes=%lu iters=%d ok=%d avg_us=%.1f min_us=%.1f gbps=%.3f\n",
	       name, n, bytes, iters, ok, ok ? total / ok : 0.0, ok ? min : 0.0,
	       ok ? bytes / (total / ok) / 1e3 : 0.0);
	fflush(stdout);
	munmap((void *)((unsigned long)a & ~(SZ_2M - 1)), 2 * SZ_2M);
	free(pages);
	free(nodes);
	free(status);
	return ok == iters ? 0 : 1;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 8;
	const char *which = argc > 2 ? argv[2] : "all";
	int all = !strcmp(which, "all"), ret = 0;

	page_size = sysconf(_SC_PAGESIZE);
	if (iters <= 0 || argc > 3) {
		fprintf(stderr, "usage: thp_move [ITERS] [base1|thp|base512|all]\n");
		return 2;
	}
	if (all || !strcmp(which, "base1"))
		ret |= run_case("base1", 0, 1, iters);
	if (all || !strcmp(which, "thp"))
		ret |= run_case("thp", 1, 1, iters);
	if (all || !strcmp(which, "base512"))
		ret |= run_case("base512", 0, SZ_2M / page_size, iters);
	return ret;
}
