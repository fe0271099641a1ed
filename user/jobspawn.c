/*
 * jobspawn: submits jobs from a user task (mosaic_job_spawn, mosaic_job_wait) and checks
 * what comes back, for tests/test_jobcall.py. The argument picks a mode (bits 0..3) and
 * a number of milliseconds (bits 8..31, for the modes that sleep):
 *   0 work:   spawns ring (3 tasks), stencil (6 tasks on 4 cores, speed, yield) and a
 *             fault job (1 task, killed), collects the three reports and checks each
 *   1 bad:    every bad argument gets its own error and leaves nothing outstanding; the
 *             fifth job on the way answers MOSAIC_EBUSY; a good job after them runs
 *   2 leave:  spawns a nap job (below) and exits without collecting it
 *   3 wait:   spawns a nap job and waits for it (a test kills the task meanwhile)
 *   4 sliced: expects MOSAIC_ENOTSUP for both calls (run it as a task time-sliced with others)
 *   5 nap:    sleeps the milliseconds and exits with 0 (at most 0xffffff: some 4.7 hours)
 *   6 hang:   spawns a job that never ends (hostile in mode 7: a receive nobody answers, no
 *             clock of its own to move on) and waits for it (a test kills the task meanwhile)
 * Output: "jobspawn: <mode> ok" or "jobspawn: <mode> FAILED (<why>)"; exit 0 or 1.
 */
#include <stdio.h>
#include <string.h>
#include "mosaic.h"

enum { WORK, BAD, LEAVE, WAIT, SLICED, NAP, HANG };
static const char *const mode_name[] = {"work", "bad", "leave", "wait", "sliced", "nap", "hang"};
static int failures;

static void expect(const char *what, long got, long want)
{
	if (got != want) {
		printf("jobspawn: %s returned %ld, expected %ld\n", what, got, want);
		failures++;
	}
}

/* The raw call: the name with a length of the caller's choosing. */
static long spawn_raw(const void *name, long len, long ntasks, long cores, long mode)
{
	return mosaic_call6(KC_JOB_SPAWN, (long)name, len, ntasks, cores, 0, mode);
}

/* A nap job of one task: jobspawn in mode 5 for ms milliseconds. */
static long spawn_nap(long ms) { return mosaic_job_spawn("jobspawn", 1, 0, NAP | ms << 8, 0, 0); }

static void work(void)
{
	long h[3] = {mosaic_job_spawn("ring", 3, 0, 0, MOSAIC_PLACE_PINNED, MOSAIC_WAIT_SPIN),
		     mosaic_job_spawn("stencil", 6, 4, 0, MOSAIC_PLACE_SPEED, MOSAIC_WAIT_YIELD),
		     mosaic_job_spawn("fault", 1, 0, 1, 0, 0)};
	const unsigned long ntasks[3] = {3, 6, 1};
	for (int i = 0; i < 3; i++)
		if (h[i] <= 0 || (i && h[i] == h[i - 1])) {
			printf("jobspawn: spawn %d returned %ld\n", i, h[i]);
			failures++;
			return;
		}
	for (int k = 0; k < 3; k++) {
		struct mosaic_job_report r;
		memset(&r, 0xff, sizeof r);
		long got = mosaic_job_wait(&r, 0);
		int i = got == h[0] ? 0 : got == h[1] ? 1 : got == h[2] ? 2 : -1;
		if (i < 0 || r.handle != got) {
			printf("jobspawn: wait returned %ld (report of %d)\n", got, (int)r.handle);
			failures++;
			return;
		}
		int want_fail = i == 2;
		printf("jobspawn: handle %ld job %u ntasks %u status %u failed %u exit %d parts %u run_us %lu\n", got,
		       (unsigned)r.job, (unsigned)r.ntasks, r.status, (unsigned)r.failed_tasks, (int)r.exit_code,
		       (unsigned)r.nparts, (unsigned long)((r.t_end_ns - r.t_start_ns) / 1000));
		if (r.ntasks != ntasks[i] || r.status != want_fail || r.failed_tasks != (unsigned)want_fail ||
		    r.t_start_ns < r.t_submit_ns || r.t_end_ns < r.t_start_ns || !(r.cores[0] | r.cores[1]))
			failures++;
	}
	struct mosaic_job_report r;
	expect("wait with none outstanding", mosaic_job_wait(&r, 0), MOSAIC_ECHILD);
}

