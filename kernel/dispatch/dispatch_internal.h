/*
 * What the files of kernel/dispatch share and nobody else needs: the
 * dispatcher table and the steps that move a task between states.
 *
 * Locking: a dispatched task's state, queue links, pending count, done flag
 * and waiter mask change only under the lock of its dispatcher (t->cpu). No
 * code holds two dispatcher locks at once, so there is no lock order to keep.
 */
#ifndef KERNEL_DISPATCH_INTERNAL_H
#define KERNEL_DISPATCH_INTERNAL_H

#include "kernel/core/spinlock.h"
#include "kernel/dispatch/task.h"
#include "kernel/dispatch/queue.h"

struct dispatcher {
	struct spinlock lock;
	struct task_queue ready;   /* FIFO */
	struct task_queue timed;   /* by release time */
	struct task_queue stopped; /* returned TASK_RET_STOP, wait for task_continue */
	volatile uint64_t next_release; /* timed.head's release, 0 if empty: read without the lock */
	volatile uint64_t next_work_release; /* the same for the first task that is not an observer */
	volatile uint32_t ready_len;    /* ready.len, readable without the lock */
	volatile uint32_t generation;   /* bumped whenever a task is queued */
	volatile uint64_t stop_request; /* the token (hart_call_token) of the loop dispatcher_stop asks to return */
	struct task *volatile current;  /* the task running now (only its own core writes it) */
	/* statistics for the `tasks` command */
	uint64_t runs;      /* task functions called */
	uint64_t completed; /* tasks that ended well here */
	uint64_t failed;    /* tasks that failed here (their own error, a parent's, a cancel) */
} __attribute__((aligned(64)));

extern struct dispatcher dispatchers[MOSAIC_MAX_HARTS];

/* With d's lock held: queues t, which has just become runnable for the first time (no parents
 * left): into the timed queue if it has a delay, else at the end of the ready queue. */
void dispatcher_queue_first_locked(struct dispatcher *d, struct task *t);
/* With d's lock held: puts t at the end of d's ready queue. */
void dispatcher_queue_ready_locked(struct dispatcher *d, struct task *t);
/* With d's lock held: takes t out of whichever of d's queues its state says it is in. */
void dispatcher_unqueue_locked(struct dispatcher *d, struct task *t);
/* Wakes core cpu (IPI_WAKE) unless it is the caller's: something was queued on it, ready
 * no earlier than `at`, a vtime_stamp() the caller took before it queued and releases
 * (vtime_stamp_done) after the kick: the core's bound drops to `at` (kernel/time/vtime.h). */
void dispatcher_kick(unsigned cpu, uint64_t at);

/* task_dispatch's first step: every CREATED task reachable from root becomes BLOCKED on cpu. */
void graph_publish(struct task *root, unsigned cpu);
/* t has just COMPLETED: releases its children whose last parent it was, then its waiters. */
void graph_complete(struct task *t);
/* t has just FAILED (t->error set): fails every BLOCKED descendant with the same error and
 * releases the waiters of each. */
void graph_fail(struct task *t);
/* True if `to` can be reached from `from` through children edges among CREATED tasks. */
bool graph_reaches(struct task *from, struct task *to);

#endif
