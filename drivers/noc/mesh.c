/* Mesh geometry and XY routing; pure functions over the table built at boot. */
#include "drivers/noc/mesh.h"
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

static unsigned absdiff(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

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

/*
 * Minimises the largest hop distance to any member (eccentricity), then the sum of the
 * distances, then the core id. Every member of a group computes its tree's root this way,
 * so it is not done pairwise (O(n^2) hop counts, too slow for a large group's members):
 * in coordinates s = x + y and d = x - y the XY distance is the larger of |s - s'| and
 * |d - d'|, so the eccentricity follows from the four extremes of s and d, and the sum
 * separates into columns and rows, each summed once per coordinate.
 */
unsigned mesh_centre_of(const uint16_t *cores, unsigned n)
{
	uint16_t per_column[MOSAIC_MAX_HARTS] = {0}, per_row[MOSAIC_MAX_HARTS] = {0};
	int s_min = INT32_MAX, s_max = INT32_MIN, d_min = INT32_MAX, d_max = INT32_MIN;
	for (unsigned i = 0; i < n; i++) {
		int x = mesh_tiles[cores[i]].x, y = mesh_tiles[cores[i]].y;
		per_column[x]++;
		per_row[y]++;
		s_min = x + y < s_min ? x + y : s_min;
		s_max = x + y > s_max ? x + y : s_max;
		d_min = x - y < d_min ? x - y : d_min;
		d_max = x - y > d_max ? x - y : d_max;
	}
	/* the sum of the column (row) distances from each column (row) to every member */
	uint32_t column_sum[MOSAIC_MAX_HARTS], row_sum[MOSAIC_MAX_HARTS];
	for (unsigned x = 0; x < mesh.w; x++) {
		column_sum[x] = 0;
		for (unsigned c = 0; c < mesh.w; c++)
			column_sum[x] += per_column[c] * absdiff(x, c);
	}
	for (unsigned y = 0; y < mesh.h; y++) {
		row_sum[y] = 0;
		for (unsigned r = 0; r < mesh.h; r++)
			row_sum[y] += per_row[r] * absdiff(y, r);
	}
	unsigned best = cores[0];
	uint64_t best_ecc = UINT64_MAX, best_sum = UINT64_MAX;
	for (unsigned i = 0; i < n; i++) {
		int x = mesh_tiles[cores[i]].x, y = mesh_tiles[cores[i]].y, s = x + y, d = x - y;
		int e = s - s_min;
		e = s_max - s > e ? s_max - s : e;
		e = d - d_min > e ? d - d_min : e;
		e = d_max - d > e ? d_max - d : e;
		uint64_t ecc = (uint64_t)e, sum = (uint64_t)column_sum[x] + row_sum[y];
		if (ecc < best_ecc || (ecc == best_ecc && sum < best_sum) ||
		    (ecc == best_ecc && sum == best_sum && cores[i] < best)) {
			best = cores[i];
			best_ecc = ecc;
			best_sum = sum;
		}
	}
	return best;
}
