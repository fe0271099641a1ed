/* ktest suite "noc": the emulated NoC and the message API (docs/noc.md). */
#include "kernel/core/ktest.h"
#include "kernel/core/hart.h"
#include "kernel/console/console.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "drivers/noc/noc.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"
#include "kernel/domain/background.h"
#include "lib/string.h"
#include "lib/format.h"
#include "tests/ktest/coll_check.h"

static volatile int results[MOSAIC_MAX_HARTS];

KTEST(noc, xy_routes)
{
	unsigned links[2 * MOSAIC_MAX_HARTS];
	for (unsigned s = 0; s < mesh.cores; s++)
		for (unsigned d = 0; d < mesh.cores; d++) {
			unsigned h = mesh_route(s, d, links, sizeof links / sizeof links[0]);
			KT_ASSERT_EQ(h, mesh_hops(s, d));
			unsigned at = s;
			bool turned = false;
			for (unsigned i = 0; i < h; i++) {
				KT_ASSERT_EQ(links[i] / MESH_DIRS, at);
				bool vertical = links[i] % MESH_DIRS >= MESH_NORTH;
				KT_ASSERT(!(turned && !vertical)); /* x first, then y: never back to x */
				turned |= vertical;
				at = mesh_link_target(links[i]);
			}
			KT_ASSERT_EQ(at, d);
		}
	for (unsigned c = 0; c < mesh.cores; c++) {
		KT_ASSERT_EQ(mesh_core_at(mesh_tiles[c].x, mesh_tiles[c].y), c);
		KT_ASSERT_EQ(mesh_tiles[c].hartid, harts[c].hartid);
	}
}

static void ping_pong(void *arg)
{
	(void)arg;
	int me = (int)this_cpu(), peer = me == 0 ? 1 : 0;
	char buf[32];
	struct mosaic_status st;
	int e;
	if (me == 0) {
		e = msg_send(peer, 7, "ping", 5);
		if (!e)
			e = msg_recv(peer, 8, buf, sizeof buf, &st);
		if (!e && (st.len != 5 || strcmp(buf, "pong") != 0 || st.source != peer || st.tag != 8))
			e = -EINVAL;
	} else {
		e = msg_recv(MSG_ANY_SOURCE, MSG_ANY_TAG, buf, sizeof buf, &st);
		if (!e && (strcmp(buf, "ping") != 0 || st.source != 0 || st.tag != 7))
			e = -EINVAL;
		if (!e)
			e = msg_send(0, 8, "pong", 5);
	}
	results[me] = e;
}

KTEST(noc, ping_pong)
{
	KT_ASSERT(hart_count >= 2);
	uint16_t cores[2] = {0, 1};
	KT_ASSERT(ktest_run_on(cores, 2, ping_pong, 0));
	KT_ASSERT_EQ(results[0], 0);
	KT_ASSERT_EQ(results[1], 0);
}

/* ---- timing model ---- */

/* Software overhead allowed on top of the model's delay: the sender finishing its call,
 * the receiver waking from WFI, matching and copying, and the 100 ns resolution of the
 * time CSR. Under -icount (1 ns per instruction) that is a few hundred instructions;
 * without it guest time follows the host, which runs every hart in turn, so the
 * bound only catches gross errors. bench-noc measures the real figure. */
#define OVERHEAD_NS_MAX_ICOUNT 2000 /* a few times the real overhead (docs/noc.md) */
#define OVERHEAD_NS_MAX_HOST 10000000 /* a few times a many-hart boot's; room for a slow host */
/* On the serial clock a latency also counts what other harts ran meanwhile: under -icount an
 * interleaving that puts other work into the first measurement can show several times the
 * overhead at one hop (the boot arguments' length alone decides that). The overhead bound is
 * for the message's own software, so a measurement over it is taken again and the least of
 * OVERHEAD_TRIES counts; the model's figures are checked exactly on every try. */
#define OVERHEAD_TRIES 3

struct latency_run {
	unsigned src, dst;
	uint32_t len;
	struct mosaic_status st;
	int err;
};

static void latency_side(void *arg)
{
	struct latency_run *r = arg;
	static char buf[NOC_MAX_BODY];
	if (this_cpu() == r->dst) {
		r->err = msg_recv((int)r->src, 1, buf, sizeof buf, &r->st);
	} else {
		timer_sleep_us(200); /* let the receiver fall asleep first: the common case */
		static char out[NOC_MAX_BODY];
		int e = msg_send((int)r->dst, 1, out, r->len);
		if (e)
			r->err = e;
	}
}

