/*
 * The per-core dispatchers: emitting a task to a core, running one task, and
 * what each of the four return codes does next (the paper's Algorithm 1,
 * one iteration at a time, so the master core can interleave it with kernel
 * calls). A task runs on the dispatcher's caller's stack, with no lock held.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/core/hart.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"

struct dispatcher dispatchers[MOSAIC_MAX_HARTS] = {
	[0 ... MOSAIC_MAX_HARTS - 1] = {.lock = SPINLOCK_INIT("dispatcher")},
};

/* The lock-free views (ready_len, next_release, next_work_release) follow every change of the
 * queues. Observers are few (a sampler, a watchdog), so the walk past them is short. */
static void sync_views_locked(struct dispatcher *d)
{
	__atomic_store_n(&d->ready_len, d->ready.len, __ATOMIC_RELAXED);
	__atomic_store_n(&d->next_release, d->timed.head ? d->timed.head->release : 0, __ATOMIC_RELAXED);
	const struct task *work = d->timed.head;
	while (work && work->observer)
		work = work->next;
	__atomic_store_n(&d->next_work_release, work ? work->release : 0, __ATOMIC_RELAXED);
}

static void queued_locked(struct dispatcher *d)
{
	sync_views_locked(d);
	__atomic_add_fetch(&d->generation, 1, __ATOMIC_RELEASE);
}

void dispatcher_queue_ready_locked(struct dispatcher *d, struct task *t)
{
	t->ready_ns = vtime_now_ns(); /* the queuer's clock: the task cannot start before it */
	__atomic_store_n(&t->state, TASK_READY, __ATOMIC_RELEASE);
	tq_push_tail(&d->ready, t);
	queued_locked(d);
}

static void queue_timed_locked(struct dispatcher *d, struct task *t, uint64_t release)
{
	t->release = release ? release : 1; /* 0 means "no deadline" to WAIT_UNTIL */
	__atomic_store_n(&t->state, TASK_DELAYED, __ATOMIC_RELEASE);
	tq_insert_by_release(&d->timed, t);
	queued_locked(d);
}

void dispatcher_queue_first_locked(struct dispatcher *d, struct task *t)
{
	if (t->delay)
		queue_timed_locked(d, t, vtime_now_ticks() + t->delay);
	else
		dispatcher_queue_ready_locked(d, t);
}

void dispatcher_unqueue_locked(struct dispatcher *d, struct task *t)
{
	switch (t->state) {
	case TASK_READY: tq_remove(&d->ready, t); break;
	case TASK_DELAYED: tq_remove(&d->timed, t); break;
	case TASK_STOPPED: tq_remove(&d->stopped, t); break;
	default: return;
	}
	sync_views_locked(d);
}

void dispatcher_kick(unsigned cpu, uint64_t at)
{
	if (cpu != this_cpu()) {
		vtime_note_event(cpu, at); /* it may run the task from then on */
		ipi_send(cpu, IPI_WAKE);
	}
}

static bool core_usable(unsigned cpu)
{
	if (cpu >= hart_count)
		return false;
	int st = __atomic_load_n(&harts[cpu].state, __ATOMIC_ACQUIRE);
	return st == HART_ONLINE || st == HART_BUSY;
}

int task_dispatch(struct task *t, unsigned cpu)
{
	if (!t)
		return -EINVAL;
	if (!core_usable(cpu))
		return -ENXIO;
	if (task_state(t) != TASK_CREATED)
		return -EBUSY;
	t->cpu = (uint16_t)cpu;
	t->requester = (uint16_t)this_cpu();
	t->pending = t->nparents;
	graph_publish(t, cpu);
	struct dispatcher *d = &dispatchers[cpu];
	bool queued = t->pending == 0;
	uint64_t at = vtime_stamp(); /* the task's ready time will be no earlier */
	uint64_t s = spin_lock(&d->lock);
	if (queued)
		dispatcher_queue_first_locked(d, t);
	else /* its parents are not dispatched yet: it runs here once they completed */
		__atomic_store_n(&t->state, TASK_BLOCKED, __ATOMIC_RELEASE);
	spin_unlock(&d->lock, s);
	if (queued)
		dispatcher_kick(cpu, at);
	vtime_stamp_done();
	return 0;
}

/* Moves the timed tasks whose release time has come to the end of the ready queue. */
static void release_due_locked(struct dispatcher *d, uint64_t now)
{
	while (d->timed.head && d->timed.head->release <= now) {
		struct task *t = tq_pop_head(&d->timed);
		t->ready_ns = 0; /* released on this core's own clock */
		__atomic_store_n(&t->state, TASK_READY, __ATOMIC_RELEASE);
		tq_push_tail(&d->ready, t);
	}
	sync_views_locked(d);
}

