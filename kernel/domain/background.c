/* The idle-time loop shared by the idle harts, hart_call_wait and the shell's input wait. */
#include "kernel/domain/background.h"
#include "kernel/kcall/kcall.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "drivers/noc/noc.h"
#include "kernel/msg/msg.h"
#include "kernel/time/vtime.h"
#include "kernel/time/wait.h"
#include "drivers/timer.h"
#include "kernel/dispatch/dispatcher.h"
#include "kernel/task/kthread.h"
#include "kernel/alloc/alloc.h"
#include "kernel/alloc/user_job.h"
#include "kernel/task/share/share.h"

volatile bool background_enabled;

static bool work_ready(unsigned me)
{
	return dispatcher_has_ready(me) || kthread_has_ready(me) || (me == boot_cpu && hart_call_pending());
}

/*
 * A micro-kernel's polls for kernel calls and protocol messages found nothing, and it is about
 * to run other work (a task, a kernel thread, a call), which moves its clock on. Under
 * conservative virtual time "nothing" must hold at its clock first: a sender the emulator has
 * not run far enough may still post a message that arrives before now, which a parallel
 * machine would have handed to this poll, not to the one after the work. So it settles (waits
 * until nothing earlier can come, kernel/time/vtime.c) and the caller polls again. Only then: a
 * poll followed by the idle wait needs no settle, since that wait moves the clock only when
 * it is safe. True if it settled (vtime_poll_settle=0 only counts what the polls miss).
 */
static bool micro_kernel_polls_settle(void)
{
	unsigned me = this_cpu();
	return vtime_active && is_master(me) && work_ready(me) && vtime_settle_poll();
}

/* A waiting kernel call goes first, so it waits for at most one task's run. A micro-kernel
 * takes one turn of its allocation loop next; any core throws away a job report whose task
 * has ended (kernel/alloc/user_job.h). The boot hart, which never sits in the idle
 * loop, runs a job's task sent to it (a pico-kernel like any other) while it waits, but not
 * while a task of its own waits in a kernel call (`run` on the shell's core): a task started
 * inside another's call would take over the core's task state. */
bool background_work(void)
{
	if (!background_enabled)
		return false;
	if (!hart_call_pending()) {
		msg_idle_purge(); /* user messages reaching a core with no task are stale (a task may be on its way) */
		share_idle_purge(); /* so are a share group's records that came after its end here */
	}
	if (master_serve_one() || alloc_step())
		return true;
	if (micro_kernel_polls_settle() && (master_serve_one() || alloc_step()))
		return true;
	return user_job_reap() || dispatcher_run_one(this_cpu()) || kthread_run_one() ||
	       (this_cpu() == boot_cpu && !this_hart()->utask && hart_run_call());
}

/* Whether wait_core's condition holds or work was handed to this core: both are due now. */
static bool ready_now(unsigned me, bool (*done)(void *), void *arg)
{
	return done(arg) || work_ready(me);
}

/* The idle wait of wait_core (kernel/time/wait.h): what it has seen, and its deadlines. */
struct core_idle {
	unsigned me;
	bool (*done)(void *);
	void *arg;
	struct noc_mailbox *mb;
	uint32_t seen, generation; /* the mailbox's events and the dispatcher's generation as it looked */
	uint64_t next;             /* the next delivery in flight to it before it looked for work */
	uint64_t until, until_ns;  /* its deadlines (0: none): machine timer ticks, this core's clock */
};

/* Whether something wait_core waits for happened since it looked: done, a message, work. */
static bool news(const struct core_idle *c)
{
	return ready_now(c->me, c->done, c->arg) || __atomic_load_n(&c->mb->events, __ATOMIC_ACQUIRE) != c->seen ||
	       (!vtime_active && noc_now_ns() >= c->next) || dispatcher_generation(c->me) != c->generation;
}

/* This core's own next events: a message in flight to it, a task falling due (the dispatcher
 * keeps time on this core's clock), the end of a sleep. */
