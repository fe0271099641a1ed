/*
 * Locks that record their owner (visible from GDB) and put their waiters to sleep.
 *
 * Why a waiter sleeps until the holder wakes it: under QEMU's single-threaded TCG only one
 * hart runs at a time, so a waiter that finds the lock held always finds its holder
 * descheduled, and the holder runs again only after the others have had their turn. A waiter
 * that slept a short time on its timer and tried again would, each time the timer fired,
 * preempt whichever hart was running then (QEMU moves on to the next hart when an interrupt
 * is raised from its timer thread), sometimes inside another lock. So a waiter marks the lock
 * "held with waiters", records itself among its sleepers and sleeps in WFI; the unlock that
 * sees the mark wakes one sleeper with an IPI, which QEMU delivers without preempting anyone.
 * It is the classic three-state futex mutex: a woken waiter takes the lock with the mark set
 * again, so its own unlock wakes the next sleeper (docs/time.md, "Locks", with the per-link
 * NoC locks that keep such waits rare).
 */
#include "kernel/core/spinlock.h"
#include "kernel/core/hart.h"
#include "kernel/core/platform.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"
#include "lib/bits.h"

#define SPIN_TRIES 64
/* A sleeping waiter also wakes on its timer after this long: a safety net only, since the
 * unlock wakes it; the timer is put back whenever the hand-over comes first. Long, because
 * under single-threaded TCG a sleep lasts a round of the other harts: a short one (1 ms)
 * expires on nearly every sleep with many harts, and each expiry makes QEMU preempt whichever
 * hart runs, lock holders too; longer only delays a lost wake-up (docs/time.md, "Locks"). */
#define SLEEP_SAFETY_US 20000

/* Sleeps with interrupts still off until an interrupt is pending: the holder's wake-up IPI,
 * or the safety timer (the hart's own deadline is put back for whoever waits on it). */
static void sleep_for_hand_over(struct hart *h)
{
	uint64_t saved = h->timer_deadline;
	uint64_t ticks = timer_us_to_ticks(SLEEP_SAFETY_US);
	timer_arm(timer_now() + (ticks ? ticks : 1));
	h->wfi_count++;
	h->lock_sleeps++;
	wfi();
	timer_arm(saved);
}

void spin_wake_sleeper(struct spinlock *l)
{
	/* the first sleeper after this core (so that the hand-overs go round), else the first */
	unsigned self = this_hart() ? this_cpu() : MOSAIC_MAX_HARTS - 1, words = MOSAIC_MAX_HARTS / 64;
	uint64_t after_self = self % 64 == 63 ? 0 : ~0UL << (self % 64 + 1);
	for (unsigned k = 0; k <= words; k++) { /* this core's word twice: after it first, all of it last */
		unsigned w = (self / 64 + k) % words;
		uint64_t bits = __atomic_load_n(&l->sleepers[w], __ATOMIC_ACQUIRE) & (k == 0 ? after_self : ~0UL);
		if (bits) {
			ipi_send(w * 64 + lowest_bit(bits), IPI_WAKE);
			return;
		}
	}
}

/*
 * The sleeping half of spin_lock_slow. Each round records this core as a sleeper and then
 * marks the lock "held with waiters" with a swap: if the swap found the lock free, it is ours
 * (still marked, so our unlock wakes the next sleeper); otherwise the unlock that clears the
 * mark comes after our record and wakes a sleeper with an IPI, which ends our WFI even if it
 * came before it. An IPI already pending would end every WFI at once, so it is cleared before
 * the record and raised again once we hold the lock: whatever it was for is handled then.
 */
static void sleep_until_held(struct spinlock *l, struct hart *h)
{
	unsigned me = h->cpu;
	uint64_t bit = 1UL << (me % 64);
	bool ipi_was_pending = false;
	for (;;) {
		if (csr_read_clear(sip, SIE_SSIE) & SIE_SSIE)
			ipi_was_pending = true;
		__atomic_fetch_or(&l->sleepers[me / 64], bit, __ATOMIC_SEQ_CST);
		if (__atomic_exchange_n(&l->locked, SPIN_HELD_WAITERS, __ATOMIC_ACQ_REL) == SPIN_FREE)
			break;
		sleep_for_hand_over(h);
	}
	__atomic_fetch_and(&l->sleepers[me / 64], ~bit, __ATOMIC_RELEASE);
	if (ipi_was_pending)
		csr_set(sip, SIE_SSIE);
}

/*
 * Spins up to SPIN_TRIES reads, then sleeps. Once a swap has overwritten the "held with
 * waiters" mark (ours at the start, or one while spinning), every further try puts the mark
 * back (a swap to SPIN_HELD_WAITERS): an unlock in between saw no mark and woke nobody, so the
 * lock must leave our hands marked for the sleepers to be woken by our unlock. Under virtual
 * time, waiting for a lock costs no virtual time: how long depends on when the emulator ran
 * the holder, not on the simulated machine (vtime_hold, kernel/time/vtime.h).
 */
void spin_lock_slow(struct spinlock *l, bool mark_lost)
{
	uint64_t held = vtime_hold_begin();
	struct hart *h = this_hart();
	bool can_sleep = h && plat.timebase_hz; /* not before this hart's timer and IPIs work */
	for (unsigned tries = 0;; tries++) {
		if (can_sleep && (mark_lost || tries >= SPIN_TRIES)) {
			sleep_until_held(l, h);
			break;
		}
		if (l->locked != SPIN_FREE) {
			__asm__ volatile("" ::: "memory");
			continue;
		}
		uint32_t old = __atomic_exchange_n(&l->locked, mark_lost ? SPIN_HELD_WAITERS : SPIN_HELD, __ATOMIC_ACQUIRE);
		if (old == SPIN_FREE)
			break;
		if (old == SPIN_HELD_WAITERS)
			mark_lost = true;
	}
	vtime_hold_end(held);
}
