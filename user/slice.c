/*
 * slice: a CPU-bound task for time-sliced pico-kernels (kernel/share.h). It runs
 * arg * 1000 steps of a 64-bit LCG seeded by arg while it keeps a table of 256
 * words derived from arg in its own data, and checks the table at the end: a
 * preemption that lost a register or mapped another task's pages here would show
 * as a wrong exit code or a table that changed. The exit code is bits 40..45 of the
 * final LCG state (0..63; tests compute it themselves), 64 if the table changed.
 *
 * arg with bit 31 set: a probe instead; exits 0 if a message call (mosaic_send to
 * its own core) is refused with -ENOTSUP, as on a shared core, else 1.
 */
#include <stdint.h>
#include "mosaic.h"

#define WORDS 256

static uint64_t table[WORDS];

int mosaic_main(long arg)
{
	if (arg & (1L << 31)) {
		int64_t v = 7;
		return mosaic_send((int)mosaic_core_id(), 1, &v, sizeof v) == MOSAIC_ENOTSUP ? 0 : 1;
	}
	uint64_t x = (uint64_t)arg;
	for (int i = 0; i < WORDS; i++)
		table[i] = (uint64_t)arg * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
	for (uint64_t k = 0; k < (uint64_t)arg * 1000; k++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	for (int i = 0; i < WORDS; i++)
		if (table[i] != (uint64_t)arg * 0x9e3779b97f4a7c15ULL + (uint64_t)i)
			return 64;
	return (int)((x >> 40) & 63);
}
