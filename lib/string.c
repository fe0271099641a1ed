/* Freestanding string and memory helpers; GCC may also call memset/memcpy on its own. */
#include "lib/string.h"

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	if (((uintptr_t)d & 7) == 0) {
		uint64_t word = 0x0101010101010101ULL * (unsigned char)c;
		for (; n >= 8; n -= 8, d += 8)
			*(uint64_t *)d = word;
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

/* Aligned copies go four words per pass (the loads first, so no store waits on the load before
 * it): a forwarded call's 48- and 56-byte copies then take fewer instructions a word. */
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
		uint64_t *dw = (uint64_t *)d;
		const uint64_t *sw = (const uint64_t *)s, *end = sw + n / 8;
		while (end - sw >= 4) {
			uint64_t a = sw[0], b = sw[1], c = sw[2], e = sw[3];
			dw[0] = a;
			dw[1] = b;
			dw[2] = c;
			dw[3] = e;
			dw += 4;
			sw += 4;
		}
		while (sw != end)
			*dw++ = *sw++;
		d = (unsigned char *)dw;
		s = (const unsigned char *)sw;
		n %= 8;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);
	for (; *haystack; haystack++)
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	return n == 0 ? (char *)haystack : NULL;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = 0;
	}
	return len;
}

bool parse_u64(const char *s, uint64_t *out)
{
	return parse_u64_n(s, strlen(s), out);
}
