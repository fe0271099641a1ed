/*
 * The collectives benchmark behind `make bench-coll` (scripts/bench-coll runs it under -icount
 * with per-core virtual time and collects the lines). Shell command `bench_collectives [reps] [max_n]`:
 * every result is one line "bench-coll: {json}".
 *   tuned     `coll tune` first, so that strict mode's fences are the tuned barrier everywhere
 *   point     one collective (k = 1) per algorithm and mode, and with the tuned choice ("auto"), on
 *             groups of 2, 4, ... cores and blocks of 8 B, 512 B and 4 KiB (as far as
 *             COLL_MEASURE_BUFFER holds them)
 *   sequence  k = 1..16 broadcasts or allreduces back to back on the whole group, strict
 *             against loose: what loose synchronisation saves by letting them overlap
 * Every time is a span on the cores' own clocks: from the first member's start to the last
 * member's end (kernel/msg/coll_tune.c, coll_measure), the median of reps.
 */
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/msg/group.h"
#include "kernel/msg/coll_tune.h"
#include "kernel/time/vtime.h"
#include "drivers/timer.h"
#include "drivers/noc/mesh.h"
#include "lib/string.h"

static const uint32_t bench_bytes[] = {8, 512, 4096};
static const unsigned sequence_ks[] = {1, 2, 4, 8, 16};

/* Every algorithm (or only auto) of every collective, both modes, the sizes that fit n. */
static unsigned point_trials(unsigned n, bool tuned, struct coll_trial *t, unsigned cap)
{
	unsigned count = 0;
	for (unsigned k = 0; k < COLL_KINDS; k++)
		for (unsigned s = 0; s < (k == COLL_BARRIER ? 1u : sizeof bench_bytes / sizeof bench_bytes[0]); s++)
			for (unsigned mode = MSG_STRICT; mode <= MSG_LOOSE; mode++)
				for (unsigned a = tuned ? 0 : 1; a < (tuned ? 1u : MSG_ALGO_COUNT); a++) {
					struct coll_trial x = {.kind = (enum msg_coll)k, .how = mode | MSG_ALGO(a),
							       .bytes = k == COLL_BARRIER ? 0 : bench_bytes[s], .k = 1};
					if ((tuned || (msg_coll_algos(x.kind) & (1u << a))) && coll_trial_fits(&x, n) &&
					    count < cap)
						t[count++] = x;
				}
	return count;
}

static int run_points(const uint16_t *cores, unsigned n, bool tuned, unsigned reps)
{
	static struct coll_trial t[COLL_MAX_TRIALS];
	static uint64_t ns[COLL_MAX_TRIALS];
	unsigned nt = point_trials(n, tuned, t, COLL_MAX_TRIALS);
	int e = coll_measure(cores, n, t, nt, reps, ns);
	if (e)
		return e;
	for (unsigned i = 0; i < nt; i++) {
		unsigned a = t[i].how >> MSG_ALGO_SHIFT;
		kprintf("bench-coll: {\"kind\": \"point\", \"n\": %u, \"coll\": \"%s\", \"bytes\": %u, \"mode\": \"%s\", "
			"\"algo\": \"%s\", \"chosen\": \"%s\", \"ns\": %lu}\n",
			n, msg_coll_name(t[i].kind), t[i].bytes, (t[i].how & MSG_SYNC_MASK) ? "loose" : "strict",
			msg_algo_name((enum msg_algo)a),
			msg_algo_name((enum msg_algo)msg_coll_pick(t[i].kind, t[i].how, n, t[i].bytes)), ns[i]);
	}
	return 0;
}

static int run_sequences(const uint16_t *cores, unsigned n, unsigned reps)
{
	static const enum msg_coll kinds[] = {COLL_BCAST, COLL_ALLREDUCE};
	struct coll_trial t[2 * 2 * sizeof sequence_ks / sizeof sequence_ks[0]];
	uint64_t ns[sizeof t / sizeof t[0]];
	unsigned nt = 0;
	for (unsigned c = 0; c < 2; c++)
		for (unsigned k = 0; k < sizeof sequence_ks / sizeof sequence_ks[0]; k++)
			for (unsigned mode = MSG_STRICT; mode <= MSG_LOOSE; mode++)
				t[nt++] = (struct coll_trial){.kind = kinds[c], .how = mode, .bytes = 512, .k = sequence_ks[k]};
	int e = coll_measure(cores, n, t, nt, reps, ns);
	for (unsigned i = 0; i < nt && !e; i++)
		kprintf("bench-coll: {\"kind\": \"sequence\", \"n\": %u, \"coll\": \"%s\", \"bytes\": %u, \"mode\": \"%s\", "
			"\"chosen\": \"%s\", \"k\": %u, \"ns\": %lu}\n",
			n, msg_coll_name(t[i].kind), t[i].bytes, t[i].how ? "loose" : "strict",
			msg_algo_name((enum msg_algo)msg_coll_pick(t[i].kind, t[i].how, n, t[i].bytes)), t[i].k, ns[i]);
	return e;
}

SHELL_CMD(bench_collectives, "bench_collectives [reps: 1..15, default 3] [max_n: 2..cores, default all]",
	  "collectives benchmark (run by make bench-coll): every algorithm and mode, then tuned, then sequences")
{
	uint64_t reps = 3, max_n = hart_count;
	if (argc > 3 || (argc >= 2 && (!parse_u64(argv[1], &reps) || reps < 1 || reps > COLL_MEASURE_MAX_REPS)) ||
	    (argc == 3 && (!parse_u64(argv[2], &max_n) || max_n < 2 || max_n > hart_count)))
		return SHELL_USAGE;
	if (hart_count < 2) {
		kprintf("bench-coll: needs at least 2 harts\n");
		return 1;
	}
	static uint16_t cores[MOSAIC_MAX_HARTS];
	for (unsigned i = 0; i < hart_count; i++)
		cores[i] = (uint16_t)i; /* the first n cores in row order: whole rows, then a partial one */
	kprintf("bench-coll: {\"kind\": \"setup\", \"mesh\": \"%ux%u\", \"cores\": %u, \"max_n\": %lu, \"reps\": %lu, "
		"\"virtual_time\": %s, \"icount\": %lu, \"measure_buffer\": %u}\n",
		mesh.w, mesh.h, hart_count, max_n, reps, vtime_active ? "true" : "false", timer_icount,
		COLL_MEASURE_BUFFER);
	/* tune first: the strict mode's fences are the tuned barrier in every point, fixed or tuned alike */
	const char *why = coll_tune_refusal();
	if (why) {
		kprintf("bench-coll: cannot tune: %s\n", why);
		return 1;
	}
	uint64_t t0 = timer_now();
	int e = coll_tune((unsigned)reps, false);
	if (!e)
		kprintf("bench-coll: {\"kind\": \"tuned\", \"tuning_ms_on_this_clock\": %lu}\n",
			timer_ticks_to_ns(timer_now() - t0) / 1000000);
	for (unsigned n = 2; !e; n = n * 2 < max_n ? n * 2 : (unsigned)max_n) {
		e = run_points(cores, n, false, (unsigned)reps);
		if (!e)
			e = run_points(cores, n, true, (unsigned)reps);
		if (n == max_n)
			break;
	}
	if (!e)
		e = run_sequences(cores, (unsigned)max_n, (unsigned)reps);
	kprintf("bench-coll: {\"kind\": \"done\", \"error\": %d}\n", e);
	return e ? 1 : 0;
}
