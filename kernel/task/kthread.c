/* Run-to-completion kernel threads on stacks of their own (see kthread.h). */
#include "kernel/task/kthread.h"
#include "kernel/core/hart.h"
#include "kernel/core/spinlock.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/stack_guard.h"
#include "kernel/core/panic.h"
#include "kernel/domain/background.h"
#include "kernel/core/errno.h"
#include "kernel/core/config.h"
#include "kernel/time/vtime.h"


struct thread_queue {
	struct spinlock lock;
	struct kthread *head, *tail;
};

static struct thread_queue queues[MOSAIC_MAX_HARTS];

int kthread_create(struct kthread *t, void (*fn)(void *), void *arg, unsigned cpu)
{
	if (cpu >= hart_count || harts[cpu].state == HART_FAILED || harts[cpu].state == HART_ABSENT)
		return -ENXIO;
	t->stack = page_alloc(KTHREAD_STACK / PAGE_SIZE);
	if (!t->stack)
		return -ENOMEM;
	stack_guard_set(t->stack);
	t->fn = fn;
	t->arg = arg;
	t->cpu = (uint16_t)cpu;
	t->creator = (uint16_t)this_cpu();
	t->done = 0;
	t->next = 0;
	/* on virtual time a thread starts no earlier than its creation, and its core may run from then on */
	t->start_ns = vtime_stamp();
	struct thread_queue *q = &queues[cpu]; /* a zeroed lock is a free lock */
	uint64_t s = spin_lock(&q->lock);
	if (q->tail)
		q->tail->next = t;
	else
		q->head = t;
	q->tail = t;
	spin_unlock(&q->lock, s);
	/* noted after the thread is queued: a core that begins a wait forgets older notes, and
	 * then looks at its queue (kernel/domain/background.c) */
	vtime_note_event(cpu, t->start_ns);
	vtime_stamp_done();
	if (cpu != this_cpu())
		ipi_send(cpu, IPI_WAKE);
	return 0;
}

bool kthread_has_ready(unsigned cpu) { return __atomic_load_n(&queues[cpu].head, __ATOMIC_ACQUIRE) != 0; }

bool kthread_run_one(void)
{
	struct thread_queue *q = &queues[this_cpu()];
	if (!kthread_has_ready(this_cpu()))
		return false;
	uint64_t s = spin_lock(&q->lock);
	struct kthread *t = q->head;
	if (t) {
		q->head = t->next;
		if (!q->head)
			q->tail = 0;
	}
	spin_unlock(&q->lock, s);
	if (!t)
		return false;
	vtime_advance_to(t->start_ns);
	call_on_stack((uint8_t *)t->stack + KTHREAD_STACK, t->fn, t->arg);
	if (!stack_guard_intact(t->stack))
		panic("kernel thread overflowed its %u-byte stack at %p (the page below it is corrupt)",
		      KTHREAD_STACK, t->stack);
	unsigned creator = t->creator;
	uint64_t end = vtime_stamp(); /* its joiner (the creator) learns of the end no earlier */
	t->end_ns = end;
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE); /* from here the joiner may free t */
	if (creator != this_cpu()) {
		vtime_note_event(creator, end);
		ipi_send(creator, IPI_WAKE);
	}
	vtime_stamp_done();
	return true;
}

static bool finished(void *arg) { return __atomic_load_n(&((struct kthread *)arg)->done, __ATOMIC_ACQUIRE); }

void kthread_join(struct kthread *t)
{
	core_wait(finished, t);
	vtime_advance_to(t->end_ns); /* the joiner learns of the end no earlier than it happened */
	page_free(t->stack, KTHREAD_STACK / PAGE_SIZE);
	t->stack = 0;
}
