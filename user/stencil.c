/*
 * stencil: a 1-D Jacobi heat stencil over a line of ranks (no wrap-around), run as
 * a job of n tasks (one per core). Rank r owns cells r*CELLS .. r*CELLS+CELLS-1 of
 * a rod whose left end is held at a fixed high temperature and whose right end at
 * zero; the cells start with values drawn from an LCG seeded by arg and the rank.
 * Each iteration every cell becomes (left + 2 * self + right + 2) / 4, in 16.16
 * fixed point integers, so every result is exact. Before each iteration a rank
 * swaps halo cells with its left and right neighbours: receives posted first
 * (mosaic_irecv), then the sends (mosaic_isend), then mosaic_wait for all, which
 * cannot deadlock however full the mailboxes are. Tags: 2t for the cell going
 * right in iteration t, 2t + 1 for the one going left.
 *
 * The check: rank 0 collects the final blocks with mosaic_gather, draws every
 * rank's starting cells again from that rank's seed, runs the same iterations
 * serially over the whole rod and compares cell by cell; mosaic_allreduce makes
 * every rank return the same verdict.
 *
 * arg: iterations T (0: 20; at most 1000; the seed depends on it too).
 * Output (rank 0): "stencil: <n> tasks, <n*16> cells x <T> iterations, ok" or
 *                  "stencil: <n> tasks, <n*16> cells x <T> iterations, FAILED (<why>)".
 */
#include <stdio.h>
#include <stdlib.h>
#include "mosaic.h"
#include "job.h"

#define NMAX 128 /* largest job */
#define CELLS 16 /* per rank */
#define TDEFAULT 20
#define TMAX 1000
MOSAIC_ABOUT("a 1-D Jacobi heat stencil over a line of ranks as a job, checked", "iterations (0: 20, at most 1000)");

#define ONE (1 << 16)            /* 1.0 in 16.16 fixed point */
#define HOT ((int64_t)1000 * ONE) /* the left end of the rod */
#define COLD ((int64_t)0)         /* the right end */

enum { F_MEMORY, F_CALL, F_HALO, F_MISMATCH, NFAIL };
static const char *const fail_text[NFAIL] = {"out of memory", "a kernel call failed", "a halo message of the wrong size",
					     "cells differ from the serial computation"};

static int64_t block[2][CELLS + 2]; /* this rank's cells, with a halo cell at each end */
/* Rank 0's arrays live on the heap: the bss of a user program must stay within one page. */
struct rod_mem {
	int64_t gathered[NMAX * CELLS]; /* every rank's final cells */
	int64_t rod[2][NMAX * CELLS + 2]; /* the serial computation, with the ends */
};
static int64_t core_of[NMAX];

/* The starting cells of a rank: between 0 and 1000.0. */
static void initial_cells(long arg, long rank, int64_t *cells)
{
	lcg_seed(arg, rank);
	for (int i = 0; i < CELLS; i++)
		cells[i] = lcg_next() % (uint32_t)HOT;
}

/* One Jacobi step over cells 1..len of in (0 and len + 1 are the neighbours); all values stay in [0, HOT]. */
static void step(const int64_t *in, int64_t *out, long len)
{
	for (long i = 1; i <= len; i++)
		out[i] = (in[i - 1] + 2 * in[i] + in[i + 1] + 2) / 4;
}


int mosaic_main(long arg)
{
	long t_end = arg <= 0 ? TDEFAULT : arg > TMAX ? TMAX : arg;
	long n = mosaic_job_size(), rank = mosaic_rank(), g = mosaic_job_group();
	if (job_misfit(g, n, rank, NMAX))
		return job_report(rank <= 0, "stencil: %ld tasks, %ld cells x %ld iterations", n, n * CELLS, t_end);
	int64_t fails[NFAIL] = {0};
	struct rod_mem *w = 0;
	if (rank == 0 && !(w = calloc(1, sizeof *w)))
		fails[F_MEMORY]++;

	/* point-to-point messages go to core ids: the core of every rank */
	int64_t me = mosaic_core_id();
	if (mosaic_allgather(g, &me, sizeof me, core_of) < 0)
		fails[F_CALL]++;
	/* every rank goes on to the halo exchange, or none does */
	int64_t trouble = fails[F_CALL] + fails[F_MEMORY], any_trouble = 1;
	if (mosaic_allreduce(g, &trouble, &any_trouble, 1, MOSAIC_OP_MAX) < 0) {
		fails[F_CALL]++;
		any_trouble = 1;
	}

	int cur = 0;
	initial_cells(arg, rank, &block[cur][1]);
	for (long t = 0; t < t_end && !any_trouble; t++) {
		int64_t *c = block[cur];
		/* the rod's ends stay fixed; inner block ends come from the neighbours */
		c[0] = HOT;
		c[CELLS + 1] = COLD;
		int64_t to_left = c[1], to_right = c[CELLS];
		long req[4];
		int recv_of[4], nreq = 0;
		if (rank > 0) {
			int left = (int)core_of[rank - 1];
			req[nreq] = mosaic_irecv(left, (int)(2 * t), &c[0], sizeof c[0]);
			recv_of[nreq++] = 1;
			req[nreq] = mosaic_isend(left, (int)(2 * t + 1), &to_left, sizeof to_left);
			recv_of[nreq++] = 0;
		}
		if (rank < n - 1) {
			int right = (int)core_of[rank + 1];
			req[nreq] = mosaic_irecv(right, (int)(2 * t + 1), &c[CELLS + 1], sizeof c[0]);
			recv_of[nreq++] = 1;
			req[nreq] = mosaic_isend(right, (int)(2 * t), &to_right, sizeof to_right);
			recv_of[nreq++] = 0;
		}
		for (int i = 0; i < nreq; i++) {
			struct mosaic_status st;
			if (req[i] < 0 || mosaic_wait(req[i], &st) < 0)
				fails[F_CALL]++;
			else if (recv_of[i] && st.len != sizeof(int64_t))
				fails[F_HALO]++;
		}
		step(c, block[1 - cur], CELLS);
		cur = 1 - cur;
	}

	/* rank 0: the whole rod again, serially, against the gathered blocks */
	if (!any_trouble && mosaic_gather(g, 0, &block[cur][1], CELLS * sizeof(int64_t), w ? w->gathered : 0) < 0)
		fails[F_CALL]++;
	if (rank == 0 && !any_trouble) {
		long len = n * CELLS;
		int s = 0;
		for (long r = 0; r < n; r++)
			initial_cells(arg, r, &w->rod[s][1 + r * CELLS]);
		w->rod[0][0] = w->rod[1][0] = HOT;
		w->rod[0][len + 1] = w->rod[1][len + 1] = COLD;
		for (long t = 0; t < t_end; t++) {
			step(w->rod[s], w->rod[1 - s], len);
			s = 1 - s;
		}
		for (long i = 0; i < len; i++)
			if (w->gathered[i] != w->rod[s][1 + i])
				fails[F_MISMATCH]++;
	}
	free(w);

	int64_t all[NFAIL];
	job_verdict(g, fails, all, NFAIL, fail_text, NFAIL);
	return job_report(rank == 0, "stencil: %ld tasks, %ld cells x %ld iterations", n, n * CELLS, t_end);
}
