/*
 * Propagating a message from one micro-kernel to all the others (thesis Section
 * 2.3.4, Fig. 2.5 and 5.6), over the dx x dy grid of domains, within a region of
 * it (the whole grid but for the propagation benchmark):
 *  - naive: the origin sends one message to every node;
 *  - flooding: every node passes a new message to all its grid neighbours but
 *    the one it came from; copies seen before are dropped;
 *  - fixed pattern: the origin's column is the trunk; trunk nodes pass it on
 *    along the column and into their rows, row nodes only further along the row.
 *    A corner origin gives Fig. 2.5a, a central one Fig. 2.5b; every node gets it
 *    exactly once over one link;
 *  - adaptive pattern: a tree per origin, formed by an initialisation wave
 *    (a flood with echo): each node takes the neighbour whose copy reached it
 *    FIRST as its preferred source (its parent) and tells it so in its echo; the
 *    parents remember their children. Messages then follow the tree. A grid link
 *    marked failed makes every node drop its trees (a new epoch); the next message
 *    from an origin forms a new tree without the link.
 * PING and TINIT waves come back as echoes along the reverse path, so the origin
 * learns when every node has it (the benchmark's round trip).
 */
#include "portable/alloc/proto_env.h"

static const uint8_t dirs[4] = {PROP_E, PROP_W, PROP_N, PROP_S};

/* The neighbour of dom in direction d inside the message's region, or -1. */
static int neighbour(const struct mk *m, const struct alloc_hdr *h, unsigned dom, uint8_t d)
{
	int x = (int)grid_x(m->w, dom), y = (int)grid_y(m->w, dom);
	x += d == PROP_E ? 1 : d == PROP_W ? -1 : 0;
	y += d == PROP_S ? 1 : d == PROP_N ? -1 : 0;
	if (x < h->rx0 || x >= h->rx1 || y < h->ry0 || y >= h->ry1)
		return -1;
	return y * (int)m->w->dx + x;
}

static uint8_t dir_to(const struct mk *m, unsigned from, unsigned to)
{
	if (grid_y(m->w, from) == grid_y(m->w, to))
		return grid_x(m->w, to) > grid_x(m->w, from) ? PROP_E : PROP_W;
	return grid_y(m->w, to) > grid_y(m->w, from) ? PROP_S : PROP_N;
}

static bool in_region(const struct mk *m, const struct alloc_hdr *h, unsigned dom)
{
	unsigned x = grid_x(m->w, dom), y = grid_y(m->w, dom);
	return x >= h->rx0 && x < h->rx1 && y >= h->ry0 && y < h->ry1;
}

/* Records (origin, bseq); false if it was seen before. */
static bool first_time(struct mk *m, unsigned origin, uint32_t bseq)
{
	struct origin_state *s = origin_get(m, origin);
	if (bseq > s->high) {
		uint32_t shift = bseq - s->high;
		s->mask = shift >= 64 ? 0 : s->mask << shift;
		s->flooded = shift >= 64 ? 0 : s->flooded << shift;
		s->mask |= 1;
		s->high = bseq;
		return true;
	}
	uint32_t back = s->high - bseq;
	if (back >= 64 || (s->mask >> back & 1))
		return false;
	s->mask |= 1ULL << back;
	return true;
}

/* Records that this node passed (origin, bseq) on by a fallback flood; false if it did before
 * (or the number is out of the window). The number has been seen (first_time) already. */
static bool first_flood(struct mk *m, unsigned origin, uint32_t bseq)
{
	struct origin_state *s = origin_get(m, origin);
	uint32_t back = s->high - bseq;
	if (bseq > s->high || back >= 64 || (s->flooded >> back & 1))
		return false;
	s->flooded |= 1ULL << back;
	return true;
}

/* Sends one copy to dom with the given fixed-pattern direction bits. */
static void copy_to(struct mk *m, unsigned dom, uint8_t dir, struct alloc_hdr *h, uint32_t len)
{
	h->dir = dir;
	mk_send(m, dom, h, len);
}

static bool flood_to(struct mk *m, struct alloc_hdr *h, unsigned d, unsigned from)
{
	int n = neighbour(m, h, m->dom, d);
	return n >= 0 && (unsigned)n != from && !(m->dead & d);
}

/*
 * Passes h on from this node by its scheme; `from` is the node it came from (the
 * node itself at the origin). Returns how many copies were sent.
 */
