/*
 * coll: every collective over a group of tasks, with the default how (strict, tuned) and then
 * with every algorithm of each collective in both modes (user/mosaic.h). The argument is a
 * bit mask of the cores in the group (all below 64), every member running this program at
 * once; or 0 in a job of at most 64 tasks: the job's group.
 */
#include <stdio.h>
#include <string.h>
#include "mosaic.h"

static int failures;
static char where[48];

static void check(const char *what, int ok)
{
	if (!ok) {
		printf("coll: FAILED %s (%s)\n", what, where);
		failures++;
	}
}

#define VARIANTS 8 /* variant v: mode v & 1, the (v >> 1)-th algorithm of each collective, or auto */

/* The group argument of one collective in a variant (-1: the handle alone). */
static long with_how(long g, unsigned algos, int variant)
{
	if (variant < 0)
		return g;
	int want = variant >> 1, seen = 0;
	for (int a = 1; a <= MOSAIC_ALGO_PAIRWISE; a++)
		if ((algos & (1u << a)) && seen++ == want)
			return g | (variant & 1 ? MOSAIC_LOOSE : MOSAIC_STRICT) | MOSAIC_ALGO(a);
	return g | (variant & 1 ? MOSAIC_LOOSE : MOSAIC_STRICT);
}

static void battery(long g, int n, int rank, int variant)
{
	snprintf(where, sizeof where, "variant %d", variant);
	check("barrier", mosaic_barrier(with_how(g, MOSAIC_ALGOS_BARRIER, variant)) == 0);
	char msg[32] = "";
	if (rank == n - 1)
		strcpy(msg, "from the last rank");
	check("bcast", mosaic_bcast(with_how(g, MOSAIC_ALGOS_BCAST, variant), n - 1, msg, sizeof msg) == 0 &&
			       strcmp(msg, "from the last rank") == 0);
	int64_t v = rank + 1, sum = 0, max = 0;
	check("reduce", mosaic_reduce(with_how(g, MOSAIC_ALGOS_REDUCE, variant), 0, &v, &sum, 1, MOSAIC_OP_SUM) == 0 &&
				(rank != 0 || sum == (int64_t)n * (n + 1) / 2));
	check("allreduce",
	      mosaic_allreduce(with_how(g, MOSAIC_ALGOS_ALLREDUCE, variant), &v, &max, 1, MOSAIC_OP_MAX) == 0 && max == n);
	int64_t all[64];
	check("gather", mosaic_gather(with_how(g, MOSAIC_ALGOS_GATHER, variant), 0, &v, sizeof v, all) == 0);
	if (rank == 0)
		for (int r = 0; r < n; r++)
			check("gathered value", all[r] == r + 1);
	for (int r = 0; r < n; r++)
		all[r] = rank == n / 2 ? r * 7 + 3 : -1;
	int64_t mine = 0;
	check("scatter", mosaic_scatter(with_how(g, MOSAIC_ALGOS_SCATTER, variant), n / 2, all, sizeof mine, &mine) == 0 &&
				 mine == rank * 7 + 3);
	memset(all, 0, sizeof all);
	check("allgather", mosaic_allgather(with_how(g, MOSAIC_ALGOS_ALLGATHER, variant), &v, sizeof v, all) == 0);
	for (int r = 0; r < n; r++)
		check("allgathered value", all[r] == r + 1);
	int64_t out[64], in[64];
	for (int r = 0; r < n; r++)
		out[r] = rank * 100 + r;
	check("alltoall", mosaic_alltoall(with_how(g, MOSAIC_ALGOS_ALLTOALL, variant), out, sizeof(int64_t), in) == 0);
	for (int r = 0; r < n; r++)
		check("alltoall value", in[r] == r * 100 + rank);
	/* alltoallv: rank r sends (r + s) % 3 + 1 bytes to rank s */
	uint32_t sc[64], sd[64], rc[64], rd[64], so = 0, ro = 0;
	uint8_t vin[256], vout[256];
	for (int s = 0; s < n; s++) {
		sc[s] = (uint32_t)((rank + s) % 3 + 1);
		sd[s] = so;
		for (uint32_t i = 0; i < sc[s]; i++)
			vout[so + i] = (uint8_t)(rank * 10 + s);
		so += sc[s];
		rc[s] = (uint32_t)((s + rank) % 3 + 1);
		rd[s] = ro;
		ro += rc[s];
	}
	struct mosaic_alltoallv a = {vout, sc, sd, vin, rc, rd};
	check("alltoallv", mosaic_alltoallv(with_how(g, MOSAIC_ALGOS_ALLTOALL, variant), &a) == 0);
	for (int s = 0; s < n; s++)
		for (uint32_t i = 0; i < rc[s]; i++)
			check("alltoallv value", vin[rd[s] + i] == (uint8_t)(s * 10 + rank));
}

MOSAIC_ABOUT("every collective over a group of tasks, with every algorithm in both modes", "a bit mask of the group's cores (below 64), or 0 in a job: the job's group");

int mosaic_main(long mask)
{
	uint16_t cores[64];
	int n = 0, rank = -1;
	long me = mosaic_core_id(), g;
	if (mask == 0) { /* a job of at most 64 tasks: its own group */
		n = (int)mosaic_job_size();
		rank = (int)mosaic_rank();
		g = mosaic_job_group();
		check("job group", g >= 0 && n >= 1 && n <= 64);
		if (g < 0 || n < 1 || n > 64)
			return 1;
	} else {
		for (int c = 0; c < 64; c++)
			if (mask & (1L << c)) {
				if (c == me)
					rank = n;
				cores[n++] = (uint16_t)c;
			}
		g = mosaic_group_init(cores, (size_t)n);
	}
	check("group_init", g >= 0 && rank >= 0);
	for (int variant = -1; variant < VARIANTS; variant++)
		battery(g, n, rank, variant);
	/* a how the kernel does not have is refused: no mode 2, no ring for a barrier */
	check("unknown mode refused", mosaic_barrier(g | 2L << 8) == -22);
	check("unknown algorithm refused", mosaic_barrier(g | MOSAIC_ALGO(MOSAIC_ALGO_RING)) == -22);
	check("final barrier", mosaic_barrier(g) == 0);
	if (rank == 0)
		printf("coll: %d cores, %s\n", n, failures ? "FAILED" : "all collectives correct");
	return failures ? 1 : 0;
}
