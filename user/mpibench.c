/*
 * mpibench: the MPI layer's cost on top of Mosaic's own calls (scripts/bench-mpi, docs/mpi.md).
 * Each operation is timed through MPI and through the Mosaic call that does the same, on the
 * cores' clocks, in the same job:
 * - point to point (ranks 0 and 1): a ping-pong of S bytes, MPI_Send/MPI_Recv against
 *   mosaic_send/mosaic_recv (above 64 KiB in 64 KiB messages, as the library splits them);
 *   the figure is half a round trip on rank 0's clock;
 * - collectives on all n ranks: MPI_Barrier / mosaic_barrier, MPI_Bcast / mosaic_bcast,
 *   MPI_Allreduce of doubles and of longs (MPI_SUM) / mosaic_allreduce of int64s, MPI_Alltoall /
 *   mosaic_alltoall, all loose and tuned (the MPI library's mode); the figure of one repetition is
 *   the longest of the ranks' own times after a barrier.
 * The median of R repetitions is printed as one line per point:
 *   MPIBENCH {"op": ..., "n": ..., "bytes": ..., "mpi_ns": ..., "mosaic_ns": ...}
 * arg: repetitions R (0: 5, at most 50) | 1 << 8 to skip point to point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"
#include "mosaic.h"
#include "job.h"

MOSAIC_ABOUT("times MPI beside Mosaic calls (bench-mpi)", "repetitions R (0: 5, at most 50) | 256 to skip point to point");

#define RMAX 50
#define CHUNK 65536
static int rank, size;
static long g; /* the job's group, loose */
static unsigned char *sbuf, *rbuf;

static long now(void) { return mosaic_time_ns(); }

/* the longest of every rank's d (an int64 max through the kernel, outside the timed part) */
static long longest(long d)
{
	int64_t in = d, out = d;
	if (size > 1)
		mosaic_allreduce(g, &in, &out, 1, MOSAIC_OP_MAX);
	return out;
}

static void mosaic_pp_send(int core, const void *b, size_t len)
{
	for (size_t off = 0;; off += CHUNK) {
		size_t m = len - off < CHUNK ? len - off : CHUNK;
		mosaic_send(core, 7, (const char *)b + off, m);
		if (m < CHUNK)
			return;
	}
}

static void mosaic_pp_recv(int core, void *b, size_t len)
{
	struct mosaic_status st;
	for (size_t off = 0;; off += CHUNK) {
		size_t m = len - off < CHUNK ? len - off : CHUNK;
		mosaic_recv(core, 7, (char *)b + off, m, &st);
		if (m < CHUNK)
			return;
	}
}

static void pingpong(int reps, int64_t *cores)
{
	static const long sizes[] = {8, 64, 512, 4096, 32768, 65536, 196608};
	long tm[RMAX], tp[RMAX];
	for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		long n = sizes[s];
		for (int way = 0; way < 2; way++)
			for (int k = 0; k <= reps; k++) { /* the first round warms up */
				MPI_Barrier(MPI_COMM_WORLD);
				long t0 = now();
				if (rank == 0) {
					if (way == 0) {
						MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
						MPI_Recv(rbuf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					} else {
						mosaic_pp_send((int)cores[1], sbuf, n);
						mosaic_pp_recv((int)cores[1], rbuf, n);
					}
				} else if (rank == 1) {
					if (way == 0) {
						MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
						MPI_Send(sbuf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
					} else {
						mosaic_pp_recv((int)cores[0], rbuf, n);
						mosaic_pp_send((int)cores[0], sbuf, n);
					}
				}
				long d = (now() - t0) / 2;
				if (k)
					(way ? tp : tm)[k - 1] = d;
			}
		if (rank == 0)
			printf("MPIBENCH {\"op\": \"p2p\", \"n\": 2, \"bytes\": %ld, \"mpi_ns\": %ld, \"mosaic_ns\": %ld}\n", n,
			       job_median(tm, reps), job_median(tp, reps));
	}
}

enum { OP_BARRIER, OP_BCAST, OP_ALLREDUCE_D, OP_ALLREDUCE_L, OP_ALLTOALL, NOPS };
static const char *const op_name[NOPS] = {"barrier", "bcast", "allreduce_double", "allreduce_long", "alltoall"};

static void run_op(int op, long bytes, int way)
{
	long cnt = bytes / 8;
	switch (op) {
	case OP_BARRIER:
		if (way == 0)
			MPI_Barrier(MPI_COMM_WORLD);
		else
			mosaic_barrier(g);
		break;
	case OP_BCAST:
		if (way == 0)
			MPI_Bcast(sbuf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
		else
			mosaic_bcast(g, 0, sbuf, bytes);
		break;
	case OP_ALLREDUCE_D:
	case OP_ALLREDUCE_L:
		if (way == 0)
			MPI_Allreduce(sbuf, rbuf, (int)cnt, op == OP_ALLREDUCE_D ? MPI_DOUBLE : MPI_LONG, MPI_SUM,
				      MPI_COMM_WORLD);
		else
			mosaic_allreduce(g, (const int64_t *)sbuf, (int64_t *)rbuf, cnt, MOSAIC_OP_SUM);
		break;
	default:
		if (way == 0)
			MPI_Alltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
		else
			mosaic_alltoall(g, sbuf, bytes, rbuf);
		break;
	}
}

static void collective(int op, long bytes, int reps)
{
	long t[2][RMAX];
	for (int way = 0; way < 2; way++)
		for (int k = 0; k <= reps; k++) {
			mosaic_barrier(g);
			long t0 = now();
			run_op(op, bytes, way);
			long d = longest(now() - t0);
			if (k)
				t[way][k - 1] = d;
		}
	if (rank == 0)
		printf("MPIBENCH {\"op\": \"%s\", \"n\": %d, \"bytes\": %ld, \"mpi_ns\": %ld, \"mosaic_ns\": %ld}\n",
		       op_name[op], size, bytes, job_median(t[0], reps), job_median(t[1], reps));
}

int mosaic_main(long arg)
{
	int reps = (int)(arg & 0xff);
	reps = reps <= 0 ? 5 : reps > RMAX ? RMAX : reps;
	MPI_Init(0, 0);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	g = size > 1 ? mosaic_job_group() | MOSAIC_LOOSE : -1;
	if (size < 2) {
		printf("mpibench: a job of at least 2 tasks\n");
		MPI_Finalize();
		return 1;
	}
	/* the largest buffer: 192 KiB point to point; n blocks of 512 B (alltoall at 124 ranks); two of
	 * them fit a task's 512 KiB heap */
	size_t cap = 196608;
	sbuf = malloc(cap);
	rbuf = malloc(cap);
	if (!sbuf || !rbuf) {
		printf("mpibench: no memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (size_t i = 0; i < cap; i++)
		sbuf[i] = (unsigned char)i;
	int64_t me = mosaic_core_id(), *cores = malloc(size * sizeof(int64_t));
	mosaic_allgather(g, &me, sizeof me, cores);
	if (!(arg & 256))
		pingpong(reps, cores);
	static const long cbytes[] = {8, 512, 4096};
	for (int op = 0; op < NOPS; op++)
		for (unsigned b = 0; b < sizeof cbytes / sizeof *cbytes; b++) {
			if (op == OP_BARRIER && b)
				break;
			if (op == OP_ALLTOALL && cbytes[b] * size > (long)cap)
				break;
			collective(op, cbytes[b], reps);
		}
	if (rank == 0)
		printf("mpibench: %d tasks, %d repetitions, done\n", size, reps);
	MPI_Finalize();
	return 0;
}
