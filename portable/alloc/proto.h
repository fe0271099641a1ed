/*
 * The job allocation protocol's portable core (thesis: Ramachandran, "Distributed
 * Job Allocation for Large-Scale Many-cores", Ch. 2-5): Algorithm 1's handlers,
 * active cancellation and the sequencer, the four propagation schemes, the
 * mapping heuristic, and the state each micro-kernel keeps. Plain C11 with no
 * kernel header: the same files build into the kernel (riscv64-unknown-elf-gcc)
 * and into the host simulator (gcc). Its environment (sending, clock, timers,
 * starting tasks, observers) is the small interface of proto_env.h, which each
 * home implements: kernel/alloc/binding.c in the kernel, sim/ on the host.
 *
 * Micro-kernels are named by their domain id (0..D-1) and sit on a dx x dy grid
 * of domains, the graph the propagation schemes walk. A struct mk belongs to one
 * micro-kernel and only it touches it: everything between micro-kernels travels
 * as messages. docs/allocation.md has the message table, docs/simulation.md the
 * interface.
 */
#ifndef KERNEL_ALLOC_CORE_PROTO_H
#define KERNEL_ALLOC_CORE_PROTO_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "portable/alloc/job.h"
#include "portable/alloc/claim.h"
#include "lib/bits.h" /* pure C, no kernel state: built for the host too */

/* A job id is (home << PROTO_JOB_SEQ_BITS) | the home's sequence number: 14 bits of home
 * (16,384 micro-kernels, the simulator's largest mesh) and 18 of sequence. */
#define PROTO_JOB_SEQ_BITS 18
#define PROTO_MAX_DOMAINS 16384

/*
 * What every micro-kernel knows about the machine: read-only while jobs run,
 * shared by all micro-kernels of one home (the kernel, one simulation).
 */
struct proto_world {
	unsigned dx, dy, ndomains;  /* the grid of domains; domain d sits at (d % dx, d / dx) */
	bool partial;               /* partial simulation: virtual cores at each micro-kernel's tile */
	unsigned ncores;            /* cores of the mesh; real-task masks name them (<= PROTO_MASK_CORES) */
	const uint16_t *core_x, *core_y; /* each core's tile */
	const uint16_t *core_dom;   /* each core's domain */
	const uint16_t *master;     /* each domain's micro-kernel core */
	unsigned sequencer;         /* the domain of atomic broadcast's sequencer */
	const struct alloc_config *cfg;
};
/* The micro-kernel nearest the centre of the mesh (the sequencer's place): the fewest links
 * on average for the submissions that travel to it. */
unsigned proto_centre_domain(const struct proto_world *w);
static inline unsigned proto_hops(const struct proto_world *w, unsigned a, unsigned b)
{
	int x = (int)w->core_x[a] - (int)w->core_x[b], y = (int)w->core_y[a] - (int)w->core_y[b];
	return (unsigned)(x < 0 ? -x : x) + (unsigned)(y < 0 ? -y : y);
}

enum alloc_kind {
	AK_SUBMIT = 1,  /* submitter -> home: a new job (body: struct job_spec) */
	AK_REQ,         /* propagated from the home (AC) or the sequencer (AB): core allocation request */
	AK_RESP,        /* micro-kernel -> home: cores committed to a request (count, mask) */
	AK_SPAWN,       /* propagated: the job's cores are chosen; release the others (body: spawn) */
	AK_CANCEL,      /* propagated from the home (AC): withdraw this attempt's request */
	AK_SEQ_SUBMIT,  /* home -> sequencer (AB): put the job in the global order */
	AK_SEQ_ALLOC,   /* home -> sequencer (AB): the job is satisfied (body: spawn), release the next */
	AK_TASK_DONE,   /* pico-kernel -> its micro-kernel: a task of a job ended (real-task mode) */
	AK_PART_DONE,   /* micro-kernel -> home: all the job's tasks on its cores ended */
	AK_PING,        /* propagated with echo: the propagation benchmark (thesis Fig. 5.6) */
	AK_TINIT,       /* propagated with echo: the adaptive pattern's initialisation phase */
	AK_ECHO,        /* reply along the reverse path of PING/TINIT */
	AK_LINKDOWN,    /* flooded: a grid link is marked failed; adaptive trees are re-formed */
	/* invasive computing (claim.c; the kernel's team.c starts members; docs/invasive.md) */
	AK_INVADE,      /* owner core -> its micro-kernel: n more cores for its claim */
	AK_CLAIM_REQ,   /* claim's home -> every other micro-kernel: commit what is free now (never waits) */
	AK_CLAIM_RESP,  /* -> the claim's home: cores committed (count may be 0) */
	AK_CLAIM_FREE,  /* -> a core's micro-kernel: these claimed cores are free again */
	AK_RETREAT,     /* owner core -> its micro-kernel: give these cores back */
	AK_INFECT,      /* owner core -> its micro-kernel: start a team (body: members) */
	AK_TEAM_START,  /* claim's home -> a micro-kernel: start these members on your cores */
	AK_MEMBER_DONE, /* member's core -> the claim's home: it ended (value, status) */
	AK_KINDS
};
const char *alloc_kind_name(unsigned k);

