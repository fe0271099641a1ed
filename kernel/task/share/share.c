/*
 * Time-sliced pico-kernels and share groups (see share.h). Each core of a group runs a
 * small scheduler in the context that the group's hart_call started (the host context):
 * it picks the next task round-robin, switches to it (arch/riscv/switch.S) and gets the
 * core back when the task's slice is over, when it waits at the group's barrier, or when
 * it ends. A task keeps its kernel stack (which holds its trap stack), its callee-saved
 * registers and the per-hart task state the rest of the kernel reads from struct hart:
 * the running utask, its serial (what a kill names), its CPU-limit watchdog (kept as time
 * left, so only its own slices count), its page table, its sstatus.SUM and its FP registers and
 * fcsr (kept only if it wrote one in its slice, put back whenever it is switched in: the kernel
 * never touches them, so a task's FP state is in the hart from its switch-in to its switch-out).
 *
 * A task gives the core back only at the edge back to U-mode (after an interrupt taken
 * in U-mode, or at the end of a kernel call), never inside the kernel: kernel code on a
 * shared core runs as on a core of its own, and no lock is ever held across a switch. A
 * barrier wait is therefore a kernel call that is made again (SHARE_RESTART moves the
 * task's pc back onto its ecall) until the barrier opens. The one exception is a message
 * wait of a job's task (share_msg_wait): it switches inside the kernel, at one point of
 * the message layer's wait loop where no lock is held and the task's own endpoint is
 * all it touches. Such a task may even move: the wait loop reads the core it runs on
 * again when it gets the core back, the per-hart state travels as at the U-mode edge,
 * and the kernel's tp is the host context's (ctx_switch does not carry it), so only the
 * word above its trap frame must name the new hart (state_load; the frame is known from
 * the call's start, share_kcall_begin).
 */
#include "kernel/task/share/share.h"
#include "kernel/task/share/share_internal.h"
#include "kernel/kcall/kcall.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/stack_guard.h"
#include "kernel/core/bootargs.h"
#include "kernel/domain/domain.h"
#include "kernel/time/vtime.h"
#include "kernel/time/wait.h"
#include "kernel/console/console.h"
#include "kernel/console/shell.h"
#include "kernel/task/utask.h"
#include "kernel/msg/msg.h"
#include "kernel/alloc/alloc.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"
#include "arch/riscv/trap.h"
#include "lib/string.h"
#include "lib/atomic.h"

uint64_t share_slice_us = SHARE_SLICE_US_DEFAULT;
BOOTARG_U64("share_slice_us", share_slice_us, SHARE_SLICE_US_MIN, SHARE_SLICE_US_MAX,
	    "time slice of a pico-kernel shared by several user tasks, us on the core's own clock");

const char *const share_wait_names[SHARE_WAITS] = {"spin", "yield", "sleep"};
const char *const share_place_names[SHARE_PLACES] = {"pinned", "rr", "speed"};

void ctx_switch(uint64_t *save, const uint64_t *load);
void ctx_first(void);

/* Written only by the core itself. */
struct share_core *share_cores[MOSAIC_MAX_HARTS];

static struct share_core *mine(void) { return share_cores[this_cpu()]; }
static void to_host(struct share_core *sc, struct slot *s);

static struct slot *running(void)
{
	struct share_core *sc = mine();
	return sc && sc->cur >= 0 ? sc->slots[sc->cur] : 0;
}

bool share_active(void) { return running() != 0; }

/* ---- kills ---- */

void share_kill_request(unsigned core, uint32_t group, bool job)
{
	volatile uint64_t *req = &harts[core].kill_sliced;
	uint64_t want = (uint64_t)group << 1 | job, old = __atomic_load_n(req, __ATOMIC_SEQ_CST);
	/* one of the same group still pending keeps its job bit; one of an earlier group is stale */
	while (!__atomic_compare_exchange_n(req, &old, old >> 1 == group ? old | want : want, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST))
		;
}

/* The time of s's kill, 0 if it is not to be killed. */
static uint64_t kill_time(const struct share_group *g, const struct slot *s)
{
	uint64_t group = __atomic_load_n(&g->kill_at, __ATOMIC_ACQUIRE);
	return s->kill_at > group ? s->kill_at : group;
}

/* s (switched in on this core, or running) is to be killed: its kill on the hart, so that its
 * kernel call's wait ends and it leaves at its next edge (kernel/task/utask.c). */
static void kill_on_hart(const struct share_group *g, const struct slot *s)
{
	struct hart *me = this_hart();
	uint64_t at = kill_time(g, s);
	if (!at || !me->task_serial)
		return;
	atomic_max_u64(&me->kill_at, at);
	__atomic_store_n(&me->kill_task, me->task_serial, __ATOMIC_SEQ_CST);
}

