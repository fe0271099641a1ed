/*
 * The checked system: D micro-kernels of the protocol core in partial
 * simulation (one core per domain, V virtual cores each, master[d] = d), the
 * jobs submitted to them, and what the checker watches. Everything that changes
 * lives in the arena (arena.h) under one root, struct sys; the world (grid,
 * config) is static and read-only while the system runs. Two transports
 * implement the core's sending and timers on top of it: net_chan.c (FIFO
 * channels whose next event is chosen: the exhaustive checker) and net_timed.c
 * (a timed event queue with random delays: the stress test).
 */
#ifndef CHECKER_ENV_H
#define CHECKER_ENV_H

#include "portable/alloc/proto_env.h"

#define SYS_MAX_DOMAINS 256   /* 16 x 16 */
#define SYS_MAX_JOBS 64

/* A job as the checker knows it (index = its tag). */
struct chk_job {
	struct job_spec spec;
	uint32_t id;        /* the core's job id, once its home has it (0: not yet) */
	uint32_t started;   /* cores its parts started with */
	uint32_t parts;     /* parts started */
	bool reported;
};

/* Cores one micro-kernel has committed to or runs for one job, as penv_hold reports them. */
struct hold {
	uint32_t job, count;
};
struct holdv {
	struct hold *v;
	unsigned n, cap;
};

/* A message in flight (both transports). */
struct msg {
	struct msg *next;
	uint16_t from, to;  /* from >= ndomains: a submitter (net_chan: one per job) */
	uint32_t len;
	uint64_t t;         /* net_timed: delivery time; net_chan: unused */
	uint64_t seq;
	/* len bytes of the message follow */
};
static inline struct alloc_hdr *msg_hdr(struct msg *x) { return (struct alloc_hdr *)(x + 1); }

/* A timer the core armed and that has not fired. */
struct ptimer {
	uint16_t mk;
	struct proto_timer *t;
	uint64_t at, seq;
};

struct sys {
	unsigned nd, v, njobs;
	struct mk *mks;             /* nd */
	struct holdv *holds;        /* nd */
	struct chk_job jobs[SYS_MAX_JOBS];
	uint64_t now, events, seq;
	/* net_chan: nd + njobs sources x nd receivers, FIFO each; the armed timers */
	struct msg **chan_head, **chan_tail;
	struct ptimer *timers;
	unsigned ntimers, timers_cap;
	/* net_timed: a binary heap of messages and timers by (time, seq); per channel the
	 * latest delivery time (FIFO) */
	struct hev *heap;
	unsigned nheap, heap_cap;
	uint64_t *chan_last;        /* (nd + 1) x nd */
	unsigned link_fails;
};

extern struct sys *S;
extern struct proto_world world;
extern struct alloc_config config;

/* Builds the world (dx x dy domains, v cores each) and an empty system in a reset arena. */
void sys_init(unsigned dx, unsigned dy, unsigned v, enum alloc_policy p, enum alloc_scheme s, unsigned njobs);
/* The SUBMIT message of job `tag` (its spec in S->jobs[tag]); *len gets its length. */
void sys_submit_msg(unsigned tag, uint8_t *buf, uint32_t *len);
/* Delivers one message to micro-kernel `to` and runs its periodic procedure. */
void sys_deliver(unsigned to, struct alloc_hdr *h, uint32_t len);
/* Job whose messages sys_deliver prints (0: none). */
extern uint32_t sys_trace_job;
/* Fires one timer of micro-kernel `mk` and runs its periodic procedure. */
void sys_fire(unsigned mk, struct proto_timer *t);

/* Prints the state of every micro-kernel that is not idle (dump.c). */
#include <stdio.h>
void sys_dump(FILE *f);

/* A bad command line of the driver prog: "<prog>: " and fmt with arg on stderr, then usage(stderr), exit 2. */
void chk_usage_error(const char *prog, void (*usage)(FILE *), const char *fmt, const char *arg)
	__attribute__((noreturn));

/* ---- invariants (invariants.c) ---- */

/* Records a violation (the first one is kept); the drivers look after every event. */
void chk_violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *chk_failed(void);  /* the violation, or 0 */
void chk_clear(void);
/* The checks after an event at micro-kernel m (conservation of cores, observer = state). */
void chk_after_event(const struct mk *m);
/* Nothing is left to happen: every job reported, every micro-kernel idle and whole. */
void chk_at_end(void);
/* The driver prints what led here and exits (set by each driver): a panic of the core. */
extern void (*chk_fatal)(void);

#endif
