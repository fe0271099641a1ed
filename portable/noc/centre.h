/* The centre of a set of tiles on a W x H mesh under XY routing: where a collective's tree is
 * rooted (kernel/msg/coll.c) and where the allocation protocol's sequencer runs
 * (portable/alloc/mk.c). Host-portable: the kernel, sim/ and checker/ build it. */
#ifndef PORTABLE_NOC_CENTRE_H
#define PORTABLE_NOC_CENTRE_H

#include <stdint.h>

/* A tile: its coordinates, and the id that breaks ties (a core id). */
struct noc_point {
	uint16_t x, y, id;
};

/* The scratch noc_centre needs: 32-bit counters per column and row, twice. */
#define NOC_CENTRE_SCRATCH(width, height) (2 * ((width) + (height)))

/*
 * The index of the point that minimises the largest XY distance to every other point
 * (eccentricity), then the sum of the distances, then the id; n >= 1, every x < width and
 * y < height. scratch holds NOC_CENTRE_SCRATCH(width, height) counters. O(n + width^2 +
 * height^2): in coordinates s = x + y and d = x - y the XY distance is the larger of |s - s'|
 * and |d - d'|, so the eccentricity follows from the four extremes of s and d, and the sum
 * separates into columns and rows, each summed once per coordinate.
 */
unsigned noc_centre(const struct noc_point *p, unsigned n, unsigned width, unsigned height, uint32_t *scratch);

#endif
