/*
 * Dedicated dispatchers: dispatcher_loop turns an idle core into a task
 * executor (the paper's dispatcher thread, with the core's idle stack as its
 * only stack) until it is asked to stop. Started through hart_call, so the
 * core returns to hart_idle_loop afterwards and can take other work.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/hart.h"
#include "kernel/domain.h"
#include "drivers/timer.h"
#include "kernel/vtime.h"

static bool stop_asked(struct dispatcher *d) { return __atomic_load_n(&d->stop_request, __ATOMIC_ACQUIRE) != 0; }

void dispatcher_loop(void *arg)
{
	(void)arg;
	unsigned me = this_cpu();
	struct dispatcher *d = &dispatchers[me];
	while (!stop_asked(d)) {
		if (dispatcher_run_one(me))
			continue;
		/* nothing to run: sleep until a task is queued here (IPI_WAKE from the emitter, and
		 * a new generation, since it may come with an earlier deadline than the one we armed),
		 * a timed task is due, or dispatcher_stop asks us to return */
		uint32_t gen = dispatcher_generation(me);
		/* the dispatcher keeps time on this core's clock: under virtual time a timed task
		 * falling due is a jump, not a sleep (kernel/vtime.h) */
		vtime_wait_begin();
		uint64_t due = dispatcher_next_deadline(me), work = dispatcher_next_work_deadline(me), wake;
		uint32_t nudges = vtime_nudges();
		if (vtime_idle(work ? timer_ticks_to_ns(work) : UINT64_MAX, due ? timer_ticks_to_ns(due) : UINT64_MAX,
			       &wake)) {
			vtime_wait_end();
			continue;
		}
		WAIT_UNTIL(stop_asked(d) || dispatcher_has_ready(me) || dispatcher_generation(me) != gen ||
				   vtime_nudges() != nudges,
			   vtime_active ? wake : due);
		vtime_wait_end();
	}
	__atomic_store_n(&d->stop_request, 0, __ATOMIC_RELEASE);
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

static void ask_stop(unsigned cpu)
{
	__atomic_store_n(&dispatchers[cpu].stop_request, 1, __ATOMIC_RELEASE);
	ipi_send(cpu, IPI_WAKE);
}

/* The loop runs as a hart_call, which need not be ours: wait for its end as a watcher, on this
 * core's clock (a plain wait counted as running and held every other core back). */
static void wait_loop_gone(unsigned cpu)
{
	if (dispatcher_loop_running(cpu))
		hart_call_watch_end(cpu, dispatcher_loop);
}

int dispatcher_stop(unsigned cpu)
{
	if (cpu == this_cpu() || !dispatcher_loop_running(cpu))
		return -EINVAL;
	ask_stop(cpu);
	wait_loop_gone(cpu);
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
	for (unsigned cpu = 0; cpu < hart_count; cpu++) /* ask them all first, then wait */
		if (cpu != this_cpu() && dispatcher_loop_running(cpu)) {
			ask_stop(cpu);
			n++;
		}
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != this_cpu())
			wait_loop_gone(cpu);
	return n;
}
