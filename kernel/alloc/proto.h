/*
 * Inside the job allocation protocol: the messages, and the state each
 * micro-kernel keeps. Micro-kernels are named by their domain id (0..D-1) and
 * sit on a dx x dy grid of domains, which is the graph the propagation schemes
 * walk. A struct mk belongs to one micro-kernel and only its own core touches
 * it: the protocol shares no memory, everything between micro-kernels travels
 * as MSG_TYPE_ALLOC messages. docs/allocation.md has the message table.
 */
#ifndef KERNEL_ALLOC_PROTO_H
#define KERNEL_ALLOC_PROTO_H

#include "lib/bits.h"
#include <stdint.h>
#include <stdbool.h>
#include "kernel/alloc/alloc.h"
#include "kernel/alloc/invasive.h"
#include "kernel/msg/msg.h"
#include "kernel/dispatch/task.h"

/* NoC traffic classes (kernel/msg/msg.h; KERNEL and KERNEL+1 are the kernel calls'). */
#define MSG_TYPE_ALLOC (MSG_TYPE_KERNEL + 2)
#define MSG_TYPE_ALLOC_REPORT (MSG_TYPE_KERNEL + 3)
#define MSG_TYPE_CLAIM (MSG_TYPE_KERNEL + 4) /* micro-kernel -> a claim's owner core: replies (claim.c) */

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
	/* invasive computing (kernel/alloc/claim.c, team.c; docs/invasive.md) */
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
	uint32_t need;
	uint32_t count;    /* RESP: cores; ECHO: nodes reached; PART_DONE: tasks; LINKDOWN: the other end */
	int32_t value;     /* TASK_DONE, PART_DONE: the (first non-zero) exit code */
	uint32_t failed;   /* PART_DONE: tasks that failed */
	uint64_t mask[2];  /* RESP: the committed cores (real-task mode) */
};

#define AF_CHILD 1  /* ECHO: the sender took the receiver as its parent */
#define AF_FAILED 2 /* TASK_DONE: the task was killed or could not start */
#define AF_DIRECT 4 /* LINKDOWN: sent by the shell to an end of the link, not propagated */

/* Body of SPAWN and SEQ_ALLOC after the header. */
struct spawn_body {
	char program[ALLOC_PROGRAM_MAX];
	uint64_t arg;
	uint64_t duration_us;
	uint16_t submitter;
	uint16_t nassign;   /* entries of assign[] */
	uint16_t ncores;    /* real-task mode: the job's cores in rank order, after assign[] */
	uint16_t ntasks;    /* real-task mode: its tasks; more than ncores: oversubscribed (run.c) */
	uint32_t cpu_ms;    /* each task's CPU-time limit (0: the boot default) */
	uint16_t ep_first;  /* oversubscribed: rank r's endpoint is ep_first + r */
	uint8_t place, wait; /* oversubscribed: enum share_place, enum share_wait */
	/* struct spawn_assign assign[nassign]; uint16_t cores[ncores]; */
};
struct spawn_assign {
	uint16_t mk;
	uint16_t count;
};

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
	uint64_t mask[2];   /* which ones (real-task mode) */
	bool local;         /* a job of this domain alone: no messages */
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
	uint16_t nparts;
	struct task begin;  /* a delayed submission waits in the dispatcher for its time */
	uint16_t commit_count[MOSAIC_MAX_HARTS];
	uint64_t commit_mask[MOSAIC_MAX_HARTS][2];
	uint64_t held[2];                        /* the cores it was mapped onto (real-task mode) */
	uint16_t held_count[MOSAIC_MAX_HARTS];   /* per domain: how many of them (both modes) */
};

