/*
 * ploop: a parallel loop whose claim grows and shrinks from phase to phase
 * (OctoPOS's invade / infect / retreat cycle). Each phase sums f(i) over the same
 * range on as many cores as the phase wants, the members taking equal chunks,
 * and the owner checks the sum against its own sequential one. The argument is
 * the loop's length (default 40000).
 */
#include <stdio.h>
#include "mosaic.h"

#define MODULUS 1000003L

static long f(long i, long phase) { return (i * i + phase) % MODULUS; }

/* arg: phase << 48 | start << 24 | count */
static int chunk(long arg)
{
	long phase = arg >> 48, start = (arg >> 24) & 0xffffff, count = arg & 0xffffff, sum = 0;
	for (long i = start; i < start + count; i++)
		sum = (sum + f(i, phase)) % MODULUS;
	return (int)sum;
}

MOSAIC_ABOUT("a parallel loop whose claim grows and shrinks from phase to phase (invade/infect/retreat)", "the loop's length (0: 40000)");

int mosaic_main(long arg)
{
	static const int widths[] = {1, 3, 6, 2, 5, 1};
	long len = arg > 0 && arg < (1L << 24) ? arg : 40000;
	uint16_t cores[128];
	long have = 0;
	for (unsigned phase = 0; phase < sizeof widths / sizeof widths[0]; phase++) {
		long want = widths[phase];
		if (want > have) {
			long got = mosaic_invade(want - have, MOSAIC_INVADE_ANYWHERE, cores + have, 128 - (size_t)have);
			if (got < 0) {
				printf("ploop: invade failed: %ld\n", got);
				return 1;
			}
			have += got;
		} else if (want < have) {
			long r = mosaic_retreat(cores + want, (size_t)(have - want));
			if (r != have - want) {
				printf("ploop: retreat failed: %ld\n", r);
				return 1;
			}
			have = want;
		}
		if (!have) {
			printf("ploop: phase %u: no core could be invaded\n", phase);
			return 1;
		}
		struct mosaic_member team[128];
		struct mosaic_member_result res[128];
		long t0 = mosaic_time_ns();
		for (long m = 0; m < have; m++) {
			long start = len * m / have, end = len * (m + 1) / have;
			team[m] = (struct mosaic_member){chunk, (long)phase << 48 | start << 24 | (end - start)};
		}
		long e = mosaic_infect(team, (size_t)have);
		long failed = e ? e : mosaic_team_wait(res, 128);
		long t1 = mosaic_time_ns();
		if (failed) {
			printf("ploop: phase %u: infect/team_wait failed: %ld\n", phase, failed);
			return 1;
		}
		long sum = 0;
		for (long m = 0; m < have; m++)
			sum = (sum + res[m].value) % MODULUS;
		long expect = chunk((long)phase << 48 | len);
		printf("ploop: phase %u on %ld cores (asked %ld): sum %ld %s, %ld us\n", phase, have, want, sum,
		       sum == expect ? "ok" : "WRONG", (t1 - t0) / 1000);
		if (sum != expect)
			return 1;
	}
	printf("ploop: ok\n");
	return 0;
}
