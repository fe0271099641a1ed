/*
 * The NoC benchmark behind `make bench-noc` (scripts/bench-noc runs it under
 * -icount and collects the lines). Shell command `bench-noc [reps]`: every
 * result is one line "bench-noc: {json}". All figures use the real message path;
 * times are each core's clock (kernel/time/vtime.h: its own virtual clock with vtime=1, else
 * the machine's), instruction counts the core's own (core_instructions: the vclock
 * plugin's exact count, or instret, exact only under -icount, which serialises the harts).
 */
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/core/ktest.h"
#include "kernel/core/errno.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "kernel/core/prof.h"
#include "arch/riscv/csr.h"
#include "lib/string.h"
#include "lib/stats.h"
#include "kernel/time/vtime.h"
#include "kernel/domain/background.h"
#include "kernel/time/vclock.h"

#define MAX_REPS 32


/* ---- one-way latency: the receiver waits in recv, the sender sends ---- */

struct oneway {
	unsigned src, dst;
	uint32_t len;
	uint64_t latency_ns;
	int err;
};

static void oneway_side(void *arg)
{
	struct oneway *o = arg;
	static uint8_t buf[NOC_MAX_BODY];
	struct mosaic_status st;
	if (this_cpu() == o->dst) {
		o->err |= msg_recv((int)o->src, 3, buf, sizeof buf, &st);
		o->latency_ns = st.t_recv_ns - st.t_send_ns;
	} else {
		timer_sleep_us(50); /* the receiver is asleep in WFI when the message leaves */
		o->err |= msg_send((int)o->dst, 3, buf, o->len);
	}
}

static uint64_t oneway_median(unsigned src, unsigned dst, uint32_t len, unsigned reps, int *err)
{
	uint64_t v[MAX_REPS];
	for (unsigned r = 0; r < reps; r++) {
		struct oneway o = {.src = src, .dst = dst, .len = len};
		uint16_t cores[2] = {(uint16_t)src, (uint16_t)dst};
		if (!ktest_run_on(cores, 2, oneway_side, &o))
			o.err = -EBUSY;
		*err |= o.err;
		v[r] = o.latency_ns;
	}
	return median_u64(v, reps);
}

static unsigned core_at_hops(unsigned h)
{
	unsigned x = h < mesh.w - 1 ? h : mesh.w - 1;
	return mesh_core_at(x, h - x);
}

/* ---- software overhead: instructions of send + receive of a message already delivered ---- */

struct overhead {
	unsigned src, dst;
	volatile uint32_t sent;
	volatile uint64_t sent_ns; /* the sender's clock after its send */
	uint64_t send_instr, recv_instr;
	uint64_t read_instr; /* what two reads of work_now() back to back count: the measurement's own */
	int err;
};

/* This core's work so far, in instructions. Under virtual time its clock / ns per instruction:
 * the clock takes back the instructions of waits (a receive settles first), which are the
 * emulator's, not the message path's. */
static uint64_t work_now(void)
{
	return vtime_active ? vtime_now_ns() / vtime_ns_per_insn : core_instructions();
}

static void overhead_side(void *arg)
{
	struct overhead *o = arg;
	char buf[8] = "overhead";
	struct mosaic_status st;
	if (this_cpu() == o->src) {
		/* the markers lie outside the counted interval, and the two reads' own instructions are
		 * measured alone and taken off: the figure is the message's, not the measurement's (each
		 * would otherwise add its own instructions to every message's figure) */
		uint64_t c0 = work_now();
		o->read_instr = work_now() - c0;
		prof_begin(); /* the send and the receive are what scripts/mosaic-prof --marked counts (bench_msg) */
		uint64_t i0 = work_now();
		o->err |= msg_send((int)o->dst, 4, buf, sizeof buf);
		o->send_instr = work_now() - i0;
		prof_end();
		core_hand_over_flag(o->dst, &o->sent, 1, &o->sent_ns);
	} else {
		core_wait_for_flag(&o->sent, 1, &o->sent_ns); /* on this core's clock: it holds nobody back */
		/* past the delivery time on this core's clock: no waiting inside recv */
		vtime_sleep_until_ns(o->sent_ns + 20000, 0);
		prof_begin();
		uint64_t i0 = work_now();
		o->err |= msg_recv((int)o->src, 4, buf, sizeof buf, &st);
		o->recv_instr = work_now() - i0;
		prof_end();
	}
}

/* The software overhead line of bench_noc: an 8-byte message from core 0 to core 1, `reps` times. */
static void bench_overhead(unsigned reps, int *err)
{
	uint64_t si[MAX_REPS], ri[MAX_REPS], tot[MAX_REPS], rd[MAX_REPS];
	for (unsigned r = 0; r < reps; r++) {
		struct overhead o = {.src = 0, .dst = 1};
		uint16_t cores[2] = {0, 1};
		if (!ktest_run_on(cores, 2, overhead_side, &o))
			o.err = -EBUSY;
		*err |= o.err;
		/* a read's cost is the same on both cores (the same code): taken off each side */
		rd[r] = o.read_instr;
		si[r] = o.send_instr > o.read_instr ? o.send_instr - o.read_instr : 0;
		ri[r] = o.recv_instr > o.read_instr ? o.recv_instr - o.read_instr : 0;
		tot[r] = si[r] + ri[r];
	}
	kprintf("bench-noc: {\"kind\": \"overhead\", \"bytes\": 8, \"send_instructions\": %lu, \"recv_instructions\": %lu, "
		"\"instructions_per_message\": %lu, \"clock_read_instructions\": %lu}\n", median_u64(si, reps),
		median_u64(ri, reps), median_u64(tot, reps), median_u64(rd, reps));
}

