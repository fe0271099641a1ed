/* Timer driver: one deadline per hart; the interrupt only wakes the hart, waiters re-check. */
#include "drivers/timer.h"
#include "arch/riscv/csr.h"
#include "arch/riscv/sbi.h"
#include "kernel/core/hart.h"
#include "kernel/core/platform.h"
#include "kernel/core/bootargs.h"

uint64_t timer_icount;
BOOTARG_U64("icount", timer_icount, 0, 1, "set by mosaic-run --icount: guest time counts instructions exactly");

bool timer_uses_sstc(void) { return plat.sstc[this_cpu()]; }

uint64_t timer_ticks_to_us(uint64_t ticks) { return ticks * 1000000 / plat.timebase_hz; }
uint64_t timer_ns_per_tick;

uint64_t timer_ticks_to_ns(uint64_t ticks)
{
	/* exact without overflow when the timebase divides 1 GHz (10 MHz on virt) */
	if (timer_ns_per_tick)
		return ticks * timer_ns_per_tick;
	return ticks / plat.timebase_hz * 1000000000 + ticks % plat.timebase_hz * 1000000000 / plat.timebase_hz;
}

uint64_t timer_ns_to_ticks_ceil(uint64_t ns)
{
	if (ns == UINT64_MAX)
		return 0; /* no deadline */
	return (ns / 1000000000) * plat.timebase_hz + ((ns % 1000000000) * plat.timebase_hz + 999999999) / 1000000000;
}

/* The earlier of the waiter's deadline and the watchdog limit: what the hardware gets. */
static uint64_t timer_next(const struct hart *h, uint64_t deadline)
{
	return h->limit_fn && h->limit_deadline < deadline ? h->limit_deadline : deadline;
}

static void timer_write(struct hart *h, uint64_t next)
{
	h->timer_written = next;
	if (timer_uses_sstc())
		__asm__ volatile("csrw " CSR_STIMECMP ", %0" ::"r"(next));
	else
		sbi_set_timer(next);
}

/* Whether the timer interrupt is pending although the deadline the hardware holds is still
 * ahead: what QEMU's race leaves behind (timer_handle_irq). Only Sstc's stimecmp is ours to check. */
static inline bool leftover_pending(uint64_t held)
{
	return timer_uses_sstc() && (csr_read(sip) & SIP_STIP) && held > timer_now();
}

void timer_keep(void)
{
	struct hart *h = this_hart();
	if (leftover_pending(h->timer_written))
		timer_write(h, h->timer_written);
}

/* Not written again when the hardware holds the value already: each write makes QEMU move the
 * hart's timer in its sorted list of timers, and a wait loop re-arms its deadline before every
 * WFI (with many harts under virtual time QEMU's timer_mod_ns is a visible share of the host's
 * time; docs/time.md, "Keeping the host's cost down"). Unless the interrupt is pending
 * under a deadline still ahead, which QEMU's race leaves behind (timer_handle_irq): a wait with
 * interrupts masked never lets the handler in, and its WFI would return at once until the
 * deadline came. The handler writes whatever this remembers. */
void timer_arm(uint64_t deadline)
{
	struct hart *h = this_hart();
	h->timer_deadline = deadline;
	uint64_t next = timer_next(h, deadline);
	if (next != h->timer_written || leftover_pending(next))
		timer_write(h, next);
}

void timer_set_limit(uint64_t deadline, void (*fn)(void))
{
	uint64_t s = irq_save();
	struct hart *h = this_hart();
	h->limit_deadline = fn ? deadline : UINT64_MAX;
	h->limit_fn = deadline == UINT64_MAX ? 0 : fn;
	timer_arm(h->timer_deadline);
	irq_restore(s);
}

void timer_handle_irq(void)
{
	struct hart *h = this_hart();
	h->timer_irqs++;
	void (*fn)(void) = h->limit_fn;
	if (fn && timer_now() >= h->limit_deadline) {
		h->limit_fn = 0; /* once */
		h->limit_deadline = UINT64_MAX;
		fn();
	}
	/* One-shot: whoever waits re-arms. Written even if timer_arm wrote the same value last: QEMU
	 * raises the interrupt from a host timer of its own, and a deadline that expires while the
	 * hart writes a new one can leave the interrupt pending under the new value. Only a write
	 * of stimecmp takes it back; when this one was skipped, the interrupt came back for ever
	 * (docs/time.md, "A timer interrupt that outlives its deadline"). */
	h->timer_deadline = UINT64_MAX;
	timer_write(h, timer_next(h, UINT64_MAX));
}

void timer_init_hart(void)
{
	timer_ns_per_tick = 1000000000 % plat.timebase_hz == 0 ? 1000000000 / plat.timebase_hz : 0;
	this_hart()->limit_deadline = UINT64_MAX;
	timer_arm(UINT64_MAX);
}

void timer_sleep_until(uint64_t deadline)
{
	WAIT_UNTIL(false, deadline);
}

void timer_sleep_us(uint64_t us)
{
	timer_sleep_until(timer_now() + timer_us_to_ticks(us));
}
