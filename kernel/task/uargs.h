/*
 * A task's arguments and environment (argv[1..], then "K=V" entries), as one immutable block
 * that a `run`, a `submit` or a task's KC_JOB_SPAWNV builds and the loader copies onto every
 * task's stack (kernel/task/utask.c); argv[0] is always the program's name, added at load.
 * A block has one owner at a time: the run that made it, or the job it was submitted with,
 * whose home frees it when the job has ended (penv_report; alloc_submit on a refusal). It is
 * written before it is handed over and only read afterwards, by any core that loads a task of
 * it (docs/architecture.md, shared state).
 */
#ifndef KERNEL_UARGS_H
#define KERNEL_UARGS_H

#include <stdint.h>
#include <stdbool.h>

/* The bounds of a block (user/mosaic.h states them to programs as MOSAIC_ARGS_MAX, MOSAIC_ARG_BYTES). */
#define UARGS_MAX 32     /* strings: arguments after argv[0] and environment entries together */
#define UARGS_BYTES 1024 /* their bytes, each string's NUL included */
/* A bound as text, for messages: XSTR(UARGS_MAX) is "32". */
#define XSTR(x) STR_(x)
#define STR_(x) #x

struct uargs {
	uint16_t argc, envc; /* strings in text: argc arguments, then envc "K=V" entries */
	uint32_t len;        /* bytes of text */
	char text[];
};

/* What a kernel call hands over (KC_JOB_SPAWNV; user/mosaic.h: struct mosaic_args): text is a
 * user address of len bytes. */
struct uargs_user {
	uint64_t text, len, argc, envc;
};

/* uargs_new's *why when it had no memory (every other reason is the caller's input). */
extern const char uargs_no_memory[];

/* A block of argc + envc NUL-terminated strings laid end to end in text[0..len): a kmalloc'd copy,
 * or NULL with *why saying what is wrong (too many strings or bytes, a count that does not match
 * the NULs, an environment entry without '=' or with an empty name, no memory). A block with
 * nothing in it is NULL with *why NULL: the same as no block. */
struct uargs *uargs_new(const char *text, uint64_t len, uint64_t argc, uint64_t envc, const char **why);
void uargs_free(struct uargs *a);
/* The integer argument the task's mosaic_main(long) gets with this block: argv[1] read as a
 * decimal number (its first string), else dflt. */
uint64_t uargs_int(const struct uargs *a, uint64_t dflt);
/* The bytes the loader puts on a task's stack for a (NULL: none) and program name `name`: the
 * strings, argv[] and envp[] with their NULL ends, 16-byte aligned. */
uint64_t uargs_stack_bytes(const struct uargs *a, const char *name);
/* Builds a block from shell words: args[0..nargs) are arguments, env[0..nenv) "K=V" entries. */
struct uargs *uargs_from_words(char **args, unsigned nargs, char **env, unsigned nenv, const char **why);

#endif
