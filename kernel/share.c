/*
 * Time-sliced pico-kernels (see share.h). A shared core keeps one context per task:
 * its kernel stack (which also holds its trap stack), its callee-saved registers
 * (arch/riscv/switch.S) and the per-hart task state the rest of the kernel reads
 * from struct hart: the running utask, its serial (what a kill names), its CPU-limit
 * watchdog (kept as time left, so only its own slices count) and its page table.
 *
 * A task is switched out only at the edge back to U-mode (an interrupt taken in
 * U-mode, or the end of a kernel call), never inside the kernel: kernel code on a
 * shared core runs exactly as on a core of its own, and the per-core state of the
 * message layer, the timer and the clocks is never seen half-changed by a second task.
 */
#include "kernel/share.h"
#include "kernel/kcall.h"
#include "kernel/hart.h"
#include "kernel/errno.h"
#include "kernel/kheap.h"
#include "kernel/page_alloc.h"
#include "kernel/stack_guard.h"
#include "kernel/bootargs.h"
#include "kernel/domain.h"
#include "kernel/vtime.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"
#include "lib/string.h"

uint64_t share_slice_us = SHARE_SLICE_US_DEFAULT;
BOOTARG_U64("share_slice_us", share_slice_us, SHARE_SLICE_US_MIN, SHARE_SLICE_US_MAX,
	    "time slice of a pico-kernel shared by several user tasks, us of guest time");

void ctx_switch(uint64_t *save, const uint64_t *load);
void ctx_first(void);

struct slot {
	uint64_t ctx[14]; /* ra, sp, s0..s11 while switched out */
	void *stack;
	struct share_task *task;
	/* the hart's task state while switched out */
	struct utask *utask;
	uint64_t serial, satp, limit_left;
	void (*limit_fn)(void);
	uint64_t t_in, t_first; /* core clock: switched in, first switched in */
	bool started, done;
};

struct share_core {
	struct slot slots[SHARE_MAX];
	unsigned n, cur, live;
	uint64_t host[14]; /* the context that called share_run */
	uint64_t slice_end;  /* the core's clock (ns): the current slice ends */
	uint64_t next_check; /* timer ticks: the next interrupt that looks at the clock */
	void *host_stack_base;
	uint64_t host_stack_top;
};

/* Written only by the core itself. */
static struct share_core *shared[MOSAIC_MAX_HARTS];

bool share_active(void) { return shared[this_cpu()] != 0; }

bool share_call_allowed(uint64_t nr)
{
	switch (nr) {
	case KC_EXIT:
	case KC_WRITE:
	case KC_CORE_ID:
	case KC_DOMAIN_ID:
	case KC_TIME_NS:
	case KC_SLEEP_US:
	case KC_HEAP_GROW:
		return true;
	default:
		return false; /* needs a message identity (or a job) per task: not yet */
	}
}

void share_note_kcall(uint64_t t0_ns)
{
	struct share_core *sc = shared[this_cpu()];
	if (sc)
		sc->slots[sc->cur].task->sys_ns += vtime_now_ns() - t0_ns;
}

/* The hart's task state into s (it is being switched out). */
static void state_save(struct slot *s)
{
	struct hart *me = this_hart();
	uint64_t now = timer_now();
	s->utask = me->utask;
	s->serial = me->task_serial;
	s->limit_fn = me->limit_fn;
	s->limit_left = me->limit_fn && me->limit_deadline > now ? me->limit_deadline - now : 0;
	s->satp = csr_read(satp);
}

/* s's task state onto the hart (it is being switched in); none yet if it never ran. */
static void state_load(struct slot *s)
{
	struct hart *me = this_hart();
	me->utask = s->utask;
	__atomic_store_n(&me->task_serial, s->serial, __ATOMIC_RELEASE);
	timer_set_limit(s->limit_fn ? timer_now() + s->limit_left : UINT64_MAX, s->limit_fn);
	csr_write(satp, s->satp);
	__asm__ volatile("sfence.vma" ::: "memory");
	me->kstack_base = s->stack;
	me->kstack_top = (uint64_t)s->stack + SHARE_STACK_PAGES * PAGE_SIZE;
}

/* The next live task after the current one, round-robin (the current one if it is the only one). */
static unsigned next_live(const struct share_core *sc)
{
	for (unsigned k = 1; k <= sc->n; k++) {
		unsigned i = (sc->cur + k) % sc->n;
		if (!sc->slots[i].done)
			return i;
	}
	return sc->cur;
}

/*
 * The slice is measured on the core's own clock, which under vtime=1 counts this
 * hart's instructions and has no timer of its own; the machine timer only brings
 * the core back to look at it, every quarter slice of machine time (under -icount
 * the two clocks agree, without it machine time follows the host).
 */
static uint64_t check_ticks(void)
{
	uint64_t t = timer_us_to_ticks(share_slice_us / 4);
	return t ? t : 1;
}

static void arm_check(struct share_core *sc)
{
	uint64_t now = timer_now();
	if (sc->next_check <= now)
		sc->next_check = now + check_ticks();
	timer_arm(sc->next_check);
}

