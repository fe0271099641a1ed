/* ktest suite "background": what masters do in their idle time (kernel calls, console output, periodic tasks). */
#include "kernel/core/ktest.h"
#include "kernel/kcall/kcall.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/console/console.h"
#include "kernel/dispatch/dispatcher.h"
#include "kernel/domain/background.h"
#include "kernel/domain/noc_sampler.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"
#include "lib/string.h"
#include "lib/format.h"
#include "kernel/core/errno.h"


static int first_pico(void)
{
	for (unsigned c = 0; c < hart_count; c++)
		if (!is_master(c) && c != this_cpu())
			return (int)c;
	return -1;
}

static bool klog_contains(const char *text)
{
	uint64_t end = klog_written, start = end > KLOG_SIZE ? end - KLOG_SIZE : 0;
	size_t n = strlen(text);
	for (uint64_t i = start; i + n <= end; i++) {
		size_t k = 0;
		while (k < n && klog_buf[(i + k) % KLOG_SIZE] == text[k])
			k++;
		if (k == n)
			return true;
	}
	return false;
}

static volatile int64_t write_result;
static volatile uint64_t call_ns;

static void write_line(void *arg)
{
	const char *text = arg;
	uint64_t a[6] = {0};
	write_result = kcall(KC_WRITE, a, text, (uint32_t)strlen(text));
}

KTEST(background, console_output_is_printed_by_the_master)
{
	int pico = first_pico();
	if (pico < 0)
		return;
	static char text[64];
	snprintf(text, sizeof text, "async-console-check %lu\n", timer_now());
	uint16_t core = (uint16_t)pico;
	KT_ASSERT(ktest_run_on(&core, 1, write_line, text));
	KT_ASSERT_EQ(write_result, (int64_t)strlen(text));
	/* the reply came before the printing: the master's console task prints it in its idle time */
	uint64_t until = timer_now() + timer_us_to_ticks(500000);
	while (!klog_contains(text) && timer_now() < until)
		timer_sleep_us(200);
	KT_ASSERT(klog_contains(text));
}

KTEST(background, periodic_noc_sampling_runs)
{
	uint64_t before = noc_samples_taken(), t0 = vtime_now_ns();
	/* the default period is 100 ms; wait as cores wait, so that if this core is the
	 * sampler's (domain 0's master) it runs the task meanwhile */
	core_sleep_us(350000);
	if (vtime_active) { /* samples in our span on the sampler's clock; an observer catches up with
			     * the machine on its own looks (every 1 ms of machine time): give it 2 s */
		uint64_t until = timer_now() + timer_us_to_ticks(2000000);
		while (noc_samples_since(t0) < 2 && timer_now() < until)
			timer_sleep_us(1000);
		KT_ASSERT(noc_samples_since(t0) >= 2);
	} else {
		KT_ASSERT(noc_samples_taken() >= before + 2);
	}
}

#define LONG_TASK_US 5000
#define LONG_TASKS 4

/* When each long task began, and how many calls its master had served by then. */
static volatile uint64_t task_start_ns[LONG_TASKS], task_start_served[LONG_TASKS];
static volatile uint64_t call_sent_ns, call_served_before;

static int long_task(struct task *t)
{
	unsigned i = (unsigned)t->args[0];
	task_start_ns[i] = vtime_now_ns();
	task_start_served[i] = master_calls_served(this_cpu());
	/* one long run: the master serves nothing meanwhile. It sleeps rather than spins, so
	 * that QEMU, which runs the harts in turn, lets the caller run and send meanwhile; on the
	 * core's own clock, so that under virtual time the run lasts LONG_TASK_US there too. */
	vtime_sleep_until_ns(vtime_now_ns() + LONG_TASK_US * 1000ULL, 0);
	return TASK_RET_SUCCESS;
}

static struct task long_tasks[LONG_TASKS];
static volatile int dispatch_error;

/* On a pico-kernel: queues the long tasks on the master, then makes a kernel call while the
 * master is inside the first. Both from the caller's core, so that under virtual time the
 * tasks and the call are on one clock (another core's clock may be far ahead or behind). */
