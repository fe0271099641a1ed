/*
 * The protocol core's environment on the simulator (portable/alloc/proto_env.h),
 * the counterpart of the kernel's kernel/alloc/binding.c:
 *  - sending queues an event at the delivery time the NoC model gives (never a
 *    synchronous call: the core may hold pointers into its state across a send);
 *  - each micro-kernel has its own clock (S.busy): an event is handled at the
 *    later of its time and the end of the micro-kernel's previous handler, and
 *    every handler, send, timer and periodic pass moves the clock on by its
 *    software cost (sim/costs.h), as the kernel's virtual time would;
 *  - penv_hold and penv_fail are real invariant checks: no core (real-task mode)
 *    or virtual core (partial simulation) held twice, never more than a micro-
 *    kernel's capacity, and after every event each micro-kernel's free count
 *    agrees with what the checks saw it commit and release.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"
#include "sim/costs.h"

struct sim S;

uint64_t sim_rand(void) /* splitmix64: seeded by --seed, the only randomness */
{
	uint64_t z = (S.rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- job id -> scenario job ---- */

#define JOB_SLOTS (4 * SIM_MAX_JOBS) /* > 2 x SIM_MAX_JOBS: open addressing stays short */
static uint32_t slot_id[JOB_SLOTS];
static int16_t slot_idx[JOB_SLOTS];

int sim_job_index(uint32_t id)
{
	if (!id)
		return -1;
	for (unsigned i = (id * 2654435761u) % JOB_SLOTS;; i = (i + 1) % JOB_SLOTS) {
		if (slot_id[i] == id)
			return slot_idx[i];
		if (!slot_id[i])
			return -1;
	}
}

static void job_bind(uint32_t id, int idx)
{
	unsigned i = (id * 2654435761u) % JOB_SLOTS;
	while (slot_id[i] && slot_id[i] != id)
		i = (i + 1) % JOB_SLOTS;
	slot_id[i] = id;
	slot_idx[i] = (int16_t)idx;
}

#define MAX_VIOLATION_TEXTS 20
char sim_violation_text[MAX_VIOLATION_TEXTS][200];

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	if (S.violations < MAX_VIOLATION_TEXTS) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(sim_violation_text[S.violations], sizeof sim_violation_text[0], fmt, ap);
		va_end(ap);
	}
	S.violations++;
}

void env_init(void)
{
	unsigned nd = S.sw->pw.ndomains;
	memset(slot_id, 0, sizeof slot_id);
	S.mks = calloc(nd, sizeof *S.mks);
	S.busy = calloc(nd, sizeof *S.busy);
	S.vused = calloc(nd, sizeof *S.vused);
	S.owner = calloc(S.sw->ncores, sizeof *S.owner);
	if (!S.mks || !S.busy || !S.vused || !S.owner) {
		fprintf(stderr, "mosaic-sim: out of memory for %u micro-kernels\n", nd);
		exit(3);
	}
	for (unsigned d = 0; d < nd; d++)
		proto_mk_init(&S.mks[d], &S.sw->pw, d, S.sw->master[d], S.sw->capacity[d],
			      S.sw->freemask ? S.sw->freemask[d] : 0);
}

void env_fini(void)
{
	for (unsigned d = 0; d < S.sw->pw.ndomains; d++)
		proto_mk_destroy(&S.mks[d]);
	free(S.mks);
	free(S.busy);
	free(S.vused);
	free(S.owner);
}

/* ---- the environment ---- */

/* The last buffer of the core's own that was sent with a body, and that body: the core
 * sends one buffer to many nodes changing only the header, and frees it afterwards
 * (penv_free forgets it: no buffer is freed between the copies of one send, and a new buffer
 * at the same address is never taken for the old one). */
static const void *last_src;
static struct body *last_body;

static void forget_last(void)
{
	body_put(last_body);
	last_body = 0;
	last_src = 0;
}

