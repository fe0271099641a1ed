/*
 * From cores to a running job and back: the home maps the job onto the committed
 * cores nearest to it and spawns it; each micro-kernel starts its share (user
 * tasks on its pico-kernels in real-task mode, a timer in partial simulation),
 * keeps the cores it committed beyond its share free again, and tells the home
 * when its share has ended; the home then reports to the submitter. An oversubscribed
 * job's share runs as a share group on its cores (kernel/alloc/oversub.c).
 */
#include "kernel/alloc/proto.h"
#include "kernel/domain.h"
#include "kernel/hart.h"
#include "kernel/kheap.h"
#include "kernel/panic.h"
#include "kernel/errno.h"
#include "kernel/console.h"
#include "kernel/utask.h"
#include "kernel/msg/group.h"
#include "kernel/dispatch/dispatcher.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "kernel/vtime.h"
#include "kernel/alloc/oversub.h"
#include "kernel/share.h"
#include "drivers/noc/noc_ep.h"

/* The job each pico-kernel runs a task of; written by that core only (for its kernel calls). */
static struct job_ctx job_ctxs[MOSAIC_MAX_HARTS];

const struct job_ctx *alloc_job_ctx(unsigned core)
{
	const struct job_ctx *shared = core == this_cpu() ? share_job_ctx() : 0;
	return shared ? shared : &job_ctxs[core]; /* a time-sliced task of a job: its own */
}

