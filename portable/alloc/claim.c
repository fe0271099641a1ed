/*
 * Invasive computing at the micro-kernels: claims (OctoPOS's invade and
 * retreat, docs/invasive.md). A claim lives at the micro-kernel of its owner's
 * domain, the claim's home. Growing a claim never waits: the home takes the
 * spare cores of its own domain and, for an invade "anywhere", asks every other
 * micro-kernel for what it can spare at once; each one answers, perhaps with
 * nothing. Spare means free and wanted by no request in the wait queue, so a
 * claim never takes a core that an older job waits for (the global order), and
 * since nothing holds cores while it waits for more, a claim is never part of
 * a cycle of waits (no deadlock). A team (infect) is checked and sent to the
 * micro-kernels of its cores here; starting its members on their cores is the
 * kernel's (penv_team_start: kernel/alloc/team.c).
 */
#include "portable/alloc/proto_env.h"

uint32_t mk_spare(const struct mk *m)
{
	uint64_t wanted = 0;
	for (unsigned i = 0; i < m->nwq; i++)
		wanted += m->wq[i].need - m->wq[i].committed;
	return wanted >= m->nfree ? 0 : m->nfree - (uint32_t)wanted;
}

static unsigned popcount_mask(const uint64_t *m)
{
	unsigned n = 0;
	for (MASK_EACH(m, c))
		n++;
	return n;
}

static struct claim *claim_by_owner(struct mk *m, unsigned owner)
{
	for (struct claim *c = m->claims; c; c = c->next)
		if (c->owner == owner)
			return c;
	return 0;
}

static struct claim *claim_by_id(struct mk *m, uint32_t id)
{
	for (struct claim *c = m->claims; c; c = c->next)
		if (c->id == id)
			return c;
	return 0;
}

static void claim_delete(struct mk *m, struct claim *c)
{
	struct claim **pp = &m->claims;
	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	penv_free(c->results);
	penv_free(c);
}

static void reply(struct mk *m, unsigned owner, int tag, int64_t result, const void *body, uint32_t len)
{
	penv_claim_reply(m, owner, tag, result, body, len);
}

/*
 * Takes up to n spare cores of this domain, nearest `near` first. A free core
 * that is running something the protocol did not start (a task of the shell's
 * `run`, the claim's own owner) is passed over: a member could not start there
 * (penv_core_busy: in the kernel, the hart table).
 */
static uint32_t take_spare(struct mk *m, uint32_t n, unsigned near, uint64_t *got)
{
	uint64_t busy[PROTO_MASK_WORDS] = {0};
	uint32_t spare = mk_spare(m), k = 0;
	for (MASK_EACH(m->freemask, c))
		if (penv_core_busy(m, c))
			mask_set(busy, c);
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
		m->freemask[w] &= ~busy[w];
	/* the nearest first, ties to the lowest id (as mk_take_nearest): each free core's distance
	 * is computed once, then the k nearest are picked from that list */
	uint16_t cand[PROTO_MASK_CORES];
	uint8_t dist[PROTO_MASK_CORES];
	unsigned nc = 0;
	for (MASK_EACH(m->freemask, c)) {
		cand[nc] = (uint16_t)c;
		unsigned hops = proto_hops(m->w, near, c);
		dist[nc++] = (uint8_t)(hops < 255 ? hops : 255);
	}
	while (k < n && k < spare && k < nc) {
		unsigned best = k;
		for (unsigned i = k + 1; i < nc; i++)
			if (dist[i] < dist[best])
				best = i;
		uint16_t c = cand[best];
		uint8_t dc = dist[best];
		for (unsigned i = best; i > k; i--) { /* keep the rest in id order: ties stay lowest first */
			cand[i] = cand[i - 1];
			dist[i] = dist[i - 1];
		}
		cand[k] = c;
		dist[k] = dc;
		mask_clear(m->freemask, c);
		mask_set(got, c);
		m->nfree--;
		k++;
	}
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
		m->freemask[w] |= busy[w];
	return k;
}

