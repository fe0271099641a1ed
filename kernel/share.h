/*
 * Time-sliced pico-kernels: several user tasks share one pico-kernel core, each in
 * its own address space and on its own kernel stack, preempted round-robin every
 * share_slice_us of guest time (docs/balancing.md). This is the mechanism that
 * oversubscribed jobs are to build on; today its tasks run alone, not as a job:
 * the calls that would need a message identity per task (messages, collectives,
 * the job's calls, invasive computing) answer -ENOTSUP while a core is shared.
 *
 * Each task is accounted on the core's own clock (kernel/vtime.h): CPU time (its
 * slices, user and system), system time (its kernel calls) and real time (first
 * slice to end); its speed, as the slides define it, is CPU time / real time.
 */
#ifndef KERNEL_SHARE_H
#define KERNEL_SHARE_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/utask.h"

#define SHARE_MAX 8                 /* tasks one pico-kernel time-slices at most */
#define SHARE_SLICE_US_DEFAULT 1000 /* the time slice (boot argument share_slice_us) */
#define SHARE_SLICE_US_MIN 50       /* below this a slice is mostly switching */
#define SHARE_SLICE_US_MAX 1000000
#define SHARE_STACK_PAGES 4         /* each task's kernel stack: as large as a hart's */
extern uint64_t share_slice_us;

struct share_task {
	const char *name; /* in */
	uint64_t arg, cpu_ms;
	struct utask_result res; /* out: how it ended */
	uint64_t cpu_ns, sys_ns, real_ns; /* out: on the core's clock */
	uint64_t slices; /* out: how often it was switched in */
};

/* Runs tasks[0..n-1] time-sliced on the calling pico-kernel until every one ended.
 * 0; -EINVAL for n = 0 or n > SHARE_MAX, -EBUSY if a task already runs here,
 * -ENOMEM for their stacks. A task that cannot start reports it in its res. */
int share_run(struct share_task *tasks, unsigned n);
/* The same on pico-kernel `core` (hart_call): also -ENXIO, -EPERM on a micro-kernel. */
int share_run_on(unsigned core, struct share_task *tasks, unsigned n);

/* True while the calling core time-slices tasks. */
bool share_active(void);
/* Whether a task on a shared core may make kernel call nr (else -ENOTSUP). */
bool share_call_allowed(uint64_t nr);
/* From the trap paths, at the edge back to U-mode with interrupts off: the slice is
 * over, so the next task runs; or the timer is armed for the slice's end. */
void share_tick(void);
/* Arms the timer that brings the core back to look at the slice, if it is shared; with
 * interrupts off, just before a task first enters U-mode (an interrupt taken in the
 * kernel before that would have disarmed it). */
void share_arm(void);
/* A kernel call that began at t0_ns (vtime_now_ns) ended: system time of the task. */
void share_note_kcall(uint64_t t0_ns);

#endif
