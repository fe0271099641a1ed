/* ktest suite "spinlock": a lock every hart contends for while its holder sleeps (kernel/core/spinlock.c). */
#include "kernel/core/ktest.h"
#include "kernel/core/hart.h"
#include "kernel/core/spinlock.h"
#include "kernel/console/console.h"
#include "drivers/timer.h"

/* A spinlock that every hart wants while its holder sleeps: the waiters go to sleep on it
 * (kernel/core/spinlock.c) and each unlock wakes the next. Every update must be made, the lock
 * must end free with no sleeper recorded, and some waiter must have slept. A wake-up lost
 * would not fail it, only slow it: the sleeper's 20 ms safety timer ends its sleep. */
#define HAMMER_ROUNDS 200
static struct spinlock hammered = SPINLOCK_INIT("ktest-hammered");
static volatile uint64_t hammered_count;

static void hammer(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < HAMMER_ROUNDS; i++) {
		uint64_t s = spin_lock(&hammered);
		uint64_t v = hammered_count;
		for (volatile unsigned spin = 0; spin < 50; spin++)
			; /* a critical section long enough for the emulator to switch harts inside it */
		hammered_count = v + 1;
		spin_unlock(&hammered, s);
	}
}

static bool someone_sleeps_on(const struct spinlock *l)
{
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		if (__atomic_load_n(&l->sleepers[w], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

KTEST(spinlock, contended_by_every_hart_loses_no_update_and_ends_free)
{
	uint64_t sleeps_before = 0, sleeps_after = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		sleeps_before += harts[cpu].lock_sleeps;
	hammered_count = 0;
	uint64_t s = spin_lock(&hammered);
	unsigned started = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != this_cpu() && hart_call(cpu, hammer, 0))
			started++;
	/* holding it until a hammer sleeps on it (every hammer that reaches it does), for at most 2 s:
	 * a short fixed hold is too short when the emulator runs the callees late (no sleep at all),
	 * and a lost wake-up still shows as no sleep */
	uint64_t give_up = timer_now() + timer_us_to_ticks(2000000);
	while (!someone_sleeps_on(&hammered) && timer_now() < give_up)
		timer_sleep_us(1000);
	spin_unlock(&hammered, s);
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != this_cpu())
			hart_call_wait(cpu);
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		sleeps_after += harts[cpu].lock_sleeps;
	KT_ASSERT_EQ(hammered_count, (uint64_t)started * HAMMER_ROUNDS);
	KT_ASSERT_EQ(hammered.locked, SPIN_FREE);
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		KT_ASSERT_EQ(hammered.sleepers[w], 0);
	if (started)
		KT_ASSERT(sleeps_after > sleeps_before);
	kprintf("ktest:   %u harts, %lu updates, %lu sleeps on the lock\n", started, (unsigned long)hammered_count,
		(unsigned long)(sleeps_after - sleeps_before));
}