/* Takes the kill request posted to this core (share_kill_request): marks the tasks it holds,
 * and for a job's kill the whole group (a task on its way between two cores is held by
 * neither). The running task, if any, gets its kill on the hart too. Only this core touches
 * its table, so only it marks. */
static void take_kills(struct share_core *sc)
{
	struct hart *me = this_hart();
	struct share_group *g = sc->g;
	if (!__atomic_load_n(&me->kill_sliced, __ATOMIC_SEQ_CST))
		return;
	uint64_t want = __atomic_exchange_n(&me->kill_sliced, 0, __ATOMIC_SEQ_CST);
	if (!want || want >> 1 != g->serial)
		return; /* for a group that ended here */
	uint64_t at = __atomic_load_n(&me->kill_at, __ATOMIC_SEQ_CST);
	if (!at)
		at = 1; /* (0 says "not killed"; a kill at clock 0 is a kill at once) */
	if (want & 1)
		atomic_max_u64(&g->kill_at, at);
	for (unsigned i = 0; i < sc->n; i++)
		if (!sc->slots[i]->done && sc->slots[i]->kill_at < at)
			sc->slots[i]->kill_at = at;
	struct slot *s = running();
	if (s)
		kill_on_hart(g, s);
}

/* At the running task s's edges (its kernel call's message wait, the way back to U-mode): true
 * if it is to be killed, its kill then on the hart (it may have been marked by another core of
 * a killed job's group while this core had no request of its own). */
static bool running_killed(struct share_core *sc, struct slot *s)
{
	take_kills(sc);
	if (!kill_time(sc->g, s))
		return false;
	kill_on_hart(sc->g, s);
	return true;
}

/* The calls a task of a job's part makes as it would on a core of its own: its messages
 * speak as its own endpoint, its job calls read its own job context. */
/* As each call's declaration says (portable/abi/kcalls.h, "share"). */
bool share_call_allowed(uint64_t nr)
{
	if (nr >= KC_COUNT)
		return false;
	bool job = running()->ep != 0; /* an oversubscribed job's task, not a `share` command's */
	switch (kcall_table[nr].share) {
	case KCALL_SHARE_ANY:
		return true;
	case KCALL_SHARE_JOB:
		return job; /* needs a message identity (or a job) per task */
	case KCALL_SHARE_GROUP:
		return !job; /* a job's tasks synchronise with the job's collectives */
	case KCALL_SHARE_HEAP:
		/* the heap is charged to the core's account at its master: a task that may move
		 * would give it back to another core's (a job's task has its account, kc_heap_grow) */
		return job || mine()->g->place == SHARE_PLACE_PINNED;
	default:
		return false;
	}
}

uint64_t share_kcall_begin(struct trap_frame *f)
{
	struct slot *s = running();
	if (s)
		s->frame = f; /* the same place on every call: the top of the task's trap stack */
	return vtime_now_ns();
}

void share_note_kcall(uint64_t t0_ns)
{
	struct slot *s = running();
	if (s) {
		uint64_t d = vtime_now_ns() - t0_ns; /* less the other tasks' time while it was switched out */
		s->task->sys_ns += d > s->away_ns ? d - s->away_ns : 0;
		s->away_ns = 0;
	}
}

const struct job_ctx *share_job_ctx(void)
{
	struct slot *s = running();
	return s ? s->job : 0;
}

uint64_t share_heap_account(void)
{
	struct slot *s = running();
	return s && s->job ? 1 + (uint64_t)s->task->first_core : 0;
}

/* ---- message waits of a job's tasks ---- */

static uint32_t core_events(void) { return __atomic_load_n(&noc_mailboxes[this_cpu()].events, __ATOMIC_ACQUIRE); }

/* Whether a task other than s could do something now: one that is not in a message wait,
 * or one whose wait has news (the core's events moved since it looked). */
static bool others_can_run(const struct share_core *sc, const struct slot *s)
{
	uint32_t ev = core_events();
	for (unsigned i = 0; i < sc->n; i++) {
		const struct slot *o = sc->slots[i];
		if (o != s && !o->done &&
		    (!o->in_kernel || !o->msg_seen_here || o->msg_seen != ev || msg_endpoint_has_news(o->ep)))
			return true; /* (a message to it may have become visible as the clock ran on) */
	}
	return false;
}

