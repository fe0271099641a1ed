/*
 * Per-hart timer. Uses the Sstc stimecmp CSR where the device tree offers it
 * and the SBI timer otherwise; time is the platform's `time` CSR at the
 * device tree's timebase frequency.
 */
#ifndef DRIVERS_TIMER_H
#define DRIVERS_TIMER_H

#include <stdint.h>
#include <stdbool.h>
#include "arch/riscv/csr.h"
#include "kernel/core/hart.h"
#include "kernel/core/platform.h"

/* 1 when QEMU runs with -icount (told by the boot argument icount=1): guest time is then
 * exact and repeatable, and tests may hold timing to tight bounds. */
extern uint64_t timer_icount;

void timer_init_hart(void);
bool timer_uses_sstc(void);
/* Inline, as the two that follow: every pass of a wait reads the time (WAIT_UNTIL) and most
 * compute a deadline, and a call's return costs QEMU a lookup of the next block (docs/time.md,
 * "Keeping the host's cost down"). */
static inline uint64_t timer_now(void) { return read_time(); }
static inline uint64_t timer_us_to_ticks(uint64_t us) { return us * plat.timebase_hz / 1000000; }
uint64_t timer_ticks_to_us(uint64_t ticks);
uint64_t timer_ticks_to_ns(uint64_t ticks);
/* Nanoseconds per tick when the timebase divides 1 GHz, else 0 (set at boot). */
extern uint64_t timer_ns_per_tick;
/* Guest time in ns, cheaply: on the message path. */
static inline uint64_t timer_now_ns(void)
{
	uint64_t t = read_time();
	return timer_ns_per_tick ? t * timer_ns_per_tick : timer_ticks_to_ns(t);
}
/* The first tick at or after ns (0 for UINT64_MAX: no deadline, as WAIT_UNTIL takes it). */
uint64_t timer_ns_to_ticks_ceil(uint64_t ns);
/* Raise this hart's timer interrupt at `deadline` (in ticks). */
void timer_arm(uint64_t deadline);
/* For a wait without a deadline of its own: the hardware keeps its deadline, but an interrupt
 * that QEMU left pending under it is taken back (timer_arm does the same for its deadline), so
 * that a WFI with interrupts masked does not return at once for ever. */
void timer_keep(void);
void timer_handle_irq(void);
/* A second, independent deadline per hart (a watchdog): fn runs once, in the timer
 * interrupt, when `deadline` (ticks) has passed. UINT64_MAX or fn NULL: none. */
void timer_set_limit(uint64_t deadline, void (*fn)(void));
/* Sleeps in WFI until the deadline passed. */
void timer_sleep_until(uint64_t deadline);
void timer_sleep_us(uint64_t us);

/*
 * Waits in WFI until cond is true or deadline (ticks, 0 = none) passed; true if cond held.
 * Once ipi_handled_after_wfi is set (kernel/core/hart.h), a wake-up IPI is handled right after the
 * WFI, as the trap handler would handle it, instead of being taken as a trap.
 * The condition is checked with interrupts off, so a wake-up between the check
 * and the WFI is never lost: WFI returns at once when an interrupt is pending.
 */
#define WAIT_UNTIL(cond, deadline)                                              \
	({                                                                      \
		bool __ok;                                                      \
		uint64_t __dl = (deadline);                                     \
		for (;;) {                                                      \
			uint64_t __s = irq_save();                              \
			if ((cond)) {                                           \
				__ok = true;                                    \
				irq_restore(__s);                               \
				break;                                          \
			}                                                       \
			if (__dl && timer_now() >= __dl) {                      \
				__ok = false;                                   \
				irq_restore(__s);                               \
				break;                                          \
			}                                                       \
			if (__dl)                                               \
				timer_arm(__dl);                                \
			else                                                    \
				timer_keep();                                   \
			this_hart()->wfi_count++;                               \
			wfi();                                                  \
			if (__s && ipi_handled_after_wfi &&                     \
			    (csr_read_clear(sip, SIE_SSIE) & SIE_SSIE))         \
				ipi_handle(); /* as the trap would, without it */ \
			irq_restore(__s); /* the wake-up interrupt is taken here */ \
		}                                                               \
		__ok;                                                           \
	})

#endif
