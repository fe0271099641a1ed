/*
 * A program written for a POSIX machine, built outside the tree by tests/test_programs.py with
 * scripts/mosaic-cc and loaded with --program: options through getopt, its environment through
 * getenv, a heap that grows past a few pages, an aligned block, the page size, the clock, and an
 * exit that flushes a line without its newline.
 *   posixprog [-n COUNT] [-v] [-x CODE] WORDS...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>

int main(int argc, char **argv)
{
	int count = 1, verbose = 0, code = 0, c;
	while ((c = getopt(argc, argv, "n:vx:")) != -1) {
		switch (c) {
		case 'n':
			count = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'x':
			code = atoi(optarg);
			break;
		default:
			printf("posixprog: bad option\n");
			return 2;
		}
	}
	printf("posixprog: argc %d count %d verbose %d optind %d\n", argc, count, verbose, optind);
	for (int i = optind; i < argc; i++)
		printf("posixprog: word '%s'\n", argv[i]);
	const char *g = getenv("GREETING");
	printf("posixprog: GREETING=%s\n", g ? g : "(unset)");
	/* a heap that grows: 20 blocks of 16 KiB (the task's heap grows by sbrk, up to its limit), each
	 * block's bytes kept, then one block grown by realloc with its bytes */
	char *blocks[20];
	int kept = 1, n = 0;
	for (; n < 20; n++) {
		blocks[n] = malloc(16 * 1024);
		if (!blocks[n])
			break;
		memset(blocks[n], n + 1, 16 * 1024);
	}
	for (int i = 0; i < n; i++)
		kept &= blocks[i][0] == i + 1 && blocks[i][16 * 1024 - 1] == i + 1;
	char *r = realloc(blocks[0], 64 * 1024);
	kept &= r && r[16 * 1024 - 1] == 1;
	printf("posixprog: heap grew to %d KiB in blocks (%s)\n", n * 16, kept ? "kept" : "LOST");
	void *al = 0;
	int e = posix_memalign(&al, 256, 1000);
	printf("posixprog: posix_memalign %d aligned %d\n", e, al && ((uintptr_t)al % 256) == 0);
	printf("posixprog: pagesize %ld\n", sysconf(_SC_PAGESIZE));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned long spin = 0;
	for (unsigned long i = 0; i < 200000UL * (unsigned long)count; i++)
		spin += i;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
	printf("posixprog: clock advanced %s (%ld ns)\n", ns > 0 ? "yes" : "no", ns);
	printf("posixprog: unflushed end");
	exit(code);
}
