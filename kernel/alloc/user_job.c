/*
 * The kernel-call form of job submission (see user_job.h): a user task's jobs are
 * submitted through alloc_submit like the shell's, with their reports tagged for
 * this file's collector, and every report is accounted for: collected by the task
 * that spawned the job, or, once that task has ended, thrown away by its core as an
 * orphan. Each core's record is touched by that core only (its task's calls, its
 * task's end, its background work), so it needs no lock.
 */
#include "kernel/alloc/user_job.h"
#include "kernel/alloc/proto.h"
#include "kernel/domain/background.h"
#include "kernel/domain/domain.h"
#include "kernel/core/errno.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/task/share/share.h"
#include "lib/string.h"
#include "kernel/console/shell.h"

struct core_jobs {
	int32_t handle[USER_JOBS_MAX]; /* the running task's outstanding jobs */
	unsigned n;
	unsigned orphans; /* reports still to come for tasks that ended */
	int32_t last;     /* the last handle given out on this core */
};
static struct core_jobs core_jobs[MOSAIC_MAX_HARTS];

static struct core_jobs *mine(void) { return &core_jobs[this_cpu()]; }

int64_t user_job_spawn(const char *program, uint64_t ntasks, uint64_t cores, uint64_t arg, struct uargs *args,
		       uint64_t mode)
{
	struct core_jobs *c = mine();
	if (ntasks == 0)
		return -EINVAL;
	if (ntasks > UINT32_MAX)
		return -E2BIG; /* alloc_submit says -E2BIG for more than the machine has: so does this */
	if (cores > ntasks || (mode & ~USER_JOB_MODE_BITS) || (mode & 0xff) >= SHARE_PLACES ||
	    (mode >> 8) >= SHARE_WAITS)
		return -EINVAL;
	if (c->n + c->orphans >= USER_JOBS_MAX)
		return -EBUSY;
	int32_t h = c->last == INT32_MAX ? 1 : c->last + 1;
	struct job_spec s = {.home = (uint16_t)domain_of(this_cpu()), .ntasks = (uint32_t)ntasks,
			     .cores = (uint32_t)cores, .place = (uint8_t)(mode & 0xff), .wait = (uint8_t)(mode >> 8),
			     .arg = arg, .args = (uint64_t)args, .tag = (uint32_t)h, .report_tag = ALLOC_REPORT_USER};
	strlcpy(s.program, program, sizeof s.program);
	const char *why;
	int e = alloc_submit(&s, &why); /* a refusal reserves nothing; why is for the shell's user */
	if (e)
		return e;
	c->last = h;
	c->handle[c->n++] = h;
	return h;
}

/* A user report is visible here, the waiting task is being killed, or (on the shell's core)
 * something was typed, which the shell reads before the wait goes on. */
static bool report_or_kill(void *arg)
{
	(void)arg;
	return alloc_report_visible(ALLOC_REPORT_USER) || hart_kill_pending() || shell_edge_due();
}

int64_t user_job_wait(struct mosaic_job_report *out, bool nowait)
{
	struct core_jobs *c = mine();
	if (!c->n)
		return -ECHILD;
	for (;;) {
		if (!nowait)
			core_wait(report_or_kill, 0);
		if (hart_kill_pending())
			return -EINTR; /* its jobs' reports become orphans when it ends */
		if (!nowait && !alloc_report_visible(ALLOC_REPORT_USER)) {
			shell_task_edge();
			continue;
		}
		struct job_report *r = kmalloc(sizeof *r); /* a few KiB (its holds): not on a kernel call's stack */
		if (!r)
			return -ENOMEM;
		if (alloc_take_report(ALLOC_REPORT_USER, r)) {
			kfree(r);
			return -EAGAIN; /* only with nowait: a blocking wait saw one visible */
		}
		unsigned i = 0;
		while (i < c->n && c->handle[i] != (int32_t)r->tag)
			i++;
		if (i == c->n) { /* an earlier task's: thrown away */
			if (c->orphans)
				c->orphans--;
			kfree(r);
			continue;
		}
		c->handle[i] = c->handle[--c->n];
		*out = (struct mosaic_job_report){.handle = (int32_t)r->tag, .job = r->job, .home = r->home,
						.status = r->status, .ntasks = r->ntasks,
						.failed_tasks = r->failed_tasks, .exit_code = r->exit_code,
						.nparts = r->nparts, .t_submit_ns = r->t_submit_ns,
						.t_alloc_ns = r->t_alloc_ns, .t_start_ns = r->t_start_ns,
						.t_end_ns = r->t_end_ns, .cores = {r->cores[0], r->cores[1]}};
		int32_t tag = (int32_t)r->tag;
		kfree(r);
		return tag;
	}
}

void user_job_task_end(void)
{
	struct core_jobs *c = mine();
	c->orphans += c->n;
	c->n = 0;
	while (user_job_reap())
		; /* those already here go at once */
}

bool user_job_reap(void)
{
	struct core_jobs *c = mine();
	if (!c->orphans || c->n || !alloc_report_visible(ALLOC_REPORT_USER))
		return false; /* with jobs of the running task outstanding, its job_wait sorts them */
	struct job_report *r = kmalloc(sizeof *r);
	if (!r)
		return false;
	int e = alloc_take_report(ALLOC_REPORT_USER, r);
	kfree(r);
	if (e)
		return false;
	c->orphans--;
	return true;
}
