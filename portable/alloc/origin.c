/*
 * What a micro-kernel remembers per origin of propagated messages (the copies it
 * has seen, the adaptive tree, an echo wave in passing): an open-addressing table
 * keyed by the origin, holding only the origins this node has heard from. The
 * kernel's 128 micro-kernels could afford a row per origin; a simulated 128 x 128
 * mesh could not (16,384 rows per node), while its nodes hear from at most the
 * homes of the jobs in flight.
 */
#include "portable/alloc/proto_env.h"

/* Fibonacci hashing takes the product's HIGH bits: its low bits depend only on the origin's low
 * bits, and the homes of a scenario are often spaced by a power of two (simul: i * D / N), which
 * would all fall into one slot. cap is a power of two, 8 or more. */
static unsigned slot_of(unsigned origin, unsigned cap)
{
	return (uint32_t)(origin * 2654435761u) >> (32 - lowest_bit(cap));
}

static void put(struct origin_state *table, unsigned cap, const struct origin_state *o)
{
	unsigned i = slot_of(o->origin, cap);
	while (table[i].used)
		i = (i + 1) & (cap - 1);
	table[i] = *o;
}

/* Doubles the table (kept at most half full). Pointers into the old table die here. */
static void grow(struct mk *m)
{
	unsigned cap = m->origins_cap ? m->origins_cap * 2 : 8;
	struct origin_state *t = penv_alloc(cap * sizeof *t);
	if (!t)
		penv_panic(m, "alloc: out of memory for %u origins", cap);
	__builtin_memset(t, 0, cap * sizeof *t);
	for (unsigned i = 0; i < m->origins_cap; i++)
		if (m->origins[i].used)
			put(t, cap, &m->origins[i]);
	penv_free(m->origins);
	m->origins = t;
	m->origins_cap = cap;
}

void origins_init(struct mk *m)
{
	if (!m->origins_cap)
		grow(m);
}

/*
 * The record of `origin`, made on first use. A pointer it returns stays valid until the
 * next call for an origin this node has not heard from yet (that one may grow the table):
 * the propagation code holds one origin's record at a time.
 */
struct origin_state *origin_get(struct mk *m, unsigned origin)
{
	if (m->origins_cap) {
		unsigned i = slot_of(origin, m->origins_cap);
		while (m->origins[i].used) {
			if (m->origins[i].origin == origin)
				return &m->origins[i];
			i = (i + 1) & (m->origins_cap - 1);
		}
	}
	if (2 * (m->norigins + 1) > m->origins_cap)
		grow(m);
	struct origin_state o = {.origin = (uint16_t)origin, .used = true, .tree = {.parent = 0xffff}};
	put(m->origins, m->origins_cap, &o);
	m->norigins++;
	return origin_get(m, origin);
}