bool share_msg_wait(uint32_t seen, bool movable)
{
	struct slot *s = running();
	if (!s || !s->ep)
		return false; /* a core of its own: the caller waits as always */
	struct share_core *sc = mine();
	if (running_killed(sc, s))
		return true; /* its wait looks again and ends: it is killed */
	bool others = others_can_run(sc, s), news = share_has_news(sc);
	if (!others && !news)
		return false; /* every task here waits: wait as a lone waiter does */
	if (sc->g->wait == SHARE_WAIT_SPIN && others && vtime_now_ns() < sc->slice_end)
		return true; /* a spinner keeps the core until its slice is over */
	s->msg_seen = seen;
	s->msg_seen_here = true;
	s->in_kernel = true;
	s->in_kernel_movable = movable && share_move_in_wait;
	s->msg_asleep = sc->g->wait == SHARE_WAIT_SLEEP;
	uint64_t t0 = vtime_now_ns(), irq = irq_save();
	to_host(sc, s);
	irq_restore(irq);
	s->away_ns += vtime_now_ns() - t0;
	s->in_kernel = s->in_kernel_movable = s->msg_asleep = false;
	return true;
}

bool share_msg_others(void)
{
	struct slot *s = running();
	return s && s->ep && others_can_run(mine(), s);
}

bool share_msg_news_slice(void)
{
	struct share_core *sc = mine();
	return sc && sc->cur >= 0 &&
	       (share_has_news(sc) || __atomic_load_n(&this_hart()->kill_sliced, __ATOMIC_ACQUIRE)); /* a kill too */
}

void share_msg_blocked_slice(uint64_t since_ns)
{
	struct slot *s = running();
	if (s && s->ep && mine()->g->wait == SHARE_WAIT_SLEEP)
		s->t_in += vtime_now_ns() - since_ns; /* a sleeping waiter is not busy: the jump of the clock is no CPU time */
}

/* ---- switching ---- */

/* The hart's task state into s (it gives the core back). */
static void state_save(struct slot *s)
{
	struct hart *me = this_hart();
	uint64_t now = timer_now();
	s->utask = me->utask;
	s->serial = me->task_serial;
	s->limit_fn = me->limit_fn;
	s->limit_left = me->limit_fn && me->limit_deadline > now ? me->limit_deadline - now : 0;
	s->satp = csr_read(satp);
	s->sum = csr_read(sstatus) & SSTATUS_SUM;
	utask_fpu_out(s->utask); /* lazily: only if it wrote an FP register since it was switched in */
}

/* s's task state onto the hart; none yet if it never ran. A task that ran on another core
 * finds this hart's pointer in its trap stack's top word, which trap_vector loads into tp. */
static void state_load(struct slot *s)
{
	struct hart *me = this_hart();
	me->utask = s->utask;
	__atomic_store_n(&me->task_serial, s->serial, __ATOMIC_RELEASE);
	timer_set_limit(s->limit_fn ? timer_now() + s->limit_left : UINT64_MAX, s->limit_fn);
	csr_write(satp, s->satp);
	__asm__ volatile("sfence.vma" ::: "memory");
	if (s->sum)
		csr_set(sstatus, SSTATUS_SUM);
	else
		csr_clear(sstatus, SSTATUS_SUM);
	me->kstack_base = s->stack;
	me->kstack_top = (uint64_t)s->stack + SHARE_STACK_PAGES * PAGE_SIZE;
	if (s->ep) {
		noc_ep_place(s->ep); /* it may have moved here: messages to it wake this core now */
		noc_ep_enter(s->ep); /* its messages speak as its own endpoint */
	}
	if (s->frame)
		*(uint64_t *)((uint8_t *)s->frame + sizeof(struct trap_frame)) = (uint64_t)me;
	utask_fpu_in(s->utask, s->frame); /* whoever ran here last (on whichever core it ran) */
	kill_on_hart(mine()->g, s); /* killed while switched out: it leaves as soon as it runs */
}

/* No task on the hart: the host context's stack, no page table, no watchdog. */
static void state_host(struct share_core *sc)
{
	struct hart *me = this_hart();
	me->utask = 0;
	__atomic_store_n(&me->task_serial, 0, __ATOMIC_RELEASE);
	timer_set_limit(UINT64_MAX, 0);
	csr_write(satp, 0);
	__asm__ volatile("sfence.vma" ::: "memory");
	csr_clear(sstatus, SSTATUS_SUM);
	me->kstack_base = sc->host_stack_base;
	me->kstack_top = sc->host_stack_top;
	noc_ep_enter(0);
}

/*
 * The slice is measured on the core's own clock, which under vtime=1 counts this hart's
 * instructions and has no timer of its own; the machine timer only brings the core back
 * to look at it, every quarter slice of machine time (under -icount the two clocks agree;
 * without it machine time follows the host).
 */
static void arm_check(struct share_core *sc)
{
	uint64_t now = timer_now(), t = timer_us_to_ticks(share_slice_us / 4);
	if (sc->next_check <= now)
		sc->next_check = now + (t ? t : 1);
	timer_arm(sc->next_check);
}

void share_arm(void)
{
	struct share_core *sc = mine();
	if (sc && sc->cur >= 0)
		arm_check(sc);
}

