/*
 * The collectives' tuned table and the measurements behind it (docs/collectives.md).
 * coll_tune (the shell's `coll tune`, kernel/msg/coll_shell.c) times every algorithm of every collective on groups of 2, 4, 8, ... cores
 * and on message sizes of 8 B to 64 KiB, and keeps the fastest for the boot; `coll table`
 * shows it. A collective called with MSG_ALGO_AUTO looks its choice up by the group's size
 * class (ceil log2 n) and the block's size class; an entry never measured falls back to
 * the nearest smaller measured size, then to the untuned default (the mesh tree, or flat
 * where a collective has no tree).
 *
 * Shared state: the table is read by every core and written only at the end of a tuning
 * run, by one core, while every core of the machine is held inside the run; so no
 * collective is in flight while it changes, and all members of a group that starts later
 * make the same choice. coll_measure's start/end arrays are scratch shared by the members
 * of one measurement, ordered by the barriers around each repetition.
 */
#include "kernel/msg/coll_internal.h"
#include "kernel/msg/coll_tune.h"
#include "kernel/core/hart.h"
#include "kernel/core/ktest.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/errno.h"
#include "kernel/console/console.h"
#include "kernel/time/vtime.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "lib/stats.h"

static const uint32_t size_class_bytes[COLL_SIZE_CLASSES] = {8, 64, 512, 4096, 32768, 65536};
static const uint8_t untuned[COLL_KINDS] = {
	[COLL_BARRIER] = MSG_ALGO_TREE, [COLL_BCAST] = MSG_ALGO_TREE,     [COLL_REDUCE] = MSG_ALGO_TREE,
	[COLL_ALLREDUCE] = MSG_ALGO_TREE, [COLL_GATHER] = MSG_ALGO_FLAT,  [COLL_SCATTER] = MSG_ALGO_FLAT,
	[COLL_ALLGATHER] = MSG_ALGO_TREE, [COLL_ALLTOALL] = MSG_ALGO_FLAT,
};
static uint8_t table[COLL_KINDS][COLL_GROUP_CLASSES][COLL_SIZE_CLASSES];     /* 0: not measured */
static uint64_t table_ns[COLL_KINDS][COLL_GROUP_CLASSES][COLL_SIZE_CLASSES]; /* the winner's time */

unsigned coll_group_class(unsigned n)
{
	unsigned c = 0;
	while (c + 1 < COLL_GROUP_CLASSES && (1u << c) < n)
		c++;
	return c;
}

unsigned coll_size_class(uint64_t bytes)
{
	unsigned c = 0;
	while (c + 1 < COLL_SIZE_CLASSES && size_class_bytes[c] < bytes)
		c++;
	return c;
}

uint32_t coll_size_of_class(unsigned c) { return size_class_bytes[c < COLL_SIZE_CLASSES ? c : 0]; }

enum msg_algo coll_tuned(enum msg_coll kind, unsigned n, uint64_t bytes)
{
	unsigned g = coll_group_class(n);
	for (int s = (int)coll_size_class(bytes); s >= 0; s--) {
		uint8_t a = __atomic_load_n(&table[kind][g][s], __ATOMIC_RELAXED);
		if (a)
			return (enum msg_algo)a;
	}
	return (enum msg_algo)untuned[kind];
}

/* ---- measuring ---- */

struct measure_run {
	const uint16_t *cores;
	unsigned n, reps;
	const struct coll_trial *trials;
	unsigned ntrials;
	uint64_t *ns;          /* per trial: the median span of its k collectives, 0 if it failed */
	int err;
	bool publish;          /* at the end, with every core held here: install `pending` */
	uint64_t start[MOSAIC_MAX_HARTS], end[MOSAIC_MAX_HARTS];
};
static uint8_t pending[COLL_KINDS][COLL_GROUP_CLASSES][COLL_SIZE_CLASSES];
static uint64_t pending_ns[COLL_KINDS][COLL_GROUP_CLASSES][COLL_SIZE_CLASSES];

bool coll_trial_fits(const struct coll_trial *t, unsigned n)
{
	bool blocks = t->kind >= COLL_GATHER; /* gather, scatter, allgather, alltoall: n blocks on some member */
	if (t->kind == COLL_BARRIER)
		return t->bytes == 0;
	if ((t->kind == COLL_REDUCE || t->kind == COLL_ALLREDUCE) && (t->bytes % 8 || !t->bytes))
		return false;
	return t->bytes <= NOC_MAX_BODY && (uint64_t)t->bytes * (blocks ? n : 1) <= COLL_MEASURE_BUFFER;
}

