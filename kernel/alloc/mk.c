/*
 * The micro-kernel's side of job allocation: Algorithm 1's scheduling loop (one
 * step per call from the idle loop), the wait queue in the global order, the
 * commitment of free cores to the requests in that order, and the handlers every
 * policy shares. Policy-specific steps live in policy_ac.c and policy_ab.c.
 */
#include "kernel/alloc/proto.h"
#include "kernel/domain.h"
#include "kernel/hart.h"
#include "kernel/kheap.h"
#include "kernel/errno.h"
#include "kernel/panic.h"
#include "kernel/console.h"
#include "kernel/dispatch/dispatcher.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "kernel/vtime.h"

struct mk mks[MOSAIC_MAX_HARTS];

static const char *const kind_names[AK_KINDS] = {
	[AK_SUBMIT] = "SUBMIT", [AK_REQ] = "REQ", [AK_RESP] = "RESP", [AK_SPAWN] = "SPAWN",
	[AK_CANCEL] = "CANCEL", [AK_SEQ_SUBMIT] = "SEQ_SUBMIT", [AK_SEQ_ALLOC] = "SEQ_ALLOC",
	[AK_TASK_DONE] = "TASK_DONE", [AK_PART_DONE] = "PART_DONE", [AK_PING] = "PING", [AK_TINIT] = "TINIT",
	[AK_ECHO] = "ECHO", [AK_LINKDOWN] = "LINKDOWN", [AK_INVADE] = "INVADE", [AK_CLAIM_REQ] = "CLAIM_REQ",
	[AK_CLAIM_RESP] = "CLAIM_RESP", [AK_CLAIM_FREE] = "CLAIM_FREE", [AK_RETREAT] = "RETREAT",
	[AK_INFECT] = "INFECT", [AK_TEAM_START] = "TEAM_START", [AK_MEMBER_DONE] = "MEMBER_DONE",
};

const char *alloc_kind_name(unsigned k) { return k < AK_KINDS && kind_names[k] ? kind_names[k] : "?"; }

/* The sequencer of atomic broadcast: the micro-kernel nearest the centre of the
 * mesh, so that the submissions travelling to it cross the fewest links on average. */
static unsigned sequencer; /* chosen once by alloc_init: the layout never changes after boot */

void sequencer_choose(void)
{
	uint16_t masters[MOSAIC_MAX_HARTS];
	for (unsigned d = 0; d < layout.ndomains; d++)
		masters[d] = (uint16_t)domain_master(d);
	sequencer = domain_of(mesh_centre_of(masters, layout.ndomains));
}

unsigned sequencer_dom(void) { return sequencer; }

static void mk_init(struct mk *m, unsigned dom)
{
	memset(m, 0, sizeof *m);
	m->dom = (uint16_t)dom;
	m->core = (uint16_t)domain_master(dom);
	m->capacity = alloc_domain_cores(dom);
	m->nfree = m->capacity;
	if (!layout.partial) {
		const struct domain *d = &layout.domains[dom];
		for (unsigned y = d->y0; y < d->y1; y++)
			for (unsigned x = d->x0; x < d->x1; x++)
				if (mesh_core_at(x, y) != m->core)
					mask_set(m->freemask, mesh_core_at(x, y));
	}
	for (unsigned o = 0; o < MOSAIC_MAX_HARTS; o++)
		m->trees[o].parent = 0xffff;
	m->ready = true;
}

struct mk *mk_self(void)
{
	unsigned dom = domain_of(this_cpu());
	struct mk *m = &mks[dom];
	if (!m->ready)
		mk_init(m, dom);
	return m;
}

uint32_t alloc_domain_cores(unsigned dom)
{
	return layout.partial ? layout.vcores : (uint32_t)layout.domains[dom].ncores - 1;
}

uint32_t alloc_machine_cores(void)
{
	uint32_t n = 0;
	for (unsigned d = 0; d < layout.ndomains; d++)
		n += alloc_domain_cores(d);
	return n;
}

/* ---- sending ---- */

void mk_send_core(struct mk *m, unsigned core, struct alloc_hdr *h, uint32_t len)
{
	(void)m;
	int e = msg_send_typed(MSG_TYPE_ALLOC, (int)core, h->kind, h, len);
	ASSERT(e == 0); /* cores and lengths are the kernel's own: a failure is a bug */
	unsigned hops = mesh_hops(this_cpu(), core);
	if (h->kind != AK_SUBMIT)
		stats_msg(h->job, h->kind, hops);
	trace_event(TR_SEND, h->job, core, (uint64_t)h->kind << 32 | hops);
}

