/* ktest suite "domain": splitting the mesh into rectangular domains with centred micro-kernels. */
#include "kernel/core/ktest.h"
#include "kernel/domain/domain.h"
#include "kernel/mm/kheap.h"
#include "drivers/noc/mesh.h"
#include "lib/string.h"

/* Every core in exactly one domain, inside its rectangle; each master in its own domain. */
static bool layout_is_consistent(struct ktest_ctx *kt, const struct domain_layout *l)
{
	unsigned covered = 0;
	for (unsigned d = 0; d < l->ndomains; d++) {
		const struct domain *dom = &l->domains[d];
		if (!(dom->x0 < dom->x1 && dom->y0 < dom->y1)) {
			ktest_fail(kt, __FILE__, __LINE__, "domain %u is empty", d);
			return false;
		}
		covered += dom->ncores;
		unsigned mx = mesh_tiles[dom->master].x, my = mesh_tiles[dom->master].y;
		if (!(mx >= dom->x0 && mx < dom->x1 && my >= dom->y0 && my < dom->y1)) {
			ktest_fail(kt, __FILE__, __LINE__, "master %u outside domain %u", dom->master, d);
			return false;
		}
	}
	for (unsigned c = 0; c < mesh.cores; c++) {
		const struct domain *dom = &l->domains[l->domain_of[c]];
		unsigned x = mesh_tiles[c].x, y = mesh_tiles[c].y;
		if (!(x >= dom->x0 && x < dom->x1 && y >= dom->y0 && y < dom->y1)) {
			ktest_fail(kt, __FILE__, __LINE__, "core %u not inside domain %u", c, dom->id);
			return false;
		}
	}
	if (covered != mesh.cores) {
		ktest_fail(kt, __FILE__, __LINE__, "domains cover %u of %u cores", covered, mesh.cores);
		return false;
	}
	return true;
}

KTEST(domain, every_split_tiles_the_mesh)
{
	struct domain_layout *l = kmalloc(sizeof *l);
	KT_ASSERT(l);
	char err[160];
	unsigned ok = 0;
	for (unsigned n = 1; n <= mesh.cores; n++) {
		if (domain_split(n, l, err, sizeof err))
			continue; /* refused: checked below */
		ok++;
		if (!layout_is_consistent(kt, l))
			break;
		KT_ASSERT_EQ(l->ndomains, n);
	}
	kfree(l);
	KT_ASSERT(ok >= 1);
	KT_ASSERT(layout_is_consistent(kt, &layout));
}

KTEST(domain, thesis_layout_on_6x6)
{
	if (mesh.w != 6 || mesh.h != 6)
		return;
	struct domain_layout *l = kmalloc(sizeof *l);
	char err[160];
	KT_ASSERT(l && domain_split(0, l, err, sizeof err) == 0);
	KT_ASSERT_EQ(l->ndomains, 4);
	/* four 3x3 domains, each a micro-kernel at its centre and eight pico-kernels */
	static const unsigned masters[4] = {7, 10, 25, 28};
	for (unsigned d = 0; d < 4; d++) {
		KT_ASSERT_EQ(l->domains[d].ncores, 9);
		KT_ASSERT_EQ(l->domains[d].master, masters[d]);
	}
	kfree(l);
}

KTEST(domain, impossible_splits_are_refused)
{
	struct domain_layout *l = kmalloc(sizeof *l);
	char err[160];
	KT_ASSERT(l);
	KT_ASSERT(domain_split(mesh.cores + 1, l, err, sizeof err) != 0);
	KT_ASSERT(strstr(err, "need at least") != 0);
	/* a prime larger than both sides cannot be a x b rectangles */
	unsigned p = mesh.w > mesh.h ? mesh.w + 1 : mesh.h + 1;
	for (;; p++) {
		bool prime = p > 1;
		for (unsigned q = 2; q * q <= p; q++)
			prime &= p % q != 0;
		if (prime)
			break;
	}
	if (p <= mesh.cores) {
		KT_ASSERT(domain_split(p, l, err, sizeof err) != 0);
		KT_ASSERT(strstr(err, "cannot tile") != 0);
	}
	kfree(l);
}
