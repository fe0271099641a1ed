/*
 * The simulated machine's domains, cut and placed by the kernel's own geometry
 * (portable/mesh/domains.c, which kernel/domain/domain.c uses too), so that a
 * simulated micro-kernel sits on the same tile, with the same cores, as in the
 * kernel booted on the same mesh:
 *  - partial simulation: every tile a micro-kernel of a 1x1 domain with `vcores`
 *    virtual cores; the domain grid is the mesh;
 *  - real-task mode: n rectangular domains (the most square dx x dy = n that fits),
 *    cut as evenly as integers allow; each domain's micro-kernel is the core nearest
 *    its centre, the others are pico-kernels for jobs.
 */
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"
#include "portable/mesh/domains.h"

static void *zalloc(size_t bytes)
{
	void *p = calloc(1, bytes ? bytes : 1);
	if (!p) {
		fprintf(stderr, "mosaic-sim: out of memory for the layout\n");
		exit(3);
	}
	return p;
}

const char *layout_build(struct sim_world *sw, const struct sim_opts *o, char *err, unsigned errlen)
{
	unsigned W = o->w, H = o->h, nc = W * H, n, dx, dy;
	if (o->partial) {
		n = nc;
		dx = W;
		dy = H;
	} else {
		if (nc > PROTO_MASK_CORES) {
			snprintf(err, errlen, "real-task mode names cores in %u-bit masks: a %ux%u mesh has %u cores (use --partial)",
				 PROTO_MASK_CORES, W, H, nc);
			return err;
		}
		n = o->domains;
		if (n == 0) /* the kernel's default: 4, or fewer on small meshes */
			n = domains_default(W, H);
		if (n > nc) {
			snprintf(err, errlen, "%u domains need at least %u cores, the %ux%u mesh has %u", n, n, W, H, nc);
			return err;
		}
		if (!domains_factor(n, W, H, &dx, &dy)) {
			snprintf(err, errlen, "%u rectangles cannot tile a %ux%u mesh (%u must be a x b with a <= %u, b <= %u)", n,
				 W, H, n, W, H);
			return err;
		}
	}
	sw->ncores = nc;
	sw->core_x = zalloc(nc * sizeof *sw->core_x);
	sw->core_y = zalloc(nc * sizeof *sw->core_y);
	sw->core_dom = zalloc(nc * sizeof *sw->core_dom);
	sw->master = zalloc(n * sizeof *sw->master);
	sw->capacity = zalloc(n * sizeof *sw->capacity);
	sw->freemask = o->partial ? 0 : zalloc(n * sizeof *sw->freemask);
	for (unsigned c = 0; c < nc; c++) {
		sw->core_x[c] = (uint16_t)(c % W);
		sw->core_y[c] = (uint16_t)(c / W);
	}
	sw->machine_cores = 0;
	for (unsigned j = 0; j < dy; j++)
		for (unsigned i = 0; i < dx; i++) {
			unsigned d = j * dx + i, x0 = domains_cut(W, dx, i), x1 = domains_cut(W, dx, i + 1), y0 = domains_cut(H, dy, j),
				 y1 = domains_cut(H, dy, j + 1);
			sw->master[d] = (uint16_t)domains_centre_core(W, x0, x1, y0, y1);
			for (unsigned y = y0; y < y1; y++)
				for (unsigned x = x0; x < x1; x++) {
					unsigned c = y * W + x;
					sw->core_dom[c] = (uint16_t)d;
					if (!o->partial && c != sw->master[d])
						mask_set(sw->freemask[d], c);
				}
			sw->capacity[d] = o->partial ? o->vcores : (x1 - x0) * (y1 - y0) - 1;
			sw->machine_cores += sw->capacity[d];
		}
	sw->cfg = (struct alloc_config){.policy = (enum alloc_policy)o->policy, .scheme = (enum alloc_scheme)o->scheme,
					.check = o->check};
	sw->pw = (struct proto_world){.dx = dx, .dy = dy, .ndomains = n, .partial = o->partial, .ncores = nc,
				      .core_x = sw->core_x, .core_y = sw->core_y, .core_dom = sw->core_dom,
				      .master = sw->master, .cfg = &sw->cfg};
	sw->pw.sequencer = proto_centre_domain(&sw->pw);
	return 0;
}