/* The running task gives the core back to the host context; interrupts off. Returns when
 * the task is switched in again (on this core or, after a migration, another). */
static void to_host(struct share_core *sc, struct slot *s)
{
	state_save(s);
	uint64_t now = vtime_now_ns();
	s->task->cpu_ns += now - s->t_in;
	if (s->busy_wait_from)
		s->busy_wait_from = now; /* its busy wait counts from here: nothing twice */
	ctx_switch(s->ctx, sc->host);
}

void share_tick(struct trap_frame *f)
{
	struct share_core *sc = mine();
	struct slot *s = running();
	if (!s)
		return;
	s->frame = f;
	if (running_killed(sc, s))
		return; /* it leaves at this edge (kernel/task/utask.c looks again) */
	if (!s->yield_now && !s->asleep && vtime_now_ns() < sc->slice_end) {
		arm_check(sc); /* a wait in a kernel call may have re-armed the timer */
		return;
	}
	s->yield_now = false;
	to_host(sc, s);
}

/* The host context runs slot i until it gives the core back; interrupts on around it. */
static void run_slot(struct share_core *sc, unsigned i)
{
	struct slot *s = sc->slots[i];
	uint64_t now = vtime_now_ns();
	sc->cur = (int)i;
	sc->last = i;
	if (!s->started) {
		s->started = true;
		s->t_first = now;
		s->task->first_core = (uint16_t)this_cpu();
	}
	s->t_in = now;
	s->task->slices++;
	sc->slice_end = now + share_slice_us * 1000;
	sc->next_check = 0;
	uint64_t irq = irq_save();
	state_load(s);
	arm_check(sc);
	ctx_switch(sc->host, s->ctx);
	sc->cur = -1;
	state_host(sc);
	timer_arm(UINT64_MAX);
	irq_restore(irq);
}

/* ---- the group's barrier ---- */

/*
 * Wakes the group's other cores for an event at time t of this core's clock (the barrier
 * opened, the group ended, every core came). Under virtual time the wake-up is a hand-over:
 * a core whose tasks all wait is published as waiting for nothing, and would otherwise let
 * the others jump past what it does when it wakes (a pico-kernel that learnt of its group's
 * end reported it to its micro-kernel seconds of virtual time late, after the micro-kernel
 * had jumped to its next periodic task). The caller holds a vtime_stamp no later than t.
 */
static void wake_group(struct share_group *g, uint64_t t)
{
	for (unsigned i = 0; i < g->ncores; i++)
		if (g->cores[i] != this_cpu()) {
			vtime_note_event(g->cores[i], t);
			ipi_send(g->cores[i], IPI_WAKE); /* a core whose tasks all sleep waits in WFI */
		}
}

/* Opens the barrier (lock held): everyone leaves at the latest arrival's clock, and no
 * earlier than the opener's (stamped by the caller: the others learn of it then). */
static void release_locked(struct share_group *g, uint64_t stamp)
{
	g->release_ns = g->arrive_max > stamp ? g->arrive_max : stamp;
	g->arrive_max = 0;
	g->arrived = 0;
	g->barriers++;
	__atomic_store_n(&g->gen, g->gen + 1, __ATOMIC_RELEASE);
	wake_group(g, g->release_ns);
}

static bool barrier_open(const struct share_group *g, const struct slot *s)
{
	return __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE) != s->bgen;
}

/*
 * True if every task of this core waits at the closed barrier. Then the core has nothing
 * to run until it opens, whatever the wait mode, and waits as a sleeping one does: its
 * clock stands still and jumps to the opening. Polling would instead run the clock by as
 * many instructions as the emulator happens to execute before the last task arrives (in
 * host time), which is no property of the simulated machine (docs/time.md); the modes
 * differ where they cost something real, when a waiting task shares its core with a
 * working one. A spinning or yielding task waiting so is still counted busy (its CPU time
 * runs on), as a polling thread is for the slides' speed.
 */
static bool all_wait(const struct share_core *sc, const struct share_group *g)
{
	for (unsigned i = 0; i < sc->n; i++) {
		const struct slot *o = sc->slots[i];
		if (!o->done && (!o->in_barrier || barrier_open(g, o)))
			return false;
	}
	return true;
}

