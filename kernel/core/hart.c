/*
 * Per-hart data, inter-hart interrupts and remote calls. This is the only
 * shared-memory channel between harts in the kernel core; the NoC and the
 * protocols above it talk by messages.
 */
#include "kernel/core/hart.h"
#include "lib/bits.h"
#include "kernel/core/platform.h"
#include "kernel/core/panic.h"
#include "arch/riscv/csr.h"
#include "arch/riscv/sbi.h"
#include "drivers/timer.h"
#include "kernel/core/bootargs.h"
#include "kernel/domain/background.h"
#include "kernel/time/vtime.h"

struct hart harts[MOSAIC_MAX_HARTS];
unsigned hart_count;
unsigned boot_cpu;

struct hart *hart_by_hartid(uint32_t hartid)
{
	int cpu = platform_cpu_of_hartid(hartid);
	return cpu < 0 ? 0 : &harts[cpu];
}

const char *hart_state_name(int state)
{
	switch (state) {
	case HART_ABSENT: return "absent";
	case HART_STARTING: return "starting";
	case HART_ONLINE: return "online";
	case HART_BUSY: return "busy";
	case HART_FAILED: return "failed";
	case HART_STOPPED: return "stopped";
	default: return "?";
	}
}

static bool can_receive_ipi(const struct hart *h)
{
	return h->state == HART_ONLINE || h->state == HART_BUSY || h->state == HART_STARTING;
}

/* Force IPIs through SBI even where the ACLINT SSWI device exists (tests both paths). */
static uint64_t ipi_force_sbi;
BOOTARG_U64("ipi_sbi", ipi_force_sbi, 0, 1, "1: send IPIs through SBI even when the ACLINT SSWI device exists");

/* Raises the S-mode software interrupt directly when the platform has ACLINT SSWI:
 * one store instead of an SBI call and a machine-mode interrupt on the target. */
static bool ipi_direct(const struct hart *h)
{
	if (!plat.sswi_base || ipi_force_sbi)
		return false;
	*(volatile uint32_t *)(plat.sswi_base + 4 * (uint64_t)plat.sswi_index[h->cpu]) = 1;
	return true;
}

const char *ipi_method(void) { return plat.sswi_base && !ipi_force_sbi ? "aclint-sswi" : "sbi"; }

void ipi_send(unsigned cpu, uint32_t reason)
{
	struct hart *h = &harts[cpu];
	__atomic_fetch_or(&h->ipi_pending, reason, __ATOMIC_RELEASE);
	if (ipi_direct(h))
		return;
	struct sbiret r = sbi_send_ipi(1UL << (h->hartid % 64), h->hartid / 64 * 64);
	ASSERT(r.error == SBI_SUCCESS);
}

/*
 * SBI's send_ipi takes a 64-bit mask relative to a base hart id, so a broadcast
 * to more than 64 harts is one call per 64-id window that holds a target.
 */
void ipi_broadcast(uint32_t reason)
{
	unsigned self = this_hart() ? this_cpu() : ~0u;
	uint64_t mask = 0, base = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		struct hart *h = &harts[cpu];
		if (cpu == self || !can_receive_ipi(h))
			continue;
		if (mask && h->hartid / 64 * 64 != base) {
			sbi_send_ipi(mask, base);
			mask = 0;
		}
		__atomic_fetch_or(&h->ipi_pending, reason, __ATOMIC_RELEASE);
		if (ipi_direct(h))
			continue;
		base = h->hartid / 64 * 64;
		mask |= 1UL << (h->hartid - base);
	}
	if (mask)
		sbi_send_ipi(mask, base);
}

static void answer_pings(struct hart *me)
{
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++) {
		uint64_t req = __atomic_exchange_n(&me->ping_request[w], 0, __ATOMIC_ACQ_REL);
		for (unsigned b = 0; req; b++, req >>= 1) {
			if (!(req & 1))
				continue;
			unsigned from = w * 64 + b;
			__atomic_fetch_or(&me->ping_seen[w], 1UL << b, __ATOMIC_RELEASE);
			/* IPIs coalesce, so the count travels in memory and the IPI only wakes the pinger */
			__atomic_fetch_add(&harts[from].pongs, 1, __ATOMIC_RELEASE);
			ipi_send(from, IPI_PONG);
		}
	}
}

bool ipi_handled_after_wfi;

void ipi_handle(void)
{
	struct hart *me = this_hart();
	uint32_t reasons = __atomic_exchange_n(&me->ipi_pending, 0, __ATOMIC_ACQ_REL);
	me->ipis_received++;
	if (reasons & IPI_STOP)
		hart_park();
	if (reasons & IPI_PING)
		answer_pings(me);
	/* IPI_PONG, IPI_CALL and IPI_WAKE only end a WFI: the waiter looks at the state it waits for */
}

