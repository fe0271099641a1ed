/* ktest suite "utask": user programs in U-mode on pico-kernels, their kernel calls, faults and isolation. */
#include "kernel/core/ktest.h"
#include "kernel/task/utask.h"
#include "kernel/msg/group.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/console/console.h"

/* A pico-kernel other than the caller, or the caller if it is the only one. */
static int some_pico(void)
{
	int self = -1;
	for (unsigned c = 0; c < hart_count; c++) {
		if (is_master(c))
			continue;
		if (c != this_cpu())
			return (int)c;
		self = (int)c;
	}
	return self;
}

static bool run(struct ktest_ctx *kt, int core, const char *name, uint64_t arg, struct utask_result *res)
{
	int e = utask_run_on((unsigned)core, name, arg, res);
	if (e)
		ktest_fail(kt, __FILE__, __LINE__, "utask_run_on(%d, %s): %d", core, name, e);
	return e == 0;
}

KTEST(utask, programs_run_and_exit)
{
	int core = some_pico();
	if (core < 0) {
		kprintf("ktest:   (skipped: every core is a micro-kernel)\n");
		return;
	}
	static const char *const good[] = {"hello", "kcalls", "badptr"};
	for (unsigned i = 0; i < 3; i++) {
		struct utask_result res;
		if (!run(kt, core, good[i], 7, &res))
			return;
		KT_ASSERT_EQ(res.status, 0);
		KT_ASSERT_EQ(res.exit_code, 0);
	}
}

KTEST(utask, faults_kill_the_task_and_the_core_runs_on)
{
	int core = some_pico();
	if (core < 0)
		return;
	/* fault.c's kinds and the exception each must raise */
	static const uint64_t causes[][2] = {{15, 15}, {13, 13}, {2, 2}, {4, 6}, {13, 13}, {12, 12}, {15, 15}};
	struct page_stats before, after;
	struct utask_result res;
	KT_ASSERT(run(kt, core, "hello", 0, &res)); /* warm up the heap's size classes */
	page_get_stats(&before);
	for (unsigned k = 0; k < 7; k++) {
		if (!run(kt, core, "fault", k, &res))
			return;
		KT_ASSERT_EQ(res.status, -EFAULT);
		KT_ASSERT(res.cause == causes[k][0] || res.cause == causes[k][1]);
		if (!run(kt, core, "hello", k, &res))
			return;
		KT_ASSERT_EQ(res.status, 0); /* the same core carries on */
	}
	page_get_stats(&after);
	KT_ASSERT_EQ(after.free, before.free); /* killed tasks leave no page behind */
}

KTEST(utask, heap_accounts_are_returned_when_tasks_end)
{
	/* kcalls takes 64 KiB of heap each run; twenty runs exceed the master's 1 MiB account
	 * for one core unless every task gives its heap back when it ends */
	int core = some_pico();
	if (core < 0)
		return;
	for (int i = 0; i < 20; i++) {
		struct utask_result res;
		if (!run(kt, core, "kcalls", (uint64_t)i, &res))
			return;
		KT_ASSERT_EQ(res.status, 0);
		KT_ASSERT_EQ(res.exit_code, 0);
	}
}

KTEST(utask, bad_requests_are_refused)
{
	struct utask_result res;
	KT_ASSERT_EQ(utask_run_on(domain_master(0), "hello", 0, &res), -EPERM);
	KT_ASSERT_EQ(utask_run_on(hart_count, "hello", 0, &res), -ENXIO);
	int core = some_pico();
	if (core < 0)
		return;
	KT_ASSERT(run(kt, core, "no-such-program", 0, &res));
	KT_ASSERT_EQ(res.status, -ENOENT);
}

struct many {
	const char *name;
	uint64_t arg_base;
	bool same_arg; /* every task gets arg_base, not arg_base + its core */
	uint32_t session; /* one message session for all of them, like a job's */
	const uint16_t *cores;
	unsigned n;
	struct utask_result res[MOSAIC_MAX_HARTS];
};

/* Like a job's task: the session is begun on every core before any task starts (a
 * barrier), so no early message reaches a core that would drop it. */
static void run_here(void *arg)
{
	struct many *m = arg;
	msg_session_begin(m->session);
	struct msg_group g;
	int e = msg_group_init(&g, m->cores, m->n);
	if (!e)
		e = msg_barrier(&g, MSG_ALGO(MSG_ALGO_TREE));
	if (e) {
		msg_session_end();
		m->res[this_cpu()] = (struct utask_result){.status = e};
		return;
	}
	utask_run(m->name, m->arg_base + (m->same_arg ? 0 : this_cpu()), &m->res[this_cpu()]);
}

/* Runs `name` on every listed core at once; true if every task exited with 0. */
static bool all_exit_zero(struct ktest_ctx *kt, const uint16_t *cores, unsigned n, const char *name, uint64_t arg,
			  bool same_arg)
{
	static struct many m;
	m.name = name;
	m.arg_base = arg;
	m.same_arg = same_arg;
	m.session = msg_new_session();
	m.cores = cores;
	m.n = n;
	if (!ktest_run_on(cores, n, run_here, &m)) {
		ktest_fail(kt, __FILE__, __LINE__, "could not start %s on %u cores", name, n);
		return false;
	}
	for (unsigned i = 0; i < n; i++)
		if (m.res[cores[i]].status != 0 || m.res[cores[i]].exit_code != 0) {
			ktest_fail(kt, __FILE__, __LINE__, "%s on core %u: status %d, exit code %d", name, cores[i],
				   m.res[cores[i]].status, m.res[cores[i]].exit_code);
			return false;
		}
	return true;
}

static unsigned picos(uint16_t *out)
{
	unsigned n = 0;
	for (unsigned c = 0; c < hart_count; c++)
		if (!is_master(c))
			out[n++] = (uint16_t)c;
	return n;
}

KTEST(utask, tasks_on_every_pico_kernel_at_once)
{
	uint16_t cores[MOSAIC_MAX_HARTS] = {0};
	unsigned n = picos(cores);
	if (all_exit_zero(kt, cores, n, "kcalls", 0, false))
		kprintf("ktest:   kcalls ran on %u pico-kernels at once\n", n);
}

KTEST(utask, tasks_are_isolated)
{
	/* every task has the same addresses; each keeps its own value (1000 + core) in the same global */
	uint16_t cores[MOSAIC_MAX_HARTS] = {0};
	all_exit_zero(kt, cores, picos(cores), "marker", 1000, false);
}

KTEST(utask, collectives_across_tasks)
{
	/* the pico-kernels of domain 0 (all below core 64, as coll's argument is a mask) */
	uint16_t cores[MOSAIC_MAX_HARTS] = {0};
	unsigned n = 0;
	uint64_t mask = 0;
	for (unsigned c = 0; c < hart_count && c < 64; c++)
		if (domain_of(c) == 0 && !is_master(c)) {
			cores[n++] = (uint16_t)c;
			mask |= 1UL << c;
		}
	if (n == 0) {
		kprintf("ktest:   (skipped: domain 0 has no pico-kernel)\n");
		return;
	}
	all_exit_zero(kt, cores, n, "coll", mask, true);
}
