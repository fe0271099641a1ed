/*
 * Invasive computing at the micro-kernels: claims (OctoPOS's invade and
 * retreat, docs/invasive.md). A claim lives at the micro-kernel of its owner's
 * domain, the claim's home. Growing a claim never waits: the home takes the
 * spare cores of its own domain and, for an invade "anywhere", asks every other
 * micro-kernel for what it can spare at once; each one answers, perhaps with
 * nothing. Spare means free and wanted by no request in the wait queue, so a
 * claim never takes a core that an older job waits for (the global order), and
 * since nothing holds cores while it waits for more, a claim is never part of
 * a cycle of waits (no deadlock). Teams (infect) are in team.c.
 */
#include "kernel/alloc/proto.h"
#include "kernel/domain.h"
#include "kernel/hart.h"
#include "kernel/kheap.h"
#include "kernel/panic.h"
#include "kernel/errno.h"
#include "kernel/console.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "kernel/shell.h"
#include "kernel/vtime.h"

uint32_t mk_spare(const struct mk *m)
{
	uint64_t wanted = 0;
	for (unsigned i = 0; i < m->nwq; i++)
		wanted += m->wq[i].need - m->wq[i].committed;
	return wanted >= m->nfree ? 0 : m->nfree - (uint32_t)wanted;
}

static unsigned popcount2(const uint64_t *m)
{
	unsigned n = 0;
	for (unsigned c = 0; c < MOSAIC_MAX_HARTS; c++)
		n += mask_has(m, c);
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
	kfree(c->results);
	kfree(c);
}

/* Sends a reply to the claim's owner core: a result, then any body. */
static void reply(unsigned owner, int tag, int64_t result, const void *body, uint32_t len)
{
	uint64_t on_stack[(sizeof result + MOSAIC_MAX_HARTS * sizeof(uint16_t)) / 8]; /* an invade's cores fit */
	uint8_t *msg = sizeof result + len <= sizeof on_stack ? (uint8_t *)on_stack : kmalloc(sizeof result + len);
	if (!msg)
		panic("claim: out of memory for a reply");
	memcpy(msg, &result, sizeof result);
	if (len)
		memcpy(msg + sizeof result, body, len);
	int e = msg_send_typed(MSG_TYPE_CLAIM, (int)owner, tag, msg, sizeof result + len);
	ASSERT(e == 0);
	if (msg != (uint8_t *)on_stack)
		kfree(msg);
}

/*
 * Takes up to n spare cores of this domain, nearest `near` first. A free core
 * that is running something the protocol did not start (a task of the shell's
 * `run`, the claim's own owner) is passed over: a member could not start there.
 * This reads the hart table, the kernel's shared record of what each core does.
 */
