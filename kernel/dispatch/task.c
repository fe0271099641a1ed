/*
 * The task object before dispatch: initialising it, its timing, and the
 * edges of its dependency graph. All of this works on CREATED tasks, which
 * belong to the core that builds the graph, so it takes no lock; dispatching
 * is what hands the tasks to the dispatchers, and freezes the graph.
 */
#include "kernel/dispatch/task.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "lib/string.h"

int task_init(struct task *t, task_fn fn, const uint64_t *args, unsigned nargs)
{
	if (!t || !fn || nargs > TASK_MAX_ARGS || (nargs && !args))
		return -EINVAL;
	memset(t, 0, sizeof *t);
	t->fn = fn;
	for (unsigned i = 0; i < nargs; i++)
		t->args[i] = args[i];
	__atomic_store_n(&t->state, TASK_CREATED, __ATOMIC_RELEASE);
	return 0;
}

int task_set_timing(struct task *t, uint64_t delay, uint64_t period)
{
	if (!t)
		return -EINVAL;
	if (task_state(t) != TASK_CREATED)
		return -EBUSY;
	if (period && t->nchildren)
		return -EINVAL;
	t->delay = delay;
	t->period = period;
	return 0;
}

int task_set_observer(struct task *t)
{
	if (!t)
		return -EINVAL;
	if (task_state(t) != TASK_CREATED)
		return -EBUSY;
	t->observer = true;
	return 0;
}

int task_connect(struct task *parent, struct task *child)
{
	if (!parent || !child || parent == child)
		return -EINVAL;
	if (task_state(parent) != TASK_CREATED || task_state(child) != TASK_CREATED)
		return -EBUSY;
	/* a periodic task never completes, so a child of it could never run */
	if (parent->period || parent->nchildren >= TASK_MAX_CHILDREN)
		return -EINVAL;
	for (unsigned i = 0; i < parent->nchildren; i++)
		if (parent->children[i] == child)
			return -EINVAL;
	/* a cycle would leave all its tasks waiting for each other for ever */
	if (graph_reaches(child, parent))
		return -EINVAL;
	parent->children[parent->nchildren++] = child;
	child->nparents++;
	return 0;
}

int task_disconnect(struct task *parent, struct task *child)
{
	if (!parent || !child)
		return -EINVAL;
	if (task_state(parent) != TASK_CREATED || task_state(child) != TASK_CREATED)
		return -EBUSY;
	for (unsigned i = 0; i < parent->nchildren; i++) {
		if (parent->children[i] != child)
			continue;
		for (unsigned j = i + 1; j < parent->nchildren; j++)
			parent->children[j - 1] = parent->children[j];
		parent->children[--parent->nchildren] = NULL;
		child->nparents--;
		return 0;
	}
	return -ENOENT;
}