/* The fixed-size header of every protocol message (Algorithm 1 receives it first). */
struct alloc_hdr {
	uint8_t kind;
	uint8_t scheme;    /* propagated kinds: the scheme they travel by */
	uint8_t dir;       /* fixed pattern: PROP_* bits of where to pass it on */
	uint8_t flags;     /* ECHO: AF_CHILD; TASK_DONE: AF_FAILED */
	uint16_t origin;   /* propagated kinds: the micro-kernel that started it */
	uint16_t from;     /* the micro-kernel (or, for TASK_DONE, the core) that sent this copy */
	uint32_t bseq;     /* the origin's propagation number (duplicates are dropped by it) */
	uint32_t epoch;    /* adaptive: the tree generation */
	uint8_t rx0, ry0, rx1, ry1; /* propagated kinds: the region of the domain grid to reach */
	uint32_t job;
	uint16_t home;
	uint16_t attempt;
	uint64_t t_submit;
	uint64_t t_event;  /* PART_DONE: when the part started; TASK_DONE: the task's start */
	/* PART_DONE's body: its share's struct job_hold entries, as many as its length holds (spawn.c) */
	uint32_t need;
	uint32_t count;    /* RESP: cores; ECHO: nodes reached; PART_DONE: tasks; LINKDOWN: the other end */
	int32_t value;     /* TASK_DONE, PART_DONE: the (first non-zero) exit code */
	uint32_t failed;   /* PART_DONE: tasks that failed */
	uint64_t mask[PROTO_MASK_WORDS]; /* RESP: the committed cores (real-task mode) */
};

#define AF_CHILD 1  /* ECHO: the sender took the receiver as its parent */
#define AF_FAILED 2 /* TASK_DONE: the task was killed or could not start */
#define AF_DIRECT 4 /* LINKDOWN, PING: sent to an end of the link / an origin, not propagated */
#define AF_ANYWHERE 8 /* INVADE, CLAIM_REQ: cores may come from any domain */
#define AF_REFLOOD 16 /* adaptive: a copy flooded by a node that lost the message's tree (propagate.c) */

/* Body of SPAWN and SEQ_ALLOC after the header. */
struct spawn_body {
	char program[ALLOC_PROGRAM_MAX];
	uint64_t arg;
	uint64_t args;      /* struct job_spec's args */
	uint64_t duration_us;
	uint16_t submitter;
	uint16_t nassign;   /* entries of assign[] */
	uint16_t ncores;    /* real-task mode: the job's cores in rank order, after assign[] */
	uint16_t ntasks;    /* real-task mode: its tasks; more than ncores: oversubscribed (kernel/alloc/oversub.c) */
	uint32_t cpu_ms;    /* each task's CPU-time limit (0: the boot default) */
	uint16_t ep_first;  /* oversubscribed: rank r's message endpoint is ep_first + r */
	uint8_t place, wait; /* oversubscribed: the kernel's enum share_place, enum share_wait */
	/* struct spawn_assign assign[nassign]; uint16_t cores[ncores]; */
};
struct spawn_assign {
	uint16_t mk;
	uint16_t count;
};

/*
 * A job's hold of cores, for its record: cores of micro-kernel `mk` taken for the job when that
 * micro-kernel started its share (the spawn reached it) and given back when it freed them (real
 * tasks: one core, when its task's end reached the micro-kernel; partial simulation: the share's
 * `count` virtual cores, at its run's end). Both times are on that micro-kernel's clock, so the
 * holds of one core by different jobs compare on one clock. PART_DONE carries its share's.
 */
struct job_hold {
	uint16_t mk;
	uint16_t core;  /* PROTO_HOLD_VIRTUAL in partial simulation */
	uint32_t count; /* 1 in real-task mode */
	uint64_t t_taken, t_given;
};
#define PROTO_HOLD_VIRTUAL 0xffff

