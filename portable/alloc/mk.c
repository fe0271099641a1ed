/*
 * The micro-kernel's side of job allocation: Algorithm 1's handlers and its
 * periodic procedure, the wait queue in the global order, the commitment of free
 * cores to the requests in that order, and the handlers every policy shares.
 * Policy-specific steps live in policy_ac.c and policy_ab.c, propagation in
 * propagate.c, mapping and running jobs in spawn.c.
 */
#include "portable/alloc/proto_env.h"
#include "portable/noc/centre.h"

static const char *const kind_names[AK_KINDS] = {
	[AK_SUBMIT] = "SUBMIT", [AK_REQ] = "REQ", [AK_RESP] = "RESP", [AK_SPAWN] = "SPAWN",
	[AK_CANCEL] = "CANCEL", [AK_SEQ_SUBMIT] = "SEQ_SUBMIT", [AK_SEQ_ALLOC] = "SEQ_ALLOC",
	[AK_TASK_DONE] = "TASK_DONE", [AK_PART_DONE] = "PART_DONE", [AK_PING] = "PING", [AK_TINIT] = "TINIT",
	[AK_ECHO] = "ECHO", [AK_LINKDOWN] = "LINKDOWN", [AK_INVADE] = "INVADE", [AK_CLAIM_REQ] = "CLAIM_REQ",
	[AK_CLAIM_RESP] = "CLAIM_RESP", [AK_CLAIM_FREE] = "CLAIM_FREE", [AK_RETREAT] = "RETREAT",
	[AK_INFECT] = "INFECT", [AK_TEAM_START] = "TEAM_START", [AK_MEMBER_DONE] = "MEMBER_DONE",
};

const char *alloc_kind_name(unsigned k) { return k < AK_KINDS && kind_names[k] ? kind_names[k] : "?"; }

static const char *const policy_names[ALLOC_POLICIES] = {"ac", "ab"};
static const char *const scheme_names[ALLOC_SCHEMES] = {"naive", "flood", "fixed", "adaptive"};

const char *alloc_policy_name(enum alloc_policy p) { return (unsigned)p < ALLOC_POLICIES ? policy_names[p] : "?"; }
const char *alloc_scheme_name(enum alloc_scheme s) { return (unsigned)s < ALLOC_SCHEMES ? scheme_names[s] : "?"; }

static bool same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int alloc_policy_parse(const char *s)
{
	for (int i = 0; i < ALLOC_POLICIES; i++)
		if (same(s, policy_names[i]))
			return i;
	return -1;
}

int alloc_scheme_parse(const char *s)
{
	for (int i = 0; i < ALLOC_SCHEMES; i++)
		if (same(s, scheme_names[i]))
			return i;
	return -1;
}

/* The sequencer's place: the micro-kernel nearest the centre of all of them (noc_centre:
 * the largest hop distance to any other, then the sum of the distances, then the lowest
 * core id). */
unsigned proto_centre_domain(const struct proto_world *w)
{
	unsigned width = 0, height = 0;
	for (unsigned i = 0; i < w->ndomains; i++) {
		unsigned x = w->core_x[w->master[i]], y = w->core_y[w->master[i]];
		width = x + 1 > width ? x + 1 : width;
		height = y + 1 > height ? y + 1 : height;
	}
	uint32_t *scratch = penv_alloc(NOC_CENTRE_SCRATCH(width, height) * sizeof *scratch +
				       w->ndomains * sizeof(struct noc_point));
	if (!scratch)
		penv_panic(0, "protocol core: out of memory choosing the sequencer");
	struct noc_point *p = (struct noc_point *)(scratch + NOC_CENTRE_SCRATCH(width, height));
	for (unsigned i = 0; i < w->ndomains; i++) {
		unsigned core = w->master[i];
		p[i] = (struct noc_point){w->core_x[core], w->core_y[core], (uint16_t)core};
	}
	unsigned best = noc_centre(p, w->ndomains, width, height, scratch);
	penv_free(scratch);
	return best;
}

static void grow(struct mk *m, struct wq_entry **arr, unsigned *cap, unsigned n);

