/*
 * args: prints its argc, argv, environment and integer argument, one line each, for
 * tests/test_programs.py. `args spawn` checks mosaic_job_spawnv: it spawns a job of two tasks
 * of itself with arguments and an environment (each task prints them), collects its report,
 * and checks that the limits and hostile blocks are refused; "args: spawn ok" or
 * "args: spawn FAILED (<why>)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mosaic.h"

MOSAIC_ABOUT("prints its arguments and environment; args spawn: checks mosaic_job_spawnv", "its argv[1..] (spawn: the spawn check)");

static int failures;

static void expect(const char *what, long got, long want)
{
	if (got != want) {
		printf("args: spawn FAILED (%s returned %ld, expected %ld)\n", what, got, want);
		failures++;
	}
}

static long spawn_raw(const struct mosaic_args *a)
{
	return mosaic_call6(KC_JOB_SPAWNV, (long)"args", 4, 1, 0, (long)a, 0);
}

static int spawn_check(void)
{
	char *const args[] = {"7", "two words", "", 0};
	char *const env[] = {"MOSAIC_TEST=spawned", "EMPTY=", 0};
	long h = mosaic_job_spawnv("args", 2, 0, args, env, MOSAIC_PLACE_PINNED, MOSAIC_WAIT_SPIN);
	if (h <= 0) {
		printf("args: spawn FAILED (spawnv returned %ld)\n", h);
		return 1;
	}
	struct mosaic_job_report r;
	expect("wait", mosaic_job_wait(&r, 0), h);
	expect("the job's status", r.status, 0);
	expect("its tasks", r.ntasks, 2);
	/* the limits: one string too many, one byte too many */
	static char many_text[MOSAIC_ARGS_MAX + 1][2];
	char *many[MOSAIC_ARGS_MAX + 2];
	for (int i = 0; i <= MOSAIC_ARGS_MAX; i++)
		many_text[i][0] = 'a', many[i] = many_text[i];
	many[MOSAIC_ARGS_MAX + 1] = 0;
	expect("33 arguments", mosaic_job_spawnv("args", 1, 0, many, 0, 0, 0), MOSAIC_E2BIG);
	many[MOSAIC_ARGS_MAX] = 0;
	char *const env_many[] = {"A=1", 0};
	expect("32 arguments and an entry", mosaic_job_spawnv("args", 1, 0, many, env_many, 0, 0), MOSAIC_E2BIG);
	static char big[MOSAIC_ARG_BYTES];
	memset(big, 'b', sizeof big - 1);
	char *const one_big[] = {big, 0}; /* 1024 bytes with its NUL: fits */
	char *const too_big[] = {big, "", 0};
	expect("1025 bytes, through the runtime", mosaic_job_spawnv("args", 1, 0, too_big, 0, 0, 0), MOSAIC_E2BIG);
	struct mosaic_args raw = {big, MOSAIC_ARG_BYTES + 1, 1, 0};
	expect("1025 bytes", spawn_raw(&raw), MOSAIC_E2BIG);
	raw = (struct mosaic_args){big, 4, MOSAIC_ARGS_MAX + 1, 0};
	expect("33 strings", spawn_raw(&raw), MOSAIC_E2BIG);
	raw = (struct mosaic_args){big, 4, 1ULL << 63, 1ULL << 63};
	expect("counts that wrap", spawn_raw(&raw), MOSAIC_E2BIG);
	char *const bad_env[] = {"NOEQUALS", 0};
	expect("an entry without =", mosaic_job_spawnv("args", 1, 0, 0, bad_env, 0, 0), MOSAIC_EINVAL);
	char *const empty_name[] = {"=x", 0};
	expect("an entry without a name", mosaic_job_spawnv("args", 1, 0, 0, empty_name, 0, 0), MOSAIC_EINVAL);
	expect("the block at NULL", spawn_raw(0), MOSAIC_EFAULT);
	expect("the block in the kernel", spawn_raw((const struct mosaic_args *)0x80200000UL), MOSAIC_EFAULT);
	raw = (struct mosaic_args){(const char *)0x80200000UL, 4, 1, 0};
	expect("the text in the kernel", spawn_raw(&raw), MOSAIC_EFAULT);
	raw = (struct mosaic_args){(const char *)-8L, 16, 1, 0};
	expect("the text wrapping", spawn_raw(&raw), MOSAIC_EFAULT);
	raw = (struct mosaic_args){"ab\0cd", 5, 1, 0};
	expect("a count short of the NULs", spawn_raw(&raw), MOSAIC_EINVAL);
	raw = (struct mosaic_args){"abc", 3, 1, 0};
	expect("no NUL at the end", spawn_raw(&raw), MOSAIC_EINVAL);
	expect("nothing outstanding", mosaic_job_wait(&r, MOSAIC_JOB_NOWAIT), MOSAIC_ECHILD);
	(void)one_big;
	printf(failures ? "args: spawn FAILED (%d)\n" : "args: spawn ok\n", failures);
	return failures != 0;
}

int main(int argc, char **argv)
{
	extern char **environ;
	if (argc == 2 && !strcmp(argv[1], "spawn"))
		return spawn_check();
	long rank = mosaic_job_size() ? mosaic_rank() : -1;
	printf("args: rank %ld argc %d integer %ld\n", rank, argc, (long)strtol(argc > 1 ? argv[1] : "0", 0, 10));
	for (int i = 0; i < argc; i++)
		printf("args: rank %ld argv[%d] = '%s'\n", rank, i, argv[i]);
	if (argv[argc] != 0)
		printf("args: argv[argc] is not NULL\n");
	for (char **e = environ; e && *e; e++)
		printf("args: rank %ld env '%s'\n", rank, *e);
	const char *t = getenv("MOSAIC_TEST");
	printf("args: rank %ld getenv MOSAIC_TEST = %s\n", rank, t ? t : "(unset)");
	return 0;
}
