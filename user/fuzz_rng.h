/*
 * fuzz: the random numbers. splitmix64 keeps its whole state in one word, so a seed
 * names a run. Each call takes a fixed block of draws whatever the kernel answered
 * before, so the stream of calls does not drift with results that depend on timing
 * (what other tasks sent, how many cores an invade got).
 */
#ifndef MOSAIC_FUZZ_RNG_H
#define MOSAIC_FUZZ_RNG_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define DRAWS 32 /* per call: enough for six arguments and their classes */

struct draws {
	uint64_t w[DRAWS];
	unsigned i;
};

static inline void draws_fill(struct draws *d, uint64_t *state)
{
	for (unsigned k = 0; k < DRAWS; k++)
		d->w[k] = splitmix64(state);
	d->i = 0;
}

static inline uint64_t draw(struct draws *d) { return d->w[d->i++ % DRAWS]; }

/* A number in [0, n); 0 when n is 0. */
static inline uint64_t draw_below(struct draws *d, uint64_t n) { return n ? draw(d) % n : 0; }

/* True with probability pct/100. */
static inline int draw_chance(struct draws *d, unsigned pct) { return draw(d) % 100 < pct; }

#endif
