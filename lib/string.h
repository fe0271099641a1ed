/* Freestanding string and memory helpers for the kernel (user programs use picolibc). */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "lib/parse.h" /* parse_u64_n, for a counted (not NUL-terminated) string */

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
/* memcpy for the message path's bodies, which are mostly a few words: a body of up to 4 aligned
 * words is copied inline (a call to memcpy costs more than the copy itself), anything else by
 * memcpy. */
static inline void *memcpy_small(void *dst, const void *src, size_t n)
{
	if (n <= 32 && (((uintptr_t)dst | (uintptr_t)src | n) & 7) == 0) {
		uint64_t *d = dst;
		const uint64_t *s = src;
		switch (n / 8) { /* a store per word and no loop bookkeeping */
		case 4: d[3] = s[3]; /* fall through */
		case 3: d[2] = s[2]; /* fall through */
		case 2: d[1] = s[1]; /* fall through */
		case 1: d[0] = s[0]; /* fall through */
		default: break;
		}
		return dst;
	}
	return memcpy(dst, src, n);
}
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
size_t strlcpy(char *dst, const char *src, size_t size);

/* Parses a whole decimal or 0x-hex number; false on empty input, junk or overflow. */
bool parse_u64(const char *s, uint64_t *out);

#endif