void proto_mk_init(struct mk *m, const struct proto_world *w, unsigned dom, unsigned core, uint32_t capacity,
		   const uint64_t *freemask)
{
	__builtin_memset(m, 0, sizeof *m);
	m->w = w;
	m->dom = (uint16_t)dom;
	m->core = (uint16_t)core;
	m->capacity = capacity;
	m->nfree = capacity;
	if (freemask)
		__builtin_memcpy(m->freemask, freemask, sizeof m->freemask);
	m->ping_requester = -1;
	m->ready = true;
	/* every table's first entries now, not at the first job that needs them: the wait queue, the
	 * dormant requests (AC), the sequencer's queue (AB, at its micro-kernel) and the origins a
	 * propagation heard from. The objects a kernel holds are then the same before and after a
	 * job (a leak check compares them); a table that grows later replaces its object by one
	 * twice as large, and none ever shrinks */
	grow(m, &m->wq, &m->wq_cap, 0);
	grow(m, &m->dormant, &m->dormant_cap, 0);
	if (dom == w->sequencer)
		grow(m, &m->sq, &m->sq_cap, 0);
	origins_init(m);
}

void home_job_free(struct home_job *j)
{
	penv_free(j->commit_count);
	penv_free(j->commit_mask);
	penv_free(j->assign);
	penv_free(j->holds);
	penv_free(j);
}

void proto_mk_destroy(struct mk *m)
{
	while (m->jobs) {
		struct home_job *j = m->jobs;
		m->jobs = j->next;
		home_job_free(j);
	}
	while (m->parts) {
		struct run_part *p = m->parts;
		m->parts = p->next;
		run_part_free(m, p);
	}
	while (m->held) {
		struct held_msg *h = m->held;
		m->held = h->next;
		penv_free(h);
	}
	penv_free(m->wq);
	penv_free(m->sq);
	penv_free(m->dormant);
	penv_free(m->origins);
	m->ready = false;
}

/* ---- sending ---- */

void mk_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len)
{
	h->from = m->dom;
	penv_send(m, to_dom, h, len);
}

/* ---- the global order and the wait queue ---- */

bool order_before(uint64_t ta, uint16_t ha, uint32_t ja, uint64_t tb, uint16_t hb, uint32_t jb)
{
	if (ta != tb)
		return ta < tb;
	if (ha != hb)
		return ha < hb;
	return ja < jb;
}

struct wq_entry *wq_find(struct mk *m, uint32_t job)
{
	for (unsigned i = 0; i < m->nwq; i++)
		if (m->wq[i].job == job)
			return &m->wq[i];
	return 0;
}

/* Grows an array of entries to hold n + 1. */
static void grow(struct mk *m, struct wq_entry **arr, unsigned *cap, unsigned n)
{
	if (n < *cap)
		return;
	unsigned ncap = *cap ? *cap * 2 : 16;
	struct wq_entry *a = penv_alloc(ncap * sizeof *a);
	if (!a)
		penv_panic(m, "alloc: out of memory for a wait queue of %u entries", n);
	if (*arr) {
		__builtin_memcpy(a, *arr, n * sizeof *a);
		penv_free(*arr);
	}
	*arr = a;
	*cap = ncap;
}

/* Inserts e at its place in the global order; the sequencer's queue uses the same helper. */
struct wq_entry *entries_insert(struct mk *m, struct wq_entry **arr, unsigned *n, unsigned *cap,
				const struct wq_entry *e)
{
	grow(m, arr, cap, *n);
	unsigned i = *n;
	while (i > 0 && order_before(e->t_submit, e->home, e->job, (*arr)[i - 1].t_submit, (*arr)[i - 1].home,
				     (*arr)[i - 1].job)) {
		(*arr)[i] = (*arr)[i - 1];
		i--;
	}
	(*arr)[i] = *e;
	(*n)++;
	return &(*arr)[i];
}

struct wq_entry *wq_insert(struct mk *m, const struct wq_entry *e)
{
	m->dirty = true;
	return entries_insert(m, &m->wq, &m->nwq, &m->wq_cap, e);
}

void sq_insert(struct mk *m, const struct wq_entry *e)
{
	m->dirty = true;
	entries_insert(m, &m->sq, &m->nsq, &m->sq_cap, e);
}

/* Removes an entry; with `release`, the cores committed to it become free again. */
void wq_remove(struct mk *m, struct wq_entry *e, bool release)
{
	if (release && e->committed) {
		m->nfree += e->committed;
		for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
			m->freemask[w] |= e->mask[w];
	}
	unsigned i = (unsigned)(e - m->wq);
	__builtin_memmove(&m->wq[i], &m->wq[i + 1], (m->nwq - i - 1) * sizeof *e);
	m->nwq--;
	m->dirty = true;
}

/* Tombs in use: the ring fills from slot 0 and a slot never empties again, so until the last
 * slot is taken only those before tomb_next can match (job ids are never 0). Every request
 * looks here: a node of a storm scans the jobs it has seen, not all 256 slots. */