void penv_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len)
{
	if (to_dom >= S.sw->pw.ndomains)
		penv_panic(m, "send to micro-kernel %u, which does not exist", to_dom);
	if (S.o->costs)
		sim_charge(m->dom, SIM_COST_SEND_NS);
	unsigned dst = S.sw->master[to_dom];
	struct event *e = ev_new();
	e->kind = EV_MSG;
	e->to = (uint16_t)to_dom;
	e->len = len;
	e->hdr = *h;
	if (len > sizeof *h) {
		struct body *cur = S.cur ? S.cur->body : 0;
		if (cur && (uint8_t *)h == cur->buf && len == cur->len) {
			cur->refs++; /* a propagated copy passed on: same body */
			e->body = cur;
		} else if (last_body && (const void *)h == last_src && len == last_body->len) {
			last_body->refs++; /* the core's own buffer sent again (a naive spawn: one per node) */
			e->body = last_body;
		} else {
			struct body *b = malloc(sizeof *b + len);
			if (!b)
				penv_panic(m, "out of memory for a %u-byte message", len);
			b->refs = 1;
			b->len = len;
			memcpy(b->buf, h, len);
			e->body = b;
			body_put(last_body);
			last_body = b;
			last_src = h;
			b->refs++;
		}
	}
	e->time = net_deliver_time(m->core, dst, len, S.busy[m->dom]);
	ev_push(e);
	if (h->kind != AK_SUBMIT) {
		unsigned hops = proto_hops(&S.sw->pw, m->core, dst);
		S.kind_msgs[h->kind]++;
		S.kind_hops[h->kind] += hops;
		int j = sim_job_index(h->job);
		if (j >= 0) {
			S.jobs[j].msgs++;
			S.jobs[j].hops += hops;
		}
	}
}

uint64_t penv_now(struct mk *m) { return S.busy[m->dom]; }

bool penv_timer(struct mk *m, struct proto_timer *t, uint64_t at_ns)
{
	if (S.o->costs)
		sim_charge(m->dom, SIM_COST_TIMER_ARM_NS);
	struct event *e = ev_new();
	e->kind = EV_TIMER;
	e->to = m->dom;
	e->timer = t;
	e->time = at_ns > S.busy[m->dom] ? at_ns : S.busy[m->dom];
	ev_push(e);
	return true;
}

/* Real-task mode: each task starts when the start reaches its core (the kernel's run.c
 * uses hart_call) and the job's start barrier is passed, runs its time and sends TASK_DONE. */
void penv_part_start(struct mk *m, struct run_part *p, const struct spawn_body *b, const uint16_t *cores)
{
	(void)cores;
	for (MASK_EACH(p->mask, c)) {
		if (S.o->costs)
			sim_charge(m->dom, SIM_COST_TASK_START_NS);
		/* the pico-kernel joins the job's start barrier (its start time is after it), then
		 * makes the task's address space: part of its run, as in the kernel's run.c */
		uint64_t start = net_deliver_time(m->core, c, 64, S.busy[m->dom]) + (S.o->costs ? SIM_COST_TASK_BARRIER_NS : 0);
		uint64_t setup = S.o->costs ? SIM_COST_TASK_SETUP_NS : 0;
		struct event *e = ev_new();
		e->kind = EV_TASK_END;
		e->to = m->dom;
		e->core = (uint16_t)c;
		e->hdr.job = p->job;
		e->t_start = start;
		e->time = start + setup + b->duration_us * 1000;
		ev_push(e);
	}
}

void penv_part_free(struct mk *m, struct run_part *p)
{
	(void)m;
	p->env = 0;
}

