/* Domains on a mesh: the factorisation into rectangles and each one's centre (see domains.h). */
#include "portable/mesh/domains.h"

bool domains_factor(unsigned n, unsigned W, unsigned H, unsigned *dx, unsigned *dy)
{
	bool found = false;
	unsigned best = ~0u;
	for (unsigned a = 1; a <= n; a++) {
		if (n % a || a > W || n / a > H)
			continue;
		/* compare the domains' aspect: tiles per domain along x and y */
		unsigned wx = W / a, hy = H / (n / a);
		unsigned skew = wx > hy ? wx - hy : hy - wx;
		if (skew < best) {
			best = skew;
			*dx = a;
			*dy = n / a;
			found = true;
		}
	}
	return found;
}

unsigned domains_default(unsigned W, unsigned H)
{
	unsigned n = 4, dx, dy;
	while (n > 1 && !domains_factor(n, W, H, &dx, &dy))
		n /= 2;
	return n;
}

unsigned domains_centre_core(unsigned W, unsigned x0, unsigned x1, unsigned y0, unsigned y1)
{
	/* twice the coordinates, to stay in integers */
	unsigned cx2 = x0 + x1 - 1, cy2 = y0 + y1 - 1, best = ~0u, best_d = ~0u;
	for (unsigned y = y0; y < y1; y++)
		for (unsigned x = x0; x < x1; x++) {
			unsigned ddx = 2 * x > cx2 ? 2 * x - cx2 : cx2 - 2 * x;
			unsigned ddy = 2 * y > cy2 ? 2 * y - cy2 : cy2 - 2 * y;
			unsigned dist = ddx * ddx + ddy * ddy, c = y * W + x;
			if (dist < best_d || (dist == best_d && c < best)) {
				best_d = dist;
				best = c;
			}
		}
	return best;
}
