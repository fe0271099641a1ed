/*
 * ktest suite "vclock": the vclock plugin's per-hart instruction counts are exact,
 * and traps, faults, WFI, device accesses and firmware calls are counted by the
 * rules of docs/time.md. Each measurement runs a probe of tests/ktest/vclock_probe.S
 * and compares with the count derived from the probe's own labels. Without the
 * plugin (VTIME=0) there is nothing to measure and each test says so and passes;
 * tests/test_vclock.py makes sure that never happens on a default boot.
 */
#include "kernel/core/ktest.h"
#include "kernel/time/vclock.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "tests/ktest/kt_util.h"
#include "kernel/core/platform.h"
#include "arch/riscv/csr.h"
#include "arch/riscv/mmu.h"
#include "drivers/timer.h"

uint64_t vclock_probe_loop(volatile uint64_t *slot, uint64_t iterations);
uint64_t vclock_probe_load_fault(volatile uint64_t *slot, uint64_t addr, uint64_t *scause);
uint64_t vclock_probe_store_fault(volatile uint64_t *slot, uint64_t addr, uint64_t *scause);
uint64_t vclock_probe_ebreak(volatile uint64_t *slot, uint64_t unused, uint64_t *scause);
uint64_t vclock_probe_wfi(volatile uint64_t *slot);
uint64_t vclock_probe_mid(volatile uint64_t *slot);
uint64_t vclock_probe_device(volatile uint64_t *slot, uint64_t load_reg, uint64_t store_reg);
uint64_t vclock_probe_ecall(volatile uint64_t *slot);
extern char vclock_probe_loop_first[], vclock_probe_loop_body[], vclock_probe_loop_end[];
extern char vclock_probe_load_fault_first[], vclock_probe_load_fault_insn[];
extern char vclock_probe_store_fault_first[], vclock_probe_store_fault_insn[];
extern char vclock_probe_ebreak_first[], vclock_probe_ebreak_insn[];
extern char vclock_probe_wfi_first[], vclock_probe_wfi_end[];
extern char vclock_probe_mid_first[], vclock_probe_mid_end[];
extern char vclock_probe_device_first[], vclock_probe_device_end[];
extern char vclock_probe_ecall_first[], vclock_probe_ecall_insn[];

#define SCAUSE_BREAKPOINT 3
#define SCAUSE_LOAD_PAGE_FAULT 13
#define SCAUSE_STORE_PAGE_FAULT 15

/* Instructions in [from, to): the probes are uncompressed, 4 bytes each. */
static uint64_t insns(const char *from, const char *to) { return (uint64_t)(to - from) / 4; }

/* What the loop probe must count: the instructions before the loop, the loop, the second marker. */
static uint64_t loop_expected(uint64_t n)
{
	return insns(vclock_probe_loop_first, vclock_probe_loop_body) +
	       n * insns(vclock_probe_loop_body, vclock_probe_loop_end) + 1;
}

/* A trap probe: up to and including the trapping instruction, then the marker it lands on. */
static uint64_t trap_expected(const char *first, const char *insn) { return insns(first, insn) + 1 + 1; }

#define VCLOCK_REQUIRE() KT_SKIP_UNLESS(vclock_present, "vclock plugin absent: nothing measured")

/* The loop probe with interrupts off (an interrupt's handler would count too, by rule). */
static uint64_t loop_quiet(uint64_t n)
{
	uint64_t s = irq_save();
	uint64_t d = vclock_probe_loop(vclock_slot(), n);
	irq_restore(s);
	return d;
}

KTEST(vclock, plugin_answers)
{
	VCLOCK_REQUIRE();
	uint64_t a = vclock_instret(), b = vclock_instret();
	KT_ASSERT(a != VCLOCK_SENTINEL && b > a);
	KT_ASSERT_EQ(vclock_table.magic, VCLOCK_MAGIC);
}