int mk_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len)
{
	h->from = m->dom;
	mk_send_core(m, domain_master(to_dom), h, len);
	return 0;
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

/* Grows a kmalloc'd array of entries; false (and nothing changed) when memory is out. */
static bool grow(struct wq_entry **arr, unsigned *cap, unsigned n)
{
	if (n < *cap)
		return true;
	unsigned ncap = *cap ? *cap * 2 : 16;
	struct wq_entry *a = kmalloc(ncap * sizeof *a);
	if (!a)
		return false;
	if (*arr) {
		memcpy(a, *arr, n * sizeof *a);
		kfree(*arr);
	}
	*arr = a;
	*cap = ncap;
	return true;
}

/* Inserts e at its place in the global order; sq-style arrays use the same helper. */
static struct wq_entry *sorted_insert(struct wq_entry **arr, unsigned *n, unsigned *cap, const struct wq_entry *e)
{
	if (!grow(arr, cap, *n))
		panic("alloc: out of memory for a wait queue of %u entries", *n);
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
	return sorted_insert(&m->wq, &m->nwq, &m->wq_cap, e);
}

void sq_insert(struct mk *m, const struct wq_entry *e);
void sq_insert(struct mk *m, const struct wq_entry *e)
{
	m->dirty = true;
	sorted_insert(&m->sq, &m->nsq, &m->sq_cap, e);
}

/* Removes an entry; with `release`, the cores committed to it become free again. */
void wq_remove(struct mk *m, struct wq_entry *e, bool release)
{
	if (release && e->committed) {
		m->nfree += e->committed;
		m->freemask[0] |= e->mask[0];
		m->freemask[1] |= e->mask[1];
	}
	unsigned i = (unsigned)(e - m->wq);
	memmove(&m->wq[i], &m->wq[i + 1], (m->nwq - i - 1) * sizeof *e);
	m->nwq--;
	m->dirty = true;
}

void tomb_add(struct mk *m, uint32_t job, uint16_t attempt)
{
	for (unsigned i = 0; i < ALLOC_TOMBS; i++)
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
	for (unsigned i = 0; i < ALLOC_TOMBS; i++)
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

/* Real-task mode: takes the free core nearest `near` (the job's home micro-kernel). */
unsigned mk_take_nearest(struct mk *m, unsigned near)
{
	unsigned best = ~0u, best_h = ~0u;
	for (MASK_EACH(m->freemask, c)) {
		unsigned h = mesh_hops(near, c);
		if (h < best_h) {
			best_h = h;
			best = c;
		}
	}
	ASSERT(best != ~0u);
	mask_clear(m->freemask, best);
	return best;
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
		uint64_t chosen[2] = {0, 0};
		if (!layout.partial)
			for (uint32_t k = 0; k < give; k++)
				mask_set(chosen, mk_take_nearest(m, domain_master(e->home)));
		check_commit_order(m, e);
		e->committed += give;
		e->mask[0] |= chosen[0];
		e->mask[1] |= chosen[1];
		m->nfree -= give;
		check_claim(e->job, m->dom, chosen, give);
		trace_event(TR_COMMIT, e->job, give, e->home);
		if (e->home == m->dom) {
			struct home_job *j = home_find(m, e->job);
			ASSERT(j);
			home_commit(m, j, m->dom, give, chosen);
		} else {
			struct alloc_hdr h = {.kind = AK_RESP, .job = e->job, .home = e->home, .attempt = e->attempt,
					      .count = give, .mask = {chosen[0], chosen[1]}};
			mk_send(m, e->home, &h, sizeof h);
		}
	}
}

/* A commitment for the home's own job: when it has all it needs, it is satisfied
 * (spawned by the periodic procedure, after the wait queue walk). */
void home_commit(struct mk *m, struct home_job *j, unsigned from, uint32_t count, const uint64_t *mask)
{
	(void)m;
	j->commit_count[from] += (uint16_t)count;
	j->commit_mask[from][0] |= mask[0];
	j->commit_mask[from][1] |= mask[1];
	j->got += count;
	if (j->state == HJ_SEQ_WAIT)
		j->state = HJ_REQUESTING; /* AB: a commitment came before the sequencer's request did */
	if (j->state == HJ_REQUESTING && j->got >= job_cores(&j->spec))
		j->state = HJ_SATISFIED;
}

/* ---- handlers ---- */

static void begin(struct mk *m, struct home_job *j)
{
	trace_event(TR_BEGIN, j->id, job_cores(&j->spec), j->global);
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
	} else if (alloc_cfg.policy == ALLOC_POLICY_AC) {
		ac_begin(m, j);
	} else {
		ab_begin(m, j);
	}
	m->dirty = true;
}

/* A delayed submission's time has come (runs as a dispatcher task on the home). */
static int begin_task(struct task *t)
{
	begin(mk_self(), (struct home_job *)t->args[0]);
	return TASK_RET_SUCCESS;
}

