/*
 * sim-check: the exhaustive checker (docs/checking.md). For each small
 * configuration, policy and scheme it explores every order in which the
 * enabled events can happen (net_chan.h: channel heads, timers, periodic
 * procedures), depth first, saving the state before each branch with one copy
 * of the arena, and visiting each distinct state once (a canonical serialisation
 * hashed to 128 bits, serialize.h). After every event the invariants are checked;
 * a state where nothing can happen must have every job ended. A violation prints
 * the interleaving that leads to it and exits 1.
 */
#include "checker/arena.h"
#include "checker/configs.h"
#include "checker/net_chan.h"
#include "checker/serialize.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEPTH 4096
#define MAX_EVENTS 256

/* ---- the visited states: 128-bit key -> interleavings from there (-1: on the stack) ---- */
struct slot {
	uint64_t k0, k1;
	double paths;
};
static struct slot *table;
static size_t tcap, tn;

static struct slot *lookup(const uint64_t key[2], bool *found)
{
	const uint64_t k[2] = {key[0], key[1] | 1}; /* never the empty key */
	if (2 * (tn + 1) > tcap) {
		size_t ncap = tcap ? tcap * 2 : 1 << 16;
		struct slot *t = calloc(ncap, sizeof *t);
		if (!t) {
			fprintf(stderr, "sim-check: out of memory for %zu states\n", tn);
			exit(3);
		}
		for (size_t i = 0; i < tcap; i++)
			if (table[i].k0 | table[i].k1) {
				size_t j = table[i].k0 & (ncap - 1);
				while (t[j].k0 | t[j].k1)
					j = (j + 1) & (ncap - 1);
				t[j] = table[i];
			}
		free(table);
		table = t;
		tcap = ncap;
	}
	size_t j = k[0] & (tcap - 1);
	while (table[j].k0 | table[j].k1) {
		if (table[j].k0 == k[0] && table[j].k1 == k[1]) {
			*found = true;
			return &table[j];
		}
		j = (j + 1) & (tcap - 1);
	}
	*found = false;
	table[j].k0 = k[0];
	table[j].k1 = k[1];
	tn++;
	return &table[j];
}

/* ---- the search ---- */

static char path[MAX_DEPTH][200];
static void *snaps[MAX_DEPTH];
static size_t snap_cap[MAX_DEPTH];
static unsigned long long transitions, terminals, revisits, cycles, max_states = 50000000;
static unsigned max_depth;
static const char *current;

static void fail_here(unsigned depth)
{
	printf("VIOLATION in %s: %s\n", current, chk_failed());
	printf("interleaving (%u events from the initial state):\n", depth);
	for (unsigned i = 0; i < depth; i++)
		printf("  %4u  %s\n", i + 1, path[i]);
	printf("sim-check: FAILED\n");
	fflush(stdout);
	exit(1);
}

static unsigned cur_depth;
static void fatal(void) { fail_here(cur_depth + 1); }

static unsigned target_of(const struct event *e) { return e->kind == EV_DELIVER ? (e->b & 0xff) : e->a; }

static double explore(unsigned depth)
{
	struct event ev[MAX_EVENTS];
	unsigned n = chan_events(ev, MAX_EVENTS);
	if (depth > max_depth)
		max_depth = depth;
	if (!n) {
		chk_at_end();
		if (chk_failed())
			fail_here(depth);
		terminals++;
		return 1;
	}
	if (depth + 1 >= MAX_DEPTH) {
		chk_violation("a run longer than %u events", MAX_DEPTH);
		fail_here(depth);
	}
	size_t used = arena_used();
	if (snap_cap[depth] < used) {
		free(snaps[depth]);
		snap_cap[depth] = used * 2;
		snaps[depth] = malloc(snap_cap[depth]);
		if (!snaps[depth])
			exit(3);
	}
	arena_save(snaps[depth]);
	double total = 0;
	uint64_t before[SYS_MAX_DOMAINS];
	for (unsigned i = 0; i < n; i++) {
		if (i)
			arena_restore(snaps[depth], used);
		chan_describe(&ev[i], path[depth], sizeof path[depth]);
		for (unsigned d = 0; d < S->nd; d++)
			before[d] = ser_mk_hash(&S->mks[d]);
		cur_depth = depth;
		chan_apply(&ev[i]);
		unsigned t = target_of(&ev[i]);
		for (unsigned d = 0; d < S->nd; d++)
			if (d != t && ser_mk_hash(&S->mks[d]) != before[d])
				chk_violation("an event at micro-kernel %u changed micro-kernel %u's state", t, d);
		if (chk_failed())
			fail_here(depth + 1);
		transitions++;
		uint64_t key[2];
		ser_system(key);
		bool found;
		struct slot *s = lookup(key, &found);
		if (found) {
			revisits++;
			if (s->paths < 0)
				cycles++; /* back to a state on the stack: a run that can repeat itself */
			else
				total += s->paths;
			continue;
		}
		if (tn > max_states) {
			printf("sim-check: more than %llu states in %s: stopped (raise --max-states)\n", max_states, current);
			exit(3);
		}
		s->paths = -1;
		double p = explore(depth + 1);
		s = lookup(key, &found); /* the table may have grown meanwhile */
		s->paths = p;
		total += p;
	}
	return total;
}

