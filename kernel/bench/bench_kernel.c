/*
 * The kernel-call benchmark behind `make bench-kernel` (scripts/bench-kernel runs
 * it under -icount, twice, and collects the lines). Shell command
 * `bench_kernel [reps]`: every result is one line "bench-kernel: {json}".
 *
 * What it measures, on domain 0 (its master and its pico-kernels):
 *   local       kcall(KC_CORE_ID) on a pico-kernel: runs on the calling core
 *   master_direct  kcall(KC_HEAP_GROW, 0 bytes) made on the master itself: the
 *               same handler as the forwarded call, without the NoC
 *   forwarded   kcall(KC_HEAP_GROW, 0 bytes) from each pico-kernel while the
 *               master sleeps in its idle loop: request and reply cross the NoC.
 *               heap_grow(0) checks the caller's account and returns the bytes in
 *               use; it changes nothing.
 *   split       the forwarded call's software taken apart, each side measured
 *               while every other hart sleeps: the caller's kcall() with the reply
 *               already delivered (so it never waits), and the master's
 *               master_serve_one() with the request already delivered
 *   contention  k = 1, 2, 4, .. all pico-kernels of domain 0 calling at once,
 *               each making `reps` forwarded calls back to back
 *
 * Two clocks are read around every call: vtime_now_ns() (the time CSR: 10 MHz on
 * QEMU virt, so 100 ns steps) and fine_clock(). Under QEMU 7.2's -icount,
 * instret is the machine-wide instruction clock (QEMU's icount: the instructions
 * of every hart, plus the idle time skipped while all harts sleep), not a count
 * of the reading hart's own instructions; the setup line checks this
 * ("instret_machine_wide"). So an instret difference is guest time in ns at 1 ns
 * resolution, and it equals the reading hart's own instructions only while every
 * other hart sleeps (as in local, master_direct and split).
 *
 * Every phase runs under a watchdog (run_phase): a forwarded call whose wake-up
 * is lost would otherwise hang the benchmark; instead the run ends with a
 * "stuck" line saying what domain 0's master is doing, and status 1.
 */
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/core/ktest.h"
#include "kernel/kcall/kcall.h"
#include "kernel/domain/domain.h"
#include "kernel/core/errno.h"
#include "kernel/core/poweroff.h"
#include "kernel/core/prof.h"
#include "kernel/core/config.h"
#include "kernel/msg/msg.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"
#include "lib/string.h"
#include "lib/stats.h"
#include "kernel/time/vtime.h"
#include "kernel/time/wait.h"
#include "kernel/domain/background.h"

#define MAX_REPS 64
#define LOCAL_BATCH 1000
#define FAKE_REPLY 0x5eed                /* the split's pre-delivered reply: kcall must return it */
#define WRONG_RESULT (-1000)             /* a call answered, but not what it should have */
#define SETTLE_US 20                     /* long enough for any message here to be delivered */
#define WATCH_MS 1000                    /* guest time a phase may take before the watchdog ends the run */


/*
 * The 1 ns clock every span is read with. On the machine's serial clock it is instret, QEMU's
 * machine-wide instruction count under -icount (see above). On the virtual clock (vtime=1) it
 * is this core's own clock: its instructions plus the time it skipped while waiting, so a span
 * without a wait is exactly the core's own instructions, whatever the other harts do.
 */
static uint64_t fine_clock(void) { return vtime_active ? vtime_now_virtual() : read_instret(); }

/* Lets SETTLE_US pass, long enough for any message here to arrive: on the machine's clock a
 * sleep; on the virtual clock a wait on this core's own clock, which only that moves. */
static void settle(void)
{
	if (vtime_active)
		vtime_sleep_until_ns(vtime_now_ns() + SETTLE_US * 1000, 0);
	else
		timer_sleep_us(SETTLE_US);
}

/*
 * Shared-memory handshakes between the cores of a phase. On the virtual clock a core waiting
 * for its partner's flag waits as any idle core does: its clock moves to the arrival of a
 * message in flight to it (without that, a partner waiting for its clock to pass that arrival
 * would wait for ever: the NoC's lookahead is 0 with a free NoC), and it holds nobody back
 * otherwise. The flag carries the poster's clock: the waiter resumes no earlier than that, as
 * a hart_call does (kernel/time/vtime.h). On the machine's clock a plain wait.
 */
