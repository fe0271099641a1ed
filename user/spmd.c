/*
 * spmd: a bulk-synchronous program for share groups (kernel/task/share/share.h): T iterations of
 * compute, each ended by the group's barrier, as an SPMD code's time steps are. Each rank
 * runs its own chain of a 64-bit LCG seeded by (arg, rank), W thousand steps per iteration
 * (rank 0 twice as many with the imbalance bit), and keeps a table of 256 words derived
 * from its rank in its own data: a switch that lost a register, or mapped another task's
 * pages, or a move to another core that did either, shows as a wrong exit code.
 *
 * arg: bits 0..15 W (0: 50), bits 16..29 T (0: 20), bit 30 the imbalance, bit 31 a probe
 * instead (exits 0 if a message call is refused with -ENOTSUP, as on a shared core, else 1).
 * Exit code: bits 40..45 of the final LCG state (0..63; tests compute it themselves), 64 if
 * the table changed, 65 if a barrier failed, 66 if the rank or size could not be read.
 */
#include <stdint.h>
#include "balance.h"

#define WORDS 256

static uint64_t table[WORDS];

MOSAIC_ABOUT("a bulk-synchronous program for share groups: T iterations of compute and a barrier", "W | T << 16 | imbalance << 30 | probe << 31 (user/spmd.c)");

int mosaic_main(long arg)
{
	if (arg & (1L << 31)) {
		int64_t v = 7;
		return mosaic_send((int)mosaic_core_id(), 1, &v, sizeof v) == MOSAIC_ENOTSUP ? 0 : 1;
	}
	long rank = share_rank(), size = share_size();
	if (rank < 0 || size < 1 || rank >= size)
		return 66;
	uint64_t w = (uint64_t)(arg & 0xffff), t = (uint64_t)((arg >> 16) & 0x3fff);
	w = (w ? w : 50) * 1000;
	t = t ? t : 20;
	if ((arg & (1L << 30)) && rank == 0)
		w *= 2;
	uint64_t x = (uint64_t)arg * 0x9e3779b97f4a7c15ULL + (uint64_t)rank;
	for (int i = 0; i < WORDS; i++)
		table[i] = (uint64_t)rank * 0xbf58476d1ce4e5b9ULL + (uint64_t)i;
	for (uint64_t it = 0; it < t; it++) {
		for (uint64_t k = 0; k < w; k++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		if (share_barrier() != 0)
			return 65;
	}
	for (int i = 0; i < WORDS; i++)
		if (table[i] != (uint64_t)rank * 0xbf58476d1ce4e5b9ULL + (uint64_t)i)
			return 64;
	return (int)((x >> 40) & 63);
}
