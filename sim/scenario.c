/*
 * Scenarios, with the syntax and meaning of the kernel's `scenario` command: the
 * portable core generates the jobs for both (kernel/alloc/core/scenario_gen.h has
 * the syntax). The simulator's differences are settings of the machine it hands
 * the core: it has no programs to run, so a real-task job's tasks run for RUN_US
 * (named scenarios) or --task-us (lists); and it refuses while parsing what the
 * kernel's submission would refuse later.
 */
#include <stdio.h>
#include <string.h>
#include "sim/sim.h"
#include "kernel/alloc/core/scenario_gen.h"

static const char *const real_programs[] = {"compute", "ring", "stencil", "isort"};

bool scenario_build(struct sim_scenario *sc, const char *spec, const struct sim_world *sw, const struct sim_opts *o,
		    char *err, unsigned errlen)
{
	memset(sc, 0, sizeof *sc);
	struct scen_machine m = {.dx = sw->pw.dx, .dy = sw->pw.dy, .ndomains = sw->pw.ndomains, .partial = o->partial,
				 .machine_cores = sw->machine_cores, .domain_cores = sw->capacity,
				 .programs = real_programs, .nprograms = sizeof real_programs / sizeof *real_programs,
				 .timed_tasks = true, .list_task_us = o->task_us, .early_refusals = true};
	struct scen_jobs out = {.jobs = sc->jobs, .offset_us = sc->offset_us, .max = SIM_MAX_JOBS};
	struct scen_error e;
	if (!scen_generate(spec, &m, &out, &e)) {
		if (e.code == SCEN_UNKNOWN) /* the simulator's own words since it was a port */
			snprintf(err, errlen,
				 "unknown scenario '%.*s' (known: fig22, corners, simul, random; or a list 'T_US HOME NTASKS WHAT;...')",
				 e.word_len > 23 ? 23 : (int)e.word_len, e.word);
		else
			scen_error_text(&e, err, errlen, snprintf);
		return false;
	}
	sc->n = out.n;
	snprintf(sc->name, sizeof sc->name, "%s", out.name);
	return true;
}
