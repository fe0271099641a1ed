/*
 * The masters' asynchronous console output. A forwarded KC_WRITE only queues the
 * caller's text on its master and replies at once; a dispatcher task on the
 * master prints the queued lines in its idle time, one per run (TASK_RET_AGAIN
 * while more wait), so kernel calls are never held up by console output.
 * Both the queue and the task live on the master core only: the write handler
 * and the task never run at the same time, so they need no lock.
 * The queue is bounded (ASYNC_CONSOLE_MAX_BYTES per master): a write that would
 * pass the bound first prints the oldest lines itself, so tasks that write faster
 * than the master's idle time prints wait for their output instead of filling the
 * master's memory. Nothing is dropped.
 */
#include "kernel/console/async_console.h"
#include "kernel/dispatch/dispatcher.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/poweroff.h"
#include "kernel/domain/domain.h"
#include "kernel/core/errno.h"
#include "kernel/time/vtime.h"
#include "drivers/timer.h"
#include "lib/string.h"

struct line {
	struct line *next;
	uint16_t caller;
	uint32_t len;
	char text[];
};

#define ASYNC_CONSOLE_MAX_BYTES (64 * 1024)

struct console_queue {
	struct line *head, *tail;
	struct task task;
	volatile unsigned queued; /* lines not printed yet; read by the power-off hook */
	uint64_t bytes;           /* text queued, against ASYNC_CONSOLE_MAX_BYTES */
};

static struct console_queue queues[MOSAIC_MAX_HARTS];

static void print_oldest(struct console_queue *q)
{
	struct line *l = q->head;
	q->head = l->next;
	if (!q->head)
		q->tail = 0;
	q->bytes -= l->len;
	kprintf("[core %u] %.*s", l->caller, (int)l->len, l->text);
	kfree(l);
	__atomic_fetch_sub(&q->queued, 1, __ATOMIC_RELEASE);
}

static int print_one(struct task *t)
{
	struct console_queue *q = &queues[t->args[0]];
	if (q->head)
		print_oldest(q);
	return q->head ? TASK_RET_AGAIN : TASK_RET_SUCCESS;
}

int async_console_write(unsigned caller, const char *text, uint32_t len)
{
	unsigned me = this_cpu();
	struct console_queue *q = &queues[me];
	while (q->head && q->bytes + len > ASYNC_CONSOLE_MAX_BYTES)
		print_oldest(q); /* the bound: the writer waits for the backlog instead */
	struct line *l = kmalloc(sizeof *l + len);
	if (!l)
		return -ENOMEM;
	l->next = 0;
	l->caller = (uint16_t)caller;
	l->len = len;
	memcpy(l->text, text, len);
	q->bytes += len;
	if (q->tail)
		q->tail->next = l;
	else
		q->head = l;
	q->tail = l;
	__atomic_fetch_add(&q->queued, 1, __ATOMIC_RELEASE);
	int s = task_state(&q->task);
	if (s == TASK_CREATED || s == TASK_COMPLETED || s == TASK_FAILED) {
		uint64_t arg = me;
		task_init(&q->task, print_one, &arg, 1);
		task_dispatch(&q->task, me);
	}
	return (int)len;
}

static bool all_printed(void)
{
	for (unsigned c = 0; c < hart_count; c++)
		if (__atomic_load_n(&queues[c].queued, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Nothing queued is lost at power-off. This core's own queue is printed here: when it is a
 * master, its print task runs only in its idle loop, which the power-off path never reaches
 * again, and the boot core is often its domain's master, so a user task's last line (queued
 * after the shell's wait for the task ended) would otherwise be lost if the wait below ran
 * out before this core's print task ran.
 * Then wait (up to a second of this core's time) until every other master printed its lines, on
 * this core's clock (vtime_sleep_until_ns): a plain sleep counts as running under virtual
 * time, with a clock that stands still, so a master whose print task falls due later on its
 * own clock could not pass it. */
static void flush_all(int status)
{
	(void)status;
	struct console_queue *own = &queues[this_cpu()];
	while (own->head)
		print_oldest(own); /* no print task of ours runs meanwhile: it runs on this core */
	uint64_t until = vtime_now_ns() + 1000000000;
	while (!all_printed() && vtime_now_ns() < until)
		vtime_sleep_until_ns(vtime_now_ns() + 100000, all_printed);
}
POWEROFF_HOOK(flush_all);
