/*
 * What a core does while it waits for something else: a master core serves its
 * domain's forwarded kernel calls (and, later, runs dispatcher tasks) one at a
 * time in the idle time, and sleeps in WFI when there is nothing to do.
 */
#ifndef KERNEL_BACKGROUND_H
#define KERNEL_BACKGROUND_H

#include <stdbool.h>

/* Set once the NoC and the domains exist; before that waiting is plain WFI. */
extern volatile bool background_enabled;

/* Runs at most one unit of background work on this core; true if it did. */
bool background_work(void);

/* Sleeps in WFI until done(arg) holds, doing background work in between. done is
 * evaluated with interrupts off and must be cheap. */
void core_wait(bool (*done)(void *), void *arg);

#endif
