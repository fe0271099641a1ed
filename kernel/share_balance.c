/*
 * Placements of a share group's tasks (see share.h): pinned (never moved), round-robin
 * (every balance period each core hands one task to the next core of the group, blind
 * to speed) and speed (the slides' speed balancer). Everything runs in each core's own
 * scheduler loop, the host context of kernel/share.c: one monitor per core, no global
 * lock, no core waiting for another.
 *
 * The speed balancer, per core and per balance period (share_balance_us on the core's
 * clock): the monitor measures its tasks' speeds over the period (CPU time / time, on
 * its own clock) and publishes their mean and its task count; that record is soft state,
 * written by its core only and read by the others whenever they balance, never locked.
 * A core whose speed is above the mean of the speeds it reads is a fast core: it asks the
 * slowest core it reads (at least SHARE_SPEED_MARGIN slower, holding two tasks or more)
 * for one task. The asked core hands over a task that has not moved in the last two
 * periods, as a message: the task's context is pushed onto the asker's inbox with the
 * asker's clock carried along (the asker adopts it no earlier than it was handed over).
 * A task moved by the balancer keeps running wherever it is; the records are hints, and
 * an out-of-date one costs at most one move that a later period undoes.
 *
 * The records and the inbox are shared memory rather than NoC messages: a NoC receive
 * first waits until the conservative virtual-time synchronisation says nothing earlier
 * can arrive (kernel/vtime.h), and a monitor must never wait on another core.
 */
#include "kernel/share_internal.h"
#include "kernel/hart.h"
#include "kernel/bootargs.h"
#include "kernel/vtime.h"
#include "drivers/noc/noc_ep.h"
#include "lib/atomic.h"

/* On by default since 2026-11-26. It was off while moves inside waits hung round-robin with
 * spin on the serial clock (2 of 16 boots under host load): a send told the core its
 * destination had left (drivers/noc/noc.c, noc_hw_send), fixed; docs/balancing.md. */
uint64_t share_move_in_wait = 1;
BOOTARG_U64("share_move_in_wait", share_move_in_wait, 0, 1,
	    "1 (default): the balancers may move a job's task while it is switched out inside a message wait; 0: only at the U-mode edge");

uint64_t share_balance_us = SHARE_BALANCE_US_DEFAULT;
BOOTARG_U64("share_balance_us", share_balance_us, 1000, 10000000,
	    "balance period of share groups (round-robin and speed placements), us on each core's clock");

