/*
 * The stress test's transport: a timed event queue. A message sent at time t from
 * a to b is delivered at t + hops(a, b) * hop_ns + a random extra delay in
 * [0, extra_ns], and never before an earlier message of the same (a, b) channel
 * (the NoC's FIFO order between one pair, unless fifo is off). A timer fires at
 * its time. Ties are broken by the order in which events were queued, so a seed
 * replays exactly.
 */
#ifndef CHECKER_NET_TIMED_H
#define CHECKER_NET_TIMED_H

#include "checker/env.h"

struct timed_params {
	uint64_t hop_ns, extra_ns;
	bool fifo;
	uint64_t rng;      /* the delays' random stream */
};
extern struct timed_params net;

void timed_start(void);
/* A message from outside the micro-kernels (a submitter, the shell) arriving at `to` at time t. */
void timed_inject(unsigned to, const struct alloc_hdr *h, uint32_t len, uint64_t t);
/* Runs the queue until it is empty, or a violation, or max_events; true if it emptied. */
bool timed_run(uint64_t max_events);

#endif
