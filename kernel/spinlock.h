/*
 * Locks for the few pieces of state that harts share (the console, the page
 * allocator). Holding one disables interrupts on this hart so a trap handler can
 * never wait for a lock its own hart holds. A waiter that does not get the lock
 * quickly sleeps in WFI for a few microseconds between attempts: under QEMU's
 * single-threaded TCG a spinning hart keeps the host CPU for its whole time slice
 * and stalls every other hart, the lock holder included.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>
#include <stdbool.h>
#include "arch/riscv/csr.h"
#include "kernel/hart.h"

struct spinlock {
	volatile uint32_t locked;
	int owner_cpu; /* -1 when free; shows GDB who holds it */
	const char *name;
};

#define SPINLOCK_INIT(n) {.locked = 0, .owner_cpu = -1, .name = (n)}

static inline bool spin_trylock_raw(struct spinlock *l)
{
	return __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void spin_unlock_raw(struct spinlock *l)
{
	l->owner_cpu = -1;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* Waits for the lock (spinning briefly, then backing off into WFI). */
void spin_lock_slow(struct spinlock *l);

/* Takes the lock with this hart's interrupts off; returns the previous interrupt state.
 * The uncontended path is inline: it sits on the message path. */
static inline uint64_t spin_lock(struct spinlock *l)
{
	uint64_t s = irq_save();
	if (__builtin_expect(!spin_trylock_raw(l), 0))
		spin_lock_slow(l);
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