int64_t share_kcall(uint64_t nr, const uint64_t *a)
{
	struct slot *s = running();
	if (!s)
		return -ENOTSUP; /* only tasks of a share group have a rank and a barrier */
	struct share_group *g = mine()->g;
	if (nr == KC_SHARE_INFO)
		return a[0] == 0 ? (int64_t)s->task->rank : a[0] == 1 ? (int64_t)g->ntasks : -EINVAL;
	if (!s->in_barrier) {
		s->in_barrier = true;
		uint64_t now = vtime_stamp(), irq = spin_lock(&g->lock);
		s->bgen = g->gen;
		if (now > g->arrive_max)
			g->arrive_max = now;
		if (++g->arrived >= g->expected)
			release_locked(g, now);
		spin_unlock(&g->lock, irq);
		vtime_stamp_done();
	}
	if (barrier_open(g, s)) {
		s->in_barrier = s->asleep = false;
		uint64_t before = vtime_now_ns();
		vtime_advance_to(g->release_ns); /* nobody leaves before the last one came */
		uint64_t now = vtime_now_ns();
		if (s->busy_wait_from) {
			/* it would have been polling all along: busy, as the slides' speed sees it (this
			 * slice so far included, so the slice counts on from here) */
			s->task->cpu_ns += now - s->busy_wait_from;
			s->t_in = now;
			s->busy_wait_from = 0;
		} else {
			s->t_in += now - before; /* a jump of the clock is no CPU time */
		}
		return 0;
	}
	if (g->wait == SHARE_WAIT_SLEEP) {
		s->asleep = true; /* not run again until the barrier opens */
	} else if (all_wait(mine(), g)) {
		s->asleep = true;
		s->busy_wait_from = vtime_now_ns();
	} else if (g->wait == SHARE_WAIT_YIELD)
		s->yield_now = true; /* the next task runs at once */
	return SHARE_RESTART;     /* spin: straight back into the call, until the slice ends */
}

/* A task ended: it no longer counts at the barrier (if it was waiting there, nor does its
 * arrival), which may open it for the others. */
static void task_left(struct share_group *g, struct slot *s)
{
	uint64_t now = vtime_stamp(), irq = spin_lock(&g->lock);
	if (s->in_barrier && g->gen == s->bgen && g->arrived)
		g->arrived--;
	g->expected--;
	if (g->expected && g->arrived >= g->expected)
		release_locked(g, now);
	spin_unlock(&g->lock, irq);
	atomic_max_u64(&g->over_ns, now);
	if (__atomic_add_fetch(&g->ended, 1, __ATOMIC_ACQ_REL) == g->ntasks)
		wake_group(g, __atomic_load_n(&g->over_ns, __ATOMIC_ACQUIRE)); /* the group is over: idle cores leave */
	vtime_stamp_done();
}

/* ---- the tasks and the host context ---- */

/* The bottom of every task's context: runs the task to its end, then gives the core back
 * for good. Never returns. The core is read again at the end: the task may have moved. */
static void slot_main(void *arg)
{
	struct slot *s = arg;
	struct share_group *g = mine()->g;
	irq_enable();
	uint64_t killed = kill_time(g, s);
	if (killed) { /* killed before its first slice: it never starts */
		vtime_advance_to(killed);
		s->task->res = (struct utask_result){.status = -EFAULT, .kill_reason = UTASK_KILL_REQUEST};
		kprintf("mosaic: core %u: task '%s' killed on request at %lu us (%s time), before it started\n",
			this_cpu(), g->name, vtime_now_ns() / 1000, vtime_active ? "virtual" : "serial");
	} else {
		utask_run_args(g->name, 0, g->arg, g->args, g->cpu_ms, &s->task->res);
	}
	irq_disable();
	struct share_core *sc = mine();
	uint64_t now = vtime_now_ns();
	struct share_task *t = s->task;
	t->cpu_ns += now - s->t_in;
	t->real_ns = now - s->t_first;
	t->last_core = (uint16_t)this_cpu();
	g->core_ended[sc->index]++;
	if (t->res.status)
		g->core_failed[sc->index]++;
	int32_t code = t->res.status ? t->res.status : t->res.exit_code;
	if (code && !g->core_exit[sc->index])
		g->core_exit[sc->index] = code;
	t->end_ns = now;
	s->done = true;
	task_left(g, s);
	ctx_switch(s->ctx, sc->host);
	for (;;)
		; /* not reached: a done task is never switched in */
}

/* Removes the ended tasks from this core's table (their stacks are the group's). */
static void reap(struct share_core *sc)
{
	unsigned k = 0;
	for (unsigned i = 0; i < sc->n; i++)
		if (!sc->slots[i]->done)
			sc->slots[k++] = sc->slots[i];
	sc->n = k;
	if (sc->last >= k)
		sc->last = k ? k - 1 : 0;
}

/* The next task to run after the last one, round-robin; -1 if every task here sleeps at
 * the barrier. A sleeper whose barrier opened wakes here. */
