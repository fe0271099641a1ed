/*
 * ktest vtime: per-core virtual clocks (kernel/time/vtime.c). Standalone (ktest=vtime, with
 * vtime=1 and the vclock plugin): a loop advances the clock by its instructions, two
 * cores working at once each see only their own work, a ping-pong takes the same
 * virtual time whether the other cores are idle or busy, and a storm of messages
 * leaves a trace (vtrace lines) from which tests/test_vtime.py checks that no message
 * was consumed before its arrival and each core took them in arrival order; an idle machine
 * does not carry the NoC sampler's core (an observer task) ahead of the others.
 */
#include "kernel/core/ktest.h"
#include "kernel/time/vtime.h"
#include "kernel/time/vclock.h"
#include "kernel/core/hart.h"
#include "kernel/console/console.h"
#include "kernel/msg/msg.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "kernel/domain/domain.h"
#include "kernel/domain/noc_sampler.h"
#include "tests/ktest/kt_util.h"

#define NEED_VTIME() KT_SKIP_UNLESS(vtime_active, "(skipped: boot with vtime=1 and the vclock plugin)")

/* A loop whose instruction count is fixed by its iterations. */
static __attribute__((noinline)) void spin(uint64_t n)
{
	for (volatile uint64_t i = 0; i < n; i = i + 1)
		;
}

/* Clock and instruction count over a loop: the clock moves by exactly the instructions
 * times vtime_ns_per_insn (no wait in between, so nothing is skipped). */
struct span {
	uint64_t dt, di;
};

static void measure(struct span *s, uint64_t n)
{
	uint64_t t0 = vtime_now_ns(), i0 = vclock_instret();
	spin(n);
	uint64_t i1 = vclock_instret(), t1 = vtime_now_ns();
	s->dt = t1 - t0;
	s->di = i1 - i0;
}

KTEST_STANDALONE(vtime, a_loop_advances_the_clock_by_its_instructions)
{
	NEED_VTIME();
	struct span a, b;
	measure(&a, 1000);
	measure(&b, 2000);
	/* the instructions between the two clock reads: the loop, the instret reads and one
	 * marker more on the clock side (vtime_now_ns reads the count itself) */
	KT_ASSERT(a.dt > 0 && b.dt > a.dt);
	KT_ASSERT_EQ(b.dt - a.dt, (b.di - a.di) * vtime_ns_per_insn);
	kprintf("ktest:   1000 more iterations: %lu ns more at %lu ns per instruction\n", b.dt - a.dt,
		vtime_ns_per_insn);
}

static struct span two[MOSAIC_MAX_HARTS];
static uint64_t two_n[MOSAIC_MAX_HARTS];

static void two_side(void *arg)
{
	(void)arg;
	measure(&two[this_cpu()], two_n[this_cpu()]);
}

KTEST_STANDALONE(vtime, two_cores_at_once_each_see_their_own_work)
{
	NEED_VTIME();
	KT_ASSERT(hart_count >= 3);
	uint16_t cores[2] = {1, 2};
	two_n[1] = 5000;
	two_n[2] = 50000;
	struct span alone;
	measure(&alone, 5000);
	/* the clock reads cost a few instructions beyond the instret reads: the same on every core */
	uint64_t overhead = alone.dt - alone.di * vtime_ns_per_insn;
	KT_ASSERT(ktest_run_on(cores, 2, two_side, 0));
	for (unsigned i = 0; i < 2; i++)
		KT_ASSERT_EQ(two[cores[i]].dt - two[cores[i]].di * vtime_ns_per_insn, overhead);
	/* ten times the iterations, about ten times the time: the other core's work is not in it */
	KT_ASSERT(two[2].dt > 9 * two[1].dt && two[2].dt < 11 * two[1].dt);
	kprintf("ktest:   core 1: %lu ns for 5000 iterations, core 2: %lu ns for 50000, at once\n", two[1].dt,
		two[2].dt);
}

/* ---- ping-pong beside busy cores ---- */

#define PP_ROUNDS 10