/* Fixed-pattern directions. */
enum { PROP_E = 1, PROP_W = 2, PROP_N = 4, PROP_S = 8, PROP_TRUNK = 16 };

/* A request in a micro-kernel's wait queue, kept in the global order. */
struct wq_entry {
	uint32_t job;
	uint16_t home;
	uint16_t attempt;
	uint64_t t_submit;
	uint32_t need;      /* cores asked from this micro-kernel (greedy: all the job needs) */
	uint32_t committed; /* cores committed to it here */
	uint64_t mask[PROTO_MASK_WORDS]; /* which ones (real-task mode) */
	bool local;         /* a job of this domain alone: no messages */
};

/* A timer the core asks its home for (proto_env.h): it fires once, into proto_timer_fired. */
enum proto_timer_kind { PT_BEGIN = 1, PT_PART_END };
struct proto_timer {
	uint8_t kind;      /* enum proto_timer_kind */
	bool armed, fired;
	void *obj;         /* BEGIN: the home_job; PART_END: the run_part */
	void *env;         /* the home's own record of it */
};

/* A job at its home micro-kernel. */
enum home_state { HJ_DELAYED = 0, HJ_SEQ_WAIT, HJ_REQUESTING, HJ_BLOCKED, HJ_SATISFIED, HJ_RUNNING };
struct home_job {
	struct home_job *next;
	struct job_spec spec;
	uint32_t id;
	uint16_t submitter;
	uint8_t state;      /* enum home_state */
	bool global;
	uint16_t attempt;
	uint64_t t_submit, t_alloc, t_start, t_end;
	uint32_t got;       /* cores committed to the current attempt, all micro-kernels together */
	uint32_t parts_pending;
	uint32_t failed_tasks, cancels, attempts;
	int32_t exit_code;
	uint32_t nparts;
	struct proto_timer begin;  /* a delayed submission waits for its time */
	/* per domain (world->ndomains entries, allocated with the job): cores committed to the
	 * current attempt, and which (real-task mode) */
	uint16_t *commit_count;
	uint64_t (*commit_mask)[PROTO_MASK_WORDS];
	uint64_t held[PROTO_MASK_WORDS]; /* the cores it was mapped onto (real-task mode) */
	struct spawn_assign *assign;     /* per domain it runs on: how many cores (nparts entries) */
	struct job_hold *holds;          /* what its shares' PART_DONEs said, for the report */
	uint32_t nholds, holds_cap;      /* holds_cap: its cores (real tasks) or nparts (partial) */
};

/* Tasks of one job running on one micro-kernel's cores. */
struct run_part {
	struct run_part *next;
	uint32_t job;
	uint16_t home;
	uint16_t submitter;
	uint32_t count, done, failed;
	int32_t exit_code;
	uint64_t mask[PROTO_MASK_WORDS]; /* real-task mode: the cores */
	uint64_t t_start;     /* latest start of its tasks */
	struct job_hold *holds; /* real tasks: one per core, in core order; partial simulation: one */
	uint32_t nholds;
	struct proto_timer timer; /* partial simulation: the run's end */
	void *env;            /* the home's own record of the part (real-task mode: its tasks) */
	char program[ALLOC_PROGRAM_MAX];
	uint64_t arg;
	uint64_t args; /* struct job_spec's args */
};

/* Closed requests: a late copy of a request this micro-kernel has seen closed is ignored. */
#define ALLOC_TOMBS 256
struct tomb {
	uint32_t job;
	uint16_t attempt; /* closed through this attempt (0xffff: for good) */
};

/* Adaptive pattern: the tree of one origin as this node knows it. */
struct tree {
	uint32_t epoch;
	uint16_t parent;     /* domain id; itself at the origin */
	uint8_t children;    /* PROP_E/W/N/S bits */
	uint8_t ready;       /* the initialisation wave came back (origin) / it was joined (others) */
	uint8_t rx0, ry0, rx1, ry1;
};

/* An echo wave (PING or TINIT) passing this node. */
struct echo_state {
	uint32_t bseq;
	uint16_t parent;
	uint16_t awaiting;
	uint32_t count;
	uint8_t children;
	bool active;
	uint8_t kind;        /* AK_PING or AK_TINIT */
	uint64_t t_start;    /* origin: when the wave started */
	uint64_t t_done;     /* origin: when the last echo came back */
};

/* What this node knows of one origin's propagations (origin.c): kept only for the origins
 * it has heard from, so a 16,384-node mesh does not hold 16,384 of them per node. */
