/* Mesh geometry and XY routing; pure functions over the table built at boot. */
#include "drivers/noc/mesh.h"
#include "portable/noc/centre.h"
#include "kernel/core/platform.h"
#include "lib/string.h"
#include "lib/format.h"

struct mesh mesh;
struct mesh_tile mesh_tiles[MOSAIC_MAX_HARTS];

void mesh_default_shape(unsigned n, unsigned *w, unsigned *h)
{
	unsigned best = 1;
	for (unsigned d = 1; d * d <= n; d++)
		if (n % d == 0)
			best = d;
	*h = best;
	*w = n / best;
}

static bool parse_shape(const char *spec, unsigned *w, unsigned *h)
{
	const char *x = strchr(spec, 'x');
	uint64_t a, b;
	if (!x || !parse_u64_n(spec, (size_t)(x - spec), &a) || !parse_u64(x + 1, &b) || a == 0 || b == 0 ||
	    a > MOSAIC_MAX_HARTS || b > MOSAIC_MAX_HARTS)
		return false;
	*w = (unsigned)a;
	*h = (unsigned)b;
	return true;
}

const char *mesh_init(const char *spec, unsigned cores, char *err, unsigned errlen)
{
	unsigned w, h;
	if (spec && spec[0]) {
		if (!parse_shape(spec, &w, &h)) {
			snprintf(err, errlen, "mesh: '%s' is not WxH (for example mesh=6x6)", spec);
			return err;
		}
		if (w * h != cores) {
			unsigned dw, dh;
			mesh_default_shape(cores, &dw, &dh);
			snprintf(err, errlen, "mesh: %ux%u has %u tiles but there are %u harts (try mesh=%ux%u, or HARTS=%u)",
				 w, h, w * h, cores, dw, dh, w * h);
			return err;
		}
	} else {
		mesh_default_shape(cores, &w, &h);
	}
	mesh.w = w;
	mesh.h = h;
	mesh.cores = cores;
	for (unsigned c = 0; c < cores; c++)
		mesh_tiles[c] = (struct mesh_tile){.x = (uint16_t)(c % w), .y = (uint16_t)(c / w), .hartid = plat.hartids[c]};
	return 0;
}

/* Core c sits at tile (c % w, c / w), so the timing model's pure route is the mesh's. */
unsigned mesh_route(unsigned src, unsigned dst, unsigned *links, unsigned max)
{
	return noc_timing_route(mesh.w, src, dst, links, max);
}

unsigned mesh_link_target(unsigned link)
{
	unsigned from = link / MESH_DIRS, x = mesh_tiles[from].x, y = mesh_tiles[from].y;
	switch ((enum mesh_dir)(link % MESH_DIRS)) {
	case MESH_EAST: return mesh_core_at(x + 1, y);
	case MESH_WEST: return mesh_core_at(x - 1, y);
	case MESH_NORTH: return mesh_core_at(x, y - 1);
	default: return mesh_core_at(x, y + 1);
	}
}

const char *mesh_dir_name(enum mesh_dir d)
{
	static const char *const names[] = {"east", "west", "north", "south"};
	return d < MESH_DIRS ? names[d] : "?";
}

/* Every member of a group computes its tree's root this way, so it is not done pairwise
 * (O(n^2) hop counts, too slow for a large group's members): noc_centre is linear. */
unsigned mesh_centre_of(const uint16_t *cores, unsigned n)
{
	struct noc_point points[MOSAIC_MAX_HARTS];
	uint32_t scratch[NOC_CENTRE_SCRATCH(MOSAIC_MAX_HARTS, MOSAIC_MAX_HARTS)];
	for (unsigned i = 0; i < n; i++)
		points[i] = (struct noc_point){mesh_tiles[cores[i]].x, mesh_tiles[cores[i]].y, cores[i]};
	return cores[noc_centre(points, n, mesh.w, mesh.h, scratch)];
}