static int measure(unsigned src, unsigned dst, uint32_t len, struct mosaic_status *st)
{
	struct latency_run r = {.src = src, .dst = dst, .len = len};
	uint16_t cores[2] = {(uint16_t)src, (uint16_t)dst};
	if (!ktest_run_on(cores, 2, latency_side, &r))
		return -EBUSY;
	*st = r.st;
	return r.err;
}

static unsigned core_at_hops(unsigned h)
{
	unsigned x = h < mesh.w - 1 ? h : mesh.w - 1;
	return mesh_core_at(x, h - x);
}

KTEST(noc, latency_grows_with_hops)
{
	if (mesh.w < 8 || mesh.h < 8) {
		kprintf("ktest:   (skipped: needs a mesh of at least 8x8, this one is %ux%u)\n", mesh.w, mesh.h);
		return;
	}
	uint64_t worst = 0, bound = timer_icount ? OVERHEAD_NS_MAX_ICOUNT : OVERHEAD_NS_MAX_HOST;
	for (unsigned h = 1; h <= mesh.w + mesh.h - 2; h++) {
		unsigned dst = core_at_hops(h);
		KT_ASSERT_EQ(mesh_hops(0, dst), h);
		uint64_t model = noc_model_ns(h, 8), measured = UINT64_MAX;
		for (unsigned try = 0; try < OVERHEAD_TRIES && (measured == UINT64_MAX || measured - model > bound); try++) {
			struct mosaic_status st;
			KT_ASSERT_EQ(measure(0, dst, 8, &st), 0);
			KT_ASSERT_EQ(st.hops, h);
			KT_ASSERT_EQ(st.t_deliver_ns - st.t_send_ns, model); /* nothing else on the links */
			uint64_t got = st.t_recv_ns - st.t_send_ns;
			KT_ASSERT(got >= model); /* never seen early */
			if (got < measured)
				measured = got;
		}
		kprintf("ktest:   hops %2u: model %5lu ns, measured %6lu ns\n", h, model, measured);
		KT_ASSERT(measured - model <= bound);
		if (measured - model > worst)
			worst = measured - model;
	}
	kprintf("ktest:   largest software overhead %lu ns (bound %lu ns%s)\n", worst, bound,
		timer_icount ? ", icount" : ", host time");
}

KTEST(noc, longer_message_pays_the_flit_term)
{
	KT_ASSERT(mesh.cores >= 2);
	unsigned dst = mesh.cores - 1, h = mesh_hops(0, dst);
	struct mosaic_status small, big;
	KT_ASSERT_EQ(measure(0, dst, 16, &small), 0);
	KT_ASSERT_EQ(measure(0, dst, 16 * 1024, &big), 0);
	uint64_t extra_flits = noc_flits(16 * 1024) - noc_flits(16);
	KT_ASSERT_EQ(small.t_deliver_ns - small.t_send_ns, noc_model_ns(h, 16));
	KT_ASSERT_EQ((big.t_deliver_ns - big.t_send_ns) - (small.t_deliver_ns - small.t_send_ns),
		     extra_flits * noc_params.timing.t_flit_ns);
	KT_ASSERT(big.t_recv_ns - big.t_send_ns >= big.t_deliver_ns - big.t_send_ns);
}

/* Two flows: A = (0,0) -> (3,0) with a long body, then B sends as soon as A has sent.
 * shared: B = (1,0) -> (4,0) crosses A's links (1,0)->(2,0) and (2,0)->(3,0).
 * disjoint: B = (1,1) -> (4,1), one row down. */
#define FLOW_A_BYTES NOC_MAX_BODY /* long enough to still hold its links when B starts */

struct flows {
	unsigned a_src, a_dst, b_src, b_dst;
	volatile uint32_t a_sent;
	volatile uint64_t a_clock; /* A's clock when its send returned: B sends after that */
	struct mosaic_status a, b;
	int err;
};

