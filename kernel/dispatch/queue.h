/*
 * Intrusive doubly linked lists of tasks, through task.prev/next: the
 * dispatcher's queues need O(1) removal from the middle (task_cancel,
 * task_continue) and no allocation. Callers hold the dispatcher's lock.
 */
#ifndef KERNEL_DISPATCH_QUEUE_H
#define KERNEL_DISPATCH_QUEUE_H

#include <stddef.h>
#include "kernel/dispatch/task.h"

struct task_queue {
	struct task *head, *tail;
	unsigned len;
};

static inline void tq_push_tail(struct task_queue *q, struct task *t)
{
	t->next = NULL;
	t->prev = q->tail;
	if (q->tail)
		q->tail->next = t;
	else
		q->head = t;
	q->tail = t;
	q->len++;
}

static inline void tq_remove(struct task_queue *q, struct task *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		q->head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		q->tail = t->prev;
	t->prev = t->next = NULL;
	q->len--;
}

static inline struct task *tq_pop_head(struct task_queue *q)
{
	struct task *t = q->head;
	if (t)
		tq_remove(q, t);
	return t;
}

/* Keeps the queue sorted by release time; equal times stay in insertion order. */
static inline void tq_insert_by_release(struct task_queue *q, struct task *t)
{
	struct task *after = q->tail;
	while (after && after->release > t->release)
		after = after->prev;
	t->prev = after;
	t->next = after ? after->next : q->head;
	if (t->next)
		t->next->prev = t;
	else
		q->tail = t;
	if (after)
		after->next = t;
	else
		q->head = t;
	q->len++;
}

#endif