KTEST(vclock, loop_exact_on_one_hart)
{
	VCLOCK_REQUIRE();
	static const uint64_t ns[] = {1, 1000, 123457};
	for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		uint64_t got = loop_quiet(ns[i]);
		kprintf("ktest:   vclock loop n=%lu counted %lu expected %lu\n", ns[i], got, loop_expected(ns[i]));
		KT_ASSERT_EQ(got, loop_expected(ns[i]));
	}
}

/* A read marker in the middle of a block: with count=blocks the plugin added the whole block at
 * its start and must take off what follows the marker (vclock/vclock.c, on_read_in_block). */
KTEST(vclock, marker_in_the_middle_of_a_block)
{
	VCLOCK_REQUIRE();
	uint64_t s = irq_save();
	uint64_t got = vclock_probe_mid(vclock_slot());
	irq_restore(s);
	uint64_t want = insns(vclock_probe_mid_first, vclock_probe_mid_end) + 1;
	kprintf("ktest:   vclock marker mid-block: counted %lu expected %lu\n", got, want);
	KT_ASSERT_EQ(got, want);
}

/* Each core's loop length differs with its id, so a count taken from another core shows. */
static uint64_t every_got[MOSAIC_MAX_HARTS];
static uint64_t every_n(unsigned cpu) { return 20000 + 7919 * (uint64_t)cpu; }
static void every_loop(void *arg)
{
	(void)arg;
	every_got[this_cpu()] = loop_quiet(every_n(this_cpu()));
}

KTEST(vclock, loops_on_every_hart_at_once)
{
	VCLOCK_REQUIRE();
	KT_ASSERT(ktest_run_on_all(every_loop, 0));
	for (unsigned cpu = 0; cpu < hart_count; cpu++)
		KT_ASSERT_EQ(every_got[cpu], loop_expected(every_n(cpu)));
	kprintf("ktest:   vclock %u harts ran loops of %lu..%lu iterations at once, each counted exactly\n",
		hart_count, every_n(0), every_n(hart_count - 1));
}

/* Two cores, very different amounts of work, at the same time. */
static uint64_t pair_n[2] = {5000, 300000}, pair_got[2];
static uint16_t pair_cores[2];
static void pair_loop(void *arg)
{
	(void)arg;
	unsigned i = this_cpu() == pair_cores[0] ? 0 : 1;
	pair_got[i] = loop_quiet(pair_n[i]);
}

KTEST(vclock, two_cores_each_count_their_own)
{
	VCLOCK_REQUIRE();
	if (hart_count < 2) {
		kprintf("ktest:   vclock needs two harts: nothing measured\n");
		return;
	}
	pair_cores[0] = (uint16_t)this_cpu();
	pair_cores[1] = (uint16_t)(this_cpu() == hart_count - 1 ? 0 : hart_count - 1);
	KT_ASSERT(ktest_run_on(pair_cores, 2, pair_loop, 0));
	kprintf("ktest:   vclock cpu %u counted %lu (expected %lu), cpu %u counted %lu (expected %lu)\n",
		pair_cores[0], pair_got[0], loop_expected(pair_n[0]), pair_cores[1], pair_got[1],
		loop_expected(pair_n[1]));
	KT_ASSERT_EQ(pair_got[0], loop_expected(pair_n[0]));
	KT_ASSERT_EQ(pair_got[1], loop_expected(pair_n[1]));
}

/* A page fault in the middle of a block: S-mode with a task's address space active
 * and nothing mapped at USER_BASE. */
static void fault_case(struct ktest_ctx *kt, bool store)
{
	struct address_space as;
	uint64_t cause = 0, got;
	KT_ASSERT(as_create(&as));
	uint64_t s = irq_save();
	as_activate(&as);
	if (store)
		got = vclock_probe_store_fault(vclock_slot(), USER_BASE, &cause);
	else
		got = vclock_probe_load_fault(vclock_slot(), USER_BASE, &cause);
	as_activate(0);
	irq_restore(s);
	as_destroy(&as);
	uint64_t want = store ? trap_expected(vclock_probe_store_fault_first, vclock_probe_store_fault_insn)
			      : trap_expected(vclock_probe_load_fault_first, vclock_probe_load_fault_insn);
	kprintf("ktest:   vclock %s page fault: counted %lu expected %lu\n", store ? "store" : "load", got, want);
	KT_ASSERT_EQ(cause, store ? SCAUSE_STORE_PAGE_FAULT : SCAUSE_LOAD_PAGE_FAULT);
	KT_ASSERT_EQ(got, want);
}

