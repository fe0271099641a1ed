/*
 * One simulation: the scenario's jobs submitted as the kernel's `scenario` command
 * submits them (from core 0, each with the common start time `base` plus its
 * offset, so that every submission reaches its home first), link failures at their
 * times, then the event loop until nothing is left to happen. Or, with
 * --propbench, the PING waves of the kernel's `propbench` (thesis Fig. 5.6).
 */
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"
#include "sim/costs.h"
#include "sim/run.h"

#define SUBMITTER_CORE 0 /* the kernel's shell runs on core 0 */

static uint64_t own_clock;

/* The submitter's clock: core 0's. In partial simulation core 0 is micro-kernel 0 too (the
 * kernel's shell runs there), so its submissions delay that micro-kernel's work. */
static uint64_t *submitter(void)
{
	return S.sw->master[S.sw->core_dom[SUBMITTER_CORE]] == SUBMITTER_CORE ? &S.busy[S.sw->core_dom[SUBMITTER_CORE]]
									  : &own_clock;
}

/* A message from outside the protocol (the shell's core): sent by core 0 at its clock. */
static void inject(unsigned to_dom, const struct alloc_hdr *h, const void *body, uint32_t body_len)
{
	uint32_t len = (uint32_t)sizeof *h + body_len;
	struct event *e = ev_new();
	e->kind = EV_MSG;
	e->to = (uint16_t)to_dom;
	e->len = len;
	e->hdr = *h;
	if (body_len) {
		struct body *b = malloc(sizeof *b + len);
		if (!b) {
			fprintf(stderr, "mosaic-sim: out of memory\n");
			exit(3);
		}
		b->refs = 1;
		b->len = len;
		memcpy(b->buf, h, sizeof *h);
		memcpy(b->buf + sizeof *h, body, body_len);
		e->body = b;
	}
	if (S.o->costs)
		*submitter() += SIM_COST_SEND_NS;
	e->time = net_deliver_time(SUBMITTER_CORE, S.sw->master[to_dom], len, *submitter());
	ev_push(e);
}

static void count_injected(const struct alloc_hdr *h, unsigned to_dom)
{
	S.kind_msgs[h->kind]++;
	S.kind_hops[h->kind] += proto_hops(&S.sw->pw, SUBMITTER_CORE, S.sw->master[to_dom]);
}

/* Runs events until none is left (or the stop); false if the stop was hit. */
static bool loop(bool (*until)(void))
{
	struct event *e;
	while ((e = ev_pop())) {
		net_floor_ns = e->time;
		sim_dispatch(e);
		ev_free(e);
		S.events++;
		if (until && until())
			return true;
		if (S.o->max_events && S.events >= S.o->max_events)
			return false;
	}
	return true;
}

/* The checks of the kernel's alloc_submit: a job it would refuse is refused here too. */
static const char *refused(const struct job_spec *s, char *buf, unsigned len)
{
	const struct sim_world *sw = S.sw;
	if (s->home >= sw->pw.ndomains)
		snprintf(buf, len, "there is no micro-kernel %u (there are %u)", s->home, sw->pw.ndomains);
	else if (s->ntasks == 0)
		snprintf(buf, len, "a job needs at least one core");
	else if (job_cores(s) > sw->machine_cores)
		snprintf(buf, len, "%u cores is more than the machine has (%u)", job_cores(s), sw->machine_cores);
	else if (job_oversubscribed(s) && (s->ntasks > JOB_OVERSUB_TASKS_MAX || s->cores > JOB_OVERSUB_CORES_MAX ||
					   s->ntasks > s->cores * JOB_OVERSUB_PER_CORE))
		snprintf(buf, len, "%u tasks on %u cores: an oversubscribed job runs at most %u tasks on at most %u cores, "
			 "%u per core", s->ntasks, s->cores, JOB_OVERSUB_TASKS_MAX, JOB_OVERSUB_CORES_MAX,
			 JOB_OVERSUB_PER_CORE);
	else if (s->duration_us == 0 || s->duration_us > ALLOC_DURATION_MAX_US)
		snprintf(buf, len, "a job needs a run time of 1..%u us", ALLOC_DURATION_MAX_US);
	else
		return 0;
	return buf;
}

