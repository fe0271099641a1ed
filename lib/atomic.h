/* Atomic minimum and maximum of a 64-bit word: the published times that several cores lower or
 * raise at once (virtual time's bounds and floor, a share group's end, a balancer's requests). */
#ifndef LIB_ATOMIC_H
#define LIB_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

/* *p = max(*p, v), atomically. */
static inline void atomic_max_u64(volatile uint64_t *p, uint64_t v)
{
	uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v > old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		;
}

/* *p = min(*p, v), atomically; true if this call lowered it. */
static inline bool atomic_min_u64(volatile uint64_t *p, uint64_t v)
{
	uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v < old)
		if (__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return true;
	return false;
}

#endif