static unsigned pass_on(struct mk *m, struct alloc_hdr *h, uint32_t len, unsigned from)
{
	unsigned sent = 0;
	bool origin = h->origin == m->dom;
	uint8_t in_dir = h->dir;
	switch (h->scheme) {
	case ALLOC_SCHEME_NAIVE:
		if (origin)
			for (unsigned d = 0; d < m->w->ndomains; d++)
				if (d != m->dom && in_region(m, h, d)) {
					copy_to(m, d, 0, h, len);
					sent++;
				}
		break;
	case ALLOC_SCHEME_FIXED:
		for (unsigned i = 0; i < 4; i++) {
			uint8_t d = dirs[i];
			bool vertical = d == PROP_N || d == PROP_S;
			bool go;
			if (origin)
				go = true;
			else if (in_dir & PROP_TRUNK)
				go = vertical ? (in_dir & d) != 0 : true;
			else
				go = (in_dir & d) != 0;
			int n = neighbour(m, h, m->dom, d);
			if (go && n >= 0) {
				copy_to(m, (unsigned)n, (uint8_t)(d | (vertical ? PROP_TRUNK : 0)), h, len);
				sent++;
			}
		}
		break;
	case ALLOC_SCHEME_ADAPTIVE: {
		const struct tree *t = &origin_get(m, h->origin)->tree;
		if (t->epoch == h->epoch && t->ready) {
			for (unsigned i = 0; i < 4; i++)
				if (t->children & dirs[i]) {
					copy_to(m, (unsigned)neighbour(m, h, m->dom, dirs[i]), 0, h, len);
					sent++;
				}
			break;
		}
		/* this node no longer has the tree the message was sent on (a link failed
		 * meanwhile): fall back to flooding. The flood must reach every node even
		 * where nodes that still have the tree passed it on only to their children
		 * (a subtree hanging off the failed link is reached by no tree copy), so the
		 * copies are marked and every node floods a marked copy once, even one it
		 * has already seen */
		h->scheme = ALLOC_SCHEME_FLOOD;
		h->flags |= AF_REFLOOD;
	}
		/* fall through */
	case ALLOC_SCHEME_FLOOD:
		if (h->flags & AF_REFLOOD)
			first_flood(m, h->origin, h->bseq);
		for (unsigned i = 0; i < 4; i++)
			if (flood_to(m, h, dirs[i], from)) {
				copy_to(m, (unsigned)neighbour(m, h, m->dom, dirs[i]), 0, h, len);
				sent++;
			}
		break;
	}
	return sent;
}

static void echo_up(struct mk *m, unsigned origin, struct echo_state *st);

/* Finishes a wave at the origin: a formed tree releases the messages held for it. */
static void wave_done(struct mk *m, struct echo_state *st);

/* Sends h from the origin and, for an echo wave, starts counting the echoes. */
static void launch(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	unsigned sent = pass_on(m, h, len, m->dom);
	if (h->kind != AK_PING && h->kind != AK_TINIT)
		return;
	struct echo_state *st = &origin_get(m, m->dom)->echo;
	*st = (struct echo_state){.bseq = h->bseq, .parent = m->dom, .awaiting = (uint16_t)sent, .active = true,
				  .kind = h->kind, .t_start = penv_now(m)};
	if (!sent)
		wave_done(m, st);
}

static bool tree_usable(struct mk *m, const struct alloc_hdr *h)
{
	const struct tree *t = &origin_get(m, m->dom)->tree;
	return t->ready && t->epoch == m->epoch && t->rx0 == h->rx0 && t->ry0 == h->ry0 && t->rx1 == h->rx1 &&
	       t->ry1 == h->ry1;
}

static void start_tinit(struct mk *m, const struct alloc_hdr *like)
{
	struct tree *t = &origin_get(m, m->dom)->tree;
	*t = (struct tree){.epoch = m->epoch, .parent = m->dom, .rx0 = like->rx0, .ry0 = like->ry0, .rx1 = like->rx1,
			   .ry1 = like->ry1};
	struct alloc_hdr h = {.kind = AK_TINIT, .scheme = ALLOC_SCHEME_FLOOD, .origin = m->dom, .bseq = ++m->bseq,
			      .epoch = m->epoch, .rx0 = like->rx0, .ry0 = like->ry0, .rx1 = like->rx1,
			      .ry1 = like->ry1};
	first_time(m, m->dom, h.bseq);
	launch(m, &h, sizeof h);
}

static void prop_start_in(struct mk *m, struct alloc_hdr *h, uint32_t len, unsigned scheme)
{
	h->origin = m->dom;
	h->scheme = (uint8_t)scheme;
	h->epoch = m->epoch;
	h->bseq = ++m->bseq;
	first_time(m, m->dom, h->bseq);
	if (scheme != ALLOC_SCHEME_ADAPTIVE || tree_usable(m, h)) {
		launch(m, h, len);
		return;
	}
	/* hold it until this origin's tree is formed */
	struct held_msg *hm = penv_alloc(sizeof *hm + len);
	if (!hm)
		penv_panic(m, "alloc: out of memory holding a %u-byte message", len);
	hm->next = 0;
	hm->len = len;
	__builtin_memcpy(hm + 1, h, len);
	bool forming = m->held != 0;
	if (m->held_tail)
		m->held_tail->next = hm;
	else
		m->held = hm;
	m->held_tail = hm;
	if (!forming)
		start_tinit(m, h);
}

void prop_start(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	if (!h->rx1) {
		h->rx0 = h->ry0 = 0;
		h->rx1 = (uint8_t)m->w->dx;
		h->ry1 = (uint8_t)m->w->dy;
	}
	prop_start_in(m, h, len, m->w->cfg->scheme);
}

