/*
 * Secondary-hart bring-up. The boot hart gives each hart a stack from the page
 * allocator and starts it at secondary_entry with its struct hart as the SBI
 * opaque value; the hart then fills its own check-in slot. The boot hart trusts
 * nothing but those slots: a hart is online only if its slot holds its id.
 */
#include "kernel/core/smp.h"
#include "kernel/core/hart.h"
#include "kernel/core/platform.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/stack_guard.h"
#include "kernel/console/console.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/shell.h"
#include "arch/riscv/sbi.h"
#include "arch/riscv/trap.h"
#include "arch/riscv/csr.h"
#include "drivers/timer.h"

uint64_t boot_entry_time, bringup_done_time;
static volatile uint32_t harts_checked_in;
static uint32_t harts_expected;

/* Test hook: this hart id parks before checking in, to exercise the timeout path. */
static uint64_t fail_hart = UINT64_MAX;
BOOTARG_U64("fail_hart", fail_hart, 0, 4095, "test hook: this hart id stays silent at bring-up");

/* Test hook: this hart id is started at _start, as the firmware sometimes does by itself, so
 * that it turns up as a stray and must be adopted (see adopt_started_strays). */
static uint64_t stray_hart = UINT64_MAX;
BOOTARG_U64("stray_hart", stray_hart, 0, 4095, "test hook: this hart id is started at the kernel's entry, as a stray");

extern char secondary_entry[], _start[];

void hart_secondary_main(struct hart *h)
{
	trap_init_hart();
	timer_init_hart();
	if (h->hartid == fail_hart)
		hart_park();
	h->online_time = timer_now();
	h->checkin = HART_CHECKIN_MAGIC | h->hartid;
	__atomic_store_n(&h->state, HART_ONLINE, __ATOMIC_RELEASE);
	irq_enable();
	/* every check-in wakes the boot hart, which re-counts: no hart needs to know the total */
	__atomic_add_fetch(&harts_checked_in, 1, __ATOMIC_ACQ_REL);
	ipi_send(boot_cpu, IPI_WAKE);
	hart_idle_loop();
}

/* The boot claim and the check-in of harts the firmware released into _start after the
 * boot hart (arch/riscv/entry.S). In .data, so that the boot hart's clearing of the BSS
 * does not wipe a check-in; written before the BSS is cleared. */
uint32_t boot_claim __attribute__((section(".data")));
uint64_t boot_strays[MOSAIC_MAX_HARTS] __attribute__((section(".data")));

/* hart_start said "already available": if the hart is a stray parked in entry.S, hand
 * it its struct hart (it may still be on its way there: wait up to 100 ms for it). */
static bool adopt_stray(struct hart *h)
{
	if (h->hartid >= MOSAIC_MAX_HARTS)
		return false;
	for (unsigned tries = 0; __atomic_load_n(&boot_strays[h->hartid], __ATOMIC_ACQUIRE) != 1; tries++) {
		if (tries == 1000)
			return false;
		timer_sleep_us(100);
	}
	kprintf("mosaic: hart %u was also released into the kernel's entry by the firmware; starting it from there\n",
		h->hartid);
	__atomic_store_n(&boot_strays[h->hartid], (uint64_t)h, __ATOMIC_RELEASE);
	return true;
}

static void start_one(unsigned cpu)
{
	struct hart *h = &harts[cpu];
	void *stack = page_alloc(KSTACK_PAGES);
	if (!stack) {
		h->state = HART_FAILED;
		kprintf("mosaic: hart %u not started: no memory for its stack\n", h->hartid);
		return;
	}
	h->kstack_base = stack;
	stack_guard_set(stack);
	h->kstack_top = (uint64_t)stack + KSTACK_SIZE;
	h->state = HART_STARTING;
	fence();
	uint64_t entry = h->hartid == stray_hart ? (uint64_t)_start : (uint64_t)secondary_entry;
	struct sbiret r = sbi_hart_start(h->hartid, entry, (uint64_t)h);
	if (r.error == SBI_ERR_ALREADY_AVAILABLE && adopt_stray(h))
		r.error = SBI_SUCCESS;
	if (r.error != SBI_SUCCESS) {
		h->state = HART_FAILED;
		h->start_error = (int)r.error;
		kprintf("mosaic: hart %u failed to start: SBI error %ld (%s)\n", h->hartid, r.error,
			sbi_strerror(r.error));
		return;
	}
	harts_expected++;
}

