/*
 * task_wait: the requester's side of a task's synchronisation. The waiter
 * registers in the task's waiter mask and sleeps in WFI; the core that ends
 * the task sets its done flag and wakes every registered core with IPI_WAKE
 * (graph.c, release_waiters). Both happen under the task's dispatcher lock,
 * which is also what makes it safe to reuse the task once task_wait returned.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/hart.h"
#include "drivers/timer.h"
#include "kernel/background.h"
#include "kernel/vtime.h"
#include "drivers/noc/noc.h"

static bool is_done(struct task *t) { return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != 0; }
static bool is_done_cb(void *t) { return is_done(t); }

/*
 * Inside a task the waiter only sleeps. Under virtual time it sleeps as a core that waits for
 * the end's note and nothing else (the ender notes every waiter before it wakes it): a core
 * asleep outside the clock counts as running at the clock it stopped at, and held every other
 * core back there, so a task it waited for that itself waited on its core's clock got through
 * only as this core's clock crept up with the wake-ups it took (docs/time.md). Its mailbox
 * says it sleeps, so a message posted to it wakes it to forget that message's note.
 */
static void sleep_until_done(struct task *t)
{
	if (!vtime_active) {
		WAIT_UNTIL(is_done(t), 0);
		return;
	}
	struct noc_mailbox *mb = &noc_mailboxes[this_cpu()];
	vtime_wait_begin();
	while (!is_done(t)) {
		uint32_t nudges = vtime_nudges();
		if (!vtime_idle_for_handover())
			continue; /* a hand-over came since the last look at is_done: look again first */
		mb->sleeping = 1;
		fence();
		WAIT_UNTIL(is_done(t) || vtime_nudges() != nudges, 0);
		mb->sleeping = 0;
	}
	vtime_wait_end();
}

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

	/* Outside a task, wait the way every core waits (kernel/background.c): run this core's own
	 * tasks meanwhile (the task waited for may be one of them) and, on a master, serve its
	 * domain's kernel calls. Inside a task that would nest tasks on one stack, so only sleep. */
	if (dispatchers[me].current == NULL)
		core_wait(is_done_cb, t);
	else
		sleep_until_done(t);
	/* done is set inside the ender's critical section; passing through the lock makes sure the
	 * ender has left it, so the caller may reuse t as soon as we return */
	s = spin_lock(&d->lock);
	int64_t r = t->state == TASK_COMPLETED ? t->result : t->error;
	uint64_t ended = t->end_ns;
	spin_unlock(&d->lock, s);
	vtime_advance_to(ended); /* on another core's clock the end may lie ahead of ours */
	return r;
}
