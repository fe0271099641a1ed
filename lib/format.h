/*
 * printf-style formatting into any sink: the console, a string, the kernel log.
 * Supports %d %i %u %x %X %o %p %s %c %%, the l/ll/z length modifiers,
 * a width (or *), '0' and '-' flags, and a precision for %s.
 */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*format_sink)(void *ctx, char c);

/* Returns the number of characters produced. */
int vformat(format_sink sink, void *ctx, const char *fmt, va_list ap);

/* Like C's snprintf: always NUL-terminates, returns the length the full output would have. */
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
