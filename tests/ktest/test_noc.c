/* ktest suite "noc": the emulated NoC and the message API (docs/noc.md). */
#include "kernel/ktest.h"
#include "kernel/hart.h"
#include "kernel/console.h"
#include "kernel/errno.h"
#include "kernel/kheap.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "lib/string.h"

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
	struct msg_status st;
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
 * time CSR. Under -icount (1 ns per instruction) that is a few thousand instructions;
 * without it guest time follows the host, which runs every hart in turn, so the
 * bound only catches gross errors. bench-noc measures the real figure. */
#define OVERHEAD_NS_MAX_ICOUNT 20000
#define OVERHEAD_NS_MAX_HOST 2000000

struct latency_run {
	unsigned src, dst;
	uint32_t len;
	struct msg_status st;
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

static int measure(unsigned src, unsigned dst, uint32_t len, struct msg_status *st)
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
		struct msg_status st;
		KT_ASSERT_EQ(measure(0, dst, 8, &st), 0);
		uint64_t model = noc_model_ns(h, 8), measured = st.t_recv_ns - st.t_send_ns;
		KT_ASSERT_EQ(st.hops, h);
		KT_ASSERT_EQ(st.t_deliver_ns - st.t_send_ns, model); /* nothing else on the links */
		KT_ASSERT(measured >= model);                        /* never seen early */
		KT_ASSERT(measured - model <= bound);
		kprintf("ktest:   hops %2u: model %5lu ns, measured %6lu ns\n", h, model, measured);
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
	struct msg_status small, big;
	KT_ASSERT_EQ(measure(0, dst, 16, &small), 0);
	KT_ASSERT_EQ(measure(0, dst, 16 * 1024, &big), 0);
	uint64_t extra_flits = noc_flits(16 * 1024) - noc_flits(16);
	KT_ASSERT_EQ(small.t_deliver_ns - small.t_send_ns, noc_model_ns(h, 16));
	KT_ASSERT_EQ((big.t_deliver_ns - big.t_send_ns) - (small.t_deliver_ns - small.t_send_ns),
		     extra_flits * noc_params.t_flit_ns);
	KT_ASSERT(big.t_recv_ns - big.t_send_ns >= big.t_deliver_ns - big.t_send_ns);
}

/* Two flows: A = (0,0) -> (3,0) with a long body, then B sends as soon as A has sent.
 * shared: B = (1,0) -> (4,0) crosses A's links (1,0)->(2,0) and (2,0)->(3,0).
 * disjoint: B = (1,1) -> (4,1), one row down. */
#define FLOW_A_BYTES NOC_MAX_BODY /* long enough to still hold its links when B starts */

struct flows {
	unsigned a_src, a_dst, b_src, b_dst;
	volatile int a_sent;
	struct msg_status a, b;
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
		__atomic_store_n(&f->a_sent, 1, __ATOMIC_RELEASE);
		ipi_send(f->b_src, IPI_WAKE);
	} else if (me == f->b_src) {
		WAIT_UNTIL(__atomic_load_n(&f->a_sent, __ATOMIC_ACQUIRE), 0);
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
	KT_ASSERT_EQ(run_flows(&shared), 0);
	/* disjoint: both exactly as the model says, no waiting */
	KT_ASSERT_EQ(disjoint.b.t_wait_ns, 0);
	KT_ASSERT_EQ(disjoint.b.t_deliver_ns - disjoint.b.t_send_ns, noc_model_ns(3, 16));
	/* shared: B's head reaches link (1,0)->(2,0) (A's 2nd link, B's 1st) while A's 256
	 * flits still hold it; the model predicts exactly how long it waits */
	uint64_t a_holds_until = shared.a.t_send_ns + noc_params.t_inject_ns + 1 * noc_params.t_hop_ns +
				 noc_flits(FLOW_A_BYTES) * noc_params.t_flit_ns;
	uint64_t b_arrives = shared.b.t_send_ns + noc_params.t_inject_ns;
	uint64_t predicted_wait = a_holds_until > b_arrives ? a_holds_until - b_arrives : 0;
	KT_ASSERT(predicted_wait > 0);
	KT_ASSERT_EQ(shared.b.t_wait_ns, predicted_wait);
	KT_ASSERT_EQ(shared.b.t_deliver_ns - shared.b.t_send_ns, noc_model_ns(3, 16) + predicted_wait);
	KT_ASSERT_EQ(shared.a.t_wait_ns, 0);
	kprintf("ktest:   shared link: B waited %lu ns (predicted %lu); disjoint: 0\n", shared.b.t_wait_ns,
		predicted_wait);
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
		struct msg_status st;
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
	struct msg_status st;
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
		struct msg_status st;
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