static void flow_side(void *arg)
{
	struct flows *f = arg;
	unsigned me = this_cpu();
	static char body[FLOW_A_BYTES], in[2][FLOW_A_BYTES];
	int e = 0;
	if (me == f->a_src) {
		e = msg_send((int)f->a_dst, 2, body, sizeof body);
		core_hand_over_flag(f->b_src, &f->a_sent, 1, &f->a_clock);
	} else if (me == f->b_src) {
		core_wait_for_flag(&f->a_sent, 1, &f->a_clock); /* on B's clock: it holds nobody back meanwhile */
		/* B sends one hop's time after A's send returned, on its own clock (the handshake
		 * brought B's clock to A's), so that its head reaches the shared link
		 * after A's head did: links are booked by intervals, and a head that came first
		 * would take the gap before A's booking instead of waiting */
		vtime_sleep_until_ns(f->a_clock + noc_params.timing.t_hop_ns, 0);
		e = msg_send((int)f->b_dst, 2, body, 16);
	} else if (me == f->a_dst) {
		e = msg_recv((int)f->a_src, 2, in[0], sizeof in[0], &f->a);
	} else {
		e = msg_recv((int)f->b_src, 2, in[1], sizeof in[1], &f->b);
	}
	if (e)
		f->err = e;
}

static int run_flows(struct flows *f)
{
	uint16_t cores[4] = {(uint16_t)f->a_src, (uint16_t)f->a_dst, (uint16_t)f->b_src, (uint16_t)f->b_dst};
	timer_sleep_us(100); /* earlier traffic has left the links */
	return ktest_run_on(cores, 4, flow_side, f) ? f->err : -EBUSY;
}

KTEST(noc, contention_on_a_shared_link)
{
	if (mesh.w < 5 || mesh.h < 2) {
		kprintf("ktest:   (skipped: needs a mesh of at least 5x2)\n");
		return;
	}
	struct flows shared = {.a_src = mesh_core_at(0, 0), .a_dst = mesh_core_at(3, 0), .b_src = mesh_core_at(1, 0),
			       .b_dst = mesh_core_at(4, 0)};
	struct flows disjoint = {.a_src = mesh_core_at(0, 0), .a_dst = mesh_core_at(3, 0), .b_src = mesh_core_at(1, 1),
				 .b_dst = mesh_core_at(4, 1)};
	KT_ASSERT_EQ(run_flows(&disjoint), 0);
	/* disjoint: both exactly as the model says, no waiting */
	KT_ASSERT_EQ(disjoint.b.t_wait_ns, 0);
	KT_ASSERT_EQ(disjoint.b.t_deliver_ns - disjoint.b.t_send_ns, noc_model_ns(3, 16));
	/* shared: B's head reaches link (1,0)->(2,0) (A's 2nd link, B's 1st) while A's 256
	 * flits still hold it; the model predicts exactly how long it waits. On the serial
	 * clock without -icount a host stall can delay B past A's last flit (12.8 us by
	 * default); then B rightly does not wait, and the test tries again, since a wait
	 * must be seen at least once. On the core clocks and under -icount the first try
	 * always overlaps. */
	uint64_t predicted_wait = 0;
	unsigned tries = 0;
	for (; tries < 8 && predicted_wait == 0; tries++) {
		shared = (struct flows){.a_src = shared.a_src, .a_dst = shared.a_dst, .b_src = shared.b_src,
					.b_dst = shared.b_dst};
		KT_ASSERT_EQ(run_flows(&shared), 0);
		uint64_t a_holds_until = shared.a.t_send_ns + noc_params.timing.t_inject_ns +
					 1 * noc_params.timing.t_hop_ns +
					 noc_flits(FLOW_A_BYTES) * noc_params.timing.t_flit_ns;
		uint64_t b_arrives = shared.b.t_send_ns + noc_params.timing.t_inject_ns;
		predicted_wait = a_holds_until > b_arrives ? a_holds_until - b_arrives : 0;
		/* whatever the overlap, the model must have charged exactly this */
		KT_ASSERT_EQ(shared.b.t_wait_ns, predicted_wait);
		KT_ASSERT_EQ(shared.b.t_deliver_ns - shared.b.t_send_ns, noc_model_ns(3, 16) + predicted_wait);
	}
	KT_ASSERT(predicted_wait > 0);
	KT_ASSERT_EQ(shared.a.t_wait_ns, 0);
	kprintf("ktest:   shared link: B waited %lu ns (predicted %lu, try %u); disjoint: 0\n", shared.b.t_wait_ns,
		predicted_wait, tries);
}

/* ---- no loss, order kept, no deadlock ---- */

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* A storm message: [src, index, len, checksum] then bytes derived from them. */
struct storm_head {
	uint32_t src, index, len, sum;
};

static uint32_t storm_fill(uint8_t *b, uint32_t src, uint32_t dst, uint32_t index, uint32_t len)
{
	uint32_t sum = 0;
	for (uint32_t i = sizeof(struct storm_head); i < len; i++) {
		b[i] = (uint8_t)(src * 31 + dst * 17 + index * 7 + i);
		sum = sum * 33 + b[i];
	}
	return sum;
}

