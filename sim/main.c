/*
 * mosaic-sim: the command line. Parses and checks every option (bad input is a
 * clear message and exit status 2, never a crash), builds the machine and the
 * scenario, runs, prints, and prints the one-line reproducer: the options in a
 * canonical order with every default spelt out, so the line replays the run
 * byte for byte even if a default changes later.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim/sim.h"
#include "sim/run.h"

static const char usage[] =
	"usage: mosaic-sim [OPTIONS] --scenario SPEC\n"
	"       mosaic-sim [OPTIONS] --propbench WxH [--reps R]\n"
	"\n"
	"A deterministic discrete-event simulation of Mosaic's job allocation protocol: one\n"
	"instance of the protocol core (portable/alloc/) per micro-kernel, message delays\n"
	"from the kernel's NoC timing model (portable/noc/timing.c), handler costs measured in\n"
	"the kernel (sim/costs.h). The same arguments give the same output, byte for byte.\n"
	"docs/simulation.md describes what it models.\n"
	"\n"
	"machine:\n"
	"  --mesh WxH          mesh of cores, 1x1 .. 128x128 (default 8x8)\n"
	"  --partial V         partial simulation (the default, V = 8): every core a micro-kernel\n"
	"                      managing V virtual cores (1..65535), as the kernel's partial_sim=V\n"
	"  --real              real-task mode: rectangular domains, tasks on the pico-kernels\n"
	"                      (meshes of at most 128 cores)\n"
	"  --domains N         real-task mode: number of domains (default: the kernel's, 4 or fewer)\n"
	"  --noc I,H,F,B       NoC model: t_inject, t_hop, t_flit ns, flit bytes (default 1000,500,50,16)\n"
	"protocol:\n"
	"  --policy ac|ab      active cancellation (default) or sequencer atomic broadcast\n"
	"  --scheme S          naive, flood, fixed (default) or adaptive propagation\n"
	"  --no-check          do not check the invariants (they are checked by default)\n"
	"  --no-costs          charge no software cost to the handlers (NoC delays only)\n"
	"workload (the kernel's `scenario` syntax, one quoted argument):\n"
	"  --scenario SPEC     fig22 [RUN_US] | corners K [RUN_US] | simul N K [RUN_US] |\n"
	"                      random SEED N [RUN_US] | T_US,HOME,NTASKS[/C],WHAT+...\n"
	"                      (WHAT: run time in us in partial simulation, PROGRAM[:ARG] in\n"
	"                      real-task mode; /C: on C cores, real-task mode only; RUN_US\n"
	"                      defaults to 1000; a job's fields may also be separated by spaces,\n"
	"                      the jobs by ';')\n"
	"  --scenario-file FILE the jobs of a scenario file, as the kernel's `scenario file`\n"
	"                      (scripts/mosaic-run --scenario FILE): one job per line, '#' comments\n"
	"  --task-us US        real-task mode: how long a listed program's tasks run (default 1000)\n"
	"  --linkfail T:A-B    at T us after the common start, mark the grid link between\n"
	"                      neighbouring micro-kernels A and B failed (as the kernel's\n"
	"                      `linkfail A B`); repeatable, up to 16\n"
	"  --seed S            seed of the NoC jitter (default 0)\n"
	"  --jitter NS         add a uniform extra delay in [0, NS] ns to every message (default 0)\n"
	"  --propbench WxH     instead of jobs: time a PING wave from micro-kernel 0 over the\n"
	"                      W x H corner of the grid and back (thesis Fig. 5.6), after one\n"
	"                      unmeasured wave, as the kernel's `propbench`\n"
	"  --reps R            propbench: measured waves (default 1)\n"
	"output:\n"
	"  --json              one JSON document instead of text\n"
	"  --brief             leave out each job's cores per domain\n"
	"  --timing            host time and events per second on stderr\n"
	"  --max-events N      stop after N events (status 1)\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 every job ended (propbench: every wave came back) with no invariant\n"
	"violated; 1 a job did not end or an invariant was violated; 2 bad input; 3 out of\n"
	"memory; 4 the protocol core's own assertion failed.\n";

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "mosaic-sim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(mosaic-sim --help lists the options)\n");
	return 2;
}

static bool num(const char *s, uint64_t *out, uint64_t max)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

static bool dims(const char *s, unsigned *w, unsigned *h)
{
	char buf[32], *x;
	uint64_t a, b;
	if (!s || strlen(s) >= sizeof buf)
		return false;
	strcpy(buf, s);
	if (!(x = strchr(buf, 'x')))
		return false;
	*x = 0;
	if (!num(buf, &a, 1u << 16) || !num(x + 1, &b, 1u << 16))
		return false;
	*w = (unsigned)a;
	*h = (unsigned)b;
	return true;
}

/* Appends s to the reproducer, quoted for a POSIX shell if it needs it. */
static void quote(char *out, size_t cap, const char *s)
{
	size_t n = strlen(out);
	bool plain = *s != 0;
	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=", *p))
			plain = false;
	if (plain) {
		snprintf(out + n, cap - n, " %s", s);
		return;
	}
	snprintf(out + n, cap - n, " '");
	for (const char *p = s; *p; p++) {
		n = strlen(out);
		if (*p == '\'')
			snprintf(out + n, cap - n, "'\\''");
		else
			snprintf(out + n, cap - n, "%c", *p);
	}
	n = strlen(out);
	snprintf(out + n, cap - n, "'");
}

