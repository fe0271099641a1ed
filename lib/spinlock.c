/* Spinlocks that record their owner so a deadlock can be seen from GDB. */
#include "lib/spinlock.h"
#include "kernel/hart.h"

uint64_t spin_lock(struct spinlock *l)
{
	uint64_t s = irq_save();
	while (!spin_trylock_raw(l)) {
		while (l->locked)
			__asm__ volatile("" ::: "memory");
	}
	l->owner_cpu = this_hart() ? (int)this_hart()->cpu : -1;
	return s;
}

void spin_unlock(struct spinlock *l, uint64_t irq_state)
{
	spin_unlock_raw(l);
	irq_restore(irq_state);
}