void penv_report(struct mk *m, const struct home_job *j)
{
	int i = sim_job_index(j->id);
	if (i < 0) {
		violation("home %u reports job %u, which nobody submitted", m->dom, j->id);
		return;
	}
	struct sim_job *r = &S.jobs[i];
	if (r->reported)
		violation("job %u reported twice", j->id);
	r->reported = true;
	r->t_submit = j->t_submit;
	r->t_alloc = j->t_alloc;
	r->t_start = j->t_start;
	r->t_end = j->t_end;
	r->cancels = j->cancels;
	r->attempts = j->attempts;
	r->nparts = j->nparts;
	r->global = j->global;
	memcpy(r->cores, j->held, sizeof r->cores);
	r->assign = malloc((j->nparts ? j->nparts : 1) * sizeof *r->assign);
	if (!r->assign)
		penv_panic(m, "out of memory for a report");
	memcpy(r->assign, j->assign, j->nparts * sizeof *r->assign);
	r->nholds = j->nholds;
	r->holds = malloc((j->nholds ? j->nholds : 1) * sizeof *r->holds);
	if (!r->holds)
		penv_panic(m, "out of memory for a report");
	memcpy(r->holds, j->holds, j->nholds * sizeof *r->holds);
	uint64_t got = 0;
	for (unsigned k = 0; k < j->nparts; k++)
		got += j->assign[k].count;
	if (got != job_cores(&j->spec)) /* an oversubscribed job asks for fewer cores than it has tasks */
		violation("job %u ran on %llu cores, it asked for %u", j->id, (unsigned long long)got, job_cores(&j->spec));
	S.reported++;
}

void penv_ping_done(struct mk *m, int requester, uint64_t ns, uint32_t reached)
{
	(void)m;
	(void)requester;
	S.ping_done = true;
	S.ping_ns = ns;
	S.ping_reached = reached;
}

/* Invasive computing: the simulator runs no owner tasks and starts no teams, and the core
 * refuses claims in partial simulation; in real-task mode a claim message cannot arise
 * either (nothing sends INVADE). Each of these would be the core misbehaving. */
bool penv_core_busy(struct mk *m, unsigned core)
{
	(void)m;
	(void)core;
	return false;
}

void penv_claim_reply(struct mk *m, unsigned owner, int tag, int64_t result, const void *body, uint32_t len)
{
	(void)body;
	(void)len;
	penv_fail(m, "micro-kernel %u: a claim answer (tag %d, %lld) to core %u, in a simulation without claims",
		  m->dom, tag, (long long)result, owner);
}

void penv_team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	(void)len;
	penv_fail(m, "micro-kernel %u: a team of claim %u to start, in a simulation without claims", m->dom, h->job);
}

void penv_member_failed(struct mk *m, uint32_t claim, uint32_t index, const struct mosaic_member_result *r, unsigned owner)
{
	(void)r;
	(void)owner;
	penv_fail(m, "micro-kernel %u: member %u of claim %u ended, in a simulation without claims", m->dom, index,
		  claim);
}

void penv_trace(struct mk *m, unsigned kind, uint32_t job, unsigned peer, uint64_t arg)
{
	(void)peer;
	(void)arg;
	if (kind != TR_SUBMIT)
		return;
	struct home_job *j = home_find(m, job);
	if (!j || j->spec.tag >= SIM_MAX_JOBS) {
		violation("micro-kernel %u: a submission of job %u the simulator did not make", m->dom, job);
		return;
	}
	job_bind(job, (int)j->spec.tag);
	S.jobs[j->spec.tag].id = job;
	S.jobs[j->spec.tag].msgs = S.jobs[j->spec.tag].hops = 0;
}

void penv_hold(struct mk *m, uint32_t job, const uint64_t *mask, uint32_t count, bool take)
{
	if (!S.o->check)
		return;
	if (S.sw->pw.partial) {
		if (take) {
			S.vused[m->dom] += count;
			if (S.vused[m->dom] > m->capacity)
				violation("micro-kernel %u holds %u of its %u virtual cores", m->dom, S.vused[m->dom],
					  m->capacity);
		} else {
			if (count > S.vused[m->dom])
				violation("micro-kernel %u releases %u virtual cores for job %u, holds %u", m->dom, count,
					  job, S.vused[m->dom]);
			S.vused[m->dom] -= count > S.vused[m->dom] ? S.vused[m->dom] : count;
		}
		return;
	}
	unsigned n = 0;
	for (MASK_EACH(mask, c)) {
		n++;
		if (c >= S.sw->ncores || S.sw->core_dom[c] != m->dom || c == m->core) {
			violation("micro-kernel %u %s core %u, not one of its pico-kernels", m->dom,
				  take ? "commits" : "releases", c);
			continue;
		}
		if (take) {
			if (S.owner[c])
				violation("core %u given to job %u while job %u holds it", c, job, S.owner[c]);
			S.owner[c] = job;
		} else {
			if (S.owner[c] != job)
				violation("core %u released by job %u but held by job %u", c, job, S.owner[c]);
			S.owner[c] = 0;
		}
	}
	if (n != count)
		violation("micro-kernel %u: %s %u cores for job %u, the mask names %u", m->dom,
			  take ? "commits" : "releases", count, job, n);
}

