/*
 * Helpers shared by the job programs (isort, stencil, ring, compute; the benchmarks
 * shmbench and mpibench take the median): a deterministic per-rank random stream, so
 * every rank (and rank 0 when it checks the others) can regenerate any rank's input,
 * the check that a task is a rank of a job, the verdict summed over the ranks, rank
 * 0's report line, and the median of repetitions.
 * Header-only: each program is one translation unit.
 */
#ifndef MOSAIC_USER_JOB_H
#define MOSAIC_USER_JOB_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include "mosaic.h"

static uint64_t lcg_state;

/* Why the run failed, "" while it has not: what job_report() prints after FAILED. */
static char job_why[96];

static inline uint32_t lcg_next(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(lcg_state >> 32);
}

/* Starts the stream of (arg, rank): the same input on every run of the same job. */
static inline void lcg_seed(long arg, long rank)
{
	lcg_state = (uint64_t)arg * 0x9e3779b97f4a7c15ULL + ((uint64_t)rank + 1) * 0xbf58476d1ce4e5b9ULL;
	lcg_next();
}

/* why = "<text of the first failed check>, <count> times" (counts summed over the ranks), or ""
 * if none of the n checks failed. */
static inline void job_first_failure(const int64_t *all, int n, const char *const *text, char *why, size_t len)
{
	why[0] = 0;
	for (int f = 0; f < n && !why[0]; f++)
		if (all[f])
			snprintf(why, len, "%s, %ld times", text[f], (long)all[f]);
}

/* 0 when this task is rank 0..n-1 of job group g of 1..nmax tasks; otherwise 1, with job_why saying so. */
static inline int job_misfit(long g, long n, long rank, long nmax)
{
	if (g >= 0 && n >= 1 && n <= nmax && rank >= 0 && rank < n)
		return 0;
	snprintf(job_why, sizeof job_why, "not a job of 1..%ld tasks: job group %ld, rank %ld", nmax, g, rank);
	return 1;
}

/* The verdict, the same on every rank: the count failure counters fails[] summed over group g into all[], and
 * job_why as job_first_failure() over the first ntext of them, or "the final allreduce failed". */
static inline void job_verdict(long g, const int64_t *fails, int64_t *all, int count, const char *const *text,
			       int ntext)
{
	if (mosaic_allreduce(g, fails, all, count, MOSAIC_OP_SUM) < 0)
		snprintf(job_why, sizeof job_why, "the final allreduce failed");
	else
		job_first_failure(all, ntext, text, job_why, sizeof job_why);
}

/* The report line "<what>, ok" or "<what>, FAILED (<job_why>)", what being printf(fmt, ...), printed when print
 * is set (rank 0's task); returns the task's exit status, 1 when job_why is not empty. */
static inline int job_report(int print, const char *fmt, ...)
{
	const char *why = job_why;
	if (print) {
		char what[128];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		if (!why[0])
			printf("%s, ok\n", what);
		else
			printf("%s, FAILED (%s)\n", what, why);
	}
	return why[0] ? 1 : 0;
}

/* The median of v[0..n) (n >= 1), sorting v in place: a benchmark's figure of n repetitions. */
static inline long job_median(long *v, long n)
{
	for (long i = 1; i < n; i++)
		for (long j = i; j > 0 && v[j - 1] > v[j]; j--) {
			long t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

#endif