static int pick(struct share_core *sc)
{
	int fallback = -1;
	uint32_t ev = core_events();
	take_kills(sc);
	for (unsigned k = 1; k <= sc->n; k++) {
		unsigned i = (sc->last + k) % sc->n;
		struct slot *s = sc->slots[i];
		if (kill_time(sc->g, s)) {
			s->asleep = s->msg_asleep = false;
			return (int)i; /* killed: it runs to its end at once, wherever it waits */
		}
		if (s->asleep && barrier_open(sc->g, s))
			s->asleep = false;
		if (s->asleep)
			continue;
		if (s->msg_asleep && s->msg_seen_here && s->msg_seen == ev && !msg_endpoint_has_news(s->ep)) {
			/* sleeps in a message wait with nothing new: only if nobody else can run, and then
			 * it waits for the core itself (share_msg_wait), its clock jumping as a lone one's */
			if (fallback < 0)
				fallback = (int)i;
			continue;
		}
		return (int)i;
	}
	return fallback;
}

static bool group_over(const struct share_group *g)
{
	return __atomic_load_n(&g->ended, __ATOMIC_ACQUIRE) == g->ntasks;
}

static bool can_run(struct share_core *sc) { return pick(sc) >= 0 || share_has_news(sc) || group_over(sc->g); }

/* The idle wait of wait_for (kernel/time/wait.h). */
struct share_core_wait {
	struct share_core *sc;
	bool (*ready)(struct share_core *);
};

static bool share_wait_look(void *arg, struct vtime_wait_look *l)
{
	const struct share_core_wait *w = arg;
	if (w->ready(w->sc))
		return false;
	shell_task_edge(); /* on the shell's core, the shell reads what was typed meanwhile */
	balance_here(&l->own_ns); /* a task handed to this core arrives then: it must look */
	if (shell_edge_due())
		l->own_ns = 0; /* served on this core's clock: no bound past it */
	return true;
}

static bool share_wait_woken(void *arg)
{
	const struct share_core_wait *w = arg;
	return w->ready(w->sc) || shell_edge_due();
}

/* Waits in WFI until ready(sc), published to virtual time as waiting on the core's clock
 * (its clock does not run on while it waits; an IPI wakes it). Interrupts are on. The NoC
 * wakes the sleeping core for a message or credit to any endpoint it hosts or hosted: such a
 * hand-over lowers its bound, and it must look again to forget it (kernel/time/vtime.c,
 * forget_looked_notes), or it holds every other core back. */
static void wait_for(struct share_core *sc, bool (*ready)(struct share_core *))
{
	struct share_core_wait w = {sc, ready};
	vtime_wait(&(const struct vtime_wait){.look = share_wait_look, .woken = share_wait_woken,
					      .keep = vtime_wait_look_again, .arg = &w,
					      .sleeping = &noc_mailboxes[this_cpu()].sleeping});
}

static bool all_started(struct share_core *sc)
{
	struct share_group *g = sc->g;
	return __atomic_load_n(&g->started, __ATOMIC_ACQUIRE) >= __atomic_load_n(&g->start_expect, __ATOMIC_ACQUIRE);
}

/* Co-scheduling: no task of the group starts before every core of it has come, and all
 * start at the latest of their clocks. A core whose clock ran ahead (an earlier group's
 * waits, say) would otherwise hold the first barrier back, and the group's time would
 * count that skew. */
static void start_together(struct share_core *sc)
{
	struct share_group *g = sc->g;
	uint64_t now = vtime_stamp(), irq = spin_lock(&g->lock);
	if (now > g->start_ns)
		g->start_ns = now;
	__atomic_store_n(&g->started, g->started + 1, __ATOMIC_RELEASE);
	bool last = g->started >= g->start_expect;
	spin_unlock(&g->lock, irq);
	if (last)
		wake_group(g, __atomic_load_n(&g->start_ns, __ATOMIC_ACQUIRE));
	vtime_stamp_done();
	wait_for(sc, all_started);
	vtime_advance_to(__atomic_load_n(&g->start_ns, __ATOMIC_ACQUIRE));
}

/* A job's part: opens the endpoints of the tasks that start on this core, in the job's
 * session, before any peer may send to them. A task whose endpoint cannot be made ends
 * at once, failed. */
static void open_endpoints(struct share_core *sc)
{
	struct share_group *g = sc->g;
	for (unsigned i = 0; i < sc->n; i++) {
		struct slot *s = sc->slots[i];
		int e = noc_ep_bind(s->ep);
		if (e) {
			s->task->res.status = e;
			s->task->first_core = s->task->last_core = (uint16_t)this_cpu();
			g->core_ended[sc->index]++;
			g->core_failed[sc->index]++;
			if (!g->core_exit[sc->index])
				g->core_exit[sc->index] = e;
			s->done = true;
			task_left(g, s);
			continue;
		}
		noc_ep_enter(s->ep);
		msg_session_begin(g->session);
		noc_ep_enter(0);
	}
}

