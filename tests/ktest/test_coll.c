/*
 * ktest suite "coll": the collectives' algorithms, modes and tuned table (docs/collectives.md).
 * Every algorithm of every collective, in both modes, on groups of 1 to 128 cores and on a
 * scattered group; loose mode lets a member leave before another arrives and strict mode
 * does not; a mode or algorithm that does not exist is refused before anything is sent.
 */
#include "tests/ktest/coll_check.h"
#include "kernel/core/hart.h"
#include "kernel/console/console.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/msg/group.h"
#include "kernel/msg/coll_tune.h"
#include "kernel/time/vtime.h"
#include "lib/string.h"
#include "lib/format.h"

#define BIG_BLOCK 520 /* * 128 members > NOC_MAX_BODY: allgather's tree sends its result in pieces */

struct coll_run {
	const uint16_t *cores;
	unsigned n;
	int variant;
	int err_line[MOSAIC_MAX_HARTS];
};

#define CCHECK(cond)                                         \
	do {                                                 \
		if (!(cond) && !run->err_line[me])           \
			run->err_line[me] = __LINE__;        \
	} while (0)

/* The how of one collective in a variant (see coll_check.h). */
static unsigned how_for(enum msg_coll kind, int variant)
{
	if (variant < 0)
		return MSG_STRICT;
	unsigned want = (unsigned)variant >> 1, seen = 0;
	for (unsigned a = 1; a < MSG_ALGO_COUNT; a++)
		if ((msg_coll_algos(kind) & (1u << a)) && seen++ == want)
			return ((unsigned)variant & 1) | MSG_ALGO(a);
	return (unsigned)variant & 1; /* past the collective's algorithms: the tuned one */
}