/*
 * ---- collectives ----
 * measured: from the root's start to the last member's end. The root starts when it leaves a
 * warm-up barrier, while the members below it still wait for that barrier's release, so this
 * span also holds the tail of the warm-up; when QEMU runs the harts one at a time, that tail's
 * software counts too.
 * period (barriers only): BACK_TO_BACK barriers in a row, the root's time from leaving one
 * barrier to leaving the last, divided by their number: the release phases at both ends cancel
 * out, so this is what one barrier costs in a steady stream (the usual way to time barriers).
 */
#define BACK_TO_BACK 8
/* bench-noc times the mesh tree as it always did; make bench-coll compares the algorithms and modes */
#define TREE_LOOSE (MSG_LOOSE | MSG_ALGO(MSG_ALGO_TREE))

struct coll_bench {
	const uint16_t *cores;
	unsigned n, reps, kind; /* 0 barrier, 1 broadcast */
	uint32_t len;
	uint64_t start[MAX_REPS];
	uint64_t end[MOSAIC_MAX_HARTS][MAX_REPS];
	unsigned ecc, depth;
	uint64_t period_ticks; /* BACK_TO_BACK barriers on the root */
	int err;
};

static void coll_side(void *arg)
{
	struct coll_bench *b = arg;
	static uint8_t data[MOSAIC_MAX_HARTS][1024];
	struct msg_group g;
	unsigned me = this_cpu();
	int e = msg_group_init(&g, b->cores, b->n);
	for (unsigned r = 0; r < b->reps && !e; r++) {
		e = msg_barrier(&g, TREE_LOOSE);
		if (!e && msg_barrier(&g, TREE_LOOSE) == 0 && g.rank == g.tree_root) /* two: everyone has left the first */
			b->start[r] = vtime_now_ticks();
		if (!e)
			e = b->kind == 0 ? msg_barrier(&g, TREE_LOOSE) : msg_bcast(&g, TREE_LOOSE, g.tree_root, data[me], b->len);
		b->end[me][r] = vtime_now_ticks();
	}
	if (!e && b->kind == 0 && !(e = msg_barrier(&g, TREE_LOOSE))) {
		uint64_t t0 = vtime_now_ticks();
		prof_begin(); /* the back-to-back barriers are what scripts/mosaic-prof --marked counts */
		for (unsigned i = 0; i < BACK_TO_BACK && !e; i++)
			e = msg_barrier(&g, TREE_LOOSE);
		prof_end();
		if (g.rank == g.tree_root)
			b->period_ticks = vtime_now_ticks() - t0;
	}
	if (g.rank == g.tree_root) {
		b->depth = g.depth;
		b->ecc = 0;
		for (unsigned i = 0; i < g.n; i++) {
			unsigned h = mesh_hops(g.cores[g.tree_root], g.cores[i]);
			b->ecc = h > b->ecc ? h : b->ecc;
		}
	}
	if (e)
		b->err = e;
}

static void bench_coll(unsigned kind, unsigned n, unsigned reps, uint32_t len, int *err)
{
	static struct coll_bench b;
	static uint16_t cores[MOSAIC_MAX_HARTS];
	/* the first n cores in row order: whole rows, then a partial one */
	for (unsigned i = 0; i < n; i++)
		cores[i] = (uint16_t)i;
	memset(&b, 0, sizeof b);
	b.cores = cores;
	b.n = n;
	b.reps = reps;
	b.kind = kind;
	b.len = len;
	if (!ktest_run_on(cores, n, coll_side, &b))
		b.err = -EBUSY;
	*err |= b.err;
	uint64_t t[MAX_REPS];
	/* the second warm-up barrier can end before the root records start: skip rep 0 */
	unsigned m = 0;
	for (unsigned r = 1; r < reps; r++) {
		uint64_t last = 0;
		for (unsigned i = 0; i < n; i++)
			last = b.end[cores[i]][r] > last ? b.end[cores[i]][r] : last;
		t[m++] = timer_ticks_to_ns(last - b.start[r]);
	}
	uint64_t measured = median_u64(t, m);
	uint64_t bound = 2 * b.ecc * noc_params.timing.t_hop_ns;
	if (kind == 0)
		kprintf("bench-noc: {\"kind\": \"barrier\", \"cores\": %u, \"tree_depth\": %u, \"eccentricity\": %u, "
			"\"model_lower_bound_ns\": %lu, \"measured_ns\": %lu, \"per_level_overhead_ns\": %lu, "
			"\"back_to_back\": %u, \"period_ns\": %lu}\n",
			n, b.depth, b.ecc, bound, measured,
			b.depth ? (measured > bound ? (measured - bound) / (2 * b.depth) : 0) : measured, BACK_TO_BACK,
			timer_ticks_to_ns(b.period_ticks) / BACK_TO_BACK);
	else
		kprintf("bench-noc: {\"kind\": \"broadcast\", \"cores\": %u, \"bytes\": %u, \"tree_depth\": %u, "
			"\"eccentricity\": %u, \"measured_ns\": %lu}\n", n, len, b.depth, b.ecc, measured);
}

