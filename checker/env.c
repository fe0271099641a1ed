/*
 * The protocol core's environment on the host, the parts both transports share:
 * the world (partial simulation, one core per domain), delivering a message or a
 * timer to one micro-kernel and settling it, and the observer calls of
 * proto_env.h (trace, hold, fail, report), which feed the invariant checks.
 * Sending and timers are the transport's (net_chan.c, net_timed.c).
 */
#include "checker/env.h"
#include "checker/arena.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sys *S;
struct proto_world world;
struct alloc_config config;
static uint16_t wx[SYS_MAX_DOMAINS], wy[SYS_MAX_DOMAINS], wdom[SYS_MAX_DOMAINS], wmaster[SYS_MAX_DOMAINS];

void sys_init(unsigned dx, unsigned dy, unsigned v, enum alloc_policy p, enum alloc_scheme s, unsigned njobs)
{
	unsigned nd = dx * dy;
	config = (struct alloc_config){.policy = p, .scheme = s, .check = true};
	for (unsigned d = 0; d < nd; d++) {
		wx[d] = (uint16_t)(d % dx);
		wy[d] = (uint16_t)(d / dx);
		wdom[d] = wmaster[d] = (uint16_t)d;
	}
	world = (struct proto_world){.dx = dx, .dy = dy, .ndomains = nd, .partial = true, .ncores = nd,
				     .core_x = wx, .core_y = wy, .core_dom = wdom, .master = wmaster, .cfg = &config};
	arena_reset();
	S = arena_alloc(sizeof *S);
	world.sequencer = proto_centre_domain(&world);
	S->nd = nd;
	S->v = v;
	S->njobs = njobs;
	S->now = 1000000; /* submissions name times before it: they begin on arrival */
	S->mks = arena_alloc(nd * sizeof *S->mks);
	S->holds = arena_alloc(nd * sizeof *S->holds);
	for (unsigned d = 0; d < nd; d++)
		proto_mk_init(&S->mks[d], &world, d, d, v, 0);
	chk_clear();
}

void sys_submit_msg(unsigned tag, uint8_t *buf, uint32_t *len)
{
	struct alloc_hdr *h = (struct alloc_hdr *)buf;
	memset(buf, 0, sizeof *h + sizeof(struct job_spec));
	h->kind = AK_SUBMIT;
	h->from = S->jobs[tag].spec.home; /* the submitter's core: any core will do */
	h->home = S->jobs[tag].spec.home;
	memcpy(h + 1, &S->jobs[tag].spec, sizeof(struct job_spec));
	*len = sizeof *h + sizeof(struct job_spec);
}

uint32_t sys_trace_job;

/* --trace: the messages of one job, the waves of its home and link failures, as delivered. */
static void trace(unsigned to, const struct alloc_hdr *h)
{
	bool wave = h->kind == AK_TINIT || h->kind == AK_ECHO;
	if (h->job != sys_trace_job && !(wave && h->origin == job_home(sys_trace_job)) && h->kind != AK_LINKDOWN)
		return;
	printf("  t %llu: %s %u -> %u job %u attempt %u origin %u bseq %u epoch %u scheme %s count %u\n",
	       (unsigned long long)S->now, alloc_kind_name(h->kind), h->from, to, h->job, h->attempt, h->origin,
	       h->bseq, h->epoch, alloc_scheme_name(h->scheme), h->count);
}

void sys_deliver(unsigned to, struct alloc_hdr *h, uint32_t len)
{
	struct mk *m = &S->mks[to];
	if (sys_trace_job)
		trace(to, h);
	S->events++;
	proto_receive(m, h, len);
	proto_settle(m);
	chk_after_event(m);
}

void sys_fire(unsigned mk, struct proto_timer *t)
{
	struct mk *m = &S->mks[mk];
	S->events++;
	proto_timer_fired(m, t);
	proto_settle(m);
	chk_after_event(m);
}

/* ---- observers ---- */

static struct chk_job *job_of(uint32_t id)
{
	for (unsigned i = 0; i < S->njobs; i++)
		if (S->jobs[i].id == id)
			return &S->jobs[i];
	return 0;
}

void penv_trace(struct mk *m, unsigned kind, uint32_t job, unsigned peer, uint64_t arg)
{
	(void)arg;
	if (kind == TR_SUBMIT) {
		const struct home_job *j = home_find(m, job);
		if (!j || j->spec.tag >= S->njobs || S->jobs[j->spec.tag].id)
			chk_violation("micro-kernel %u: a submission the checker did not make (job %u)", m->dom, job);
		else
			S->jobs[j->spec.tag].id = job;
	} else if (kind == TR_START) {
		struct chk_job *c = job_of(job);
		if (!c) {
			chk_violation("micro-kernel %u starts job %u, which was never submitted", m->dom, job);
			return;
		}
		c->started += peer;
		c->parts++;
		if (c->started > c->spec.ntasks)
			chk_violation("job %u runs on %u cores, it asked for %u", job, c->started, c->spec.ntasks);
	}
}

