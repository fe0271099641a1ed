/* The boot-argument parser; the keys themselves are declared by the code that uses them. */
#include "kernel/core/bootargs.h"
#include "lib/string.h"
#include "lib/format.h"

extern const struct bootarg __bootargs_start[], __bootargs_end[];

const struct bootarg *bootargs_table(size_t *n)
{
	*n = (size_t)(__bootargs_end - __bootargs_start);
	return __bootargs_start;
}

static void report(bootarg_error_fn err, const char *fmt, const char *a, size_t alen, const char *b)
{
	char msg[160];
	char key[64];
	size_t n = alen < sizeof key - 1 ? alen : sizeof key - 1;
	memcpy(key, a, n);
	key[n] = 0;
	snprintf(msg, sizeof msg, fmt, key, b);
	if (err)
		err(msg);
}

static int assign(const struct bootarg *ba, const char *key, size_t klen, const char *val, size_t vlen, bool bare,
		  bootarg_error_fn err)
{
	if (ba->type == BOOTARG_TYPE_U64) {
		uint64_t v = 1;
		if (!bare && !parse_u64_n(val, vlen, &v)) {
			report(err, "bootargs: '%s' needs a number%s", key, klen, "");
			return 1;
		}
		if (v < ba->min || v > ba->max) {
			char range[64];
			snprintf(range, sizeof range, " (allowed %lu..%lu)", ba->min, ba->max);
			report(err, "bootargs: '%s' is out of range%s", key, klen, range);
			return 1;
		}
		*(uint64_t *)ba->value = v;
		return 0;
	}
	if (bare) {
		report(err, "bootargs: '%s' needs a value (%s=...)", key, klen, ba->key);
		return 1;
	}
	if (vlen >= BOOTARG_STR_MAX) {
		report(err, "bootargs: value of '%s' is too long%s", key, klen, "");
		return 1;
	}
	memcpy(ba->value, val, vlen);
	((char *)ba->value)[vlen] = 0;
	return 0;
}

int bootargs_parse(const char *line, const struct bootarg *table, size_t n, bootarg_error_fn err)
{
	int errors = 0;
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		const char *key = p;
		while (*p && *p != '=' && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		size_t klen = (size_t)(p - key);
		const char *val = p;
		size_t vlen = 0;
		bool bare = *p != '=';
		if (!bare) {
			p++;
			if (*p == '"') {
				val = ++p;
				while (*p && *p != '"')
					p++;
				if (!*p) {
					report(err, "bootargs: unterminated quote in value of '%s'%s", key, klen, "");
					return errors + 1;
				}
				vlen = (size_t)(p - val);
				p++;
			} else {
				val = p;
				while (*p && *p != ' ' && *p != '\t' && *p != '\n')
					p++;
				vlen = (size_t)(p - val);
			}
		}
		const struct bootarg *ba = 0;
		for (size_t i = 0; i < n && !ba; i++)
			if (strlen(table[i].key) == klen && strncmp(table[i].key, key, klen) == 0)
				ba = &table[i];
		if (!ba) {
			report(err, "bootargs: unknown key '%s'%s (see 'help bootargs')", key, klen, "");
			errors++;
			continue;
		}
		errors += assign(ba, key, klen, val, vlen, bare, err);
	}
	return errors;
}

/* Each key's value before the boot arguments are parsed: its default, which `help bootargs` shows. */
#define DEFAULTS_MAX 128
#define DEFAULT_STR_MAX 40
static uint64_t default_u64[DEFAULTS_MAX];
static char default_str[DEFAULTS_MAX][DEFAULT_STR_MAX];
static size_t defaults_kept;

int bootargs_parse_kernel(const char *line, bootarg_error_fn err)
{
	size_t n;
	const struct bootarg *t = bootargs_table(&n);
	defaults_kept = n < DEFAULTS_MAX ? n : DEFAULTS_MAX;
	for (size_t i = 0; i < defaults_kept; i++) {
		if (t[i].type == BOOTARG_TYPE_U64)
			default_u64[i] = *(const uint64_t *)t[i].value;
		else
			strlcpy(default_str[i], t[i].value, DEFAULT_STR_MAX);
	}
	return bootargs_parse(line, t, n, err);
}

bool bootarg_default(size_t i, char *buf, size_t size)
{
	if (i >= defaults_kept)
		return false;
	const struct bootarg *t = &__bootargs_start[i];
	if (t->type == BOOTARG_TYPE_STR)
		snprintf(buf, size, "%s", default_str[i][0] ? default_str[i] : "empty");
	else if (default_u64[i] < t->min || default_u64[i] > t->max)
		snprintf(buf, size, "unset"); /* what not giving the key means is in its text */
	else
		snprintf(buf, size, "%lu", default_u64[i]);
	return true;
}