static int run_trial(struct msg_group *g, const struct coll_trial *t, uint8_t *in, uint8_t *out)
{
	unsigned how = t->how;
	switch (t->kind) {
	case COLL_BARRIER: return msg_barrier(g, how);
	case COLL_BCAST: return msg_bcast(g, how, 0, in, t->bytes);
	case COLL_REDUCE: return msg_reduce(g, how, 0, (int64_t *)in, (int64_t *)out, t->bytes / 8, MSG_OP_SUM);
	case COLL_ALLREDUCE: return msg_allreduce(g, how, (int64_t *)in, (int64_t *)out, t->bytes / 8, MSG_OP_SUM);
	case COLL_GATHER: return msg_gather(g, how, 0, in, t->bytes, out);
	case COLL_SCATTER: return msg_scatter(g, how, 0, in, t->bytes, out);
	case COLL_ALLGATHER: return msg_allgather(g, how, in, t->bytes, out);
	case COLL_ALLTOALL: return msg_alltoall(g, how, in, t->bytes, out);
	default: return -EINVAL;
	}
}

static void measure_side(void *arg)
{
	struct measure_run *m = arg;
	unsigned me = this_cpu();
	struct msg_group g;
	uint8_t *in = kmalloc(COLL_MEASURE_BUFFER), *out = kmalloc(COLL_MEASURE_BUFFER);
	int e = in && out ? msg_group_init(&g, m->cores, m->n) : -ENOMEM;
	if (!e)
		memset(in, (int)me, COLL_MEASURE_BUFFER);
	/* every member runs every trial, whatever its own result, so none waits for another forever */
	bool ok_group = !e;
	for (unsigned i = 0; i < m->ntrials && ok_group; i++) {
		uint64_t span[COLL_MEASURE_MAX_REPS];
		bool ok = true;
		for (unsigned r = 0; r < m->reps; r++) {
			int t = barrier_tree(&g); /* a failed barrier fails this trial; the next barrier tells */
			m->start[me] = vtime_now_ticks();
			for (unsigned k = 0; k < m->trials[i].k && !t; k++)
				t = run_trial(&g, &m->trials[i], in, out);
			m->end[me] = vtime_now_ticks();
			if (t)
				e = e ? e : t;
			ok = ok && !t;
			int b = barrier_tree(&g);
			if (b) {
				ok_group = ok = false;
				e = e ? e : b;
			}
			if (g.rank == 0) {
				uint64_t first = UINT64_MAX, last = 0;
				for (unsigned j = 0; j < m->n; j++) {
					first = m->start[m->cores[j]] < first ? m->start[m->cores[j]] : first;
					last = m->end[m->cores[j]] > last ? m->end[m->cores[j]] : last;
				}
				span[r] = timer_ticks_to_ns(last - first);
			}
			/* nobody overwrites start/end before rank 0 has read them */
			if ((b = barrier_tree(&g)) != 0) {
				ok_group = ok = false;
				e = e ? e : b;
			}
		}
		if (g.rank == 0)
			m->ns[i] = ok ? median_u64(span, m->reps) : 0;
	}
	if (m->publish && ok_group && barrier_tree(&g) == 0) {
		if (g.rank == 0) {
			memcpy(table_ns, pending_ns, sizeof table_ns);
			for (unsigned k = 0; k < COLL_KINDS; k++)
				for (unsigned c = 0; c < COLL_GROUP_CLASSES; c++)
					for (unsigned s = 0; s < COLL_SIZE_CLASSES; s++)
						__atomic_store_n(&table[k][c][s], pending[k][c][s], __ATOMIC_RELAXED);
		}
		if (barrier_tree(&g))
			ok_group = false;
	}
	if (e || !ok_group)
		__atomic_compare_exchange_n(&m->err, &(int){0}, e ? e : -EINTR, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	kfree(in);
	kfree(out);
}

static int measure(const uint16_t *cores, unsigned n, const struct coll_trial *trials, unsigned ntrials,
		   unsigned reps, uint64_t *ns, bool publish)
{
	static struct measure_run m; /* too big for the stack; one measurement at a time (the shell) */
	if (n < 1 || n > hart_count || reps < 1 || reps > COLL_MEASURE_MAX_REPS)
		return -EINVAL;
	m = (struct measure_run){.cores = cores, .n = n, .reps = reps, .trials = trials, .ntrials = ntrials,
				 .ns = ns, .publish = publish};
	for (unsigned i = 0; i < ntrials; i++) {
		ns[i] = 0;
		if (!coll_trial_fits(&trials[i], n) || trials[i].k < 1)
			return -EINVAL;
	}
	if (!ktest_run_on(cores, n, measure_side, &m))
		return -EBUSY;
	return m.err;
}

int coll_measure(const uint16_t *cores, unsigned n, const struct coll_trial *trials, unsigned ntrials, unsigned reps,
		 uint64_t *ns)
{
	return measure(cores, n, trials, ntrials, reps, ns, false);
}

/* ---- tuning ---- */

/* Every algorithm of every collective at every size that fits n members. */
static unsigned tuning_trials(unsigned n, struct coll_trial *t, unsigned cap)
{
	unsigned count = 0;
	for (unsigned k = 0; k < COLL_KINDS; k++)
		for (unsigned s = 0; s < (k == COLL_BARRIER ? 1u : COLL_SIZE_CLASSES); s++)
			for (unsigned a = 1; a < MSG_ALGO_COUNT; a++) {
				struct coll_trial x = {.kind = (enum msg_coll)k, .how = MSG_LOOSE | MSG_ALGO(a),
						       .bytes = k == COLL_BARRIER ? 0 : size_class_bytes[s], .k = 1};
				if ((msg_coll_algos(x.kind) & (1u << a)) && coll_trial_fits(&x, n) && count < cap)
					t[count++] = x;
			}
	return count;
}

int coll_tune(unsigned reps, bool verbose)
{
	static struct coll_trial trials[COLL_MAX_TRIALS];
	static uint64_t ns[COLL_MAX_TRIALS];
	static uint16_t cores[MOSAIC_MAX_HARTS];
	if (hart_count < 2)
		return -ENXIO;
	for (unsigned i = 0; i < hart_count; i++)
		cores[i] = (uint16_t)i;
	memset(pending, 0, sizeof pending);
	memset(pending_ns, 0, sizeof pending_ns);
	for (unsigned n = 2;; n = n * 2 < hart_count ? n * 2 : hart_count) {
		unsigned nt = tuning_trials(n, trials, COLL_MAX_TRIALS), c = coll_group_class(n);
		int e = measure(cores, n, trials, nt, reps, ns, false);
		if (e)
			return e;
		for (unsigned i = 0; i < nt; i++) {
			unsigned s = trials[i].kind == COLL_BARRIER ? 0 : coll_size_class(trials[i].bytes);
			uint64_t *best = &pending_ns[trials[i].kind][c][s];
			if (ns[i] && (!*best || ns[i] < *best)) {
				*best = ns[i];
				pending[trials[i].kind][c][s] = (uint8_t)(trials[i].how >> MSG_ALGO_SHIFT);
			}
			if (verbose)
				kprintf("coll: tune n=%u %s %u B %s: %lu ns\n", n, msg_coll_name(trials[i].kind), trials[i].bytes,
					msg_algo_name((enum msg_algo)(trials[i].how >> MSG_ALGO_SHIFT)), ns[i]);
		}
		if (n == hart_count)
			break;
	}
	/* install it with every core held inside one last run: no collective is in flight */
	struct coll_trial none = {.kind = COLL_BARRIER, .how = MSG_LOOSE | MSG_ALGO(MSG_ALGO_TREE), .k = 1};
	uint64_t dummy;
	return measure(cores, hart_count, &none, 1, 1, &dummy, true);
}

uint8_t coll_table_entry(enum msg_coll kind, unsigned group_class, unsigned size_class, uint64_t *ns)
{
	*ns = table_ns[kind][group_class][size_class];
	return __atomic_load_n(&table[kind][group_class][size_class], __ATOMIC_RELAXED);
}

enum msg_algo coll_untuned(enum msg_coll kind) { return (enum msg_algo)untuned[kind]; }

bool coll_table_tuned(void)
{
	for (unsigned k = 0; k < COLL_KINDS; k++)
		for (unsigned c = 0; c < COLL_GROUP_CLASSES; c++)
			for (unsigned s = 0; s < COLL_SIZE_CLASSES; s++)
				if (__atomic_load_n(&table[k][c][s], __ATOMIC_RELAXED))
					return true;
	return false;
}
