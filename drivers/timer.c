/* Timer driver: one deadline per hart; the interrupt only wakes the hart, waiters re-check. */
#include "drivers/timer.h"
#include "arch/riscv/csr.h"
#include "arch/riscv/sbi.h"
#include "kernel/hart.h"
#include "kernel/platform.h"

bool timer_uses_sstc(void) { return plat.sstc[this_cpu()]; }

uint64_t timer_now(void) { return read_time(); }

uint64_t timer_us_to_ticks(uint64_t us) { return us * plat.timebase_hz / 1000000; }
uint64_t timer_ticks_to_us(uint64_t ticks) { return ticks * 1000000 / plat.timebase_hz; }
uint64_t timer_ticks_to_ns(uint64_t ticks) { return ticks * 1000000000 / plat.timebase_hz; }

void timer_arm(uint64_t deadline)
{
	this_hart()->timer_deadline = deadline;
	if (timer_uses_sstc())
		__asm__ volatile("csrw 0x14D, %0" ::"r"(deadline));
	else
		sbi_set_timer(deadline);
}

void timer_handle_irq(void)
{
	this_hart()->timer_irqs++;
	timer_arm(UINT64_MAX); /* one-shot: whoever waits re-arms */
}

void timer_init_hart(void)
{
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
