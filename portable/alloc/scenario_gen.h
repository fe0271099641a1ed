/*
 * Scenarios: the jobs of the `scenario` command, written once for both homes.
 * The kernel (kernel/alloc/scenario.c) and the simulator (sim/scenario.c) held a
 * copy each, kept alike only by a cross-check test; this is the one source of
 * truth for the syntax, the jobs a spec means for a machine, their order,
 * random's draws and the refusals. Pure C11 (no libc, no kernel): the
 * caller gives the output arrays, and an error comes back as a value that the
 * home words with its own snprintf (scen_error_text).
 *
 *   fig22 [RUN_US]          two domains submit jobs of 12 and 16 cores at once (thesis Fig. 2.2)
 *   corners K [RUN_US]      the four corner micro-kernels each submit K micro-kernels' worth (Fig. 5.1)
 *   simul N K [RUN_US]      N micro-kernels, spread out, each submit K micro-kernels' worth (Figs. 5.2, 5.3)
 *   random SEED N [RUN_US]  N jobs of random homes, sizes (1 core to the machine), times and programs
 *   T_US,HOME,NTASKS[/C],WHAT+...  an in-line list; WHAT is a run time in us (partial simulation) or
 *                           PROGRAM[:ARG] (real-task mode); /C: the NTASKS tasks on C cores (real-task
 *                           mode only: partial simulation has no oversubscription). A job's fields
 *                           are separated by commas, spaces or tabs, the jobs by '+' or ';'
 *                           ("0 0 9 500;0 1 9 500" is the same list as "0,0,9,500+0,1,9,500")
 *   file                    the jobs of a file the home was given (scen_machine.file_text): one job
 *                           per line, as in a list; blank lines and '#' comments are skipped
 */
#ifndef KERNEL_ALLOC_CORE_SCENARIO_GEN_H
#define KERNEL_ALLOC_CORE_SCENARIO_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "portable/alloc/job.h"

/* The most jobs a scenario holds (a list, a file, random's N). */
#define SCEN_MAX_JOBS 1024
/* A scenario file: at most SCEN_FILE_MAX bytes, lines of at most SCEN_LINE_MAX characters. */
#define SCEN_FILE_MAX 65536
#define SCEN_LINE_MAX 255

/* The scenarios built by name, and how many numbers each needs before its optional RUN_US. */
enum { SCEN_FIG22, SCEN_CORNERS, SCEN_SIMUL, SCEN_RANDOM, SCEN_NAMES };
extern const char *const scen_names[SCEN_NAMES];

/* The machine the jobs are for, as its home sees it. */
struct scen_machine {
	unsigned dx, dy, ndomains;    /* the grid of domains */
	bool partial;                 /* partial simulation: WHAT is a run time, the program ALLOC_SIM_PROGRAM */
	uint32_t machine_cores;       /* the cores a job can get in all */
	const uint32_t *domain_cores; /* per domain: the cores a job can get there */
	const char *const *programs;  /* the real programs random draws from (at least one) */
	unsigned nprograms;
	/* The simulator has no programs to run: its real-task jobs are timed (RUN_US, or
	 * list_task_us in a list), where the kernel's carry no run time. */
	bool timed_tasks;
	uint64_t list_task_us;
	/* The simulator refuses here what the kernel's alloc_submit refuses later in its own
	 * words: RUN_US out of 1..ALLOC_DURATION_MAX_US, a list's home or time out of range, a
	 * program name too long, random on a machine without cores. */
	bool early_refusals;
	/* The scenario file ("file"): its file_len bytes, untrusted; NULL when there is none. */
	const char *file_text;
	size_t file_len;
};

/* The jobs, into the caller's arrays of capacity max (more than max is a refusal). */
struct scen_jobs {
	struct job_spec *jobs;
	uint64_t *offset_us; /* each job's submission, us after the scenario's start */
	uint32_t *line;      /* NULL, or each job's line in the file (0: not from a file) */
	unsigned max, n;
	const char *name;    /* the scenario's name, "list" or "file" */
};

enum scen_code {
	SCEN_OK,
	SCEN_UNKNOWN,        /* word: the spec's first word */
	SCEN_USAGE,          /* a name with the wrong numbers */
	SCEN_RUN_RANGE,      /* limit: ALLOC_DURATION_MAX_US */
	SCEN_FIG22_DOMAINS,
	SCEN_SIMUL_N,        /* limit: the domains */
	SCEN_RANDOM_NO_CORES,
	SCEN_RANDOM_N,       /* limit: the jobs the caller holds */
	SCEN_JOB_SYNTAX,     /* job: the list's job, from 1 */
	SCEN_JOB_NUMBER,     /* job: a field of digits too big for 64 bits */
	SCEN_JOB_WANT_RUN,
	SCEN_JOB_WANT_PROGRAM,
	SCEN_JOB_OVERSUB_PARTIAL,
	SCEN_JOB_CORES,      /* limit: its NTASKS */
	SCEN_JOB_PROGRAM_LONG, /* limit: the characters of a program name */
	SCEN_JOB_RANGE,
	SCEN_TOO_MANY,       /* limit: the jobs the caller holds */
	SCEN_NO_JOBS,
	SCEN_FILE_USAGE,     /* "file" with more words */
	SCEN_NO_FILE,        /* "file" and the home has none */
	SCEN_FILE_BIG,       /* limit: SCEN_FILE_MAX, value: the file's bytes */
	SCEN_FILE_BINARY,    /* line, column, value: the byte */
	SCEN_LINE_LONG,      /* line, limit: SCEN_LINE_MAX */
	SCEN_FILE_NO_NEWLINE, /* line: the last, with no newline after it */
	SCEN_FILE_EMPTY,     /* only blank lines and comments */
};
struct scen_error {
	enum scen_code code;
	unsigned job;
	unsigned line, column; /* a file's refusal: its line (0: not from a file), the column in it */
	uint64_t limit, value;
	const char *word; /* SCEN_UNKNOWN: into the spec, word_len characters */
	unsigned word_len;
};

/* The jobs of spec (a name and its numbers, or a list) for machine m into out; false and
 * *e if spec is refused. */
bool scen_generate(const char *spec, const struct scen_machine *m, struct scen_jobs *out, struct scen_error *e);
/* The named scenario spelt by the len characters at word, or -1. */
int scen_name_index(const char *word, size_t len);

/* The home's snprintf (kernel or libc): the core has none of its own. */
typedef int (*scen_printf_fn)(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Words e into buf as the kernel's `scenario` command has always worded it. */
void scen_error_text(const struct scen_error *e, char *buf, size_t size, scen_printf_fn pf);

#endif