void penv_fail(struct mk *m, const char *fmt, ...)
{
	(void)m;
	char buf[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	violation("%s", buf);
}

void penv_log(struct mk *m, const char *fmt, ...)
{
	(void)m;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void penv_panic(struct mk *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "mosaic-sim: micro-kernel %d: ", m ? (int)m->dom : -1);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(4);
}

void *penv_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
void penv_free(void *p)
{
	forget_last(); /* any free may end the buffer (a held message is freed by its header's owner) */
	free(p);
}

/* ---- handling an event ---- */

/* After every event: the micro-kernel's free count agrees with what it committed and released. */
static void check_mk(const struct mk *m)
{
	if (!S.o->check)
		return;
	if (S.sw->pw.partial) {
		if (m->nfree + S.vused[m->dom] != m->capacity)
			violation("micro-kernel %u: %u free + %u held != %u virtual cores", m->dom, m->nfree,
				  S.vused[m->dom], m->capacity);
		return;
	}
	unsigned n = 0;
	for (MASK_EACH(m->freemask, c)) {
		n++;
		if (S.owner[c])
			violation("micro-kernel %u: core %u is free but job %u holds it", m->dom, c, S.owner[c]);
	}
	if (n != m->nfree)
		violation("micro-kernel %u: %u cores in its free mask, %u counted free", m->dom, n, m->nfree);
}

void sim_dispatch(struct event *e)
{
	struct mk *m = &S.mks[e->to];
	uint64_t *clk = &S.busy[e->to];
	S.cur = e;
	if (e->kind != EV_TASK_END && *clk < e->time)
		*clk = e->time; /* a task's end is its pico-kernel's work, not the micro-kernel's */
	if (e->kind == EV_MSG) {
		struct alloc_hdr *h = &e->hdr;
		if (e->body) {
			memcpy(e->body->buf, &e->hdr, sizeof e->hdr);
			h = (struct alloc_hdr *)e->body->buf;
		}
		if (S.o->costs)
			sim_charge(m->dom, sim_cost_recv_ns[e->hdr.kind < AK_KINDS ? e->hdr.kind : 0]);
		proto_receive(m, h, e->len);
	} else if (e->kind == EV_TIMER) {
		if (S.o->costs)
			sim_charge(m->dom, SIM_COST_TIMER_NS);
		proto_timer_fired(m, e->timer);
	} else { /* EV_TASK_END: the pico-kernel tells its micro-kernel */
		struct alloc_hdr h = {.kind = AK_TASK_DONE, .job = e->hdr.job, .from = e->core, .t_event = e->t_start};
		struct event *d = ev_new();
		d->kind = EV_MSG;
		d->to = e->to;
		d->len = sizeof h;
		d->hdr = h;
		d->time = net_deliver_time(e->core, m->core, sizeof h, e->time);
		ev_push(d);
		S.kind_msgs[AK_TASK_DONE]++;
		unsigned hops = proto_hops(&S.sw->pw, e->core, m->core);
		S.kind_hops[AK_TASK_DONE] += hops;
		int j = sim_job_index(h.job);
		if (j >= 0) {
			S.jobs[j].msgs++;
			S.jobs[j].hops += hops;
		}
		S.cur = 0;
		return;
	}
	if (m->dirty) {
		if (S.o->costs)
			sim_charge(m->dom, SIM_COST_SETTLE_NS);
		proto_settle(m);
	}
	S.cur = 0;
	forget_last();
	check_mk(m);
	if (*clk > S.now_max)
		S.now_max = *clk;
}