void prop_ping(struct mk *m, unsigned x0, unsigned y0, unsigned x1, unsigned y1, int requester)
{
	m->ping_requester = requester;
	struct alloc_hdr h = {.kind = AK_PING, .rx0 = (uint8_t)x0, .ry0 = (uint8_t)y0, .rx1 = (uint8_t)x1,
			      .ry1 = (uint8_t)y1};
	prop_start_in(m, &h, sizeof h, m->w->cfg->scheme);
}

static void send_echo(struct mk *m, unsigned to, unsigned origin, uint32_t bseq, uint8_t flags, uint32_t count)
{
	struct alloc_hdr e = {.kind = AK_ECHO, .origin = (uint16_t)origin, .bseq = bseq, .flags = flags,
			      .count = count};
	mk_send(m, to, &e, sizeof e);
}

bool prop_receive(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	unsigned from = h->from;
	bool wave = h->kind == AK_PING || h->kind == AK_TINIT;
	if (!first_time(m, h->origin, h->bseq)) {
		if (wave)
			send_echo(m, from, h->origin, h->bseq, 0, 0); /* not your child */
		else if ((h->flags & AF_REFLOOD) && first_flood(m, h->origin, h->bseq))
			pass_on(m, h, len, from); /* seen over the tree, flooded on once: see pass_on */
		return false;
	}
	if (!wave) {
		pass_on(m, h, len, from);
		return true;
	}
	if (h->kind == AK_TINIT)
		origin_get(m, h->origin)->tree = (struct tree){.epoch = h->epoch, .parent = (uint16_t)from, .rx0 = h->rx0,
						    .ry0 = h->ry0, .rx1 = h->rx1, .ry1 = h->ry1};
	struct echo_state *st = &origin_get(m, h->origin)->echo;
	*st = (struct echo_state){.bseq = h->bseq, .parent = (uint16_t)from, .active = true, .kind = h->kind};
	st->awaiting = (uint16_t)pass_on(m, h, len, from);
	if (!st->awaiting)
		echo_up(m, h->origin, st);
	return true;
}

/* Every echo this node waited for is in: report to the parent (or finish, at the origin). */
static void echo_up(struct mk *m, unsigned origin, struct echo_state *st)
{
	st->active = false;
	if (st->kind == AK_TINIT) {
		struct tree *t = &origin_get(m, origin)->tree;
		t->children = st->children;
		t->ready = 1;
	}
	send_echo(m, st->parent, origin, st->bseq, AF_CHILD, st->count + 1);
}

static void wave_done(struct mk *m, struct echo_state *st)
{
	st->active = false;
	st->t_done = penv_now(m);
	if (st->kind == AK_PING && m->ping_requester >= 0) {
		penv_ping_done(m, m->ping_requester, st->t_done - st->t_start, st->count);
		m->ping_requester = -1;
	}
	if (st->kind != AK_TINIT)
		return;
	struct tree *t = &origin_get(m, m->dom)->tree;
	t->children = st->children;
	t->ready = 1;
	struct held_msg *hm = m->held;
	m->held = m->held_tail = 0;
	while (hm) {
		struct held_msg *next = hm->next;
		struct alloc_hdr *h = (struct alloc_hdr *)(hm + 1);
		h->epoch = t->epoch;
		launch(m, h, hm->len);
		penv_free(hm);
		hm = next;
	}
}

void prop_on_echo(struct mk *m, const struct alloc_hdr *h)
{
	struct echo_state *st = &origin_get(m, h->origin)->echo;
	if (!st->active || st->bseq != h->bseq) {
		penv_fail(m, "micro-kernel %u: echo from %u for a wave (%u, %u) it does not wait for", m->dom, h->from,
			   h->origin, h->bseq);
		return;
	}
	st->count += h->count;
	if (h->flags & AF_CHILD)
		st->children |= dir_to(m, m->dom, h->from);
	if (--st->awaiting)
		return;
	if (h->origin == m->dom)
		wave_done(m, st);
	else
		echo_up(m, h->origin, st);
}

/* The end of a link that the shell marked failed: stop using it, and flood the news
 * (a new epoch) so every origin forms its tree again without it. */
void prop_linkdown_start(struct mk *m, const struct alloc_hdr *h)
{
	unsigned other = h->count;
	m->dead |= dir_to(m, m->dom, other);
	m->epoch++;
	struct alloc_hdr f = {.kind = AK_LINKDOWN, .home = m->dom, .count = other, .rx1 = (uint8_t)m->w->dx,
			      .ry1 = (uint8_t)m->w->dy};
	prop_start_in(m, &f, sizeof f, ALLOC_SCHEME_FLOOD);
}

void prop_on_linkdown(struct mk *m, const struct alloc_hdr *h)
{
	if (h->count == m->dom)
		m->dead |= dir_to(m, m->dom, h->home);
	if (h->epoch > m->epoch)
		m->epoch = h->epoch;
}
