/*
 * ring: a token travels R times around all n ranks of a job (one task per core).
 * Rank 0 starts each round by sending the token to rank 1; rank r receives it
 * from rank r - 1, adds its rank and passes it on to rank (r + 1) % n, so rank 0
 * gets it back from rank n - 1 at the end of the round. A hop is an isend, then
 * (at rank 0, which sends first in a round) the receive, then the wait for the
 * send: with n = 1 rank 0 sends the token to itself without deadlock. Tag: the
 * round. The token also counts its hops.
 *
 * The check: every rank sees the value the token must have on arrival (in round
 * k at rank r > 0: k * n(n-1)/2 + r(r-1)/2; at rank 0 after round k:
 * (k + 1) * n(n-1)/2), from the right core and with the right hop count; at the
 * end rank 0 holds R * n(n-1)/2 after R * n hops. mosaic_allreduce makes every
 * rank return the same verdict.
 *
 * arg: rounds R (0: 3; at most 1000).
 * Output (rank 0): "ring: <n> tasks, <R> rounds, token <value>, ok" or
 *                  "ring: <n> tasks, <R> rounds, token <value>, FAILED (<why>)".
 */
#include <stdio.h>
#include "mosaic.h"
#include "job.h"

#define NMAX 128 /* largest job */
#define RDEFAULT 3
#define RMAX 1000
MOSAIC_ABOUT("a token travels R times around all ranks of a job, checked", "rounds R (0: 3, at most 1000)");


enum { F_CALL, F_MESSAGE, F_VALUE, F_FINAL, NFAIL };
static const char *const fail_text[NFAIL] = {"a kernel call failed", "a token from the wrong core or of the wrong size",
					     "a token with the wrong value on its way", "the wrong final token"};

struct token {
	int64_t value, hops;
};

static int64_t core_of[NMAX];


int mosaic_main(long arg)
{
	long rounds = arg <= 0 ? RDEFAULT : arg > RMAX ? RMAX : arg;
	long n = mosaic_job_size(), rank = mosaic_rank(), g = mosaic_job_group();
	if (job_misfit(g, n, rank, NMAX))
		return job_report(rank <= 0, "ring: %ld tasks, %ld rounds, token 0", n, rounds);
	/* loose, as the collectives were before they had modes: the benchmarks' figures stay comparable,
	 * and nothing here relies on the others having finished a collective (docs/collectives.md) */
	g |= MOSAIC_LOOSE;
	int64_t fails[NFAIL] = {0};

	/* point-to-point messages go to core ids: the core of every rank */
	int64_t me = mosaic_core_id();
	if (mosaic_allgather(g, &me, sizeof me, core_of) < 0)
		fails[F_CALL]++;
	/* every rank goes on to the ring, or none does */
	int64_t trouble = fails[F_CALL], any_trouble = 1;
	if (mosaic_allreduce(g, &trouble, &any_trouble, 1, MOSAIC_OP_MAX) < 0) {
		fails[F_CALL]++;
		any_trouble = 1;
	}

	int next = (int)core_of[(rank + 1) % n], prev = (int)core_of[(rank + n - 1) % n];
	int64_t lap = (int64_t)n * (n - 1) / 2; /* what one round adds */
	struct token tok = {0, 0}, out;
	for (long k = 0; k < rounds && !any_trouble; k++) {
		struct mosaic_status st;
		long s = -1;
		if (rank == 0) {
			/* start the round, then wait for the token to come back */
			out = tok;
			out.hops++;
			s = mosaic_isend(next, (int)k, &out, sizeof out);
			if (s < 0)
				fails[F_CALL]++;
		}
		if (mosaic_recv(prev, (int)k, &tok, sizeof tok, &st) < 0) {
			fails[F_CALL]++;
		} else {
			if (st.len != sizeof tok || st.source != prev)
				fails[F_MESSAGE]++;
			int64_t want = rank == 0 ? (k + 1) * lap : k * lap + (int64_t)rank * (rank - 1) / 2;
			int64_t want_hops = rank == 0 ? (k + 1) * n : k * n + rank;
			if (tok.value != want || tok.hops != want_hops)
				fails[F_VALUE]++;
		}
		if (rank != 0) {
			/* pass it on */
			out = tok;
			out.value += rank;
			out.hops++;
			s = mosaic_isend(next, (int)k, &out, sizeof out);
			if (s < 0)
				fails[F_CALL]++;
		}
		if (s >= 0 && mosaic_wait(s, 0) < 0)
			fails[F_CALL]++;
	}
	if (rank == 0 && !any_trouble && (tok.value != rounds * lap || tok.hops != rounds * n))
		fails[F_FINAL]++;

	int64_t all[NFAIL];
	job_verdict(g, fails, all, NFAIL, fail_text, NFAIL);
	return job_report(rank == 0, "ring: %ld tasks, %ld rounds, token %ld", n, rounds, (long)tok.value);
}
