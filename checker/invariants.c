/*
 * The invariants of docs/allocation.md, checked from outside the core after
 * every event (docs/checking.md):
 *  - conservation: a micro-kernel's free cores, the cores committed in its wait
 *    queue and the cores its running parts hold add up to its capacity, so no
 *    core is counted twice (held by two jobs) or lost;
 *  - the observer agrees with the state: what penv_hold says each job holds at
 *    each micro-kernel is exactly what its wait-queue entry and its running part
 *    there hold;
 *  - at the end: every job reported, every micro-kernel idle and whole.
 * The order at every commitment and the job sizes at start and end are checked
 * where they happen (env.c).
 */
#include "checker/env.h"
#include <stdarg.h>
#include <stdio.h>

static char failure[600];
static bool failed;
void (*chk_fatal)(void);

void chk_violation(const char *fmt, ...)
{
	if (failed)
		return;
	failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(failure, sizeof failure, fmt, ap);
	va_end(ap);
}

const char *chk_failed(void) { return failed ? failure : 0; }
void chk_clear(void) { failed = false; }

static uint32_t running(const struct run_part *p) { return p->done < p->count ? p->count - p->done : 0; }

/* What the state says job `job` holds at m. */
static uint32_t state_holds(const struct mk *m, uint32_t job)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < m->nwq; i++)
		if (m->wq[i].job == job)
			n += m->wq[i].committed;
	for (const struct run_part *p = m->parts; p; p = p->next)
		if (p->job == job)
			n += running(p);
	return n;
}

void chk_after_event(const struct mk *m)
{
	uint64_t used = 0;
	for (unsigned i = 0; i < m->nwq; i++) {
		used += m->wq[i].committed;
		if (m->wq[i].committed > m->wq[i].need && m->wq[i].need)
			chk_violation("micro-kernel %u: job %u has %u cores committed, it asked %u", m->dom,
				      m->wq[i].job, m->wq[i].committed, m->wq[i].need);
	}
	for (const struct run_part *p = m->parts; p; p = p->next)
		used += running(p);
	if (m->nfree > m->capacity || used + m->nfree != m->capacity)
		chk_violation("micro-kernel %u: %u free + %llu committed or running != its %u cores", m->dom, m->nfree,
			      (unsigned long long)used, m->capacity);
	const struct holdv *hv = &S->holds[m->dom];
	uint64_t held = 0;
	for (unsigned i = 0; i < hv->n; i++) {
		held += hv->v[i].count;
		uint32_t s = state_holds(m, hv->v[i].job);
		if (s != hv->v[i].count)
			chk_violation("micro-kernel %u: job %u holds %u cores by the commitments and releases, %u by "
				      "the state", m->dom, hv->v[i].job, hv->v[i].count, s);
	}
	if (held != used)
		chk_violation("micro-kernel %u: jobs hold %llu cores by the commitments and releases, %llu by the state",
			      m->dom, (unsigned long long)held, (unsigned long long)used);
}

void chk_at_end(void)
{
	for (unsigned i = 0; i < S->njobs; i++)
		if (!S->jobs[i].reported) {
			chk_violation("deadlock: nothing left to happen, job %u (tag %u, %u cores at home %u) never "
				      "ended (%u cores started)", S->jobs[i].id, i, S->jobs[i].spec.ntasks,
				      S->jobs[i].spec.home, S->jobs[i].started);
			return;
		}
	for (unsigned d = 0; d < S->nd; d++) {
		const struct mk *m = &S->mks[d];
		if (m->nfree != m->capacity)
			chk_violation("at the end micro-kernel %u has %u of %u cores free", d, m->nfree, m->capacity);
		for (unsigned i = 0; i < m->nwq; i++)
			chk_violation("at the end micro-kernel %u still queues job %u (attempt %u, %u of %u)", d,
				      m->wq[i].job, m->wq[i].attempt, m->wq[i].committed, m->wq[i].need);
		for (unsigned i = 0; i < m->ndormant; i++)
			chk_violation("at the end micro-kernel %u still counts job %u (attempt %u) as cancelled and "
				      "waiting to renew", d, m->dormant[i].job, m->dormant[i].attempt);
		if (m->jobs || m->parts || m->nsq || m->seq_current || m->held)
			chk_violation("at the end micro-kernel %u is not idle (jobs %u, parts %s, sequencer %u/%u)", d,
				      m->njobs, m->parts ? "yes" : "no", m->nsq, m->seq_current);
		if (S->holds[d].n)
			chk_violation("at the end micro-kernel %u: job %u still holds %u cores", d,
				      S->holds[d].v[0].job, S->holds[d].v[0].count);
	}
}
