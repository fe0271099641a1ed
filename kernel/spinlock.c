/* Locks that record their owner (visible from GDB) and back off into WFI. */
#include "kernel/spinlock.h"
#include "kernel/hart.h"
#include "kernel/platform.h"
#include "drivers/timer.h"
#include "kernel/vtime.h"

#define SPIN_TRIES 64
#define BACKOFF_US 5

/* Sleeps a few microseconds with interrupts still off: WFI wakes on the pending timer
 * even so, and the hart's own deadline is put back for whoever waits on it. */
static void backoff(void)
{
	struct hart *h = this_hart();
	if (!h || !plat.timebase_hz)
		return;
	uint64_t saved = h->timer_deadline;
	uint64_t ticks = timer_us_to_ticks(BACKOFF_US);
	timer_arm(timer_now() + (ticks ? ticks : 1));
	h->wfi_count++;
	wfi();
	timer_arm(saved);
}

/* Under virtual time, waiting for a lock costs no virtual time: how long depends on when
 * the emulator ran the holder, not on the simulated machine (vtime_hold, kernel/vtime.h). */
void spin_lock_slow(struct spinlock *l)
{
	uint64_t held = vtime_hold_begin();
	for (unsigned tries = 0; !spin_trylock_raw(l);) {
		while (l->locked) {
			if (++tries < SPIN_TRIES)
				__asm__ volatile("" ::: "memory");
			else
				backoff();
		}
	}
	vtime_hold_end(held);
}