/* Tasks of one job running on one micro-kernel's cores. */
struct run_part {
	struct run_part *next;
	uint32_t job;
	uint16_t home;
	uint16_t submitter;
	uint32_t count, done, failed;
	int32_t exit_code;
	uint64_t mask[2];     /* real-task mode: the cores */
	uint64_t t_start;     /* latest start of its tasks */
	struct task timer;    /* partial simulation: the run's timer */
	bool timer_armed;
	struct job_task *tasks; /* real-task mode: one per core (kernel/alloc/run.c) */
	uint16_t *cores;      /* the job's cores in rank order (real-task mode) */
	uint32_t ncores;
	char program[ALLOC_PROGRAM_MAX];
	uint64_t arg;
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

/* Messages the origin holds until its adaptive tree is formed. */
struct held_msg {
	struct held_msg *next;
	uint32_t len;
	/* the message follows */
};

struct mk {
	bool ready;
	uint16_t dom, core;
	uint32_t capacity, nfree;
	uint64_t freemask[2];   /* real-task mode: free pico-kernels */
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
	struct { uint32_t high; uint64_t mask; } seen[MOSAIC_MAX_HARTS];
	uint8_t dead;           /* PROP_E/W/N/S: grid links marked failed */
	uint32_t epoch;
	struct tree trees[MOSAIC_MAX_HARTS];
	struct held_msg *held, *held_tail; /* waiting for this origin's tree */
	struct echo_state echo[MOSAIC_MAX_HARTS]; /* per origin */
	int ping_requester;     /* the core to tell when this origin's PING wave is back (-1: none) */
	/* sequencer (atomic broadcast), at the elected micro-kernel only */
	struct wq_entry *sq;
	unsigned nsq, sq_cap;
	uint32_t seq_current;   /* job being allocated (0: none) */
	struct task retry;      /* real-task mode: try again to start tasks whose core was busy */
	/* invasive computing */
	struct claim *claims;   /* claims whose owner runs in this domain */
	struct team_member *starting; /* members whose core was still ending its previous call */
};

extern struct mk mks[MOSAIC_MAX_HARTS];

/* ---- mk.c: the scheduling loop and what every policy shares ---- */
struct mk *mk_self(void);
int mk_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len);
void mk_send_core(struct mk *m, unsigned core, struct alloc_hdr *h, uint32_t len);
bool order_before(uint64_t ta, uint16_t ha, uint32_t ja, uint64_t tb, uint16_t hb, uint32_t jb);
struct wq_entry *wq_find(struct mk *m, uint32_t job);
struct wq_entry *wq_insert(struct mk *m, const struct wq_entry *e);
void wq_remove(struct mk *m, struct wq_entry *e, bool release);
void tomb_add(struct mk *m, uint32_t job, uint16_t attempt);
bool tomb_closed(struct mk *m, uint32_t job, uint16_t attempt);
struct home_job *home_find(struct mk *m, uint32_t job);
void mk_commit(struct mk *m);
void home_commit(struct mk *m, struct home_job *j, unsigned from, uint32_t count, const uint64_t *mask);
unsigned sequencer_dom(void);
void sequencer_choose(void);

/* ---- submit.c ---- */
/* Waits (doing background work) until a report-class message with this tag is visible;
 * false when the deadline (this core's clock, ns, 0: none) passed first. Tag 0: job reports,
 * 1: PING results. */
bool alloc_wait_report(int tag, uint64_t deadline_ns);
/* The result of a PING wave, sent by its origin to the core that asked for it. */
struct ping_result {
	uint64_t ns;
	uint32_t reached;
	uint32_t nodes;
};

/* ---- policy_ac.c / policy_ab.c ---- */
void ac_begin(struct mk *m, struct home_job *j);
void ac_on_request(struct mk *m, const struct alloc_hdr *h);
void ac_periodic(struct mk *m);
void ab_begin(struct mk *m, struct home_job *j);
void ab_on_seq_submit(struct mk *m, const struct alloc_hdr *h);
void ab_on_seq_alloc(struct mk *m, struct alloc_hdr *h, uint32_t len);
void ab_periodic(struct mk *m);

/* ---- run.c: spawning and ending jobs ---- */
void home_satisfied(struct mk *m, struct home_job *j);
void spawn_receive(struct mk *m, const struct alloc_hdr *h, uint32_t len);
void run_task_done(struct mk *m, const struct alloc_hdr *h);
void run_part_done(struct mk *m, const struct alloc_hdr *h);
void run_reap(struct mk *m);
void mk_retry_later(struct mk *m);

/* ---- claim.c, team.c: invasive computing (docs/invasive.md) ---- */
#define AF_ANYWHERE 8 /* INVADE, CLAIM_REQ: cores may come from any domain */
/* Reply tags of MSG_TYPE_CLAIM messages to an owner core. */
enum { CLAIM_TAG_INVADE = 1, CLAIM_TAG_RETREAT, CLAIM_TAG_INFECT, CLAIM_TAG_TEAM };

/* One member of a team as it travels in INFECT and TEAM_START bodies. */
struct member_spec {
	uint64_t fn, arg;
	uint16_t core, index;
	uint32_t session; /* the owner's message session: members and owner talk in it */
};
/* Body of INFECT and TEAM_START after the header: the program, then `count` members. */
struct team_body {
	char program[ALLOC_PROGRAM_MAX];
	uint16_t owner;
	uint16_t isolated;   /* 1: each member a fresh instance of the program */
	uint16_t pad[2];
	uint64_t owner_root; /* else: the physical address of the owner's root page table, which
			      * the members' cores use as theirs (the one pointer into another core's
			      * memory a message carries: the owner outlives its team) */
};

