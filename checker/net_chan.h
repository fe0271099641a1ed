/*
 * The exhaustive checker's transport: messages wait in one FIFO channel per
 * (sender, receiver) pair, as the NoC delivers them between one pair, and armed
 * timers wait in a set. Nothing happens by itself: an event is chosen. The
 * events of a state are: deliver the head of a channel (the receiver's turn of
 * Algorithm 1: receive it, then the periodic procedure), fire an armed timer
 * (a dispatcher task: it only marks the micro-kernel dirty), or run the periodic
 * procedure of a dirty micro-kernel (a turn that found no message).
 * Time is abstracted: the clock never moves, and a timer may fire before or after
 * any message (docs/checking.md).
 */
#ifndef CHECKER_NET_CHAN_H
#define CHECKER_NET_CHAN_H

#include "checker/env.h"

enum ev_kind { EV_DELIVER, EV_TIMER, EV_SETTLE };
struct event {
	uint8_t kind;
	uint16_t a, b;  /* DELIVER: sender, receiver; TIMER: micro-kernel, index; SETTLE: micro-kernel */
};

/* With fifo false any message in flight may be delivered next (not only a channel's head). */
extern bool chan_fifo;
/* Queues every job's SUBMIT on its own channel (submissions may arrive in any order). */
void chan_start(void);
/* The events enabled now, into ev (at most max); returns how many. */
unsigned chan_events(struct event *ev, unsigned max);
/* Applies one event. */
void chan_apply(const struct event *e);
/* Names an event (before it is applied) for the printed interleaving. */
void chan_describe(const struct event *e, char *out, size_t n);

#endif