static unsigned tombs_used(const struct mk *m)
{
	return m->tombs[ALLOC_TOMBS - 1].job ? ALLOC_TOMBS : m->tomb_next;
}

void tomb_add(struct mk *m, uint32_t job, uint16_t attempt)
{
	for (unsigned i = 0, n = tombs_used(m); i < n; i++)
		if (m->tombs[i].job == job) {
			if (attempt > m->tombs[i].attempt)
				m->tombs[i].attempt = attempt;
			return;
		}
	m->tombs[m->tomb_next] = (struct tomb){job, attempt};
	m->tomb_next = (m->tomb_next + 1) % ALLOC_TOMBS;
}

bool tomb_closed(struct mk *m, uint32_t job, uint16_t attempt)
{
	for (unsigned i = 0, n = tombs_used(m); i < n; i++)
		if (m->tombs[i].job == job && m->tombs[i].attempt >= attempt)
			return true;
	return false;
}

struct home_job *home_find(struct mk *m, uint32_t job)
{
	for (struct home_job *j = m->jobs; j; j = j->next)
		if (j->id == job)
			return j;
	return 0;
}

/* ---- commitment ---- */

unsigned mk_take_nearest(struct mk *m, unsigned near)
{
	unsigned best = ~0u, best_h = ~0u;
	for (MASK_EACH(m->freemask, c)) {
		unsigned h = proto_hops(m->w, near, c);
		if (h < best_h) {
			best_h = h;
			best = c;
		}
	}
	PROTO_ASSERT(m, best != ~0u);
	mask_clear(m->freemask, best);
	return best;
}

/* Cores go to the oldest request first: nothing before e may still want cores here. */
static void check_commit_order(struct mk *m, const struct wq_entry *e)
{
	if (!m->w->cfg->check)
		return;
	for (const struct wq_entry *o = m->wq; o < e; o++)
		if (o->committed < o->need)
			penv_fail(m, "micro-kernel %u commits to job %u before older job %u has what it asked", m->dom,
				  e->job, o->job);
}

/*
 * Gives free cores to the requests in the wait queue, oldest first: each request
 * gets what it still wants from here before any later one gets a core. Commits
 * to a job of this home are counted at once; others are sent to their home.
 */
void mk_commit(struct mk *m)
{
	for (unsigned i = 0; i < m->nwq && m->nfree; i++) {
		struct wq_entry *e = &m->wq[i];
		uint32_t give = e->need - e->committed;
		if (!give)
			continue;
		if (e->local && give > m->nfree)
			break; /* all or nothing, in order: nothing younger takes the cores it waits for */
		if (give > m->nfree)
			give = m->nfree;
		uint64_t chosen[PROTO_MASK_WORDS] = {0};
		if (!m->w->partial)
			for (uint32_t k = 0; k < give; k++)
				mask_set(chosen, mk_take_nearest(m, m->w->master[e->home]));
		check_commit_order(m, e);
		e->committed += give;
		for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
			e->mask[w] |= chosen[w];
		m->nfree -= give;
		penv_hold(m, e->job, chosen, give, true);
		penv_trace(m, TR_COMMIT, e->job, give, e->home);
		if (e->home == m->dom) {
			struct home_job *j = home_find(m, e->job);
			PROTO_ASSERT(m, j);
			home_commit(m, j, m->dom, give, chosen);
		} else {
			struct alloc_hdr h = {.kind = AK_RESP, .job = e->job, .home = e->home, .attempt = e->attempt,
					      .count = give};
			__builtin_memcpy(h.mask, chosen, sizeof h.mask);
			mk_send(m, e->home, &h, sizeof h);
		}
	}
}

/* Forgets the commitments of the job's previous attempt (a new request starts from none). */
void home_reset_commits(struct mk *m, struct home_job *j)
{
	j->got = 0;
	__builtin_memset(j->commit_count, 0, m->w->ndomains * sizeof *j->commit_count);
	if (j->commit_mask)
		__builtin_memset(j->commit_mask, 0, m->w->ndomains * sizeof *j->commit_mask);
}

/* A commitment for the home's own job: when it has all it needs, it is satisfied
 * (spawned by the periodic procedure, after the wait queue walk). */
void home_commit(struct mk *m, struct home_job *j, unsigned from, uint32_t count, const uint64_t *mask)
{
	if (from >= m->w->ndomains) {
		penv_fail(m, "home %u: a commitment for job %u from micro-kernel %u, which does not exist", m->dom,
			  j->id, from);
		return;
	}
	j->commit_count[from] = (uint16_t)(j->commit_count[from] + count);
	if (j->commit_mask)
		for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
			j->commit_mask[from][w] |= mask[w];
	j->got += count;
	if (j->state == HJ_SEQ_WAIT)
		j->state = HJ_REQUESTING; /* AB: a commitment came before the sequencer's request did */
	if (j->state == HJ_REQUESTING && j->got >= job_cores(&j->spec))
		j->state = HJ_SATISFIED;
}

