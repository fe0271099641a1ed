/*
 * Helpers several ktest files share: running one function on every core, and
 * skipping a test whose machine is not there.
 */
#ifndef TESTS_KTEST_KT_UTIL_H
#define TESTS_KTEST_KT_UTIL_H

#include <stdbool.h>
#include "kernel/console/console.h"
#include "kernel/core/hart.h"

/* Runs fn(0) on every core, this one last, and waits until the others are done. False, at once, if
 * another core does not take the call (not online, or busy). */
static inline bool kt_on_every_hart(hart_fn fn)
{
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != this_cpu() && !hart_call(cpu, fn, 0))
			return false;
	fn(0);
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != this_cpu())
			hart_call_wait(cpu);
	return true;
}

/* Ends the test (it passes, nothing measured) with the line "ktest:   <why>" unless cond holds. */
#define KT_SKIP_UNLESS(cond, why)                       \
	do {                                            \
		if (!(cond)) {                          \
			kprintf("ktest:   %s\n", why); \
			return;                         \
		}                                       \
	} while (0)

#endif