static void handshake_post(volatile uint32_t *flag, uint32_t value, uint64_t *stamp, unsigned other)
{
	*stamp = vtime_now_ns();
	__atomic_store_n(flag, value, __ATOMIC_RELEASE);
	ipi_send(other, IPI_WAKE);
}

static bool flag_is(volatile uint32_t *flag, uint32_t value) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE) == value; }

/* The idle wait of handshake_wait (kernel/time/wait.h): one look per wait, as a jump ends it
 * (a new one starts from the new clock). */
struct handshake {
	volatile uint32_t *flag;
	uint32_t value;
	struct noc_mailbox *mb;
	uint32_t seen; /* a message posted from here on changes events, and with sleeping set its sender wakes us */
};

static bool handshake_look(void *arg, struct vtime_wait_look *l)
{
	(void)arg;
	l->own_ns = noc_mailbox_next_delivery(this_cpu());
	return true;
}

static bool handshake_woken(void *arg)
{
	const struct handshake *h = arg;
	return flag_is(h->flag, h->value) || __atomic_load_n(&h->mb->events, __ATOMIC_ACQUIRE) != h->seen;
}

static void handshake_wait(volatile uint32_t *flag, uint32_t value, const uint64_t *stamp)
{
	if (!vtime_active) {
		WAIT_UNTIL(flag_is(flag, value), 0);
		return;
	}
	struct noc_mailbox *mb = &noc_mailboxes[this_cpu()];
	while (!flag_is(flag, value)) {
		struct handshake h = {flag, value, mb, __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE)};
		vtime_wait(&(const struct vtime_wait){.look = handshake_look, .woken = handshake_woken, .arg = &h,
						      .sleeping = &mb->sleeping, .jump_ends = true});
	}
	vtime_advance_to(*stamp);
}

