/* ktest suite "balance": time-sliced pico-kernels (kernel/share.h), the first piece of
 * speed balancing: several tasks on one core, preempted, each with exact results. */
#include "kernel/ktest.h"
#include "kernel/share.h"
#include "kernel/domain.h"
#include "kernel/hart.h"
#include "kernel/errno.h"
#include "kernel/page_alloc.h"
#include "kernel/console.h"

/* A pico-kernel other than the caller, or the caller if it is the only one; -1 if none. */
static int a_pico(void)
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

/* What user/slice.c exits with for arg (bits 40..45 of its LCG after arg * 1000 steps). */
static int slice_expected(uint64_t arg)
{
	uint64_t x = arg;
	for (uint64_t k = 0; k < arg * 1000; k++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int)((x >> 40) & 63);
}

#define PROBE_ARG (1UL << 31) /* slice.c: try a message call instead */

KTEST(balance, shared_tasks_are_preempted_and_exact)
{
	int core = a_pico();
	if (core < 0) {
		kprintf("ktest:   (skipped: every core is a micro-kernel)\n");
		return;
	}
	/* four tasks of 8 to 9 ms each on a 1 ms slice: every one must be switched out and
	 * in again, and still end with its own result and its own data */
	struct share_task t[4];
	for (unsigned i = 0; i < 4; i++)
		t[i] = (struct share_task){.name = "slice", .arg = 2000 + 100 * i};
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, 4), 0);
	for (unsigned i = 0; i < 4; i++) {
		KT_ASSERT_EQ(t[i].res.status, 0);
		KT_ASSERT_EQ(t[i].res.exit_code, slice_expected(t[i].arg));
		KT_ASSERT(t[i].slices >= 2);
		KT_ASSERT(t[i].cpu_ns > 0 && t[i].cpu_ns <= t[i].real_ns);
		KT_ASSERT(t[i].cpu_ns * 10 < t[i].real_ns * 6); /* it shared the core: speed below 0.6 */
	}
}

KTEST(balance, bad_counts_are_refused_and_pages_come_back)
{
	int core = a_pico();
	if (core < 0)
		return;
	struct share_task t[SHARE_MAX + 1];
	for (unsigned i = 0; i <= SHARE_MAX; i++)
		t[i] = (struct share_task){.name = "slice", .arg = 300};
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, 2), 0); /* warm up the heap's size classes */
	struct page_stats before, after;
	page_get_stats(&before);
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, 0), -EINVAL);
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, SHARE_MAX + 1), -EINVAL);
	KT_ASSERT_EQ(share_run_on(hart_count, t, 2), -ENXIO);
	KT_ASSERT_EQ(share_run_on(domain_master(0), t, 2), -EPERM);
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, SHARE_MAX), 0);
	for (unsigned i = 0; i < SHARE_MAX; i++)
		KT_ASSERT_EQ(t[i].res.exit_code, slice_expected(300));
	page_get_stats(&after);
	KT_ASSERT_EQ(after.free, before.free); /* stacks, tasks and contexts all given back */
}

KTEST(balance, a_task_that_cannot_start_leaves_the_others_alone)
{
	int core = a_pico();
	if (core < 0)
		return;
	struct share_task t[3] = {{.name = "slice", .arg = 1500}, {.name = "no-such-program"}, {.name = "slice", .arg = 1600}};
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, 3), 0);
	KT_ASSERT_EQ(t[1].res.status, -ENOENT);
	KT_ASSERT_EQ(t[0].res.status, 0);
	KT_ASSERT_EQ(t[0].res.exit_code, slice_expected(1500));
	KT_ASSERT_EQ(t[2].res.status, 0);
	KT_ASSERT_EQ(t[2].res.exit_code, slice_expected(1600));
}

KTEST(balance, message_calls_are_refused_on_a_shared_core)
{
	int core = a_pico();
	if (core < 0)
		return;
	/* slice's probe exits 0 only if its send got -ENOTSUP: alone it is not refused (1) */
	struct utask_result alone;
	KT_ASSERT_EQ(utask_run_on((unsigned)core, "slice", PROBE_ARG, &alone), 0);
	KT_ASSERT_EQ(alone.status, 0);
	KT_ASSERT_EQ(alone.exit_code, 1);
	struct share_task t[2] = {{.name = "slice", .arg = PROBE_ARG}, {.name = "slice", .arg = PROBE_ARG}};
	KT_ASSERT_EQ(share_run_on((unsigned)core, t, 2), 0);
	KT_ASSERT_EQ(t[0].res.exit_code, 0);
	KT_ASSERT_EQ(t[1].res.exit_code, 0);
}