/* Gives claimed cores back to the micro-kernels of their domains. */
static void free_cores(struct mk *m, uint32_t id, const uint64_t *mask)
{
	for (unsigned d = 0; d < m->w->ndomains; d++) {
		uint64_t part[PROTO_MASK_WORDS] = {0};
		bool any = false;
		for (MASK_EACH(mask, c))
			if (m->w->core_dom[c] == d) {
				mask_set(part, c);
				any = true;
			}
		if (!any)
			continue;
		struct alloc_hdr h = {.kind = AK_CLAIM_FREE, .job = id, .home = m->dom};
		__builtin_memcpy(h.mask, part, sizeof h.mask);
		if (d == m->dom) {
			h.from = m->dom;
			claim_handle(m, &h, sizeof h);
		} else {
			mk_send(m, d, &h, sizeof h);
		}
	}
}

/* The invade is over: the new cores go to the owner, nearest it first. */
static void invade_done(struct mk *m, struct claim *c)
{
	uint16_t cores[PROTO_MASK_CORES];
	unsigned n = 0;
	/* by distance from the owner, ties by core id: an insertion sort of the ids in ascending order */
	for (MASK_EACH(c->fresh, k)) {
		unsigned i = n++, hk = proto_hops(m->w, c->owner, k);
		for (; i > 0 && proto_hops(m->w, c->owner, cores[i - 1]) > hk; i--)
			cores[i] = cores[i - 1];
		cores[i] = (uint16_t)k;
	}
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++) {
		c->mask[w] |= c->fresh[w];
		c->fresh[w] = 0;
	}
	c->ncores += n;
	c->state = CL_IDLE;
	penv_trace(m, TR_SATISFIED, c->id, n, 0);
	reply(m, c->owner, CLAIM_TAG_INVADE, n, cores, n * sizeof cores[0]);
	if (!c->ncores)
		claim_delete(m, c); /* nothing was spare: no claim is left behind */
}

static void on_invade(struct mk *m, const struct alloc_hdr *h)
{
	unsigned owner = h->from;
	struct claim *c = claim_by_owner(m, owner);
	if (!c) {
		c = penv_alloc(sizeof *c);
		if (!c) {
			reply(m, owner, CLAIM_TAG_INVADE, -PROTO_ENOMEM, 0, 0);
			return;
		}
		__builtin_memset(c, 0, sizeof *c);
		c->id = proto_job_id(m->dom, ++m->next_seq);
		c->owner = (uint16_t)owner;
		c->next = m->claims;
		m->claims = c;
	}
	if (c->state != CL_IDLE) {
		reply(m, owner, CLAIM_TAG_INVADE, -PROTO_EBUSY, 0, 0);
		return;
	}
	penv_trace(m, TR_BEGIN, c->id, h->count, h->flags & AF_ANYWHERE);
	uint32_t k = take_spare(m, h->count, owner, c->fresh);
	penv_hold(m, c->id, c->fresh, k, true);
	if (k < h->count && (h->flags & AF_ANYWHERE) && m->w->ndomains > 1) {
		c->state = CL_INVADING;
		c->want = h->count - k;
		c->pending = m->w->ndomains - 1;
		struct alloc_hdr r = {.kind = AK_CLAIM_REQ, .job = c->id, .home = m->dom, .need = c->want,
				      .value = (int32_t)owner, .t_submit = penv_now(m)};
		for (unsigned d = 0; d < m->w->ndomains; d++)
			if (d != m->dom)
				mk_send(m, d, &r, sizeof r);
		return;
	}
	invade_done(m, c);
}

/* Another home's claim asks for cores: commit what is spare now, and always answer. */
static void on_claim_req(struct mk *m, const struct alloc_hdr *h)
{
	uint64_t got[PROTO_MASK_WORDS] = {0};
	unsigned near = (unsigned)h->value < m->w->ncores ? (unsigned)h->value : m->core;
	uint32_t k = take_spare(m, h->need, near, got);
	penv_hold(m, h->job, got, k, true);
	penv_trace(m, TR_COMMIT, h->job, k, h->home);
	struct alloc_hdr r = {.kind = AK_CLAIM_RESP, .job = h->job, .home = h->home, .count = k};
	__builtin_memcpy(r.mask, got, sizeof r.mask);
	mk_send(m, h->home, &r, sizeof r);
}