static uint64_t vmin(const uint64_t *v, unsigned n)
{
	uint64_t m = UINT64_MAX;
	for (unsigned i = 0; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return n ? m : 0;
}

static uint64_t vmax(const uint64_t *v, unsigned n)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

static unsigned reps;
static int bench_err;

static void note_err(int e)
{
	if (e && !bench_err)
		bench_err = e;
}

/* A message of `type` from src still sitting in core's mailbox (read only; NULL if none). */
static const struct noc_header *peek_mailbox(unsigned core, unsigned src, uint16_t type)
{
	struct noc_mailbox *mb = &noc_mailboxes[core];
	for (unsigned i = 0; i < noc_params.depth; i++)
		if (mb->slots[i].used && mb->slots[i].h.src == src && mb->slots[i].h.type == type)
			return &mb->slots[i].h;
	return 0;
}

/* ---- the watchdog: a phase that never ends must end the run with a report ---- */

/*
 * A forwarded call whose wake-up is lost waits forever, and so would the whole
 * benchmark. A core outside domain 0 (not a master) sleeps through each phase
 * with a timer armed WATCH_MS ahead; if the phase has not finished by then it
 * prints what domain 0's master is doing and powers off with status 1. It is
 * asleep before the phase starts and woken only after it ended, so it adds no
 * instructions to any measured span.
 */
struct watch {
	const char *phase;
	unsigned phase_core;
	uint64_t deadline;
	volatile uint32_t armed, done;
	volatile uint64_t armed_ns; /* the watcher's clock when it armed */
	unsigned boss;
};

static int watcher = -1;

static void watch_report(const struct watch *w)
{
	unsigned m = domain_master(0);
	struct noc_mailbox *mb = &noc_mailboxes[m];
	uint64_t now = noc_now_ns();
	unsigned visible = 0, inflight = 0;
	for (unsigned i = 0; i < noc_params.depth; i++)
		if (mb->slots[i].used && mb->slots[i].h.type == MSG_TYPE_KCALL)
			*(mb->slots[i].h.t_deliver_ns <= now ? &visible : &inflight) += 1;
	kprintf("bench-kernel: {\"kind\": \"stuck\", \"phase\": \"%s\", \"core\": %u, \"waited_ms\": %u, \"master\": %u, "
		"\"master_calls_visible\": %u, \"master_calls_in_flight\": %u, \"master_sleeping\": %u, "
		"\"master_timer_armed\": %s, \"master_calls_served\": %lu}\n",
		w->phase, w->phase_core, WATCH_MS, m, visible, inflight, mb->sleeping,
		harts[m].timer_deadline != UINT64_MAX ? "true" : "false", master_calls_served(m));
	if (visible && mb->sleeping && harts[m].timer_deadline == UINT64_MAX)
		kprintf("bench-kernel: the master sleeps with a forwarded call visible in its mailbox, no timer armed: "
			"a lost wake-up (docs/benchmarks.md, \"Kernel calls\")\n");
	if (vtime_active)
		vtime_dump(); /* which core's clock holds the others back (docs/time.md, "Diagnosing a stall") */
}

static void watch_side(void *arg)
{
	struct watch *w = arg;
	core_hand_over_flag(w->boss, &w->armed, 1, &w->armed_ns);
	/* on the virtual clock the watcher is not part of the simulated machine: it waits for
	 * nothing, so that no core waits for its clock (kernel/time/vtime.h) */
	vtime_wait_begin();
	uint64_t unused;
	vtime_idle(UINT64_MAX, UINT64_MAX, &unused);
	bool done = WAIT_UNTIL(__atomic_load_n(&w->done, __ATOMIC_ACQUIRE), w->deadline);
	vtime_wait_end();
	if (!done) {
		watch_report(w);
		kernel_poweroff(EXIT_TEST_FAILED);
	}
}

/* ktest_run_on under the watchdog. */
static void run_phase(const char *phase, const uint16_t *cores, unsigned n, void (*fn)(void *), void *arg)
{
	static struct watch w;
	w = (struct watch){.phase = phase, .phase_core = cores[0], .boss = this_cpu(),
			   .deadline = timer_now() + timer_us_to_ticks(WATCH_MS * 1000ULL)};
	bool watching = watcher >= 0 && hart_call((unsigned)watcher, watch_side, &w);
	if (watching) {
		core_wait_for_flag(&w.armed, 1, &w.armed_ns); /* on the boss's clock: it holds nobody back */
		settle(); /* the watcher reaches its WFI before anything is measured */
	}
	if (!ktest_run_on(cores, n, fn, arg))
		note_err(-EBUSY);
	__atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
	if (watching) {
		ipi_send((unsigned)watcher, IPI_WAKE);
		hart_call_wait((unsigned)watcher);
	}
}

/* ---- local calls: one core, everyone else asleep ---- */

struct local_bench {
	unsigned nr;
	uint64_t arg0;
	uint64_t instr[MAX_REPS];
	uint64_t empty_instr;           /* two back-to-back instret reads */
	uint64_t batch_time_ns, batch_instr;
};

static void local_side(void *arg)
{
	struct local_bench *b = arg;
	uint64_t a[6] = {b->arg0};
	int64_t want = b->nr == KC_CORE_ID ? (int64_t)this_cpu() : -1;
	if (kcall(b->nr, a, 0, 0) < 0) /* warm-up */
		note_err(WRONG_RESULT);
	for (unsigned r = 0; r < reps; r++) {
		uint64_t i0 = fine_clock();
		int64_t v = kcall(b->nr, a, 0, 0);
		uint64_t i1 = fine_clock();
		b->instr[r] = i1 - i0;
		if (v < 0 || (want >= 0 && v != want))
			note_err(WRONG_RESULT);
	}
	uint64_t i0 = fine_clock();
	uint64_t i1 = fine_clock();
	b->empty_instr = i1 - i0;
	int64_t sum = 0;
	uint64_t t0 = vtime_now_ns();
	i0 = fine_clock();
	for (unsigned i = 0; i < LOCAL_BATCH; i++)
		sum += kcall(b->nr, a, 0, 0);
	i1 = fine_clock();
	uint64_t t1 = vtime_now_ns();
	if (sum < 0)
		note_err(WRONG_RESULT);
	b->batch_time_ns = t1 - t0;
	b->batch_instr = i1 - i0;
}

static void bench_local(const char *kind, unsigned core, unsigned nr, uint64_t arg0)
{
	static struct local_bench b;
	memset(&b, 0, sizeof b);
	b.nr = nr;
	b.arg0 = arg0;
	uint16_t c = (uint16_t)core;
	run_phase(kind, &c, 1, local_side, &b);
	uint64_t m = median_u64(b.instr, reps);
	kprintf("bench-kernel: {\"kind\": \"%s\", \"core\": %u, \"call\": \"%s\", \"instructions\": %lu, "
		"\"instret_delta\": %lu, \"instret_empty\": %lu, \"batch_calls\": %u, \"batch_time_ns\": %lu, "
		"\"batch_instret\": %lu, \"time_ns_per_call\": %lu.%03lu}\n",
		kind, core, kcall_table[nr].name, m - b.empty_instr, m, b.empty_instr, LOCAL_BATCH, b.batch_time_ns,
		b.batch_instr, b.batch_time_ns / LOCAL_BATCH, b.batch_time_ns % LOCAL_BATCH);
}

/* ---- a forwarded call with the master asleep in its idle loop ---- */

struct fwd_bench {
	uint64_t instr[MAX_REPS], time_ns[MAX_REPS], services[MAX_REPS];
};

static void fwd_side(void *arg)
{
	struct fwd_bench *b = arg;
	unsigned me = this_cpu(), m = domain_master(domain_of(me));
	uint64_t a[6] = {0};
	if (kcall(KC_HEAP_GROW, a, 0, 0) < 0) /* warm-up */
		note_err(WRONG_RESULT);
	for (unsigned r = 0; r < reps; r++) {
		settle(); /* the master has gone back to sleep */
		uint64_t s0 = master_calls_served(m);
		prof_begin(); /* the round trip is what scripts/mosaic-prof --marked counts */
		uint64_t t0 = vtime_now_ns(), i0 = fine_clock();
		int64_t v = kcall(KC_HEAP_GROW, a, 0, 0);
		uint64_t i1 = fine_clock(), t1 = vtime_now_ns();
		prof_end();
		b->instr[r] = i1 - i0;
		b->time_ns[r] = t1 - t0;
		b->services[r] = master_calls_served(m) - s0;
		if (v < 0 || v == FAKE_REPLY)
			note_err(v < 0 ? (int)v : WRONG_RESULT);
	}
}

static void bench_forwarded(unsigned core)
{
	static struct fwd_bench b;
	memset(&b, 0, sizeof b);
	uint16_t c = (uint16_t)core;
	run_phase("forwarded", &c, 1, fwd_side, &b);
	unsigned m = domain_master(domain_of(core));
	uint64_t services = vmax(b.services, reps);
	kprintf("bench-kernel: {\"kind\": \"forwarded\", \"core\": %u, \"master\": %u, \"hops\": %u, \"call\": \"heap_grow\", "
		"\"instret_delta\": %lu, \"instret_min\": %lu, \"instret_max\": %lu, \"time_ns\": %lu, "
		"\"max_services_per_call\": %lu}\n",
		core, m, mesh_hops(core, m), median_u64(b.instr, reps), vmin(b.instr, reps), vmax(b.instr, reps),
		median_u64(b.time_ns, reps), services);
}

/* ---- the forwarded call's software, each side alone ---- */

/* Set by bench_split: each side's measured span lies in a profile window (scripts/mosaic-prof
 * --marked), the markers outside the span. Off in bench_kernel, whose windows are the
 * forwarded phase's round trips. */
static bool split_marked;

struct split_bench {
	unsigned caller, master;
	volatile uint32_t step;
	uint64_t step_ns; /* the poster's clock at the last step (handshake_post) */
	uint64_t caller_instr[MAX_REPS], serve_instr[MAX_REPS];
	/* each side from its start to the send of its message, on the clock the NoC stamps sends
	 * with (vtime_now_ns): only that part lies on the round trip's path, what follows the send
	 * (the network interface's work; the master's return) overlaps the message's flight */
	uint64_t caller_c0[MAX_REPS], serve_c0[MAX_REPS];
	uint64_t caller_to_send[MAX_REPS], serve_to_reply[MAX_REPS];
	uint32_t req_len, reply_len;
	uint64_t req_flight_ns, reply_flight_ns;
};

static void split_wait(struct split_bench *s, uint32_t step)
{
	handshake_wait(&s->step, step, &s->step_ns);
}

static void split_next(struct split_bench *s, uint32_t step, unsigned other)
{
	handshake_post(&s->step, step, &s->step_ns, other);
}

/*
 * Per rep: the master puts a reply into the caller's mailbox; the caller's kcall()
 * sends its request and finds the reply already there (its own instructions only,
 * no waiting); the master serves the real request with master_serve_one() while
 * the caller sleeps without asking for wake-ups (its own instructions only); the
 * caller then takes the real reply. Neither side has mb->sleeping set, so no IPI
 * lands inside a measured span.
 */
static void split_side(void *arg)
{
	struct split_bench *s = arg;
	unsigned me = this_cpu();
	struct msg_request req;
	struct mosaic_status st;
	for (unsigned r = 0; r < reps + 1; r++) { /* rep 0 is a warm-up */
		unsigned k = r ? r - 1 : 0;
		if (me == s->master) {
			split_wait(s, 4 * r);
			int64_t fake = FAKE_REPLY;
			int e = msg_isend_typed(MSG_TYPE_KCALL_REPLY, (int)s->caller, KC_HEAP_GROW, &fake, sizeof fake, false, &req);
			note_err(e ? e : msg_wait(&req, 0));
			split_next(s, 4 * r + 1, s->caller);
			split_wait(s, 4 * r + 2);
			settle();
			const struct noc_header *h = peek_mailbox(me, s->caller, MSG_TYPE_KCALL);
			if (h) {
				s->req_len = h->len;
				s->req_flight_ns = h->t_deliver_ns - h->t_send_ns;
				s->caller_to_send[k] = h->t_send_ns - s->caller_c0[k];
			} else {
				note_err(-ENOENT);
			}
			uint64_t n0 = master_calls_served(me);
			uint64_t c0 = vtime_active ? 0 : timer_now_ns(); /* serial clock: read outside the window */
			if (split_marked)
				prof_begin();
			uint64_t i0 = fine_clock();
			s->serve_c0[k] = vtime_active ? i0 : c0;
			bool served = master_serve_one();
			uint64_t i1 = fine_clock();
			if (split_marked)
				prof_end();
			s->serve_instr[k] = i1 - i0;
			if (!served || master_calls_served(me) != n0 + 1)
				note_err(WRONG_RESULT);
			split_next(s, 4 * r + 3, s->caller);
		} else {
			uint64_t a[6] = {0};
			split_wait(s, 4 * r + 1);
			settle(); /* the fake reply is visible */
			uint64_t c0 = vtime_active ? 0 : timer_now_ns();
			if (split_marked)
				prof_begin();
			uint64_t i0 = fine_clock();
			s->caller_c0[k] = vtime_active ? i0 : c0;
			int64_t v = kcall(KC_HEAP_GROW, a, 0, 0);
			uint64_t i1 = fine_clock();
			if (split_marked)
				prof_end();
			s->caller_instr[k] = i1 - i0;
			if (v != FAKE_REPLY)
				note_err(WRONG_RESULT);
			split_next(s, 4 * r + 2, s->master);
			split_wait(s, 4 * r + 3);
			settle();
			int64_t ret = -1;
			int e = msg_irecv_typed(MSG_TYPE_KCALL_REPLY, (int)s->master, KC_HEAP_GROW, &ret, sizeof ret, &req);
			note_err(e ? e : msg_wait(&req, &st));
			if (!e) {
				s->reply_len = st.len;
				s->reply_flight_ns = st.t_deliver_ns - st.t_send_ns;
				s->serve_to_reply[k] = st.t_send_ns - s->serve_c0[k];
			}
			if (ret < 0)
				note_err(WRONG_RESULT);
			split_next(s, 4 * r + 4, s->master);
		}
	}
}

static void bench_split(unsigned caller)
{
	static struct split_bench s;
	memset(&s, 0, sizeof s);
	s.caller = caller;
	s.master = domain_master(domain_of(caller));
	uint16_t cores[2] = {(uint16_t)caller, (uint16_t)s.master};
	run_phase("split", cores, 2, split_side, &s);
	unsigned h = mesh_hops(caller, s.master);
	kprintf("bench-kernel: {\"kind\": \"split\", \"core\": %u, \"master\": %u, \"hops\": %u, "
		"\"caller_instructions\": %lu, \"master_serve_instructions\": %lu, \"request_bytes\": %u, "
		"\"reply_bytes\": %u, \"request_flight_ns\": %lu, \"reply_flight_ns\": %lu, \"model_request_ns\": %lu, "
		"\"model_reply_ns\": %lu, \"caller_to_send_ns\": %lu, \"master_to_reply_ns\": %lu}\n",
		caller, s.master, h, median_u64(s.caller_instr, reps), median_u64(s.serve_instr, reps), s.req_len, s.reply_len,
		s.req_flight_ns, s.reply_flight_ns, noc_model_ns(h, s.req_len), noc_model_ns(h, s.reply_len),
		median_u64(s.caller_to_send, reps), median_u64(s.serve_to_reply, reps));
}

/* ---- k pico-kernels calling at once ---- */

struct contention_bench {
	const uint16_t *cores;
	unsigned k;
	volatile uint32_t ready, go;
	uint64_t ready_ns[MOSAIC_MAX_HARTS], go_ns; /* clocks at ready and at go (handshake_wait) */
	uint64_t start;
	uint64_t instr[MOSAIC_MAX_HARTS][MAX_REPS], time_ns[MOSAIC_MAX_HARTS][MAX_REPS];
	uint64_t services[MOSAIC_MAX_HARTS][MAX_REPS];
	uint64_t end[MOSAIC_MAX_HARTS];
};

static void contention_side(void *arg)
{
	struct contention_bench *b = arg;
	unsigned me = this_cpu(), m = domain_master(domain_of(me)), leader = b->cores[0];
	uint64_t a[6] = {0};
	if (me == leader) {
		/* start when the last of them is ready: on the virtual clock, at the latest ready clock */
		uint64_t unused_stamp = 0;
		handshake_wait(&b->ready, b->k - 1, &unused_stamp);
		for (unsigned i = 1; i < b->k; i++)
			vtime_advance_to(b->ready_ns[b->cores[i]]);
		b->start = fine_clock();
		b->go_ns = vtime_now_ns();
		__atomic_store_n(&b->go, 1, __ATOMIC_RELEASE);
		for (unsigned i = 1; i < b->k; i++)
			ipi_send(b->cores[i], IPI_WAKE);
	} else {
		b->ready_ns[me] = vtime_now_ns();
		__atomic_fetch_add(&b->ready, 1, __ATOMIC_ACQ_REL);
		ipi_send(leader, IPI_WAKE);
		handshake_wait(&b->go, 1, &b->go_ns);
	}
	for (unsigned r = 0; r < reps; r++) {
		uint64_t s0 = master_calls_served(m);
		uint64_t t0 = vtime_now_ns(), i0 = fine_clock();
		int64_t v = kcall(KC_HEAP_GROW, a, 0, 0);
		uint64_t i1 = fine_clock(), t1 = vtime_now_ns();
		b->instr[me][r] = i1 - i0;
		b->time_ns[me][r] = t1 - t0;
		b->services[me][r] = master_calls_served(m) - s0;
		if (v < 0)
			note_err((int)v);
	}
	b->end[me] = fine_clock();
}

static void bench_contention(const uint16_t *cores, unsigned k)
{
	static struct contention_bench b;
	static uint64_t all[MOSAIC_MAX_HARTS * MAX_REPS];
	memset(&b, 0, sizeof b);
	b.cores = cores;
	b.k = k;
	run_phase("contention", cores, k, contention_side, &b);
	uint64_t sum = 0, sum_t = 0, max_t = 0, max_s = 0, end = 0;
	unsigned n = 0;
	for (unsigned i = 0; i < k; i++) {
		unsigned c = cores[i];
		for (unsigned r = 0; r < reps; r++) {
			all[n++] = b.instr[c][r];
			sum += b.instr[c][r];
			sum_t += b.time_ns[c][r];
			max_t = b.time_ns[c][r] > max_t ? b.time_ns[c][r] : max_t;
			max_s = b.services[c][r] > max_s ? b.services[c][r] : max_s;
		}
		end = b.end[c] > end ? b.end[c] : end;
	}
	uint64_t makespan = end - b.start;
	kprintf("bench-kernel: {\"kind\": \"contention\", \"callers\": %u, \"calls_per_caller\": %u, \"mean_ns\": %lu, "
		"\"median_ns\": %lu, \"max_ns\": %lu, \"mean_time_ns\": %lu, \"max_time_ns\": %lu, "
		"\"max_services_per_call\": %lu, \"makespan_ns\": %lu, \"makespan_ns_per_call\": %lu}\n",
		k, reps, sum / n, median_u64(all, n), vmax(all, n), sum_t / n, max_t, max_s, makespan, makespan / n);
}

/* ---- the command ---- */

/* Checks that instret counts other harts' time too (QEMU -icount): true if a 10 us sleep adds ~10,000. */
static bool instret_machine_wide(void)
{
	uint64_t i0 = read_instret();
	timer_sleep_us(10);
	return read_instret() - i0 >= 9000;
}

/* Domain 0's pico-kernels into picos, nearest to the master first (then by core id); how many. */
static unsigned domain0_picos(uint16_t *picos)
{
	unsigned master = domain_master(0), npico = 0;
	for (unsigned h = 1; h <= mesh.w + mesh.h; h++)
		for (unsigned c = 0; c < hart_count; c++)
			if (domain_of(c) == 0 && c != master && mesh_hops(c, master) == h)
				picos[npico++] = (uint16_t)c;
	return npico;
}

SHELL_CMD(bench_split, "bench_split [reps]",
	  "the forwarded call's software, caller and master apart, each in a profile window (scripts/mosaic-prof --marked)")
{
	uint64_t r = 11;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &r) || r < 1 || r > MAX_REPS)))
		return SHELL_USAGE;
	static uint16_t picos[MOSAIC_MAX_HARTS];
	if (domain0_picos(picos) == 0) {
		kprintf("bench-kernel: domain 0 has no pico-kernel (%u harts, %u domains)\n", hart_count, layout.ndomains);
		return 1;
	}
	reps = (unsigned)r;
	bench_err = 0;
	split_marked = true;
	bench_split(picos[0]); /* bench_kernel's split caller: the nearest pico-kernel */
	split_marked = false;
	if (bench_err)
		kprintf("bench-kernel: an operation failed (error %d)\n", bench_err);
	return bench_err ? 1 : 0;
}