static void collectives(void *arg)
{
	struct coll_run *run = arg;
	unsigned me = this_cpu();
	static int64_t in[MOSAIC_MAX_HARTS][4], out[MOSAIC_MAX_HARTS][4];
	static uint64_t gathered[MOSAIC_MAX_HARTS][MOSAIC_MAX_HARTS], blocks[MOSAIC_MAX_HARTS][MOSAIC_MAX_HARTS];
	static uint8_t vin[MOSAIC_MAX_HARTS][MOSAIC_MAX_HARTS * 16], vout[MOSAIC_MAX_HARTS][MOSAIC_MAX_HARTS * 16];
	struct msg_group g;
	int v = run->variant;
	CCHECK(msg_group_init(&g, run->cores, run->n) == 0);
	unsigned n = g.n, rank = g.rank;
	CCHECK(rank < n);
	for (int i = 0; i < 3; i++)
		CCHECK(msg_barrier(&g, how_for(COLL_BARRIER, v)) == 0);

	uint8_t b[100];
	for (int i = 0; i < 100; i++)
		b[i] = rank == n - 1 ? (uint8_t)(i * 3 + n) : 0;
	CCHECK(msg_bcast(&g, how_for(COLL_BCAST, v), n - 1, b, sizeof b) == 0);
	for (int i = 0; i < 100; i++)
		CCHECK(b[i] == (uint8_t)(i * 3 + n));

	for (int i = 0; i < 4; i++)
		in[me][i] = (int64_t)(rank + 1) * (i + 1) * (i == 3 ? -1 : 1);
	int64_t nn = (int64_t)n;
	static const enum msg_op ops[3] = {MSG_OP_SUM, MSG_OP_MIN, MSG_OP_MAX};
	for (int o = 0; o < 3; o++) {
		for (int all = 0; all < 2; all++) {
			for (int i = 0; i < 4; i++)
				out[me][i] = 12345;
			unsigned root = n / 2;
			if (all)
				CCHECK(msg_allreduce(&g, how_for(COLL_ALLREDUCE, v), in[me], out[me], 4, ops[o]) == 0);
			else
				CCHECK(msg_reduce(&g, how_for(COLL_REDUCE, v), root, in[me], out[me], 4, ops[o]) == 0);
			if (!all && rank != root)
				continue;
			for (int i = 0; i < 4; i++) {
				int64_t k = (i + 1) * (i == 3 ? -1 : 1);
				int64_t lo = k > 0 ? k : k * nn, hi = k > 0 ? k * nn : k;
				int64_t want = ops[o] == MSG_OP_SUM ? k * nn * (nn + 1) / 2 : ops[o] == MSG_OP_MIN ? lo : hi;
				CCHECK(out[me][i] == want);
			}
		}
	}

	uint64_t mine = rank * 1000 + 1;
	for (unsigned root = 0; root < n; root += n - 1 > root ? n - 1 - root : n) {
		for (unsigned r = 0; r < n; r++)
			gathered[me][r] = 0;
		CCHECK(msg_gather(&g, how_for(COLL_GATHER, v), root, &mine, sizeof mine, gathered[me]) == 0);
		if (rank == root)
			for (unsigned r = 0; r < n; r++)
				CCHECK(gathered[me][r] == r * 1000 + 1);
		/* scatter: the root's block r goes to rank r */
		for (unsigned r = 0; r < n; r++)
			blocks[me][r] = rank == root ? r * 77 + root : 0;
		uint64_t got = 0;
		CCHECK(msg_scatter(&g, how_for(COLL_SCATTER, v), root, blocks[me], sizeof got, &got) == 0);
		CCHECK(got == rank * 77 + root);
	}
	for (unsigned r = 0; r < n; r++)
		gathered[me][r] = 0;
	CCHECK(msg_allgather(&g, how_for(COLL_ALLGATHER, v), &mine, sizeof mine, gathered[me]) == 0);
	for (unsigned r = 0; r < n; r++)
		CCHECK(gathered[me][r] == r * 1000 + 1);
	/* large blocks: with 128 members the whole result is more than one message */
	uint8_t *big = kmalloc((uint64_t)n * BIG_BLOCK), own[BIG_BLOCK];
	CCHECK(big != 0);
	if (big) {
		for (unsigned i = 0; i < BIG_BLOCK; i++)
			own[i] = (uint8_t)(rank * 31 + i);
		CCHECK(msg_allgather(&g, how_for(COLL_ALLGATHER, v), own, BIG_BLOCK, big) == 0);
		for (unsigned r = 0; r < n; r++)
			for (unsigned i = 0; i < BIG_BLOCK; i += 37)
				CCHECK(big[r * BIG_BLOCK + i] == (uint8_t)(r * 31 + i));
		kfree(big);
	}

	for (unsigned r = 0; r < n; r++)
		blocks[me][r] = rank * 1000 + r;
	CCHECK(msg_alltoall(&g, how_for(COLL_ALLTOALL, v), blocks[me], sizeof(uint64_t), gathered[me]) == 0);
	for (unsigned s = 0; s < n; s++)
		CCHECK(gathered[me][s] == s * 1000 + rank);

	uint32_t sc[MOSAIC_MAX_HARTS], sd[MOSAIC_MAX_HARTS], rc[MOSAIC_MAX_HARTS], rd[MOSAIC_MAX_HARTS], so = 0, ro = 0;
	for (unsigned r = 0; r < n; r++) {
		sc[r] = (rank + r) % 5 * 3; /* 0..12 bytes, some empty */
		sd[r] = so;
		so += sc[r];
		rc[r] = (r + rank) % 5 * 3;
		rd[r] = ro;
		ro += rc[r];
		for (uint32_t i = 0; i < sc[r]; i++)
			vin[me][sd[r] + i] = (uint8_t)(rank * 7 + r + i);
	}
	CCHECK(msg_alltoallv(&g, how_for(COLL_ALLTOALL, v), vin[me], sc, sd, vout[me], rc, rd) == 0);
	for (unsigned s = 0; s < n; s++)
		for (uint32_t i = 0; i < rc[s]; i++)
			CCHECK(vout[me][rd[s] + i] == (uint8_t)(s * 7 + rank + i));
	CCHECK(msg_barrier(&g, MSG_STRICT) == 0);
	/* nothing stray is left behind by any collective */
	struct mosaic_status st;
	CCHECK(msg_probe_typed(MSG_TYPE_COLL, MSG_ANY_SOURCE, MSG_ANY_TAG, false, &st) == -EAGAIN);
}

