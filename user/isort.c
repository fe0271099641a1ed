/*
 * isort: a parallel integer bucket sort in the manner of NAS IS, run as a job of
 * n tasks (one per core). Every rank draws K keys in [0, MAXKEY), each the mean
 * of four uniform draws, so the keys crowd towards the middle of the range and
 * the buckets differ in size (the outer ones of a large job stay empty). Bucket
 * b, kept by rank b, is the b-th of n equal slices of the key range. The ranks
 * exchange their per-bucket key counts with mosaic_alltoall and the keys with
 * mosaic_alltoallv, then sort their bucket locally (heap sort).
 *
 * The check: every bucket is sorted and holds only keys of its slice; the last
 * key of every non-empty bucket is <= the first key of the next non-empty one
 * (the bucket ends are shared with mosaic_allgather); the number of keys and
 * their sum are the same before and after the exchange (mosaic_allreduce).
 *
 * arg: keys per rank K (0: 256; at most 2048; the seed depends on it too).
 * Output (rank 0): "isort: <n> tasks, <n*K> keys, ok" or
 *                  "isort: <n> tasks, <n*K> keys, FAILED (<why>)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mosaic.h"
#include "job.h"

#define NMAX 128        /* largest job */
#define MAXKEY (1u << 16)
#define KDEFAULT 256
#define KMAX 2048
MOSAIC_ABOUT("a parallel integer bucket sort (NAS IS) as a job of n tasks, checked", "keys per rank (0: 256, at most 2048)");

#define RECV_CAP (4 * KMAX) /* the fullest bucket holds about 2.7 K keys */

/* What went wrong; the final allreduce sums the counts over all ranks. */
enum { F_MEMORY, F_CALL, F_CAPACITY, F_RANGE, F_ORDER, F_BOUNDARY, F_COUNT, F_SUM, NFAIL };
static const char *const fail_text[NFAIL] = {
	"out of memory", "a kernel call failed", "a bucket overflowed", "a key outside its bucket", "a bucket not sorted",
	"buckets out of order", "the key count changed", "the key sum changed",
};

/* The arrays live on the heap: the bss of a user program must stay within one page. */
struct isort_mem {
	uint32_t keys[KMAX];       /* this rank's keys as drawn */
	uint32_t sendbuf[KMAX];    /* the same, grouped by bucket */
	uint32_t bucket[RECV_CAP]; /* the keys of this rank's bucket */
	uint32_t sendcount[NMAX], recvcount[NMAX], fill[NMAX]; /* in keys */
	uint32_t sc[NMAX], sd[NMAX], rc[NMAX], rd[NMAX]; /* in bytes, for alltoallv */
	int64_t ends[NMAX][3]; /* per rank: key count, first key, last key */
};

/* The bucket (rank) of a key: slices of the key range in rank order. */
static uint32_t bucket_of(uint32_t key, uint32_t n)
{
	return (uint32_t)((uint64_t)key * n / MAXKEY);
}