#define STORM_ROUNDS 3
#define STORM_MAX_LEN 1024

static void storm(void *arg)
{
	(void)arg;
	unsigned me = this_cpu(), n = mesh.cores;
	uint32_t seed = 12345 + me * 7919;
	static uint8_t out[MOSAIC_MAX_HARTS][STORM_MAX_LEN], in[MOSAIC_MAX_HARTS][STORM_MAX_LEN];
	static uint32_t next_index[MOSAIC_MAX_HARTS][MOSAIC_MAX_HARTS];
	int e = 0;
	for (unsigned k = 0; k < STORM_ROUNDS && !e; k++)
		for (unsigned i = 1; i < n && !e; i++) {
			unsigned dst = (me + i) % n;
			uint32_t len = sizeof(struct storm_head) + lcg(&seed) % (STORM_MAX_LEN - sizeof(struct storm_head));
			struct storm_head *h = (struct storm_head *)out[me];
			h->src = me;
			h->index = k;
			h->len = len;
			h->sum = storm_fill(out[me], me, dst, k, len);
			e = msg_send((int)dst, (int)(lcg(&seed) % 1000), out[me], len); /* random tags */
		}
	for (unsigned i = 0; i < n; i++)
		next_index[me][i] = 0;
	for (unsigned m = 0; m < STORM_ROUNDS * (n - 1) && !e; m++) {
		struct mosaic_status st;
		e = msg_recv(MSG_ANY_SOURCE, MSG_ANY_TAG, in[me], STORM_MAX_LEN, &st);
		if (e)
			break;
		struct storm_head *h = (struct storm_head *)in[me];
		uint8_t check[STORM_MAX_LEN];
		if (st.len != h->len || h->src != (uint32_t)st.source || st.source == (int)me ||
		    h->sum != storm_fill(check, h->src, me, h->index, h->len) ||
		    memcmp(check + sizeof *h, in[me] + sizeof *h, h->len - sizeof *h) != 0)
			e = -EFAULT; /* corrupted */
		else if (h->index != next_index[me][h->src]++)
			e = -EINVAL; /* out of order */
	}
	struct mosaic_status st;
	if (!e && msg_probe(MSG_ANY_SOURCE, MSG_ANY_TAG, false, &st) != -EAGAIN)
		e = -E2BIG; /* more than was sent */
	results[me] = e;
}

KTEST(noc, all_to_all_storm_loses_nothing)
{
	uint64_t stalls = 0;
	for (unsigned c = 0; c < hart_count; c++)
		stalls -= noc_core_stats[c].credit_stalls;
	KT_ASSERT(ktest_run_on_all(storm, 0));
	for (unsigned c = 0; c < hart_count; c++) {
		KT_ASSERT_EQ(results[c], 0);
		stalls += noc_core_stats[c].credit_stalls;
	}
	kprintf("ktest:   %u messages checked, %lu sends found a full mailbox (depth %lu)\n",
		STORM_ROUNDS * hart_count * (hart_count - 1), stalls, noc_params.depth);
}

#define EXCHANGE_BYTES (16 * 1024)

/* Every pair exchanges a large message at the same moment: both send first. */
static void exchange(void *arg)
{
	(void)arg;
	unsigned me = this_cpu(), n = mesh.cores;
	static uint8_t out[MOSAIC_MAX_HARTS][EXCHANGE_BYTES], in[MOSAIC_MAX_HARTS][EXCHANGE_BYTES];
	int e = 0;
	for (unsigned round = 1; round < n && !e; round++) {
		unsigned peer = me ^ round;
		if (peer >= n)
			continue;
		memset(out[me], (int)(me + round), EXCHANGE_BYTES);
		e = msg_send((int)peer, (int)round, out[me], EXCHANGE_BYTES);
		struct mosaic_status st;
		if (!e)
			e = msg_recv((int)peer, (int)round, in[me], EXCHANGE_BYTES, &st);
		if (!e && (in[me][0] != (uint8_t)(peer + round) || in[me][EXCHANGE_BYTES - 1] != (uint8_t)(peer + round)))
			e = -EFAULT;
	}
	results[me] = e;
}

KTEST(noc, pairwise_exchange_never_deadlocks)
{
	KT_ASSERT(ktest_run_on_all(exchange, 0));
	for (unsigned c = 0; c < hart_count; c++)
		KT_ASSERT_EQ(results[c], 0);
}

