/*
 * Dependency graphs: what happens to a task's descendants when it is
 * dispatched, when it completes and when it fails, and the last step of every
 * task, releasing its waiters.
 *
 * Graphs may be deep (a pipeline of many stages), and kernel stacks are 16 KiB,
 * so every walk is iterative: a work list threaded through task.walk, onto
 * which a task is pushed once, by whoever changed its state.
 */
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/core/hart.h"
#include "kernel/time/vtime.h"

static uint32_t walk_epoch;

/* The walk from root: x takes each task of the work list in turn (root first) until the list is empty;
 * the body adds a task with GRAPH_PUSH(c), which the walk then reaches before the tasks pushed earlier. */
#define GRAPH_WALK(x, root) \
	for (struct task *work_ = ((root)->walk = NULL, (root)), *x; work_ && (x = work_, work_ = x->walk, 1);)
#define GRAPH_PUSH(c) ((c)->walk = work_, work_ = (c))

/* Graph edits happen only among CREATED tasks, and every descendant of a dispatched task is
 * dispatched too (graph_publish), so a path that leaves the CREATED tasks never comes back. */
bool graph_reaches(struct task *from, struct task *to)
{
	uint32_t mark = __atomic_add_fetch(&walk_epoch, 1, __ATOMIC_RELAXED);
	if (!mark) /* wrapped: 0 is what task_init leaves */
		mark = __atomic_add_fetch(&walk_epoch, 1, __ATOMIC_RELAXED);
	from->mark = mark;
	GRAPH_WALK(x, from) {
		if (x == to)
			return true;
		for (unsigned i = 0; i < x->nchildren; i++) {
			struct task *c = x->children[i];
			if (c->mark == mark || task_state(c) != TASK_CREATED)
				continue;
			c->mark = mark;
			GRAPH_PUSH(c);
		}
	}
	return false;
}

/* Marks the descendants before the root is queued: once the root may run (on another core,
 * at once), its children must already be BLOCKED, with their dispatcher and parent count set. */
void graph_publish(struct task *root, unsigned cpu)
{
	GRAPH_WALK(x, root) {
		for (unsigned i = 0; i < x->nchildren; i++) {
			struct task *c = x->children[i];
			if (task_state(c) != TASK_CREATED)
				continue; /* dispatched already, with its own graph, maybe elsewhere */
			c->cpu = (uint16_t)cpu;
			c->requester = root->requester;
			c->pending = c->nparents;
			__atomic_store_n(&c->state, TASK_BLOCKED, __ATOMIC_RELEASE);
			GRAPH_PUSH(c);
		}
	}
}

/* The last touch of t: after its lock is released, a waiter may return and reuse t. The done
 * flag and the waiter mask share that lock, so no waiter can register after the mask is read. */
static void release_waiters(struct task *t)
{
	struct dispatcher *d = &dispatchers[t->cpu];
	uint64_t waiting[MOSAIC_MAX_HARTS / 64];
	uint64_t s = spin_lock(&d->lock);
	uint64_t end_ns = vtime_stamp(); /* kept here: t may be reused once the lock is released */
	t->end_ns = end_ns; /* its waiters learn of the end no earlier than this */
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		waiting[w] = t->waiters[w];
	spin_unlock(&d->lock, s);
	unsigned me = this_cpu();
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		for (unsigned b = 0; b < 64; b++)
			if ((waiting[w] >> b & 1) && w * 64 + b != me) {
				vtime_note_event(w * 64 + b, end_ns);
				ipi_send(w * 64 + b, IPI_WAKE);
			}
	vtime_stamp_done();
}

void graph_complete(struct task *t)
{
	for (unsigned i = 0; i < t->nchildren; i++) {
		struct task *c = t->children[i];
		struct dispatcher *d = &dispatchers[c->cpu];
		bool queued = false;
		uint64_t at = vtime_stamp(); /* the child's ready time will be no earlier */
		uint64_t s = spin_lock(&d->lock);
		/* a child failed by another parent (or cancelled) stays failed */
		if (task_state(c) == TASK_BLOCKED && --c->pending == 0) {
			dispatcher_queue_first_locked(d, c);
			queued = true;
		}
		spin_unlock(&d->lock, s);
		if (queued)
			dispatcher_kick(c->cpu, at);
		vtime_stamp_done();
	}
	release_waiters(t);
}

void graph_fail(struct task *t)
{
	GRAPH_WALK(x, t) {
		for (unsigned i = 0; i < x->nchildren; i++) {
			struct task *c = x->children[i];
			struct dispatcher *d = &dispatchers[c->cpu];
			uint64_t s = spin_lock(&d->lock);
			if (task_state(c) == TASK_BLOCKED) {
				c->error = x->error;
				__atomic_store_n(&c->state, TASK_FAILED, __ATOMIC_RELEASE);
				d->failed++;
				GRAPH_PUSH(c);
			}
			spin_unlock(&d->lock, s);
		}
		release_waiters(x); /* x's children are dealt with: x is not touched again */
	}
}