static void sift_down(uint32_t *a, size_t root, size_t end)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= end)
			return;
		if (child + 1 < end && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		uint32_t t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

static void heap_sort(uint32_t *a, size_t len)
{
	for (size_t i = len / 2; i-- > 0;)
		sift_down(a, i, len);
	for (size_t end = len; end > 1; end--) {
		uint32_t t = a[0];
		a[0] = a[end - 1];
		a[end - 1] = t;
		sift_down(a, 0, end - 1);
	}
}

/* Draws, exchanges, sorts and checks the keys; fills fails[] (and the totals after it). */
static void sort_and_check(struct isort_mem *w, long g, long n, long rank, long arg, long k, int64_t *fails)
{
	/* draw the keys and group them by bucket */
	lcg_seed(arg, rank);
	int64_t sum_before = 0;
	for (long i = 0; i < k; i++) {
		uint32_t key = 0;
		for (int j = 0; j < 4; j++)
			key += lcg_next() >> 16;
		w->keys[i] = key / 4;
		sum_before += w->keys[i];
		w->sendcount[bucket_of(w->keys[i], (uint32_t)n)]++;
	}
	for (long b = 0, at = 0; b < n; b++) {
		w->fill[b] = (uint32_t)at;
		w->sd[b] = (uint32_t)(at * sizeof(uint32_t));
		w->sc[b] = w->sendcount[b] * (uint32_t)sizeof(uint32_t);
		at += w->sendcount[b];
	}
	for (long i = 0; i < k; i++)
		w->sendbuf[w->fill[bucket_of(w->keys[i], (uint32_t)n)]++] = w->keys[i];

	/* the counts, then the keys */
	if (mosaic_alltoall(g, w->sendcount, sizeof(uint32_t), w->recvcount) < 0) {
		fails[F_CALL]++;
		memset(w->recvcount, 0, sizeof w->recvcount);
	}
	int64_t m = 0;
	for (long s = 0; s < n; s++) {
		w->rd[s] = (uint32_t)(m * (int64_t)sizeof(uint32_t));
		w->rc[s] = w->recvcount[s] * (uint32_t)sizeof(uint32_t);
		m += w->recvcount[s];
	}
	if (m > RECV_CAP)
		fails[F_CAPACITY]++;
	/* every rank goes on to the alltoallv, or none does */
	int64_t trouble = fails[F_CALL] + fails[F_CAPACITY], any_trouble = 1;
	if (mosaic_allreduce(g, &trouble, &any_trouble, 1, MOSAIC_OP_MAX) < 0) {
		fails[F_CALL]++;
		any_trouble = 1;
	}
	if (any_trouble) {
		m = 0;
	} else {
		struct mosaic_alltoallv v = {w->sendbuf, w->sc, w->sd, w->bucket, w->rc, w->rd};
		if (mosaic_alltoallv(g, &v) < 0) {
			fails[F_CALL]++;
			m = 0;
		}
	}

	/* sort the bucket and check it */
	uint32_t *b = w->bucket;
	heap_sort(b, (size_t)m);
	int64_t sum_after = 0;
	for (int64_t i = 0; i < m; i++) {
		sum_after += b[i];
		if (bucket_of(b[i], (uint32_t)n) != (uint32_t)rank)
			fails[F_RANGE]++;
		if (i > 0 && b[i - 1] > b[i])
			fails[F_ORDER]++;
	}

	/* the buckets in rank order: the previous non-empty bucket ends at or below my first key */
	int64_t mine[3] = {m, m ? b[0] : 0, m ? b[m - 1] : 0};
	if (mosaic_allgather(g, mine, sizeof mine, w->ends) < 0) {
		fails[F_CALL]++;
	} else if (m) {
		long p = rank - 1;
		while (p >= 0 && w->ends[p][0] == 0)
			p--;
		if (p >= 0 && w->ends[p][2] > mine[1])
			fails[F_BOUNDARY]++;
	}
	fails[NFAIL] = k;
	fails[NFAIL + 1] = sum_before;
	fails[NFAIL + 2] = m;
	fails[NFAIL + 3] = sum_after;
}


int mosaic_main(long arg)
{
	long k = arg <= 0 ? KDEFAULT : arg > KMAX ? KMAX : arg;
	long n = mosaic_job_size(), rank = mosaic_rank(), g = mosaic_job_group();
	if (job_misfit(g, n, rank, NMAX))
		return job_report(rank <= 0, "isort: %ld tasks, %ld keys", n, n * k);
	/* loose, as the collectives were before they had modes: the benchmarks' figures stay comparable,
	 * and nothing here relies on the others having finished a collective (docs/collectives.md) */
	g |= MOSAIC_LOOSE;
	int64_t fails[NFAIL + 4] = {0}; /* + keys and key sum, before and after */

	/* sort only if every rank has its memory */
	struct isort_mem *w = calloc(1, sizeof *w);
	int64_t no_mem = !w, any_no_mem = 1;
	if (mosaic_allreduce(g, &no_mem, &any_no_mem, 1, MOSAIC_OP_MAX) < 0) {
		fails[F_CALL]++;
		any_no_mem = 1;
	}
	fails[F_MEMORY] = no_mem;
	if (!any_no_mem)
		sort_and_check(w, g, n, rank, arg, k, fails);
	free(w);

	/* a failed final allreduce leaves job_why set: the key checks below read all[] only after a sum */
	int64_t all[NFAIL + 4];
	job_verdict(g, fails, all, NFAIL + 4, fail_text, F_COUNT);
	if (!job_why[0] && all[NFAIL] != all[NFAIL + 2])
		snprintf(job_why, sizeof job_why, "%s: %ld keys before, %ld after", fail_text[F_COUNT], (long)all[NFAIL],
			 (long)all[NFAIL + 2]);
	if (!job_why[0] && all[NFAIL + 1] != all[NFAIL + 3])
		snprintf(job_why, sizeof job_why, "%s: %ld before, %ld after", fail_text[F_SUM], (long)all[NFAIL + 1],
			 (long)all[NFAIL + 3]);
	return job_report(rank == 0, "isort: %ld tasks, %ld keys", n, n * k);
}
