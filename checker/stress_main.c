/*
 * sim-stress: the randomised stress test (docs/checking.md). Each seed draws a
 * workload (workload.h), runs it on the timed transport (net_timed.h) with the
 * invariants checked after every event, and at the end checks that every job
 * ran and every micro-kernel is idle and whole. The first violation prints its
 * seed, the workload and the command that replays it exactly, and stops.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "checker/arena.h"
#include "checker/net_timed.h"
#include "checker/workload.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GOAL_PER_HOUR 1000000.0
#define MAX_EVENTS 20000000ULL

static struct wl_pins pins = {-1, -1, 0, 0, 16};
static bool verbose, dump;
static uint64_t cur_seed;
static const char *self = "build/checker/sim-stress"; /* argv[0]: a mutant's reproducer names the mutant */
static struct workload W;

static void print_workload(FILE *f, const struct workload *w)
{
	fprintf(f, "  mesh %ux%u, %u cores each, policy %s, scheme %s, delay %llu ns/hop + up to %llu ns%s\n", w->dx,
		w->dy, w->v, alloc_policy_name(w->policy), alloc_scheme_name(w->scheme), (unsigned long long)w->hop_ns,
		(unsigned long long)w->extra_ns, net.fifo ? "" : ", no FIFO");
	for (unsigned i = 0; i < w->njobs; i++)
		fprintf(f, "  job tag %u: %u cores at mk %u, %llu us, submitted at %llu ns, arrives at %llu ns\n", i,
			w->jobs[i].ntasks, w->jobs[i].home, (unsigned long long)w->jobs[i].duration_us,
			(unsigned long long)w->jobs[i].t_submit, (unsigned long long)w->jobs[i].t_arrive);
	for (unsigned f2 = 0; f2 < w->nfails; f2++)
		fprintf(f, "  link %u-%u fails at %llu ns\n", w->fails[f2].a, w->fails[f2].b,
			(unsigned long long)w->fails[f2].t);
}

static void report_failure(void)
{
	printf("sim-stress: VIOLATION at seed %llu after %llu events (t = %llu ns): %s\n", (unsigned long long)cur_seed,
	       (unsigned long long)S->events, (unsigned long long)S->now, chk_failed());
	print_workload(stdout, &W);
	if (dump) {
		printf("state:\n");
		sys_dump(stdout);
	}
	printf("reproduce: %s --seed %llu --seeds 1", self, (unsigned long long)cur_seed);
	if (pins.policy >= 0)
		printf(" --policy %s", alloc_policy_name((enum alloc_policy)pins.policy));
	if (pins.scheme >= 0)
		printf(" --scheme %s", alloc_scheme_name((enum alloc_scheme)pins.scheme));
	if (pins.dx)
		printf(" --mesh %ux%u", pins.dx, pins.dy);
	if (pins.max_side != 16)
		printf(" --max-side %u", pins.max_side);
	if (!net.fifo)
		printf(" --no-fifo");
	printf("\nsim-stress: FAILED\n");
	fflush(stdout);
	exit(1);
}

