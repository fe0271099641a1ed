/* Bringing the other harts up through SBI HSM and checking that each really ran. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdint.h>

/* Starts every other hart and waits (in WFI) until each checked in or the timeout passed.
 * Returns the number of harts online, the boot hart included. */
unsigned smp_bring_up(uint64_t timeout_ms);

/* One line of every hart's WFIs, timer interrupts and IPIs added up: what a run cost the host
 * in wake-ups (the harts command lists them per hart). */
void smp_print_wakeups(void);

/* Guest time, in timer ticks, of the kernel's entry and of the last check-in. */
extern uint64_t boot_entry_time, bringup_done_time;

#endif
