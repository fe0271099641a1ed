/* The one formatter of the kernel; the console and snprintf both go through it. */
#include "lib/format.h"
#include <stdint.h>
#include <stdbool.h>

struct spec {
	int width;
	int precision;
	bool zero;
	bool left;
};

static int emit_padded(format_sink sink, void *ctx, const char *s, int len, const struct spec *sp)
{
	int n = 0;
	int pad = sp->width > len ? sp->width - len : 0;
	char padc = (sp->zero && !sp->left) ? '0' : ' ';
	/* a zero-padded negative number keeps its sign in front */
	if (padc == '0' && len > 0 && s[0] == '-') {
		sink(ctx, '-');
		n++;
		s++;
		len--;
	}
	if (!sp->left)
		for (; pad; pad--, n++)
			sink(ctx, padc);
	for (int i = 0; i < len; i++, n++)
		sink(ctx, s[i]);
	for (; pad; pad--, n++)
		sink(ctx, ' ');
	return n;
}

static int utoa(char *out, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

int vformat(format_sink sink, void *ctx, const char *fmt, va_list ap)
{
	int count = 0;
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			sink(ctx, *fmt);
			count++;
			continue;
		}
		fmt++;
		struct spec sp = {.width = 0, .precision = -1, .zero = false, .left = false};
		for (;; fmt++) {
			if (*fmt == '0')
				sp.zero = true;
			else if (*fmt == '-')
				sp.left = true;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			sp.width = sp.width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			fmt++;
			sp.precision = 0;
			if (*fmt == '*') {
				sp.precision = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9')
				sp.precision = sp.precision * 10 + (*fmt++ - '0');
		}
		int longs = 0;
		while (*fmt == 'l' || *fmt == 'z') {
			longs++;
			fmt++;
		}
		char buf[32];
		int len = 0;
		uint64_t u;
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
			if (v < 0) {
				buf[len++] = '-';
				u = (uint64_t)0 - (uint64_t)v;
			} else {
				u = (uint64_t)v;
			}
			len += utoa(buf + len, u, 10, false);
			count += emit_padded(sink, ctx, buf, len, &sp);
			break;
		}
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned int);
			len = utoa(buf, u, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16, *fmt == 'X');
			count += emit_padded(sink, ctx, buf, len, &sp);
			break;
		case 'p':
			buf[0] = '0';
			buf[1] = 'x';
			len = 2 + utoa(buf + 2, (uint64_t)(uintptr_t)va_arg(ap, void *), 16, false);
			count += emit_padded(sink, ctx, buf, len, &sp);
			break;
		case 'c':
			buf[0] = (char)va_arg(ap, int);
			count += emit_padded(sink, ctx, buf, 1, &sp);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			int n = 0;
			while (s[n] && (sp.precision < 0 || n < sp.precision))
				n++;
			count += emit_padded(sink, ctx, s, n, &sp);
			break;
		}
		case '%':
			sink(ctx, '%');
			count++;
			break;
		case '\0':
			return count;
		default: /* unknown conversion: show it rather than drop it */
			sink(ctx, '%');
			sink(ctx, *fmt);
			count += 2;
			break;
		}
	}
	return count;
}

struct strbuf {
	char *buf;
	size_t size;
	size_t pos;
};

static void strbuf_sink(void *ctx, char c)
{
	struct strbuf *sb = ctx;
	if (sb->size && sb->pos < sb->size - 1)
		sb->buf[sb->pos] = c;
	sb->pos++;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct strbuf sb = {.buf = buf, .size = size, .pos = 0};
	int n = vformat(strbuf_sink, &sb, fmt, ap);
	if (size)
		buf[sb.pos < size ? sb.pos : size - 1] = 0;
	return n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
