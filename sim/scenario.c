/*
 * Scenarios, with the syntax and meaning of the kernel's `scenario` command: the
 * portable core generates the jobs for both (portable/alloc/scenario_gen.h has
 * the syntax). The simulator's differences are settings of the machine it hands
 * the core: it has no programs to run, so a real-task job's tasks run for RUN_US
 * (named scenarios) or --task-us (lists); and it refuses while parsing what the
 * kernel's submission would refuse later.
 */
#include <stdio.h>
#include <string.h>
#include "sim/sim.h"
#include "portable/alloc/scenario_gen.h"

static const char *const real_programs[] = {"compute", "ring", "stencil", "isort"};

/* --scenario-file's text into buf (SCEN_FILE_MAX bytes; a longer file only says its length,
 * which the core refuses); false and err if it cannot be read. */
static bool read_file(const char *path, char *buf, size_t *len, char *err, unsigned errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "--scenario-file %s: cannot open it", path);
		return false;
	}
	size_t n = fread(buf, 1, SCEN_FILE_MAX, f), more = 0;
	char tail[4096];
	for (size_t k; (k = fread(tail, 1, sizeof tail, f));)
		more += k;
	bool failed = ferror(f);
	fclose(f);
	if (failed) {
		snprintf(err, errlen, "--scenario-file %s: cannot read it", path);
		return false;
	}
	*len = n + more;
	return true;
}

bool scenario_build(struct sim_scenario *sc, const char *spec, const struct sim_world *sw, const struct sim_opts *o,
		    char *err, unsigned errlen)
{
	memset(sc, 0, sizeof *sc);
	struct scen_machine m = {.dx = sw->pw.dx, .dy = sw->pw.dy, .ndomains = sw->pw.ndomains, .partial = o->partial,
				 .machine_cores = sw->machine_cores, .domain_cores = sw->capacity,
				 .programs = real_programs, .nprograms = sizeof real_programs / sizeof *real_programs,
				 .timed_tasks = true, .list_task_us = o->task_us, .early_refusals = true};
	struct scen_jobs out = {.jobs = sc->jobs, .offset_us = sc->offset_us, .line = sc->line, .max = SIM_MAX_JOBS};
	static char text[SCEN_FILE_MAX];
	if (o->scenario_file) {
		if (!read_file(o->scenario_file, text, &m.file_len, err, errlen))
			return false;
		m.file_text = text;
	}
	struct scen_error e;
	if (!scen_generate(spec, &m, &out, &e)) {
		if (e.code == SCEN_UNKNOWN) /* the simulator's own words since it was a port */
			snprintf(err, errlen,
				 "unknown scenario '%.*s' (known: fig22, corners, simul, random, file; or a list "
				 "'T_US,HOME,NTASKS,WHAT+...')",
				 e.word_len > 23 ? 23 : (int)e.word_len, e.word);
		else
			scen_error_text(&e, err, errlen, snprintf);
		return false;
	}
	sc->n = out.n;
	sc->from_file = o->scenario_file != 0;
	snprintf(sc->name, sizeof sc->name, "%s", out.name);
	return true;
}
