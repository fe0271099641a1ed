/* A micro-kernel's part of an oversubscribed job as a share group (see oversub.h). */
#include "kernel/alloc/oversub.h"
#include "kernel/alloc/proto.h"
#include "kernel/task/share/share.h"
#include "kernel/console/console.h"
#include "kernel/core/errno.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/time/vtime.h"
#include "kernel/msg/msg.h"
#include "lib/string.h"
#include "lib/format.h"

struct oversub_part {
	struct share_group g;
	struct job_ctx jobs[SHARE_TASKS_MAX];  /* per task of the part */
	uint16_t eps[SHARE_TASKS_MAX];
	uint8_t first_core[SHARE_TASKS_MAX];
	uint16_t job_eps[SHARE_TASKS_MAX];     /* every rank's endpoint: the job's group */
	uint64_t t_start[SHARE_CORES_MAX];     /* each core's clock past the start barrier */
	const uint16_t *job_cores;             /* the job's cores in rank order (the run_part's) */
	unsigned njob_cores;
	uint32_t job;
	uint16_t mk_core, mk_dom;
	char program[ALLOC_PROGRAM_MAX];
};

/* On each core before its tasks start: the job's start barrier over all its cores. */
static void core_begin(struct share_group *g, unsigned k)
{
	struct oversub_part *o = g->owner;
	int e = alloc_start_barrier(o->job_cores, o->njob_cores);
	if (e)
		kprintf("mosaic: job %u: the start barrier on core %u failed: %s\n", o->job, this_cpu(), kstrerror(e));
	o->t_start[k] = vtime_now_ns();
}

/* On each core when the part is over there: what its ended tasks left, to the micro-kernel. */
static void core_end(struct share_group *g, unsigned k)
{
	struct oversub_part *o = g->owner;
	struct alloc_hdr h = {.kind = AK_TASK_DONE, .job = o->job, .from = (uint16_t)this_cpu(),
			      .count = g->core_ended[k], .flags = g->core_failed[k] ? AF_FAILED : 0,
			      .failed = g->core_failed[k], .value = g->core_exit[k], .t_event = o->t_start[k]};
	mk_send_core(0, o->mk_core, &h, sizeof h); /* the last touch of o: it may be freed after this */
}

int oversub_start(struct run_part *p, const struct spawn_body *b, const uint16_t *cores, unsigned mk_core,
		  struct oversub_part **out)
{
	struct oversub_part *o = kmalloc(sizeof *o);
	*out = o;
	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof *o);
	struct share_group *g = &o->g;
	unsigned C = b->ncores, N = b->ntasks, ncores = 0, ntasks = 0;
	uint8_t index[MOSAIC_MAX_HARTS]; /* a job's core -> its index among this part's cores */
	for (unsigned k = 0; k < C; k++) {
		index[k] = 0xff;
		if (mask_has(p->mask, cores[k]) && ncores < SHARE_CORES_MAX) {
			index[k] = (uint8_t)ncores;
			g->cores[ncores++] = cores[k];
		}
	}
	for (unsigned r = 0; r < N && r < SHARE_TASKS_MAX; r++) {
		o->job_eps[r] = (uint16_t)(b->ep_first + r);
		if (index[r % C] == 0xff)
			continue;
		o->jobs[ntasks] = (struct job_ctx){.job = p->job, .rank = r, .size = N, .cores = o->job_eps};
		o->eps[ntasks] = o->job_eps[r];
		o->first_core[ntasks++] = index[r % C];
	}
	o->job_cores = cores;
	o->njob_cores = C;
	o->job = p->job;
	o->mk_core = (uint16_t)mk_core;
	strlcpy(o->program, p->program, sizeof o->program);
	g->name = o->program;
	g->arg = p->arg;
	g->args = (const struct uargs *)p->args;
	g->cpu_ms = b->cpu_ms;
	g->ntasks = ntasks;
	g->ncores = ncores;
	g->wait = (enum share_wait)b->wait;
	g->place = (enum share_place)b->place;
	g->jobs = o->jobs;
	g->eps = o->eps;
	g->first_core = o->first_core;
	g->session = MSG_SESSION_JOB | p->job;
	g->core_begin = core_begin;
	g->core_end = core_end;
	g->owner = o;
	int e = share_group_start(g);
	if (e) {
		kprintf("mosaic: job %u: its part of %u tasks on %u cores cannot start: %s\n", p->job, ntasks, ncores,
			kstrerror(e));
		kfree(o);
		*out = 0;
	}
	return e;
}

bool oversub_call_rest(struct oversub_part *o) { return share_group_call_rest(&o->g); }

void oversub_summary(struct oversub_part *o)
{
	struct share_group *g = &o->g;
	uint64_t end = 0;
	for (unsigned i = 0; i < g->ntasks; i++)
		end = g->tasks[i].end_ns > end ? g->tasks[i].end_ns : end;
	g->run_ns = end > g->start_ns ? end - g->start_ns : 0;
	char who[32];
	snprintf(who, sizeof who, "oversub job %u", o->job);
	share_report(g, who, false);
}

void oversub_free(struct oversub_part *o)
{
	if (!o)
		return;
	share_group_free(&o->g);
	kfree(o);
}

void oversub_fail_core(struct mk *m, uint32_t job, unsigned core, unsigned ntasks, unsigned ncores, unsigned index,
		       int why)
{
	uint32_t n = ntasks / ncores + (index < ntasks % ncores);
	struct alloc_hdr h = {.kind = AK_TASK_DONE, .job = job, .from = (uint16_t)core, .count = n,
			      .flags = AF_FAILED, .failed = n, .value = why, .t_event = vtime_now_ns()};
	run_task_done(m, &h);
}
