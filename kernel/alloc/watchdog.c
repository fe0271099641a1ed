/*
 * Making a stuck allocation run diagnosable while it is stuck: the report that
 * `jobs wait` prints when it times out, and the watchdog (boot argument
 * watchdog=SECONDS) that prints it by itself when no job has made progress for
 * that long while jobs are open. Without them a hung run leaves nothing behind:
 * the trace is otherwise printed only at power-off.
 *
 * Progress is counted from the observers' event hook (trace_event): a job
 * satisfied, started, ended or reported. Commits and cancellations are not
 * progress: under active cancellation they can go on for ever without any job
 * starting. The watchdog is a periodic task on every micro-kernel, so that it
 * still fires when some of them are stuck (in a send that never completes, say);
 * whichever core notices the stall first prints the report, once per stall.
 */
#include "kernel/alloc/proto.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/console.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/core/spinlock.h"
#include "kernel/dispatch/dispatcher.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"
#include "lib/format.h"

static uint64_t watchdog_s;
BOOTARG_U64("watchdog", watchdog_s, 0, 86400,
	    "seconds without job progress (while jobs are open) before the allocation state is printed (0: off)");

#define TRACE_TAIL_EVENTS 48 /* events of the trace shown in a report */

static uint64_t progress_events; /* atomic: job events that count as progress */
static int64_t jobs_open;        /* atomic: submitted at a home and not yet reported */

void watchdog_note_event(unsigned kind)
{
	if (kind == TR_SUBMIT)
		__atomic_fetch_add(&jobs_open, 1, __ATOMIC_RELAXED);
	if (kind == TR_REPORT)
		__atomic_fetch_sub(&jobs_open, 1, __ATOMIC_RELAXED);
	if (kind == TR_SATISFIED || kind == TR_START || kind == TR_END || kind == TR_REPORT)
		__atomic_fetch_add(&progress_events, 1, __ATOMIC_RELAXED);
}

void alloc_diagnose(const char *why)
{
	unsigned idle = 0;
	uint64_t now_ms = vtime_now_ns() / 1000000; /* this core's clock, like every time the jobs report */
	kprintf("alloc: DIAGNOSIS at %lu ms: %s\n", now_ms, why);
	kprintf("alloc: %ld jobs open at their homes; this core (%u) waits for %u reports\n",
		__atomic_load_n(&jobs_open, __ATOMIC_RELAXED), this_cpu(), alloc_outstanding());
	for (unsigned d = 0; d < layout.ndomains; d++) {
		const struct mk *m = &mks[d];
		if (m->ready && !m->njobs && !m->nwq && !m->parts) {
			idle++;
			continue;
		}
		alloc_print_mk(d);
	}
	kprintf("alloc: %u micro-kernels idle (no job, request or running part)\n", idle);
	if (alloc_trace_recorded())
		alloc_trace_print_tail(TRACE_TAIL_EVENTS);
	if (vtime_active)
		vtime_dump(); /* a run stuck under virtual time: every core's clock, state and bound */
	kprintf("alloc: DIAGNOSIS END\n");
}

/* The stall being watched: shared by the watchdog tasks of every micro-kernel. */
static struct spinlock watch_lock = SPINLOCK_INIT("alloc-watchdog");
static uint64_t watch_events, watch_since_ns;
static bool watch_reported;

/* True once per stall: the caller prints the report. */
static bool stalled_now(void)
{
	bool report = false;
	uint64_t s = spin_lock(&watch_lock);
	/* read under the lock: the watchdogs of all micro-kernels are released at the same times, and a
	 * time read before the lock could be older than the one another core has just stored; the
	 * difference below would then wrap and report a stall right after progress (seen in CI) */
	uint64_t events = __atomic_load_n(&progress_events, __ATOMIC_RELAXED), now = timer_now_ns();
	bool open = __atomic_load_n(&jobs_open, __ATOMIC_RELAXED) > 0;
	if (events != watch_events || !open) {
		watch_events = events;
		watch_since_ns = now;
		watch_reported = false;
	} else if (!watch_reported && now >= watch_since_ns && now - watch_since_ns >= watchdog_s * 1000000000) {
		watch_reported = report = true;
	}
	spin_unlock(&watch_lock, s);
	return report;
}

static int watchdog_check(struct task *t)
{
	(void)t;
	if (stalled_now()) {
		char why[96];
		snprintf(why, sizeof why, "watchdog: no job progressed for %lu s while jobs are open", watchdog_s);
		alloc_diagnose(why);
		if (alloc_trace_recorded())
			alloc_trace_dump();
	}
	return TASK_RET_SUCCESS; /* periodic: released again one period later */
}

static struct task watchdog_tasks[MOSAIC_MAX_HARTS];

void alloc_watchdog_start(void)
{
	if (!watchdog_s || !alloc_running)
		return;
	watch_since_ns = timer_now_ns();
	/* a quarter of the period between checks: the report comes at most 25% late */
	uint64_t period = timer_us_to_ticks(watchdog_s * 1000000 / 4);
	for (unsigned d = 0; d < layout.ndomains; d++) {
		task_init(&watchdog_tasks[d], watchdog_check, 0, 0);
		/* not an observer (task_set_observer), though it only watches: it must also run when the
		 * machine has stopped, which is what it is there to report */
		task_set_timing(&watchdog_tasks[d], period, period);
		task_dispatch(&watchdog_tasks[d], domain_master(d));
	}
	kprintf("alloc: watchdog on: the allocation state is printed after %lu s without job progress\n",
		watchdog_s);
}
