/*
 * The geometry of the emulated 2D mesh: W x H tiles, one hart per tile.
 * Core id c sits at tile (c % W, c / W) and runs on hart plat.hartids[c]:
 * mesh_tiles[] is the one table that maps tile <-> core id <-> hart id.
 * Routing is XY dimension-ordered: along x first, then along y.
 */
#ifndef DRIVERS_NOC_MESH_H
#define DRIVERS_NOC_MESH_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"
#include "portable/noc/timing.h"

/* The timing model's directions (portable/noc/timing.h): one numbering of links for both. */
enum mesh_dir {
	MESH_EAST = NOC_EAST,
	MESH_WEST = NOC_WEST,
	MESH_NORTH = NOC_NORTH,
	MESH_SOUTH = NOC_SOUTH,
	MESH_DIRS = NOC_DIRS
};

struct mesh_tile {
	uint16_t x, y;
	uint32_t hartid;
};

struct mesh {
	unsigned w, h;
	unsigned cores; /* w * h == hart_count */
};

extern struct mesh mesh;
extern struct mesh_tile mesh_tiles[MOSAIC_MAX_HARTS];

/* Picks the geometry: from "WxH" if spec is non-empty, else the most square W x H with W >= H.
 * Returns NULL on success or a message that says why the spec does not fit. */
const char *mesh_init(const char *spec, unsigned cores, char *err, unsigned errlen);
/* Most square factorisation of n with w >= h. */
void mesh_default_shape(unsigned n, unsigned *w, unsigned *h);

static inline unsigned mesh_core_at(unsigned x, unsigned y) { return y * mesh.w + x; }
/* From the tile table, not noc_timing_hops: virtual time's lookahead asks for every core on
 * every look, and the send path for every message; inline, since both are hot. */
static inline unsigned mesh_hops(unsigned src, unsigned dst)
{
	int dx = (int)mesh_tiles[src].x - (int)mesh_tiles[dst].x, dy = (int)mesh_tiles[src].y - (int)mesh_tiles[dst].y;
	return (unsigned)(dx < 0 ? -dx : dx) + (unsigned)(dy < 0 ? -dy : dy);
}

/* A directed link: leaving tile `from` in direction dir. Index: from * MESH_DIRS + dir. */
static inline unsigned mesh_link(unsigned from, enum mesh_dir dir) { return from * MESH_DIRS + dir; }
#define MESH_MAX_LINKS (MOSAIC_MAX_HARTS * MESH_DIRS)

/* Fills links[] with the directed links of the XY route src -> dst; returns the hop count. */
unsigned mesh_route(unsigned src, unsigned dst, unsigned *links, unsigned max);
/* The tile a link leads to. */
unsigned mesh_link_target(unsigned link);
const char *mesh_dir_name(enum mesh_dir d);

/* The core nearest the centre of the given cores (ties: lowest id); used as a tree root. */
unsigned mesh_centre_of(const uint16_t *cores, unsigned n);

#endif