/* One seed; returns its events. */
static uint64_t run_seed(uint64_t seed)
{
	cur_seed = seed;
	wl_draw(seed, &pins, &W);
	sys_init(W.dx, W.dy, W.v, W.policy, W.scheme, W.njobs);
	net.hop_ns = W.hop_ns;
	net.extra_ns = W.extra_ns;
	net.rng = seed ^ 0x5bd1e995u;
	timed_start();
	for (unsigned j = 0; j < W.njobs; j++) {
		struct job_spec *sp = &S->jobs[j].spec;
		sp->home = (uint16_t)W.jobs[j].home;
		sp->ntasks = W.jobs[j].ntasks;
		memcpy(sp->program, ALLOC_SIM_PROGRAM, sizeof ALLOC_SIM_PROGRAM);
		sp->duration_us = W.jobs[j].duration_us;
		sp->t_submit_ns = W.jobs[j].t_submit;
		sp->tag = j;
		uint8_t buf[sizeof(struct alloc_hdr) + sizeof(struct job_spec)];
		uint32_t len;
		sys_submit_msg(j, buf, &len);
		timed_inject(sp->home, (struct alloc_hdr *)buf, len, W.jobs[j].t_arrive);
	}
	for (unsigned f = 0; f < W.nfails; f++)
		for (int end = 0; end < 2; end++) {
			struct alloc_hdr h = {.kind = AK_LINKDOWN, .flags = AF_DIRECT,
					      .count = end ? W.fails[f].a : W.fails[f].b};
			timed_inject(end ? W.fails[f].b : W.fails[f].a, &h, sizeof h, W.fails[f].t);
		}
	S->now = 0;
	if (!timed_run(MAX_EVENTS))
		chk_violation("no end after %llu events: a run that does not finish", MAX_EVENTS);
	if (!chk_failed())
		chk_at_end();
	if (chk_failed())
		report_failure();
	if (verbose) {
		printf("seed %llu: %llu events, ends at %llu ns\n", (unsigned long long)seed,
		       (unsigned long long)S->events, (unsigned long long)S->now);
		print_workload(stdout, &W);
	}
	return S->events;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sim-stress [--seeds N] [--seed FIRST] [--policy ac|ab] [--scheme naive|flood|fixed|adaptive]\n"
		   "                  [--mesh WxH] [--max-side 2..16] [--no-fifo] [--verbose] [--dump] [--trace JOB]\n"
		   "Random workloads on 2x2..16x16 meshes, invariants after every event; a failure prints its seed\n"
		   "and the command that replays it.\n");
}

static void bad(const char *fmt, const char *arg) { chk_usage_error("sim-stress", usage, fmt, arg); }

static uint64_t number(const char *opt, const char *v, uint64_t min, uint64_t max)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || n < min || n > max) {
		fprintf(stderr, "sim-stress: %s wants a number from %llu to %llu, not '%s'\n", opt,
			(unsigned long long)min, (unsigned long long)max, v);
		usage(stderr);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	uint64_t seeds = 1000, first = 1;
	net.fifo = true;
	self = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--no-fifo")) {
			net.fifo = false;
		} else if (!strcmp(a, "--dump")) {
			dump = true;
		} else if (!strcmp(a, "--verbose")) {
			verbose = true;
		} else if (!v) {
			bad("'%s' needs a value (or is not an option)", a);
		} else if (!strcmp(a, "--seeds")) {
			seeds = number(a, v, 1, 1000000000000ULL), i++;
		} else if (!strcmp(a, "--seed")) {
			first = number(a, v, 0, UINT64_MAX), i++;
		} else if (!strcmp(a, "--policy")) {
			if ((pins.policy = alloc_policy_parse(v)) < 0)
				bad("unknown policy '%s' (ac or ab)", v);
			i++;
		} else if (!strcmp(a, "--scheme")) {
			if ((pins.scheme = alloc_scheme_parse(v)) < 0)
				bad("unknown scheme '%s' (naive, flood, fixed or adaptive)", v);
			i++;
		} else if (!strcmp(a, "--mesh")) {
			unsigned x, y;
			char tail;
			if (sscanf(v, "%ux%u%c", &x, &y, &tail) != 2 || x < 2 || y < 2 || x > 16 || y > 16)
				bad("--mesh wants WxH with W and H from 2 to 16, not '%s'", v);
			pins.dx = x, pins.dy = y, i++;
		} else if (!strcmp(a, "--trace")) {
			sys_trace_job = (uint32_t)number(a, v, 1, UINT32_MAX), i++;
		} else if (!strcmp(a, "--max-side")) {
			pins.max_side = (unsigned)number(a, v, 2, 16), i++;
		} else {
			bad("unknown option '%s'", a);
		}
	}
	chk_fatal = report_failure;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t events = 0;
	for (uint64_t s = first; s - first < seeds; s++)
		events += run_seed(s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double per_hour = secs > 0 ? (double)seeds / secs * 3600.0 : 0;
	printf("sim-stress: seeds %llu..%llu, %llu events, 0 violations, %.2f s, %.0f seeds/hour on one core: %s "
	       "(goal %.0f)\n", (unsigned long long)first, (unsigned long long)(first + seeds - 1),
	       (unsigned long long)events, secs, per_hour, per_hour >= GOAL_PER_HOUR ? "MET" : "MISSED", GOAL_PER_HOUR);
	return 0;
}
