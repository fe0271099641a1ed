/* The idle-time loop shared by the idle harts, hart_call_wait and the shell's input wait. */
#include "kernel/background.h"
#include "kernel/kcall.h"
#include "kernel/domain.h"
#include "kernel/hart.h"
#include "drivers/noc/noc.h"
#include "kernel/msg/msg.h"
#include "drivers/timer.h"
#include "kernel/dispatch/dispatcher.h"
#include "kernel/kthread.h"
#include "kernel/alloc/alloc.h"

volatile bool background_enabled;

/* A waiting kernel call goes first, so it waits for at most one task's run. A micro-kernel
 * takes one turn of its allocation loop next. The boot hart, which never sits in the idle
 * loop, runs a job's task sent to it (a pico-kernel like any other) while it waits. */
bool background_work(void)
{
	if (!background_enabled)
		return false;
	if (!hart_call_pending())
		msg_idle_purge(); /* user messages reaching a core with no task are stale (a task may be on its way) */
	return master_serve_one() || alloc_step() || dispatcher_run_one(this_cpu()) || kthread_run_one() ||
	       (this_cpu() == boot_cpu && hart_run_call());
}

bool core_wait_until(bool (*done)(void *), void *arg, uint64_t until)
{
	for (;;) {
		if (until && timer_now() >= until)
			return done(arg);
		if (!background_enabled) {
			WAIT_UNTIL(done(arg) || background_enabled, until);
			if (done(arg))
				return true;
			continue;
		}
		unsigned me = this_cpu();
		struct noc_mailbox *mb = &noc_mailboxes[me];
		uint32_t seen = __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE);
		uint32_t generation = dispatcher_generation(me);
		if (done(arg))
			return true;
		/* every core also wakes when a message still in flight to it becomes visible: a master
		 * for the calls it serves, any core for what done() may wait for (a job report, say).
		 * A sender's wake-up comes when the message is posted, before it is visible, so without
		 * this a core would sleep past the delivery. Ask before looking for work, so a message
		 * that becomes visible in between is seen by one or the other. */
		uint64_t next = noc_mailbox_next_delivery(me);
		if (background_work())
			continue;
		uint64_t deadline = timer_ns_to_ticks_ceil(next), task_due = dispatcher_next_deadline(me);
		if (task_due && (!deadline || task_due < deadline))
			deadline = task_due; /* a periodic or delayed task falls due */
		if (until && (!deadline || until < deadline))
			deadline = until;
		mb->sleeping = 1;
		fence();
		WAIT_UNTIL(done(arg) || __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE) != seen || noc_now_ns() >= next ||
				   dispatcher_has_ready(me) || dispatcher_generation(me) != generation ||
				   kthread_has_ready(me) || (me == boot_cpu && hart_call_pending()),
			   deadline);
		mb->sleeping = 0;
	}
}

void core_wait(bool (*done)(void *), void *arg)
{
	core_wait_until(done, arg, 0);
}

static bool never(void *arg)
{
	(void)arg;
	return false;
}

void core_sleep_us(uint64_t us)
{
	core_wait_until(never, 0, timer_now() + timer_us_to_ticks(us));
}