/* Pushes s onto core k's inbox (any core may push; its owner takes the whole list). */
static void hand_over(struct share_group *g, struct slot *s, unsigned k, uint32_t period)
{
	struct share_core *to = &g->state[k];
	s->moved_period = period + 1;
	s->task->migrations++;
	__atomic_add_fetch(&g->migrations, 1, __ATOMIC_RELAXED);
	if (s->in_kernel)
		__atomic_add_fetch(&g->moves_in_wait, 1, __ATOMIC_RELAXED);
	s->handover_ns = vtime_stamp(); /* the receiver adopts it no earlier */
	struct slot *head = __atomic_load_n(&to->inbox, __ATOMIC_RELAXED);
	do
		s->next_in = head;
	while (!__atomic_compare_exchange_n(&to->inbox, &head, s, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	vtime_note_event(g->cores[k], s->handover_ns);
	vtime_stamp_done();
	ipi_send(g->cores[k], IPI_WAKE);
}

/* Takes slot i out of this core's table. */
static struct slot *take(struct share_core *sc, unsigned i)
{
	struct slot *s = sc->slots[i];
	for (unsigned k = i + 1; k < sc->n; k++)
		sc->slots[k - 1] = sc->slots[k];
	sc->n--;
	if (sc->last >= sc->n)
		sc->last = sc->n ? sc->n - 1 : 0;
	return s;
}

/* A task of this core that may move: not moved in the last two periods, and switched out
 * at the U-mode edge or inside a message wait on its own endpoint (share_msg_wait: the
 * wait reads its core again when it runs; a message-bound job's tasks are nearly always
 * there, and could not be balanced otherwise); the one that has been here longest (the
 * lowest index: tasks are appended as they come). -1 if none. */
static int movable(const struct share_core *sc)
{
	for (unsigned i = 0; i < sc->n; i++) {
		const struct slot *s = sc->slots[i];
		if (!s->done && (!s->in_kernel || s->in_kernel_movable) && (!s->moved_period || s->moved_period + 2 <= sc->period + 1))
			return (int)i;
	}
	return -1;
}

/* Adopts the tasks handed to this core (the rest of a full table goes on to the next core). */
static void adopt(struct share_core *sc)
{
	struct slot *list = __atomic_exchange_n(&sc->inbox, (struct slot *)0, __ATOMIC_ACQUIRE);
	uint64_t now = vtime_now_ns();
	while (list) {
		struct slot *s = list;
		list = s->next_in;
		if (sc->n == SHARE_TABLE) {
			hand_over(sc->g, s, (sc->index + 1) % sc->g->ncores, sc->period);
			continue;
		}
		vtime_advance_to(s->handover_ns);
		now = vtime_now_ns();
		/* a task moved inside a message wait: its messages and credits wake this core from
		 * now on, and it runs once here before it counts as waiting again: the event count it
		 * last saw was the other core's, and what woke that core (a credit granted to it while
		 * it was on its way, say) this one never sees. A task judged by that count hung a
		 * collective under speed balancing with spinning, about one boot in ten */
		if (s->ep)
			noc_ep_place(s->ep);
		s->msg_seen_here = false;
		s->mark_cpu = s->task->cpu_ns;
		s->mark_ns = now;
		sc->slots[sc->n++] = s;
	}
}

/* The mean speed of this core's tasks since their marks, in permille; marks them anew. */
static uint32_t measure(struct share_core *sc, uint64_t now)
{
	uint64_t sum = 0;
	unsigned k = 0;
	for (unsigned i = 0; i < sc->n; i++) {
		struct slot *s = sc->slots[i];
		if (s->done || now <= s->mark_ns)
			continue;
		sum += (s->task->cpu_ns - s->mark_cpu) * 1000 / (now - s->mark_ns);
		s->mark_cpu = s->task->cpu_ns;
		s->mark_ns = now;
		k++;
	}
	return k ? (uint32_t)(sum / k) : 1000;
}

/* The speed policy's decision at the end of a period: pull one task from the slowest
 * core if this one is fast. */
static void speed_decide(struct share_core *sc)
{
	struct share_group *g = sc->g;
	uint64_t total = 0;
	unsigned slowest = g->ncores;
	uint32_t slow_speed = UINT32_MAX;
	for (unsigned k = 0; k < g->ncores; k++) {
		uint32_t sp = __atomic_load_n(&g->state[k].speed_permille, __ATOMIC_RELAXED);
		uint32_t n = __atomic_load_n(&g->state[k].published_n, __ATOMIC_RELAXED);
		total += sp;
		if (k != sc->index && n >= 2 && sp < slow_speed) {
			slow_speed = sp;
			slowest = k;
		}
	}
	uint32_t mine = sc->speed_permille;
	if (slowest == g->ncores || mine * g->ncores <= total || sc->n >= SHARE_MAX ||
	    mine < slow_speed + SHARE_SPEED_MARGIN)
		return;
	uint32_t none = 0;
	struct share_core *to = &g->state[slowest];
	uint64_t now = vtime_stamp();
	atomic_max_u64(&to->pull_ns, now);
	if (__atomic_compare_exchange_n(&to->pull_from, &none, sc->index + 1, false, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		vtime_note_event(g->cores[slowest], now); /* a request is news to it, like a message */
	vtime_stamp_done();
	ipi_send(g->cores[slowest], IPI_WAKE);
}

/* A period ended on this core's clock: measure, publish, and act by the placement. */
static void period_end(struct share_core *sc, uint64_t now)
{
	struct share_group *g = sc->g;
	sc->speed_permille = measure(sc, now);
	__atomic_store_n(&sc->published_n, sc->n, __ATOMIC_RELAXED);
	__atomic_store_n(&sc->speed_permille, sc->speed_permille, __ATOMIC_RELAXED);
	if (g->place == SHARE_PLACE_RR && g->ncores > 1) {
		int i = movable(sc);
		if (i >= 0)
			hand_over(g, take(sc, (unsigned)i), (sc->index + 1) % g->ncores, sc->period);
	} else if (g->place == SHARE_PLACE_SPEED && g->ncores > 1) {
		speed_decide(sc);
	}
	sc->period++;
}

void share_balance_step(struct share_core *sc)
{
	struct share_group *g = sc->g;
	if (g->place == SHARE_PLACE_PINNED)
		return;
	if (__atomic_load_n(&sc->inbox, __ATOMIC_RELAXED))
		adopt(sc);
	uint32_t asker = __atomic_exchange_n(&sc->pull_from, 0, __ATOMIC_ACQUIRE);
	if (asker)
		vtime_advance_to(__atomic_load_n(&sc->pull_ns, __ATOMIC_ACQUIRE)); /* it learns of it no earlier */
	if (asker && sc->n >= 2) {
		int i = movable(sc);
		if (i >= 0)
			hand_over(g, take(sc, (unsigned)i), asker - 1, sc->period);
	}
	uint64_t now = vtime_now_ns();
	if (!sc->period_end) {
		for (unsigned i = 0; i < sc->n; i++)
			sc->slots[i]->mark_ns = now;
		sc->period_end = now + share_balance_us * 1000;
	} else if (now >= sc->period_end) {
		period_end(sc, now);
		sc->period_end = now + share_balance_us * 1000;
	}
}

bool share_has_news(struct share_core *sc)
{
	return __atomic_load_n(&sc->inbox, __ATOMIC_RELAXED) || __atomic_load_n(&sc->pull_from, __ATOMIC_RELAXED);
}