/* ---- one configuration ---- */

struct totals {
	unsigned long long states, transitions, runs;
	double interleavings;
};

static void check_one(const struct check_config *c, enum alloc_policy p, enum alloc_scheme s, struct totals *tot)
{
	static char name[120];
	snprintf(name, sizeof name, "%s policy=%s scheme=%s%s", c->name, alloc_policy_name(p), alloc_scheme_name(s),
		 chan_fifo ? "" : " no-fifo");
	current = name;
	sys_init(c->dx, c->dy, c->v, p, s, c->njobs);
	for (unsigned j = 0; j < c->njobs; j++) {
		struct job_spec *sp = &S->jobs[j].spec;
		memset(sp, 0, sizeof *sp);
		sp->home = (uint16_t)c->jobs[j].home;
		sp->ntasks = c->jobs[j].ntasks;
		memcpy(sp->program, ALLOC_SIM_PROGRAM, sizeof ALLOC_SIM_PROGRAM);
		sp->duration_us = 100;
		sp->t_submit_ns = c->jobs[j].t_submit;
		sp->tag = j;
	}
	chan_start();
	free(table);
	table = 0;
	tcap = tn = 0;
	transitions = terminals = revisits = cycles = 0;
	max_depth = 0;
	clock_t t0 = clock();
	uint64_t key[2];
	ser_system(key);
	bool found;
	lookup(key, &found)->paths = -1;
	double paths = explore(0);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	printf("%-44s states %9zu  transitions %10llu  end states %6llu  interleavings %.4g  depth %u  cycles %llu  "
	       "%.2f s\n", name, tn, transitions, terminals, paths, max_depth, cycles, secs);
	fflush(stdout);
	tot->states += tn;
	tot->transitions += transitions;
	tot->runs++;
	tot->interleavings += paths;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sim-check [--config NAME|all] [--policy ac|ab|all] [--scheme naive|flood|fixed|adaptive|all]\n"
		   "                 (default: every configuration, both policies, naive, flood and adaptive)\n"
		   "                 [--no-fifo] [--max-states N] [--list]\n"
		   "Explores every interleaving of small configurations of the job allocation protocol.\n");
}

static void bad(const char *fmt, const char *arg) { chk_usage_error("sim-check", usage, fmt, arg); }

int main(int argc, char **argv)
{
	const char *cname = "all";
	/* scheme -1: naive, flood and adaptive. On a row of 2 or 3 domains the fixed pattern sends
	 * exactly flooding's copies (the same states: docs/checking.md); --scheme all adds it */
	int policy = -1, scheme = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--list")) {
			for (unsigned k = 0; k < check_nconfigs; k++)
				printf("%-12s %s\n", check_configs[k].name, check_configs[k].what);
			return 0;
		} else if (!strcmp(a, "--no-fifo")) {
			chan_fifo = false;
		} else if (!v) {
			bad("'%s' needs a value (or is not an option)", a);
		} else if (!strcmp(a, "--config")) {
			cname = v, i++;
		} else if (!strcmp(a, "--policy")) {
			policy = strcmp(v, "all") ? alloc_policy_parse(v) : -1, i++;
			if (strcmp(v, "all") && policy < 0)
				bad("unknown policy '%s' (ac, ab or all)", v);
		} else if (!strcmp(a, "--scheme")) {
			scheme = strcmp(v, "all") ? alloc_scheme_parse(v) : -2, i++;
			if (strcmp(v, "all") && scheme < 0)
				bad("unknown scheme '%s' (naive, flood, fixed, adaptive or all)", v);
		} else if (!strcmp(a, "--max-states")) {
			char *end;
			max_states = strtoull(v, &end, 10), i++;
			if (*end || !*v || !max_states)
				bad("--max-states wants a positive number, not '%s'", v);
		} else {
			bad("unknown option '%s'", a);
		}
	}
	bool any = false;
	for (unsigned k = 0; k < check_nconfigs; k++)
		any |= !strcmp(cname, "all") || !strcmp(cname, check_configs[k].name);
	if (!any)
		bad("unknown configuration '%s' (see --list)", cname);
	chk_fatal = fatal;
	struct totals tot = {0};
	for (unsigned k = 0; k < check_nconfigs; k++) {
		if (strcmp(cname, "all") && strcmp(cname, check_configs[k].name))
			continue;
		for (int p = 0; p < ALLOC_POLICIES; p++)
			for (int s = 0; s < ALLOC_SCHEMES; s++)
				if ((policy < 0 || policy == p) &&
				    (scheme == s || scheme == -2 || (scheme == -1 && s != ALLOC_SCHEME_FIXED)))
					check_one(&check_configs[k], (enum alloc_policy)p, (enum alloc_scheme)s, &tot);
	}
	printf("sim-check: %llu runs, %llu states, %llu transitions, %.4g interleavings, 0 violations: OK\n", tot.runs,
	       tot.states, tot.transitions, tot.interleavings);
	return 0;
}
