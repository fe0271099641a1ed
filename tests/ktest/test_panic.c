/*
 * Standalone ktest suites "panic" and "panic_assert": they end the run on purpose, so
 * they are not part of "all". The host test checks the report, the backtrace and the
 * exit status (EXIT_PANIC).
 */
#include "kernel/ktest.h"
#include "kernel/panic.h"
#include "kernel/platform.h"

/* Stores to the first word past the end of memory: nothing is mapped there, so the store faults. */
__attribute__((noinline)) void ktest_deliberate_fault(volatile uint64_t *where)
{
	*where = 0xdead;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void call_through(volatile uint64_t *where)
{
	ktest_deliberate_fault(where);
	__asm__ volatile("nop");
}

KTEST_STANDALONE(panic, store_fault)
{
	call_through((volatile uint64_t *)(plat.memory.base + plat.memory.size));
	KT_ASSERT(!"the fault did not trap");
}

__attribute__((noinline)) void ktest_failing_assertion(int x)
{
	ASSERT(x == 42);
}

KTEST_STANDALONE(panic_assert, assertion)
{
	ktest_failing_assertion(7);
	KT_ASSERT(!"the assertion did not panic");
}
