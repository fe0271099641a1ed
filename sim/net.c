/*
 * Message delays: the kernel's own NoC timing model (portable/noc/timing.c: XY
 * route, per-hop latency, flits, link booking by intervals), on a link table of
 * the simulated mesh. Optional jitter adds a seeded uniform extra delay to each
 * message, within a bound the user gives (--jitter), for runs that differ.
 */
#include <stdlib.h>
#include "sim/sim.h"

static struct noc_link *links;
static struct noc_timing model;
static unsigned width;
static uint64_t jitter;
uint64_t net_floor_ns;

/* No event before the queue's current time can still send: older bookings can go. */
static uint64_t floor_fn(void) { return net_floor_ns; }

void net_init(const struct sim_opts *o, unsigned w, unsigned h)
{
	model = o->noc;
	width = w;
	jitter = o->jitter_ns;
	net_floor_ns = 0;
	links = calloc((size_t)w * h * NOC_DIRS, sizeof *links);
	if (!links) {
		fprintf(stderr, "mosaic-sim: out of memory for %ux%u links\n", w, h);
		exit(3);
	}
}

void net_fini(void)
{
	free(links);
	links = 0;
}

uint64_t net_deliver_time(unsigned src, unsigned dst, uint32_t len, uint64_t now)
{
	/* a core's message to itself crosses no link: inject and flits only, as in the kernel */
	uint64_t t = noc_timing_book_route(&model, width, links, src, dst, noc_timing_flits(&model, len), now,
					   floor_fn, 0, 0);
	if (jitter)
		t += sim_rand() % (jitter + 1);
	return t;
}
