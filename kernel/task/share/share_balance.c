/*
 * Placements of a share group's tasks (see share.h): pinned (never moved), round-robin
 * (every balance period each core hands one task to the next core of the group, blind
 * to speed) and speed (the slides' speed balancer). Everything runs in each core's own
 * scheduler loop, the host context of kernel/task/share/share.c: one monitor per core, no global
 * lock, no core waiting for another, and the monitors talk by NoC messages only.
 *
 * The speed balancer, per core and per balance period (share_balance_us on the core's
 * clock): the monitor measures its tasks' speeds over the period (CPU time / time, on
 * its own clock), their mean and its task count make its record. Each monitor keeps the
 * latest record of every core it has heard of (its view: soft state) and gossips: every
 * period it sends its whole view to one other core, index + 2^j for j = period mod
 * ceil(log2 C), so a record reaches every core of C in about ceil(log2 C) periods (as in a
 * dissemination barrier, exactly so if the periods ended in step) for one message per core
 * and period; a receiver keeps, for each
 * core, the newer of its record and the one it got. Sending each record to every other
 * core instead took C - 1 messages per core and period, and on the serial clock, where
 * every core's work adds up, a 20-task stencil on 16 cores ran at under half its speed.
 * A core whose speed is above the mean of the speeds it knows is
 * a fast core: it asks the slowest core it knows (at least SHARE_SPEED_MARGIN slower,
 * holding two tasks or more) for one task. The asked core hands over a task that has not
 * moved in the last two periods, as a message that carries the task's context; the asker
 * takes it no earlier than it arrives. A moved task keeps running wherever it is; the
 * records are hints, and an out-of-date one costs at most one move that a later period
 * undoes.
 *
 * A monitor never waits: every message goes with msg_trysend, and one that finds no credit
 * is not sent (a record or a request is then one period older; a task stays where it is).
 * It takes what has arrived by its clock, without settling the virtual-time
 * synchronisation (a kernel-internal poll, like the micro-kernels' probes, docs/time.md):
 * a record still in flight is read at the next step.
 */
#include "kernel/task/share/share_internal.h"
#include "kernel/core/hart.h"
#include "kernel/domain/domain.h"
#include "kernel/core/bootargs.h"
#include "kernel/time/vtime.h"
#include "kernel/core/errno.h"
#include "kernel/core/panic.h"
#include "kernel/msg/msg.h"
#include "drivers/noc/noc_ep.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include <stddef.h>

/* On by default: a task switched out inside a message wait may move, since a send tells the
 * core that hosts its destination when the message is posted (drivers/noc/noc.c, noc_hw_send);
 * 0 moves tasks only at the U-mode edge, for comparison (docs/balancing.md). */
uint64_t share_move_in_wait = 1;
BOOTARG_U64("share_move_in_wait", share_move_in_wait, 0, 1,
	    "1 (default): the balancers may move a job's task while it is switched out inside a message wait; 0: only at the U-mode edge");

uint64_t share_balance_us = SHARE_BALANCE_US_DEFAULT;
BOOTARG_U64("share_balance_us", share_balance_us, 1000, 10000000,
	    "balance period of share groups (round-robin and speed placements), us on each core's clock");

/* What the monitors send each other (MSG_TYPE_BALANCE; the tag says which). */
enum { BALANCE_VIEW = 1, BALANCE_PULL = 2, BALANCE_TASK = 3 };
struct balance_msg {
	uint32_t serial;         /* the group's: a message for an earlier group is dropped */
	uint32_t from;           /* the sender's index among the group's cores */
	struct slot *task;       /* TASK: the task's context, handed over */
	struct share_view view[SHARE_CORES_MAX]; /* VIEW: the sender's view (its first C entries are sent) */
};
#define BALANCE_HEAD_BYTES offsetof(struct balance_msg, view)

bool balance_here(uint64_t *next_ns)
{
	uint64_t next;
	bool here = msg_type_here(MSG_TYPE_BALANCE, &next);
	if (next_ns)
		*next_ns = next;
	return here;
}

/* Sends one message (its first len bytes) to core index k of the group without waiting;
 * false if no credit. */