int run_jobs(char *err, unsigned errlen)
{
	struct sim_scenario *sc = S.sc;
	uint64_t base = 1000000 + 20000ULL * sc->n; /* as the kernel's run_once */
	for (unsigned i = 0; i < sc->n; i++) {
		char why[120];
		const char *w = refused(&sc->jobs[i], why, sizeof why);
		if (w && sc->from_file) {
			snprintf(err, errlen, "line %u: job %u refused: %s", sc->line[i], i + 1, w);
			return 2;
		} else if (w) {
			snprintf(err, errlen, "job %u refused: %s", i + 1, w); /* numbered as the kernel's */
			return 2;
		}
	}
	for (unsigned i = 0; i < S.o->nlinkfails; i++) {
		unsigned a = S.o->linkfail[i].a, b = S.o->linkfail[i].b, nd = S.sw->pw.ndomains, dx = S.sw->pw.dx;
		unsigned ddx = a % dx > b % dx ? a % dx - b % dx : b % dx - a % dx;
		unsigned ddy = a / dx > b / dx ? a / dx - b / dx : b / dx - a / dx;
		if (a >= nd || b >= nd || ddx + ddy != 1) {
			snprintf(err, errlen, "linkfail: %u and %u are not neighbouring micro-kernels of the %ux%u grid", a, b,
				 dx, S.sw->pw.dy);
			return 2;
		}
	}
	for (unsigned i = 0; i < sc->n; i++) {
		struct job_spec s = sc->jobs[i];
		s.t_submit_ns = base + sc->offset_us[i] * 1000;
		s.tag = i;
		S.jobs[i].spec = s;
		S.jobs[i].submitted = true;
		struct alloc_hdr h = {.kind = AK_SUBMIT, .from = SUBMITTER_CORE, .home = s.home};
		inject(s.home, &h, &s, sizeof s);
	}
	/* link failures: the shell's `linkfail A B` at base + T, one message to each end */
	for (unsigned i = 0; i < S.o->nlinkfails; i++) {
		unsigned a = S.o->linkfail[i].a, b = S.o->linkfail[i].b;
		uint64_t at = base + S.o->linkfail[i].t_us * 1000;
		if (*submitter() < at)
			*submitter() = at;
		for (int end = 0; end < 2; end++) {
			struct alloc_hdr h = {.kind = AK_LINKDOWN, .flags = AF_DIRECT, .from = SUBMITTER_CORE,
					      .count = end ? a : b};
			inject(end ? b : a, &h, 0, 0);
			count_injected(&h, end ? b : a);
		}
	}
	bool done = loop(0);
	if (!done) {
		snprintf(err, errlen, "stopped after %llu events (--max-events)", (unsigned long long)S.events);
		return 1;
	}
	return S.reported == sc->n ? 0 : 1;
}

static bool ping_seen(void) { return S.ping_done; }

static uint64_t total_msgs(void)
{
	uint64_t t = 0;
	for (unsigned k = 1; k < AK_KINDS; k++)
		t += S.kind_msgs[k];
	return t;
}

int run_propbench(uint64_t *ns, uint64_t *msgs, uint32_t *reached, char *err, unsigned errlen)
{
	unsigned w = S.o->prop_w, h = S.o->prop_h;
	if (!w || !h || w > S.sw->pw.dx || h > S.sw->pw.dy) {
		snprintf(err, errlen, "propbench: the region must fit the %ux%u grid of micro-kernels", S.sw->pw.dx,
			 S.sw->pw.dy);
		return 2;
	}
	/* one unmeasured wave first: the adaptive scheme forms its tree then (as the kernel) */
	for (unsigned r = 0; r <= S.o->prop_reps; r++) {
		uint64_t m0 = total_msgs();
		S.ping_done = false;
		struct alloc_hdr hd = {.kind = AK_PING, .flags = AF_DIRECT, .from = SUBMITTER_CORE, .rx1 = (uint8_t)w,
				       .ry1 = (uint8_t)h};
		if (*submitter() < S.now_max)
			*submitter() = S.now_max;
		inject(0, &hd, 0, 0);
		count_injected(&hd, 0);
		if (!loop(ping_seen) || !S.ping_done) {
			snprintf(err, errlen, "propbench: the wave never came back");
			return 1;
		}
		loop(0); /* the rest of the wave's echoes (none: the origin heard them all) */
		if (r) {
			ns[r - 1] = S.ping_ns;
			msgs[r - 1] = total_msgs() - m0 - 1;
		}
		*reached = S.ping_reached;
		if (S.ping_reached != w * h - 1) {
			snprintf(err, errlen, "propbench: the wave reached %u of %u nodes", S.ping_reached, w * h - 1);
			return 1;
		}
	}
	return 0;
}