static void timed_call(void *arg)
{
	unsigned master = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; i < LONG_TASKS; i++) {
		uint64_t args[1] = {i};
		int e = task_init(&long_tasks[i], long_task, args, 1);
		if (!e)
			e = task_dispatch(&long_tasks[i], master);
		if (e) {
			dispatch_error = e;
			return;
		}
	}
	vtime_sleep_until_ns(vtime_now_ns() + 500000, 0); /* the master is inside its first long task */
	uint64_t a[6] = {0};
	call_served_before = master_calls_served(master);
	call_sent_ns = vtime_now_ns();
	kcall(KC_HEAP_GROW, a, 0, 0);
	call_ns = vtime_now_ns() - call_sent_ns;
}

/*
 * The property is an order, not a duration (a loaded host stretches durations):
 * of the tasks that began after the call was sent, at most one began before the
 * master served it (the call may still be on the NoC when the running task ends).
 */
KTEST(background, a_call_waits_for_at_most_one_task)
{
	int pico = first_pico();
	if (pico < 0)
		return;
	unsigned master = domain_master(domain_of((unsigned)pico));
	if (master == this_cpu())
		return; /* the master must be idle, not running this test */
	if (vtime_active && vtime_lax) {
		/* it judges the order of the master's work by the cores' clocks, which lax
		 * synchronisation gives up (a core reads what has come, late or not) */
		kprintf("ktest:   skipped under lax synchronisation (vtime_sync=1)\n");
		return;
	}
	struct task *tasks = long_tasks;
	uint16_t core = (uint16_t)pico;
	KT_ASSERT(ktest_run_on(&core, 1, timed_call, (void *)(uintptr_t)master));
	KT_ASSERT_EQ(dispatch_error, 0);
	for (unsigned i = 0; i < LONG_TASKS; i++)
		KT_ASSERT_EQ(task_wait(&tasks[i]), 0);
	unsigned began_while_waiting = 0;
	for (unsigned i = 0; i < LONG_TASKS; i++)
		if (task_start_ns[i] >= call_sent_ns && task_start_served[i] == call_served_before)
			began_while_waiting++;
	kprintf("ktest:   a kernel call behind %d tasks of %d us each took %lu us; %u task(s) began while it "
		"waited\n", LONG_TASKS, LONG_TASK_US, call_ns / 1000, began_while_waiting);
	KT_ASSERT(began_while_waiting <= 1);
	KT_ASSERT(task_start_served[LONG_TASKS - 1] > call_served_before); /* it was served before the last */
}

#include "kernel/task/kthread.h"
#include "kernel/mm/page_alloc.h"

static volatile unsigned ran_on[4];

static void note_core(void *arg)
{
	volatile unsigned *slot = arg;
	*slot = this_cpu() + 1; /* + 1: 0 means "did not run" */
}

KTEST(background, kernel_threads_run_on_their_core_and_free_their_stack)
{
	struct page_stats before, after;
	page_get_stats(&before);
	static struct kthread th[4];
	unsigned cores[4];
	for (unsigned i = 0; i < 4; i++) {
		cores[i] = (this_cpu() + 1 + i) % hart_count;
		ran_on[i] = 0;
		KT_ASSERT_EQ(kthread_create(&th[i], note_core, (void *)&ran_on[i], cores[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		kthread_join(&th[i]);
		KT_ASSERT_EQ(ran_on[i], cores[i] + 1);
	}
	page_get_stats(&after);
	KT_ASSERT_EQ(after.free, before.free);
	KT_ASSERT_EQ(kthread_create(&th[0], note_core, (void *)&ran_on[0], hart_count), -ENXIO);
}

#define THREAD_SPIN 200000 /* iterations of the joined thread's loop */

static void spin_thread(void *arg)
{
	(void)arg;
	for (volatile unsigned i = 0; i < THREAD_SPIN; i = i + 1)
		;
}

/* A join learns of the thread's end no earlier than it happened: on virtual time the joiner's clock
 * moves past the thread's work, although the joiner only slept meanwhile (on the machine's clock
 * the work takes guest time anyway). */
KTEST(background, a_join_waits_for_the_threads_work_on_every_clock)
{
	static struct kthread th;
	uint64_t t0 = vtime_now_ns();
	KT_ASSERT_EQ(kthread_create(&th, spin_thread, 0, (this_cpu() + 1) % hart_count), 0);
	kthread_join(&th);
	uint64_t took = vtime_now_ns() - t0;
	kprintf("ktest:   a thread of %u loop iterations, joined after %lu ns\n", THREAD_SPIN, took);
	KT_ASSERT(took >= THREAD_SPIN); /* at least one instruction per iteration, 1 ns or more each */
}