KTEST(vclock, faulting_load_counts_once)
{
	VCLOCK_REQUIRE();
	fault_case(kt, false);
}

KTEST(vclock, faulting_store_counts_once)
{
	VCLOCK_REQUIRE();
	fault_case(kt, true);
}

KTEST(vclock, ebreak_trap_counts_once)
{
	VCLOCK_REQUIRE();
	uint64_t cause = 0;
	uint64_t s = irq_save();
	uint64_t got = vclock_probe_ebreak(vclock_slot(), 0, &cause);
	irq_restore(s);
	uint64_t want = trap_expected(vclock_probe_ebreak_first, vclock_probe_ebreak_insn);
	kprintf("ktest:   vclock ebreak: counted %lu expected %lu\n", got, want);
	KT_ASSERT_EQ(cause, SCAUSE_BREAKPOINT);
	KT_ASSERT_EQ(got, want);
}

/* One WFI, asleep until `deadline` (or not at all when it has passed); interrupts off,
 * so the wake-up interrupt is only taken after the probe. */
static void wfi_case(struct ktest_ctx *kt, uint64_t sleep_us)
{
	uint64_t s = irq_save();
	uint64_t t0 = timer_now(), deadline = t0 + timer_us_to_ticks(sleep_us);
	timer_arm(deadline);
	uint64_t got = vclock_probe_wfi(vclock_slot());
	uint64_t t1 = timer_now();
	irq_restore(s);
	uint64_t want = insns(vclock_probe_wfi_first, vclock_probe_wfi_end) + 1;
	kprintf("ktest:   vclock WFI asleep %lu us: counted %lu expected %lu\n", timer_ticks_to_us(t1 - t0), got,
		want);
	KT_ASSERT(t1 >= deadline);
	KT_ASSERT_EQ(got, want);
}

KTEST(vclock, wfi_counts_once_however_long_it_sleeps)
{
	VCLOCK_REQUIRE();
	wfi_case(kt, 0);
	wfi_case(kt, 2000);
}

KTEST(vclock, device_accesses_count_once)
{
	VCLOCK_REQUIRE();
	/* ns16550a: the line status register (5) is read, the scratch register (7) written */
	uint64_t lsr = plat.uart_base + (5u << plat.uart_reg_shift), scr = plat.uart_base + (7u << plat.uart_reg_shift);
	uint64_t s = irq_save();
	uint64_t got = vclock_probe_device(vclock_slot(), lsr, scr);
	irq_restore(s);
	uint64_t want = insns(vclock_probe_device_first, vclock_probe_device_end) + 1;
	kprintf("ktest:   vclock device load and store mid-block: counted %lu expected %lu\n", got, want);
	KT_ASSERT_EQ(got, want);
}

KTEST(vclock, sbi_call_counts_the_firmware_too)
{
	VCLOCK_REQUIRE();
	uint64_t local = insns(vclock_probe_ecall_first, vclock_probe_ecall_insn) + 1 + 1;
	uint64_t s = irq_save();
	uint64_t a = vclock_probe_ecall(vclock_slot());
	uint64_t b = vclock_probe_ecall(vclock_slot());
	irq_restore(s);
	kprintf("ktest:   vclock SBI get_spec_version: counted %lu = %lu in the kernel + %lu in the firmware\n", a,
		local, a - local);
	KT_ASSERT(a > local);
	KT_ASSERT_EQ(a, b); /* the firmware takes the same path each time */
}
