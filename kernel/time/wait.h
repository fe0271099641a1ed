/*
 * The idle wait on the cores' clocks (docs/time.md, "Waiting: vtime_wait"): the one way a core waits for
 * something with nothing to do meanwhile, on both clocks. Every waiter of the kernel (a message
 * wait, the idle loop, a share core, a dispatcher, a sleep, a hand-over) is a vtime_wait.
 *
 * One wait publishes the core as waiting (vtime_wait_begin) and then, pass by pass:
 *
 *   look    the caller says what it waits for as of now: its own next event (a message in
 *           flight, a task falling due, a deadline; 0 if something is due now, which keeps its
 *           bound at its clock), an observer's release, a machine-timer deadline besides; or
 *           that the wait is over;
 *   idle    vtime_idle publishes that as the core's bound and moves the clock to the event once
 *           no other core can still send it anything earlier (or, waiting for a hand-over only,
 *           vtime_idle_for_handover forgets the notes the look covered); a move ends the wait or
 *           looks again at once (jump_ends);
 *   sleep   otherwise the core sleeps in WFI until the caller's condition holds, the core it is
 *           blocked on nudges it (vtime_nudges, read before vtime_idle) or the deadline passes, with
 *           its mailbox marked sleeping, so that every sender of a message or credit to it wakes
 *           it: such a hand-over lowers its bound and must be looked at (forgotten, if it is not
 *           for this wait) or it holds every other core back;
 *   keep    after the sleep the caller says whether the wake-up was news (the wait ends) or a
 *           poll (a nudge, a timer, a message still in flight: it waits on, and the wake-up's
 *           instructions are taken back with the wait's own);
 *
 * and vtime_wait_end puts the clock at the later of the wait's start and where it jumped. With
 * virtual time off the same passes sleep until the condition or the deadline vtime_idle gives
 * for the next event on the machine's clock (in timer ticks) or the look's deadline.
 *
 * Inline, with the caller's functions given as constants: they become direct calls, inlined
 * where the caller marks them always_inline (the message wait's, so that no call or frame lies
 * on a blocking receive's path). The functions see the caller's own state
 * through arg, which keep may update (what a pass has seen).
 */
#ifndef KERNEL_TIME_WAIT_H
#define KERNEL_TIME_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/time/vtime.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"

/* What a wait waits for, as of one look. */
struct vtime_wait_look {
	uint64_t own_ns;      /* this core's next event (UINT64_MAX: none; 0: something is due now) */
	uint64_t observer_ns; /* the next release of an observer task here (UINT64_MAX: none; vtime_idle) */
	uint64_t ticks;       /* a machine-timer deadline besides, on both clocks (0: none) */
};

struct vtime_wait {
	/* Looks at what the wait waits for and fills *l (preset to nothing); false: the wait is
	 * over (what it waits for holds), it ends without sleeping. */
	bool (*look)(void *arg, struct vtime_wait_look *l);
	/* The sleep's condition, beside a nudge and the deadline: something that may be news. */
	bool (*woken)(void *arg);
	/* After a sleep (woke: its condition or a nudge held, not the deadline): true waits on;
	 * NULL: every wake-up ends the wait (a wait of one look: its caller looks and waits again). */
	bool (*keep)(void *arg, bool woke);
	void *arg;
	volatile uint32_t *sleeping; /* the core's mailbox flag (noc_mailboxes[me].sleeping) */
	bool jump_ends;              /* a move of the clock ends the wait (else it looks again) */
	bool handover;               /* it waits for a hand-over noted to it and nothing of its own */
};

/* The keep of a wait whose look tells whether it is over: every wake-up looks again. */
static inline bool vtime_wait_look_again(void *arg, bool woke)
{
	(void)arg;
	(void)woke;
	return true;
}

static inline __attribute__((always_inline)) void vtime_wait(const struct vtime_wait *w)
{
	vtime_wait_begin();
	for (;;) {
		/* read before the look: a nudge that comes while it looks is seen as news, not lost */
		uint32_t nudges = vtime_nudges();
		struct vtime_wait_look l = {UINT64_MAX, UINT64_MAX, 0};
		if (!w->look(w->arg, &l))
			break;
		uint64_t wake = 0;
		bool moved = w->handover ? !vtime_idle_for_handover() : vtime_idle(l.own_ns, l.observer_ns, &wake);
		if (moved) {
			if (w->jump_ends)
				break;
			continue;
		}
		if (l.ticks && (!wake || l.ticks < wake))
			wake = l.ticks;
		*w->sleeping = 1;
		fence(); /* the flag before the condition's reads: a sender either sees it or is seen */
		bool woke = WAIT_UNTIL(w->woken(w->arg) || vtime_nudges() != nudges, wake);
		*w->sleeping = 0;
		if (!w->keep || !w->keep(w->arg, woke))
			break;
	}
	vtime_wait_end();
}

#endif
