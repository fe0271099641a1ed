/* The NoC's timing model: pure functions shared by the kernel and host programs (timing.h). */
#include "portable/noc/timing.h"

static unsigned distance(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

unsigned noc_timing_hops(unsigned w, unsigned src, unsigned dst)
{
	return distance(src % w, dst % w) + distance(src / w, dst / w);
}

unsigned noc_timing_route(unsigned w, unsigned src, unsigned dst, unsigned *links, unsigned max)
{
	unsigned x = src % w, y = src / w, tx = dst % w, ty = dst / w, n = 0;
	for (; x != tx || y != ty; n++) {
		unsigned link = noc_timing_xy_step(w, &x, &y, tx, ty);
		if (n < max)
			links[n] = link;
	}
	return n;
}

bool noc_link_busy_after(const struct noc_link *l, uint64_t t)
{
	return l->count && l->end[l->count - 1] > t; /* disjoint and sorted: the last ends last */
}

static void remove_at(struct noc_link *l, uint32_t i)
{
	for (; i + 1 < l->count; i++) {
		l->start[i] = l->start[i + 1];
		l->end[i] = l->end[i + 1];
	}
	l->count--;
}

/* Makes room on a full link, amortised over many bookings: bookings no sender can reach any
 * more go first; if more than half are left, the earliest go down to half, counted as
 * forgotten (a later head that would have collided with them waits less than it should). */
static void make_room(struct noc_link *l, uint64_t (*floor)(void))
{
	uint64_t f = floor ? floor() : 0;
	uint32_t first = 0;
	while (first < l->count && l->end[first] <= f)
		first++; /* sorted and disjoint: the unreachable ones are a prefix */
	if (l->count - first > NOC_LINK_BOOKINGS / 2) {
		l->forgotten += l->count - first - NOC_LINK_BOOKINGS / 2;
		first = l->count - NOC_LINK_BOOKINGS / 2;
	}
	for (uint32_t i = first; i < l->count; i++) {
		l->start[i - first] = l->start[i];
		l->end[i - first] = l->end[i];
	}
	l->count -= first;
}

uint64_t noc_link_book(struct noc_link *l, uint64_t t, uint64_t hold, uint64_t (*floor)(void))
{
	if (hold == 0)
		return t; /* a message that takes no time on the link cannot collide */
	if (l->count == NOC_LINK_BOOKINGS)
		make_room(l, floor);
	/* the first booking that ends after t; searched from the end, since most heads come
	 * after every booking (traffic in time order costs O(1)) */
	uint32_t i = l->count;
	while (i > 0 && l->end[i - 1] > t)
		i--;
	uint64_t s = t;
	for (; i < l->count && l->start[i] < s + hold; i++)
		s = l->end[i]; /* overlaps booking i (it ends after s): try right after it */
	/* [s, s + hold) goes before booking i; merge with the neighbours it touches */
	bool joins_prev = i > 0 && l->end[i - 1] == s;
	bool joins_next = i < l->count && l->start[i] == s + hold;
	if (joins_prev && joins_next) {
		l->end[i - 1] = l->end[i];
		remove_at(l, i);
	} else if (joins_prev) {
		l->end[i - 1] = s + hold;
	} else if (joins_next) {
		l->start[i] = s;
	} else {
		for (uint32_t j = l->count; j > i; j--) {
			l->start[j] = l->start[j - 1];
			l->end[j] = l->end[j - 1];
		}
		l->start[i] = s;
		l->end[i] = s + hold;
		l->count++;
	}
	return s;
}

uint64_t noc_timing_book_route(const struct noc_timing *m, unsigned w, struct noc_link *links, unsigned src,
			       unsigned dst, uint32_t flits, uint64_t now, uint64_t (*floor)(void), uint64_t *waited,
			       bool *busy)
{
	uint64_t t = now + m->t_inject_ns, wait = 0;
	unsigned x = src % w, y = src / w, tx = dst % w, ty = dst / w;
	while (x != tx || y != ty)
		t = noc_timing_book_hop(m, &links[noc_timing_xy_step(w, &x, &y, tx, ty)], flits, t, now, floor, &wait, busy);
	if (waited)
		*waited = wait;
	return t + flits * m->t_flit_ns;
}