/* One core's part of a group: its scheduler, until the whole group ended. */
static void core_main(void *arg)
{
	struct share_core *sc = arg;
	struct share_group *g = sc->g;
	struct hart *h = this_hart();
	sc->host_stack_base = h->kstack_base;
	sc->host_stack_top = h->kstack_top;
	sc->cur = -1;
	share_cores[this_cpu()] = sc;
	/* published for utask_kill, which posts kills of the group's tasks here from now on */
	__atomic_store_n(&h->sliced_session, g->session, __ATOMIC_SEQ_CST);
	__atomic_store_n(&h->sliced_group, g->serial, __ATOMIC_SEQ_CST);
	share_balance_drain(); /* an earlier group's records that came after it ended here */
	irq_enable();
	if (g->eps)
		open_endpoints(sc);
	if (g->core_begin)
		g->core_begin(g, sc->index);
	start_together(sc);
	while (!group_over(sc->g)) {
		reap(sc);
		share_balance_step(sc);
		int i = sc->n ? pick(sc) : -1;
		if (i >= 0)
			run_slot(sc, (unsigned)i);
		else
			wait_for(sc, can_run); /* every task here sleeps at the barrier, or none is left */
	}
	share_cores[this_cpu()] = 0;
	__atomic_store_n(&h->sliced_group, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&h->kill_sliced, 0, __ATOMIC_SEQ_CST); /* every task here has ended */
	share_balance_drain();
	vtime_advance_to(__atomic_load_n(&g->over_ns, __ATOMIC_ACQUIRE)); /* it learns of the end no earlier */
	if (g->core_end)
		g->core_end(g, sc->index); /* last: the group may be freed from here on */
}

/* ---- the group ---- */

unsigned share_idle_picos(uint16_t *cores, unsigned n)
{
	unsigned k = 0;
	for (unsigned c = 0; c < hart_count && k < n; c++)
		if (!is_master(c) && c != this_cpu() && harts[c].state == HART_ONLINE)
			cores[k++] = (uint16_t)c;
	return k;
}

/* A core may still be busy only when the caller retries it (share_group_start: a job's core
 * reports its last task's end before its call returns, so the next job can be granted it
 * while it is still HART_BUSY for a few instructions). */
static bool core_usable(unsigned c, bool busy_ok)
{
	enum hart_state st = __atomic_load_n(&harts[c].state, __ATOMIC_ACQUIRE);
	return st == HART_ONLINE || (busy_ok && st == HART_BUSY);
}

static int check_group(const struct share_group *g, bool busy_ok)
{
	if (g->ntasks == 0 || g->ntasks > SHARE_TASKS_MAX || g->ncores == 0 || g->ncores > SHARE_CORES_MAX ||
	    g->ncores > g->ntasks || g->ntasks > g->ncores * SHARE_MAX || g->wait >= SHARE_WAITS ||
	    g->place >= SHARE_PLACES)
		return -EINVAL;
	if (!g->name || !user_program_find(g->name))
		return -ENOENT;
	for (unsigned i = 0; i < g->ncores; i++) {
		unsigned c = g->cores[i];
		if (c >= hart_count || is_master(c) || c == this_cpu() || !core_usable(c, busy_ok))
			return -EPERM;
		for (unsigned k = 0; k < i; k++)
			if (g->cores[k] == c)
				return -EINVAL;
	}
	return 0;
}

void share_group_free(struct share_group *g)
{
	for (unsigned i = 0; i < g->ntasks; i++)
		if (g->slots[i]) {
			page_free(g->slots[i]->stack, SHARE_STACK_PAGES);
			kfree(g->slots[i]);
			g->slots[i] = 0;
		}
	kfree(g->state);
	g->state = 0;
}