/*
 * A hart whose hart_start succeeded can still turn up at _start instead of secondary_entry:
 * OpenSBI 1.1 marks the hart "start pending" before it stores the start address, so a hart
 * that wakes in between leaves for the firmware's default next stage, the kernel's entry.
 * There it checks in as a stray (entry.S); hand it its struct hart as adopt_stray does.
 */
static void adopt_started_strays(void)
{
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		struct hart *h = &harts[cpu];
		if (cpu == boot_cpu || h->hartid >= MOSAIC_MAX_HARTS ||
		    __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != HART_STARTING ||
		    __atomic_load_n(&boot_strays[h->hartid], __ATOMIC_ACQUIRE) != 1)
			continue;
		kprintf("mosaic: hart %u reached the kernel's entry instead of its start address; starting it from there\n",
			h->hartid);
		__atomic_store_n(&boot_strays[h->hartid], (uint64_t)h, __ATOMIC_RELEASE);
	}
}

unsigned smp_bring_up(uint64_t timeout_ms)
{
	harts_expected = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		if (cpu != boot_cpu)
			start_one(cpu);
	uint64_t deadline = timer_now() + timer_us_to_ticks(timeout_ms * 1000);
	/* a stray cannot wake us (nothing is set up for it): look for strays every millisecond */
	while (__atomic_load_n(&harts_checked_in, __ATOMIC_ACQUIRE) < harts_expected && timer_now() < deadline) {
		adopt_started_strays();
		uint64_t look = timer_now() + timer_us_to_ticks(1000);
		WAIT_UNTIL(__atomic_load_n(&harts_checked_in, __ATOMIC_ACQUIRE) >= harts_expected,
			   look < deadline ? look : deadline);
	}
	bringup_done_time = timer_now();

	unsigned online = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		struct hart *h = &harts[cpu];
		if (h->checkin == (HART_CHECKIN_MAGIC | h->hartid)) {
			online++;
			continue;
		}
		if (cpu != boot_cpu && h->state != HART_FAILED) { /* started, but silent */
			h->state = HART_FAILED;
			kprintf("mosaic: hart %u did not come online within %lu ms\n", h->hartid, timeout_ms);
		}
	}
	if (plat.dt_harts > MOSAIC_MAX_HARTS)
		kprintf("mosaic: %u harts from hart %u on not started: Mosaic manages at most %d (OpenSBI 1.1 limit)\n",
			plat.dt_harts - MOSAIC_MAX_HARTS, plat.dt_hartid_beyond_max, MOSAIC_MAX_HARTS);
	return online;
}

void smp_print_wakeups(void)
{
	uint64_t wfis = 0, lock_sleeps = 0, timer_irqs = 0, ipis = 0;
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		wfis += harts[cpu].wfi_count;
		lock_sleeps += harts[cpu].lock_sleeps;
		timer_irqs += harts[cpu].timer_irqs;
		ipis += harts[cpu].ipis_received;
	}
	kprintf("harts: WFIs=%lu (asleep on a lock %lu) timer interrupts=%lu IPIs=%lu\n", wfis, lock_sleeps, timer_irqs, ipis);
}

SHELL_CMD_NOWAIT(harts, "harts", "list every hart: state, check-in time, interrupts taken")
{
	if (argc != 1)
		return SHELL_USAGE;
	kprintf(" cpu hartid state     online_us    ipis  timer   ext     wfi  timer_src\n");
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		struct hart *h = &harts[cpu];
		kprintf("%4u %6u %-9s %9lu %7lu %6lu %5lu %7lu  %s%s\n", cpu, h->hartid, hart_state_name(h->state),
			h->online_time >= boot_entry_time ? timer_ticks_to_us(h->online_time - boot_entry_time) : 0,
			h->ipis_received, h->timer_irqs, h->ext_irqs, h->wfi_count, plat.sstc[cpu] ? "sstc" : "sbi",
			cpu == boot_cpu ? "  (boot)" : "");
	}
	return 0;
}