static void reproducer(char *out, size_t cap, const struct sim_opts *o)
{
	char t[96];
	snprintf(out, cap, "build/sim/mosaic-sim --mesh %ux%u", o->w, o->h);
	if (o->partial)
		snprintf(t, sizeof t, " --partial %u", o->vcores);
	else if (o->domains)
		snprintf(t, sizeof t, " --real --domains %u --task-us %llu", o->domains, (unsigned long long)o->task_us);
	else
		snprintf(t, sizeof t, " --real --task-us %llu", (unsigned long long)o->task_us);
	strncat(out, t, cap - strlen(out) - 1);
	snprintf(t, sizeof t, " --policy %s --scheme %s --noc %llu,%llu,%llu,%llu --seed %llu --jitter %llu",
		 alloc_policy_name((enum alloc_policy)o->policy), alloc_scheme_name((enum alloc_scheme)o->scheme),
		 (unsigned long long)o->noc.t_inject_ns, (unsigned long long)o->noc.t_hop_ns,
		 (unsigned long long)o->noc.t_flit_ns, (unsigned long long)o->noc.flit_bytes, (unsigned long long)o->seed,
		 (unsigned long long)o->jitter_ns);
	strncat(out, t, cap - strlen(out) - 1);
	if (!o->check)
		strncat(out, " --no-check", cap - strlen(out) - 1);
	if (!o->costs)
		strncat(out, " --no-costs", cap - strlen(out) - 1);
	for (unsigned i = 0; i < o->nlinkfails; i++) {
		snprintf(t, sizeof t, " --linkfail %llu:%u-%u", (unsigned long long)o->linkfail[i].t_us, o->linkfail[i].a,
			 o->linkfail[i].b);
		strncat(out, t, cap - strlen(out) - 1);
	}
	if (o->prop_w) {
		snprintf(t, sizeof t, " --propbench %ux%u --reps %u", o->prop_w, o->prop_h, o->prop_reps);
		strncat(out, t, cap - strlen(out) - 1);
	} else {
		strncat(out, o->scenario_file ? " --scenario-file" : " --scenario", cap - strlen(out) - 1);
		quote(out, cap, o->scenario_file ? o->scenario_file : o->scenario);
	}
	if (o->json)
		strncat(out, " --json", cap - strlen(out) - 1);
	if (o->brief)
		strncat(out, " --brief", cap - strlen(out) - 1);
	if (o->max_events) {
		snprintf(t, sizeof t, " --max-events %llu", (unsigned long long)o->max_events);
		strncat(out, t, cap - strlen(out) - 1);
	}
}