/* At the home: one answer; after the last, keep the nearest cores and return the rest. */
static void on_claim_resp(struct mk *m, const struct alloc_hdr *h)
{
	struct claim *c = claim_by_id(m, h->job);
	if (!c || c->state != CL_INVADING || !c->pending) {
		penv_fail(m, "home %u: an answer for claim %u that is not growing", m->dom, h->job);
		free_cores(m, h->job, h->mask);
		return;
	}
	bool any = false;
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
		c->offered[w] |= h->mask[w];
	if (--c->pending)
		return;
	uint64_t extra[PROTO_MASK_WORDS];
	__builtin_memcpy(extra, c->offered, sizeof extra);
	/* keep the nearest the owner, ties to the lowest id */
	while (c->want) {
		unsigned best = PROTO_MASK_CORES, best_h = ~0u;
		for (MASK_EACH(extra, k))
			if (proto_hops(m->w, c->owner, k) < best_h) {
				best_h = proto_hops(m->w, c->owner, k);
				best = k;
			}
		if (best == PROTO_MASK_CORES)
			break;
		mask_clear(extra, best);
		mask_set(c->fresh, best);
		c->want--;
	}
	__builtin_memset(c->offered, 0, sizeof c->offered);
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
		any |= extra[w] != 0;
	if (any)
		free_cores(m, c->id, extra);
	invade_done(m, c);
}

static void on_claim_free(struct mk *m, const struct alloc_hdr *h)
{
	uint32_t n = 0;
	uint64_t mine[PROTO_MASK_WORDS] = {0};
	for (MASK_EACH(h->mask, c)) {
		if (c >= m->w->ncores || m->w->core_dom[c] != m->dom || mask_has(m->freemask, c) || c == m->core) {
			penv_fail(m, "micro-kernel %u: claim %u frees core %u, which is not a busy core of it", m->dom,
				   h->job, c);
			continue;
		}
		mask_set(mine, c);
		n++;
	}
	penv_hold(m, h->job, mine, n, false);
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
		m->freemask[w] |= mine[w];
	m->nfree += n;
	m->dirty = true; /* waiting requests may take them now */
	penv_trace(m, TR_END, h->job, n, 0);
}

static void on_retreat(struct mk *m, const struct alloc_hdr *h)
{
	unsigned owner = h->from;
	struct claim *c = claim_by_owner(m, owner);
	bool foreign = false;
	for (unsigned w = 0; c && w < PROTO_MASK_WORDS; w++)
		foreign |= (h->mask[w] & ~c->mask[w]) != 0;
	if (!c || foreign) {
		reply(m, owner, CLAIM_TAG_RETREAT, -PROTO_EINVAL, 0, 0);
		return;
	}
	if (c->state != CL_IDLE) {
		reply(m, owner, CLAIM_TAG_RETREAT, -PROTO_EBUSY, 0, 0);
		return;
	}
	unsigned n = popcount_mask(h->mask);
	uint32_t id = c->id;
	for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
		c->mask[w] &= ~h->mask[w];
	c->ncores -= n;
	if (!c->ncores)
		claim_delete(m, c);
	free_cores(m, id, h->mask);
	reply(m, owner, CLAIM_TAG_RETREAT, n, 0, 0);
}

