/*
 * Distributed job allocation (thesis: Ramachandran, "Distributed Job Allocation
 * for Large-Scale Many-cores", Ch. 2-5): the public side. A job asks for N
 * cores; it is submitted at a home micro-kernel, which allocates it locally if
 * its own domain can hold it, else through the protocol of the chosen policy
 * (active cancellation or sequencer-based atomic broadcast), with requests and
 * spawns propagated by one of four schemes. The micro-kernels talk by NoC
 * messages only; docs/allocation.md describes the protocol.
 *
 * Whoever submits a job (any core: the shell, a test, a scenario) gets a report
 * message back when the job has ended; alloc_collect takes those reports.
 */
#ifndef KERNEL_ALLOC_ALLOC_H
#define KERNEL_ALLOC_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"

#include "portable/alloc/job.h" /* the policies, schemes, settings and struct job_spec */
#include "portable/alloc/proto.h" /* struct job_hold */

extern struct alloc_config alloc_cfg;

enum job_status { JOB_OK = 0, JOB_TASK_FAILED = 1 };

/* What the home sends back to the submitter when the job has ended. */
struct job_report {
	uint32_t job;       /* proto_job_id(home, sequence number at the home) */
	uint16_t home;
	uint16_t status;    /* enum job_status */
	uint32_t ntasks;
	uint32_t tag;
	uint64_t t_submit_ns, t_alloc_ns, t_start_ns, t_end_ns;
	uint64_t duration_us;
	uint64_t arg;
	uint32_t msgs, hops; /* protocol messages sent for this job, and the links they crossed */
	uint32_t cancels;    /* times it was cancelled (active cancellation) */
	uint32_t attempts;   /* requests sent (1 + renewals) */
	uint32_t failed_tasks;
	int32_t exit_code;   /* the first non-zero exit code of a task (0 if none) */
	uint16_t nparts;     /* micro-kernels whose cores it ran on */
	bool global;         /* went through the protocol (false: allocated in its home domain) */
	char program[ALLOC_PROGRAM_MAX];
	/* the cores it held: real-task mode names each core; partial simulation's virtual cores
	 * sit at their micro-kernel's tile, so there only the count per domain identifies them */
	uint64_t cores[2];                        /* real-task mode: core ids, a mask */
	uint16_t domain_cores[MOSAIC_MAX_HARTS]; /* per domain: how many of its cores it held */
	/* when each core (partial simulation: each domain's count) was taken and given back, on its
	 * micro-kernel's clock (struct job_hold); a job holds at most every core, or one share per
	 * domain, so the array is never short */
	uint32_t nholds;
	struct job_hold holds[MOSAIC_MAX_HARTS];
};

/* Takes the host's scenario file (the file "scenario" of the host's files, kernel/files/files.h)
 * at boot, on the boot hart before the others run, after files_load (kernel/alloc/scenario_file.c). */
void scenario_file_load(void);
/* The file's text and length (NULL: none); or why it was refused at boot (NULL: it was not). */
const char *scenario_file_get(const char **text, size_t *len);

/* Cores a job can be given in all (real-task mode: every pico-kernel; partial
 * simulation: every micro-kernel's virtual cores). */
uint32_t alloc_machine_cores(void);
/* Cores of one domain that jobs can use. */
uint32_t alloc_domain_cores(unsigned dom);

/*
 * Submits a job from the calling core; its report comes back to this core.
 * 0 or: -EINVAL zero tasks, a bad home, a duration out of range or missing
 * program/duration for the mode; -E2BIG more cores than the machine has;
 * -ENOENT no such program (partial simulation: anything but ALLOC_SIM_PROGRAM);
 * -ENXIO allocation not running (no NoC/domains).
 * Each error is explained on the console with `why` set (may be NULL).
 */
int alloc_submit(const struct job_spec *s, const char **why);
/* alloc_submit's checks of s alone, submitting nothing: 0 or its error and why (a scenario
 * checks all its jobs before it submits the first). */
int alloc_check(const struct job_spec *s, const char **why);

/* Takes one report that arrived for this core (block: wait for one, up to timeout_us of this
 * core's clock: its virtual clock under virtual time, 0 = forever). 0, -EAGAIN if none (in time). */
int alloc_collect(struct job_report *r, bool block, uint64_t timeout_us);
/* The same with an absolute deadline on this core's clock, vtime_now_ns() (0 = forever), for a
 * caller that collects several reports within one timeout. */
int alloc_collect_by(struct job_report *r, bool block, uint64_t deadline_ns);

/* Jobs this core submitted whose reports have not been collected yet. */
unsigned alloc_outstanding(void);

/* The micro-kernel's step in the idle loop (kernel/domain/background.c): Algorithm 1's
 * non-blocking header receive, the message's handler, then the policy's periodic
 * procedure. True if it did something. */
bool alloc_step(void);

/* The job a pico-kernel runs a task of (job 0: none), for its kernel calls. */
struct job_ctx {
	uint32_t job, rank, size;
	const uint16_t *cores; /* the job's cores in rank order */
};
const struct job_ctx *alloc_job_ctx(unsigned core);

/* Reads the policy, scheme and check settings from the boot arguments and starts the
 * protocol; NULL or a message that says what is wrong (the defaults are kept then). */
const char *alloc_init(void);

/* Runs the scenario named by the boot argument scenario= (if any), like the shell's
 * `scenario` command; returns its status. */
int alloc_boot_scenario(void);

/* Prints what a stuck run needs for its diagnosis: why, the jobs still open, every
 * micro-kernel that holds work (as `mk` shows it) and the trace's last events. */
void alloc_diagnose(const char *why);
/* Starts the watchdog (boot argument watchdog=SECONDS) on every micro-kernel. */
void alloc_watchdog_start(void);

/* Set once the NoC and the domains exist: micro-kernels then run alloc_step. */
extern volatile bool alloc_running;

/* Prints a report as one JSON line ("ALLOCJOB {...}") and/or as a table row. */
void alloc_report_json(const struct job_report *r, unsigned run, const char *scenario);
void alloc_report_row(const struct job_report *r, bool header);

#endif
