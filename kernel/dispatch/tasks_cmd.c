/*
 * The `tasks` shell command: one row per core with its dispatcher's queues and
 * counters, read without the locks (a snapshot that may be a moment stale).
 * Cores whose dispatcher never saw a task are left out unless `tasks all`; a '*'
 * marks a domain's master core.
 */
#include "kernel/dispatch/dispatcher.h"
#include "kernel/dispatch/dispatch_internal.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/domain/domain.h"
#include "lib/string.h"

SHELL_CMD_NOWAIT(tasks, "tasks [all]", "per-core task dispatchers: queue lengths, tasks run, completed, failed")
{
	bool all = argc == 2 && strcmp(argv[1], "all") == 0;
	if (argc > 2 || (argc == 2 && !all))
		return SHELL_USAGE;
	kprintf("  cpu loop running ready timed stopped       runs  completed     failed\n");
	unsigned shown = 0;
	uint64_t runs = 0, completed = 0, failed = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		struct dispatcher *d = &dispatchers[cpu];
		bool loop = dispatcher_loop_running(cpu);
		unsigned ready = d->ready.len, timed = d->timed.len, stopped = d->stopped.len;
		runs += d->runs;
		completed += d->completed;
		failed += d->failed;
		if (!all && !loop && !d->current && !ready && !timed && !stopped && !d->runs && !d->failed)
			continue;
		kprintf("%4u%c %-4s %-7s %5u %5u %7u %10lu %10lu %10lu\n", cpu, is_master(cpu) ? '*' : ' ', loop ? "yes" : "no",
			d->current ? "yes" : "no", ready, timed, stopped, d->runs, d->completed, d->failed);
		shown++;
	}
	if (!shown)
		kprintf("  (no dispatcher has seen a task yet; 'tasks all' lists every core)\n");
	kprintf("total: %lu runs, %lu completed, %lu failed\n", runs, completed, failed);
	return 0;
}
