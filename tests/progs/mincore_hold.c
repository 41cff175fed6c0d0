// SPDX-License-Identifier: GPL-2.0
/*
 * mincore_hold: map a file, touch every page once, then report how many
 * of its pages are resident, every second and on SIGUSR1, until SIGTERM.
 *
 *   mincore_hold FILE OUT [INTERVAL_MS]
 *
 * Each report is one line appended to OUT:
 *   MINCORE t_ms=<since start> resident=<pages> total=<pages>
 * and "MINCORE ready total=<pages>" once everything was touched.  The
 * pages are touched only once: a page that is dropped and read back in
 * later shows as missing in the samples in between.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t report_now, stop;

static void on_usr1(int sig)
{
	(void)sig;
	report_now = 1;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), interval_ms = 1000, t0;
	size_t npages, i, resident;
	unsigned char *vec;
	volatile unsigned char sum = 0;
	struct sigaction sa;
	struct stat st;
	FILE *out;
	char *map;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FILE OUT [INTERVAL_MS]\n", argv[0]);
		return 2;
	}
	if (argc > 3)
		interval_ms = strtol(argv[3], NULL, 10);
	if (interval_ms <= 0)
		interval_ms = 1000;

	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	npages = (st.st_size + page - 1) / page;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	vec = malloc(npages);
	out = fopen(argv[2], "a");
	if (!vec || !out) {
		perror(argv[2]);
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	/* Fault every page in: now they are mapped page cache. */
	for (i = 0; i < npages; i++)
		sum += map[i * page];
	fprintf(out, "MINCORE ready total=%zu\n", npages);
	fflush(out);

	t0 = now_ms();
	while (!stop) {
		if (mincore(map, st.st_size, vec) < 0) {
			perror("mincore");
			return 1;
		}
		resident = 0;
		for (i = 0; i < npages; i++)
			resident += vec[i] & 1;
		fprintf(out, "MINCORE t_ms=%ld resident=%zu total=%zu\n",
			now_ms() - t0, resident, npages);
		fflush(out);
		report_now = 0;
		/* usleep returns early (EINTR) on SIGUSR1 and SIGTERM */
		if (!report_now && !stop)
			usleep(interval_ms * 1000);
	}
	munmap(map, st.st_size);
	close(fd);
	fclose(out);
	(void)sum;
	return 0;
}