static bool run_collectives(struct ktest_ctx *kt, const uint16_t *cores, unsigned n, const char *what, int variant)
{
	static struct coll_run run;
	memset(&run, 0, sizeof run);
	run.cores = cores;
	run.n = n;
	run.variant = variant;
	uint64_t t0 = vtime_now_ns(); /* the boot core's clock: under virtual time the group's span */
	if (!ktest_run_on(cores, n, collectives, &run)) {
		ktest_fail(kt, __FILE__, __LINE__, "could not start the group %s", what);
		return false;
	}
	for (unsigned i = 0; i < n; i++)
		if (run.err_line[cores[i]]) {
			ktest_fail(kt, __FILE__, run.err_line[cores[i]], "group %s, variant %d, core %u", what, variant,
				   cores[i]);
			return false;
		}
	kprintf("ktest:   collectives on %s (%u cores): ok in %lu us (variant %d%s)\n", what, n,
		(vtime_now_ns() - t0) / 1000, variant, variant < 0 ? ": strict, tuned" : "");
	return true;
}

void coll_check_sizes(struct ktest_ctx *kt, int variant)
{
	static const unsigned sizes[] = {1, 2, 3, 7, 36, 64, 128};
	uint16_t cores[MOSAIC_MAX_HARTS];
	for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		if (sizes[s] > hart_count)
			continue;
		/* a block of consecutive cores, shifted so the group does not start at core 0 */
		for (unsigned i = 0; i < sizes[s]; i++)
			cores[i] = (uint16_t)((i + hart_count - sizes[s]) % hart_count);
		char what[24];
		snprintf(what, sizeof what, "%u cores", sizes[s]);
		if (!run_collectives(kt, cores, sizes[s], what, variant))
			return;
	}
}

void coll_check_scattered(struct ktest_ctx *kt, int variant)
{
	/* every third core, in a shuffled rank order: not a rectangle, ranks unlike core ids */
	uint16_t cores[MOSAIC_MAX_HARTS];
	unsigned n = 0;
	for (unsigned c = hart_count; c-- > 0;)
		if (c % 3 == 1)
			cores[n++] = (uint16_t)c;
	if (n < 2) {
		kprintf("ktest:   (skipped: needs at least 5 harts)\n");
		return;
	}
	run_collectives(kt, cores, n, "every third core", variant);
}

KTEST(coll, every_algorithm_in_both_modes_on_groups_of_1_to_128)
{
	for (int v = 0; v < COLL_CHECK_VARIANTS && !kt->failed; v++)
		coll_check_sizes(kt, v);
}

KTEST(coll, every_algorithm_in_both_modes_on_a_scattered_group)
{
	for (int v = 0; v < COLL_CHECK_VARIANTS && !kt->failed; v++)
		coll_check_scattered(kt, v);
}

/* ---- loose members leave early, strict ones do not ---- */

/* How long the last member dawdles before it calls: on the cores' own clocks 300 us is exact;
 * on the machine's clock without -icount a hart may wait for the host far longer, so give it 20 ms. */
static unsigned late_us(void) { return vtime_active ? 300 : 20000; }

struct early_leave {
	const uint16_t *cores;
	unsigned n, how;
	uint64_t root_left_ns, late_arrived_ns;
	int err;
};

static void early_side(void *arg)
{
	struct early_leave *x = arg;
	struct msg_group g;
	uint8_t buf[64] = {0};
	int e = msg_group_init(&g, x->cores, x->n);
	if (!e)
		e = msg_barrier(&g, MSG_ALGO(MSG_ALGO_TREE));
	if (!e && g.rank == g.n - 1) {
		vtime_sleep_until_ns(vtime_now_ns() + late_us() * 1000ULL, 0); /* on this core's clock */
		x->late_arrived_ns = vtime_now_ns();
	}
	if (!e)
		e = msg_bcast(&g, x->how, 0, buf, sizeof buf);
	if (!e && g.rank == 0)
		x->root_left_ns = vtime_now_ns();
	if (e)
		x->err = e;
}

KTEST(coll, loose_lets_a_member_leave_before_another_arrives)
{
	KT_ASSERT(hart_count >= 3);
	static const uint16_t cores[3] = {0, 1, 2};
	static const unsigned algos[] = {MSG_ALGO_FLAT, MSG_ALGO_BINOMIAL, MSG_ALGO_TREE};
	for (unsigned i = 0; i < 3; i++) {
		struct early_leave loose = {.cores = cores, .n = 3, .how = MSG_LOOSE | MSG_ALGO(algos[i])};
		struct early_leave strict = {.cores = cores, .n = 3, .how = MSG_STRICT | MSG_ALGO(algos[i])};
		KT_ASSERT(ktest_run_on(cores, 3, early_side, &loose));
		KT_ASSERT(ktest_run_on(cores, 3, early_side, &strict));
		KT_ASSERT_EQ(loose.err, 0);
		KT_ASSERT_EQ(strict.err, 0);
		kprintf("ktest:   bcast %s: loose root left at %lu, the late member came at %lu; strict: %lu, %lu\n",
			msg_algo_name((enum msg_algo)algos[i]), loose.root_left_ns, loose.late_arrived_ns,
			strict.root_left_ns, strict.late_arrived_ns);
		/* the broadcast's root is not the last member's parent under any of these algorithms' trees
		 * for the whole wait: it left long before the last member came */
		KT_ASSERT(loose.root_left_ns + late_us() * 1000ULL / 2 < loose.late_arrived_ns);
		KT_ASSERT(strict.root_left_ns > strict.late_arrived_ns);
	}
}