static void on_submit(struct mk *m, const struct alloc_hdr *h, const struct job_spec *s)
{
	struct home_job *j = kmalloc(sizeof *j);
	if (!j)
		panic("alloc: out of memory for a job");
	memset(j, 0, sizeof *j);
	j->spec = *s;
	j->id = (uint32_t)m->dom << 20 | (++m->next_seq & 0xfffff);
	j->submitter = h->from;
	uint64_t now = vtime_now_ns();
	j->t_submit = s->t_submit_ns ? s->t_submit_ns : now;
	j->global = job_cores(s) > m->capacity;
	j->next = m->jobs;
	m->jobs = j;
	m->njobs++;
	stats_job_reset(j->id);
	trace_event(TR_SUBMIT, j->id, h->from, s->ntasks);
	if (j->t_submit <= now) {
		begin(m, j);
		return;
	}
	uint64_t args[1] = {(uint64_t)j};
	task_init(&j->begin, begin_task, args, 1);
	task_set_timing(&j->begin, timer_ns_to_ticks_ceil(j->t_submit) - timer_ns_to_ticks_ceil(now), 0);
	if (task_dispatch(&j->begin, this_cpu()))
		begin(m, j);
}

/* A request from another micro-kernel (or from the sequencer, AB). */
static void on_request(struct mk *m, const struct alloc_hdr *h)
{
	if (tomb_closed(m, h->job, h->attempt))
		return; /* a late copy of a request that was already cancelled or spawned */
	struct wq_entry *old = wq_find(m, h->job);
	if (old) {
		if (old->attempt >= h->attempt)
			return;
		wq_remove(m, old, true); /* a renewed request implies the end of the old one */
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
	if (alloc_cfg.policy == ALLOC_POLICY_AC)
		ac_on_request(m, h);
}

static void on_cancel(struct mk *m, const struct alloc_hdr *h)
{
	struct wq_entry *e = wq_find(m, h->job);
	if (e && e->attempt <= h->attempt) {
		check_release(e->job, m->dom, e->mask, e->committed);
		wq_remove(m, e, true);
	}
	tomb_add(m, h->job, h->attempt);
	trace_event(TR_CANCEL, h->job, h->home, h->attempt);
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

static void handle(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	m->dirty = true;
	switch (h->kind) {
	case AK_SUBMIT:
		if (len >= sizeof *h + sizeof(struct job_spec))
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
		run_part_done(m, h);
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
		team_start(m, h, len);
		break;
	case AK_MEMBER_DONE:
		claim_member_done(m, h, len);
		break;
	default:
		kprintf("alloc: micro-kernel %u dropped a message of unknown kind %u from core %u\n", m->dom, h->kind,
			h->from);
	}
}

/* The policy's periodic procedure, then the jobs of this home that became satisfied. */
static void periodic(struct mk *m)
{
	if (alloc_cfg.policy == ALLOC_POLICY_AC)
		ac_periodic(m);
	else
		ab_periodic(m);
	mk_commit(m);
	for (struct home_job *j = m->jobs; j; j = j->next)
		if (j->state == HJ_SATISFIED)
			home_satisfied(m, j);
	run_reap(m);
}

volatile bool alloc_running;

/*
 * Algorithm 1, one turn: a non-blocking receive of the fixed-size header (a
 * probe), then the whole message and its handler; the periodic procedure runs
 * whenever something changed. With nothing to do the core goes back to its
 * idle wait, which sleeps in WFI until the next message is delivered.
 */
bool alloc_step(void)
{
	static bool inside[MOSAIC_MAX_HARTS];
	unsigned me = this_cpu();
	if (!alloc_running || !is_master(me) || inside[me])
		return false;
	inside[me] = true;
	struct mk *m = mk_self();
	bool did = false;
	struct msg_status st;
	/* the hint first: most passes of an idle loop find no protocol message, and a probe
	 * would look through the mailbox under its lock to say so */
	if (msg_maybe_pending(MSG_TYPE_ALLOC) &&
	    msg_probe_typed(MSG_TYPE_ALLOC, MSG_ANY_SOURCE, MSG_ANY_TAG, false, &st) == 0) {
		uint8_t *buf = kmalloc(st.len ? st.len : 1);
		if (!buf)
			panic("alloc: out of memory for a %u-byte message", st.len);
		struct msg_request req;
		int e = msg_irecv_typed(MSG_TYPE_ALLOC, st.source, st.tag, buf, st.len, &req);
		if (!e)
			e = msg_wait(&req, &st);
		ASSERT(e == 0);
		struct alloc_hdr *h = (struct alloc_hdr *)buf;
		if (st.len >= sizeof *h) {
			trace_event(TR_RECV, h->job, (unsigned)st.source, (uint64_t)h->kind << 32 | st.hops);
			handle(m, h, st.len);
		} else {
			kprintf("alloc: micro-kernel %u dropped a %u-byte message from core %d\n", m->dom, st.len,
				st.source);
		}
		kfree(buf);
		did = true;
	}
	if (m->dirty) {
		m->dirty = false;
		periodic(m);
		did = true;
	}
	if (m->starting)
		team_retry(m); /* a member's core was still ending its last call; it wakes us when done */
	inside[me] = false;
	return did;
}
