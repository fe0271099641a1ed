/*
 * Time-sliced pico-kernels and share groups (docs/balancing.md). A share group is N
 * copies of a program, ranks 0..N-1, run on C pico-kernels (N may exceed C): each
 * core time-slices the tasks it holds, each task in its own address space and on its
 * own kernel stack, preempted round-robin every share_slice_us on the core's own clock.
 * The ranks share a barrier (KC_SHARE_BARRIER) whose waits follow the group's wait mode,
 * and the group's placement says whether tasks stay where they started (pinned), rotate
 * between the cores (round-robin) or move by speed (the speed balancer, share_balance.c).
 *
 * The calls that need a message identity per task (messages, collectives, the job's
 * calls, invasive computing, shared windows) answer -ENOTSUP on a shared core: a share
 * group is not a job (docs/balancing.md says what is missing for that).
 *
 * Each task is accounted on the clock of the core it runs on (kernel/vtime.h): CPU time
 * (its slices), system time (its kernel calls) and real time (first slice to end); its
 * speed, as the slides define it, is (user + system) / real = CPU time / real time.
 */
#ifndef KERNEL_SHARE_H
#define KERNEL_SHARE_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/utask.h"
#include "kernel/spinlock.h"

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
	uint16_t first_core, last_core;
};

struct slot;
struct share_core;
struct share_group {
	/* in */
	const char *name;
	uint64_t arg, cpu_ms;
	unsigned ntasks, ncores;
	uint16_t cores[SHARE_CORES_MAX];
	enum share_wait wait;
	enum share_place place;
	/* out */
	struct share_task tasks[SHARE_TASKS_MAX];
	uint64_t run_ns;     /* from the common start to the end of the last task (cores' own clocks) */
	uint32_t migrations; /* tasks moved between cores */
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
};

/* Runs group g (its `in` fields set) from the calling core, which must not be one of its
 * cores, until every task ended. 0; -EINVAL for a bad count, core list, wait or placement,
 * -ENOENT for no such program, -EPERM for a core that is not an idle pico-kernel (or is the
 * caller), -ENOMEM. Nothing runs unless everything checks out. */
int share_group_run(struct share_group *g);

/* The first n online pico-kernels other than the calling core (a group's default cores);
 * how many there are. */
unsigned share_idle_picos(uint16_t *cores, unsigned n);

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
/* A kernel call that began at t0_ns (vtime_now_ns) ended: system time of the task. */
void share_note_kcall(uint64_t t0_ns);

#endif
