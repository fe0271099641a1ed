/*
 * Time-sliced pico-kernels and share groups (docs/balancing.md). A share group is N
 * copies of a program, ranks 0..N-1, run on C pico-kernels (N may exceed C): each
 * core time-slices the tasks it holds, each task in its own address space and on its
 * own kernel stack, preempted round-robin every share_slice_us on the core's own clock.
 * The ranks share a barrier (KC_SHARE_BARRIER) whose waits follow the group's wait mode,
 * and the group's placement says whether tasks stay where they started (pinned), rotate
 * between the cores (round-robin) or move by speed (the speed balancer, share_balance.c).
 *
 * A share group can also be one micro-kernel's part of an oversubscribed job
 * (kernel/alloc/run.c): then each task has a job context (rank, size, the job's
 * endpoints) and a virtual message endpoint of its own (drivers/noc/noc_ep.h), so its
 * tasks use messages and collectives like any job's; a task that waits for a message
 * gives the core to the other tasks of its core by the job's wait mode (share_msg_wait).
 * In a plain share group the calls that need a message identity answer -ENOTSUP.
 *
 * Each task is accounted on the clock of the core it runs on (kernel/time/vtime.h): CPU time
 * (its slices), system time (its kernel calls) and real time (first slice to end); its
 * speed, as the slides define it, is (user + system) / real = CPU time / real time.
 */
#ifndef KERNEL_SHARE_H
#define KERNEL_SHARE_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/task/utask.h"
#include "kernel/core/spinlock.h"

#define SHARE_MAX 8                 /* tasks one pico-kernel holds at once */
#define SHARE_CORES_MAX 32          /* cores of one share group */
#define SHARE_TASKS_MAX 64          /* tasks of one share group */
#define SHARE_SLICE_US_DEFAULT 1000 /* the time slice (boot argument share_slice_us) */
#define SHARE_SLICE_US_MIN 50       /* below this a slice is mostly switching */
#define SHARE_SLICE_US_MAX 1000000
#define SHARE_STACK_PAGES 4         /* each task's kernel stack: as large as a hart's */
#define SHARE_RESTART (-512)        /* internal: the kernel call is made again (never seen by a task) */
#define SHARE_BALANCE_US_DEFAULT 10000 /* the balance period (boot argument share_balance_us) */
#define SHARE_SPEED_MARGIN 100      /* permille: a core pulls a task only from one this much slower */
extern uint64_t share_slice_us, share_balance_us;

enum share_wait { SHARE_WAIT_SPIN, SHARE_WAIT_YIELD, SHARE_WAIT_SLEEP, SHARE_WAITS };
enum share_place { SHARE_PLACE_PINNED, SHARE_PLACE_RR, SHARE_PLACE_SPEED, SHARE_PLACES };
extern const char *const share_wait_names[SHARE_WAITS];
extern const char *const share_place_names[SHARE_PLACES];

struct share_task {
	uint32_t rank;
	struct utask_result res;          /* how it ended */
	uint64_t cpu_ns, sys_ns, real_ns; /* on the clocks of the cores it ran on */
	uint64_t slices, migrations;
	uint64_t end_ns; /* the clock of the core it ended on, at its end */
	uint16_t first_core, last_core;
};

