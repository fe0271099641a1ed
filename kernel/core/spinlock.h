/*
 * Locks for the few pieces of state that harts share (the console, the page
 * allocator, the NoC's mailboxes). Holding one disables interrupts on this hart so a
 * trap handler can never wait for a lock its own hart holds. A waiter that does not
 * get the lock quickly sleeps in WFI until the holder hands it on: under QEMU's
 * single-threaded TCG a spinning hart keeps the host CPU for its whole time slice
 * and stalls every other hart, the lock holder included (spinlock.c says why the
 * hand-over is an IPI and not a timer).
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>
#include <stdbool.h>
#include "arch/riscv/csr.h"
#include "kernel/core/hart.h"

/* The lock word: free, held, or held with sleeping waiters (whom its unlock must wake). */
#define SPIN_FREE 0
#define SPIN_HELD 1
#define SPIN_HELD_WAITERS 2

struct spinlock {
	volatile uint32_t locked; /* SPIN_* */
	int owner_cpu; /* -1 when free; shows GDB who holds it */
	const char *name;
	uint64_t sleepers[MOSAIC_MAX_HARTS / 64]; /* cores asleep waiting for it (atomic bits) */
};

#define SPINLOCK_INIT(n) {.locked = SPIN_FREE, .owner_cpu = -1, .name = (n), .sleepers = {0}}

/* Waits for the lock, spinning briefly and then asleep (spinlock.c). `mark_lost`: the caller's
 * swap found the lock held with sleepers and overwrote that mark, which it must put back. */
void spin_lock_slow(struct spinlock *l, bool mark_lost);

/* Takes the lock without touching the interrupt state. A swap, not a compare-and-swap (one
 * instruction on the message path): when it overwrites "held with waiters", the slow path
 * puts the mark back before the holder can miss it for good (spinlock.c). */
static inline void spin_lock_raw(struct spinlock *l)
{
	uint32_t old = __atomic_exchange_n(&l->locked, SPIN_HELD, __ATOMIC_ACQUIRE);
	if (__builtin_expect(old != SPIN_FREE, 0))
		spin_lock_slow(l, old == SPIN_HELD_WAITERS);
}

/* Wakes one core asleep waiting for l (spinlock.c). */
void spin_wake_sleeper(struct spinlock *l);

static inline void spin_unlock_raw(struct spinlock *l)
{
	l->owner_cpu = -1;
	if (__builtin_expect(__atomic_exchange_n(&l->locked, SPIN_FREE, __ATOMIC_ACQ_REL) == SPIN_HELD_WAITERS, 0))
		spin_wake_sleeper(l);
}

/* Takes the lock with this hart's interrupts off; returns the previous interrupt state.
 * The uncontended path is inline: it sits on the message path. */
static inline uint64_t spin_lock(struct spinlock *l)
{
	uint64_t s = irq_save();
	spin_lock_raw(l);
	struct hart *h = this_hart();
	l->owner_cpu = h ? (int)h->cpu : -1;
	return s;
}

static inline void spin_unlock(struct spinlock *l, uint64_t irq_state)
{
	spin_unlock_raw(l);
	irq_restore(irq_state);
}

#endif
