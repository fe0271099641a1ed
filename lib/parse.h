/*
 * Number parsing, pure C with no kernel state: the kernel (lib/string.c's
 * parse_u64) and the allocation protocol's portable core (which also builds into
 * host programs, portable/alloc/scenario_gen.c) read numbers with this one
 * function, so a scenario's numbers mean the same in the kernel and the simulator.
 */
#ifndef LIB_PARSE_H
#define LIB_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Parses a whole decimal or 0x-hex number of len characters (not NUL-terminated);
 * false on empty input, junk or overflow, and *out is then left alone. */
static inline bool parse_u64_n(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0, base = 10;
	size_t i = 0;
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		char c = s[i];
		uint64_t d;
		if (c >= '0' && c <= '9')
			d = (uint64_t)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (uint64_t)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (uint64_t)(c - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

#endif
