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
/*
 * Sleeps until done(arg) holds, without background work (for waits inside a task or a call,
 * where running other work would nest it on this stack). Whatever makes done hold is a
 * hand-over to this core: the core that makes it hold takes its time with vtime_stamp(),
 * publishes it, notes this core at that time (vtime_note_event), lifts the stamp and wakes it
 * with IPI_WAKE. Under virtual time the core meanwhile waits for nothing of its own, so it
 * holds no other core back, and it never jumps: the caller moves its clock to the published
 * time (vtime_advance_to). On the machine's clock a plain WFI wait.
 */
void core_sleep_for_handover(bool (*done)(void *), void *arg);
/* The other side for a flag: stores value into *flag as a hand-over to core `to` at this core's
 * clock, which it also stores into *at (the waiter moves its clock there), and wakes `to`. */
void core_hand_over_flag(unsigned to, volatile uint32_t *flag, uint32_t value, volatile uint64_t *at);
/* The same to n cores at once (one time for all). */
void core_hand_over_flag_to_many(const uint16_t *to, unsigned n, volatile uint32_t *flag, uint32_t value,
				 volatile uint64_t *at);
/* For a count that several cores add to: adds 1 as a hand-over to `to`, and keeps in *latest
 * the latest clock of those that added (the waiter moves its clock there). */
void core_hand_over_add(unsigned to, volatile uint32_t *count, volatile uint64_t *latest);
/* The waiting side of these three: core_sleep_for_handover until *flag == value (a flag, or
 * a count that reached it), then this core's clock moves to *at. */
void core_wait_for_flag(volatile uint32_t *flag, uint32_t value, volatile uint64_t *at);
/* Sleeps us microseconds, doing background work meanwhile. */
void core_sleep_us(uint64_t us);

#endif
