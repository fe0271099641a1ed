/*
 * Helpers shared by the job programs (isort, stencil, ring, compute): a
 * deterministic per-rank random stream, so every rank (and rank 0 when it checks
 * the others) can regenerate any rank's input, and the wording of a failed check.
 * Header-only: each program is one translation unit.
 */
#ifndef MOSAIC_USER_JOB_H
#define MOSAIC_USER_JOB_H

#include <stdint.h>
#include <stdio.h>

static uint64_t lcg_state;

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

#endif