struct slot;
struct share_core;
struct job_ctx;
struct share_group {
	/* in */
	const char *name;
	uint64_t arg, cpu_ms;
	const struct uargs *args; /* every task's argument block (kernel/task/uargs.h; NULL: none) */
	unsigned ntasks, ncores;
	uint16_t cores[SHARE_CORES_MAX];
	enum share_wait wait;
	enum share_place place;
	/* in, for a part of an oversubscribed job (all zero for a plain group) */
	const struct job_ctx *jobs;   /* per task: its job context; jobs[i].rank is its rank */
	const uint16_t *eps;          /* per task: its virtual message endpoint */
	const uint8_t *first_core;    /* per task: the index in cores[] it starts on (NULL: i mod C) */
	uint32_t session;             /* the job's message session */
	void (*core_begin)(struct share_group *g, unsigned k); /* on core k before its tasks start */
	void (*core_end)(struct share_group *g, unsigned k);   /* on core k at its end: its last touch of g */
	void *owner;
	/* in, for share_group_run (NULL: none): asked (take false) while it waits for the cores; true
	 * kills every task of the group (the shell's Ctrl-C), and the hook is told once (take true) */
	bool (*interrupted)(struct share_group *g, bool take);
	/* out, per core: what the tasks that ended there left (a task ends on exactly one core) */
	uint16_t core_ended[SHARE_CORES_MAX], core_failed[SHARE_CORES_MAX];
	int32_t core_exit[SHARE_CORES_MAX]; /* the first non-zero exit code */
	/* out */
	struct share_task tasks[SHARE_TASKS_MAX];
	uint64_t run_ns;     /* from the common start to the end of the last task (cores' own clocks) */
	uint32_t serial;     /* this group among the boot's groups: its balancer's messages carry it */
	uint32_t balance_sent, balance_dropped; /* the balancer's messages sent, and not sent for want of a credit (atomic) */
	uint32_t migrations; /* tasks moved between cores */
	uint32_t moves_in_wait; /* ... of them while switched out inside a message wait */
	uint32_t barriers;   /* barriers released */
	/* the group's barrier: arrivals of the live tasks, under lock */
	struct spinlock lock;
	uint32_t arrived, expected, gen;
	uint64_t arrive_max, release_ns; /* the latest arrival's clock: everyone leaves no earlier */
	uint32_t started, start_expect; /* cores in the group's start (co-scheduling), under lock */
	uint64_t start_ns;              /* the latest of their clocks: every task starts there */
	struct slot *slots[SHARE_TASKS_MAX];
	struct share_core *state; /* one per core, in the order of cores[] */
	uint32_t ended; /* tasks that ended (atomic) */
	uint64_t over_ns; /* the latest clock of a task's end (atomic max, before `ended` counts it) */
	uint64_t kill_at; /* the whole group (its job) is killed: the kill's time (atomic max); 0: not */
	bool called[SHARE_CORES_MAX]; /* cores whose part has been started */
};

/* Runs group g (its `in` fields set) from the calling core, which must not be one of its
 * cores, until every task ended. 0; -EINVAL for a bad count, core list, wait or placement,
 * -ENOENT for no such program, -EPERM for a core that is not an idle pico-kernel (or is the
 * caller), -ENOMEM. Nothing runs unless everything checks out. */
int share_group_run(struct share_group *g);

/* The same without waiting, for a job's part: checks g and makes its tasks (the errors of
 * share_group_run, except that a core still running a call is accepted: the protocol granted
 * it, and its last job's call ends in a moment), then starts every core it can;
 * share_group_call_rest starts those that were busy (true once all have been). Each core
 * calls g->core_end as its last touch of g; after every core's, share_group_free gives back
 * what the group holds. */
int share_group_start(struct share_group *g);
bool share_group_call_rest(struct share_group *g);
void share_group_free(struct share_group *g);

/* Prints g's tasks (unless quiet), its summary and its SHAREJSON line, each led by `who`. */
void share_report(const struct share_group *g, const char *who, bool quiet);
/* A wait mode's or a placement's number from its name; -1 for an unknown name. */
int share_wait_parse(const char *w);
int share_place_parse(const char *w);

/* The first n online pico-kernels other than the calling core (a group's default cores);
 * how many there are. */
unsigned share_idle_picos(uint16_t *cores, unsigned n);
/* Drops the share balancer's messages that reached this core after its group ended here
 * (the idle loop asks; a few loads when there are none). */
void share_idle_purge(void);

