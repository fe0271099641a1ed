/* ktest suite "console": lines printed by many harts at once never interleave (checked by the host test too). */
#include "kernel/core/ktest.h"
#include "kernel/console/shell.h"
#include "kernel/core/hart.h"
#include "tests/ktest/kt_util.h"
#include "kernel/console/console.h"
#include "lib/format.h"
#include "lib/string.h"

#define LINES_PER_HART_MAX 8
#define LINE_LEN 69
/* as many lines as the kernel log can hold, so the check sees every one */
#define LINES_PER_HART (hart_count * LINES_PER_HART_MAX * (LINE_LEN + 1) < KLOG_SIZE ? LINES_PER_HART_MAX : (int)(KLOG_SIZE / 2 / (LINE_LEN + 1) / hart_count))
#define LINE_FMT "console-check cpu=%03u line=%d abcdefghijklmnopqrstuvwxyz0123456789 end"

static void print_lines(void *arg)
{
	(void)arg;
	for (int i = 0; i < LINES_PER_HART; i++)
		kprintf(LINE_FMT "\n", this_cpu(), i);
}

KTEST(console, parallel_lines_stay_whole)
{
	uint64_t start = klog_written;
	KT_ASSERT(kt_on_every_hart(print_lines));
	/* every line in the log since start must be one whole console-check line */
	KT_ASSERT(klog_written - start < KLOG_SIZE);
	unsigned lines = 0;
	char line[128];
	unsigned n = 0;
	for (uint64_t i = start; i < klog_written; i++) {
		char c = klog_buf[i % KLOG_SIZE];
		if (c != '\n') {
			KT_ASSERT(n < sizeof line - 1);
			line[n++] = c;
			continue;
		}
		line[n] = 0;
		/* the line must be exactly what one hart printed: parse its cpu and number back */
		unsigned cpu = (unsigned)((line[18] - '0') * 100 + (line[19] - '0') * 10 + (line[20] - '0'));
		int num = line[27] - '0';
		char want[128];
		snprintf(want, sizeof want, LINE_FMT, cpu, num);
		KT_ASSERT(strcmp(line, want) == 0);
		KT_ASSERT(cpu < hart_count && num < LINES_PER_HART);
		KT_ASSERT(n == LINE_LEN);
		lines++;
		n = 0;
	}
	KT_ASSERT_EQ(lines, hart_count * (unsigned)LINES_PER_HART);
}

/* Two commands of one name would leave the second unreachable (the shell runs the first it finds):
 * bench_coll once had a namesake. */
KTEST(console, shell_command_names_are_unique)
{
	extern const struct shell_cmd __shellcmds_start[], __shellcmds_end[];
	for (const struct shell_cmd *a = __shellcmds_start; a < __shellcmds_end; a++)
		for (const struct shell_cmd *b = a + 1; b < __shellcmds_end; b++)
			if (strcmp(a->name, b->name) == 0) {
				ktest_fail(kt, __FILE__, __LINE__, "two shell commands are called '%s'", a->name);
				return;
			}
}
