/* ktest suite "lib": the freestanding formatter and string helpers the kernel relies on. */
#include "kernel/core/ktest.h"
#include "lib/format.h"
#include "lib/string.h"

KTEST(lib, snprintf_conversions)
{
	char b[64];
	snprintf(b, sizeof b, "%d %u %x %lx %s %c %%", -5, 7u, 255u, 0x123456789abUL, "hi", 'z');
	KT_ASSERT(strcmp(b, "-5 7 ff 123456789ab hi z %") == 0);
	snprintf(b, sizeof b, "[%5d][%-5d][%05d][%.2s][%016lx]", 42, 42, -42, "abcdef", 0xbeefUL);
	KT_ASSERT(strcmp(b, "[   42][42   ][-0042][ab][000000000000beef]") == 0);
	snprintf(b, sizeof b, "%ld %p", (long)INT64_MIN, (void *)0x80200000UL);
	KT_ASSERT(strcmp(b, "-9223372036854775808 0x80200000") == 0);
}

KTEST(lib, snprintf_truncates_safely)
{
	char b[8];
	int n = snprintf(b, sizeof b, "%s", "0123456789");
	KT_ASSERT_EQ(n, 10); /* the length it needed, so callers can detect truncation */
	KT_ASSERT(strcmp(b, "0123456") == 0);
}

KTEST(lib, parse_numbers)
{
	uint64_t v;
	KT_ASSERT(parse_u64("0", &v) && v == 0);
	KT_ASSERT(parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	KT_ASSERT(!parse_u64("18446744073709551616", &v));
	KT_ASSERT(parse_u64("0xFFff", &v) && v == 0xffff);
	KT_ASSERT(!parse_u64("", &v));
	KT_ASSERT(!parse_u64("0x", &v));
	KT_ASSERT(!parse_u64("12a", &v));
	KT_ASSERT(!parse_u64("-1", &v));
}
