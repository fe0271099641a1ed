/* What share groups print, for the `share` command and for the parts of oversubscribed jobs
 * (kernel/alloc/oversub.c): one line per task (its exit and its speed on the cores' clocks),
 * a summary and the same as one JSON line for scripts (scripts/bench-balance); and the
 * names of the wait modes and placements as the shell and `submit` take them. */
#include "kernel/task/share/share.h"
#include "kernel/console/console.h"
#include "kernel/core/errno.h"
#include "kernel/time/vtime.h"
#include "lib/string.h"

static int word_index(const char *w, const char *const *names, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(w, names[i]))
			return (int)i;
	return -1;
}

int share_wait_parse(const char *w) { return word_index(w, share_wait_names, SHARE_WAITS); }
int share_place_parse(const char *w) { return word_index(w, share_place_names, SHARE_PLACES); }

/* speed of a task in permille: CPU time / real time */
static uint64_t speed_of(const struct share_task *t) { return t->real_ns ? t->cpu_ns * 1000 / t->real_ns : 0; }

void share_report(const struct share_group *g, const char *who, bool quiet)
{
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0, moves = 0;
	int bad = 0;
	for (unsigned k = 0; k < g->ntasks; k++) {
		const struct share_task *t = &g->tasks[k];
		uint64_t sp = speed_of(t);
		lo = sp < lo ? sp : lo;
		hi = sp > hi ? sp : hi;
		sum += sp;
		moves += t->migrations;
		bad |= t->res.status != 0;
		if (quiet)
			continue;
		const char *how = t->res.status == 0 ? "exited" : t->res.status == -EFAULT ? "killed" : "not started";
		kprintf("%s: rank %u core %u->%u %s %d cpu_us %lu sys_us %lu real_us %lu speed %lu.%03lu slices %lu "
			"moves %lu\n",
			who, t->rank, t->first_core, t->last_core, how, t->res.status == 0 ? t->res.exit_code : t->res.status,
			t->cpu_ns / 1000, t->sys_ns / 1000, t->real_ns / 1000, sp / 1000, sp % 1000, t->slices,
			t->migrations);
	}
	kprintf("%s: %u tasks on %u cores, wait %s, place %s, slice %lu us: run_us %lu, speed min %lu.%03lu "
		"max %lu.%03lu, %u migrations, %u barriers%s\n",
		who, g->ntasks, g->ncores, share_wait_names[g->wait], share_place_names[g->place], share_slice_us,
		g->run_ns / 1000, lo / 1000, lo % 1000, hi / 1000, hi % 1000, g->migrations, g->barriers,
		bad ? ", FAILED" : "");
	kprintf("SHAREJSON {\"who\":\"%s\",\"program\":\"%s\",\"arg\":%lu,\"ntasks\":%u,\"ncores\":%u,\"wait\":\"%s\","
		"\"place\":\"%s\",\"slice_us\":%lu,\"balance_us\":%lu,\"clock\":\"%s\",\"run_ns\":%lu,\"speed_min\":%lu,"
		"\"speed_max\":%lu,\"speed_mean\":%lu,\"migrations\":%u,\"moves_in_wait\":%u,\"task_moves\":%lu,\"barriers\":%u,"
		"\"balance_messages\":%u,\"balance_dropped\":%u,\"ok\":%s}\n",
		who, g->name, g->arg, g->ntasks, g->ncores, share_wait_names[g->wait], share_place_names[g->place],
		share_slice_us, share_balance_us, vtime_active ? "virtual" : "serial", g->run_ns, lo, hi,
		sum / g->ntasks, g->migrations, g->moves_in_wait, moves, g->barriers, g->balance_sent, g->balance_dropped,
		bad ? "false" : "true");
}
