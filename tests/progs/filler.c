// SPDX-License-Identifier: GPL-2.0
/*
 * filler: page cache and slab pressure from many small files (the
 * "fio-like" filler beside thpscale in mmtests' thpfioscale).
 *
 *   filler create DIR NFILES KIB   write NFILES files of KIB KiB each
 *   filler read DIR NFILES         read random whole files until killed
 *
 * Every file read is a fresh open, so dentries and inodes (slab) churn
 * along with the page cache.  create prints "FILLER created N".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF	(64 << 10)

static char buf[BUF];

static void path_of(char *p, size_t len, const char *dir, unsigned long i)
{
	snprintf(p, len, "%s/f%06lu", dir, i);
}

static int create(const char *dir, unsigned long n, unsigned long kib)
{
	unsigned long i, left;
	char p[4096];
	int fd;

	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < n; i++) {
		path_of(p, sizeof(p), dir, i);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror(p);
			return 1;
		}
		for (left = kib << 10; left; ) {
			size_t chunk = left < BUF ? left : BUF;
			ssize_t w = write(fd, buf, chunk);

			if (w <= 0) {
				perror("filler: write");
				close(fd);
				return 1;
			}
			left -= w;
		}
		close(fd);
	}
	printf("FILLER created %lu\n", n);
	return 0;
}

static int readloop(const char *dir, unsigned long n)
{
	unsigned long seed = (unsigned long)getpid() * 2654435761UL;
	char p[4096];
	int fd;

	for (;;) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		path_of(p, sizeof(p), dir, (seed >> 33) % n);
		fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc >= 4 && !strcmp(argv[1], "create") && argc == 5) {
		n = strtoul(argv[3], NULL, 0);
		return create(argv[2], n, strtoul(argv[4], NULL, 0));
	}
	if (argc == 4 && !strcmp(argv[1], "read")) {
		n = strtoul(argv[3], NULL, 0);
		if (!n)
			return 2;
		return readloop(argv[2], n);
	}
	fprintf(stderr, "usage: filler create DIR NFILES KIB | filler read DIR NFILES\n");
	return 2;
}