static void end_locked(struct dispatcher *d, struct task *t, int error)
{
	if (error) {
		t->error = error;
		__atomic_store_n(&t->state, TASK_FAILED, __ATOMIC_RELEASE);
		d->failed++;
	} else {
		__atomic_store_n(&t->state, TASK_COMPLETED, __ATOMIC_RELEASE);
		d->completed++;
	}
}

/* What the dispatcher does with a task's return code. A cancel that arrived while the task ran
 * turns every "run it again" into the end of the task. */
static void after_run(struct dispatcher *d, struct task *t, int ret)
{
	enum { AGAIN_LATER, ENDS_WELL, ENDS_BADLY } outcome = AGAIN_LATER;
	int error = 0;
	uint64_t s = spin_lock(&d->lock);
	bool cancel = t->cancel_requested, cont = t->continue_pending;
	t->continue_pending = false; /* a continue applies to the run it raced with, no later one */
	switch (ret) {
	case TASK_RET_SUCCESS:
		if (!t->period)
			outcome = ENDS_WELL;
		else if (cancel)
			outcome = ENDS_BADLY, error = -ECANCELED;
		else /* periodic: the next run starts one period after this one started */
			queue_timed_locked(d, t, t->last_start + t->period);
		break;
	case TASK_RET_AGAIN:
		if (cancel)
			outcome = ENDS_BADLY, error = -ECANCELED;
		else
			dispatcher_queue_ready_locked(d, t);
		break;
	case TASK_RET_STOP:
		if (cancel) {
			outcome = ENDS_BADLY, error = -ECANCELED;
		} else if (cont) {
			dispatcher_queue_ready_locked(d, t);
		} else {
			__atomic_store_n(&t->state, TASK_STOPPED, __ATOMIC_RELEASE);
			tq_push_tail(&d->stopped, t);
		}
		break;
	case TASK_RET_ERROR:
		outcome = ENDS_BADLY;
		error = t->result < 0 && t->result >= -0x7fffffff ? (int)t->result : -EINVAL;
		break;
	default: /* not one of the four codes: a bug in the task, treated as an error */
		outcome = ENDS_BADLY;
		error = -EINVAL;
		break;
	}
	if (outcome != AGAIN_LATER)
		end_locked(d, t, error);
	spin_unlock(&d->lock, s);
	if (outcome == ENDS_WELL)
		graph_complete(t);
	else if (outcome == ENDS_BADLY)
		graph_fail(t);
}

bool dispatcher_run_one(unsigned cpu)
{
	if (cpu >= hart_count || cpu != this_cpu())
		return false;
	struct dispatcher *d = &dispatchers[cpu];
	if (d->current) /* called from inside a task: never nest tasks on one stack */
		return false;
	uint64_t s = spin_lock(&d->lock);
	release_due_locked(d, vtime_now_ticks());
	struct task *t = tq_pop_head(&d->ready);
	if (t) {
		sync_views_locked(d);
		__atomic_store_n(&t->state, TASK_RUNNING, __ATOMIC_RELEASE);
		d->current = t;
	}
	spin_unlock(&d->lock, s);
	if (!t)
		return false;
	vtime_advance_to(t->ready_ns); /* queued by another core, maybe ahead of this one's clock */
	t->last_cpu = (uint16_t)cpu;
	t->last_start = vtime_now_ticks();
	__atomic_store_n(&t->runs, t->runs + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&d->runs, d->runs + 1, __ATOMIC_RELAXED);
	int ret = t->fn(t);
	after_run(d, t, ret);
	d->current = NULL;
	return true;
}

bool dispatcher_has_ready(unsigned cpu)
{
	if (cpu >= hart_count)
		return false;
	struct dispatcher *d = &dispatchers[cpu];
	if (__atomic_load_n(&d->ready_len, __ATOMIC_ACQUIRE))
		return true;
	uint64_t next = __atomic_load_n(&d->next_release, __ATOMIC_ACQUIRE);
	return next && next <= vtime_now_ticks();
}

uint64_t dispatcher_next_deadline(unsigned cpu)
{
	return cpu < hart_count ? __atomic_load_n(&dispatchers[cpu].next_release, __ATOMIC_ACQUIRE) : 0;
}

uint64_t dispatcher_next_work_deadline(unsigned cpu)
{
	return cpu < hart_count ? __atomic_load_n(&dispatchers[cpu].next_work_release, __ATOMIC_ACQUIRE) : 0;
}

uint32_t dispatcher_generation(unsigned cpu)
{
	return cpu < hart_count ? __atomic_load_n(&dispatchers[cpu].generation, __ATOMIC_ACQUIRE) : 0;
}

uint64_t dispatcher_runs(unsigned cpu)
{
	return cpu < hart_count ? __atomic_load_n(&dispatchers[cpu].runs, __ATOMIC_RELAXED) : 0;
}
