/*
 * The deterministic simulator of the job allocation protocol (docs/simulation.md):
 * the state shared by its files. One struct mk (the portable core of
 * kernel/alloc/core/) per micro-kernel, a discrete-event queue ordered by (time,
 * sequence number), the NoC timing model of drivers/noc/timing.c for message
 * delays and the software costs of sim/costs.h for the time each micro-kernel
 * spends in its handlers. Everything is single-threaded and has no source of
 * randomness but the seeded generator below, so the same arguments give the
 * same output byte for byte.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include "kernel/alloc/core/proto_env.h"
#include "drivers/noc/timing.h"

#define SIM_MAX_SIDE 128         /* meshes 1x1 .. 128x128 */
#define SIM_MAX_JOBS 256         /* as the kernel's SCENARIO_MAX_JOBS */
#define SIM_MAX_LINKFAILS 16

/* ---- options (main.c) ---- */
struct sim_opts {
	unsigned w, h;           /* the mesh, in cores (partial simulation: in micro-kernels) */
	bool partial;            /* partial simulation (the default) or real-task mode */
	unsigned vcores;         /* partial simulation: virtual cores per micro-kernel */
	unsigned domains;        /* real-task mode: domains (0: the kernel's default) */
	int policy, scheme;
	bool check;
	const char *scenario;    /* the kernel's scenario words: "simul 4 2 1000", "0 0 12 500;..." */
	uint64_t task_us;        /* real-task mode: a program's run time when none is given */
	uint64_t seed, jitter_ns;/* extra NoC delay per message, uniform in [0, jitter_ns] */
	bool costs;              /* charge the handlers' software costs (sim/costs.h) */
	struct noc_timing noc;
	unsigned nlinkfails;
	struct { uint64_t t_us; unsigned a, b; } linkfail[SIM_MAX_LINKFAILS];
	unsigned prop_w, prop_h, prop_reps; /* --propbench WxH: the Fig. 5.6 wave instead of jobs */
	bool json, brief, timing;
	uint64_t max_events;     /* a stop for runaway runs (0: none) */
};

/* ---- the machine (layout.c) ---- */
struct sim_world {
	struct proto_world pw;
	struct alloc_config cfg;
	unsigned ncores;         /* tiles of the mesh */
	uint16_t *core_x, *core_y, *core_dom, *master;
	uint32_t *capacity;      /* per domain: cores for jobs */
	uint64_t (*freemask)[PROTO_MASK_WORDS];
	uint32_t machine_cores;
};
/* Fills the layout of the kernel's kernel/domain.c for the options; NULL or why not. */
const char *layout_build(struct sim_world *sw, const struct sim_opts *o, char *err, unsigned errlen);

/* ---- scenarios (scenario.c) ---- */
struct sim_job_in {
	struct job_spec spec;
	uint64_t offset_us;
};
struct sim_scenario {
	char name[48];
	unsigned n;
	struct sim_job_in jobs[SIM_MAX_JOBS];
};
bool scenario_build(struct sim_scenario *sc, const char *spec, const struct sim_world *sw, const struct sim_opts *o,
		    char *err, unsigned errlen);

/* ---- the event queue (events.c) ---- */
enum ev_kind { EV_MSG = 1, EV_TIMER, EV_TASK_END };
/* A body shared by the copies of one propagated message (a spawn of a 16,384-node job is
 * 64 KiB: its copies share it instead of holding one each). */
struct body {
	uint32_t refs, len;      /* len: the whole message, header included */
	uint8_t buf[];           /* header space, then the body */
};
struct event {
	uint64_t time, seq;
	uint8_t kind;
	uint16_t to;             /* the micro-kernel it is for */
	uint32_t len;
	struct alloc_hdr hdr;    /* EV_MSG: the header (every copy its own) */
	struct body *body;       /* EV_MSG with a body after the header, else NULL */
	struct proto_timer *timer; /* EV_TIMER */
	uint16_t core;           /* EV_TASK_END: the pico-kernel core */
	uint64_t t_start;        /* EV_TASK_END: the task's start */
};
struct event *ev_new(void);
void ev_push(struct event *e);     /* sets e->seq */
struct event *ev_pop(void);
void ev_free(struct event *e);
void body_put(struct body *b);
size_t ev_pending(void);
void ev_reset(void);

/* ---- the NoC (net.c) ---- */
void net_init(const struct sim_opts *o, unsigned w, unsigned h);
void net_fini(void);
/* Books the route src -> dst for len body bytes sent at `now`; returns the delivery time. */
uint64_t net_deliver_time(unsigned src, unsigned dst, uint32_t len, uint64_t now);
extern uint64_t net_floor_ns; /* no event earlier than this can still send (the queue's time) */

/* ---- per-job results (env.c) ---- */
struct sim_job {
	bool submitted, reported;
	uint32_t id;
	struct job_spec spec;
	uint64_t t_submit, t_alloc, t_start, t_end;
	uint32_t msgs, hops, cancels, attempts, nparts;
	bool global;
	struct spawn_assign *assign; /* nparts entries */
	uint64_t cores[PROTO_MASK_WORDS];
};

/* ---- the simulation (env.c, run.c) ---- */
struct sim {
	const struct sim_opts *o;
	struct sim_world *sw;
	struct mk *mks;
	uint64_t *busy;          /* per micro-kernel: its clock (when it is next free) */
	struct sim_scenario *sc;
	struct sim_job jobs[SIM_MAX_JOBS];
	unsigned reported;
	/* the event being handled */
	struct event *cur;
	/* statistics */
	uint64_t kind_msgs[AK_KINDS], kind_hops[AK_KINDS], events, violations;
	uint64_t now_max;
	/* invariant checks: who holds each core (real-task mode), virtual cores held per mk */
	uint32_t *owner;
	uint32_t *vused;
	/* the PING wave's result (propbench) */
	bool ping_done;
	uint64_t ping_ns;
	uint32_t ping_reached;
	uint64_t rng;
};
extern struct sim S;

/* Charges `ns` of software to micro-kernel m: its clock moves on. */
static inline void sim_charge(unsigned dom, uint64_t ns) { S.busy[dom] += ns; }
uint64_t sim_rand(void);
/* The index of the scenario job with core job id `id`, or -1. */
int sim_job_index(uint32_t id);
void env_init(void);
void env_fini(void);
/* Handles one event: the handler, then the periodic procedure. */
void sim_dispatch(struct event *e);

/* output.c */
void output_run(FILE *f, const char *repro, uint64_t wall_ns);
void output_propbench(FILE *f, const char *repro, const uint64_t *ns, const uint64_t *msgs, unsigned reps,
		      uint32_t reached);
void json_str(FILE *f, const char *s);

#endif
