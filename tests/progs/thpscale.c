// SPDX-License-Identifier: GPL-2.0
/*
 * thpscale: THP fault latency on fragmented memory (mmtests' thpscale
 * method, written anew for guestmm).
 *
 *   thpscale THREADS MAPSIZE_MIB FILE
 *
 * Each thread faults in its share of MAPSIZE in base pages, unmaps the
 * first 1 MiB of every 2 MiB (every pageblock is now half used), reads a
 * quarter of its share from FILE (page cache refills the holes), then
 * faults an MADV_HUGEPAGE region one aligned 2 MiB at a time and times
 * each fault.  A fault is "huge" if the first page is part of a THP
 * (/proc/kpageflags).  Prints one line:
 *
 *   THPSCALE faults=N huge=N huge_pct=P fault_us_mean=M huge_us_mean=H base_us_mean=B
 *            fault_us_p50=.. fault_us_p95=.. huge_us_p50=.. huge_us_p95=..
 *            base_us_p50=.. base_us_p95=..
 *
 * With THPSCALE_LAT=1 in the environment it also prints every fault's
 * latency, so a benchmark can pool them over runs:
 *
 *   THPSCALE_LAT huge=US,US,... base=US,US,...
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HPAGE		(2UL << 20)
#define KPF_THP		22

struct worker {
	pthread_t tid;
	size_t size;
	off_t file_off;
	unsigned long faults, huge;
	double us_huge, us_base;
	double *lat;		/* per fault, us */
	char *was_huge;		/* per fault */
};

static const char *file;
static pthread_barrier_t barrier;
static int pagemap_fd, kpageflags_fd;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int is_thp(void *addr)
{
	uint64_t ent, flags;
	off_t off = (uintptr_t)addr / getpagesize() * 8;

	if (pread(pagemap_fd, &ent, 8, off) != 8 || !(ent >> 63))
		return 0;
	off = (ent & ((1ULL << 55) - 1)) * 8;
	if (pread(kpageflags_fd, &flags, 8, off) != 8)
		return 0;
	return (flags >> KPF_THP) & 1;
}

