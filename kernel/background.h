/*
 * What a core does while it waits for something else: a master core serves its
 * domain's forwarded kernel calls, and every core runs the tasks queued on its
 * dispatcher, one unit at a time in the idle time (a waiting call first); with
 * nothing to do it sleeps in WFI.
 */
#ifndef KERNEL_BACKGROUND_H
#define KERNEL_BACKGROUND_H

#include <stdbool.h>
#include <stdint.h>

/* Set once the NoC and the domains exist; before that waiting is plain WFI. */
extern volatile bool background_enabled;

/* Runs at most one unit of background work on this core; true if it did. */
bool background_work(void);

/* Sleeps in WFI until done(arg) holds, doing background work in between. done is
 * evaluated with interrupts off and must be cheap. */
void core_wait(bool (*done)(void *), void *arg);
/* The same with a deadline in timer ticks (0: none); false if it passed first. */
bool core_wait_until(bool (*done)(void *), void *arg, uint64_t deadline);
/* The same with a deadline on this core's clock, vtime_now_ns() (0: none): under virtual time
 * the deadline is one of the core's events, reached by a jump like a sleep's end. */
bool core_wait_until_ns(bool (*done)(void *), void *arg, uint64_t deadline_ns);
/* Sleeps us microseconds, doing background work meanwhile. */
void core_sleep_us(uint64_t us);

#endif
