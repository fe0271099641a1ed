/*
 * ktest suite "invasive": claims and teams (docs/invasive.md), driven through
 * the user program invtest, whose cases check the kernel calls' answers from
 * user space; here the kernel checks that every core came back to its
 * micro-kernel. Standalone (not in "all"): it needs the real-task layout, and
 * the host runs it under both policies (tests/test_invasive.py).
 */
#include "kernel/core/ktest.h"
#include "kernel/alloc/proto.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/task/utask.h"
#include "kernel/console/console.h"
#include "drivers/timer.h"

static struct utask_result results[MOSAIC_MAX_HARTS];
static uint64_t case_arg;

static void run_invtest(void *arg)
{
	(void)arg;
	utask_run("invtest", case_arg, &results[this_cpu()]);
}

/* A pico-kernel of domain d that is not this core, or -1. */
static int pico_of(unsigned d)
{
	for (unsigned c = 0; c < hart_count; c++)
		if (domain_of(c) == d && !is_master(c) && c != this_cpu())
			return (int)c;
	return -1;
}

/* Every micro-kernel has all its cores back (frees travel as messages: wait for them). */
static bool all_cores_back(void)
{
	uint64_t until = timer_now() + timer_us_to_ticks(2000000);
	for (;;) {
		bool back = true;
		for (unsigned d = 0; d < layout.ndomains; d++)
			back &= mks[d].nfree == mks[d].capacity && !mks[d].claims;
		if (back || timer_now() > until)
			return back;
		timer_sleep_us(1000);
	}
}

static bool run_case(struct ktest_ctx *kt, const uint16_t *cores, unsigned n, uint64_t arg)
{
	case_arg = arg;
	if (!ktest_run_on(cores, n, run_invtest, 0)) {
		ktest_fail(kt, __FILE__, __LINE__, "could not start invtest %lu", arg);
		return false;
	}
	for (unsigned i = 0; i < n; i++)
		if (results[cores[i]].status || results[cores[i]].exit_code) {
			ktest_fail(kt, __FILE__, __LINE__, "invtest %lu on core %u: status %d, failed check at line %d",
				   arg, cores[i], results[cores[i]].status, results[cores[i]].exit_code);
			return false;
		}
	return true;
}

static bool one_case(struct ktest_ctx *kt, uint64_t arg)
{
	int c = pico_of(0);
	if (c < 0) {
		ktest_fail(kt, __FILE__, __LINE__, "domain 0 has no pico-kernel to run invtest on");
		return false;
	}
	uint16_t core = (uint16_t)c;
	return run_case(kt, &core, 1, arg);
}

/* The test invasive.name: user/invtest's case c, and every core it used back afterwards. */
#define INVASIVE_CASE(name, c)                    \
	KTEST_STANDALONE(invasive, name)          \
	{                                         \
		KT_ASSERT(one_case(kt, c));       \
		KT_ASSERT(all_cores_back());      \
	}

KTEST_STANDALONE(invasive, invade_beyond_the_spare_cores_is_partial)
{
	KT_ASSERT(!layout.partial);
	KT_ASSERT(one_case(kt, 1));
	KT_ASSERT(all_cores_back());
}

INVASIVE_CASE(retreat_outside_the_claim_is_an_error, 2)
INVASIVE_CASE(infect_an_empty_claim_is_an_error, 3)
INVASIVE_CASE(a_faulting_member_is_reported_to_the_owner, 5)
INVASIVE_CASE(ilets_share_the_owners_memory_and_isolated_members_do_not, 8)
INVASIVE_CASE(an_owner_that_ends_gives_its_claim_back, 6)

/* One owner in every domain invades anywhere at once, more than its domain has spare. */
KTEST_STANDALONE(invasive, concurrent_invades_from_every_domain_complete)
{
	KT_ASSERT(layout.ndomains >= 2);
	uint16_t owners[MOSAIC_MAX_HARTS];
	unsigned n = 0;
	for (unsigned d = 0; d < layout.ndomains; d++) {
		int c = pico_of(d);
		if (c >= 0)
			owners[n++] = (uint16_t)c;
	}
	KT_ASSERT(n >= 2);
	unsigned want = (unsigned)(alloc_machine_cores() - n) / n + 2; /* together more than there is */
	for (unsigned round = 0; round < 3; round++)
		KT_ASSERT(run_case(kt, owners, n, 4 + 100 * want));
	KT_ASSERT(all_cores_back());
	kprintf("ktest:   %u owners in %u domains, each asking for %u cores anywhere, 3 rounds\n", n,
		layout.ndomains, want);
}