SHELL_CMD(bench_kernel, "bench_kernel [reps]",
	  "kernel-call benchmark (run by make bench-kernel): local vs forwarded calls, contention")
{
	uint64_t r = 11;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &r) || r < 1 || r > MAX_REPS)))
		return SHELL_USAGE;
	reps = (unsigned)r;
	bench_err = 0;
	static uint16_t picos[MOSAIC_MAX_HARTS];
	unsigned master = domain_master(0), npico = domain0_picos(picos);
	watcher = -1; /* the last core outside domain 0 that is not a master */
	for (unsigned c = hart_count; c-- > 0 && watcher < 0;)
		if (domain_of(c) != 0 && !is_master(c) && c != this_cpu())
			watcher = (int)c;
	if (npico == 0) {
		kprintf("bench-kernel: domain 0 has no pico-kernel (%u harts, %u domains)\n", hart_count,
			layout.ndomains);
		return 1;
	}
	kprintf("bench-kernel: {\"kind\": \"setup\", \"mesh\": \"%ux%u\", \"harts\": %u, \"domains\": %u, \"masters\": [",
		mesh.w, mesh.h, hart_count, layout.ndomains);
	for (unsigned d = 0; d < layout.ndomains; d++)
		kprintf("%s%u", d ? ", " : "", domain_master(d));
	kprintf("], \"domain0_master\": %u, \"domain0_picos\": [", master);
	for (unsigned i = 0; i < npico; i++)
		kprintf("%s%u", i ? ", " : "", picos[i]);
	kprintf("], \"watchdog_core\": %d, \"icount\": %lu, \"clock\": \"%s\", \"instret_machine_wide\": %s, \"reps\": %u, \"t_inject_ns\": %lu, \"t_hop_ns\": %lu, "
		"\"t_flit_ns\": %lu, \"flit_bytes\": %lu}\n",
		watcher, timer_icount, vtime_active ? "virtual" : "serial", instret_machine_wide() ? "true" : "false", reps,
		noc_params.timing.t_inject_ns, noc_params.timing.t_hop_ns, noc_params.timing.t_flit_ns, noc_params.timing.flit_bytes);

	unsigned caller = picos[0];
	bench_local("local", caller, KC_CORE_ID, 0);
	bench_local("master_direct", master, KC_HEAP_GROW, 0);
	for (unsigned i = 0; i < npico; i++)
		bench_forwarded(picos[i]);
	bench_split(caller);
	for (unsigned k = 1;; k = k * 2 < npico ? k * 2 : npico) {
		bench_contention(picos, k);
		if (k == npico)
			break;
	}
	if (bench_err)
		kprintf("bench-kernel: an operation failed (error %d)\n", bench_err);
	return bench_err ? 1 : 0;
}
