/*
 * Dedicated dispatchers: dispatcher_loop turns an idle core into a task
 * executor (the paper's dispatcher thread, with the core's idle stack as its
 * only stack) until it is asked to stop. Started through hart_call, so the
 * core returns to hart_idle_loop afterwards and can take other work.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/core/hart.h"
#include "kernel/domain/domain.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"
#include "kernel/time/wait.h"
#include "drivers/noc/noc.h"

/* A stop request names the loop it is for by its call's token: one that came as an earlier
 * loop ended (a late stopper) must not stop the next loop started here. */
static bool stop_asked(struct dispatcher *d, uint64_t mine)
{
	return __atomic_load_n(&d->stop_request, __ATOMIC_ACQUIRE) == mine;
}

/* The idle wait of dispatcher_loop (kernel/time/wait.h): one look, then it runs what came. */
struct loop_wait {
	unsigned me;
	struct dispatcher *d;
	uint64_t mine;
	uint32_t gen;
};

/* The dispatcher keeps time on this core's clock: under virtual time a timed task falling due
 * is a jump, not a sleep (an observer's only once the machine has got there); on the machine's
 * clock it is the timer's deadline. */
static bool loop_wait_look(void *arg, struct vtime_wait_look *l)
{
	const struct loop_wait *w = arg;
	uint64_t due = dispatcher_next_deadline(w->me), work = dispatcher_next_work_deadline(w->me);
	if (vtime_active) {
		l->own_ns = work ? timer_ticks_to_ns(work) : UINT64_MAX;
		l->observer_ns = due ? timer_ticks_to_ns(due) : UINT64_MAX;
	} else {
		l->ticks = due;
	}
	return true;
}

/* A task queued here (IPI_WAKE from the emitter, and a new generation, since it may come with
 * an earlier deadline than the one armed), or dispatcher_stop asks it to return. */
static bool loop_wait_woken(void *arg)
{
	const struct loop_wait *w = arg;
	return stop_asked(w->d, w->mine) || dispatcher_has_ready(w->me) || dispatcher_generation(w->me) != w->gen;
}

void dispatcher_loop(void *arg)
{
	(void)arg;
	unsigned me = this_cpu();
	struct dispatcher *d = &dispatchers[me];
	uint64_t mine = harts[me].calls_ended + 1; /* this call's token: only its own end changes the count */
	while (!stop_asked(d, mine)) {
		if (dispatcher_run_one(me))
			continue;
		/* nothing to run: one look and sleep, then run what came. Its mailbox says it sleeps
		 * as every wait's does: a message noted to this core (to a task's endpoint it hosted)
		 * lowers its bound, and it must wake to look past it, or it holds every other core
		 * back until its timer */
		struct loop_wait w = {.me = me, .d = d, .mine = mine, .gen = dispatcher_generation(me)};
		vtime_wait(&(const struct vtime_wait){.look = loop_wait_look, .woken = loop_wait_woken, .arg = &w,
						      .sleeping = &noc_mailboxes[me].sleeping, .jump_ends = true});
	}
}

bool dispatcher_loop_running(unsigned cpu)
{
	return cpu < hart_count && __atomic_load_n(&harts[cpu].call_fn, __ATOMIC_ACQUIRE) == dispatcher_loop;
}

int dispatcher_start(unsigned cpu)
{
	if (cpu >= hart_count || cpu == this_cpu())
		return -EINVAL;
	return hart_call(cpu, dispatcher_loop, 0) ? 0 : -EBUSY;
}

static void ask_stop(unsigned cpu, uint64_t token)
{
	__atomic_store_n(&dispatchers[cpu].stop_request, token, __ATOMIC_RELEASE);
	ipi_send(cpu, IPI_WAKE);
}

int dispatcher_stop(unsigned cpu)
{
	uint64_t token = cpu == this_cpu() ? 0 : hart_call_token(cpu, dispatcher_loop);
	if (!token)
		return -EINVAL;
	ask_stop(cpu, token);
	hart_call_watch_end(cpu, token); /* on this core's clock: its end notes us even if it is not our call */
	return 0;
}

/* Master cores are not free: they serve their domain's kernel calls in their idle time, which
 * a dispatcher_loop would stop (the paper's dispatchers run on the free slave cores). */
unsigned dispatcher_start_free(uint16_t *cpus, unsigned max)
{
	unsigned n = 0;
	for (unsigned cpu = 0; cpu < hart_count && n < max; cpu++) {
		if (cpu == this_cpu() || is_master(cpu) ||
		    __atomic_load_n(&harts[cpu].state, __ATOMIC_ACQUIRE) != HART_ONLINE)
			continue;
		if (dispatcher_start(cpu) == 0)
			cpus[n++] = (uint16_t)cpu;
	}
	return n;
}

unsigned dispatcher_stop_all(void)
{
	unsigned n = 0;
	uint64_t tokens[MOSAIC_MAX_HARTS];
	for (unsigned cpu = 0; cpu < hart_count; cpu++) { /* ask them all first, then wait */
		tokens[cpu] = cpu == this_cpu() ? 0 : hart_call_token(cpu, dispatcher_loop);
		if (tokens[cpu]) {
			ask_stop(cpu, tokens[cpu]);
			n++;
		}
	}
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (tokens[cpu])
			hart_call_watch_end(cpu, tokens[cpu]);
	return n;
}
