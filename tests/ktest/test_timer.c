/* ktest suite "timer": sleeping in WFI wakes on the timer interrupt, on time, on every hart. */
#include "kernel/core/ktest.h"
#include "kernel/core/hart.h"
#include "kernel/console/console.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"

/* Upper bound on lateness: generous, because without -icount guest time follows the host,
 * which also runs up to 127 other harts on two cores. */
#define SLEEP_US 10000
#define LATE_US_MAX 20000

struct sleep_result {
	uint64_t slept_us;
	uint64_t irqs;
};
static struct sleep_result results[MOSAIC_MAX_HARTS];

static void sleep_once(void *arg)
{
	struct sleep_result *r = arg;
	uint64_t irqs = this_hart()->timer_irqs;
	uint64_t t0 = timer_now();
	timer_sleep_us(SLEEP_US);
	r->slept_us = timer_ticks_to_us(timer_now() - t0);
	r->irqs = this_hart()->timer_irqs - irqs;
}

KTEST(timer, sleep_10ms_on_boot_hart)
{
	struct sleep_result r;
	sleep_once(&r);
	kprintf("ktest:   boot hart slept %lu us for %d us (%s timer)\n", r.slept_us, SLEEP_US,
		timer_uses_sstc() ? "sstc" : "sbi");
	KT_ASSERT(r.slept_us >= SLEEP_US);
	KT_ASSERT(r.slept_us < SLEEP_US + LATE_US_MAX);
	KT_ASSERT(r.irqs >= 1); /* woken by the interrupt, not by spinning */
}

KTEST(timer, sleep_10ms_on_every_hart_at_once)
{
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != this_cpu())
			KT_ASSERT(hart_call(cpu, sleep_once, &results[cpu]));
	sleep_once(&results[this_cpu()]);
	uint64_t worst = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		if (cpu != this_cpu())
			hart_call_wait(cpu);
		KT_ASSERT(results[cpu].slept_us >= SLEEP_US);
		KT_ASSERT(results[cpu].slept_us < SLEEP_US + LATE_US_MAX);
		KT_ASSERT(results[cpu].irqs >= 1);
		if (results[cpu].slept_us > worst)
			worst = results[cpu].slept_us;
	}
	kprintf("ktest:   %u harts slept %d us, the latest woke after %lu us\n", hart_count, SLEEP_US, worst);
}

KTEST(timer, deadline_in_the_past_returns_at_once)
{
	uint64_t t0 = timer_now();
	timer_sleep_until(t0 > 10 ? t0 - 10 : 0);
	KT_ASSERT(timer_ticks_to_us(timer_now() - t0) < LATE_US_MAX);
}

/*
 * QEMU raises the timer interrupt from a host timer that runs in another host thread than the
 * hart, so a deadline that expires just as the hart writes a new one can leave the interrupt
 * pending under the new value (seen without -icount under host load). timer_arm skips a write
 * of the value it wrote last, and only a write takes the interrupt back: when nothing writes, the
 * interrupt comes back for ever (an oversubscribed job beside another boot then hangs;
 * docs/time.md). The race itself is too narrow to provoke here, so each test
 * builds the state it leaves, with the kernel's copy of stimecmp at `believed` while the
 * hardware holds the interrupt, and checks that `take_back` (with interrupts masked) clears it.
 * Each fails on a kernel that writes nothing when it finds one pending; on Sstc the handler's
 * path and timer_arm's check overlap (the handler's own write is what the SBI's timer relies on).
 */
static bool leftover_taken_back(uint64_t believed, void (*take_back)(uint64_t), uint64_t arg, bool *was_pending)
{
	uint64_t s = irq_save();
	uint64_t saved = this_hart()->timer_deadline;
	timer_arm(believed);
	__asm__ volatile("csrw " CSR_STIMECMP ", %0" ::"r"(timer_now())); /* behind the kernel's back */
	*was_pending = csr_read(sip) & SIP_STIP;
	take_back(arg);
	bool still = csr_read(sip) & SIP_STIP;
	__asm__ volatile("csrw " CSR_STIMECMP ", %0" ::"r"(UINT64_MAX)); /* whatever take_back did */
	this_hart()->timer_written = UINT64_MAX;
	timer_arm(saved);
	irq_restore(s);
	return !still;
}

static void by_the_handler(uint64_t unused) { (void)unused; timer_handle_irq(); }
static void by_a_rearm(uint64_t deadline) { timer_arm(deadline); }
static void by_a_wait_without_deadline(uint64_t unused) { (void)unused; timer_keep(); }

#define NEEDS_SSTC()                                                                         \
	do {                                                                                 \
		if (!timer_uses_sstc()) {                                                    \
			kprintf("ktest:   no Sstc: the SBI's timer is written on every arm\n"); \
			return;                                                              \
		}                                                                            \
	} while (0)

KTEST(timer, the_handler_takes_back_an_interrupt_the_hardware_left_pending)
{
	NEEDS_SSTC();
	bool pending;
	KT_ASSERT(leftover_taken_back(UINT64_MAX, by_the_handler, 0, &pending));
	KT_ASSERT(pending);
}

/* A wait with interrupts masked never lets the handler in: its re-arm of a deadline still ahead
 * must take the interrupt back, or its WFI returns at once until the deadline comes. */
KTEST(timer, a_masked_wait_takes_back_an_interrupt_the_hardware_left_pending)
{
	NEEDS_SSTC();
	bool pending;
	uint64_t ahead = timer_now() + timer_us_to_ticks(1000000);
	KT_ASSERT(leftover_taken_back(ahead, by_a_rearm, ahead, &pending));
	KT_ASSERT(pending);
}

/* The same for a masked wait without a deadline of its own, which keeps the hardware's. */
KTEST(timer, a_masked_wait_without_deadline_takes_back_an_interrupt_the_hardware_left_pending)
{
	NEEDS_SSTC();
	bool pending;
	KT_ASSERT(leftover_taken_back(UINT64_MAX, by_a_wait_without_deadline, 0, &pending));
	KT_ASSERT(pending);
}