static void bad(void)
{
	static const char twelve[] = "stencil";
	expect("name NULL", spawn_raw(0, 5, 1, 0, 0), MOSAIC_EFAULT);
	expect("name in the kernel", spawn_raw((const void *)0x80200000UL, 5, 1, 0, 0), MOSAIC_EFAULT);
	expect("name length 0", spawn_raw(twelve, 0, 1, 0, 0), MOSAIC_EINVAL);
	expect("name length 16", spawn_raw(twelve, 16, 1, 0, 0), MOSAIC_EINVAL);
	expect("name length 2^63", spawn_raw(twelve, 1L << 62 << 1, 1, 0, 0), MOSAIC_EINVAL);
	expect("name with a NUL inside", spawn_raw("he\0lo", 5, 1, 0, 0), MOSAIC_EINVAL);
	expect("no such program", mosaic_job_spawn("nosuch", 1, 0, 0, 0, 0), MOSAIC_ENOENT);
	expect("ntasks 0", mosaic_job_spawn("hello", 0, 0, 0, 0, 0), MOSAIC_EINVAL);
	expect("ntasks 2^32", mosaic_job_spawn("hello", 1UL << 32, 0, 0, 0, 0), MOSAIC_E2BIG);
	expect("ntasks -1", mosaic_job_spawn("hello", (unsigned long)-1, 0, 0, 0, 0), MOSAIC_E2BIG);
	expect("ntasks 1000", mosaic_job_spawn("hello", 1000, 0, 0, 0, 0), MOSAIC_E2BIG);
	expect("cores > ntasks", mosaic_job_spawn("hello", 2, 3, 0, 0, 0), MOSAIC_EINVAL);
	expect("cores -1", mosaic_job_spawn("hello", 2, (unsigned long)-1, 0, 0, 0), MOSAIC_EINVAL);
	expect("place 3", mosaic_job_spawn("hello", 4, 2, 0, 3, 0), MOSAIC_EINVAL);
	expect("wait 7", mosaic_job_spawn("hello", 4, 2, 0, 0, 7), MOSAIC_EINVAL);
	expect("a mode bit above", spawn_raw("hello", 5, 4, 2, 1L << 20), MOSAIC_EINVAL);
	expect("65 tasks on 9 cores", mosaic_job_spawn("hello", 65, 9, 0, 0, 0), MOSAIC_E2BIG);
	expect("40 tasks on 4 cores", mosaic_job_spawn("hello", 40, 4, 0, 0, 0), MOSAIC_E2BIG);
	expect("wait NULL", mosaic_job_wait(0, 0), MOSAIC_EFAULT);
	struct mosaic_job_report r;
	expect("wait flags 2", mosaic_job_wait(&r, 2), MOSAIC_EINVAL);
	expect("wait after the refusals", mosaic_job_wait(&r, MOSAIC_JOB_NOWAIT), MOSAIC_ECHILD);
	/* four on their way to this core at once, not five */
	long h[4];
	for (int i = 0; i < 4; i++)
		if ((h[i] = spawn_nap(20)) <= 0)
			expect("a nap job", h[i], 1);
	expect("a fifth job", spawn_nap(20), MOSAIC_EBUSY);
	for (int i = 0; i < 4; i++) {
		long got = mosaic_job_wait(&r, 0);
		if (got <= 0 || r.status != 0)
			expect("a nap job's report", got, h[i]);
	}
	expect("wait after all came", mosaic_job_wait(&r, 0), MOSAIC_ECHILD);
}

MOSAIC_ABOUT("submits jobs from a user task (job_spawn, job_wait) and checks what comes back", "mode (bits 0..3) | ms << 8 (user/jobspawn.c)");

int mosaic_main(long arg)
{
	long mode = arg & 15, ms = (arg >> 8) & 0xffffff;
	struct mosaic_job_report r;
	switch (mode) {
	case WORK:
		work();
		break;
	case BAD:
		bad();
		break;
	case LEAVE:
		expect("a nap job", spawn_nap(ms) > 0, 1);
		break;
	case WAIT: {
		long h = spawn_nap(ms);
		expect("a nap job", h > 0, 1);
		expect("its report", mosaic_job_wait(&r, 0), h);
		break;
	}
	case HANG: {
		long h = mosaic_job_spawn("hostile", 1, 0, 7, 0, 0);
		expect("a job that never ends", h > 0, 1);
		expect("its report", mosaic_job_wait(&r, 0), h);
		break;
	}
	case SLICED:
		expect("spawn on a shared core", mosaic_job_spawn("hello", 1, 0, 0, 0, 0), MOSAIC_ENOTSUP);
		expect("wait on a shared core", mosaic_job_wait(&r, 0), MOSAIC_ENOTSUP);
		break;
	case NAP:
		for (long left = ms; left > 0; left -= 60000) /* one sleep is at most 60 s */
			if (mosaic_sleep_us((left < 60000 ? left : 60000) * 1000) != 0)
				return 1;
		return 0;
	default:
		printf("jobspawn: no mode %ld\n", mode);
		return 1;
	}
	printf("jobspawn: %s %s\n", mode_name[mode], failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
