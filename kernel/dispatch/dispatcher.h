/*
 * Dispatchers: one per core, each with a FIFO ready queue, a timed queue
 * (periodic and delayed tasks, by release time) and a list of stopped tasks,
 * behind one spinlock so that any core may emit tasks to any dispatcher.
 *
 * A dispatcher has no thread of its own. Its core runs its tasks either
 *  - one at a time with dispatcher_run_one, between other work (the master
 *    core, between kernel calls), or
 *  - in dispatcher_loop, a dedicated loop for an otherwise idle core, started
 *    with hart_call (or dispatcher_start) and ended with dispatcher_stop.
 * Tasks queued on a core whose dispatcher nobody runs wait there.
 */
#ifndef KERNEL_DISPATCH_DISPATCHER_H
#define KERNEL_DISPATCH_DISPATCHER_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/dispatch/task.h"

/* Emits t (CREATED) to core cpu's dispatcher, and with it every not yet dispatched task that
 * depends on it, directly or not (they run on cpu too once their parents completed). t is
 * queued at once if it has no parents left, else it waits for them. Wakes cpu with IPI_WAKE.
 * 0, -EBUSY if t was dispatched already, -ENXIO if cpu is not an online core. */
int task_dispatch(struct task *t, unsigned cpu);

/* Runs at most ONE task of core cpu's dispatcher, which must be the calling core's; first moves
 * the timed tasks that are due to the ready queue. True if it ran one. Never runs a second task,
 * even one that became ready during the first: the master core calls it between kernel calls.
 * False (and runs nothing) when called from inside a task. */
bool dispatcher_run_one(unsigned cpu);

/* True if dispatcher_run_one(cpu) would run a task now (a ready one, or a timed one that is due). */
bool dispatcher_has_ready(unsigned cpu);
/* The earliest release time in cpu's timed queue, in timer ticks; 0 if it is empty. */
uint64_t dispatcher_next_deadline(unsigned cpu);
/* The same without observer tasks (task_set_observer): the next release someone may wait for. */
uint64_t dispatcher_next_work_deadline(unsigned cpu);
/* Changes whenever a task is queued on cpu. A core that computed its WAIT_UNTIL deadline from
 * dispatcher_next_deadline must also wake when this changes: an earlier release may have come. */
uint32_t dispatcher_generation(unsigned cpu);

/* Task functions called so far by cpu's dispatcher (every run: AGAIN and STOP runs too). */
uint64_t dispatcher_runs(unsigned cpu);

/* A dedicated dispatcher for an idle core: runs the core's tasks and sleeps in WFI when there is
 * nothing to run, until dispatcher_stop. Start it with hart_call(cpu, dispatcher_loop, 0). */
void dispatcher_loop(void *arg);
/* hart_call(cpu, dispatcher_loop, 0): 0, -EINVAL for the caller's own core, -EBUSY if the core
 * is not idle. On a master core, the loop stops it serving kernel calls until dispatcher_stop. */
int dispatcher_start(unsigned cpu);
/* Asks cpu's dispatcher_loop to return after its current task and waits until the core is idle
 * again. Its queued tasks stay queued. 0, or -EINVAL if no dispatcher_loop runs there. */
int dispatcher_stop(unsigned cpu);
/* Starts a dispatcher_loop on every idle online core that is neither the caller's nor a domain's
 * master (the paper's one dispatcher per free slave core); writes their cores to cpus (room for
 * max) and returns how many. */
unsigned dispatcher_start_free(uint16_t *cpus, unsigned max);
/* Stops every dispatcher_loop; returns how many. */
unsigned dispatcher_stop_all(void);
/* True if a dispatcher_loop runs (or was started) on cpu. */
bool dispatcher_loop_running(unsigned cpu);

#endif
