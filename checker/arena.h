/*
 * One memory region holds the whole state of a checked system: every micro-kernel,
 * every message in flight, every timer, the checker's own tables. Why: the
 * exhaustive checker saves and restores a state with one memcpy (pointers stay
 * valid because the region never moves), and the stress test starts each seed
 * with an empty region instead of freeing thousands of objects.
 */
#ifndef CHECKER_ARENA_H
#define CHECKER_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Empties the region; the next allocation is the first. */
void arena_reset(void);
void *arena_alloc(size_t bytes);   /* zeroed; never fails (exits on exhaustion) */
void arena_free(void *p);
/* Room for one more element in the array v of n elements of size bytes and capacity *cap: v itself while
 * n < *cap, else a copy in a new block of twice the capacity (first for an empty one), v freed. */
void *arena_grow(void *v, unsigned n, unsigned *cap, size_t size, unsigned first);
/* Bytes in use from the start of the region (what a snapshot must copy). */
size_t arena_used(void);
/* A snapshot: arena_used() bytes copied out, and back. */
void arena_save(void *buf);
void arena_restore(const void *buf, size_t used);
/* The first allocation after arena_reset: the system's root object. */
void *arena_root(void);

#endif