/* ---- matching, unknown lengths and errors ---- */

struct two_party {
	volatile uint32_t step; /* the receiver's go-ahead, so the scenario is ordered */
	volatile uint64_t step_ns; /* the clock of the go-ahead (a hand-over: the waiter starts there) */
	int err_line;
};

#define CHECK(cond)                                      \
	do {                                             \
		if (!(cond) && !tp->err_line)            \
			tp->err_line = __LINE__;         \
	} while (0)

static void matching_side(void *arg)
{
	struct two_party *tp = arg;
	unsigned me = this_cpu();
	char buf[64];
	struct mosaic_status st;
	if (me == 1) {
		/* sender: tags 1, 2, 3, then a message of unknown length, then one too big for 8 bytes */
		CHECK(msg_send(0, 1, "one", 4) == 0);
		CHECK(msg_send(0, 2, "two", 4) == 0);
		CHECK(msg_send(0, 3, "three", 6) == 0);
		CHECK(msg_send(0, 9, "a longer body of 27 bytes.", 27) == 0);
		CHECK(msg_send(0, 10, "0123456789abcdef", 16) == 0);
		__atomic_store_n(&tp->step, 1, __ATOMIC_RELEASE);
		return;
	}
	if (me == 2) {
		CHECK(msg_send(0, 5, "from two", 9) == 0);
		return;
	}
	/* receiver (core 0): out of order by tag */
	CHECK(msg_recv(1, 3, buf, sizeof buf, &st) == 0 && strcmp(buf, "three") == 0 && st.tag == 3);
	CHECK(msg_recv(1, MSG_ANY_TAG, buf, sizeof buf, &st) == 0 && st.tag == 1 && strcmp(buf, "one") == 0);
	CHECK(msg_recv(MSG_ANY_SOURCE, 5, buf, sizeof buf, &st) == 0 && st.source == 2 && strcmp(buf, "from two") == 0);
	CHECK(msg_recv(MSG_ANY_SOURCE, MSG_ANY_TAG, buf, sizeof buf, &st) == 0 && st.tag == 2);
	/* unknown length: the header first (probe), then the body */
	CHECK(msg_probe(MSG_ANY_SOURCE, 9, true, &st) == 0 && st.len == 27 && st.source == 1);
	char *body = kmalloc(st.len);
	CHECK(body && msg_recv(st.source, st.tag, body, st.len, &st) == 0 && strcmp(body, "a longer body of 27 bytes.") == 0);
	kfree(body);
	/* a buffer too small: the real length is reported and the message kept */
	CHECK(msg_recv(1, 10, buf, 8, &st) == -EOVERFLOW && st.len == 16);
	CHECK(msg_tryrecv(1, 10, buf, 8, &st) == -EOVERFLOW && st.len == 16);
	CHECK(msg_recv(1, 10, buf, sizeof buf, &st) == 0 && st.len == 16 && memcmp(buf, "0123456789abcdef", 16) == 0);
	/* nothing left */
	CHECK(msg_tryrecv(MSG_ANY_SOURCE, MSG_ANY_TAG, buf, sizeof buf, &st) == -EAGAIN);
	CHECK(msg_probe(MSG_ANY_SOURCE, MSG_ANY_TAG, false, &st) == -EAGAIN);
}

KTEST(noc, wildcards_out_of_order_and_unknown_length)
{
	KT_ASSERT(hart_count >= 3);
	struct two_party tp = {0};
	uint16_t cores[3] = {0, 1, 2};
	KT_ASSERT(ktest_run_on(cores, 3, matching_side, &tp));
	KT_ASSERT_EQ(tp.err_line, 0);
}

/*
 * A blocking receive waits without a posted request (msg_recv_typed) only while nothing is
 * drained into the unhandled queue; once the wait drains another message it goes on as a posted
 * request. Here core 0 waits for tag 7 from core 1, and tag 6 from core 1 arrives first (100 us
 * before the two messages of tag 7), so the wait drains it: the tag-7 messages must still come in
 * their order, and the drained one must still be there afterwards.
 */
