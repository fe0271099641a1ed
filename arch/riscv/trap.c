/* S-mode trap dispatch: interrupts go to their drivers, U-mode exceptions to the task code, any other exception is a panic. */
#include "arch/riscv/trap.h"
#include "arch/riscv/csr.h"
#include "kernel/core/hart.h"
#include "kernel/core/panic.h"
#include "kernel/core/stack_guard.h"
#include "drivers/timer.h"
#include "kernel/task/utask.h"

extern char trap_vector[];

/* entry.S builds and restores frames of FRAME_SIZE = 36 words: a field added here and not
 * there would make the kernel write past the frame, onto the trap stack's top word (tp). */
_Static_assert(sizeof(struct trap_frame) == 36 * 8, "struct trap_frame must match FRAME_SIZE in entry.S");
static void (*external_handler)(void);

void trap_init_hart(void)
{
	csr_write(stvec, (uint64_t)trap_vector);
	csr_write(sscratch, 0);
	csr_set(sie, SIE_SSIE | SIE_STIE | SIE_SEIE);
}

void trap_set_external_handler(void (*fn)(void)) { external_handler = fn; }

static const char *const exception_names[] = {
	"instruction address misaligned", "instruction access fault", "illegal instruction",
	"breakpoint", "load address misaligned", "load access fault",
	"store/AMO address misaligned", "store/AMO access fault", "environment call from U-mode",
	"environment call from S-mode", "reserved", "reserved", "instruction page fault",
	"load page fault", "reserved", "store/AMO page fault",
};

const char *trap_cause_name(uint64_t scause)
{
	uint64_t code = scause & ~SCAUSE_INTERRUPT;
	if (scause & SCAUSE_INTERRUPT) {
		switch (code) {
		case IRQ_S_SOFT: return "supervisor software interrupt";
		case IRQ_S_TIMER: return "supervisor timer interrupt";
		case IRQ_S_EXT: return "supervisor external interrupt";
		default: return "unknown interrupt";
		}
	}
	return code < sizeof exception_names / sizeof exception_names[0] ? exception_names[code] : "unknown exception";
}

void trap_handler(struct trap_frame *f)
{
	struct hart *h = this_hart();
	if (hart_is_slot(h) && h->kstack_base && !stack_guard_intact(h->kstack_base))
		panic("kernel stack overflow: the guard word at the base of this hart's stack (%p) was overwritten",
		      h->kstack_base);
	if (!(f->sstatus & SSTATUS_SPP) && !(f->scause & SCAUSE_INTERRUPT)) {
		utask_trap(f); /* an exception in U-mode: a kernel call or a fault of the task */
		return;
	}
	if (f->scause & SCAUSE_INTERRUPT) {
		bool handled = true;
		switch (f->scause & ~SCAUSE_INTERRUPT) {
		case IRQ_S_SOFT:
			csr_clear(sip, SIE_SSIE);
			ipi_handle();
			break;
		case IRQ_S_TIMER:
			timer_handle_irq();
			break;
		case IRQ_S_EXT:
			this_hart()->ext_irqs++;
			if (external_handler)
				external_handler();
			else
				handled = false;
			break;
		default:
			handled = false;
		}
		if (handled) {
			if (!(f->sstatus & SSTATUS_SPP))
				utask_interrupted(f); /* a task to be killed dies here, even if it never calls the kernel */
			return;
		}
	}
	panic_trap(f);
}
