/* The panic path: report, backtrace, stop the machine with a failure status. */
#include "kernel/core/panic.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/core/ksyms.h"
#include "drivers/poweroff.h"
#include "drivers/uart.h"
#include "kernel/core/platform.h"
#include "arch/riscv/csr.h"
#include <stdarg.h>

static volatile uint32_t panicking;
static volatile int panicking_cpu = -1;
static uintptr_t corrupt_tp; /* the first panicking hart's tp when it pointed at no slot */

/*
 * The panicking hart's slot, or NULL when tp points at no slot of harts[] (0 before the
 * boot hart has per-hart data, anything else when tp was corrupted). The panic path reads
 * tp only through this: a panic that faulted again on a corrupt tp recursed until it had
 * eaten through its own kernel stack into the next hart's, and the report then named that
 * innocent neighbour.
 */
static struct hart *panic_hart(void)
{
	struct hart *h = this_hart();
	return hart_is_slot(h) ? h : 0;
}

static bool on_this_stack(uint64_t p)
{
	struct hart *h = panic_hart();
	if (!h || !h->kstack_base)
		return p != 0 && (p & 7) == 0;
	return p > (uint64_t)h->kstack_base && p <= h->kstack_top && (p & 7) == 0;
}

static void print_frame(int n, uint64_t pc)
{
	uint64_t off = 0;
	const char *name = ksym_lookup(pc, &off);
	kprintf("  #%d %016lx %s+0x%lx\n", n, pc, name ? name : "??", off);
}

static bool same_function(uint64_t a, uint64_t b)
{
	const char *fa = ksym_lookup(a, 0);
	return fa && fa == ksym_lookup(b, 0);
}

/*
 * Walks the frame-pointer chain (GCC, -fno-omit-frame-pointer: the return address at
 * fp-8, the caller's fp at fp-16). When called from a trap, ra may name a caller the
 * chain misses: a leaf function saves only the caller's fp (at fp-8), and a function
 * that faults in its prologue has not set up its frame yet.
 */
void backtrace_print(uint64_t pc, uint64_t fp, uint64_t ra)
{
	kprintf("backtrace:\n");
	int n = 0;
	print_frame(n++, pc);
	if (ra && ksym_lookup(ra, 0) && !same_function(ra, pc)) {
		uint64_t saved = on_this_stack(fp) ? *(uint64_t *)(fp - 8) : 0;
		if (saved != ra) {
			print_frame(n++, ra - 4);
			if (on_this_stack(saved) && saved > fp)
				fp = saved; /* leaf frame: step to the caller's */
		}
	}
	while (n < 32 && on_this_stack(fp)) {
		uint64_t ret = *(uint64_t *)(fp - 8);
		uint64_t prev = *(uint64_t *)(fp - 16);
		if (!ksym_lookup(ret, 0))
			break;
		print_frame(n++, ret - 4);
		if (prev <= fp)
			break;
		fp = prev;
	}
}

/* Only the first panicking hart reports; the others park so the report stays readable. */
static void panic_enter(void)
{
	irq_disable();
	struct hart *h = panic_hart();
	uintptr_t bad_tp = h ? 0 : (uintptr_t)this_hart();
	if (bad_tp) /* the rest of the kernel (ipi_broadcast, console) trusts a non-zero tp */
		__asm__ volatile("li tp, 0" ::: "memory");
	int me = h ? (int)h->cpu : -2;
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_ACQ_REL)) {
		if (panicking_cpu != me) {
			if (h)
				hart_park();
			for (;;)
				wfi(); /* no slot to mark as stopped */
		}
		/* the panic path itself faulted: say so and stop, without trusting anything else */
		static const char msg[] = "\nmosaic: nested panic; exiting\n";
		for (const char *p = msg; *p; p++)
			uart_putc(*p);
		machine_exit(EXIT_PANIC);
	}
	panicking_cpu = me;
	corrupt_tp = bad_tp;
	console_force();
}

static void panic_finish(void) __attribute__((noreturn));
static void panic_finish(void)
{
	unsigned stopped = 0, others = 0;
	if (hart_count > 1) {
		ipi_broadcast(IPI_STOP);
		/* give them a moment to park, then count: up to 1 s of machine time, which the wait
		 * uses only when a hart is slow to come (100 ms was too short on a loaded host, where
		 * QEMU's one TCG thread may not run a stopping hart for that long) */
		uint64_t until = read_time() + plat.timebase_hz;
		for (;;) {
			stopped = others = 0;
			for (unsigned cpu = 0; cpu < hart_count; cpu++) {
				if (&harts[cpu] == this_hart() || harts[cpu].state == HART_ABSENT ||
				    harts[cpu].state == HART_FAILED)
					continue;
				others++;
				stopped += harts[cpu].state == HART_STOPPED;
			}
			if (stopped == others || read_time() >= until)
				break;
		}
	}
	if (corrupt_tp) /* this hart cannot tell which slot is its own: it counted itself */
		kprintf("mosaic: panic: %u of %u harts stopped (this one included, still running); exiting with status %d\n",
			stopped, others, EXIT_PANIC);
	else
		kprintf("mosaic: panic: %u of %u other harts stopped; exiting with status %d\n", stopped, others,
			EXIT_PANIC);
	machine_exit(EXIT_PANIC);
}

static void print_whoami(void)
{
	struct hart *h = panic_hart();
	if (h)
		kprintf("\nPANIC on hart %u (cpu %u): ", h->hartid, h->cpu);
	else if (corrupt_tp)
		kprintf("\nPANIC on a hart whose tp is corrupt (tp %p, not a slot of harts[]): ", (void *)corrupt_tp);
	else
		kprintf("\nPANIC on the boot hart before per-hart data: ");
}

void panic(const char *fmt, ...)
{
	panic_enter();
	print_whoami();
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
	kprintf("\n");
	/* start at panic's caller: the call site, then the caller's own frame chain */
	uint64_t fp = (uint64_t)read_fp();
	backtrace_print((uint64_t)__builtin_return_address(0) - 4, *(uint64_t *)(fp - 16), 0);
	panic_finish();
}

static const char *const reg_names[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

void panic_trap(struct trap_frame *f)
{
	panic_enter();
	print_whoami();
	kprintf("unexpected trap: %s\n", trap_cause_name(f->scause));
	uint64_t off = 0;
	const char *fn = ksym_lookup(f->sepc, &off);
	kprintf("  cause %016lx  sepc %016lx (%s+0x%lx)  stval %016lx  sstatus %016lx\n", f->scause, f->sepc,
		fn ? fn : "??", off, f->stval, f->sstatus);
	f->regs[0] = 0; /* x0 is not saved by the trap entry */
	for (int i = 0; i < 32; i += 4)
		kprintf("  %-4s %016lx  %-4s %016lx  %-4s %016lx  %-4s %016lx\n", reg_names[i], f->regs[i],
			reg_names[i + 1], f->regs[i + 1], reg_names[i + 2], f->regs[i + 2], reg_names[i + 3],
			f->regs[i + 3]);
	backtrace_print(f->sepc, f->regs[REG_S0], f->regs[REG_RA]);
	panic_finish();
}