/* ---- handlers ---- */

static void begin(struct mk *m, struct home_job *j)
{
	penv_trace(m, TR_BEGIN, j->id, job_cores(&j->spec), j->global);
	if (!j->global) {
		j->state = HJ_REQUESTING;
		j->attempt = 1;
		j->attempts = 1;
		struct wq_entry e = {.job = j->id, .home = m->dom, .attempt = 1, .t_submit = j->t_submit,
				     .need = job_cores(&j->spec), .local = true};
		/* never queue ahead of a request that already holds cores here: it might wait for
		 * them while they wait for it (docs/allocation.md, "local jobs") */
		for (unsigned i = 0; i < m->nwq; i++)
			if (m->wq[i].committed && !order_before(m->wq[i].t_submit, m->wq[i].home, m->wq[i].job,
								e.t_submit, e.home, e.job))
				e.t_submit = m->wq[i].t_submit + 1;
		wq_insert(m, &e);
	} else if (m->w->cfg->policy == ALLOC_POLICY_AC) {
		ac_begin(m, j);
	} else {
		ab_begin(m, j);
	}
	m->dirty = true;
}

static void on_submit(struct mk *m, const struct alloc_hdr *h, const struct job_spec *s)
{
	unsigned nd = m->w->ndomains;
	struct home_job *j = penv_alloc(sizeof *j);
	uint16_t *counts = penv_alloc(nd * sizeof *counts);
	uint64_t(*masks)[PROTO_MASK_WORDS] = m->w->partial ? 0 : penv_alloc(nd * sizeof *masks);
	if (!j || !counts || (!m->w->partial && !masks))
		penv_panic(m, "alloc: out of memory for a job");
	__builtin_memset(j, 0, sizeof *j);
	j->commit_count = counts;
	j->commit_mask = masks;
	j->spec = *s;
	j->id = proto_job_id(m->dom, ++m->next_seq);
	j->submitter = h->from;
	home_reset_commits(m, j);
	uint64_t now = penv_now(m);
	j->t_submit = s->t_submit_ns ? s->t_submit_ns : now;
	j->global = job_cores(s) > m->capacity;
	j->next = m->jobs;
	m->jobs = j;
	m->njobs++;
	penv_trace(m, TR_SUBMIT, j->id, h->from, s->ntasks);
	if (j->t_submit <= now) {
		begin(m, j);
		return;
	}
	j->begin = (struct proto_timer){.kind = PT_BEGIN, .obj = j};
	j->begin.armed = penv_timer(m, &j->begin, j->t_submit);
	if (!j->begin.armed)
		begin(m, j);
}

/* A request from another micro-kernel (or from the sequencer, AB). */
static void on_request(struct mk *m, const struct alloc_hdr *h)
{
	if (m->w->cfg->policy == ALLOC_POLICY_AC)
		ac_note_progress(m, h->job, h->attempt);
	if (tomb_closed(m, h->job, h->attempt))
		return; /* a late copy of a request that was already cancelled or spawned */
	struct wq_entry *old = wq_find(m, h->job);
	if (old) {
		if (old->attempt >= h->attempt)
			return;
		/* a renewed request implies the end of the old one (its CANCEL is still on its way:
		 * the two took different paths); the observers hear of the release as on a cancel */
		penv_hold(m, old->job, old->mask, old->committed, false);
		wq_remove(m, old, true);
	}
	struct wq_entry e = {.job = h->job, .home = h->home, .attempt = h->attempt, .t_submit = h->t_submit,
			     .need = h->need};
	if (h->home == m->dom) {
		struct home_job *j = home_find(m, h->job);
		if (!j) {
			/* AB: the job ran and ended on the others' commitments before its own request
			 * reached its home: nothing to queue */
			tomb_add(m, h->job, 0xffff);
			return;
		}
		if (j->state == HJ_SEQ_WAIT)
			j->state = HJ_REQUESTING;
		else if (j->state != HJ_REQUESTING)
			e.need = 0; /* AB: satisfied by the others' commitments before its own request came */
	}
	wq_insert(m, &e);
	if (m->w->cfg->policy == ALLOC_POLICY_AC)
		ac_on_request(m, h);
}

