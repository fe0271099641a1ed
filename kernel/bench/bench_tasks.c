/*
 * The seed's dispatcher experiment (Nanvix task paper, Table I and Fig. 3):
 * create-and-wait of n = 1..29 units of work that each write 16 pages (64 KiB),
 * run as (a) tasks on one dispatcher, (b) tasks on one dispatcher per free core
 * (14, as in the paper), (c) one kernel thread per unit. Shell command
 * `bench_tasks [max]`, one line "bench-tasks: {json}" per (scenario, n);
 * scripts/bench-kernel runs it under -icount. Time is guest time from the first
 * create to the last wait; memory is what the execution contexts hold: a
 * dispatcher runs on its core's own kernel stack, a thread has an 8 KiB stack.
 */
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/domain/domain.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/task/kthread.h"
#include "kernel/dispatch/dispatcher.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "kernel/time/vtime.h"

#define MAX_UNITS 29
#define UNIT_BYTES (16 * PAGE_SIZE)
#define FREE_CORES 14

static uint8_t *buffers[MAX_UNITS];
static struct task tasks[MAX_UNITS];
static struct kthread threads[MAX_UNITS];

static int write_task(struct task *t)
{
	memset((void *)t->args[0], (int)t->args[1], UNIT_BYTES);
	return TASK_RET_SUCCESS;
}

static void write_thread(void *arg)
{
	memset(arg, 0x5a, UNIT_BYTES);
}

/* The free cores: neither a micro-kernel nor the caller's. */
static unsigned free_cores(uint16_t *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned c = 0; c < hart_count && n < max; c++)
		if (!is_master(c) && c != this_cpu() && harts[c].state == HART_ONLINE)
			out[n++] = (uint16_t)c;
	return n;
}

static void report(const char *scenario, unsigned n, unsigned contexts, uint64_t t0, uint64_t pages_held, uint64_t bytes)
{
	kprintf("bench-tasks: {\"scenario\": \"%s\", \"units\": %u, \"contexts\": %u, \"time_ns\": %lu, "
		"\"memory_bytes\": %lu, \"pages_held\": %lu}\n",
		scenario, n, contexts, vtime_now_ns() - t0, bytes, pages_held);
}

static uint64_t free_pages(void)
{
	struct page_stats st;
	page_get_stats(&st);
	return st.free;
}

/* Tasks on the given dispatchers (each running a dispatcher_loop), round robin. */
static int run_tasks(const char *name, const uint16_t *cores, unsigned ncores, unsigned n)
{
	for (unsigned i = 0; i < ncores; i++)
		if (dispatcher_start(cores[i]))
			return 1;
	uint64_t before = free_pages(), t0 = vtime_now_ns();
	for (unsigned i = 0; i < n; i++) {
		uint64_t args[2] = {(uint64_t)buffers[i], i};
		task_init(&tasks[i], write_task, args, 2);
		task_dispatch(&tasks[i], cores[i % ncores]);
	}
	uint64_t held = before - free_pages();
	int bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad |= task_wait(&tasks[i]) != 0;
	report(name, n, ncores, t0, held, n * sizeof(struct task));
	for (unsigned i = 0; i < ncores; i++)
		dispatcher_stop(cores[i]);
	return bad;
}

static int run_threads(const uint16_t *cores, unsigned ncores, unsigned n)
{
	uint64_t before = free_pages(), t0 = vtime_now_ns();
	int bad = 0;
	for (unsigned i = 0; i < n; i++)
		bad |= kthread_create(&threads[i], write_thread, buffers[i], cores[i % ncores]) != 0;
	uint64_t held = before - free_pages();
	for (unsigned i = 0; i < n; i++)
		kthread_join(&threads[i]);
	report("thread_per_task", n, n, t0, held, n * (sizeof(struct kthread) + KTHREAD_STACK));
	return bad;
}

SHELL_CMD(bench_tasks, "bench_tasks [max]", "the seed's dispatcher experiment (run by make bench-kernel)")
{
	uint64_t max = MAX_UNITS;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &max) || max < 1 || max > MAX_UNITS)))
		return SHELL_USAGE;
	uint16_t cores[FREE_CORES];
	unsigned nfree = free_cores(cores, FREE_CORES);
	if (nfree == 0) {
		kprintf("bench-tasks: no free core\n");
		return 1;
	}
	for (unsigned i = 0; i < max; i++)
		if (!buffers[i] && !(buffers[i] = page_alloc(UNIT_BYTES / PAGE_SIZE))) {
			kprintf("bench-tasks: no memory for the buffers\n");
			return 1;
		}
	kprintf("bench-tasks: {\"scenario\": \"setup\", \"free_cores\": %u, \"unit_bytes\": %lu, \"thread_stack\": %d, "
		"\"task_bytes\": %lu}\n", nfree, UNIT_BYTES, KTHREAD_STACK, sizeof(struct task));
	int bad = 0;
	for (unsigned n = 1; n <= max; n++) {
		bad |= run_tasks("one_dispatcher", cores, 1, n);
		bad |= run_tasks("dispatcher_per_free_core", cores, nfree, n);
		bad |= run_threads(cores, nfree, n);
	}
	if (bad)
		kprintf("bench-tasks: a unit failed\n");
	return bad ? 1 : 0;
}
