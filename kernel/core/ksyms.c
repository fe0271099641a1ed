/* Lookup in the generated, address-sorted symbol table (build/ksyms_table.S, made at build time by scripts/gen-ksyms). */
#include "kernel/core/ksyms.h"
#include "lib/string.h"

struct ksym {
	uint64_t addr;
	uint64_t name_off;
};

extern const struct ksym ksym_table[];
extern const uint64_t ksym_count;
extern const char ksym_names[];
extern char __text_start[], __text_end[];

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	if (addr < (uint64_t)__text_start || addr >= (uint64_t)__text_end || ksym_count == 0)
		return 0;
	uint64_t lo = 0, hi = ksym_count;
	while (hi - lo > 1) {
		uint64_t mid = (lo + hi) / 2;
		if (ksym_table[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (ksym_table[lo].addr > addr)
		return 0;
	if (offset)
		*offset = addr - ksym_table[lo].addr;
	return ksym_names + ksym_table[lo].name_off;
}