/* ---- bad how ---- */

KTEST(coll, an_unknown_mode_or_algorithm_is_refused_and_sends_nothing)
{
	struct msg_group g;
	uint16_t me = (uint16_t)this_cpu();
	KT_ASSERT_EQ(msg_group_init(&g, &me, 1), 0);
	int64_t x = 1, y;
	uint8_t buf[8];
	KT_ASSERT_EQ(msg_barrier(&g, 2), -EINVAL);                          /* no mode 2 */
	KT_ASSERT_EQ(msg_barrier(&g, MSG_ALGO(MSG_ALGO_COUNT)), -EINVAL);   /* no such algorithm */
	KT_ASSERT_EQ(msg_barrier(&g, MSG_ALGO(MSG_ALGO_RING)), -EINVAL);    /* the barrier has no ring */
	KT_ASSERT_EQ(msg_barrier(&g, 0x100), -EINVAL);                      /* bits beyond how */
	KT_ASSERT_EQ(msg_bcast(&g, MSG_ALGO(MSG_ALGO_PAIRWISE), 0, buf, 8), -EINVAL);
	KT_ASSERT_EQ(msg_allreduce(&g, MSG_ALGO(MSG_ALGO_BINOMIAL), &x, &y, 1, MSG_OP_SUM), -EINVAL);
	KT_ASSERT_EQ(msg_gather(&g, MSG_ALGO(MSG_ALGO_TREE), 0, buf, 8, buf), -EINVAL);
	KT_ASSERT_EQ(msg_scatter(&g, 3, 0, buf, 8, buf), -EINVAL);
	KT_ASSERT_EQ(msg_alltoall(&g, MSG_ALGO(MSG_ALGO_RING), buf, 8, buf), -EINVAL);
	KT_ASSERT_EQ(msg_scatter(&g, MSG_LOOSE, 0, buf, NOC_MAX_BODY + 1, buf), -EMSGSIZE);
	/* valid hows on a group of one finish at once */
	KT_ASSERT_EQ(msg_allreduce(&g, MSG_LOOSE | MSG_ALGO(MSG_ALGO_RECURSIVE), &x, &y, 1, MSG_OP_SUM), 0);
	KT_ASSERT_EQ(y, 1);
	struct mosaic_status st;
	KT_ASSERT_EQ(msg_probe_typed(MSG_TYPE_COLL, MSG_ANY_SOURCE, MSG_ANY_TAG, false, &st), -EAGAIN);
}

/* ---- the table ---- */

KTEST(coll, size_and_group_classes)
{
	KT_ASSERT_EQ(coll_group_class(1), 0);
	KT_ASSERT_EQ(coll_group_class(2), 1);
	KT_ASSERT_EQ(coll_group_class(3), 2);
	KT_ASSERT_EQ(coll_group_class(128), 7);
	KT_ASSERT_EQ(coll_size_class(0), 0);
	KT_ASSERT_EQ(coll_size_class(8), 0);
	KT_ASSERT_EQ(coll_size_class(9), 1);
	KT_ASSERT_EQ(coll_size_class(NOC_MAX_BODY), COLL_SIZE_CLASSES - 1);
	/* whatever the table holds, the choice is one the collective has */
	for (unsigned k = 0; k < COLL_KINDS; k++)
		for (unsigned n = 1; n <= hart_count; n = n * 2 + 1) {
			int a = msg_coll_pick((enum msg_coll)k, MSG_LOOSE, n, 100);
			KT_ASSERT(a > 0 && (msg_coll_algos((enum msg_coll)k) & (1u << a)));
		}
}