/* Checks g and makes its tasks and cores' state; nothing runs yet. */
static int prepare(struct share_group *g, bool busy_ok)
{
	int e = check_group(g, busy_ok);
	if (e)
		return e;
	unsigned per_core[SHARE_CORES_MAX] = {0};
	for (unsigned i = 0; i < g->ntasks; i++) {
		unsigned k = g->first_core ? g->first_core[i] : i % g->ncores;
		if (k >= g->ncores || ++per_core[k] > SHARE_MAX)
			return -EINVAL;
	}
	struct share_core *cores = kmalloc(g->ncores * sizeof *cores);
	if (!cores)
		return -ENOMEM;
	memset(cores, 0, g->ncores * sizeof *cores);
	memset(g->tasks, 0, sizeof g->tasks);
	memset(g->slots, 0, sizeof g->slots);
	memset(g->called, 0, sizeof g->called);
	memset(g->core_ended, 0, sizeof g->core_ended);
	memset(g->core_failed, 0, sizeof g->core_failed);
	memset(g->core_exit, 0, sizeof g->core_exit);
	g->lock = (struct spinlock){0};
	static uint32_t serials;
	g->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
	g->balance_sent = g->balance_dropped = 0;
	g->arrived = g->gen = g->ended = g->migrations = g->moves_in_wait = g->barriers = 0;
	g->over_ns = 0;
	g->kill_at = 0;
	g->arrive_max = g->release_ns = 0;
	g->expected = g->ntasks;
	g->started = g->start_ns = 0;
	g->start_expect = g->ncores;
	g->state = cores;
	for (unsigned i = 0; i < g->ntasks; i++) {
		struct slot *s = kmalloc(sizeof *s);
		void *stack = s ? page_alloc(SHARE_STACK_PAGES) : 0;
		if (!stack) {
			kfree(s);
			share_group_free(g);
			return -ENOMEM;
		}
		memset(s, 0, sizeof *s);
		stack_guard_set(stack);
		s->stack = stack;
		s->task = &g->tasks[i];
		s->task->rank = g->jobs ? g->jobs[i].rank : i;
		s->job = g->jobs ? &g->jobs[i] : 0;
		s->ep = g->eps ? g->eps[i] : 0;
		s->ctx[0] = (uint64_t)ctx_first;
		s->ctx[1] = (uint64_t)stack + SHARE_STACK_PAGES * PAGE_SIZE;
		s->ctx[2] = (uint64_t)s;         /* s0: slot_main's argument */
		s->ctx[3] = (uint64_t)slot_main; /* s1: the function */
		g->slots[i] = s;
		/* every placement starts from the same map: rank i on core i mod C, or as given */
		struct share_core *sc = &cores[g->first_core ? g->first_core[i] : i % g->ncores];
		sc->slots[sc->n++] = s;
	}
	for (unsigned k = 0; k < g->ncores; k++) {
		cores[k].g = g;
		cores[k].index = k;
	}
	return 0;
}

bool share_group_call_rest(struct share_group *g)
{
	bool all = true;
	for (unsigned k = 0; k < g->ncores; k++)
		if (!g->called[k] && !(g->called[k] = hart_call(g->cores[k], core_main, &g->state[k])))
			all = false;
	return all;
}

int share_group_start(struct share_group *g)
{
	int e = prepare(g, true);
	if (!e)
		share_group_call_rest(g);
	return e;
}

struct group_wait {
	struct share_group *g;
	bool retry; /* a core's kill has not landed yet (its group was still starting) */
};

static bool interrupt_due(void *arg)
{
	struct group_wait *w = arg;
	return w->retry || w->g->interrupted(w->g, false);
}

/* Waits for the first `called` cores' parts to end. Once g->interrupted says so, every task of the
 * group is killed (a kill of a time-sliced core reaches each task it holds); a core still busy
 * whose kill found no task yet is tried again until it lands, then the ends are waited for. */
static void wait_cores(struct share_group *g, unsigned called)
{
	struct group_wait w = {.g = g};
	bool to_kill[SHARE_CORES_MAX] = {0};
	for (unsigned k = 0; k < called; k++) {
		while (g->interrupted && !hart_call_wait_or(g->cores[k], interrupt_due, &w)) {
			if (!w.retry && g->interrupted(g, true))
				for (unsigned j = 0; j < called; j++)
					to_kill[j] = true;
			w.retry = false;
			for (unsigned j = k; j < called; j++) {
				unsigned c = g->cores[j];
				if (to_kill[j] && (harts[c].state != HART_BUSY || utask_kill(c, 0) == 0))
					to_kill[j] = false;
				w.retry |= to_kill[j];
			}
			if (!w.retry)
				g->interrupted = 0; /* every kill landed: only the ends are left */
		}
		hart_call_wait(g->cores[k]);
	}
}

int share_group_run(struct share_group *g)
{
	int e = prepare(g, false);
	if (e)
		return e;
	struct share_core *cores = g->state;
	uint64_t t0 = vtime_now_ns();
	unsigned called = 0;
	for (; called < g->ncores; called++)
		if (!hart_call(g->cores[called], core_main, &cores[called]))
			break;
	if (called < g->ncores) {
		/* a core became busy after the check: the others start without it, its tasks never
		 * start and leave the barrier */
		uint64_t irq = spin_lock(&g->lock);
		__atomic_store_n(&g->start_expect, called, __ATOMIC_RELEASE);
		spin_unlock(&g->lock, irq);
		for (unsigned k = 0; k < called; k++)
			ipi_send(g->cores[k], IPI_WAKE);
		for (unsigned k = called; k < g->ncores; k++)
			for (unsigned i = 0; i < cores[k].n; i++) {
				struct slot *s = cores[k].slots[i];
				s->task->res.status = -EBUSY;
				s->done = true;
				task_left(g, s);
			}
	}
	wait_cores(g, called);
	uint64_t start = g->start_ns > t0 ? g->start_ns : t0;
	g->run_ns = vtime_now_ns() - start; /* the waits above brought this clock to every core's end */
	share_group_free(g);
	return called < g->ncores ? -EBUSY : 0;
}
