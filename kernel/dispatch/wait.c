/*
 * task_wait: the requester's side of a task's synchronisation. The waiter
 * registers in the task's waiter mask and sleeps in WFI; the core that ends
 * the task sets its done flag and wakes every registered core with IPI_WAKE
 * (graph.c, release_waiters). Both happen under the task's dispatcher lock,
 * which is also what makes it safe to reuse the task once task_wait returned.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/core/hart.h"
#include "kernel/domain/background.h"
#include "kernel/time/vtime.h"

static bool is_done(struct task *t) { return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != 0; }
static bool is_done_cb(void *t) { return is_done(t); }

int64_t task_wait(struct task *t)
{
	if (!t || task_state(t) == TASK_CREATED)
		return -EINVAL;
	unsigned me = this_cpu();
	struct dispatcher *d = &dispatchers[t->cpu];
	uint64_t s = spin_lock(&d->lock);
	if (!t->done)
		t->waiters[me / 64] |= 1UL << (me % 64);
	spin_unlock(&d->lock, s);

	/* Outside a task, wait the way every core waits (kernel/domain/background.c): run this core's own
	 * tasks meanwhile (the task waited for may be one of them) and, on a master, serve its
	 * domain's kernel calls. Inside a task that would nest tasks on one stack, so only sleep. */
	if (dispatchers[me].current == NULL)
		core_wait(is_done_cb, t);
	else
		core_sleep_for_handover(is_done_cb, t); /* inside a task: only sleep (the ender notes us) */
	/* done is set inside the ender's critical section; passing through the lock makes sure the
	 * ender has left it, so the caller may reuse t as soon as we return */
	s = spin_lock(&d->lock);
	int64_t r = t->state == TASK_COMPLETED ? t->result : t->error;
	uint64_t ended = t->end_ns;
	spin_unlock(&d->lock, s);
	vtime_advance_to(ended); /* on another core's clock the end may lie ahead of ours */
	return r;
}