static uint32_t take_spare(struct mk *m, uint32_t n, unsigned near, uint64_t *got)
{
	uint64_t busy[2] = {0, 0};
	uint32_t spare = mk_spare(m), k = 0;
	for (MASK_EACH(m->freemask, c))
		if (harts[c].state != HART_ONLINE || harts[c].call_fn || harts[c].utask)
			mask_set(busy, c);
	m->freemask[0] &= ~busy[0];
	m->freemask[1] &= ~busy[1];
	/* the nearest first, ties to the lowest id (as mk_take_nearest): each free core's distance
	 * is computed once, then the k nearest are picked from that list */
	uint16_t cand[MOSAIC_MAX_HARTS];
	uint8_t dist[MOSAIC_MAX_HARTS];
	unsigned nc = 0;
	for (MASK_EACH(m->freemask, c)) {
		cand[nc] = (uint16_t)c;
		dist[nc++] = (uint8_t)(mesh_hops(near, c) < 255 ? mesh_hops(near, c) : 255);
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
	m->freemask[0] |= busy[0];
	m->freemask[1] |= busy[1];
	return k;
}

/* Gives claimed cores back to the micro-kernels of their domains. */
static void free_cores(struct mk *m, uint32_t id, const uint64_t *mask)
{
	for (unsigned d = 0; d < layout.ndomains; d++) {
		uint64_t part[2] = {0, 0};
		for (MASK_EACH(mask, c))
			if (domain_of(c) == d)
				mask_set(part, c);
		if (!part[0] && !part[1])
			continue;
		struct alloc_hdr h = {.kind = AK_CLAIM_FREE, .job = id, .home = m->dom, .mask = {part[0], part[1]}};
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
	uint16_t cores[MOSAIC_MAX_HARTS];
	unsigned n = 0;
	/* by distance from the owner, ties by core id: an insertion sort of the ids in ascending order */
	for (MASK_EACH(c->fresh, k)) {
		unsigned i = n++, hk = mesh_hops(c->owner, k);
		for (; i > 0 && mesh_hops(c->owner, cores[i - 1]) > hk; i--)
			cores[i] = cores[i - 1];
		cores[i] = (uint16_t)k;
	}
	c->mask[0] |= c->fresh[0];
	c->mask[1] |= c->fresh[1];
	c->ncores += n;
	c->fresh[0] = c->fresh[1] = 0;
	c->state = CL_IDLE;
	trace_event(TR_SATISFIED, c->id, n, 0);
	reply(c->owner, CLAIM_TAG_INVADE, n, cores, n * sizeof cores[0]);
	if (!c->ncores)
		claim_delete(m, c); /* nothing was spare: no claim is left behind */
}

static void on_invade(struct mk *m, const struct alloc_hdr *h)
{
	unsigned owner = h->from;
	struct claim *c = claim_by_owner(m, owner);
	if (!c) {
		c = kmalloc(sizeof *c);
		if (!c) {
			reply(owner, CLAIM_TAG_INVADE, -ENOMEM, 0, 0);
			return;
		}
		memset(c, 0, sizeof *c);
		c->id = proto_job_id(m->dom, ++m->next_seq);
		c->owner = (uint16_t)owner;
		c->next = m->claims;
		m->claims = c;
	}
	if (c->state != CL_IDLE) {
		reply(owner, CLAIM_TAG_INVADE, -EBUSY, 0, 0);
		return;
	}
	trace_event(TR_BEGIN, c->id, h->count, h->flags & AF_ANYWHERE);
	uint32_t k = take_spare(m, h->count, owner, c->fresh);
	check_claim(c->id, m->dom, c->fresh, k);
	if (k < h->count && (h->flags & AF_ANYWHERE) && layout.ndomains > 1) {
		c->state = CL_INVADING;
		c->want = h->count - k;
		c->pending = layout.ndomains - 1;
		struct alloc_hdr r = {.kind = AK_CLAIM_REQ, .job = c->id, .home = m->dom, .need = c->want,
				      .value = (int32_t)owner, .t_submit = vtime_now_ns()};
		for (unsigned d = 0; d < layout.ndomains; d++)
			if (d != m->dom)
				mk_send(m, d, &r, sizeof r);
		return;
	}
	invade_done(m, c);
}

/* Another home's claim asks for cores: commit what is spare now, and always answer. */
static void on_claim_req(struct mk *m, const struct alloc_hdr *h)
{
	uint64_t got[2] = {0, 0};
	uint32_t k = take_spare(m, h->need, (unsigned)h->value, got);
	check_claim(h->job, m->dom, got, k);
	trace_event(TR_COMMIT, h->job, k, h->home);
	struct alloc_hdr r = {.kind = AK_CLAIM_RESP, .job = h->job, .home = h->home, .count = k,
			      .mask = {got[0], got[1]}};
	mk_send(m, h->home, &r, sizeof r);
}

/* At the home: one answer; after the last, keep the nearest cores and return the rest. */
static void on_claim_resp(struct mk *m, const struct alloc_hdr *h)
{
	struct claim *c = claim_by_id(m, h->job);
	if (!c || c->state != CL_INVADING || !c->pending) {
		check_fail("home %u: an answer for claim %u that is not growing", m->dom, h->job);
		free_cores(m, h->job, h->mask);
		return;
	}
	c->offered[0] |= h->mask[0];
	c->offered[1] |= h->mask[1];
	if (--c->pending)
		return;
	uint64_t extra[2] = {c->offered[0], c->offered[1]};
	for (unsigned hop = 0; hop <= mesh.w + mesh.h && c->want; hop++)
		for (unsigned k = 0; k < mesh.cores && c->want; k++)
			if (mask_has(extra, k) && mesh_hops(c->owner, k) == hop) {
				mask_clear(extra, k);
				mask_set(c->fresh, k);
				c->want--;
			}
	c->offered[0] = c->offered[1] = 0;
	if (extra[0] || extra[1])
		free_cores(m, c->id, extra);
	invade_done(m, c);
}

static void on_claim_free(struct mk *m, const struct alloc_hdr *h)
{
	uint32_t n = 0;
	uint64_t mine[2] = {0, 0};
	for (MASK_EACH(h->mask, c)) {
		if (c >= mesh.cores || domain_of(c) != m->dom || mask_has(m->freemask, c) || is_master(c)) {
			check_fail("micro-kernel %u: claim %u frees core %u, which is not a busy core of it", m->dom,
				   h->job, c);
			continue;
		}
		mask_set(mine, c);
		n++;
	}
	check_release(h->job, m->dom, mine, n);
	m->freemask[0] |= mine[0];
	m->freemask[1] |= mine[1];
	m->nfree += n;
	m->dirty = true; /* waiting requests may take them now */
	trace_event(TR_END, h->job, n, 0);
}

static void on_retreat(struct mk *m, const struct alloc_hdr *h)
{
	unsigned owner = h->from;
	struct claim *c = claim_by_owner(m, owner);
	if (!c || (h->mask[0] & ~c->mask[0]) || (h->mask[1] & ~c->mask[1])) {
		reply(owner, CLAIM_TAG_RETREAT, -EINVAL, 0, 0);
		return;
	}
	if (c->state != CL_IDLE) {
		reply(owner, CLAIM_TAG_RETREAT, -EBUSY, 0, 0);
		return;
	}
	unsigned n = popcount2(h->mask);
	uint32_t id = c->id;
	c->mask[0] &= ~h->mask[0];
	c->mask[1] &= ~h->mask[1];
	c->ncores -= n;
	if (!c->ncores)
		claim_delete(m, c);
	free_cores(m, id, h->mask);
	reply(owner, CLAIM_TAG_RETREAT, n, 0, 0);
}

/* Starts a team: every member on its claimed core, through the micro-kernel of that core's domain. */
static void on_infect(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	unsigned owner = h->from;
	const struct team_body *b = (const struct team_body *)(h + 1);
	const struct member_spec *ms = (const struct member_spec *)(b + 1);
	struct claim *c = claim_by_owner(m, owner);
	if (len != sizeof *h + sizeof *b + h->count * sizeof *ms) {
		reply(owner, CLAIM_TAG_INFECT, -EINVAL, 0, 0);
		return;
	}
	if (!c || !c->ncores) {
		reply(owner, CLAIM_TAG_INFECT, -ENOENT, 0, 0); /* an empty claim: nobody to infect */
		return;
	}
	if (c->state != CL_IDLE) {
		reply(owner, CLAIM_TAG_INFECT, -EBUSY, 0, 0);
		return;
	}
	uint64_t seen[2] = {0, 0};
	for (uint32_t i = 0; i < h->count; i++) {
		if (!mask_has(c->mask, ms[i].core) || mask_has(seen, ms[i].core) || ms[i].index != i) {
			reply(owner, CLAIM_TAG_INFECT, -EINVAL, 0, 0);
			return;
		}
		mask_set(seen, ms[i].core);
	}
	if (h->count != c->ncores) {
		reply(owner, CLAIM_TAG_INFECT, -EINVAL, 0, 0); /* one member per claimed core */
		return;
	}
	c->results = kmalloc(h->count * sizeof *c->results);
	if (!c->results) {
		reply(owner, CLAIM_TAG_INFECT, -ENOMEM, 0, 0);
		return;
	}
	memset(c->results, 0, h->count * sizeof *c->results);
	c->state = CL_TEAM;
	c->members = h->count;
	c->done = c->failed = 0;
	c->t_infect = vtime_now_ns();
	trace_event(TR_START, c->id, h->count, 0);
	uint8_t *msg = kmalloc(len);
	if (!msg)
		panic("claim: out of memory for a team");
	for (unsigned d = 0; d < layout.ndomains; d++) {
		struct alloc_hdr *t = (struct alloc_hdr *)msg;
		*t = (struct alloc_hdr){.kind = AK_TEAM_START, .job = c->id, .home = m->dom, .count = 0};
		memcpy(t + 1, b, sizeof *b);
		struct member_spec *out = (struct member_spec *)((struct team_body *)(t + 1) + 1);
		for (uint32_t i = 0; i < h->count; i++)
			if (domain_of(ms[i].core) == d)
				out[t->count++] = ms[i];
		if (!t->count)
			continue;
		uint32_t tlen = sizeof *t + sizeof *b + t->count * sizeof *out;
		if (d == m->dom) {
			t->from = m->dom;
			team_start(m, t, tlen);
		} else {
			mk_send(m, d, t, tlen);
		}
	}
	kfree(msg);
	reply(owner, CLAIM_TAG_INFECT, 0, 0, 0);
}

/* At the home: a member ended; after the last one the owner gets every result. */
void claim_member_done(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	const struct member_result *r = (const struct member_result *)(h + 1);
	struct claim *c = claim_by_id(m, h->job);
	if (len != sizeof *h + sizeof *r || !c || c->state != CL_TEAM || h->count >= c->members) {
		check_fail("home %u: the end of member %u of claim %u, which runs no such team", m->dom, h->count,
			   h->job);
		return;
	}
	c->results[h->count] = *r;
	c->done++;
	if (r->status) {
		c->failed++;
		kprintf("mosaic: claim %u: member %u on core %u %s%s%s; reported to its owner, core %u\n", c->id,
			h->count, r->core, r->status == -EFAULT ? "was killed" : "could not start (",
			r->status == -EFAULT ? "" : kstrerror(r->status), r->status == -EFAULT ? "" : ")", c->owner);
	}
	if (c->done < c->members)
		return;
	c->state = CL_IDLE;
	trace_event(TR_END, c->id, c->members, c->failed);
	struct member_result *res = c->results;
	uint32_t n = c->members, failed = c->failed;
	c->results = 0;
	reply(c->owner, CLAIM_TAG_TEAM, failed, res, n * sizeof *res);
	kfree(res);
}

void claim_handle(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	if (layout.partial) {
		check_fail("micro-kernel %u: a claim message in partial simulation", m->dom);
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

/* ---- the shell: every claim and its team (an observer: reads the micro-kernels' state) ---- */

static const char *const claim_state_names[] = {"idle", "invading", "team running"};

void claim_print_all(void)
{
	unsigned shown = 0;
	for (unsigned d = 0; d < layout.ndomains; d++)
		for (const struct claim *c = mks[d].claims; c; c = c->next) {
			kprintf("claim %u: home %u, owner core %u, %u cores, %s", c->id, d, c->owner, c->ncores,
				claim_state_names[c->state]);
			if (c->state == CL_TEAM)
				kprintf(": team of %u members, %u ended, %u failed", c->members, c->done, c->failed);
			kprintf("\n  cores:");
			for (unsigned k = 0; k < mesh.cores; k++)
				if (mask_has(c->mask, k))
					kprintf(" %u", k);
			kprintf("\n");
			shown++;
		}
	if (!shown)
		kprintf("no claims\n");
}

SHELL_CMD(claims, "claims", "every claim of invasive computing: its owner, cores and running team")
{
	(void)argv;
	if (argc != 1)
		return SHELL_USAGE;
	claim_print_all();
	return 0;
}
