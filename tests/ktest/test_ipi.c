/* ktest suite "ipi": every hart pings every other hart through SBI IPIs, and broadcasts cross 64-hart windows. */
#include "kernel/core/ktest.h"
#include "kernel/core/hart.h"
#include "tests/ktest/kt_util.h"
#include "kernel/console/console.h"
#include "drivers/timer.h"

#define PING_TIMEOUT_US 5000000

static volatile uint32_t ping_all_ok[MOSAIC_MAX_HARTS];

/* Runs on every hart: ping all others, then wait in WFI for all the pongs. */
static void ping_all(void *arg)
{
	(void)arg;
	struct hart *me = this_hart();
	for (unsigned to = 0; to < hart_count; to++) {
		if (to == me->cpu)
			continue;
		__atomic_fetch_or(&harts[to].ping_request[me->cpu / 64], 1UL << (me->cpu % 64), __ATOMIC_RELEASE);
		ipi_send(to, IPI_PING);
	}
	uint64_t deadline = timer_now() + timer_us_to_ticks(PING_TIMEOUT_US);
	ping_all_ok[me->cpu] = WAIT_UNTIL(__atomic_load_n(&me->pongs, __ATOMIC_ACQUIRE) >= hart_count - 1, deadline);
}

KTEST(ipi, every_hart_pings_every_other)
{
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		harts[cpu].pongs = 0;
		ping_all_ok[cpu] = 0;
		for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
			harts[cpu].ping_seen[w] = 0;
	}
	KT_ASSERT(kt_on_every_hart(ping_all));
	unsigned pairs = 0;
	for (unsigned to = 0; to < hart_count; to++) {
		KT_ASSERT(ping_all_ok[to]);
		KT_ASSERT_EQ(harts[to].pongs, hart_count - 1);
		for (unsigned from = 0; from < hart_count; from++) {
			bool seen = harts[to].ping_seen[from / 64] & (1UL << (from % 64));
			KT_ASSERT(seen == (from != to));
			pairs += seen;
		}
	}
	KT_ASSERT_EQ(pairs, hart_count * (hart_count - 1));
	kprintf("ktest:   %u pings answered among %u harts\n", pairs, hart_count);
}

KTEST(ipi, broadcast_reaches_every_hart)
{
	uint64_t before[MOSAIC_MAX_HARTS];
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		before[cpu] = harts[cpu].ipis_received;
	ipi_broadcast(IPI_WAKE);
	uint64_t deadline = timer_now() + timer_us_to_ticks(PING_TIMEOUT_US);
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		if (cpu == this_cpu())
			continue;
		/* ipis_received is the target's private counter: read it, never write it; nobody
		 * wakes us when it changes, so look every 100 us */
		while (*(volatile uint64_t *)&harts[cpu].ipis_received == before[cpu] && timer_now() < deadline)
			timer_sleep_us(100);
		KT_ASSERT(*(volatile uint64_t *)&harts[cpu].ipis_received > before[cpu]);
	}
}