SHELL_CMD(bench_noc, "bench_noc [reps: 2..31, default 5]", "NoC benchmark (run by make bench-noc): latency, overhead, collectives")
{
	uint64_t reps = 5;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &reps) || reps < 2 || reps > MAX_REPS - 1)))
		return SHELL_USAGE;
	if (hart_count < 2) {
		kprintf("bench-noc: needs at least 2 harts\n");
		return 1;
	}
	int err = 0;
	kprintf("bench-noc: {\"kind\": \"setup\", \"mesh\": \"%ux%u\", \"icount\": %lu, \"reps\": %lu, \"t_inject_ns\": %lu, "
		"\"t_hop_ns\": %lu, \"t_flit_ns\": %lu, \"flit_bytes\": %lu, \"depth\": %lu}\n",
		mesh.w, mesh.h, timer_icount, reps, noc_params.timing.t_inject_ns, noc_params.timing.t_hop_ns,
		noc_params.timing.t_flit_ns, noc_params.timing.flit_bytes, noc_params.depth);
	for (unsigned h = 1; h <= mesh.w + mesh.h - 2; h++) {
		uint64_t m = oneway_median(0, core_at_hops(h), 8, (unsigned)reps, &err);
		kprintf("bench-noc: {\"kind\": \"latency_vs_hops\", \"hops\": %u, \"bytes\": 8, \"model_ns\": %lu, "
			"\"measured_ns\": %lu}\n", h, noc_model_ns(h, 8), m);
	}
	unsigned far = mesh.cores - 1, fh = mesh_hops(0, far);
	for (uint32_t len = 0; len <= NOC_MAX_BODY; len = len ? len * 4 : 16) {
		uint64_t m = oneway_median(0, far, len, (unsigned)reps, &err);
		kprintf("bench-noc: {\"kind\": \"latency_vs_size\", \"hops\": %u, \"bytes\": %u, \"model_ns\": %lu, "
			"\"measured_ns\": %lu}\n", fh, len, noc_model_ns(fh, len), m);
	}
	bench_overhead((unsigned)reps, &err);
	for (unsigned n = 2; n <= hart_count; n = n * 2 <= hart_count || n == hart_count ? n * 2 : hart_count) {
		bench_coll(0, n, (unsigned)reps + 1, 0, &err);
		bench_coll(1, n, (unsigned)reps + 1, 64, &err);
		if (n == hart_count)
			break;
	}
	if (err)
		kprintf("bench-noc: an operation failed (error %d)\n", err);
	return err ? 1 : 0;
}

/* One collective alone: what scripts/mosaic-prof needs to profile a single group size. */
SHELL_CMD(bench_coll, "bench_coll barrier|bcast CORES [reps: 2..31, default 5]",
	  "time one collective on the first CORES cores (a line of bench_noc); bcast sends 64 B")
{
	uint64_t n = 0, reps = 5;
	unsigned kind = argc >= 2 && strcmp(argv[1], "bcast") == 0 ? 1 : 0;
	if (argc < 3 || argc > 4 || (strcmp(argv[1], "barrier") != 0 && kind == 0) || !parse_u64(argv[2], &n) ||
	    n < 1 || (argc == 4 && (!parse_u64(argv[3], &reps) || reps < 2 || reps > MAX_REPS - 1)))
		return SHELL_USAGE;
	if (n > hart_count) {
		kprintf("bench_coll: %lu cores asked, %u online\n", n, hart_count);
		return SHELL_USAGE;
	}
	int err = 0;
	bench_coll(kind, (unsigned)n, (unsigned)reps + 1, kind ? 64 : 0, &err);
	if (err)
		kprintf("bench_coll: an operation failed (error %d)\n", err);
	return err ? 1 : 0;
}

/* The message overhead alone: what scripts/mosaic-prof --marked needs to profile one send and receive. */
SHELL_CMD(bench_msg, "bench_msg [reps: 2..31, default 5]",
	  "software overhead of an 8-byte send and receive between cores 0 and 1 (a line of bench_noc)")
{
	uint64_t reps = 5;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &reps) || reps < 2 || reps > MAX_REPS - 1)))
		return SHELL_USAGE;
	if (hart_count < 2) {
		kprintf("bench_msg: needs at least 2 harts\n");
		return 1;
	}
	int err = 0;
	bench_overhead((unsigned)reps, &err);
	if (err)
		kprintf("bench_msg: an operation failed (error %d)\n", err);
	return err ? 1 : 0;
}
