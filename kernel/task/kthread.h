/*
 * Kernel threads, as the baseline of the dispatcher experiment (the seed's
 * "one thread per task"): each thread has a stack of its own (KTHREAD_STACK,
 * 8 KiB as in the paper) and runs to completion on the core it was created
 * for, in that core's idle time (kernel/domain/background.c), one after another.
 * Mosaic has no preemptive threads: these cost what a thread costs to create,
 * hold and join (its stack), which is what the experiment compares.
 */
#ifndef KERNEL_KTHREAD_H
#define KERNEL_KTHREAD_H

#include <stdint.h>
#include <stdbool.h>

#define KTHREAD_STACK (8 * 1024)

struct kthread {
	void (*fn)(void *arg);
	void *arg;
	void *stack;
	uint16_t cpu, creator;
	uint64_t start_ns, end_ns; /* the creator's clock at creation, the thread's at its end (kernel/time/vtime.h) */
	volatile uint32_t done;
	struct kthread *next;
};

/* Gives the thread its stack and queues it on core cpu, waking it. -ENOMEM, -ENXIO. */
int kthread_create(struct kthread *t, void (*fn)(void *), void *arg, unsigned cpu);
/* Waits (doing background work) until the thread finished, then frees its stack. */
void kthread_join(struct kthread *t);
/* Runs one thread queued on the calling core; true if it ran one. */
bool kthread_run_one(void);
bool kthread_has_ready(unsigned cpu);

/* arch/riscv/entry.S: calls fn(arg) with sp at stack_top, back on the caller's stack after. */
void call_on_stack(void *stack_top, void (*fn)(void *), void *arg);

#endif
