/* Small statistics for the in-kernel benchmarks. */
#ifndef LIB_STATS_H
#define LIB_STATS_H

#include <stdint.h>

/* Sorts v[0..n) in place (insertion sort: n is a handful of repetitions) and returns the median. */
static inline uint64_t median_u64(uint64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : 0;
}

#endif