static void drained_wait_side(void *arg)
{
	struct two_party *tp = arg;
	char buf[16];
	struct mosaic_status st;
	if (this_cpu() == 1) {
		core_wait_for_flag(&tp->step, 1, &tp->step_ns); /* on the waiter's clock */
		CHECK(msg_send(0, 6, "other", 6) == 0);
		core_sleep_us(100);
		CHECK(msg_send(0, 7, "first", 6) == 0);
		CHECK(msg_send(0, 7, "second", 7) == 0);
		return;
	}
	core_hand_over_flag(1, &tp->step, 1, &tp->step_ns);
	CHECK(msg_recv(1, 7, buf, sizeof buf, &st) == 0 && strcmp(buf, "first") == 0);
	CHECK(msg_recv(1, 7, buf, sizeof buf, &st) == 0 && strcmp(buf, "second") == 0);
	CHECK(msg_recv(1, MSG_ANY_TAG, buf, sizeof buf, &st) == 0 && st.tag == 6 && strcmp(buf, "other") == 0);
	CHECK(msg_tryrecv(MSG_ANY_SOURCE, MSG_ANY_TAG, buf, sizeof buf, &st) == -EAGAIN);
}

/* Runs a scenario on cores 0 and 1: the line of its first failed CHECK, 0 if none, -1 if it
 * could not run. */
static int two_party_run(void (*side)(void *))
{
	struct two_party tp = {0};
	uint16_t cores[2] = {0, 1};
	return ktest_run_on(cores, 2, side, &tp) ? tp.err_line : -1;
}

KTEST(noc, a_blocking_receive_that_drains_others_keeps_the_order)
{
	KT_ASSERT(hart_count >= 2);
	KT_ASSERT_EQ(two_party_run(drained_wait_side), 0);
}

KTEST(noc, bad_input_gets_error_codes)
{
	char buf[16] = {0};
	struct mosaic_status st;
	struct msg_request req;
	int n = (int)mesh.cores;
	KT_ASSERT_EQ(msg_send(n, 0, buf, 1), -ENXIO);
	KT_ASSERT_EQ(msg_send(-5, 0, buf, 1), -ENXIO);
	KT_ASSERT_EQ(msg_trysend(n + 100, 0, buf, 1), -ENXIO);
	KT_ASSERT_EQ(msg_isend(n, 0, buf, 1, &req), -ENXIO);
	KT_ASSERT_EQ(msg_send(0, 0, buf, NOC_MAX_BODY + 1), -EMSGSIZE);
	KT_ASSERT_EQ(msg_send(0, -3, buf, 1), -EINVAL);
	KT_ASSERT_EQ(msg_send(0, 0, 0, 5), -EINVAL);
	KT_ASSERT_EQ(msg_recv(n, 0, buf, sizeof buf, &st), -ENXIO); /* can never match */
	KT_ASSERT_EQ(msg_irecv(-7, 0, buf, sizeof buf, &req), -ENXIO);
	KT_ASSERT_EQ(msg_recv(0, -9, buf, sizeof buf, &st), -EINVAL);
	KT_ASSERT_EQ(msg_probe(n, 0, false, &st), -ENXIO);
	KT_ASSERT_EQ(msg_isend(0, 0, buf, 1, 0), -EINVAL);
	struct msg_request idle = {0};
	int done;
	KT_ASSERT_EQ(msg_wait(&idle, &st), -EINVAL);
	KT_ASSERT_EQ(msg_test(&idle, &done, &st), -EINVAL);
	/* groups */
	struct msg_group g;
	uint16_t dup[3] = {0, 1, 0}, bad[2] = {0, (uint16_t)n};
	KT_ASSERT_EQ(msg_group_init(&g, dup, 0), -EINVAL);
	KT_ASSERT_EQ(msg_group_init(&g, dup, 3), -EINVAL);
	KT_ASSERT_EQ(msg_group_init(&g, bad, 2), -ENXIO);
	uint16_t other[1] = {(uint16_t)(this_cpu() == 0 ? 1 : 0)};
	if (hart_count >= 2) {
		KT_ASSERT_EQ(msg_group_init(&g, other, 1), 0);
		KT_ASSERT_EQ(msg_barrier(&g, MSG_STRICT), -EINVAL); /* not a member */
	}
	/* nothing was sent by any of this: our mailbox is empty */
	KT_ASSERT_EQ(msg_tryrecv(MSG_ANY_SOURCE, MSG_ANY_TAG, buf, sizeof buf, &st), -EAGAIN);
}

/* trysend fails at once with -EBUSY when the destination's mailbox is full; a send queued for a
 * credit is not tried again until the credit comes, and then completes. */
