/* ktest suite "bootargs": the key=value parser, on a table of its own. */
#include "kernel/core/ktest.h"
#include "kernel/core/bootargs.h"
#include "lib/string.h"

static uint64_t t_num, t_flag;
static char t_str[BOOTARG_STR_MAX];
static const struct bootarg table[] = {
	{.key = "num", .type = BOOTARG_TYPE_U64, .value = &t_num, .min = 1, .max = 100, .help = ""},
	{.key = "flag", .type = BOOTARG_TYPE_U64, .value = &t_flag, .min = 0, .max = 1, .help = ""},
	{.key = "str", .type = BOOTARG_TYPE_STR, .value = t_str, .help = ""},
};

static int nerrors;
static char last_error[160];
static void collect(const char *msg)
{
	nerrors++;
	strlcpy(last_error, msg, sizeof last_error);
}

static int parse(const char *line)
{
	t_num = 0;
	t_flag = 0;
	t_str[0] = 0;
	nerrors = 0;
	last_error[0] = 0;
	return bootargs_parse(line, table, sizeof table / sizeof table[0], collect);
}

KTEST(bootargs, values)
{
	KT_ASSERT_EQ(parse("num=42 flag str=hello"), 0);
	KT_ASSERT_EQ(t_num, 42);
	KT_ASSERT_EQ(t_flag, 1);
	KT_ASSERT(strcmp(t_str, "hello") == 0);
	KT_ASSERT_EQ(parse("  num=0x10\tstr=\"two words;x=1\"  "), 0);
	KT_ASSERT_EQ(t_num, 16);
	KT_ASSERT(strcmp(t_str, "two words;x=1") == 0);
	KT_ASSERT_EQ(parse(""), 0);
}

KTEST(bootargs, unknown_key_reported)
{
	KT_ASSERT_EQ(parse("num=1 bogus=3 str=x"), 1);
	KT_ASSERT(strstr(last_error, "unknown key 'bogus'"));
	/* the known keys around it still take effect */
	KT_ASSERT_EQ(t_num, 1);
	KT_ASSERT(strcmp(t_str, "x") == 0);
	KT_ASSERT_EQ(parse("numb=1"), 1); /* no prefix matching */
}

KTEST(bootargs, bad_values_reported)
{
	KT_ASSERT_EQ(parse("num=abc"), 1);
	KT_ASSERT(strstr(last_error, "needs a number"));
	KT_ASSERT_EQ(parse("num=101"), 1);
	KT_ASSERT(strstr(last_error, "out of range"));
	KT_ASSERT_EQ(parse("num=0"), 1);
	KT_ASSERT_EQ(parse("num=99999999999999999999999"), 1);
	KT_ASSERT_EQ(parse("num="), 1);
	KT_ASSERT_EQ(parse("str"), 1);
	KT_ASSERT(strstr(last_error, "needs a value"));
	KT_ASSERT_EQ(parse("str=\"open"), 1);
	KT_ASSERT(strstr(last_error, "unterminated"));
}

KTEST(bootargs, too_long_value_reported)
{
	static char line[BOOTARG_STR_MAX + 16];
	memcpy(line, "str=", 4);
	memset(line + 4, 'a', BOOTARG_STR_MAX);
	line[4 + BOOTARG_STR_MAX] = 0;
	KT_ASSERT_EQ(parse(line), 1);
	KT_ASSERT(strstr(last_error, "too long"));
	KT_ASSERT_EQ(t_str[0], 0); /* never silently truncated */
}

KTEST(bootargs, kernel_table_has_core_keys)
{
	size_t n;
	const struct bootarg *t = bootargs_table(&n);
	const char *want[] = {"ktest", "cmd", "shell", "boot_timeout_ms"};
	for (unsigned w = 0; w < sizeof want / sizeof want[0]; w++) {
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found |= strcmp(t[i].key, want[w]) == 0;
		KT_ASSERT(found);
	}
}
