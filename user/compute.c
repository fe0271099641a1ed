/*
 * compute: a compute-only job of n tasks (one per core): every rank multiplies
 * two m x m integer matrices, with no communication but one mosaic_allreduce at
 * the end. Rank r draws two offsets c, d in [0, 1000) from an LCG seeded by arg
 * and r, and forms A[i][k] = i + k + c and B[k][j] = k - j + d. With a = i + c,
 * e = d - j, S1 = sum of k and S2 = sum of k^2 over k = 0 .. m-1, each element is
 *     C[i][j] = sum_k (a + k)(k + e) = a*e*m + (a + e)*S1 + S2,
 * and the sum of all elements is m*SA*SE + m*(SA + SE)*S1 + m*m*S2 with
 * SA = m*c + S1 and SE = m*d - S1.
 *
 * The check: every rank compares each element of its product with the formula;
 * the allreduce sums the mismatches and the ranks' element sums, and every rank
 * compares the total with the sum of the closed forms over all ranks (drawing
 * each rank's c and d again from its seed), so all ranks reach the same verdict.
 *
 * arg: matrix order m (0: 40, i.e. 64000 multiply-adds per task; at most 64;
 *      the seed depends on it too).
 * Output (rank 0): "compute: <n> tasks, <m>x<m> matrix product per task, checksum <sum>, ok" or
 *                  "compute: <n> tasks, <m>x<m> matrix product per task, checksum <sum>, FAILED (<why>)".
 */
#include <stdio.h>
#include <stdlib.h>
#include "mosaic.h"
#include "job.h"

#define NMAX 128 /* largest job */
#define MDEFAULT 40
#define MMAX 64
MOSAIC_ABOUT("a compute-only job: every rank multiplies two matrices, one allreduce, checked", "matrix order m (0: 40, at most 64)");


/* The matrices live on the heap: the bss of a user program must stay within one page. */
struct matrices {
	int64_t a[MMAX][MMAX], b[MMAX][MMAX], c[MMAX][MMAX];
};

/* The offsets of a rank's matrices. */
static void offsets(long arg, long rank, int64_t *c, int64_t *d)
{
	lcg_seed(arg, rank);
	*c = lcg_next() % 1000;
	*d = lcg_next() % 1000;
}

/* The product of the rank's matrices, each element checked against the closed form:
 * mine[0] += mismatches, mine[1] += the sum of the elements. */
static void multiply_and_check(struct matrices *w, long arg, long rank, int64_t m, int64_t *mine)
{
	int64_t s1 = m * (m - 1) / 2, s2 = (m - 1) * m * (2 * m - 1) / 6;
	int64_t c, d;
	offsets(arg, rank, &c, &d);
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < m; j++) {
			w->a[i][j] = i + j + c;
			w->b[i][j] = i - j + d;
		}
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < m; j++) {
			int64_t sum = 0;
			for (int64_t k = 0; k < m; k++)
				sum += w->a[i][k] * w->b[k][j];
			w->c[i][j] = sum;
		}
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < m; j++) {
			int64_t a = i + c, e = d - j;
			if (w->c[i][j] != a * e * m + (a + e) * s1 + s2)
				mine[0]++;
			mine[1] += w->c[i][j];
		}
}


int mosaic_main(long arg)
{
	int64_t m = arg <= 0 ? MDEFAULT : arg > MMAX ? MMAX : arg;
	long n = mosaic_job_size(), rank = mosaic_rank(), g = mosaic_job_group();
	if (job_misfit(g, n, rank, NMAX))
		return job_report(rank <= 0, "compute: %ld tasks, %ldx%ld matrix product per task, checksum 0", n,
				  (long)m, (long)m);
	/* loose, as the collectives were before they had modes: the benchmarks' figures stay comparable,
	 * and nothing here relies on the others having finished a collective (docs/collectives.md) */
	g |= MOSAIC_LOOSE;
	int64_t s1 = m * (m - 1) / 2, s2 = (m - 1) * m * (2 * m - 1) / 6;

	int64_t mine[3] = {0, 0, 0}; /* mismatches, sum of the elements, out of memory */
	struct matrices *w = malloc(sizeof *w);
	if (w)
		multiply_and_check(w, arg, rank, m, mine);
	else
		mine[2] = 1;
	free(w);

	/* the verdict, the same on every rank */
	int64_t all[3] = {0, 0, 0}, want = 0;
	for (long r = 0; r < n; r++) {
		int64_t cr, dr;
		offsets(arg, r, &cr, &dr);
		int64_t sa = m * cr + s1, se = m * dr - s1;
		want += m * sa * se + m * (sa + se) * s1 + m * m * s2;
	}
	if (mosaic_allreduce(g, mine, all, 3, MOSAIC_OP_SUM) < 0)
		snprintf(job_why, sizeof job_why, "the final allreduce failed");
	else if (all[2])
		snprintf(job_why, sizeof job_why, "out of memory on %ld ranks", (long)all[2]);
	else if (all[0])
		snprintf(job_why, sizeof job_why, "%ld elements differ from the closed form", (long)all[0]);
	else if (all[1] != want)
		snprintf(job_why, sizeof job_why, "the checksum should be %ld", (long)want);
	return job_report(rank == 0, "compute: %ld tasks, %ldx%ld matrix product per task, checksum %ld", n, (long)m,
			  (long)m, (long)all[1]);
}