enum claim_state { CL_IDLE = 0, CL_INVADING, CL_TEAM };
struct claim {
	struct claim *next;
	uint32_t id;
	uint16_t owner;          /* the core of the task that owns it */
	uint8_t state;           /* enum claim_state */
	uint64_t mask[2];        /* its cores, all domains */
	uint32_t ncores;
	/* an invade in progress */
	uint32_t want, pending;
	uint64_t fresh[2];       /* cores this invade keeps so far */
	uint64_t offered[2];     /* cores other micro-kernels committed, not yet kept or returned */
	/* the team in progress */
	uint32_t members, done, failed;
	uint64_t t_infect;
	struct member_result *results; /* one per member, in member order */
};

/* A member waiting to be started on its core (team.c). */
struct team_member {
	struct team_member *next;
	struct member_spec spec;
	uint32_t claim;
	uint16_t home_core, owner;
	bool isolated;
	uint64_t owner_root;
	char program[ALLOC_PROGRAM_MAX];
};

void claim_handle(struct mk *m, struct alloc_hdr *h, uint32_t len);
void team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len);
void team_retry(struct mk *m);
void claim_member_done(struct mk *m, const struct alloc_hdr *h, uint32_t len);
unsigned mk_take_nearest(struct mk *m, unsigned near);
void claim_print_all(void);
uint32_t mk_spare(const struct mk *m);

/* ---- propagate.c: the four schemes ---- */
void prop_start(struct mk *m, struct alloc_hdr *h, uint32_t len);
/* A propagated message arrived: passes it on; true if it is new here (handle it). */
bool prop_receive(struct mk *m, struct alloc_hdr *h, uint32_t len);
void prop_on_echo(struct mk *m, const struct alloc_hdr *h);
void prop_on_linkdown(struct mk *m, const struct alloc_hdr *h);
unsigned grid_x(unsigned dom);
unsigned grid_y(unsigned dom);
/* Starts a PING wave from this micro-kernel over the region; the bench waits for it. */
void prop_ping(struct mk *m, unsigned x0, unsigned y0, unsigned x1, unsigned y1, int requester);
/* The shell asked this end of a grid link to mark it failed: flood the news. */
void prop_linkdown_start(struct mk *m, const struct alloc_hdr *h);

/* ---- observe.c: statistics, trace and invariant checks (observers; the protocol never reads them) ---- */
void stats_msg(uint32_t job, unsigned kind, unsigned hops);
void stats_job_reset(uint32_t job);
void stats_job_get(uint32_t job, uint32_t *msgs, uint32_t *hops);
void trace_event(unsigned kind, uint32_t job, unsigned peer, uint64_t arg);
void check_claim(uint32_t job, unsigned dom, const uint64_t *mask, uint32_t count);
void check_release(uint32_t job, unsigned dom, const uint64_t *mask, uint32_t count);
void check_start(uint32_t job, uint32_t need, uint32_t got);
void check_commit_order(struct mk *m, const struct wq_entry *e);
void alloc_print_mk(unsigned dom);
bool alloc_trace_recorded(void);
/* The whole trace as TRACE lines and TRACE_END (what power-off prints). */
void alloc_trace_dump(void);
/* The last `count` (at most 64) events recorded, for a diagnosis. */
void alloc_trace_print_tail(unsigned count);
void check_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- watchdog.c: diagnosing a run that is stuck ---- */
/* Every job event (trace_kind) passes here: open jobs and progress are counted. */
void watchdog_note_event(unsigned kind);

enum trace_kind {
	TR_SEND = 1, TR_RECV, TR_SUBMIT, TR_BEGIN, TR_COMMIT, TR_CANCEL, TR_SATISFIED, TR_START, TR_END, TR_REPORT,
};

static inline uint32_t job_home(uint32_t job) { return job >> 20; }

static inline bool mask_has(const uint64_t *m, unsigned c) { return m[c / 64] >> (c % 64) & 1; }
static inline void mask_set(uint64_t *m, unsigned c) { m[c / 64] |= 1UL << (c % 64); }
static inline void mask_clear(uint64_t *m, unsigned c) { m[c / 64] &= ~(1UL << (c % 64)); }
/* The lowest core of m at or above `from`, or MOSAIC_MAX_HARTS: walks a mask's cores in
 * ascending order at the cost of its set bits, not of every core of the mesh
 * (for (c = mask_next(m, 0); c < MOSAIC_MAX_HARTS; c = mask_next(m, c + 1))). */
static inline unsigned mask_next(const uint64_t *m, unsigned from)
{
	for (unsigned w = from / 64; w < MOSAIC_MAX_HARTS / 64; w++) {
		uint64_t b = w == from / 64 ? m[w] & (~0UL << (from % 64)) : m[w];
		if (b)
			return w * 64 + lowest_bit(b);
	}
	return MOSAIC_MAX_HARTS;
}
#define MASK_EACH(m, c) unsigned c = mask_next((m), 0); c < MOSAIC_MAX_HARTS; c = mask_next((m), c + 1)

#endif
