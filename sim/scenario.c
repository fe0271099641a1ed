/*
 * Scenarios, with the syntax and meaning of the kernel's `scenario` command
 * (kernel/alloc/scenario.c, ported: that file is bound to the kernel's layout,
 * shell and heap; the cross-check test compares the jobs both generate):
 *   fig22 [RUN_US]          two domains submit jobs of 12 and 16 cores at once (thesis Fig. 2.2)
 *   corners K [RUN_US]      the four corner micro-kernels each submit K micro-kernels' worth (Fig. 5.1)
 *   simul N K [RUN_US]      N micro-kernels, spread out, each submit K micro-kernels' worth (Figs. 5.2, 5.3)
 *   random SEED N [RUN_US]  N jobs of random homes, sizes (1 core to the machine) and times
 *   "T_US HOME NTASKS[/C] WHAT;..." a list; WHAT is a run time in us (partial simulation) or
 *                           PROGRAM[:ARG] (real-task mode); /C: the NTASKS tasks on C cores (real-task
 *                           mode only: partial simulation has no oversubscription)
 * Real-task mode: the kernel runs programs until they exit; the simulator runs each
 * task for RUN_US (named scenarios) or --task-us (lists) instead.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "sim/sim.h"

static const char *const real_programs[] = {"compute", "ring", "stencil", "isort"};
enum { SC_FIG22, SC_CORNERS, SC_SIMUL, SC_RANDOM, SC_NAMES };
static const char *const names[SC_NAMES] = {"fig22", "corners", "simul", "random"};
static const unsigned nargs[SC_NAMES] = {0, 1, 2, 2};

/* A whole decimal (or 0x hex) number, as the kernel's parse_u64. */
static bool parse_num(const char *s, uint64_t *out)
{
	uint64_t v = 0, base = 10;
	size_t i = 0, len = strlen(s);
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, i = 2;
	if (i == len)
		return false;
	for (; i < len; i++) {
		int c = tolower((unsigned char)s[i]);
		uint64_t d;
		if (c >= '0' && c <= '9')
			d = (uint64_t)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (uint64_t)(c - 'a' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

static uint32_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

struct gen {
	struct sim_scenario *sc;
	const struct sim_world *sw;
	const struct sim_opts *o;
};

/* Adds a job; its spec, or NULL when the scenario is full. */
static struct job_spec *add(struct gen *g, unsigned home, uint32_t ntasks, uint64_t dur_us, uint64_t at_us,
			    const char *program, uint64_t arg)
{
	struct sim_scenario *sc = g->sc;
	if (sc->n >= SIM_MAX_JOBS)
		return 0;
	struct job_spec *s = &sc->jobs[sc->n].spec;
	*s = (struct job_spec){.home = (uint16_t)home, .ntasks = ntasks, .arg = arg, .duration_us = dur_us};
	snprintf(s->program, sizeof s->program, "%s", g->o->partial ? ALLOC_SIM_PROGRAM : program ? program : "compute");
	sc->jobs[sc->n++].offset_us = at_us;
	return s;
}

static uint32_t mks_worth(const struct sim_world *sw, uint64_t k)
{
	uint64_t n = k * sw->machine_cores / sw->pw.ndomains;
	return n > sw->machine_cores ? sw->machine_cores : n ? (uint32_t)n : 1;
}

static unsigned split(char *buf, char **f, unsigned max)
{
	unsigned nf = 0;
	for (char *q = buf; *q && nf < max;) {
		while (*q == ' ')
			*q++ = 0;
		if (!*q)
			break;
		f[nf++] = q;
		while (*q && *q != ' ')
			q++;
	}
	return nf;
}

static bool parse_list(struct gen *g, const char *spec, char *err, unsigned errlen)
{
	char *buf = strdup(spec), *p = buf;
	bool ok = false;
	while (*p) {
		char *end = strchr(p, ';');
		if (end)
			*end = 0;
		char *f[5];
		unsigned nf = split(p, f, 5);
		uint64_t t, home, n, dur = 0, arg = 0, cores = 0;
		char *colon = nf == 4 ? strchr(f[3], ':') : 0, *slash = nf == 4 ? strchr(f[2], '/') : 0;
		if (colon)
			*colon = 0;
		if (slash)
			*slash = 0;
		if (nf != 4 || !parse_num(f[0], &t) || !parse_num(f[1], &home) || !parse_num(f[2], &n) ||
		    (colon && !parse_num(colon + 1, &arg)) || (slash && !parse_num(slash + 1, &cores))) {
			snprintf(err, errlen, "job %u: expected 'T_US HOME NTASKS[/C] RUN_US|PROGRAM[:ARG]'", g->sc->n + 1);
			goto out;
		}
		bool numeric = parse_num(f[3], &dur);
		if (g->o->partial != numeric) {
			snprintf(err, errlen, "job %u: %s", g->sc->n + 1,
				 g->o->partial ? "partial simulation wants a run time in us"
					       : "real-task mode wants a program name");
			goto out;
		}
		if (slash && g->o->partial) {
			snprintf(err, errlen, "job %u: NTASKS/C is for real tasks: partial simulation has no oversubscription",
				 g->sc->n + 1);
			goto out;
		}
		if (slash && (cores == 0 || cores > n)) {
			snprintf(err, errlen, "job %u: cores C must be 1..NTASKS (%lu)", g->sc->n + 1, (unsigned long)n);
			goto out;
		}
		if (!numeric && strlen(f[3]) >= ALLOC_PROGRAM_MAX) {
			snprintf(err, errlen, "job %u: a program name has at most %u characters", g->sc->n + 1,
				 ALLOC_PROGRAM_MAX - 1);
			goto out;
		}
		if (home > 0xffff || t > 3600000000ULL) {
			snprintf(err, errlen, "job %u: home or time out of range", g->sc->n + 1);
			goto out;
		}
		struct job_spec *s = add(g, (unsigned)home, (uint32_t)(n > 0xffffffff ? 0xffffffff : n),
					 numeric ? dur : g->o->task_us, t, f[3], arg);
		if (s)
			s->cores = (uint32_t)(cores > 0xffffffff ? 0xffffffff : cores); /* 0: one per task */
		p = end ? end + 1 : p + strlen(p);
		if (g->sc->n >= SIM_MAX_JOBS && *p) {
			snprintf(err, errlen, "more than %u jobs", SIM_MAX_JOBS);
			goto out;
		}
	}
	if (!g->sc->n)
		snprintf(err, errlen, "no jobs");
	else
		ok = true;
out:
	free(buf);
	return ok;
}

static unsigned corner(const struct sim_world *sw, unsigned i)
{
	unsigned x = (i & 1) ? sw->pw.dx - 1 : 0, y = (i & 2) ? sw->pw.dy - 1 : 0;
	return y * sw->pw.dx + x;
}

static bool generate(struct gen *g, int which, uint64_t a, uint64_t b, uint64_t run, char *err, unsigned errlen)
{
	const struct sim_world *sw = g->sw;
	unsigned nd = sw->pw.ndomains;
	if (which == SC_FIG22) {
		if (nd < 2) {
			snprintf(err, errlen, "fig22 needs two domains");
			return false;
		}
		add(g, 0, 12, run, 0, 0, 0);
		add(g, 1, 16, run, 0, 0, 0);
	} else if (which == SC_CORNERS) {
		for (unsigned i = 0; i < 4; i++)
			add(g, corner(sw, i), mks_worth(sw, a), run, 0, 0, 0);
	} else if (which == SC_SIMUL) {
		if (a == 0 || a > nd) {
			snprintf(err, errlen, "simul: N must be 1..%u (one job per micro-kernel)", nd);
			return false;
		}
		for (unsigned i = 0; i < a; i++)
			add(g, (unsigned)(i * nd / a), mks_worth(sw, b), run, 0, 0, 0);
	} else {
		uint64_t seed = a * 2654435761u + 1;
		if (!sw->machine_cores) {
			snprintf(err, errlen, "random: the machine has no cores for jobs");
			return false;
		}
		if (b == 0 || b > SIM_MAX_JOBS) {
			snprintf(err, errlen, "random: N must be 1..%u", SIM_MAX_JOBS);
			return false;
		}
		for (unsigned i = 0; i < b; i++) {
			unsigned home = lcg(&seed) % nd;
			uint32_t m = sw->machine_cores, n;
			uint32_t cap = sw->capacity[home];
			/* x % 0 is x on RISC-V (remu), a trap on the host: the kernel's value, replaced below */
			n = lcg(&seed) % 2 ? (cap ? 1 + lcg(&seed) % cap : 1 + lcg(&seed)) : 1 + lcg(&seed) % m;
			if (!sw->capacity[home])
				n = 1 + lcg(&seed) % m;
			/* the kernel passes these as arguments of one call; its compiler evaluates
			 * them left to right (checked against the kernel by tests/test_sim_kernel.py) */
			uint64_t dur = run / 4 + lcg(&seed) % (run + 1);
			uint64_t at = lcg(&seed) % 3000;
			const char *prog = real_programs[lcg(&seed) % 4];
			add(g, home, n, g->o->partial ? dur : run, at, prog, 0);
		}
	}
	return true;
}

bool scenario_build(struct sim_scenario *sc, const char *spec, const struct sim_world *sw, const struct sim_opts *o,
		    char *err, unsigned errlen)
{
	memset(sc, 0, sizeof *sc);
	struct gen g = {sc, sw, o};
	char *buf = strdup(spec), *f[8];
	unsigned nf = split(buf, f, 8);
	int which = -1;
	for (int i = 0; nf && i < SC_NAMES; i++)
		if (!strcmp(f[0], names[i]))
			which = i;
	uint64_t first;
	bool ok = false;
	if (which < 0) {
		char word[24];
		size_t wl = nf ? strcspn(f[0], ";") : 0;
		snprintf(word, sizeof word, "%.*s", (int)(wl < sizeof word ? wl : sizeof word - 1), nf ? f[0] : "");
		if (nf && parse_num(word, &first)) {
			snprintf(sc->name, sizeof sc->name, "list");
			ok = parse_list(&g, spec, err, errlen);
		} else {
			snprintf(err, errlen,
				 "unknown scenario '%s' (known: fig22, corners, simul, random; or a list 'T_US HOME NTASKS WHAT;...')",
				 word);
		}
		free(buf);
		return ok;
	}
	snprintf(sc->name, sizeof sc->name, "%s", names[which]);
	uint64_t a = 0, b = 0, run = 1000;
	unsigned want = nargs[which];
	if (nf < 1 + want || nf > 2 + want || (want >= 1 && !parse_num(f[1], &a)) || (want >= 2 && !parse_num(f[2], &b)) ||
	    (nf == 2 + want && !parse_num(f[1 + want], &run))) {
		snprintf(err, errlen, "usage: fig22 [RUN_US] | corners K [RUN_US] | simul N K [RUN_US] | random SEED N [RUN_US]");
	} else if (run == 0 || run > ALLOC_DURATION_MAX_US) {
		snprintf(err, errlen, "RUN_US must be 1..%u", ALLOC_DURATION_MAX_US);
	} else {
		ok = generate(&g, which, a, b, run, err, errlen);
	}
	free(buf);
	return ok;
}