static char *map_aligned(size_t len)
{
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("thpscale: mmap");
		exit(1);
	}
	return (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
}

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t i, nr = w->size / HPAGE / 2, chunk = w->size / 4;
	char *frag, *thp, *buf;
	double t0, dt;
	int fd;

	frag = map_aligned(w->size);
	madvise(frag, w->size, MADV_NOHUGEPAGE);
	memset(frag, 1, w->size);
	for (i = 0; i < w->size; i += HPAGE)
		munmap(frag + i, HPAGE / 2);

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		perror("thpscale: open");
		exit(1);
	}
	buf = malloc(1 << 20);
	for (i = 0; i < chunk; i += 1 << 20)
		if (pread(fd, buf, 1 << 20, w->file_off + i) <= 0)
			break;
	free(buf);
	close(fd);

	w->lat = calloc(nr, sizeof(*w->lat));
	w->was_huge = calloc(nr, 1);
	if (!w->lat || !w->was_huge) {
		perror("thpscale: calloc");
		exit(1);
	}
	thp = map_aligned(nr * HPAGE);
	madvise(thp, nr * HPAGE, MADV_HUGEPAGE);
	pthread_barrier_wait(&barrier);
	for (i = 0; i < nr; i++) {
		char *p = thp + i * HPAGE;

		t0 = now_us();
		p[0] = 1;
		memset(p, 2, HPAGE);
		dt = now_us() - t0;
		w->lat[w->faults] = dt;
		w->faults++;
		if (is_thp(p)) {
			w->was_huge[w->faults - 1] = 1;
			w->huge++;
			w->us_huge += dt;
		} else {
			w->us_base += dt;
		}
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of v[0..n), sorted in place; 0 when empty. */
static double pct(double *v, size_t n, double p)
{
	size_t k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	k = (size_t)(p / 100.0 * n + 0.999999);
	return v[k ? k - 1 : 0];
}

/* The THPSCALE_LAT line: every huge, then every base fault's latency. */
static void print_latencies(struct worker *w, int threads)
{
	const char *sep;
	unsigned long j;
	int kind, i;

	printf("THPSCALE_LAT");
	for (kind = 1; kind >= 0; kind--) {
		printf(" %s=", kind ? "huge" : "base");
		sep = "";
		for (i = 0; i < threads; i++)
			for (j = 0; j < w[i].faults; j++) {
				if (w[i].was_huge[j] != kind)
					continue;
				printf("%s%.0f", sep, w[i].lat[j]);
				sep = ",";
			}
	}
	printf("\n");
}

/* Latencies of all, huge (1) or base (0) faults: p50 and p95. */
static void percentiles(struct worker *w, int threads, int kind,
			double *p50, double *p95)
{
	size_t n = 0, total = 0;
	unsigned long j;
	double *v;
	int i;

	for (i = 0; i < threads; i++)
		total += w[i].faults;
	v = calloc(total ? total : 1, sizeof(*v));
	if (!v) {
		perror("thpscale: calloc");
		exit(1);
	}
	for (i = 0; i < threads; i++)
		for (j = 0; j < w[i].faults; j++)
			if (kind < 0 || w[i].was_huge[j] == kind)
				v[n++] = w[i].lat[j];
	*p50 = pct(v, n, 50);
	*p95 = pct(v, n, 95);
	free(v);
}

int main(int argc, char **argv)
{
	double all50, all95, huge50, huge95, base50, base95;
	unsigned long faults = 0, huge = 0;
	double us_huge = 0, us_base = 0;
	struct worker *w;
	const char *lat;
	size_t mapsize;
	int i, threads;

	if (argc != 4) {
		fprintf(stderr, "usage: thpscale THREADS MAPSIZE_MIB FILE\n");
		return 2;
	}
	threads = atoi(argv[1]);
	mapsize = strtoul(argv[2], NULL, 0) << 20;
	file = argv[3];
	if (threads < 1 || threads > 64 || mapsize / threads < 4 * HPAGE) {
		fprintf(stderr, "thpscale: need 1..64 threads and >= 8 MiB each\n");
		return 2;
	}
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	kpageflags_fd = open("/proc/kpageflags", O_RDONLY);
	if (pagemap_fd < 0 || kpageflags_fd < 0) {
		perror("thpscale: pagemap/kpageflags (root needed)");
		return 1;
	}
	w = calloc(threads, sizeof(*w));
	pthread_barrier_init(&barrier, NULL, threads);
	for (i = 0; i < threads; i++) {
		w[i].size = mapsize / threads & ~(HPAGE - 1);
		w[i].file_off = (off_t)w[i].size * i;
		pthread_create(&w[i].tid, NULL, work, &w[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].tid, NULL);
		faults += w[i].faults;
		huge += w[i].huge;
		us_huge += w[i].us_huge;
		us_base += w[i].us_base;
	}
	lat = getenv("THPSCALE_LAT");
	if (lat && !strcmp(lat, "1"))
		print_latencies(w, threads);
	percentiles(w, threads, -1, &all50, &all95);
	percentiles(w, threads, 1, &huge50, &huge95);
	percentiles(w, threads, 0, &base50, &base95);
	printf("THPSCALE faults=%lu huge=%lu huge_pct=%.1f fault_us_mean=%.0f huge_us_mean=%.0f base_us_mean=%.0f "
	       "fault_us_p50=%.0f fault_us_p95=%.0f huge_us_p50=%.0f huge_us_p95=%.0f base_us_p50=%.0f base_us_p95=%.0f\n",
	       faults, huge, faults ? 100.0 * huge / faults : 0.0,
	       faults ? (us_huge + us_base) / faults : 0.0,
	       huge ? us_huge / huge : 0.0,
	       faults - huge ? us_base / (faults - huge) : 0.0,
	       all50, all95, huge50, huge95, base50, base95);
	return 0;
}
