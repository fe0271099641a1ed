/*
 * Acting on a dispatched task from outside its dispatcher: task_continue
 * (the other half of TASK_RET_STOP) and task_cancel (the only way a periodic
 * task ends well-defined). Both may be called from any core, or by the task
 * itself while it runs; both take the task's dispatcher lock.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/time/vtime.h"

int task_continue(struct task *t)
{
	if (!t || task_state(t) == TASK_CREATED)
		return -EINVAL;
	unsigned cpu = t->cpu;
	struct dispatcher *d = &dispatchers[cpu];
	int r = 0;
	bool queued = false;
	uint64_t at = vtime_stamp(); /* the task's ready time will be no earlier */
	uint64_t s = spin_lock(&d->lock);
	switch (t->state) {
	case TASK_STOPPED:
		dispatcher_unqueue_locked(d, t);
		dispatcher_queue_ready_locked(d, t);
		queued = true;
		break;
	case TASK_RUNNING: /* its STOP has not been seen yet: make that STOP re-queue it */
		t->continue_pending = true;
		break;
	default:
		r = -EINVAL;
		break;
	}
	spin_unlock(&d->lock, s);
	if (queued)
		dispatcher_kick(cpu, at);
	vtime_stamp_done();
	return r;
}

int task_cancel(struct task *t)
{
	if (!t || task_state(t) == TASK_CREATED)
		return -EINVAL;
	struct dispatcher *d = &dispatchers[t->cpu];
	int r = 0;
	bool ended = false;
	uint64_t s = spin_lock(&d->lock);
	switch (t->state) {
	case TASK_READY:
	case TASK_DELAYED:
	case TASK_STOPPED:
		dispatcher_unqueue_locked(d, t);
		/* fall through */
	case TASK_BLOCKED:
		t->error = -ECANCELED;
		__atomic_store_n(&t->state, TASK_FAILED, __ATOMIC_RELEASE);
		d->failed++;
		ended = true;
		break;
	case TASK_RUNNING: /* ends when its function returns (dispatcher.c, after_run) */
		t->cancel_requested = true;
		break;
	default: /* ended already */
		r = -EINVAL;
		break;
	}
	spin_unlock(&d->lock, s);
	if (ended)
		graph_fail(t);
	return r;
}