/* Starts a team: every member on its claimed core, through the micro-kernel of that core's domain. */
static void on_infect(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	unsigned owner = h->from;
	const struct team_body *b = (const struct team_body *)(h + 1);
	const struct member_spec *ms = (const struct member_spec *)(b + 1);
	struct claim *c = claim_by_owner(m, owner);
	if (len != sizeof *h + sizeof *b + h->count * sizeof *ms) {
		reply(m, owner, CLAIM_TAG_INFECT, -PROTO_EINVAL, 0, 0);
		return;
	}
	if (!c || !c->ncores) {
		reply(m, owner, CLAIM_TAG_INFECT, -PROTO_ENOENT, 0, 0); /* an empty claim: nobody to infect */
		return;
	}
	if (c->state != CL_IDLE) {
		reply(m, owner, CLAIM_TAG_INFECT, -PROTO_EBUSY, 0, 0);
		return;
	}
	uint64_t seen[PROTO_MASK_WORDS] = {0};
	for (uint32_t i = 0; i < h->count; i++) {
		if (ms[i].core >= PROTO_MASK_CORES || !mask_has(c->mask, ms[i].core) || mask_has(seen, ms[i].core) || ms[i].index != i) {
			reply(m, owner, CLAIM_TAG_INFECT, -PROTO_EINVAL, 0, 0);
			return;
		}
		mask_set(seen, ms[i].core);
	}
	if (h->count != c->ncores) {
		reply(m, owner, CLAIM_TAG_INFECT, -PROTO_EINVAL, 0, 0); /* one member per claimed core */
		return;
	}
	c->results = penv_alloc(h->count * sizeof *c->results);
	if (!c->results) {
		reply(m, owner, CLAIM_TAG_INFECT, -PROTO_ENOMEM, 0, 0);
		return;
	}
	__builtin_memset(c->results, 0, h->count * sizeof *c->results);
	c->state = CL_TEAM;
	c->members = h->count;
	c->done = c->failed = 0;
	c->t_infect = penv_now(m);
	penv_trace(m, TR_START, c->id, h->count, 0);
	uint8_t *msg = penv_alloc(len);
	if (!msg)
		penv_panic(m, "claim: out of memory for a team");
	for (unsigned d = 0; d < m->w->ndomains; d++) {
		struct alloc_hdr *t = (struct alloc_hdr *)msg;
		*t = (struct alloc_hdr){.kind = AK_TEAM_START, .job = c->id, .home = m->dom, .count = 0};
		__builtin_memcpy(t + 1, b, sizeof *b);
		struct member_spec *out = (struct member_spec *)((struct team_body *)(t + 1) + 1);
		for (uint32_t i = 0; i < h->count; i++)
			if (m->w->core_dom[ms[i].core] == d)
				out[t->count++] = ms[i];
		if (!t->count)
			continue;
		uint32_t tlen = sizeof *t + sizeof *b + t->count * sizeof *out;
		if (d == m->dom) {
			t->from = m->dom;
			penv_team_start(m, t, tlen);
		} else {
			mk_send(m, d, t, tlen);
		}
	}
	penv_free(msg);
	reply(m, owner, CLAIM_TAG_INFECT, 0, 0, 0);
}

/* At the home: a member ended; after the last one the owner gets every result. */
void claim_member_done(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	const struct mosaic_member_result *r = (const struct mosaic_member_result *)(h + 1);
	struct claim *c = claim_by_id(m, h->job);
	if (len != sizeof *h + sizeof *r || !c || c->state != CL_TEAM || h->count >= c->members) {
		penv_fail(m, "home %u: the end of member %u of claim %u, which runs no such team", m->dom, h->count,
			   h->job);
		return;
	}
	c->results[h->count] = *r;
	c->done++;
	if (r->status) {
		c->failed++;
		penv_member_failed(m, c->id, h->count, r, c->owner);
	}
	if (c->done < c->members)
		return;
	c->state = CL_IDLE;
	penv_trace(m, TR_END, c->id, c->members, c->failed);
	struct mosaic_member_result *res = c->results;
	uint32_t n = c->members, failed = c->failed;
	c->results = 0;
	reply(m, c->owner, CLAIM_TAG_TEAM, failed, res, n * sizeof *res);
	penv_free(res);
}

void claim_handle(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	if (m->w->partial) {
		penv_fail(m, "micro-kernel %u: a claim message in partial simulation", m->dom);
		return;
	}
	switch (h->kind) {
	case AK_INVADE:
		on_invade(m, h);
		break;
	case AK_CLAIM_REQ:
		on_claim_req(m, h);
		break;
	case AK_CLAIM_RESP:
		on_claim_resp(m, h);
		break;
	case AK_CLAIM_FREE:
		on_claim_free(m, h);
		break;
	case AK_RETREAT:
		on_retreat(m, h);
		break;
	case AK_INFECT:
		on_infect(m, h, len);
		break;
	}
}