struct origin_state {
	uint16_t origin;
	bool used;
	uint32_t high;       /* the highest propagation number seen, and the 64 before it */
	uint64_t mask;
	uint64_t flooded;    /* same window: passed on by an AF_REFLOOD flood here */
	struct tree tree;
	struct echo_state echo;
};

/* Messages the origin holds until its adaptive tree is formed. */
struct held_msg {
	struct held_msg *next;
	uint32_t len;
	/* the message follows */
};

struct team_member; /* the kernel's: members waiting for their core (kernel/alloc/proto.h) */

struct mk {
	bool ready;
	uint16_t dom, core;
	const struct proto_world *w;
	void *env;              /* the home's own per-micro-kernel data */
	uint32_t capacity, nfree;
	uint64_t freemask[PROTO_MASK_WORDS]; /* real-task mode: free pico-kernels */
	struct wq_entry *wq;
	unsigned nwq, wq_cap;
	struct tomb tombs[ALLOC_TOMBS];
	unsigned tomb_next;
	struct home_job *jobs;  /* jobs submitted here, not yet ended */
	unsigned njobs;
	uint32_t next_seq;
	struct run_part *parts;
	bool dirty;             /* state changed: run the periodic procedure */
	/* propagation */
	uint32_t bseq;
	struct origin_state *origins; /* open addressing on the origin (origin.c) */
	unsigned norigins, origins_cap;
	uint8_t dead;           /* PROP_E/W/N/S: grid links marked failed */
	uint32_t epoch;
	struct held_msg *held, *held_tail; /* waiting for this origin's tree */
	int ping_requester;     /* the core to tell when this origin's PING wave is back (-1: none) */
	/* active cancellation: foreign requests known to be cancelled and not yet renewed or
	 * spawned, in the global order (policy_ac.c) */
	struct wq_entry *dormant;
	unsigned ndormant, dormant_cap;
	/* sequencer (atomic broadcast), at the elected micro-kernel only */
	struct wq_entry *sq;
	unsigned nsq, sq_cap;
	uint32_t seq_current;   /* job being allocated (0: none) */
	/* invasive computing (claim.c) */
	struct claim *claims;
	struct team_member *starting; /* the kernel's team start (team.c) */
};

/* ---- the core's entry points, for its home ---- */

/* Makes m micro-kernel `dom` of world w, whose own core is `core`, with `capacity` cores
 * for jobs (real-task mode: the cores of `freemask`). */
void proto_mk_init(struct mk *m, const struct proto_world *w, unsigned dom, unsigned core, uint32_t capacity,
		   const uint64_t *freemask);
/* Releases everything m allocated (a simulation's end). */
void proto_mk_destroy(struct mk *m);
/* Algorithm 1's handler for one message (len bytes, header first); malformed ones are
 * dropped with a note. */
void proto_receive(struct mk *m, struct alloc_hdr *h, uint32_t len);
/* The periodic procedure, if anything changed since the last one; true if it ran. */
bool proto_settle(struct mk *m);
/* A timer set through penv_timer is due. */
void proto_timer_fired(struct mk *m, struct proto_timer *t);
/* Starts a PING wave from m over a region of the grid; its result goes to penv_ping_done. */
void prop_ping(struct mk *m, unsigned x0, unsigned y0, unsigned x1, unsigned y1, int requester);
/* Cores of m that no request waits for (invasive claims may take them). */
uint32_t mk_spare(const struct mk *m);
/* Takes the free core of m nearest core `near` (ties: the lowest id). */
unsigned mk_take_nearest(struct mk *m, unsigned near);

/* ---- inside the core ---- */
void mk_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len);
bool order_before(uint64_t ta, uint16_t ha, uint32_t ja, uint64_t tb, uint16_t hb, uint32_t jb);
struct wq_entry *wq_find(struct mk *m, uint32_t job);
struct wq_entry *wq_insert(struct mk *m, const struct wq_entry *e);
void sq_insert(struct mk *m, const struct wq_entry *e);
/* Inserts e at its place in the global order into a grown array of entries. */
struct wq_entry *entries_insert(struct mk *m, struct wq_entry **arr, unsigned *n, unsigned *cap,
				const struct wq_entry *e);
void wq_remove(struct mk *m, struct wq_entry *e, bool release);
void tomb_add(struct mk *m, uint32_t job, uint16_t attempt);
bool tomb_closed(struct mk *m, uint32_t job, uint16_t attempt);
struct home_job *home_find(struct mk *m, uint32_t job);
/* Frees a job its home has taken off m->jobs. */
void home_job_free(struct home_job *j);
void mk_commit(struct mk *m);
void home_commit(struct mk *m, struct home_job *j, unsigned from, uint32_t count, const uint64_t *mask);
void home_reset_commits(struct mk *m, struct home_job *j);

