// SPDX-License-Identifier: GPL-2.0
/*
 * anon_swap: put anonymous memory into swap and the swap cache, then hold
 * it until SIGTERM.
 *
 *   anon_swap MIB OUT
 *
 * Writes MIB MiB of anonymous memory (a different byte per page, no THP),
 * pushes it out with MADV_PAGEOUT (swap must be on), then reads the first
 * half back: swap-ins that leave their folios in the swap cache (swap is far
 * from full), plus the folios MADV_PAGEOUT left there after writeback.
 * Appends "ANONSWAP ready pages=<n>" to OUT, then sleeps.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned char sum = 0;
	size_t len, npages, i;
	struct sigaction sa;
	unsigned char *p;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MIB OUT\n", argv[0]);
		return 2;
	}
	len = strtoul(argv[1], NULL, 10) << 20;
	npages = len / page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	out = fopen(argv[2], "a");
	if (p == MAP_FAILED || !out) {
		perror("anon_swap");
		return 1;
	}
	/* khugepaged would collapse it and free the swap cache behind it */
	if (madvise(p, len, MADV_NOHUGEPAGE)) {
		perror("madvise(MADV_NOHUGEPAGE)");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	for (i = 0; i < npages; i++)
		memset(p + i * page, (int)(i % 251) + 1, page);
	if (madvise(p, len, MADV_PAGEOUT)) {
		perror("madvise(MADV_PAGEOUT)");
		return 1;
	}
	sleep(2);	/* writeback to the swap device */
	for (i = 0; i < npages / 2; i++)
		sum += p[i * page];
	fprintf(out, "ANONSWAP ready pages=%zu\n", npages);
	fflush(out);
	while (!stop)
		pause();
	munmap(p, len);
	fclose(out);
	return 0;
}