/* One task of a job, handed to its pico-kernel with hart_call. */
struct job_task {
	struct run_part *part;
	uint32_t job, rank, size;
	uint16_t core, mk_core;
	const uint16_t *cores;
	const char *program;
	uint64_t arg;
	uint32_t cpu_ms;
	bool started;
	struct oversub_part *over; /* an oversubscribed job: the share group of this part */
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

/* ---- the home: mapping and spawn ---- */

struct cand {
	uint16_t hops, dom, core, count;
};

static bool cand_before(const struct cand *a, const struct cand *b)
{
	return a->hops != b->hops ? a->hops < b->hops : a->core < b->core;
}

/*
 * Task-to-core mapping: the committed cores nearest the home micro-kernel (XY
 * hops, ties to the lower core id), as many as the job needs; in partial
 * simulation a micro-kernel's virtual cores all sit at its tile.
 */
void home_satisfied(struct mk *m, struct home_job *j)
{
	struct cand c[MOSAIC_MAX_HARTS]; /* on this core's stack: every home maps at once */
	unsigned n = 0;
	for (unsigned d = 0; d < layout.ndomains; d++) {
		if (!j->commit_count[d])
			continue;
		if (layout.partial) {
			c[n++] = (struct cand){(uint16_t)mesh_hops(m->core, domain_master(d)), (uint16_t)d,
					       (uint16_t)domain_master(d), j->commit_count[d]};
			continue;
		}
		for (unsigned k = 0; k < mesh.cores; k++)
			if (mask_has(j->commit_mask[d], k))
				c[n++] = (struct cand){(uint16_t)mesh_hops(m->core, k), (uint16_t)d, (uint16_t)k, 1};
	}
	for (unsigned i = 1; i < n; i++) /* insertion sort: n <= 128 */
		for (unsigned k = i; k > 0 && cand_before(&c[k], &c[k - 1]); k--) {
			struct cand t = c[k];
			c[k] = c[k - 1];
			c[k - 1] = t;
		}
	uint16_t take[MOSAIC_MAX_HARTS] = {0};
	uint64_t chosen[2] = {0, 0};
	uint32_t left = job_cores(&j->spec), nassign = 0, ncores = 0;
	for (unsigned i = 0; i < n && left; i++) {
		uint32_t k = c[i].count < left ? c[i].count : left;
		if (!take[c[i].dom])
			nassign++;
		take[c[i].dom] = (uint16_t)(take[c[i].dom] + k);
		left -= k;
		if (!layout.partial)
			mask_set(chosen, c[i].core);
	}
	check_start(j->id, job_cores(&j->spec), job_cores(&j->spec) - left);
	if (!layout.partial)
		ncores = job_cores(&j->spec);
	uint32_t len = sizeof(struct alloc_hdr) + sizeof(struct spawn_body) + nassign * sizeof(struct spawn_assign) +
		       ncores * sizeof(uint16_t);
	uint8_t *msg = kmalloc(len);
	if (!msg)
		panic("alloc: out of memory for a spawn message");
	memset(msg, 0, len);
	struct alloc_hdr *h = (struct alloc_hdr *)msg;
	struct spawn_body *b = (struct spawn_body *)(h + 1);
	struct spawn_assign *a = (struct spawn_assign *)(b + 1);
	uint16_t *cores = (uint16_t *)(a + nassign);
	*h = (struct alloc_hdr){.kind = AK_SPAWN, .job = j->id, .home = m->dom, .attempt = j->attempt,
				.t_submit = j->t_submit, .need = job_cores(&j->spec)};
	memcpy(b->program, j->spec.program, sizeof b->program);
	b->arg = j->spec.arg;
	b->duration_us = j->spec.duration_us;
	b->cpu_ms = j->spec.cpu_ms;
	b->submitter = j->submitter;
	b->nassign = (uint16_t)nassign;
	b->ncores = (uint16_t)ncores;
	b->ntasks = (uint16_t)j->spec.ntasks; /* alloc_submit keeps real-task jobs below 2^16 tasks */
	b->ep_first = j->spec.ep_first;
	b->place = j->spec.place;
	b->wait = j->spec.wait;
	for (unsigned d = 0, i = 0; d < layout.ndomains; d++)
		if (take[d])
			a[i++] = (struct spawn_assign){(uint16_t)d, take[d]};
	for (unsigned k = 0, i = 0; k < mesh.cores && i < ncores; k++)
		if (mask_has(chosen, k))
			cores[i++] = (uint16_t)k;
	memcpy(j->held, chosen, sizeof j->held); /* for the report: which cores it held */
	memcpy(j->held_count, take, sizeof j->held_count);
	j->t_alloc = vtime_now_ns();
	j->state = HJ_RUNNING;
	struct wq_entry *own = wq_find(m, j->id);
	if (own)
		own->need = own->committed; /* it wants no more here; its spawn frees what is not used */
	j->parts_pending = nassign;
	j->nparts = (uint16_t)nassign;
	trace_event(TR_SATISFIED, j->id, j->got, j->attempt);
	if (!j->global) {
		spawn_receive(m, h, len);
	} else if (alloc_cfg.policy == ALLOC_POLICY_AC) {
		prop_start(m, h, len);
		spawn_receive(m, h, len);
	} else {
		h->kind = AK_SEQ_ALLOC;
		unsigned s = sequencer_dom();
		if (s == m->dom) {
			h->from = m->dom;
			ab_on_seq_alloc(m, h, len);
		} else {
			mk_send(m, s, h, len);
		}
	}
	kfree(msg);
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
		utask_run_entry(jt->program, 0, jt->arg, jt->cpu_ms, &res);
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

static void part_finished(struct mk *m, struct run_part *p)
{
	struct alloc_hdr h = {.kind = AK_PART_DONE, .job = p->job, .home = p->home, .count = p->count,
			      .failed = p->failed, .value = p->exit_code, .t_event = p->t_start};
	if (p->home == m->dom) {
		h.from = m->dom;
		run_part_done(m, &h);
	} else {
		mk_send(m, p->home, &h, sizeof h);
	}
	m->dirty = true;
}

static int part_timer(struct task *t)
{
	struct run_part *p = (struct run_part *)t->args[0];
	struct mk *m = mk_self();
	m->nfree += p->count;
	check_release(p->job, m->dom, p->mask, p->count);
	p->done = p->count;
	trace_event(TR_END, p->job, p->count, 0);
	part_finished(m, p);
	return TASK_RET_SUCCESS;
}

static void start_tasks(struct run_part *p)
{
	if (p->tasks[0].over) {
		bool all = oversub_call_rest(p->tasks[0].over);
		for (uint32_t i = 0; i < p->count; i++)
			p->tasks[i].started = all;
		return;
	}
	for (uint32_t i = 0; i < p->count; i++) {
		struct job_task *jt = &p->tasks[i];
		if (!jt->started && hart_call(jt->core, job_task_main, jt))
			jt->started = true;
	}
}

static void start_part(struct mk *m, const struct alloc_hdr *h, const struct spawn_body *b, const uint16_t *cores,
		       const uint64_t *mine, uint32_t x)
{
	struct run_part *p = kmalloc(sizeof *p);
	if (!p)
		panic("alloc: out of memory for a running job");
	memset(p, 0, sizeof *p);
	p->job = h->job;
	p->home = h->home;
	p->submitter = b->submitter;
	p->count = x;
	p->mask[0] = mine[0];
	p->mask[1] = mine[1];
	p->arg = b->arg;
	memcpy(p->program, b->program, sizeof p->program);
	p->program[ALLOC_PROGRAM_MAX - 1] = 0;
	p->t_start = vtime_now_ns();
	p->next = m->parts;
	m->parts = p;
	trace_event(TR_START, p->job, x, h->home);
	if (layout.partial) {
		uint64_t args[1] = {(uint64_t)p};
		task_init(&p->timer, part_timer, args, 1);
		task_set_timing(&p->timer, timer_us_to_ticks(b->duration_us), 0);
		p->timer_armed = task_dispatch(&p->timer, this_cpu()) == 0;
		ASSERT(p->timer_armed);
		return;
	}
	p->ncores = b->ncores;
	p->cores = kmalloc(b->ncores * sizeof(uint16_t));
	p->tasks = kmalloc(x * sizeof(struct job_task));
	if (!p->cores || !p->tasks)
		panic("alloc: out of memory for a job's tasks");
	memcpy(p->cores, cores, b->ncores * sizeof(uint16_t));
	memset(p->tasks, 0, x * sizeof(struct job_task));
	if (b->ntasks > b->ncores) {
		struct oversub_part *o;
		int e = oversub_start(p, b, m->core, &o);
		for (uint32_t i = 0; i < x; i++)
			p->tasks[i].over = o;
		if (e) {
			/* refused before anything ran: every core of the part ends at once, failed */
			for (uint32_t i = 0; i < b->ncores; i++)
				if (mask_has(mine, cores[i]))
					oversub_fail_core(m, p->job, cores[i], b->ntasks, b->ncores, i, e);
			return;
		}
		start_tasks(p);
		return;
	}
	for (uint32_t r = 0, i = 0; r < b->ncores; r++) {
		if (!mask_has(mine, cores[r]))
			continue;
		p->tasks[i++] = (struct job_task){.part = p, .job = p->job, .rank = r, .size = b->ncores,
						  .core = cores[r], .mk_core = m->core, .cores = p->cores,
						  .program = p->program, .arg = p->arg, .cpu_ms = b->cpu_ms};
	}
	start_tasks(p);
}

void spawn_receive(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	const struct spawn_body *b = (const struct spawn_body *)(h + 1);
	if (len < sizeof *h + sizeof *b ||
	    len != sizeof *h + sizeof *b + b->nassign * sizeof(struct spawn_assign) + b->ncores * sizeof(uint16_t)) {
		check_fail("micro-kernel %u: malformed spawn of job %u (%u bytes)", m->dom, h->job, len);
		return;
	}
	const struct spawn_assign *a = (const struct spawn_assign *)(b + 1);
	const uint16_t *cores = (const uint16_t *)(a + b->nassign);
	uint32_t x = 0;
	for (unsigned i = 0; i < b->nassign; i++)
		if (a[i].mk == m->dom)
			x = a[i].count;
	uint64_t mine[2] = {0, 0};
	for (unsigned i = 0; i < b->ncores; i++)
		if (domain_of(cores[i]) == m->dom)
			mask_set(mine, cores[i]);
	struct wq_entry *e = wq_find(m, h->job);
	if (e) {
		if (x > e->committed || (mine[0] & ~e->mask[0]) || (mine[1] & ~e->mask[1]))
			check_fail("micro-kernel %u: job %u spawned on %u cores here, %u committed", m->dom, h->job, x,
				   e->committed);
		uint64_t rest[2] = {e->mask[0] & ~mine[0], e->mask[1] & ~mine[1]};
		m->nfree += e->committed - x;
		m->freemask[0] |= rest[0];
		m->freemask[1] |= rest[1];
		check_release(h->job, m->dom, rest, e->committed - x);
		wq_remove(m, e, false);
	} else if (x) {
		check_fail("micro-kernel %u: job %u spawned on %u cores here without a request", m->dom, h->job, x);
	}
	tomb_add(m, h->job, 0xffff);
	m->dirty = true;
	if (x)
		start_part(m, h, b, cores, mine, x);
}

void run_task_done(struct mk *m, const struct alloc_hdr *h)
{
	unsigned core = h->from;
	struct run_part *p = m->parts;
	while (p && !(p->job == h->job && mask_has(p->mask, core) && p->done < p->count))
		p = p->next;
	if (!p) {
		check_fail("micro-kernel %u: task end from core %u for job %u it does not run", m->dom, core, h->job);
		return;
	}
	p->done++;
	if (h->flags & AF_FAILED)
		p->failed += h->failed ? h->failed : 1; /* an oversubscribed core tells how many of its tasks */
	if (h->value && !p->exit_code)
		p->exit_code = h->value;
	if (h->t_event > p->t_start)
		p->t_start = h->t_event;
	uint64_t one[2] = {0, 0};
	mask_set(one, core);
	check_release(h->job, m->dom, one, 1);
	mask_set(m->freemask, core);
	m->nfree++;
	m->dirty = true;
	if (p->done == p->count) {
		trace_event(TR_END, p->job, p->count, p->failed);
		if (p->tasks && p->tasks[0].over)
			oversub_summary(p->tasks[0].over); /* every core has left its group */
		part_finished(m, p);
	}
}

static void report(struct mk *m, struct home_job *j)
{
	struct job_report r = {.job = j->id, .home = m->dom, .status = j->failed_tasks ? JOB_TASK_FAILED : JOB_OK,
			       .ntasks = j->spec.ntasks, .tag = j->spec.tag, .t_submit_ns = j->t_submit,
			       .t_alloc_ns = j->t_alloc, .t_start_ns = j->t_start, .t_end_ns = j->t_end,
			       .duration_us = j->spec.duration_us, .arg = j->spec.arg, .cancels = j->cancels,
			       .attempts = j->attempts, .failed_tasks = j->failed_tasks, .exit_code = j->exit_code,
			       .nparts = j->nparts, .global = j->global};
	memcpy(r.program, j->spec.program, sizeof r.program);
	memcpy(r.cores, j->held, sizeof r.cores);
	memcpy(r.domain_cores, j->held_count, sizeof r.domain_cores);
	stats_job_get(j->id, &r.msgs, &r.hops);
	trace_event(TR_REPORT, j->id, j->submitter, r.status);
	struct msg_request req;
	int e = msg_isend_typed(MSG_TYPE_ALLOC_REPORT, j->submitter, 0, &r, sizeof r, false, &req);
	if (!e)
		e = msg_wait(&req, 0);
	ASSERT(e == 0);
}

/* At the home: one micro-kernel's share of the job ended; the last one ends the job. */
void run_part_done(struct mk *m, const struct alloc_hdr *h)
{
	struct home_job *j = home_find(m, h->job), **pp;
	if (!j || j->state != HJ_RUNNING || !j->parts_pending) {
		check_fail("home %u: end of a part of job %u it does not run", m->dom, h->job);
		return;
	}
	j->failed_tasks += h->failed;
	if (h->value && !j->exit_code)
		j->exit_code = h->value;
	if (h->t_event > j->t_start)
		j->t_start = h->t_event;
	if (--j->parts_pending)
		return;
	j->t_end = vtime_now_ns();
	if (job_oversubscribed(&j->spec))
		noc_ep_release(j->spec.ep_first, j->spec.ntasks); /* every task of it has ended */
	report(m, j);
	for (pp = &m->jobs; *pp != j; pp = &(*pp)->next)
		;
	*pp = j->next;
	m->njobs--;
	kfree(j);
}

static int retry_task(struct task *t)
{
	(void)t;
	mk_self()->dirty = true;
	return TASK_RET_SUCCESS;
}

/* Frees the shares that ended, and retries tasks whose core was busy when their job spawned
 * (a core taken by the shell's `run`, say): again a millisecond later, in WFI meanwhile. */
void run_reap(struct mk *m)
{
	bool waiting = false;
	for (struct run_part **pp = &m->parts; *pp;) {
		struct run_part *p = *pp;
		if (p->tasks && p->done < p->count) {
			start_tasks(p);
			for (uint32_t i = 0; i < p->count; i++)
				waiting |= !p->tasks[i].started;
		}
		bool over = p->done == p->count && (!p->timer_armed || p->timer.done);
		if (!over) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		if (p->tasks && p->tasks[0].over)
			oversub_free(p->tasks[0].over);
		kfree(p->tasks);
		kfree(p->cores);
		kfree(p);
	}
	if (waiting)
		mk_retry_later(m);
}

/* Looks again in a millisecond (a dispatcher task marks the state changed), in WFI meanwhile. */
void mk_retry_later(struct mk *m)
{
	if (m->retry.state == TASK_CREATED || m->retry.done) {
		task_init(&m->retry, retry_task, 0, 0);
		task_set_timing(&m->retry, timer_us_to_ticks(1000), 0);
		task_dispatch(&m->retry, this_cpu());
	}
}
