/*
 * The NoC's timing model as pure functions of their inputs: the latency formula, the XY
 * route on a W-wide mesh and link booking by intervals of time. No kernel header and no
 * global state, so the same file compiles for the kernel (drivers/noc/noc.c uses it) and
 * for host programs (tests/host/, and the protocol simulator of issue 14), which then
 * compute the same delays from the same code. docs/noc.md states the model.
 *
 * Why intervals: senders book links in the order the emulator runs them, which under
 * per-core virtual time is not the order of their clocks. A link that remembered only
 * "busy until" would make a sender whose clock is behind wait for a booking made in its
 * future. A link instead keeps its bookings as intervals and a head takes the earliest
 * gap at or after its arrival that is long enough for the message's tail.
 */
#ifndef DRIVERS_NOC_TIMING_H
#define DRIVERS_NOC_TIMING_H

#include <stdbool.h>
#include <stdint.h>

/* The model's parameters (boot arguments noc_t_inject, noc_t_hop, noc_t_flit, noc_flit_bytes). */
struct noc_timing {
	uint64_t t_inject_ns, t_hop_ns, t_flit_ns, flit_bytes;
};

/* Directions of a tile's outgoing links; link id = tile * NOC_DIRS + direction. */
enum noc_dir { NOC_EAST = 0, NOC_WEST, NOC_NORTH, NOC_SOUTH, NOC_DIRS };

/* Bookings a link remembers. A full link first drops bookings that end at or before the
 * floor (a time before which no core can send any more, from the caller); if more than
 * half are left it forgets the earliest down to half and counts them in `forgotten`. */
#define NOC_LINK_BOOKINGS 16

struct noc_link {
	uint64_t start[NOC_LINK_BOOKINGS], end[NOC_LINK_BOOKINGS]; /* sorted by start, disjoint */
	uint32_t count;
	uint64_t messages, flits;
	uint64_t busy_ns;    /* sum of booked time */
	uint64_t wait_ns;    /* time heads waited for this link */
	uint64_t forgotten;  /* bookings dropped while some core could still collide with them */
};

/* Flits of a body of len bytes (an empty message still takes one). */
static inline uint32_t noc_timing_flits(const struct noc_timing *m, uint32_t len)
{
	return len == 0 ? 1 : (uint32_t)((len + m->flit_bytes - 1) / m->flit_bytes);
}

/* Delay of an uncontended message of len bytes over `hops` hops. */
static inline uint64_t noc_timing_latency(const struct noc_timing *m, unsigned hops, uint32_t len)
{
	return m->t_inject_ns + hops * m->t_hop_ns + noc_timing_flits(m, len) * m->t_flit_ns;
}

/* Hop count of the XY route between tiles src and dst of a w-wide mesh (tile = y * w + x). */
unsigned noc_timing_hops(unsigned w, unsigned src, unsigned dst);

/* Fills links[] (up to max) with the link ids of the XY route src -> dst; returns its hop count. */
unsigned noc_timing_route(unsigned w, unsigned src, unsigned dst, unsigned *links, unsigned max);

/* Whether the link holds a booking that ends after t (xsend's rule R3: the link was in use). */
bool noc_link_busy_after(const struct noc_link *l, uint64_t t);

/*
 * Books `hold` ns on the link for a head that arrives at t: the earliest start >= t whose
 * interval [start, start + hold) overlaps no booking. Returns the start. `floor` is asked
 * only when the link is full: the earliest time at which any sender can still arrive.
 */
uint64_t noc_link_book(struct noc_link *l, uint64_t t, uint64_t hold, uint64_t (*floor)(void));

/* One step of the XY route towards (tx, ty): x first, then y. Returns the link taken
 * from (*x, *y) and moves (*x, *y) to the next tile. */
static inline unsigned noc_timing_xy_step(unsigned w, unsigned *x, unsigned *y, unsigned tx, unsigned ty)
{
	unsigned from = *y * w + *x;
	enum noc_dir d;
	if (*x != tx) {
		d = tx > *x ? NOC_EAST : NOC_WEST;
		*x = tx > *x ? *x + 1 : *x - 1;
	} else {
		d = ty > *y ? NOC_SOUTH : NOC_NORTH;
		*y = ty > *y ? *y + 1 : *y - 1;
	}
	return from * NOC_DIRS + d;
}

/*
 * One hop of noc_timing_book_route: the head reaches link l at time t; books its gap, adds
 * the head's wait to *waited and returns when the head reaches the next link. Inline and
 * exposed so the kernel can book each link under a lock of its own (drivers/noc/noc.c)
 * without a call per hop on the message path.
 */
static inline uint64_t noc_timing_book_hop(const struct noc_timing *m, struct noc_link *l, uint32_t flits, uint64_t t,
					   uint64_t now, uint64_t (*floor)(void), uint64_t *waited, bool *busy)
{
	uint64_t hold = flits * m->t_flit_ns;
	if (busy && noc_link_busy_after(l, now))
		*busy = true;
	uint64_t start = noc_link_book(l, t, hold, floor);
	*waited += start - t;
	l->wait_ns += start - t;
	l->messages++;
	l->flits += flits;
	l->busy_ns += hold;
	return start + m->t_hop_ns;
}

/*
 * Books the XY route of a message of `flits` flits sent from src to dst at time now on
 * links[] (indexed by link id): the head reaches the first link after t_inject, waits for
 * each link's gap, holds it for flits x t_flit and moves on t_hop later. Returns the time
 * the tail arrives; *waited (may be 0) gets the time the head spent waiting, and *busy
 * (may be 0) is set if a link on the route was booked past `now` (rule R3).
 */
uint64_t noc_timing_book_route(const struct noc_timing *m, unsigned w, struct noc_link *links, unsigned src,
			       unsigned dst, uint32_t flits, uint64_t now, uint64_t (*floor)(void), uint64_t *waited,
			       bool *busy);

#endif
