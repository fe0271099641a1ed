/* Splitting the mesh into rectangular domains and choosing their micro-kernels. */
#include "kernel/domain/domain.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "drivers/noc/mesh.h"
#include "portable/mesh/domains.h"
#include "lib/format.h"
#include "lib/string.h"

struct domain_layout layout;

static uint64_t domains_arg;  /* 0: default */
BOOTARG_U64("domains", domains_arg, 1, MOSAIC_MAX_HARTS, "number of rectangular domains (default 4, or fewer on small meshes)");
static uint64_t partial_vcores; /* 0: real-task layout */
BOOTARG_U64("partial_sim", partial_vcores, 1, 1 << 20,
	    "partial simulation: every hart a micro-kernel managing this many virtual cores");

const char *domain_split(unsigned n, struct domain_layout *out, char *err, unsigned errlen)
{
	if (n == 0)
		n = domains_default(mesh.w, mesh.h);
	if (n > mesh.cores) {
		snprintf(err, errlen, "domains: %u domains need at least %u harts, there are %u", n, n, mesh.cores);
		return err;
	}
	unsigned dx, dy;
	if (!domains_factor(n, mesh.w, mesh.h, &dx, &dy)) {
		snprintf(err, errlen, "domains: %u rectangles cannot tile a %ux%u mesh (%u must be a x b with a <= %u, b <= %u)",
			 n, mesh.w, mesh.h, n, mesh.w, mesh.h);
		return err;
	}
	out->ndomains = n;
	out->dx = dx;
	out->dy = dy;
	for (unsigned j = 0; j < dy; j++)
		for (unsigned i = 0; i < dx; i++) {
			struct domain *d = &out->domains[j * dx + i];
			d->id = (uint16_t)(j * dx + i);
			d->x0 = (uint16_t)domains_cut(mesh.w, dx, i);
			d->x1 = (uint16_t)domains_cut(mesh.w, dx, i + 1);
			d->y0 = (uint16_t)domains_cut(mesh.h, dy, j);
			d->y1 = (uint16_t)domains_cut(mesh.h, dy, j + 1);
			d->ncores = (uint16_t)((d->x1 - d->x0) * (d->y1 - d->y0));
			d->master = (uint16_t)domains_centre_core(mesh.w, d->x0, d->x1, d->y0, d->y1);
			for (unsigned y = d->y0; y < d->y1; y++)
				for (unsigned x = d->x0; x < d->x1; x++)
					out->domain_of[mesh_core_at(x, y)] = d->id;
		}
	return 0;
}

const char *domain_init(void)
{
	static char err[160];
	layout.partial = partial_vcores != 0;
	layout.vcores = (unsigned)partial_vcores;
	if (layout.partial && domains_arg && domains_arg != mesh.cores) {
		snprintf(err, sizeof err, "domains: partial_sim makes every hart a domain; drop domains=%lu", domains_arg);
		domain_split(0, &layout, err, sizeof err);
		return err;
	}
	const char *e = domain_split(layout.partial ? mesh.cores : (unsigned)domains_arg, &layout, err, sizeof err);
	if (e)
		domain_split(0, &layout, err + 80, sizeof err - 80); /* report, carry on with the default */
	return e;
}

SHELL_CMD_NOWAIT(mesh, "mesh", "draw the mesh: core/hart of each tile, its domain, micro-kernels marked *")
{
	if (argc != 1)
		return SHELL_USAGE;
	kprintf("mesh %ux%u, XY routing, %u domains (%ux%u)%s; each tile: core/hart domain, * = micro-kernel\n", mesh.w,
		mesh.h, layout.ndomains, layout.dx, layout.dy, layout.partial ? ", partial simulation" : "");
	if (layout.partial)
		kprintf("every hart is a micro-kernel managing %u virtual cores\n", layout.vcores);
	kprintf("     ");
	for (unsigned x = 0; x < mesh.w; x++)
		kprintf(" x=%-9u", x);
	kprintf("\n");
	for (unsigned y = 0; y < mesh.h; y++) {
		kprintf("y=%-3u", y);
		for (unsigned x = 0; x < mesh.w; x++) {
			unsigned c = mesh_core_at(x, y);
			kprintf(" %3u/%-3u%c%-3u", c, mesh_tiles[c].hartid, is_master(c) ? '*' : ' ', domain_of(c));
		}
		kprintf("\n");
	}
	return 0;
}
