/*
 * The kernel-call form of job submission (KC_JOB_SPAWN, KC_JOB_WAIT): a user task
 * submits a job at its own domain's micro-kernel and collects its report. Reports
 * come back to the submitting core (struct job_spec.report_tag ALLOC_REPORT_USER),
 * so the state is the core's: the handles of the jobs its task has outstanding, and
 * how many reports of tasks that ended before collecting them are still to come
 * (orphans), which the core throws away as they arrive. A task on a time-sliced core
 * cannot make these calls (kernel/task/share/share.c), so a core runs at most one task with jobs.
 */
#ifndef KERNEL_ALLOC_USER_JOB_H
#define KERNEL_ALLOC_USER_JOB_H

#include <stdint.h>
#include <stdbool.h>
#include "portable/abi/types.h" /* struct mosaic_job_report, what job_wait gives a task */

/* Reports a core may have on their way at once: its task's outstanding jobs and the orphans
 * of its earlier tasks together. Bounds the kernel-channel slots they can hold there. */
#define USER_JOBS_MAX 4

/* job_spawn's mode argument: the placement in bits 0..7, the wait mode in bits 8..15. */
#define USER_JOB_MODE_BITS 0xffffULL
/* job_wait's flags: don't wait, answer -EAGAIN when no report has come. */
#define USER_JOB_NOWAIT 1ULL

/* Submits `program` (a NUL-terminated kernel copy) as ntasks tasks on `cores` cores (0: one
 * per task) with argument arg, from the calling core's task: a handle > 0, or -EINVAL (ntasks 0,
 * cores > ntasks, an unknown placement or wait mode or mode bit), -E2BIG (too many tasks or
 * cores), -EBUSY (USER_JOBS_MAX reports on their way to this core), or alloc_submit's refusal
 * (-ENOENT no such program, -ENOSPC no endpoints, ...). A refusal changes nothing. args (NULL:
 * none) is the tasks' argument block (kernel/task/uargs.h): the job's once the call succeeds (its
 * home frees it at the job's end), still the caller's after a refusal. */
struct uargs;
int64_t user_job_spawn(const char *program, uint64_t ntasks, uint64_t cores, uint64_t arg, struct uargs *args,
		       uint64_t mode);
/* Takes the report of one of the calling task's jobs, waiting for it unless `nowait`
 * (then -EAGAIN): its handle, -ECHILD if it has none outstanding, -EINTR if the task is
 * being killed meanwhile. Orphans met on the way are thrown away. */
int64_t user_job_wait(struct mosaic_job_report *out, bool nowait);
/* The task on this core ended: its outstanding jobs' reports become orphans. */
void user_job_task_end(void);
/* Background work: throws away one orphan report that arrived at a core whose task has
 * no job outstanding; true if it did. */
bool user_job_reap(void);

#endif