struct pingpong {
	unsigned a, b;
	uint64_t rtt_ns;
	int err;
	volatile uint32_t stop_busy;
};

static void pp_side(void *arg)
{
	struct pingpong *p = arg;
	unsigned me = this_cpu();
	uint64_t v = 0;
	struct mosaic_status st;
	if (me == p->a) {
		uint64_t t0 = vtime_now_ns();
		for (unsigned r = 0; r < PP_ROUNDS && !p->err; r++) {
			int e = msg_send((int)p->b, 5, &v, sizeof v);
			if (!e)
				e = msg_recv((int)p->b, 5, &v, sizeof v, &st);
			if (e)
				p->err = e;
		}
		p->rtt_ns = (vtime_now_ns() - t0) / PP_ROUNDS;
		__atomic_store_n(&p->stop_busy, 1, __ATOMIC_RELEASE);
	} else if (me == p->b) {
		for (unsigned r = 0; r < PP_ROUNDS && !p->err; r++) {
			int e = msg_recv((int)p->a, 5, &v, sizeof v, &st);
			v++;
			if (!e)
				e = msg_send((int)p->a, 5, &v, sizeof v);
			if (e)
				p->err = e;
		}
	} else {
		/* busy: compute until the ping-pong is over, sending nothing */
		while (!__atomic_load_n(&p->stop_busy, __ATOMIC_ACQUIRE))
			spin(2000);
	}
}

static uint64_t ping_pong(struct ktest_ctx *kt, bool busy)
{
	static struct pingpong p;
	p = (struct pingpong){.a = 1, .b = 2};
	uint16_t cores[MOSAIC_MAX_HARTS];
	unsigned n = 0;
	for (unsigned c = 1; c < hart_count && (busy || n < 2); c++)
		cores[n++] = (uint16_t)c;
	if (!ktest_run_on(cores, n, pp_side, &p)) {
		ktest_fail(kt, __FILE__, __LINE__, "could not start the ping-pong");
		return 0;
	}
	if (p.err)
		ktest_fail(kt, __FILE__, __LINE__, "ping-pong error %d", p.err);
	return p.rtt_ns;
}

KTEST_STANDALONE(vtime, ping_pong_takes_the_same_time_beside_busy_cores)
{
	NEED_VTIME();
	KT_ASSERT(hart_count >= 4);
	uint64_t idle = ping_pong(kt, false);
	uint64_t busy = ping_pong(kt, true);
	kprintf("ktest:   ping-pong 1<->2: %lu ns per round trip with the others idle, %lu ns with %u cores busy\n",
		idle, busy, hart_count - 3);
	KT_ASSERT(idle > 0);
	/* equal in most runs; a wake-up's work before a wait still differs by a few instructions
	 * depending on whether the message was posted yet (docs/time.md, "What is not done yet") */
	uint64_t diff = busy > idle ? busy - idle : idle - busy;
	KT_ASSERT(diff * 100 <= idle * 2);
}

/* ---- a storm with a trace ---- */

#define STORM_MSGS 6 /* per sender, to each of its two neighbours in core order */

struct storm_rec {
	uint16_t src;
	uint64_t deliver, recv;
};
static struct storm_rec storm_log[MOSAIC_MAX_HARTS][2 * STORM_MSGS];

static void storm_side(void *arg)
{
	int *err = arg;
	unsigned me = this_cpu(), n = hart_count;
	unsigned right = (me + 1) % n, left = (me + n - 1) % n;
	uint64_t v = me;
	for (unsigned i = 0; i < STORM_MSGS; i++) {
		spin(200 * (me % 7)); /* senders at different speeds */
		if (msg_send((int)right, 9, &v, sizeof v) || msg_send((int)left, 9, &v, sizeof v))
			*err = 1;
	}
	for (unsigned i = 0; i < 2 * STORM_MSGS; i++) {
		struct mosaic_status st;
		if (msg_recv(MSG_ANY_SOURCE, 9, &v, sizeof v, &st)) {
			*err = 2;
			return;
		}
		storm_log[me][i] = (struct storm_rec){(uint16_t)st.source, st.t_deliver_ns, st.t_recv_ns};
	}
}