int main(int argc, char **argv)
{
	static struct sim_opts o = {.w = 8, .h = 8, .partial = true, .vcores = 8, .check = true, .costs = true,
				    .task_us = 1000, .noc = {1000, 500, 50, 16}};
	bool said_partial = false, said_real = false, said_reps = false, said_task = false;
	const char *policy = "ac", *scheme = "fixed";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
		uint64_t x;
		bool takes = true;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--real")) {
			o.partial = false, said_real = true, takes = false;
		} else if (!strcmp(a, "--no-check")) {
			o.check = false, takes = false;
		} else if (!strcmp(a, "--no-costs")) {
			o.costs = false, takes = false;
		} else if (!strcmp(a, "--json")) {
			o.json = true, takes = false;
		} else if (!strcmp(a, "--brief")) {
			o.brief = true, takes = false;
		} else if (!strcmp(a, "--timing")) {
			o.timing = true, takes = false;
		} else if (!v) {
			if (strncmp(a, "--", 2))
				return bad("unexpected argument '%s'", a);
			return bad("%s needs a value", a);
		} else if (!strcmp(a, "--mesh")) {
			if (!dims(v, &o.w, &o.h) || o.w < 1 || o.h < 1 || o.w > SIM_MAX_SIDE || o.h > SIM_MAX_SIDE)
				return bad("--mesh '%s': want WxH with W and H in 1..128", v);
		} else if (!strcmp(a, "--partial")) {
			if (!num(v, &x, 65535) || !x) /* the core counts a micro-kernel's cores in 16 bits */
				return bad("--partial '%s': want 1..65535 virtual cores per micro-kernel", v);
			o.vcores = (unsigned)x, said_partial = true;
		} else if (!strcmp(a, "--domains")) {
			if (!num(v, &x, 128) || !x)
				return bad("--domains '%s': want 1..128", v);
			o.domains = (unsigned)x;
		} else if (!strcmp(a, "--policy")) {
			policy = v;
		} else if (!strcmp(a, "--scheme")) {
			scheme = v;
		} else if (!strcmp(a, "--scenario")) {
			if (o.scenario_file)
				return bad("%s", "--scenario and --scenario-file contradict each other: one or the other");
			o.scenario = v;
		} else if (!strcmp(a, "--scenario-file")) {
			if (o.scenario)
				return bad("%s", "--scenario and --scenario-file contradict each other: one or the other");
			o.scenario = "file", o.scenario_file = v;
		} else if (!strcmp(a, "--task-us")) {
			if (!num(v, &x, ALLOC_DURATION_MAX_US) || !x)
				return bad("--task-us '%s': want 1..60000000", v);
			o.task_us = x, said_task = true;
		} else if (!strcmp(a, "--seed")) {
			if (!num(v, &x, UINT64_MAX))
				return bad("--seed '%s': want a number", v);
			o.seed = x;
		} else if (!strcmp(a, "--jitter")) {
			if (!num(v, &x, 1000000000))
				return bad("--jitter '%s': want 0..1000000000 ns", v);
			o.jitter_ns = x;
		} else if (!strcmp(a, "--max-events")) {
			if (!num(v, &x, UINT64_MAX))
				return bad("--max-events '%s': want a number", v);
			o.max_events = x;
		} else if (!strcmp(a, "--reps")) {
			if (!num(v, &x, 10000) || !x)
				return bad("--reps '%s': want 1..10000", v);
			o.prop_reps = (unsigned)x, said_reps = true;
		} else if (!strcmp(a, "--propbench")) {
			if (!dims(v, &o.prop_w, &o.prop_h) || !o.prop_w || !o.prop_h)
				return bad("--propbench '%s': want WxH", v);
		} else if (!strcmp(a, "--noc")) {
			unsigned long long p[4];
			char tail;
			if (sscanf(v, "%llu,%llu,%llu,%llu%c", &p[0], &p[1], &p[2], &p[3], &tail) != 4 || !p[3] ||
			    p[0] > 1000000 || p[1] > 1000000 || p[2] > 1000000 || p[3] > 4096 || strchr(v, '-'))
				return bad("--noc '%s': want T_INJECT,T_HOP,T_FLIT,FLIT_BYTES (ns, ns, ns, bytes)", v);
			o.noc = (struct noc_timing){p[0], p[1], p[2], p[3]};
		} else if (!strcmp(a, "--linkfail")) {
			unsigned long long t;
			unsigned la, lb;
			char tail;
			if (o.nlinkfails == SIM_MAX_LINKFAILS)
				return bad("at most 16 link failures (%s)", v);
			if (sscanf(v, "%llu:%u-%u%c", &t, &la, &lb, &tail) != 3 || strchr(v, ' ') || t > 3600000000ULL)
				return bad("--linkfail '%s': want T_US:A-B", v);
			o.linkfail[o.nlinkfails].t_us = t;
			o.linkfail[o.nlinkfails].a = la;
			o.linkfail[o.nlinkfails++].b = lb;
		} else {
			return bad("unknown option '%s'", a);
		}
		if (takes)
			i++;
	}
	if ((o.policy = alloc_policy_parse(policy)) < 0)
		return bad("unknown policy '%s' (ac or ab)", policy);
	if ((o.scheme = alloc_scheme_parse(scheme)) < 0)
		return bad("unknown scheme '%s' (naive, flood, fixed or adaptive)", scheme);
	if (said_partial && said_real)
		return bad("%s", "--partial and --real contradict each other");
	if (o.domains && o.partial)
		return bad("%s", "--domains is for real-task mode (partial simulation makes every core a domain)");
	if (said_task && o.partial)
		return bad("%s", "--task-us is for real-task mode (partial simulation takes run times from the scenario)");
	if (o.prop_w && o.scenario)
		return bad("%s", "--propbench and --scenario contradict each other: one or the other");
	if (said_reps && !o.prop_w)
		return bad("%s", "--reps is for --propbench");
	if (!o.prop_w && !o.scenario)
		return bad("%s", "nothing to run: give --scenario SPEC or --propbench WxH");
	if (o.prop_w && !o.prop_reps)
		o.prop_reps = 1;
	if (o.scenario_file && strlen(o.scenario_file) > 1000)
		return bad("%s", "--scenario-file: a path of at most 1000 characters");
	if (o.scenario && strlen(o.scenario) > 4000)
		return bad("%s", "--scenario: at most 4000 characters");

	static struct sim_world sw;
	static struct sim_scenario sc;
	char err[200], repro[4400];
	if (layout_build(&sw, &o, err, sizeof err))
		return bad("%s", err);
	if (o.scenario && !scenario_build(&sc, o.scenario, &sw, &o, err, sizeof err))
		return bad("scenario: %s", err);
	reproducer(repro, sizeof repro, &o);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	S.o = &o;
	S.sw = &sw;
	S.sc = &sc;
	S.rng = o.seed;
	env_init();
	net_init(&o, o.w, o.h);
	int st;
	if (o.prop_w) {
		uint64_t *ns = calloc(o.prop_reps, sizeof *ns), *msgs = calloc(o.prop_reps, sizeof *msgs);
		uint32_t reached = 0;
		st = run_propbench(ns, msgs, &reached, err, sizeof err);
		if (st == 2)
			return bad("%s", err);
		if (st)
			fprintf(stderr, "mosaic-sim: %s\n", err);
		else
			output_propbench(stdout, repro, ns, msgs, o.prop_reps, reached);
		free(ns);
		free(msgs);
	} else {
		st = run_jobs(err, sizeof err);
		if (st == 2)
			return bad("%s", err);
		if (st && S.reported != sc.n)
			fprintf(stderr, "mosaic-sim: %u of %u jobs did not end (%s)\n", sc.n - S.reported, sc.n,
				S.events ? "nothing left to happen: a deadlock" : "no events");
		output_run(stdout, repro, 0);
	}
	if (S.violations)
		st = st ? st : 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (o.timing)
		fprintf(stderr, "mosaic-sim: %.3f s host time, %llu events, %.0f events/s\n", secs,
			(unsigned long long)S.events, secs > 0 ? (double)S.events / secs : 0.0);
	fflush(stdout);
	for (unsigned i = 0; i < sc.n; i++) {
		free(S.jobs[i].assign);
		free(S.jobs[i].holds);
	}
	ev_reset();
	net_fini();
	env_fini();
	return st;
}