static struct hold *hold_of(unsigned dom, uint32_t job, bool make)
{
	struct holdv *hv = &S->holds[dom];
	for (unsigned i = 0; i < hv->n; i++)
		if (hv->v[i].job == job)
			return &hv->v[i];
	if (!make)
		return 0;
	hv->v = arena_grow(hv->v, hv->n, &hv->cap, sizeof *hv->v, 8);
	hv->v[hv->n] = (struct hold){job, 0};
	return &hv->v[hv->n++];
}

/*
 * A commitment or a release, as the core reports it. A commitment is checked
 * against the global order here, independently of the core's own check: every
 * request before the job's in this micro-kernel's wait queue must already have
 * all it asked for from it (the documented relaxation, docs/allocation.md).
 */
void penv_hold(struct mk *m, uint32_t job, const uint64_t *mask, uint32_t count, bool take)
{
	(void)mask;
	if (!count)
		return;
	if (take) {
		const struct wq_entry *e = wq_find(m, job);
		if (!e)
			chk_violation("micro-kernel %u commits %u cores to job %u, which it has no request of", m->dom,
				      count, job);
		for (const struct wq_entry *o = m->wq; e && o < e; o++)
			if (o->committed < o->need)
				chk_violation("micro-kernel %u commits to job %u while older job %u has %u of %u",
					      m->dom, job, o->job, o->committed, o->need);
		hold_of(m->dom, job, true)->count += count;
		return;
	}
	struct hold *h = hold_of(m->dom, job, false);
	if (!h || h->count < count) {
		chk_violation("micro-kernel %u releases %u cores of job %u, which holds %u there", m->dom, count, job,
			      h ? h->count : 0);
		return;
	}
	h->count -= count;
	if (!h->count) {
		struct holdv *hv = &S->holds[m->dom];
		*h = hv->v[--hv->n];
	}
}

void penv_report(struct mk *m, const struct home_job *j)
{
	struct chk_job *c = job_of(j->id);
	if (!c) {
		chk_violation("home %u reports job %u, which was never submitted", m->dom, j->id);
		return;
	}
	if (c->reported)
		chk_violation("job %u is reported twice", j->id);
	if (c->started != c->spec.ntasks)
		chk_violation("job %u ended having run on %u cores, it asked for %u", j->id, c->started,
			      c->spec.ntasks);
	c->reported = true;
}

/* Everything the core says here is a violation: its text (fmt and the caller's arguments) after the kind of
 * report. A macro, so that each penv_ function below hands on its own variable arguments. */
static void core_says_v(const char *what, const char *fmt, va_list ap)
{
	char buf[300];
	vsnprintf(buf, sizeof buf, fmt, ap);
	chk_violation("%s: %s", what, buf);
}
#define core_says(what)                         \
	do {                                    \
		va_list ap;                     \
		va_start(ap, fmt);              \
		core_says_v(what, fmt, ap);     \
		va_end(ap);                     \
	} while (0)

void penv_fail(struct mk *m, const char *fmt, ...)
{
	(void)m;
	core_says("core's own check");
}

/* In a closed system every message is the core's own: a dropped one is a bug. */
void penv_log(struct mk *m, const char *fmt, ...)
{
	(void)m;
	core_says("core's note");
}

void penv_panic(struct mk *m, const char *fmt, ...)
{
	(void)m;
	core_says("core panic");
	chk_fatal();
	exit(1);
}

void penv_part_start(struct mk *m, struct run_part *p, const struct spawn_body *b, const uint16_t *cores)
{
	(void)p, (void)b, (void)cores;
	chk_violation("micro-kernel %u: real tasks in partial simulation", m->dom);
}

void penv_part_free(struct mk *m, struct run_part *p) { (void)m, (void)p; }
void penv_ping_done(struct mk *m, int requester, uint64_t ns, uint32_t reached)
{
	(void)m, (void)requester, (void)ns, (void)reached;
}

/* Invasive computing: claims are refused in partial simulation (claim.c), so no claim
 * message exists here; any of these is a violation of that. */
bool penv_core_busy(struct mk *m, unsigned core)
{
	(void)m, (void)core;
	return false;
}

void penv_claim_reply(struct mk *m, unsigned owner, int tag, int64_t result, const void *body, uint32_t len)
{
	(void)body, (void)len;
	chk_violation("micro-kernel %u: a claim answer (tag %d, %lld) to core %u", m->dom, tag, (long long)result,
		      owner);
}

void penv_team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	(void)len;
	chk_violation("micro-kernel %u: a team of claim %u to start", m->dom, h->job);
}

void penv_member_failed(struct mk *m, uint32_t claim, uint32_t index, const struct mosaic_member_result *r, unsigned owner)
{
	(void)r, (void)owner;
	chk_violation("micro-kernel %u: member %u of claim %u ended", m->dom, index, claim);
}

void chk_usage_error(const char *prog, void (*usage)(FILE *), const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	usage(stderr);
	exit(2);
}
