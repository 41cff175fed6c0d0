// SPDX-License-Identifier: GPL-2.0
/*
 * pattern: hold anonymous memory with a known pattern and verify it page
 * by page on request, to catch guest memory that a migration or the
 * balloon lost.
 *
 *   pattern MIB OUT [dirty]
 *
 * Faults in MIB MiB of base pages (no THP) and writes every page: word 0
 * names the page, word 1 its generation, the rest a mix of both.  With
 * "dirty" a thread rewrites the pages round-robin, about 16 MiB/s, each
 * with the next generation, so some pages are always being dirtied (what
 * a migration must send again).  Appends "PATTERN ready pages=N" to OUT.
 *
 * SIGUSR1: stop the rewriting, verify every page, append
 *   PATTERN verify pages=N bad=B zero=Z stale=S garbage=G rewrites=R
 * and a line "PATTERN bad index=I pfn=0xP kind=K gen=E found=F" for each
 * of the first 32 bad pages (pfn from /proc/self/pagemap, root only;
 * zero: the page reads all zero; stale: a complete page of an older
 * generation; garbage: anything else), then rewrite again.
 * SIGTERM or SIGINT: exit.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAGIC		0x9e3779b97f4a7c15ULL
#define MAX_REPORT	32
#define BATCH		16		/* pages rewritten per millisecond */

static volatile sig_atomic_t want_verify, want_stop;
static size_t npages, words;
static uint64_t *mem;
static uint64_t *gens;			/* expected generation of each page */
static int paused, idle;		/* __atomic: writer told to stop, stopped */
static uint64_t rewrites;

static void on_usr1(int sig)
{
	(void)sig;
	want_verify = 1;
}

static void on_term(int sig)
{
	(void)sig;
	want_stop = 1;
}

static uint64_t mix(uint64_t idx, uint64_t gen, uint64_t k)
{
	uint64_t x = (idx << 20 ^ gen) * MAGIC + k;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ x >> 29;
}

static void fill(size_t i, uint64_t gen)
{
	uint64_t *w = mem + i * words;
	size_t k;

	w[0] = MAGIC ^ i;
	w[1] = gen;
	for (k = 2; k < words; k++)
		w[k] = mix(i, gen, k);
}

/* 1 if page i holds generation gen completely. */
static int holds(size_t i, uint64_t gen)
{
	const uint64_t *w = mem + i * words;
	size_t k;

	if (w[0] != (MAGIC ^ i) || w[1] != gen)
		return 0;
	for (k = 2; k < words; k++)
		if (w[k] != mix(i, gen, k))
			return 0;
	return 1;
}

static void *writer(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	size_t i = 0, n;

	(void)arg;
	for (;;) {
		if (__atomic_load_n(&paused, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&idle, 1, __ATOMIC_RELEASE);
			nanosleep(&ms, NULL);
			continue;
		}
		for (n = 0; n < BATCH; n++, i = (i + 1) % npages) {
			fill(i, gens[i] + 1);
			gens[i]++;
			rewrites++;
		}
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static uint64_t pfn_of(int pm, size_t i)
{
	uint64_t e = 0;
	off_t off = (off_t)((uintptr_t)(mem + i * words) /
			    (uintptr_t)sysconf(_SC_PAGESIZE)) * 8;

	if (pm < 0 || pread(pm, &e, sizeof(e), off) != sizeof(e))
		return 0;
	return e >> 63 ? e & ((1ULL << 55) - 1) : 0;
}

static void verify(FILE *out)
{
	size_t i, k, bad = 0, zero = 0, stale = 0, garbage = 0;
	int pm = open("/proc/self/pagemap", O_RDONLY);

	for (i = 0; i < npages; i++) {
		const uint64_t *w = mem + i * words;
		const char *kind;

		if (holds(i, gens[i]))
			continue;
		for (k = 0; k < words && !w[k]; k++)
			;
		if (k == words) {
			kind = "zero";
			zero++;
		} else if (w[1] < gens[i] && holds(i, w[1])) {
			kind = "stale";
			stale++;
		} else {
			kind = "garbage";
			garbage++;
		}
		if (bad++ < MAX_REPORT)
			fprintf(out, "PATTERN bad index=%zu pfn=0x%llx kind=%s "
				"gen=%llu found=%llu\n", i,
				(unsigned long long)pfn_of(pm, i), kind,
				(unsigned long long)gens[i],
				(unsigned long long)w[1]);
	}
	if (pm >= 0)
		close(pm);
	fprintf(out, "PATTERN verify pages=%zu bad=%zu zero=%zu stale=%zu "
		"garbage=%zu rewrites=%llu\n", npages, bad, zero, stale,
		garbage, (unsigned long long)rewrites);
	fflush(out);
}

int main(int argc, char **argv)
{
	size_t len, i, page = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec ms = { 0, 1000000 };
	int dirty = argc == 4 && !strcmp(argv[3], "dirty");
	struct sigaction sa;
	pthread_t thr;
	FILE *out;

	if (argc < 3 || argc > 4 || (argc == 4 && !dirty)) {
		fprintf(stderr, "usage: pattern MIB OUT [dirty]\n");
		return 2;
	}
	len = strtoul(argv[1], NULL, 10) << 20;
	npages = len / page;
	words = page / sizeof(uint64_t);
	out = fopen(argv[2], "a");
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gens = calloc(npages ? npages : 1, sizeof(*gens));
	if (!npages || !out || mem == MAP_FAILED || !gens) {
		perror("pattern");
		return 1;
	}
	/* Base pages: each 4 KiB page moves, and is checked, on its own. */
	madvise(mem, len, MADV_NOHUGEPAGE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	for (i = 0; i < npages; i++)
		fill(i, 0);
	if (dirty && pthread_create(&thr, NULL, writer, NULL)) {
		perror("pthread_create");
		return 1;
	}
	fprintf(out, "PATTERN ready pages=%zu\n", npages);
	fflush(out);
	while (!want_stop) {
		if (!want_verify) {
			nanosleep(&ms, NULL);
			continue;
		}
		want_verify = 0;
		__atomic_store_n(&paused, 1, __ATOMIC_RELEASE);
		while (dirty && !__atomic_load_n(&idle, __ATOMIC_ACQUIRE))
			nanosleep(&ms, NULL);
		verify(out);
		/* Cleared here: the writer only sets it, once it sees paused. */
		__atomic_store_n(&idle, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&paused, 0, __ATOMIC_RELEASE);
	}
	return 0;
}
