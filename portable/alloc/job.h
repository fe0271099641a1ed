/*
 * What a job is to the allocation protocol, as its submitters see it: the
 * policies and schemes, the settings every micro-kernel reads, and a job's
 * specification. Part of the portable core (proto.h): plain C11, built into the
 * kernel (whose public kernel/alloc/alloc.h includes it) and into the simulator.
 */
#ifndef KERNEL_ALLOC_CORE_JOB_H
#define KERNEL_ALLOC_CORE_JOB_H

#include <stdint.h>
#include <stdbool.h>

/* Masks of cores name at most this many (real-task mode: every core of the mesh). */
#define PROTO_MASK_CORES 128
#define PROTO_MASK_WORDS (PROTO_MASK_CORES / 64)

#define ALLOC_PROGRAM_MAX 16          /* program name, with its NUL */
#define ALLOC_DURATION_MAX_US 60000000 /* a simulated job's run, at most one minute */
#define ALLOC_SIM_PROGRAM "sim"        /* the only "program" of partial simulation: a timer */

enum alloc_policy { ALLOC_POLICY_AC = 0, ALLOC_POLICY_AB = 1, ALLOC_POLICIES };
enum alloc_scheme { ALLOC_SCHEME_NAIVE = 0, ALLOC_SCHEME_FLOOD, ALLOC_SCHEME_FIXED, ALLOC_SCHEME_ADAPTIVE,
		    ALLOC_SCHEMES };
const char *alloc_policy_name(enum alloc_policy p);
const char *alloc_scheme_name(enum alloc_scheme s);
/* -1 if the name is unknown. */
int alloc_policy_parse(const char *s);
int alloc_scheme_parse(const char *s);

/* The settings every micro-kernel reads: changed only while no job is in the system. */
struct alloc_config {
	enum alloc_policy policy;
	enum alloc_scheme scheme;
	bool check; /* check the invariants on every event (docs/allocation.md) */
};

/* A job as submitted. Real-task mode: `program` run as `ntasks` tasks, on `cores` cores
 * (0: one per task; fewer: an oversubscribed job, whose tasks are time-sliced on its
 * cores, docs/balancing.md). Partial simulation: `ntasks` virtual cores held for
 * `duration_us`. */
struct job_spec {
	uint16_t home;      /* domain (micro-kernel) id the job is submitted at */
	uint32_t ntasks;    /* tasks it runs */
	uint32_t cores;     /* cores it needs (0: ntasks); see job_cores */
	uint8_t place, wait; /* oversubscribed: the kernel's enum share_place and enum share_wait */
	uint16_t ep_first;  /* oversubscribed: its tasks' message endpoints, ep_first + rank (set by the submitter) */
	char program[ALLOC_PROGRAM_MAX];
	uint64_t arg;       /* the program's argument */
	uint64_t args;      /* real-task mode: the kernel's argument block of its tasks (0: none), opaque here;
	                     * freed by the home's penv_report at the job's end */
	uint64_t duration_us;
	uint64_t t_submit_ns; /* submission time (guest ns); 0: when the home receives it */
	uint32_t tag;       /* the submitter's own label, returned in the report */
	uint32_t cpu_ms;    /* real-task mode: each task's CPU-time limit, ms (0: the boot default) */
	uint8_t report_tag; /* the message tag the home sends its report with (the submitter's collector) */
};

/* An oversubscribed job's limits (its parts run as the kernel's share groups, whose limits these
 * are: kernel/alloc/submit.c checks that they agree; the simulator refuses what the kernel would). */
#define JOB_OVERSUB_TASKS_MAX 64
#define JOB_OVERSUB_CORES_MAX 32
#define JOB_OVERSUB_PER_CORE 8

/* The cores a job asks the allocator for. */
static inline uint32_t job_cores(const struct job_spec *s) { return s->cores ? s->cores : s->ntasks; }
/* Whether its tasks are time-sliced, several on a core. */
static inline bool job_oversubscribed(const struct job_spec *s) { return s->cores && s->cores < s->ntasks; }

#endif