static bool core_idle_look(void *arg, struct vtime_wait_look *l)
{
	struct core_idle *c = arg;
	unsigned me = c->me;
	uint64_t posted = vtime_active ? noc_mailbox_next_delivery(me) : UINT64_MAX;
	uint64_t task_due = dispatcher_next_deadline(me), work_due = dispatcher_next_work_deadline(me);
	uint64_t own = posted < c->next ? posted : c->next;
	uint64_t work_ns = work_due ? timer_ticks_to_ns(work_due) : UINT64_MAX;
	if (vtime_active && work_ns < own)
		own = work_ns;
	if (c->until_ns && c->until_ns < own)
		own = c->until_ns;
	/* work handed over since the last look is due now: published as such, this core's bound
	 * stays at its clock until it has run it (a hand-over's note may have come before
	 * vtime_wait_begin, which forgets notes). So is a message posted since `seen`: one that
	 * came while background_work ran and is visible by the wait's clock is neither in `next`
	 * (computed before it came) nor in `posted` (not in flight any more), and its note was
	 * forgotten. Published as "nothing before `until_ns`", the core would let others jump past
	 * the reply it is about to send (a micro-kernel's echo would come seconds late on large
	 * meshes) */
	if (vtime_active &&
	    (ready_now(me, c->done, c->arg) || __atomic_load_n(&c->mb->events, __ATOMIC_ACQUIRE) != c->seen))
		own = 0;
	l->own_ns = own;
	l->observer_ns = vtime_active && task_due ? timer_ticks_to_ns(task_due) : UINT64_MAX;
	/* on the machine's clock a periodic or delayed task falls due by the timer */
	uint64_t ticks = !vtime_active ? task_due : 0;
	if (c->until && (!ticks || c->until < ticks))
		ticks = c->until;
	l->ticks = ticks;
	return true;
}

static bool core_idle_woken(void *arg) { return news(arg); }

/* Under virtual time a poll that found nothing new keeps waiting, so that the wake-up's
 * instructions are taken back (kernel/time/vtime.c); so does a nudge (the core it is blocked
 * on moved: look again). Until its machine-timer deadline. */
static bool core_idle_keep(void *arg, bool woke)
{
	const struct core_idle *c = arg;
	if (woke && vtime_active && !news(c))
		woke = false;
	return !woke && vtime_active && !(c->until && timer_now() >= c->until);
}

/* The wait of core_wait_until, with an optional deadline on this core's clock too (ns,
 * 0: none): under virtual time the core jumps to its next event instead of sleeping. */
static bool wait_core(bool (*done)(void *), void *arg, uint64_t until, uint64_t until_ns)
{
	for (;;) {
		if (until && timer_now() >= until)
			return done(arg);
		if (until_ns && vtime_now_ns() >= until_ns)
			return done(arg);
		if (!background_enabled) {
			WAIT_UNTIL(done(arg) || background_enabled, until);
			if (done(arg))
				return true;
			continue;
		}
		unsigned me = this_cpu();
		struct noc_mailbox *mb = &noc_mailboxes[me];
		uint32_t seen = __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE);
		uint32_t generation = dispatcher_generation(me);
		if (done(arg))
			return true;
		/* every core also wakes when a message still in flight to it becomes visible: a master
		 * for the calls it serves, any core for what done() may wait for (a job report, say).
		 * A sender's wake-up comes when the message is posted, before it is visible, so without
		 * this a core would sleep past the delivery. Ask before looking for work, so a message
		 * that becomes visible in between is seen by one or the other. */
		uint64_t next = noc_mailbox_next_delivery(me);
		if (background_work())
			continue;
		struct core_idle c = {.me = me, .done = done, .arg = arg, .mb = mb, .seen = seen, .generation = generation,
				      .next = next, .until = until, .until_ns = until_ns};
		vtime_wait(&(const struct vtime_wait){.look = core_idle_look, .woken = core_idle_woken,
						      .keep = core_idle_keep, .arg = &c, .sleeping = &mb->sleeping,
						      .jump_ends = true});
	}
}

bool core_wait_until(bool (*done)(void *), void *arg, uint64_t until) { return wait_core(done, arg, until, 0); }

bool core_wait_until_ns(bool (*done)(void *), void *arg, uint64_t until_ns)
{
	return wait_core(done, arg, 0, until_ns);
}