void ac_begin(struct mk *m, struct home_job *j);
void ac_on_request(struct mk *m, const struct alloc_hdr *h);
void ac_periodic(struct mk *m);
/* A foreign job's request was cancelled (CANCEL of `attempt` reached m), or it moved on
 * (a request of a later attempt, or its spawn: attempt 0xffff). */
void ac_note_cancel(struct mk *m, const struct alloc_hdr *h);
void ac_note_progress(struct mk *m, uint32_t job, uint16_t attempt);
void ab_begin(struct mk *m, struct home_job *j);
void ab_on_seq_submit(struct mk *m, const struct alloc_hdr *h);
void ab_on_seq_alloc(struct mk *m, struct alloc_hdr *h, uint32_t len);
void ab_periodic(struct mk *m);

/* spawn.c: mapping, spawning and ending jobs */
void home_satisfied(struct mk *m, struct home_job *j);
void spawn_receive(struct mk *m, const struct alloc_hdr *h, uint32_t len);
void run_task_done(struct mk *m, const struct alloc_hdr *h);
void run_part_done(struct mk *m, const struct alloc_hdr *h, uint32_t len);
void run_part_timer(struct mk *m, struct run_part *p);
void run_reap(struct mk *m);
/* Frees a part taken off m->parts, with what the environment holds for it. */
void run_part_free(struct mk *m, struct run_part *p);

/* propagate.c, origin.c */
void prop_start(struct mk *m, struct alloc_hdr *h, uint32_t len);
/* A propagated message arrived: passes it on; true if it is new here (handle it). */
bool prop_receive(struct mk *m, struct alloc_hdr *h, uint32_t len);
void prop_on_echo(struct mk *m, const struct alloc_hdr *h);
void prop_on_linkdown(struct mk *m, const struct alloc_hdr *h);
/* The shell asked this end of a grid link to mark it failed: flood the news. */
void prop_linkdown_start(struct mk *m, const struct alloc_hdr *h);
struct origin_state *origin_get(struct mk *m, unsigned origin);
/* The origins table's first entries (proto_mk_init), so that a job leaves the kernel's objects as
 * it found them. */
void origins_init(struct mk *m);
static inline unsigned grid_x(const struct proto_world *w, unsigned dom) { return dom % w->dx; }
static inline unsigned grid_y(const struct proto_world *w, unsigned dom) { return dom / w->dx; }

/* Trace events the core reports through penv_trace (arguments: docs/allocation.md). */
enum trace_kind {
	TR_SEND = 1, TR_RECV, TR_SUBMIT, TR_BEGIN, TR_COMMIT, TR_CANCEL, TR_SATISFIED, TR_START, TR_END, TR_REPORT,
};

static inline uint32_t job_home(uint32_t job) { return job >> PROTO_JOB_SEQ_BITS; }
static inline uint32_t proto_job_id(unsigned home, uint32_t seq)
{
	return (uint32_t)home << PROTO_JOB_SEQ_BITS | (seq & ((1u << PROTO_JOB_SEQ_BITS) - 1));
}

static inline bool mask_has(const uint64_t *m, unsigned c) { return m[c / 64] >> (c % 64) & 1; }
static inline void mask_set(uint64_t *m, unsigned c) { m[c / 64] |= 1ULL << (c % 64); }
static inline void mask_clear(uint64_t *m, unsigned c) { m[c / 64] &= ~(1ULL << (c % 64)); }
/* The lowest core of m at or above `from`, or PROTO_MASK_CORES: walks a mask's cores in
 * ascending order at the cost of its set bits, not of every core of the mesh
 * (for (c = mask_next(m, 0); c < PROTO_MASK_CORES; c = mask_next(m, c + 1))). */
static inline unsigned mask_next(const uint64_t *m, unsigned from)
{
	for (unsigned w = from / 64; w < PROTO_MASK_WORDS; w++) {
		uint64_t b = w == from / 64 ? m[w] & (~0ULL << (from % 64)) : m[w];
		if (b)
			return w * 64 + lowest_bit(b);
	}
	return PROTO_MASK_CORES;
}
#define MASK_EACH(m, c) unsigned c = mask_next((m), 0); c < PROTO_MASK_CORES; c = mask_next((m), c + 1)

#endif