bool hart_call(unsigned cpu, hart_fn fn, void *arg)
{
	if (cpu >= hart_count || cpu == this_cpu())
		return false;
	struct hart *h = &harts[cpu];
	if (h->state != HART_ONLINE)
		return false;
	hart_fn expected = 0;
	if (!__atomic_compare_exchange_n(&h->call_fn, &expected, fn, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	h->call_arg = arg;
	h->call_from = this_cpu();
	h->call_vt = vtime_stamp(); /* the call reaches the callee no earlier than this */
	h->call_done = 0;
	__atomic_store_n(&h->state, HART_BUSY, __ATOMIC_RELEASE);
	vtime_note_event(cpu, h->call_vt); /* after the call is visible: see kthread_create */
	vtime_stamp_done();
	ipi_send(cpu, IPI_CALL);
	return true;
}

static bool call_finished(void *arg)
{
	return __atomic_load_n(&((struct hart *)arg)->call_fn, __ATOMIC_ACQUIRE) == 0;
}

static bool call_arrived(void *arg)
{
	struct hart *me = arg;
	return __atomic_load_n(&me->call_fn, __ATOMIC_ACQUIRE) != 0 && me->state == HART_BUSY;
}

void hart_call_wait(unsigned cpu)
{
	core_wait(call_finished, &harts[cpu]);
	vtime_advance_to(harts[cpu].call_end_vt); /* we learn of its end no earlier than it ended */
}

struct call_or {
	struct hart *callee;
	bool (*stop)(void *);
	void *arg;
};

static bool call_finished_or(void *arg)
{
	const struct call_or *w = arg;
	return call_finished(w->callee) || w->stop(w->arg);
}

bool hart_call_wait_or(unsigned cpu, bool (*stop)(void *), void *arg)
{
	struct call_or w = {.callee = &harts[cpu], .stop = stop, .arg = arg};
	core_wait(call_finished_or, &w);
	if (!call_finished(w.callee))
		return false;
	vtime_advance_to(harts[cpu].call_end_vt);
	return true;
}

bool hart_call_pending(void)
{
	return call_arrived(this_hart());
}

static void wake_watcher(unsigned cpu, uint64_t unused)
{
	(void)unused;
	ipi_send(cpu, IPI_WAKE);
}

/* Calls fn(cpu, arg) for every core whose bit is set in mask (the watchers of a call's end). */
static void for_each_watcher(const uint64_t *mask, void (*fn)(unsigned, uint64_t), uint64_t arg)
{
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		for (uint64_t bits = mask[w]; bits; bits &= bits - 1)
			fn(w * 64 + lowest_bit(bits), arg);
}

bool hart_run_call(void)
{
	struct hart *me = this_hart();
	hart_fn fn = __atomic_load_n(&me->call_fn, __ATOMIC_ACQUIRE);
	if (!fn || me->state != HART_BUSY)
		return false;
	vtime_advance_to(me->call_vt);
	fn(me->call_arg);
	uint64_t end = vtime_stamp(); /* the caller learns of the end no earlier: a hand-over back */
	unsigned caller = me->call_from;
	me->call_end_vt = end;
	__atomic_store_n(&me->calls_ended, me->calls_ended + 1, __ATOMIC_RELEASE); /* only this core writes it */
	me->call_done = 1;
	__atomic_store_n(&me->state, HART_ONLINE, __ATOMIC_RELEASE);
	__atomic_store_n(&me->call_fn, (hart_fn)0, __ATOMIC_RELEASE);
	fence(); /* the end is visible before the watchers are read: see hart_call_watch_end */
	uint64_t watchers[MOSAIC_MAX_HARTS / 64];
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		watchers[w] = __atomic_load_n(&me->call_watchers[w], __ATOMIC_ACQUIRE);
	watchers[caller / 64] &= ~(1UL << (caller % 64)); /* the caller is woken as such */
	vtime_note_event(caller, end); /* after the end is visible, as for the call */
	for_each_watcher(watchers, vtime_note_event, end);
	vtime_stamp_done();
	ipi_send(caller, IPI_WAKE); /* the caller may sleep in hart_call_wait */
	for_each_watcher(watchers, wake_watcher, 0);
	return true;
}

/* A consistent pair: fn ran with calls_ended unchanged around the look, so the call seen is
 * the one whose end makes calls_ended reach the token. */
uint64_t hart_call_token(unsigned cpu, hart_fn fn)
{
	if (cpu >= hart_count)
		return 0;
	struct hart *h = &harts[cpu];
	for (;;) {
		uint64_t ended = __atomic_load_n(&h->calls_ended, __ATOMIC_ACQUIRE);
		bool runs = __atomic_load_n(&h->call_fn, __ATOMIC_ACQUIRE) == fn;
		if (__atomic_load_n(&h->calls_ended, __ATOMIC_ACQUIRE) == ended)
			return runs ? ended + 1 : 0;
	}
}

/* The watcher sets its bit before it looks at the count of ended calls, and the callee counts
 * the end before it reads the bits, each with a full fence between: either the callee sees the
 * bit and notes the watcher, or the watcher sees the end. The bits stay set until their watcher
 * has seen its call end (the callee only reads them), so a wake-up for an earlier call's end
 * loses no watcher. */
struct call_watch {
	struct hart *callee;
	uint64_t token;
};

static bool watched_call_ended(void *arg)
{
	const struct call_watch *w = arg;
	return __atomic_load_n(&w->callee->calls_ended, __ATOMIC_ACQUIRE) >= w->token;
}

void hart_call_watch_end(unsigned cpu, uint64_t token)
{
	struct call_watch w = {.callee = &harts[cpu], .token = token};
	unsigned me = this_cpu();
	volatile uint64_t *word = &w.callee->call_watchers[me / 64];
	__atomic_fetch_or(word, 1UL << (me % 64), __ATOMIC_SEQ_CST);
	fence();
	core_sleep_for_handover(watched_call_ended, &w);
	__atomic_fetch_and(word, ~(1UL << (me % 64)), __ATOMIC_SEQ_CST);
	vtime_advance_to(w.callee->call_end_vt); /* we learn of its end no earlier than it ended */
}

void hart_idle_loop(void)
{
	struct hart *me = this_hart();
	for (;;)
		if (!hart_run_call())
			core_wait(call_arrived, me); /* a master serves its domain meanwhile */
}

void hart_park(void)
{
	irq_disable();
	struct hart *me = this_hart();
	if (me)
		me->state = HART_STOPPED;
	for (;;)
		wfi();
}
