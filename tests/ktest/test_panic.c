/*
 * Standalone ktest suites "panic", "panic_assert", "panic_bad_tp" and "panic_stack": they end the run on purpose, so
 * they are not part of "all". The host test checks the report, the backtrace and the
 * exit status (EXIT_PANIC).
 */
#include "kernel/core/ktest.h"
#include "kernel/core/panic.h"
#include "kernel/core/platform.h"
#include "kernel/core/hart.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/stack_guard.h"
#include "kernel/task/kthread.h"
#include "arch/riscv/csr.h"

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

/*
 * "panic_bad_tp": a fault while tp holds garbage (what the uctx_enter window once left
 * there). The panic path must report it and exit instead of faulting again on tp and
 * recursing down through its stack into the next hart's.
 */
KTEST_STANDALONE(panic_bad_tp, fault_with_corrupt_tp)
{
	irq_disable();
	__asm__ volatile("li tp, %0" ::"i"(0x8000000000000001ULL) : "memory");
	call_through((volatile uint64_t *)(plat.memory.base + plat.memory.size));
	KT_ASSERT(!"the fault did not trap");
}

/* Keeps a 256-byte frame per level, written in full, until the frame lies below floor. */
__attribute__((noinline)) static unsigned ktest_deep_recursion(uintptr_t floor, unsigned depth)
{
	volatile uint8_t frame[256];
	for (unsigned i = 0; i < sizeof frame; i++)
		frame[i] = (uint8_t)(depth + i);
	if ((uintptr_t)frame > floor)
		return ktest_deep_recursion(floor, depth + 1) + frame[0];
	return frame[0];
}

struct overflow_plan {
	uintptr_t floor;
};

static void overflow_then_trap(void *arg)
{
	const struct overflow_plan *plan = arg;
	ktest_deep_recursion(plan->floor, 0);
	__asm__ volatile("ebreak"); /* the next trap must report the overflow, not the breakpoint */
}

/*
 * "panic_stack": a real overflow, on a stack the test owns so that the page it overruns
 * is the test's too: the upper of two pages becomes this hart's kernel stack (with its
 * guard word), and the recursion runs 512 bytes past its base into the lower page.
 */
KTEST_STANDALONE(panic_stack, overflow_is_named)
{
	uint8_t *pages = page_alloc(2);
	KT_ASSERT(pages);
	struct hart *h = this_hart();
	h->kstack_base = pages + PAGE_SIZE;
	h->kstack_top = (uint64_t)(pages + 2 * PAGE_SIZE);
	stack_guard_set(h->kstack_base);
	struct overflow_plan plan = {.floor = (uintptr_t)h->kstack_base - 512};
	call_on_stack(pages + 2 * PAGE_SIZE, overflow_then_trap, &plan);
	KT_ASSERT(!"the overflow was not reported");
}