static void on_cancel(struct mk *m, const struct alloc_hdr *h)
{
	struct wq_entry *e = wq_find(m, h->job);
	if (e && e->attempt <= h->attempt) {
		penv_hold(m, e->job, e->mask, e->committed, false);
		wq_remove(m, e, true);
	}
	if (m->w->cfg->policy == ALLOC_POLICY_AC && h->home != m->dom)
		ac_note_cancel(m, h);
	tomb_add(m, h->job, h->attempt);
	penv_trace(m, TR_CANCEL, h->job, h->home, h->attempt);
}

static void on_resp(struct mk *m, const struct alloc_hdr *h)
{
	struct home_job *j = home_find(m, h->job);
	/* a commitment to an attempt that was cancelled meanwhile: its sender released
	 * those cores when the cancel reached it */
	if (!j || h->attempt != j->attempt || (j->state != HJ_REQUESTING && j->state != HJ_SEQ_WAIT))
		return;
	home_commit(m, j, h->from, h->count, h->mask);
}

/* The kinds that carry a body after the header, and the least they must hold. */
static uint32_t least_len(unsigned kind)
{
	switch (kind) {
	case AK_SUBMIT:
		return sizeof(struct alloc_hdr) + sizeof(struct job_spec);
	case AK_SPAWN:
	case AK_SEQ_ALLOC:
		return sizeof(struct alloc_hdr) + sizeof(struct spawn_body);
	default:
		return sizeof(struct alloc_hdr);
	}
}

void proto_receive(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	if (len < least_len(h->kind)) {
		penv_log(m, "alloc: micro-kernel %u dropped a %u-byte %s message from %u\n", m->dom, len,
			 alloc_kind_name(h->kind), h->from);
		return;
	}
	m->dirty = true;
	switch (h->kind) {
	case AK_SUBMIT:
		on_submit(m, h, (const struct job_spec *)(h + 1));
		break;
	case AK_REQ:
		if (prop_receive(m, h, len))
			on_request(m, h);
		break;
	case AK_CANCEL:
		if (prop_receive(m, h, len))
			on_cancel(m, h);
		break;
	case AK_SPAWN:
		if (prop_receive(m, h, len))
			spawn_receive(m, h, len);
		break;
	case AK_RESP:
		on_resp(m, h);
		break;
	case AK_SEQ_SUBMIT:
		ab_on_seq_submit(m, h);
		break;
	case AK_SEQ_ALLOC:
		ab_on_seq_alloc(m, h, len);
		break;
	case AK_TASK_DONE:
		run_task_done(m, h);
		break;
	case AK_PART_DONE:
		run_part_done(m, h, len);
		break;
	case AK_PING:
		if (h->flags & AF_DIRECT)
			prop_ping(m, h->rx0, h->ry0, h->rx1, h->ry1, h->from);
		else
			prop_receive(m, h, len);
		break;
	case AK_TINIT:
		prop_receive(m, h, len);
		break;
	case AK_ECHO:
		prop_on_echo(m, h);
		break;
	case AK_LINKDOWN:
		if (h->flags & AF_DIRECT)
			prop_linkdown_start(m, h);
		else if (prop_receive(m, h, len))
			prop_on_linkdown(m, h);
		break;
	case AK_INVADE:
	case AK_CLAIM_REQ:
	case AK_CLAIM_RESP:
	case AK_CLAIM_FREE:
	case AK_RETREAT:
	case AK_INFECT:
		claim_handle(m, h, len);
		break;
	case AK_TEAM_START:
		penv_team_start(m, h, len);
		break;
	case AK_MEMBER_DONE:
		claim_member_done(m, h, len);
		break;
	default:
		penv_log(m, "alloc: micro-kernel %u dropped a message of unknown kind %u from core %u\n", m->dom,
			 h->kind, h->from);
	}
}

void proto_timer_fired(struct mk *m, struct proto_timer *t)
{
	t->fired = true;
	m->dirty = true;
	if (t->kind == PT_BEGIN)
		begin(m, (struct home_job *)t->obj);
	else if (t->kind == PT_PART_END)
		run_part_timer(m, (struct run_part *)t->obj);
}

/* The policy's periodic procedure, then the jobs of this home that became satisfied. */
bool proto_settle(struct mk *m)
{
	if (!m->dirty)
		return false;
	m->dirty = false;
	if (m->w->cfg->policy == ALLOC_POLICY_AC)
		ac_periodic(m);
	else
		ab_periodic(m);
	mk_commit(m);
	for (struct home_job *j = m->jobs; j; j = j->next)
		if (j->state == HJ_SATISFIED)
			home_satisfied(m, j);
	run_reap(m);
	return true;
}
