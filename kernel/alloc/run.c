/*
 * A spawned job's tasks on the pico-kernels (real-task mode): the protocol core
 * (portable/alloc/spawn.c) decides which cores run a part of the job; this
 * file hands each task to its core with hart_call, runs it there behind the
 * job's start barrier, and sends its end back to the micro-kernel as a
 * TASK_DONE message. Tasks whose core was still busy are tried again. An
 * oversubscribed job's share runs as a share group on its cores
 * (kernel/alloc/oversub.c).
 */
#include "kernel/alloc/proto.h"
#include "portable/alloc/proto_env.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/panic.h"
#include "kernel/core/errno.h"
#include "kernel/console/console.h"
#include "kernel/task/utask.h"
#include "kernel/msg/group.h"
#include "kernel/dispatch/dispatcher.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "kernel/time/vtime.h"
#include "kernel/alloc/oversub.h"
#include "kernel/task/share/share.h"

/* The job each pico-kernel runs a task of; written by that core only (for its kernel calls). */
static struct job_ctx job_ctxs[MOSAIC_MAX_HARTS];

const struct job_ctx *alloc_job_ctx(unsigned core)
{
	const struct job_ctx *shared = core == this_cpu() ? share_job_ctx() : 0;
	return shared ? shared : &job_ctxs[core]; /* a time-sliced task of a job: its own */
}

/* One task of a job, handed to its pico-kernel with hart_call. */
struct job_task {
	uint32_t job, rank, size;
	uint16_t core, mk_core;
	const uint16_t *cores;
	const char *program;
	uint64_t arg;
	const struct uargs *args; /* the job's (its home frees it once every task has ended) */
	uint32_t cpu_ms;
	bool started;
};

/* The kernel's start barrier uses tags far above those of the job's own collectives. */
#define START_BARRIER_SEQ 0x40000000u

int alloc_start_barrier(const uint16_t *cores, unsigned n)
{
	struct msg_group *g = kmalloc(sizeof *g);
	int e = g ? msg_group_init(g, cores, n) : -ENOMEM;
	if (!e) {
		g->seq = START_BARRIER_SEQ;
		e = msg_barrier(g, MSG_ALGO(MSG_ALGO_TREE)); /* fixed: a job starts the same whatever the tuned table says */
	}
	kfree(g);
	return e;
}

/* ---- every micro-kernel: its share of a spawned job ---- */

static void job_task_main(void *arg)
{
	struct job_task *jt = arg;
	unsigned me = this_cpu();
	uint32_t job = jt->job;
	unsigned mk_core = jt->mk_core;
	job_ctxs[me] = (struct job_ctx){.job = job, .rank = jt->rank, .size = jt->size, .cores = jt->cores};
	/* the job's session first: a peer past the start barrier may send to this task at once */
	msg_session_begin(MSG_SESSION_JOB | job);
	/* co-scheduling: no task of the job enters its program before all have started */
	int e = alloc_start_barrier(jt->cores, jt->size);
	uint64_t t_start = vtime_now_ns();
	struct utask_result res = {.status = e};
	if (!e)
		utask_run_args(jt->program, 0, jt->arg, jt->args, jt->cpu_ms, &res);
	msg_session_end(); /* (utask_run ended it already if the task ran) */
	job_ctxs[me] = (struct job_ctx){0};
	bool failed = res.status != 0;
	if (res.status && res.status != -EFAULT)
		kprintf("mosaic: job %u rank %u on core %u could not start '%s': %s\n", job, jt->rank, me,
			jt->program, kstrerror(res.status));
	struct alloc_hdr h = {.kind = AK_TASK_DONE, .job = job, .from = (uint16_t)me, .count = jt->rank,
			      .flags = failed ? AF_FAILED : 0, .value = failed ? res.status : res.exit_code,
			      .t_event = t_start};
	/* the last touch of jt: after this message the micro-kernel may free it */
	mk_send_core(0, mk_core, &h, sizeof h);
}