/* A slice begins at `now` (the core's clock) for the current task. */
static void slice_begin(struct share_core *sc, uint64_t now)
{
	sc->slice_end = now + share_slice_us * 1000;
	sc->next_check = 0;
	if (sc->live > 1)
		arm_check(sc);
}

/* Switches from the current slot to slot i; interrupts off. Returns when the current
 * slot is switched in again (never, if it is done). */
static void switch_to(struct share_core *sc, unsigned i)
{
	struct slot *a = &sc->slots[sc->cur], *b = &sc->slots[i];
	uint64_t now = vtime_now_ns();
	if (!a->done) {
		state_save(a);
		a->task->cpu_ns += now - a->t_in;
	}
	sc->cur = i;
	if (!b->started) {
		b->started = true;
		b->t_first = now;
	}
	b->t_in = now;
	b->task->slices++;
	state_load(b);
	slice_begin(sc, now);
	ctx_switch(a->ctx, b->ctx);
}

void share_arm(void)
{
	struct share_core *sc = shared[this_cpu()];
	if (sc && sc->live > 1)
		arm_check(sc);
}

void share_tick(void)
{
	struct share_core *sc = shared[this_cpu()];
	if (!sc || sc->live < 2)
		return;
	if (vtime_now_ns() < sc->slice_end) {
		arm_check(sc); /* a wait in a kernel call may have re-armed the timer */
		return;
	}
	switch_to(sc, next_live(sc));
}

/* The bottom of every task's context: runs the task to its end, then hands the core
 * to the next live task, or back to share_run after the last. Never returns. */
static void slot_main(void *arg)
{
	struct slot *s = arg;
	struct share_core *sc = shared[this_cpu()];
	irq_enable();
	utask_run_entry(s->task->name, 0, s->task->arg, s->task->cpu_ms, &s->task->res);
	irq_disable();
	uint64_t now = vtime_now_ns();
	s->task->cpu_ns += now - s->t_in;
	s->task->real_ns = now - s->t_first;
	s->done = true;
	sc->live--;
	if (sc->live)
		switch_to(sc, next_live(sc));
	ctx_switch(s->ctx, sc->host);
	for (;;)
		; /* not reached: a done slot is never switched in */
}

int share_run(struct share_task *tasks, unsigned n)
{
	unsigned me = this_cpu();
	if (n == 0 || n > SHARE_MAX)
		return -EINVAL;
	if (is_master(me))
		return -EPERM;
	if (shared[me] || this_hart()->utask)
		return -EBUSY;
	struct share_core *sc = kmalloc(sizeof *sc);
	if (!sc)
		return -ENOMEM;
	memset(sc, 0, sizeof *sc);
	for (unsigned i = 0; i < n; i++) {
		struct slot *s = &sc->slots[i];
		tasks[i].res = (struct utask_result){0};
		tasks[i].cpu_ns = tasks[i].sys_ns = tasks[i].real_ns = tasks[i].slices = 0;
		s->task = &tasks[i];
		s->stack = page_alloc(SHARE_STACK_PAGES);
		if (!s->stack) {
			for (unsigned k = 0; k < i; k++)
				page_free(sc->slots[k].stack, SHARE_STACK_PAGES);
			kfree(sc);
			return -ENOMEM;
		}
		stack_guard_set(s->stack);
		s->ctx[0] = (uint64_t)ctx_first;
		s->ctx[1] = (uint64_t)s->stack + SHARE_STACK_PAGES * PAGE_SIZE;
		s->ctx[2] = (uint64_t)s;        /* s0: slot_main's argument */
		s->ctx[3] = (uint64_t)slot_main; /* s1: the function */
	}
	struct hart *h = this_hart();
	sc->n = sc->live = n;
	sc->host_stack_base = h->kstack_base;
	sc->host_stack_top = h->kstack_top;
	uint64_t irq = irq_save();
	shared[me] = sc;
	/* slot 0 is "current" but not started: switch_to saves nothing for it */
	sc->cur = 0;
	sc->slots[0].started = true;
	sc->slots[0].t_first = sc->slots[0].t_in = vtime_now_ns();
	sc->slots[0].task->slices = 1;
	state_load(&sc->slots[0]);
	slice_begin(sc, sc->slots[0].t_in);
	ctx_switch(sc->host, sc->slots[0].ctx);
	/* every task ended: the host's stack and no task on the hart again */
	shared[me] = 0;
	h->kstack_base = sc->host_stack_base;
	h->kstack_top = sc->host_stack_top;
	timer_arm(UINT64_MAX);
	irq_restore(irq);
	for (unsigned i = 0; i < n; i++)
		page_free(sc->slots[i].stack, SHARE_STACK_PAGES);
	kfree(sc);
	return 0;
}

struct share_request {
	struct share_task *tasks;
	unsigned n;
	int result;
};

static void share_here(void *arg)
{
	struct share_request *r = arg;
	r->result = share_run(r->tasks, r->n);
}

int share_run_on(unsigned core, struct share_task *tasks, unsigned n)
{
	if (core >= hart_count)
		return -ENXIO;
	if (is_master(core))
		return -EPERM;
	struct share_request r = {.tasks = tasks, .n = n};
	if (core == this_cpu())
		share_here(&r);
	else if (hart_call(core, share_here, &r))
		hart_call_wait(core);
	else
		return -EBUSY;
	return r.result;
}
