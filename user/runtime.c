/*
 * The user runtime over picolibc: stdout goes to the console through KC_WRITE,
 * one line (or 256 bytes) per call so a task's lines never interleave with
 * another's; sbrk grows the heap through KC_HEAP_GROW. The line is thread-local:
 * a team member that runs as an i-let shares its owner's memory, but every task
 * has its own thread-local block (the kernel points tp at it, kernel/task/utask.c).
 * Calls that need more than a register's worth of work on the user side live here too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include "mosaic.h"

struct console_line {
	size_t used;
	char text[256];
};

static __thread struct console_line my_line;

static int flush_line(FILE *f)
{
	(void)f;
	struct console_line *l = &my_line;
	if (l->used)
		mosaic_write(l->text, l->used);
	l->used = 0;
	return 0;
}

static int put(char c, FILE *f)
{
	struct console_line *l = &my_line;
	l->text[l->used++] = c;
	if (c == '\n' || l->used == sizeof l->text)
		flush_line(f);
	return (unsigned char)c;
}

static FILE console = FDEV_SETUP_STREAM(put, NULL, flush_line, _FDEV_SETUP_WRITE);
FILE *const stdout = &console;
FILE *const stderr = &console;
FILE *const stdin = &console;

/* sbrk moves the break by exactly incr, as malloc expects: the kernel maps whole pages, so the
 * break malloc sees runs ahead of the mapped one only within the last page. (Returning the
 * kernel's page-rounded break made every small malloc take a fresh page.) The heap_grow(0)
 * first also keeps an i-let without a heap: it answers -EPERM there. */
static char *logical_brk;

void *sbrk(ptrdiff_t incr)
{
	long mapped = mosaic_heap_grow(0);
	if (mapped < 0 || incr < 0) {
		errno = ENOMEM;
		return (void *)-1;
	}
	if (!logical_brk || logical_brk > (char *)mapped)
		logical_brk = (char *)mapped;
	char *old = logical_brk;
	if ((size_t)incr > (size_t)((char *)mapped - old) && mosaic_heap_grow(incr - ((char *)mapped - old)) < 0) {
		errno = ENOMEM;
		return (void *)-1;
	}
	logical_brk = old + incr;
	return old;
}

/* picolibc calls _exit after main when exit() is used */
void _exit(int code)
{
	flush_line(stdout);
	mosaic_exit(code);
	__builtin_unreachable();
}

/* KC_JOB_SPAWN takes the name with its length: the kernel reads exactly those bytes. */
long mosaic_job_spawn(const char *program, unsigned long ntasks, unsigned long cores, long arg, int place, int wait)
{
	return mosaic_call6(KC_JOB_SPAWN, (long)program, (long)strlen(program), (long)ntasks, (long)cores, arg,
			    (long)(place | wait << 8));
}

long mosaic_job_spawnv(const char *program, unsigned long ntasks, unsigned long cores, char *const args[],
		       char *const env[], int place, int wait)
{
	char text[MOSAIC_ARG_BYTES];
	struct mosaic_args a = {text, 0, 0, 0};
	for (int side = 0; side < 2; side++)
		for (char *const *s = side ? env : args; s && *s; s++) {
			size_t n = strlen(*s) + 1;
			if (n > sizeof text - a.len || a.argc + a.envc >= MOSAIC_ARGS_MAX)
				return MOSAIC_E2BIG;
			memcpy(text + a.len, *s, n);
			a.len += n;
			*(side ? &a.envc : &a.argc) += 1;
		}
	return mosaic_call6(KC_JOB_SPAWNV, (long)program, (long)strlen(program), (long)ntasks, (long)cores, (long)&a,
			    (long)(place | wait << 8));
}

/* ---- the program's start ---- */

int mosaic_argc;
char **mosaic_argv;
extern char **environ; /* picolibc's, read by its getenv */

/* A program defines main or mosaic_main: this one, taken when it defines no mosaic_main of its
 * own, runs main (weak here, so that a program with mosaic_main needs none). */
int main(int argc, char **argv) __attribute__((weak));
__attribute__((weak)) int mosaic_main(long arg)
{
	(void)arg;
	if (!main) {
		static const char msg[] = "mosaic: the program defines neither main nor mosaic_main\n";
		mosaic_write(msg, sizeof msg - 1);
		return 127;
	}
	return main(mosaic_argc, mosaic_argv);
}

void mosaic_start(long arg, long fn, long argc, char **argv, char **envp) __attribute__((noreturn));
void mosaic_start(long arg, long fn, long argc, char **argv, char **envp)
{
	(void)fn;
	mosaic_argc = (int)argc;
	mosaic_argv = argv;
	environ = envp;
	exit(mosaic_main(arg)); /* returning from main is exit: atexit handlers, then _exit */
}

/* ---- the POSIX calls picolibc leaves to the system (what is not here fails to link) ---- */

long sysconf(int name)
{
	switch (name) {
	case _SC_PAGESIZE:
		return 4096; /* arch/riscv/mmu.h: PAGE_SIZE */
	case _SC_NPROCESSORS_CONF:
	case _SC_NPROCESSORS_ONLN:
		return 1; /* a task runs on one core; its job's size is mosaic_job_size() */
	default:
		errno = EINVAL;
		return -1;
	}
}

/* Both clocks are the core's (virtual or serial), in ns since the machine started. */
int clock_gettime(clockid_t id, struct timespec *tp)
{
	if (id != CLOCK_REALTIME && id != CLOCK_MONOTONIC) {
		errno = EINVAL;
		return -1;
	}
	long ns = mosaic_time_ns();
	tp->tv_sec = ns / 1000000000;
	tp->tv_nsec = ns % 1000000000;
	return 0;
}

int clock_getres(clockid_t id, struct timespec *res)
{
	if (id != CLOCK_REALTIME && id != CLOCK_MONOTONIC) {
		errno = EINVAL;
		return -1;
	}
	if (res)
		*res = (struct timespec){0, 1};
	return 0;
}

/* For picolibc's time(): the same clock, in seconds and microseconds. */
int gettimeofday(struct timeval *tv, void *tz)
{
	(void)tz;
	long ns = mosaic_time_ns();
	if (tv) {
		tv->tv_sec = ns / 1000000000;
		tv->tv_usec = ns / 1000 % 1000000;
	}
	return 0;
}