/* What the kernel keeps for a part of a job on this micro-kernel (run_part.env). */
struct part_tasks {
	struct job_task *tasks; /* one per core of the part (none for an oversubscribed one) */
	uint16_t *cores;        /* the job's cores in rank order */
	uint32_t count;
	struct oversub_part *over; /* an oversubscribed job: the share group of this part */
	bool over_started;      /* every core of that group has been called */
};

/* Hands every task not started yet to its core; true if some still wait (core busy). */
static bool start_tasks(struct part_tasks *pt)
{
	if (pt->over) {
		if (!pt->over_started)
			pt->over_started = oversub_call_rest(pt->over);
		return !pt->over_started;
	}
	bool waiting = false;
	for (uint32_t i = 0; i < pt->count; i++) {
		struct job_task *jt = &pt->tasks[i];
		if (!jt->started && hart_call(jt->core, job_task_main, jt))
			jt->started = true;
		waiting |= !jt->started;
	}
	return waiting;
}

void penv_part_start(struct mk *m, struct run_part *p, const struct spawn_body *b, const uint16_t *cores)
{
	struct part_tasks *pt = kmalloc(sizeof *pt);
	uint16_t *copy = kmalloc(b->ncores * sizeof(uint16_t));
	struct job_task *tasks = kmalloc(p->count * sizeof(struct job_task));
	if (!pt || !copy || !tasks)
		panic("alloc: out of memory for a job's tasks");
	memcpy(copy, cores, b->ncores * sizeof(uint16_t));
	*pt = (struct part_tasks){.tasks = tasks, .cores = copy, .count = p->count};
	p->env = pt;
	if (b->ntasks > b->ncores) {
		pt->count = 0; /* the share group runs the tasks */
		int e = oversub_start(p, b, copy, m->core, &pt->over);
		if (e) {
			/* refused before anything ran: every core of the part ends at once, failed */
			for (uint32_t i = 0; i < b->ncores; i++)
				if (mask_has(p->mask, cores[i]))
					oversub_fail_core(m, p->job, cores[i], b->ntasks, b->ncores, i, e);
			return;
		}
		start_tasks(pt);
		return;
	}
	for (uint32_t r = 0, i = 0; r < b->ncores && i < p->count; r++) {
		if (!mask_has(p->mask, cores[r]))
			continue;
		tasks[i++] = (struct job_task){.job = p->job, .rank = r, .size = b->ncores, .core = cores[r],
					       .mk_core = m->core, .cores = copy, .program = p->program,
					       .arg = p->arg, .args = (const struct uargs *)p->args,
					       .cpu_ms = b->cpu_ms};
	}
	start_tasks(pt);
}

void penv_part_free(struct mk *m, struct run_part *p)
{
	(void)m;
	struct part_tasks *pt = p->env;
	if (!pt)
		return;
	if (pt->over) {
		oversub_summary(pt->over); /* every core has left its group */
		oversub_free(pt->over);
	}
	kfree(pt->tasks);
	kfree(pt->cores);
	kfree(pt);
	p->env = 0;
}

static int retry_task(struct task *t)
{
	(void)t;
	mk_self()->dirty = true;
	return TASK_RET_SUCCESS;
}

bool run_start_pending(struct mk *m)
{
	bool waiting = false;
	for (struct run_part *p = m->parts; p; p = p->next)
		if (p->env && p->done < p->count)
			waiting |= start_tasks(p->env);
	return waiting;
}

static struct task retry_tasks[MOSAIC_MAX_HARTS]; /* per micro-kernel, its own */

/* Looks again in a millisecond (a dispatcher task marks the state changed), in WFI meanwhile. */
void mk_retry_later(struct mk *m)
{
	struct task *t = &retry_tasks[m->dom];
	if (t->state == TASK_CREATED || t->done) {
		task_init(t, retry_task, 0, 0);
		task_set_timing(t, timer_us_to_ticks(1000), 0);
		task_dispatch(t, this_cpu());
	}
}
