/* ktest suite "kcall": the kernel-call table, local calls, and calls forwarded to the domain masters. */
#include "kernel/core/ktest.h"
#include "kernel/kcall/kcall.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "drivers/noc/mesh.h"
#include "kernel/time/vtime.h"
#include "kernel/domain/background.h"
#include "lib/string.h"
#include "lib/format.h"
#include "kernel/console/console.h"

KTEST(kcall, table_is_complete_and_stable)
{
	/* the numbers are an ABI: spot-check them */
	KT_ASSERT_EQ(KC_EXIT, 0);
	KT_ASSERT_EQ(KC_WRITE, 1);
	KT_ASSERT_EQ(KC_SEND, 16);
	KT_ASSERT_EQ(KC_GROUP_INIT, 32);
	KT_ASSERT_EQ(KC_JOB_SPAWN, 48);
	for (unsigned nr = 0; nr < KC_COUNT; nr++)
		if (kcall_table[nr].name)
			KT_ASSERT(kcall_table[nr].side == KCALL_LOCAL || kcall_table[nr].side == KCALL_MASTER);
	KT_ASSERT(kcall_table[KC_WRITE].side == KCALL_MASTER);
	KT_ASSERT(kcall_table[KC_HEAP_GROW].side == KCALL_MASTER);
	KT_ASSERT(kcall_table[KC_CORE_ID].side == KCALL_LOCAL && kcall_table[KC_SEND].side == KCALL_LOCAL);
}

KTEST(kcall, local_calls_and_unknown_numbers)
{
	uint64_t a[6] = {0};
	KT_ASSERT_EQ(kcall(KC_CORE_ID, a, 0, 0), this_cpu());
	KT_ASSERT_EQ(kcall(KC_DOMAIN_ID, a, 0, 0), domain_of(this_cpu()));
	int64_t t0 = kcall(KC_TIME_NS, a, 0, 0);
	a[0] = 1000;
	KT_ASSERT_EQ(kcall(KC_SLEEP_US, a, 0, 0), 0);
	a[0] = 0;
	KT_ASSERT(kcall(KC_TIME_NS, a, 0, 0) >= t0 + 1000000);
	KT_ASSERT_EQ(kcall(KC_COUNT, a, 0, 0), -ENOSYS);
	KT_ASSERT_EQ(kcall(1000000, a, 0, 0), -ENOSYS);
	KT_ASSERT_EQ(kcall(12, a, 0, 0), -ENOSYS);           /* a gap in the table */
	KT_ASSERT_EQ(kcall(KC_JOB_SPAWN, a, 0, 0), -ENOSYS); /* user tasks only: no kernel handler */
	a[0] = 1ULL << 40;
	KT_ASSERT_EQ(kcall(KC_SLEEP_US, a, 0, 0), -EINVAL);
}

#define CALLS_PER_CORE 6

static volatile int64_t results[MOSAIC_MAX_HARTS];
static volatile uint32_t ready, go;
static volatile uint64_t ready_ns, go_ns; /* the clocks of the hand-overs (kernel/domain/background.h) */
static unsigned starter;                  /* the core that waits for ready and gives go */

static volatile uint64_t worst_wait[MOSAIC_MAX_HARTS];

/*
 * A forwarded call, noting how many calls its master served while this one waited,
 * its own included. The count ends at this call's own entry in the master's log,
 * not at the counter read after the reply: on a slow host the master serves more
 * calls before this core runs again, and those did not delay this one.
 */
static int64_t timed_call(unsigned nr, uint64_t *a, const void *data, uint32_t len)
{
	unsigned me = this_cpu(), m = domain_master(domain_of(me));
	uint64_t before = master_calls_served(m);
	int64_t r = kcall(nr, a, data, len);
	uint64_t end = master_calls_served(m), waited = end - before;
	for (uint64_t i = before; i < end; i++)
		if (master_served_caller(m, i) == me) {
			waited = i - before + 1;
			break;
		}
	if (waited > worst_wait[me])
		worst_wait[me] = waited;
	return r;
}

