/*
 * The user runtime over picolibc: stdout goes to the console through KC_WRITE,
 * one line (or 256 bytes) per call so a task's lines never interleave with
 * another's; sbrk grows the heap through KC_HEAP_GROW.
 */
#include <stdio.h>
#include <errno.h>
#include "mosaic.h"

static char line[256];
static size_t used;

static int flush_line(FILE *f)
{
	(void)f;
	if (used)
		mosaic_write(line, used);
	used = 0;
	return 0;
}

static int put(char c, FILE *f)
{
	line[used++] = c;
	if (c == '\n' || used == sizeof line)
		flush_line(f);
	return (unsigned char)c;
}

static FILE console = FDEV_SETUP_STREAM(put, NULL, flush_line, _FDEV_SETUP_WRITE);
FILE *const stdout = &console;
FILE *const stderr = &console;
FILE *const stdin = &console;

void *sbrk(ptrdiff_t incr)
{
	long old = mosaic_heap_grow(incr);
	if (old < 0) {
		errno = ENOMEM;
		return (void *)-1;
	}
	return (void *)old;
}

/* picolibc calls _exit after main when exit() is used */
void _exit(int code)
{
	flush_line(stdout);
	mosaic_exit(code);
}