void core_wait(bool (*done)(void *), void *arg)
{
	core_wait_until(done, arg, 0);
}

static bool never(void *arg)
{
	(void)arg;
	return false;
}

/* On this core's clock: under virtual time a sleep is a jump once it is safe. */
void core_sleep_us(uint64_t us)
{
	if (vtime_active)
		core_wait_until_ns(never, 0, vtime_now_ns() + us * 1000);
	else
		core_wait_until(never, 0, timer_now() + timer_us_to_ticks(us));
}

/* The wait of core_sleep_for_handover (kernel/time/wait.h): for done(arg) and nothing of its own. */
struct handover_wait {
	bool (*done)(void *);
	void *arg;
};

static bool handover_look(void *arg, struct vtime_wait_look *l)
{
	const struct handover_wait *h = arg;
	(void)l; /* nothing of its own to wait for */
	return !h->done(h->arg);
}

static bool handover_woken(void *arg)
{
	const struct handover_wait *h = arg;
	return h->done(h->arg);
}

/*
 * A core asleep outside the clock counts as running at the clock it stopped at and holds every
 * other core back there: a task waited for inside a task, that itself waited on its core's
 * clock, got through only as the waiter's clock crept up with the wake-ups it took
 * (docs/time.md). So the core sleeps as one that waits for the hand-over's note and nothing
 * else. Its mailbox says it sleeps, so a message posted to it wakes it to forget that
 * message's note (vtime_idle_for_handover); the note of the hand-over itself is kept.
 */
void core_sleep_for_handover(bool (*done)(void *), void *arg)
{
	if (!vtime_active) {
		WAIT_UNTIL(done(arg), 0);
		return;
	}
	struct handover_wait h = {done, arg};
	vtime_wait(&(const struct vtime_wait){.look = handover_look, .woken = handover_woken,
					      .keep = vtime_wait_look_again, .arg = &h,
					      .sleeping = &noc_mailboxes[this_cpu()].sleeping, .handover = true});
}

/* The end of every hand-over: notes each target at now (after what it hands over is visible),
 * lifts the stamp that held this core's bound at now, then wakes them. */
static void note_and_wake(const uint16_t *to, unsigned n, uint64_t now)
{
	for (unsigned i = 0; i < n; i++)
		vtime_note_event(to[i], now);
	vtime_stamp_done();
	for (unsigned i = 0; i < n; i++)
		ipi_send(to[i], IPI_WAKE);
}

void core_hand_over_flag_to_many(const uint16_t *to, unsigned n, volatile uint32_t *flag, uint32_t value,
				 volatile uint64_t *at)
{
	uint64_t now = vtime_stamp(); /* holds this core's bound at now until every target is noted */
	*at = now;
	__atomic_store_n(flag, value, __ATOMIC_RELEASE);
	note_and_wake(to, n, now);
}

void core_hand_over_flag(unsigned to, volatile uint32_t *flag, uint32_t value, volatile uint64_t *at)
{
	uint16_t one = (uint16_t)to;
	core_hand_over_flag_to_many(&one, 1, flag, value, at);
}

void core_hand_over_add(unsigned to, volatile uint32_t *count, volatile uint64_t *latest)
{
	uint64_t now = vtime_stamp();
	uint64_t seen = __atomic_load_n(latest, __ATOMIC_RELAXED);
	while (seen < now && !__atomic_compare_exchange_n(latest, &seen, now, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(count, 1, __ATOMIC_ACQ_REL); /* after the time: the waiter reads it once the count is in */
	uint16_t one = (uint16_t)to;
	note_and_wake(&one, 1, now);
}

struct flag_wait {
	volatile uint32_t *flag;
	uint32_t value;
};

static bool flag_reached(void *arg)
{
	const struct flag_wait *w = arg;
	return __atomic_load_n(w->flag, __ATOMIC_ACQUIRE) == w->value;
}

void core_wait_for_flag(volatile uint32_t *flag, uint32_t value, volatile uint64_t *at)
{
	struct flag_wait w = {.flag = flag, .value = value};
	core_sleep_for_handover(flag_reached, &w);
	vtime_advance_to(*at); /* the hand-over reaches this core no earlier than it was made */
}