/* A kill of the tasks that core `core` time-slices for group `group` (its serial, as
 * harts[].sliced_group shows it), from utask_kill with the kill's time already in
 * harts[core].kill_at: the core marks every such task it holds when its scheduler next runs
 * (at once if none runs, else at the running one's next kernel entry or interrupt); with `job`,
 * every task of the group on every core of it. A task marked dies as soon as it runs: one
 * asleep at the barrier or switched out in a message wait is run next, one never started ends
 * without starting. */
void share_kill_request(unsigned core, uint32_t group, bool job);

/* True while the calling core time-slices tasks and one of them is running. */
bool share_active(void);
/* Whether the running task on a shared core may make kernel call nr (else -ENOTSUP). */
bool share_call_allowed(uint64_t nr);
/* KC_SHARE_INFO and KC_SHARE_BARRIER (-ENOTSUP off a shared core; SHARE_RESTART: again). */
int64_t share_kcall(uint64_t nr, const uint64_t *a);
/* From the trap paths, at the edge back to U-mode (frame f) with interrupts off: the
 * slice is over or the task waits, so the core's scheduler runs; or the timer is armed
 * for the slice's end. */
struct trap_frame;
void share_tick(struct trap_frame *f);
/* Arms the timer that brings the core back to look at the slice; with interrupts off,
 * just before a task first enters U-mode. */
void share_arm(void);
/* A kernel call of the running task begins, from U-mode frame f: returns the time it began
 * (share_note_kcall's t0_ns). The frame is kept: if the task moves to another core inside the
 * call, the new core names itself in the word above it before the task runs again. */
uint64_t share_kcall_begin(struct trap_frame *f);
/* A kernel call that began at t0_ns (vtime_now_ns) ended: system time of the task. */
void share_note_kcall(uint64_t t0_ns);

/*
 * A message wait of the running task (kernel/msg/msg.c), interrupts on and no lock held,
 * found nothing; `seen` is the core's event count from before it looked. True if the
 * caller should look again at once: the core was given to other tasks meanwhile (yield,
 * sleep), or a spinner's slice goes on. False if it should wait itself: it runs alone,
 * or every task of the core waits with nothing new since it looked (then the core's clock
 * jumps as a lone waiter's does). `movable`: the wait is on the task's own virtual endpoint
 * and re-reads the core it runs on after this returns, so the balancer may move the task to
 * another core while it is switched out here.
 */
bool share_msg_wait(uint32_t seen, bool movable);
/* True if another task of this core could do something now (the core's event count moved
 * since it looked: a message or a credit may be its). A lone waiter that the core's events
 * woke asks this: the event need not be its own, and the task it is for runs only if the
 * waiter gives the core back. */
bool share_msg_others(void);
/* The running task waited in a message wait since `since_ns` on its core's clock: CPU time
 * unless it sleeps. The clock is read only for such a task (this sits on every wait's end, so a
 * core that time-slices no tasks pays one load for it, not a call: share_cores is the table of
 * each core's share state, written only by its own core). */
extern struct share_core *share_cores[MOSAIC_MAX_HARTS];
/* True if the balancer has a message for this core while its tasks wait: a task handed to it,
 * a request, a view (the waiter gives the core to the scheduler, which takes them). Every pass
 * of a message wait asks, twice; a core that time-slices no tasks pays one load for it. */
bool share_msg_news_slice(void);
static inline bool share_msg_news(void) { return share_cores[this_cpu()] && share_msg_news_slice(); }
void share_msg_blocked_slice(uint64_t since_ns);
static inline void share_msg_blocked(uint64_t since_ns)
{
	if (share_cores[this_cpu()])
		share_msg_blocked_slice(since_ns);
}
/* The job context of the task running on this core, if it is a task of a job's part. */
const struct job_ctx *share_job_ctx(void);
/* 1 + the core whose heap account a task of a job's part is charged to (its first core, so
 * that a move gives nothing back to another core's account); 0 for any other task. */
uint64_t share_heap_account(void);

#endif