/* Every pico-kernel: CALLS_PER_CORE heap-grow calls, then one console write. */
static void caller(void *arg)
{
	(void)arg;
	unsigned me = this_cpu();
	uint64_t a[6] = {4096};
	/* all callers start together, so every one of them is waiting from the first call on; both
	 * handshakes are hand-overs, so that the waits are on the cores' clocks */
	if (me != starter) {
		core_hand_over_add(starter, &ready, &ready_ns);
		core_wait_for_flag(&go, 1, &go_ns);
	}
	worst_wait[me] = 0;
	int64_t first = timed_call(KC_HEAP_GROW, a, 0, 0), r = first;
	for (int i = 1; i < CALLS_PER_CORE && r > 0; i++) {
		r = timed_call(KC_HEAP_GROW, a, 0, 0);
		if (r != first + i * 4096)
			r = -1000 - i;
	}
	char line[48];
	int n = snprintf(line, sizeof line, "kcall-check from core %u\n", me);
	int64_t w = timed_call(KC_WRITE, a, line, (uint32_t)n);
	results[me] = r < 0 ? r : w != n ? -2000 : first > 0 ? 0 : -3000;
}

KTEST(kcall, every_pico_kernel_at_once_served_fairly)
{
	uint16_t picos[MOSAIC_MAX_HARTS];
	unsigned n = 0;
	for (unsigned c = 0; c < hart_count; c++)
		if (!is_master(c))
			picos[n++] = (uint16_t)c;
	if (n == 0) {
		kprintf("ktest:   (skipped: every hart is a master)\n");
		return;
	}
	uint64_t before[MOSAIC_MAX_HARTS];
	for (unsigned d = 0; d < layout.ndomains; d++)
		before[d] = master_calls_served(domain_master(d));
	ready = go = 0;
	ready_ns = go_ns = 0;
	starter = this_cpu();
	uint16_t others[MOSAIC_MAX_HARTS];
	unsigned nothers = 0;
	bool all_called = true;
	for (unsigned i = 0; i < n; i++)
		if (picos[i] != this_cpu()) {
			if (hart_call(picos[i], caller, 0))
				others[nothers++] = picos[i];
			else
				all_called = false; /* a busy core: those called go on and end, then the test fails */
		}
	bool self = !is_master(this_cpu());
	core_wait_for_flag(&ready, nothers, &ready_ns);
	core_hand_over_flag_to_many(others, nothers, &go, 1, &go_ns);
	if (self)
		caller(0);
	for (unsigned i = 0; i < nothers; i++)
		hart_call_wait(others[i]);
	KT_ASSERT(all_called);
	for (unsigned i = 0; i < n; i++)
		KT_ASSERT_EQ(results[picos[i]], 0);
	for (unsigned d = 0; d < layout.ndomains; d++) {
		unsigned m = domain_master(d), npico = layout.domains[d].ncores - 1;
		uint64_t got = master_calls_served(m) - before[d];
		KT_ASSERT_EQ(got, npico * (CALLS_PER_CORE + 1));
		KT_ASSERT(got <= KCALL_LOG);
		for (uint64_t i = before[d]; i < before[d] + got; i++) {
			unsigned c = master_served_caller(m, i);
			KT_ASSERT(domain_of(c) == d && c != m);
		}
		/* fair: while a call waits, its master serves at most two rounds of the domain's
		 * pico-kernels (a call still on the NoC when its turn passes waits for the next
		 * round), plus the one in service when it came */
		uint64_t worst = 0;
		for (unsigned c = 0; c < hart_count; c++)
			if (domain_of(c) == d && c != m && worst_wait[c] > worst)
				worst = worst_wait[c];
		if (worst > 2 * npico + 1)
			kprintf("ktest:   domain %u: a call waited for %lu services (%u pico-kernels)\n", d, worst, npico);
		KT_ASSERT(worst <= 2 * npico + 1);
		if (d == 0)
			kprintf("ktest:   domain 0: %u pico-kernels, %lu calls served, a call waited for at most %lu\n",
				npico, got, worst);
	}
}
