/*
 * shmtest: the shared-memory windows of a job (mosaic_shm_open; docs/microkernel.md).
 * Run as a job (`submit shmtest N arg A`): every rank opens the window "grid", writes
 * A * 1000 + rank into its own entry, waits at the job's barrier, and checks every
 * rank's entry; rank 0 checks the bad inputs. Two jobs with different A at once must
 * each see only their own values: a window belongs to its job. Run alone (`run shmtest`)
 * it must be refused (not in a job). With A >= 100 every rank waits A ms before the last
 * barrier, so that the shell's `shm` can list the window meanwhile.
 * Output: rank 0 prints "shmtest: job arg A, N tasks share a window, ok" or a FAILED line;
 * alone: "shmtest: outside a job: refused, ok".
 */
#include <stdio.h>
#include "mosaic.h"

#define WINDOW_BYTES 8192
#define NMAX 128

#define CHECK(cond)                                                                               \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			printf("shmtest: rank %ld: FAILED at line %d: %s\n", rank, __LINE__, #cond); \
			bad = 1;                                                                  \
		}                                                                                 \
	} while (0)

MOSAIC_ABOUT("the shared-memory windows of a job: each rank writes its entry, all check", "A: the value base (A >= 100: wait A ms before the last barrier)");

int mosaic_main(long arg)
{
	long rank = mosaic_rank(), n = mosaic_job_size(), g = mosaic_job_group();
	int bad = 0;
	if (g < 0) {
		long r = mosaic_shm_open("grid", WINDOW_BYTES);
		printf("shmtest: outside a job: %s\n", r == MOSAIC_EPERM ? "refused, ok" : "FAILED (not refused)");
		return r == MOSAIC_EPERM ? 0 : 1;
	}
	volatile long *w = (volatile long *)mosaic_shm_open("grid", WINDOW_BYTES);
	CHECK((long)w > 0);
	if ((long)w <= 0 || n > NMAX)
		return 1;
	CHECK(w[rank] == 0 || w[rank] == arg * 1000 + rank); /* zeroed when it was made */
	w[rank] = arg * 1000 + rank;
	/* the same window again: the same address */
	CHECK(mosaic_shm_open("grid", WINDOW_BYTES) == (long)w);
	CHECK(mosaic_barrier(g) == 0);
	for (long r = 0; r < n; r++)
		CHECK(w[r] == arg * 1000 + r);
	CHECK(w[n] == 0); /* nobody else's values: another job's "grid" is another window */
	/* the window is the task's memory for kernel calls too: gather every rank's entry from it */
	long all[NMAX];
	CHECK(mosaic_allgather(g, (const void *)&w[rank], sizeof(long), all) == 0);
	for (long r = 0; r < n; r++)
		CHECK(all[r] == arg * 1000 + r);
	if (rank == 0) {
		char long_name[40];
		for (int i = 0; i < 39; i++)
			long_name[i] = 'x';
		long_name[39] = 0;
		CHECK(mosaic_shm_open("grid", 3 * WINDOW_BYTES) == MOSAIC_EINVAL); /* another size */
		CHECK(mosaic_shm_open("", 4096) == MOSAIC_EINVAL);
		CHECK(mosaic_shm_open("other", 0) == MOSAIC_EINVAL);
		CHECK(mosaic_shm_open("other", 256 * 1024 + 1) == MOSAIC_EINVAL);
		CHECK(mosaic_shm_open(long_name, 4096) == MOSAIC_EINVAL);
		CHECK(mosaic_shm_open((const char *)16, 4096) == MOSAIC_EFAULT);
		/* four windows at most in a task: "grid" and three more */
		CHECK(mosaic_shm_open("a", 4096) > 0);
		CHECK(mosaic_shm_open("b", 4096) > 0);
		long c = mosaic_shm_open("c", 4096);
		CHECK(c > 0);
		CHECK(mosaic_shm_open("d", 4096) == MOSAIC_ENOSPC);
		volatile char *cw = (volatile char *)c;
		cw[4095] = 1; /* the whole window is the task's to write */
	}
	if (arg >= 100)
		mosaic_sleep_us((unsigned long)arg * 1000);
	CHECK(mosaic_barrier(g) == 0);
	if (rank == 0)
		printf("shmtest: job arg %ld, %ld tasks share a window, %s\n", arg, n, bad ? "FAILED" : "ok");
	return bad;
}