static void credit_side(void *arg)
{
	struct two_party *tp = arg;
	char buf[8] = "credit";
	struct mosaic_status st;
	if (this_cpu() == 1) {
		for (unsigned i = 0; i < noc_params.depth; i++)
			CHECK(msg_trysend(0, (int)i, buf, sizeof buf) == 0);
		CHECK(msg_trysend(0, 99, buf, sizeof buf) == -EBUSY);
		struct msg_request req;
		CHECK(msg_isend(0, 100, buf, sizeof buf, &req) == 0);
		int done = 1;
		CHECK(msg_test(&req, &done, &st) == 0 && !done); /* still no credit */
		/* queued for its credit: not tried again before it comes (noc_awaits_credit; a try
		 * would lock the mailbox only to be refused, and count a stall) */
		uint64_t stalls = noc_core_stats[1].credit_stalls;
		for (int i = 0; i < 5; i++)
			CHECK(msg_test(&req, &done, &st) == 0 && !done);
		CHECK(noc_core_stats[1].credit_stalls == stalls);
		CHECK(msg_trysend(0, 101, buf, sizeof buf) == -EBUSY); /* may not overtake the isend */
		core_hand_over_flag(0, &tp->step, 1, &tp->step_ns);
		CHECK(msg_wait(&req, &st) == 0); /* completes once core 0 receives */
		return;
	}
	core_wait_for_flag(&tp->step, 1, &tp->step_ns); /* on the waiter's clock */
	for (unsigned i = 0; i < noc_params.depth; i++)
		CHECK(msg_recv(1, MSG_ANY_TAG, buf, sizeof buf, &st) == 0 && st.tag == (int)i);
	CHECK(msg_recv(1, MSG_ANY_TAG, buf, sizeof buf, &st) == 0 && st.tag == 100);
}

KTEST(noc, trysend_reports_no_credit)
{
	KT_ASSERT(hart_count >= 2);
	KT_ASSERT_EQ(two_party_run(credit_side), 0);
}

/* The collectives' full check (tests/ktest/coll_check.h) with the default how: strict, tuned. The
 * coll suite runs it with every algorithm and both modes. */
KTEST(noc, collectives_on_many_group_sizes)
{
	coll_check_sizes(kt, COLL_CHECK_DEFAULT);
}

KTEST(noc, collectives_on_a_scattered_group)
{
	coll_check_scattered(kt, COLL_CHECK_DEFAULT);
}

/* The tree's definition, pairwise (what msg_group_init computed before it searched rings and
 * took the centre from coordinate extremes): the reference the fast versions must match. */
static unsigned reference_centre(const uint16_t *cores, unsigned n)
{
	unsigned best = cores[0];
	unsigned best_ecc = ~0u, best_sum = ~0u;
	for (unsigned i = 0; i < n; i++) {
		unsigned ecc = 0, sum = 0;
		for (unsigned j = 0; j < n; j++) {
			unsigned d = mesh_hops(cores[i], cores[j]);
			sum += d;
			ecc = d > ecc ? d : ecc;
		}
		if (ecc < best_ecc || (ecc == best_ecc && sum < best_sum) ||
		    (ecc == best_ecc && sum == best_sum && cores[i] < best))
			best = cores[i], best_ecc = ecc, best_sum = sum;
	}
	return best;
}

static unsigned reference_parent(const uint16_t *cores, unsigned n, unsigned root, unsigned r)
{
	unsigned best = n, best_hops = ~0u, dr = mesh_hops(cores[r], cores[root]);
	for (unsigned p = 0; p < n; p++) {
		unsigned dp = mesh_hops(cores[p], cores[root]);
		if (dp >= dr)
			continue;
		unsigned h = mesh_hops(cores[r], cores[p]);
		if (h < best_hops || (h == best_hops && dp < mesh_hops(cores[best], cores[root])))
			best = p, best_hops = h;
	}
	return best;
}

