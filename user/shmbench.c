/*
 * shmbench: the same exchange through messages and through a shared window (make bench-shm,
 * docs/microkernel.md). Run as a job of 2 tasks (`submit shmbench 2 arg REPS`). For each size S
 * (16 B .. 64 KiB, x4), REPS times:
 *   message  rank 0 sends S bytes to rank 1, which sends them back (mosaic_send / mosaic_recv,
 *            in pieces of the largest message body when S is larger);
 *   window   rank 0 writes S bytes into the job's window, both pass the job's barrier, rank 1
 *            copies them out and writes S bytes back into its half, both pass the barrier,
 *            rank 0 copies them out (64-bit loads and stores).
 * Each is timed on rank 0's clock (mosaic_time_ns: its own virtual clock under vtime=1), from
 * the start of its part to the end of its copy-out, so a round trip: what it takes to give S
 * bytes to the other core and get S bytes back. The barrier carries the time the bytes were
 * written (a message under it), so the reader cannot look before the writer wrote on any clock.
 * Output: one line per size, "SHMBENCH {json}", then "shmbench: done".
 */
#include <stdio.h>
#include <string.h>
#include "mosaic.h"
#include "job.h"

#define MAX_BYTES (64 * 1024)
#define PIECE 4096 /* message pieces: at most the kernel's user buffer per message, and the window's page */
#define REPS_MAX 32

static uint64_t mine_w[MAX_BYTES / 8], theirs_w[MAX_BYTES / 8];
#define mine ((uint8_t *)mine_w)
#define theirs ((uint8_t *)theirs_w)

/* A copy of whole 64-bit words (sizes here are multiples of 8): loads and stores, which is all
 * a window costs; picolibc's memcpy goes byte by byte here and would measure itself instead. */
static void copy_words(volatile uint64_t *dst, const volatile uint64_t *src, long bytes)
{
	for (long i = 0; i < bytes / 8; i++)
		dst[i] = src[i];
}

/* One direction: rank `sender` sends `out`, the other rank receives into `in`, in pieces. */
static long one_way(long rank, long sender, long other, int tag, const uint8_t *out, uint8_t *in, long bytes)
{
	for (long off = 0; off < bytes; off += PIECE) {
		long n = bytes - off < PIECE ? bytes - off : PIECE;
		long e = rank == sender ? mosaic_send((int)other, tag, out + off, (size_t)n)
					: mosaic_recv((int)other, tag, in + off, (size_t)n, 0);
		if (e < 0)
			return e;
	}
	return 0;
}

/* S bytes to the other rank and S bytes back, by messages; 0 or an error. */
static long by_messages(long rank, long other, long bytes)
{
	long e = one_way(rank, 0, other, 1, mine, theirs, bytes);
	return e ? e : one_way(rank, 1, other, 2, theirs, theirs, bytes);
}

/* The same through the window: rank 0's half first, rank 1's second. */
static long by_window(long rank, long g, volatile uint64_t *w, long bytes)
{
	if (rank == 0)
		copy_words(w, mine_w, bytes);
	if (mosaic_barrier(g) < 0)
		return -1;
	if (rank == 1) {
		copy_words(theirs_w, w, bytes);
		copy_words(w + MAX_BYTES / 8, theirs_w, bytes);
	}
	if (mosaic_barrier(g) < 0)
		return -1;
	if (rank == 0)
		copy_words(theirs_w, w + MAX_BYTES / 8, bytes);
	return 0;
}

MOSAIC_ABOUT("the same exchange through messages and through a shared window (bench-shm), 2 tasks", "repetitions per size");

int mosaic_main(long arg)
{
	long reps = arg > 0 && arg <= REPS_MAX ? arg : 5;
	long rank = mosaic_rank(), g = mosaic_job_group();
	if (g < 0 || mosaic_job_size() != 2) {
		printf("shmbench: run it as a job of 2 tasks (submit shmbench 2 arg REPS)\n");
		return 1;
	}
	int64_t core = mosaic_core_id(), cores[2];
	if (mosaic_allgather(g, &core, sizeof core, cores) < 0)
		return 1;
	long other = cores[1 - rank];
	volatile uint64_t *w = (volatile uint64_t *)mosaic_shm_open("exchange", 2 * MAX_BYTES);
	if ((long)w <= 0) {
		printf("shmbench: no window (%ld)\n", (long)w);
		return 1;
	}
	for (long i = 0; i < MAX_BYTES; i++)
		mine[i] = (uint8_t)(i * 7 + rank);
	int bad = 0;
	for (long bytes = 16; bytes <= MAX_BYTES && !bad; bytes *= 4) {
		long msg[REPS_MAX], win[REPS_MAX];
		for (long r = 0; r < reps && !bad; r++) {
			mosaic_barrier(g);
			long t0 = mosaic_time_ns();
			bad |= by_messages(rank, other, bytes) != 0;
			msg[r] = mosaic_time_ns() - t0;
			bad |= rank == 0 && memcmp(theirs, mine, (size_t)bytes) != 0;
			memset(theirs, 0, (size_t)bytes);
			mosaic_barrier(g);
			t0 = mosaic_time_ns();
			bad |= by_window(rank, g, w, bytes) != 0;
			win[r] = mosaic_time_ns() - t0;
			bad |= rank == 0 && memcmp(theirs, mine, (size_t)bytes) != 0;
			memset(theirs, 0, (size_t)bytes);
		}
		if (rank == 0 && !bad)
			printf("SHMBENCH {\"bytes\": %ld, \"reps\": %ld, \"message_ns\": %ld, \"window_ns\": %ld}\n", bytes,
			       reps, job_median(msg, reps), job_median(win, reps));
	}
	if (rank == 0)
		printf("shmbench: %s\n", bad ? "FAILED (a call failed or the bytes came back wrong)" : "done");
	return bad;
}