KTEST_STANDALONE(vtime, storm_trace)
{
	NEED_VTIME();
	KT_ASSERT(hart_count >= 3);
	static int err;
	err = 0;
	uint16_t cores[MOSAIC_MAX_HARTS];
	for (unsigned c = 0; c < hart_count; c++)
		cores[c] = (uint16_t)c;
	uint64_t late0, late_ns0; /* the storm's own: not what earlier tests of the boot left */
	vtime_late_totals(&late0, &late_ns0);
	KT_ASSERT(ktest_run_on(cores, hart_count, storm_side, &err));
	KT_ASSERT_EQ(err, 0);
	for (unsigned c = 0; c < hart_count; c++)
		for (unsigned i = 0; i < 2 * STORM_MSGS; i++)
			kprintf("vtrace core=%u i=%u src=%u deliver=%lu recv=%lu\n", c, i, storm_log[c][i].src,
				storm_log[c][i].deliver, storm_log[c][i].recv);
	uint64_t late, late_ns;
	vtime_late_totals(&late, &late_ns);
	kprintf("vtrace late=%lu late_ns=%lu\n", late - late0, late_ns - late_ns0);
	kprintf("ktest:   late messages of the whole boot so far: %lu (%lu ns)\n", late, late_ns);
}

#define IDLE_MACHINE_US 300000 /* machine time the whole machine waits for nothing */

static unsigned idle_sampler;
static uint64_t idle_sampler_clock, idle_others_clock;

/* Waits for nothing (an interrupt, or the machine timer's end of IDLE_MACHINE_US), then
 * notes the sampler core's clock and the latest of the others. */
static void wait_for_nothing(void *arg)
{
	(void)arg;
	vtime_wait_begin();
	uint64_t wake;
	bool moved = vtime_idle(UINT64_MAX, UINT64_MAX, &wake);
	uint64_t until = timer_now() + timer_us_to_ticks(IDLE_MACHINE_US);
	while (timer_now() < until)
		WAIT_UNTIL(false, until);
	vtime_wait_end();
	idle_others_clock = moved || wake ? UINT64_MAX : 0; /* a wait for nothing neither jumps nor polls */
	for (unsigned c = 0; c < hart_count; c++)
		if (c != idle_sampler && harts[c].state != HART_ABSENT && harts[c].state != HART_FAILED &&
		    vtime_of(c) > idle_others_clock)
			idle_others_clock = vtime_of(c);
	idle_sampler_clock = vtime_of(idle_sampler);
}

/* The whole machine waits for nothing for a while of machine time (as at an idle shell prompt):
 * the sampler's core, whose only events are its observer task's releases, must not jump from
 * one to the next meanwhile. Its clock stays within a tenth of a period of the latest other. */
KTEST_STANDALONE(vtime, an_idle_machine_does_not_run_its_observers_ahead)
{
	NEED_VTIME();
	idle_sampler = domain_master(0);
	uint64_t period_ns = noc_sample_period_ms() * 1000000;
	if (!period_ns || hart_count < 2) {
		kprintf("ktest:   (skipped: needs the NoC sampler and two cores)\n");
		return;
	}
	/* if this core is the sampler's, another waits and this one idles as a master does */
	uint16_t waiter = (uint16_t)(idle_sampler == this_cpu() ? (idle_sampler + 1) % hart_count : this_cpu());
	KT_ASSERT(ktest_run_on(&waiter, 1, wait_for_nothing, 0));
	kprintf("ktest:   after %u ms of machine time idle: sampler core %u at %lu ns, the others at most %lu ns\n",
		IDLE_MACHINE_US / 1000, idle_sampler, idle_sampler_clock, idle_others_clock);
	KT_ASSERT(idle_others_clock != UINT64_MAX);
	KT_ASSERT(idle_sampler_clock < idle_others_clock + period_ns / 10);
}
