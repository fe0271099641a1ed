/* Argument blocks of user tasks (see uargs.h). */
#include "kernel/task/uargs.h"
#include "kernel/mm/kheap.h"
#include "lib/string.h"

const char uargs_no_memory[] = "no memory for the arguments";

struct uargs *uargs_new(const char *text, uint64_t len, uint64_t argc, uint64_t envc, const char **why)
{
	*why = 0;
	if (argc > UARGS_MAX || envc > UARGS_MAX || argc + envc > UARGS_MAX) {
		*why = "more than " XSTR(UARGS_MAX) " arguments and environment entries";
		return 0;
	}
	if (len > UARGS_BYTES) {
		*why = "more than " XSTR(UARGS_BYTES) " bytes of arguments and environment";
		return 0;
	}
	uint64_t nuls = 0;
	for (uint64_t i = 0; i < len; i++)
		nuls += text[i] == 0;
	if (nuls != argc + envc || (len && text[len - 1] != 0)) {
		*why = "the strings do not match their count (each ends with its NUL)";
		return 0;
	}
	if (!len)
		return 0;
	const char *s = text;
	for (uint64_t i = 0; i < argc + envc; s += strlen(s) + 1, i++)
		if (i >= argc && (s[0] == '=' || !strchr(s, '='))) {
			*why = "an environment entry is not NAME=VALUE";
			return 0;
		}
	struct uargs *a = kmalloc(sizeof *a + len);
	if (!a) {
		*why = uargs_no_memory;
		return 0;
	}
	a->argc = (uint16_t)argc, a->envc = (uint16_t)envc, a->len = (uint32_t)len;
	memcpy(a->text, text, len);
	return a;
}

void uargs_free(struct uargs *a) { kfree(a); }

uint64_t uargs_int(const struct uargs *a, uint64_t dflt)
{
	uint64_t v;
	return a && a->argc && parse_u64(a->text, &v) ? v : dflt;
}

uint64_t uargs_stack_bytes(const struct uargs *a, const char *name)
{
	uint64_t strings = strlen(name) + 1 + (a ? a->len : 0);
	uint64_t ptrs = 1 + 1 + 1 + (a ? a->argc + a->envc : 0); /* argv[0], two NULL ends, the rest */
	return (((strings + 7) & ~7ULL) + ptrs * 8 + 15) & ~15ULL;
}

struct uargs *uargs_from_words(char **args, unsigned nargs, char **env, unsigned nenv, const char **why)
{
	char buf[UARGS_BYTES];
	uint64_t len = 0;
	for (unsigned i = 0; i < nargs + nenv; i++) {
		const char *s = i < nargs ? args[i] : env[i - nargs];
		uint64_t n = strlen(s) + 1;
		if (n > sizeof buf - len) {
			*why = "more than " XSTR(UARGS_BYTES) " bytes of arguments and environment";
			return 0;
		}
		memcpy(buf + len, s, n);
		len += n;
	}
	return uargs_new(buf, len, nargs, nenv, why);
}
