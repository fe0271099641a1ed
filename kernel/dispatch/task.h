/*
 * Tasks: the Nanvix task mechanism (Souto, Penna, Castro, "OS-Level Task-Based
 * Mechanism for Lightweight Manycore Processors"). A task is a function with
 * its arguments and a result slot, run to completion by a dispatcher on the
 * dispatcher's own stack, so many units of work cost no thread and no stack
 * each. Tasks form dependency graphs (a child runs only once all its parents
 * completed successfully), can be periodic or delayed, and tell the
 * dispatcher what to do next with one of four return codes.
 *
 * Tasks are caller-owned memory: the dispatcher never allocates. A task must
 * stay valid until it has ended (task_wait returned, or its state is
 * COMPLETED or FAILED and nobody else refers to it). docs/dispatcher.md
 * describes the semantics in full.
 */
#ifndef KERNEL_DISPATCH_TASK_H
#define KERNEL_DISPATCH_TASK_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"
#include "kernel/core/errno.h"


#define TASK_MAX_ARGS 4     /* argument words a task carries */
#define TASK_MAX_CHILDREN 8 /* dependants of one task; task_connect refuses a ninth */

/* What a task's function returns: the dispatcher's next step (the paper's four codes). */
enum task_ret {
	TASK_RET_SUCCESS = 0, /* done: complete it, release its children and its waiters
			       * (a periodic task is released again one period later instead) */
	TASK_RET_AGAIN = 1,   /* failed but recoverable: put it back at the end of the ready queue */
	TASK_RET_STOP = 2,    /* recoverable, but must wait for another operation: park it until
			       * task_continue */
	TASK_RET_ERROR = 3,   /* unrecoverable: fail it and every descendant, release all their waiters;
			       * the error is the result slot if that is negative, else -EINVAL */
};

enum task_state {
	TASK_CREATED = 0, /* initialised; may be connected, configured and dispatched */
	TASK_BLOCKED,     /* dispatched, waits for its parents */
	TASK_READY,       /* in its dispatcher's ready queue */
	TASK_DELAYED,     /* in its dispatcher's timed queue until t->release */
	TASK_RUNNING,     /* its function runs now */
	TASK_STOPPED,     /* returned TASK_RET_STOP; waits for task_continue */
	TASK_COMPLETED,   /* ended well (final) */
	TASK_FAILED,      /* ended with an error, its own or a parent's, or was cancelled (final) */
};

struct task;
typedef int (*task_fn)(struct task *t);

struct task {
	/* --- what to run: the paper's "semantic variables" --- */
	task_fn fn;
	uint64_t args[TASK_MAX_ARGS];
	int64_t result; /* the function's result slot; what task_wait returns on success */

	/* --- control, owned by the dispatcher once dispatched --- */
	volatile int state;   /* enum task_state; changed under the lock of dispatcher `cpu` */
	int error;            /* negative errno once FAILED */
	uint16_t cpu;         /* the dispatcher it is queued on (set by task_dispatch) */
	uint16_t requester;   /* the core that dispatched it (or its graph) */
	uint16_t last_cpu;    /* the core that ran it last */
	uint8_t nchildren;
	bool cancel_requested; /* task_cancel while it ran: end it instead of running it again */
	bool continue_pending; /* task_continue while it ran: a STOP from this run re-queues at once */
	bool observer;         /* task_set_observer: nobody waits for it (kernel/time/vtime.h) */
	uint32_t nparents;     /* connected parents */
	uint32_t pending;      /* parents that have not completed yet (counts down after dispatch) */
	struct task *children[TASK_MAX_CHILDREN];
	uint64_t delay;        /* ticks from becoming runnable to the first run (0: at once) */
	uint64_t period;       /* ticks between the starts of two runs (0: not periodic) */
	uint64_t release;      /* when it leaves the timed queue (ticks) */
	uint64_t last_start;   /* when the last run started (ticks) */
	uint64_t ready_ns;     /* the queuer's clock when it was made ready (kernel/time/vtime.h) */
	volatile uint64_t runs; /* times its function was called */

	/* --- the requesters' synchronisation --- */
	volatile uint32_t done; /* set last, when the task has ended and will not be touched again */
	uint64_t end_ns;        /* the ender's clock when it ended (kernel/time/vtime.h): a waiter's news of it */
	uint64_t waiters[MOSAIC_MAX_HARTS / 64]; /* cores sleeping in task_wait, woken by IPI_WAKE */

	/* --- links, private to kernel/dispatch --- */
	struct task *prev, *next; /* the dispatcher queue it is in */
	struct task *walk;        /* work list of a graph walk */
	uint32_t mark;            /* visit mark of a graph walk */
};

/* Initialises t to run fn with nargs (<= TASK_MAX_ARGS) argument words, in state CREATED.
 * -EINVAL for no function or too many arguments. A task may be initialised again once it ended. */
int task_init(struct task *t, task_fn fn, const uint64_t *args, unsigned nargs);

/* Before dispatch: first run `delay` ticks after the task becomes runnable, then (period > 0)
 * again `period` ticks after each successful run started, until cancelled or failed.
 * -EBUSY once dispatched; -EINVAL for a periodic task with children (it never completes). */
int task_set_timing(struct task *t, uint64_t delay, uint64_t period);

/* Before dispatch: marks a timed task as an observer, one that only watches the machine
 * (statistics, a watchdog): nobody waits for it, and it sends no message and starts no work.
 * Under virtual time its releases then never carry a core's clock ahead of the rest of the
 * machine: an idle machine does not run its observers forward (docs/time.md, "Observers").
 * On the machine's clock it changes nothing. -EBUSY once dispatched. */
int task_set_observer(struct task *t);

/* Before dispatch: child runs only after parent completed (as well as its other parents).
 * -EBUSY if either is dispatched; -EINVAL for a self edge, a duplicate edge, an edge that
 * would close a cycle, a periodic parent or a parent that has TASK_MAX_CHILDREN already. */
int task_connect(struct task *parent, struct task *child);
/* Before dispatch: undoes task_connect. -EBUSY if either is dispatched, -ENOENT if no such edge. */
int task_disconnect(struct task *parent, struct task *child);

/* Makes a STOPPED task ready again. If it is running, its next TASK_RET_STOP re-queues it at
 * once (so a continue that races ahead of the stop is not lost). -EINVAL in any other state. */
int task_continue(struct task *t);

/* Ends a dispatched task with -ECANCELED, which its descendants inherit, as after an error.
 * A running task ends when its function returns, unless that run completes or fails it.
 * -EINVAL if it was never dispatched or has ended already. */
int task_cancel(struct task *t);

/* Sleeps in WFI until t ended; returns its result slot if it completed, its (negative) error
 * if it failed, -EINVAL if it was never dispatched. Any number of cores may wait for one task.
 * Outside a task, the caller runs its own core's ready tasks meanwhile, so it may wait for a
 * task it queued on itself; inside a task it only sleeps. */
int64_t task_wait(struct task *t);

static inline enum task_state task_state(const struct task *t)
{
	return (enum task_state)__atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}
static inline uint64_t task_runs(const struct task *t) { return __atomic_load_n(&t->runs, __ATOMIC_RELAXED); }

#endif