KTEST(noc, group_trees_match_their_pairwise_definition)
{
	static struct msg_group g;
	uint16_t cores[MOSAIC_MAX_HARTS];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	for (unsigned round = 0; round < 200; round++) {
		/* a random subset in a random order: sparse and dense groups, any shape */
		unsigned n = 0;
		for (unsigned c = 0; c < hart_count; c++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			if ((seed >> 33) % 8 < 1 + round % 7)
				cores[n++] = (uint16_t)c;
		}
		if (n == 0)
			continue;
		for (unsigned i = n; i > 1; i--) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			unsigned j = (unsigned)((seed >> 33) % i);
			uint16_t t = cores[i - 1];
			cores[i - 1] = cores[j];
			cores[j] = t;
		}
		KT_ASSERT(msg_group_init(&g, cores, n) == 0);
		KT_ASSERT_EQ(g.cores[g.tree_root], reference_centre(cores, n));
		/* the base tree, each member's level in it, then the edges that span the stride */
		static uint16_t base[MOSAIC_MAX_HARTS], level[MOSAIC_MAX_HARTS];
		for (unsigned r = 0; r < n; r++)
			base[r] = (uint16_t)(r == g.tree_root ? r : reference_parent(cores, n, g.tree_root, r));
		for (unsigned r = 0; r < n; r++) {
			level[r] = 0;
			for (unsigned x = r; x != g.tree_root; x = base[x])
				level[r]++;
		}
		/* each parent is a base ancestor at most `stride` levels up, on a level that is a
		 * multiple of the stride (or the root), with no such level in between; the depth is
		 * the longest way up the tree that results */
		unsigned stride = msg_tree_stride(), depth = 0;
		for (unsigned r = 0; r < n; r++) {
			if (r == g.tree_root)
				continue;
			unsigned x = base[r], up = 1;
			while (x != g.parent[r] && x != g.tree_root) {
				KT_ASSERT(level[x] % stride != 0);
				x = base[x];
				up++;
			}
			KT_ASSERT_EQ(x, g.parent[r]);
			KT_ASSERT(up <= stride);
			KT_ASSERT(x == g.tree_root || level[x] % stride == 0);
			unsigned edges = 0;
			for (unsigned y = r; y != g.tree_root && edges <= n; y = g.parent[y])
				edges++;
			depth = edges > depth ? edges : depth;
		}
		KT_ASSERT_EQ(g.depth, depth);
	}
}

/* ---- xsend: no flow control, rules checked at run time ---- */

static void xsend_pairs(void *arg)
{
	(void)arg;
	unsigned me = this_cpu(), peer = me ^ 1;
	char buf[32];
	struct mosaic_status st;
	int e = 0;
	if (peer >= mesh.cores) {
		results[me] = 0;
		return;
	}
	/* C1: a pairwise exchange ordered by rank, lower core sends first */
	if (me < peer) {
		e = msg_xsend((int)peer, 1, "x", 2);
		if (!e)
			e = msg_recv((int)peer, 1, buf, sizeof buf, &st);
	} else {
		e = msg_recv((int)peer, 1, buf, sizeof buf, &st);
		if (!e)
			e = msg_xsend((int)peer, 1, "y", 2);
	}
	results[me] = e;
}

static volatile uint32_t xsends_done;
static volatile uint64_t xsends_done_ns; /* the later sender's clock when it had sent */



static void xsend_same_sink(void *arg)
{
	(void)arg;
	unsigned me = this_cpu();
	char buf[64] = {0};
	struct mosaic_status st;
	int e = 0;
	if (me == 0) {
		/* receive only once both have sent, so both messages meet in the mailbox */
		core_wait_for_flag(&xsends_done, 2, &xsends_done_ns);
		for (int i = 0; i < 2 && !e; i++)
			e = msg_recv(MSG_ANY_SOURCE, 2, buf, sizeof buf, &st);
	} else {
		e = msg_xsend(0, 2, buf, sizeof buf); /* both 1 and 2 target core 0: breaks R2 */
		core_hand_over_add(0, &xsends_done, &xsends_done_ns);
	}
	results[me] = e;
}

KTEST(noc, xsend_checks_its_rules)
{
	KT_ASSERT(hart_count >= 3 && noc_params.check_xsend);
	uint64_t before = 0, after = 0;
	for (unsigned c = 0; c < hart_count; c++)
		before += noc_core_stats[c].xsend_violations;
	KT_ASSERT(ktest_run_on_all(xsend_pairs, 0));
	for (unsigned c = 0; c < hart_count; c++) {
		KT_ASSERT_EQ(results[c], 0);
		after += noc_core_stats[c].xsend_violations;
	}
	KT_ASSERT_EQ(after, before); /* disjoint pairs: nothing to report */
	if (noc_params.depth < 2) {
		/* the R2 case needs both messages in the sink's mailbox at once */
		kprintf("ktest:   (R2 case skipped: needs noc_depth >= 2)\n");
		return;
	}
	uint16_t cores[3] = {0, 1, 2};
	xsends_done = 0;
	xsends_done_ns = 0;
	KT_ASSERT(ktest_run_on(cores, 3, xsend_same_sink, 0));
	after = 0;
	for (unsigned c = 0; c < 3; c++) {
		KT_ASSERT_EQ(results[c], 0); /* reported, but nothing is lost */
		after += noc_core_stats[c].xsend_violations;
	}
	KT_ASSERT(after > before);
}
