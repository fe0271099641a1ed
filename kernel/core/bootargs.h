/*
 * Boot arguments: a whitespace-separated list of key=value pairs (a value may
 * be "double-quoted" to hold spaces; a bare key sets a flag to 1). Every key is
 * declared where it is used with BOOTARG_U64 or BOOTARG_STR; an unknown key,
 * a malformed value or one out of range is reported, never silently ignored.
 */
#ifndef KERNEL_BOOTARGS_H
#define KERNEL_BOOTARGS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

enum bootarg_type { BOOTARG_TYPE_U64, BOOTARG_TYPE_STR };

#define BOOTARG_STR_MAX 256

struct bootarg {
	const char *key;
	enum bootarg_type type;
	void *value;      /* uint64_t * or char[BOOTARG_STR_MAX] */
	uint64_t min, max;
	const char *help;
};

#define BOOTARG_CAT2(a, b) a##b
#define BOOTARG_CAT(a, b) BOOTARG_CAT2(a, b)
#define BOOTARG_DECL static const struct bootarg BOOTARG_CAT(__bootarg_, __LINE__) \
	__attribute__((used, section(".bootargs"), aligned(8)))
/* var may be any lvalue (a variable or a struct field) */
#define BOOTARG_U64(name, var, lo, hi, helptext) \
	BOOTARG_DECL = {.key = name, .type = BOOTARG_TYPE_U64, .value = &(var), .min = lo, .max = hi, .help = helptext}
#define BOOTARG_STR(name, var, helptext) \
	BOOTARG_DECL = {.key = name, .type = BOOTARG_TYPE_STR, .value = var, .help = helptext}

typedef void (*bootarg_error_fn)(const char *msg);

/* Parses line against table[0..n); returns the number of errors (each reported through err). */
int bootargs_parse(const char *line, const struct bootarg *table, size_t n, bootarg_error_fn err);
/* Parses against every key the kernel declares. */
int bootargs_parse_kernel(const char *line, bootarg_error_fn err);
/* The kernel's declared keys, for `help` output. */
const struct bootarg *bootargs_table(size_t *n);
/* Key i's default (its value before the boot arguments were parsed) as text into buf: "empty"
 * for an empty string, "unset" for a number outside the key's range (the key's text says what
 * not giving it means). False if it was not kept. */
bool bootarg_default(size_t i, char *buf, size_t size);

#endif
