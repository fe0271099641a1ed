/*
 * Drawing a workload from a seed (workload.h). Small meshes are drawn far more
 * often than large ones: most bugs need few domains to show, and a seed on a
 * 16 x 16 mesh costs a hundred times one on 3 x 3; every side from 2 to 16 still
 * comes up.
 */
#include "checker/workload.h"

static uint64_t state;
static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static unsigned upto(unsigned n) { return (unsigned)(next() % n); }          /* 0..n-1 */
static unsigned range(unsigned a, unsigned b) { return a + upto(b - a + 1); } /* a..b */

static unsigned side(unsigned max)
{
	unsigned r = upto(100), s = r < 70 ? range(2, 4) : r < 92 ? range(2, 8) : range(2, 16);
	return s > max ? max : s;
}

/* Is the grid still connected without the links failed so far and a-b? */
static bool connected(const struct workload *w, unsigned a, unsigned b)
{
	unsigned n = w->dx * w->dy, stack[256], sp = 0, seen = 1;
	bool mark[256] = {0};
	mark[0] = true;
	stack[sp++] = 0;
	while (sp) {
		unsigned d = stack[--sp], x = d % w->dx, y = d / w->dx;
		unsigned nb[4];
		unsigned k = 0;
		if (x + 1 < w->dx)
			nb[k++] = d + 1;
		if (x)
			nb[k++] = d - 1;
		if (y + 1 < w->dy)
			nb[k++] = d + w->dx;
		if (y)
			nb[k++] = d - w->dx;
		for (unsigned i = 0; i < k; i++) {
			unsigned e = nb[i];
			bool dead = (d == a && e == b) || (d == b && e == a);
			for (unsigned f = 0; f < w->nfails; f++)
				dead |= (d == w->fails[f].a && e == w->fails[f].b) || (d == w->fails[f].b && e == w->fails[f].a);
			if (!dead && !mark[e]) {
				mark[e] = true;
				seen++;
				stack[sp++] = e;
			}
		}
	}
	return seen == n;
}

static unsigned job_size(unsigned v, unsigned total)
{
	switch (upto(5)) {
	case 0:
		return range(1, v);                                   /* local */
	case 1:
		return total < 2 * v ? total : range(v + 1, 2 * v);   /* just over a domain */
	case 2:
		return range(1, total / 2 > 1 ? total / 2 : 1);
	case 3:
		return range(1, total);
	default:
		return total;                                         /* the whole machine */
	}
}

void wl_draw(uint64_t seed, const struct wl_pins *pins, struct workload *w)
{
	state = seed * 0x2545f4914f6cdd1dULL + 1;
	*w = (struct workload){0};
	w->dx = pins->dx ? pins->dx : side(pins->max_side);
	w->dy = pins->dy ? pins->dy : side(pins->max_side);
	w->v = range(1, 8);
	w->policy = pins->policy >= 0 ? (enum alloc_policy)pins->policy : (enum alloc_policy)upto(ALLOC_POLICIES);
	w->scheme = pins->scheme >= 0 ? (enum alloc_scheme)pins->scheme : (enum alloc_scheme)upto(ALLOC_SCHEMES);
	w->hop_ns = range(20, 400);
	static const uint64_t extra[4] = {0, 1, 10, 1000}; /* times hop_ns: up to far longer than a run */
	w->extra_ns = extra[upto(4)] * w->hop_ns;
	unsigned total = w->dx * w->dy * w->v;
	w->njobs = range(1, total > 40 ? 16 : 10);
	uint64_t t = 10000;
	for (unsigned i = 0; i < w->njobs;) {
		unsigned burst = range(1, 4);
		for (unsigned k = 0; k < burst && i < w->njobs; k++, i++) {
			w->jobs[i].home = upto(w->dx * w->dy);
			w->jobs[i].ntasks = job_size(w->v, total);
			w->jobs[i].duration_us = range(1, 2000);
			bool at_once = upto(4) != 0;               /* a burst's common instant, or on arrival */
			w->jobs[i].t_submit = at_once ? t : 0;
			w->jobs[i].t_arrive = at_once && upto(2) ? t - range(0, 5000) : t + range(0, 2000);
		}
		t += range(0, 3) ? range(0, 3000000) : 0;
	}
	if (w->scheme == ALLOC_SCHEME_ADAPTIVE && upto(2))
		for (unsigned f = 0, tries = 0; f < WL_MAX_FAILS && tries < 10; tries++) {
			unsigned a = upto(w->dx * w->dy), x = a % w->dx, y = a / w->dx, b;
			if (upto(2) && x + 1 < w->dx)
				b = a + 1;
			else if (y + 1 < w->dy)
				b = a + w->dx;
			else
				continue;
			if (!connected(w, a, b))
				continue;
			w->fails[w->nfails].a = a;
			w->fails[w->nfails].b = b;
			w->fails[w->nfails].t = range(5000, (unsigned)(t < 4000000 ? t + 1000000 : 5000000));
			w->nfails++;
			f++;
			if (upto(2))
				break;
		}
}