static bool balance_send(struct share_core *sc, unsigned k, int tag, struct balance_msg *m, uint32_t len)
{
	struct share_group *g = sc->g;
	m->serial = g->serial;
	m->from = sc->index;
	bool sent = msg_trysend_typed(MSG_TYPE_BALANCE, g->cores[k], tag, m, len) == 0;
	__atomic_add_fetch(sent ? &g->balance_sent : &g->balance_dropped, 1, __ATOMIC_RELAXED);
	return sent;
}

/* Hands s to core index k as a message; false (s stays here) if k's mailbox had no credit. */
static bool hand_over(struct share_core *sc, struct slot *s, unsigned k)
{
	struct share_group *g = sc->g;
	uint32_t moved = s->moved_period;
	s->moved_period = sc->period + 1;
	s->task->migrations++;
	__atomic_add_fetch(&g->migrations, 1, __ATOMIC_RELAXED);
	bool in_wait = s->in_kernel;
	if (in_wait)
		__atomic_add_fetch(&g->moves_in_wait, 1, __ATOMIC_RELAXED);
	struct balance_msg m = {.task = s};
	if (balance_send(sc, k, BALANCE_TASK, &m, BALANCE_HEAD_BYTES))
		return true; /* s is the receiver's from here on */
	s->moved_period = moved;
	s->task->migrations--;
	__atomic_sub_fetch(&g->migrations, 1, __ATOMIC_RELAXED);
	if (in_wait)
		__atomic_sub_fetch(&g->moves_in_wait, 1, __ATOMIC_RELAXED);
	return false;
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

/* Takes a task handed to this core into its table (its message arrived: no earlier). */
static void adopt(struct share_core *sc, struct slot *s)
{
	/* a task moved inside a message wait: its messages and credits wake this core from
	 * now on, and it runs once here before it counts as waiting again: the event count it
	 * last saw was the other core's, and what woke that core (a credit granted to it while
	 * it was on its way, say) this one never sees. A task judged by that count could hang a
	 * collective (speed balancing with spinning waits) */
	if (s->ep)
		noc_ep_place(s->ep);
	s->msg_seen_here = false;
	s->mark_cpu = s->task->cpu_ns;
	s->mark_ns = vtime_now_ns();
	ASSERT(sc->n < SHARE_TABLE); /* the table holds the whole group */
	sc->slots[sc->n++] = s;
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

/* The speed policy's decision at the end of a period: ask the slowest core it knows for
 * one task if this one is fast. */
static void speed_decide(struct share_core *sc)
{
	struct share_group *g = sc->g;
	uint64_t total = sc->speed_permille;
	unsigned known = 1, slowest = g->ncores;
	uint32_t slow_speed = UINT32_MAX;
	for (unsigned k = 0; k < g->ncores; k++) {
		const struct share_view *v = &sc->view[k];
		if (k == sc->index || !v->period)
			continue;
		total += v->speed_permille;
		known++;
		if (v->ntasks >= 2 && v->speed_permille < slow_speed) {
			slow_speed = v->speed_permille;
			slowest = k;
		}
	}
	uint32_t mine = sc->speed_permille;
	if (slowest == g->ncores || mine * known <= total || sc->n >= SHARE_MAX ||
	    mine < slow_speed + SHARE_SPEED_MARGIN)
		return;
	struct balance_msg m = {0};
	balance_send(sc, slowest, BALANCE_PULL, &m, BALANCE_HEAD_BYTES);
}

/* Puts this core's new record into its view and sends the view to this period's partner. */
static void gossip(struct share_core *sc)
{
	unsigned c = sc->g->ncores, rounds = 0;
	while ((1u << rounds) < c)
		rounds++;
	uint32_t speed = sc->speed_permille < UINT16_MAX ? sc->speed_permille : UINT16_MAX;
	sc->view[sc->index] = (struct share_view){sc->period + 1, (uint16_t)speed, (uint16_t)sc->n};
	if (!rounds)
		return; /* a group of one core: nobody to tell */
	static struct balance_msg m[MOSAIC_MAX_HARTS]; /* per core: too large for a scheduler's stack */
	struct balance_msg *out = &m[this_cpu()];
	memcpy(out->view, sc->view, c * sizeof out->view[0]);
	unsigned to = (sc->index + (1u << (sc->period % rounds))) % c;
	balance_send(sc, to, BALANCE_VIEW, out, (uint32_t)(BALANCE_HEAD_BYTES + c * sizeof out->view[0]));
}

/* Keeps, for each core, the newer of the record in this core's view and the one received. */
static void merge(struct share_core *sc, const struct balance_msg *m, uint32_t len)
{
	unsigned n = (len - BALANCE_HEAD_BYTES) / sizeof m->view[0];
	for (unsigned k = 0; k < n && k < sc->g->ncores; k++)
		if (k != sc->index && m->view[k].period > sc->view[k].period)
			sc->view[k] = m->view[k];
}

/* A period ended on this core's clock: measure, publish, and act by the placement. */
static void period_end(struct share_core *sc, uint64_t now)
{
	struct share_group *g = sc->g;
	sc->speed_permille = measure(sc, now);
	if (g->place == SHARE_PLACE_RR && g->ncores > 1) {
		int i = movable(sc);
		if (i >= 0 && hand_over(sc, sc->slots[i], (sc->index + 1) % g->ncores))
			take(sc, (unsigned)i);
	} else if (g->place == SHARE_PLACE_SPEED && g->ncores > 1) {
		gossip(sc);
		speed_decide(sc);
	}
	sc->period++;
}

static struct balance_msg received[MOSAIC_MAX_HARTS]; /* per core: too large for a scheduler's stack */

/* Takes every balancer message that has arrived by this core's clock: views into its own,
 * the latest request for a task, and the tasks handed to it (its table holds the whole group).
 * Messages of an earlier group are dropped. */
static void take_messages(struct share_core *sc)
{
	static const int tags[] = {BALANCE_VIEW, BALANCE_PULL, BALANCE_TASK};
	struct balance_msg *m = &received[this_cpu()];
	if (!balance_here(0))
		return; /* the common case, without a receive per tag */
	for (unsigned t = 0; t < sizeof tags / sizeof tags[0]; t++) {
		struct mosaic_status st;
		while (msg_tryrecv_typed(MSG_TYPE_BALANCE, MSG_ANY_SOURCE, tags[t], m, sizeof *m, &st) == 0) {
			if (st.len < BALANCE_HEAD_BYTES || m->serial != sc->g->serial || m->from >= sc->g->ncores)
				continue;
			if (tags[t] == BALANCE_VIEW)
				merge(sc, m, st.len);
			else if (tags[t] == BALANCE_PULL)
				sc->pull_from = m->from + 1;
			else
				adopt(sc, m->task);
		}
	}
}

void share_balance_drain(void)
{
	struct balance_msg *m = &received[this_cpu()]; /* large enough for any: a smaller one would leave it there */
	if (balance_here(0))
		while (msg_tryrecv_typed(MSG_TYPE_BALANCE, MSG_ANY_SOURCE, MSG_ANY_TAG, m, sizeof *m, 0) != -EAGAIN)
			;
}

void share_idle_purge(void)
{
	/* a micro-kernel never joins a group (check_group), and its mailbox is the busiest: the
	 * idle loop of a master would otherwise look through it on every pass */
	unsigned me = this_cpu();
	if (!share_cores[me] && !is_master(me) && msg_maybe_pending(MSG_TYPE_BALANCE))
		share_balance_drain();
}

void share_balance_step(struct share_core *sc)
{
	struct share_group *g = sc->g;
	if (g->place == SHARE_PLACE_PINNED)
		return;
	take_messages(sc);
	uint32_t asker = sc->pull_from;
	sc->pull_from = 0;
	if (asker && sc->n >= 2) {
		int i = movable(sc);
		if (i >= 0 && hand_over(sc, sc->slots[i], asker - 1))
			take(sc, (unsigned)i);
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
	return sc->g->place != SHARE_PLACE_PINNED && balance_here(0);
}
