/*
 * breakeven: the costs of invade, retreat and infect and the break-even loop
 * size, measured the way the OctoPOS paper does (its Section 4.4 and 4.5), for
 * scripts/bench-invade. Times are guest time read before and after each call;
 * under QEMU's -icount (shift 0) one ns is one guest instruction, of every hart
 * that ran meanwhile (QEMU runs them one at a time). Prints one INVBENCH line of
 * JSON per measurement. The argument is the number of repetitions (default 5).
 */
#include <stdio.h>
#include "mosaic.h"

static long reps = 5;

static int nothing(long x) { return (int)x; }

static int spin(long iters)
{
	volatile long acc = 0;
	for (long i = 0; i < iters; i++)
		acc += i;
	return (int)(acc & 1);
}

static void series(const char *what, const char *scope, long x, const long *ns, long n, const char *extra)
{
	printf("INVBENCH {\"op\":\"%s\",\"scope\":\"%s\",\"n\":%ld,\"ns\":[", what, scope, x);
	for (long i = 0; i < n; i++)
		printf("%s%ld", i ? "," : "", ns[i]);
	printf("]%s}\n", extra);
}

/* invade and retreat of dc cores, within the domain or (with the domain's spare cores held) across. */
static int invade_retreat(long dc, int anywhere)
{
	long inv[32], ret[32];
	uint16_t got[128];
	for (long r = 0; r < reps; r++) {
		long t0 = mosaic_time_ns();
		long n = mosaic_invade(dc, anywhere ? MOSAIC_INVADE_ANYWHERE : MOSAIC_INVADE_DOMAIN, got, 128);
		long t1 = mosaic_time_ns();
		if (n != dc) {
			printf("breakeven: invade %ld (%s) got %ld\n", dc, anywhere ? "across" : "domain", n);
			if (n > 0)
				mosaic_retreat(got, (size_t)n);
			return 1;
		}
		long t2 = mosaic_time_ns();
		mosaic_retreat(got, (size_t)n);
		long t3 = mosaic_time_ns();
		inv[r] = t1 - t0;
		ret[r] = t3 - t2;
	}
	series("invade", anywhere ? "across" : "domain", dc, inv, reps, "");
	series("retreat", anywhere ? "across" : "domain", dc, ret, reps, "");
	return 0;
}

/* Invades exactly n cores anywhere into got; on a shortfall says so, gives back what came, false. */
static int invade_exactly(long n, uint16_t *got, const char *what)
{
	long k = mosaic_invade(n, MOSAIC_INVADE_ANYWHERE, got, 128);
	if (k == n)
		return 1;
	printf("breakeven: %s %ld: could only invade %ld cores\n", what, n, k);
	if (k > 0)
		mosaic_retreat(got, (size_t)k);
	return 0;
}

/* infect of k cores: the call, the time until each member starts, and the whole phase. */
static int infect(long k)
{
	uint16_t got[128];
	if (!invade_exactly(k, got, "infect"))
		return 1;
	long call[32], first[32], last[32], phase[32];
	struct mosaic_member team[128];
	struct mosaic_member_result res[128];
	for (long i = 0; i < k; i++)
		team[i] = (struct mosaic_member){nothing, i};
	for (long r = 0; r < reps; r++) {
		long t0 = mosaic_time_ns();
		long e = mosaic_infect(team, (size_t)k);
		long t1 = mosaic_time_ns();
		long f = e ? e : mosaic_team_wait(res, 128);
		long t2 = mosaic_time_ns();
		if (f) {
			printf("breakeven: infect %ld failed: %ld\n", k, f);
			return 1;
		}
		long lo = -1, hi = 0;
		for (long i = 0; i < k; i++) {
			long s = (long)res[i].t_start_ns - t0;
			if (lo < 0 || s < lo)
				lo = s;
			if (s > hi)
				hi = s;
		}
		call[r] = t1 - t0;
		first[r] = lo;
		last[r] = hi;
		phase[r] = t2 - t0;
	}
	series("infect", "anywhere", k, call, reps, "");
	series("start_first", "anywhere", k, first, reps, "");
	series("start_last", "anywhere", k, last, reps, "");
	series("team_phase", "anywhere", k, phase, reps, "");
	mosaic_retreat(got, (size_t)k);
	return 0;
}

/* The whole overhead of running a loop on p cores, and where parallel starts to pay. */
static int breakeven(long p)
{
	long over[32];
	uint16_t got[128];
	struct mosaic_member team[128];
	struct mosaic_member_result res[128];
	for (long r = 0; r < reps; r++) {
		long t0 = mosaic_time_ns();
		if (!invade_exactly(p, got, "overhead, p ="))
			return 1;
		for (long i = 0; i < p; i++)
			team[i] = (struct mosaic_member){spin, 0};
		if (mosaic_infect(team, (size_t)p) || mosaic_team_wait(res, 128))
			return 1;
		mosaic_retreat(got, (size_t)p);
		over[r] = mosaic_time_ns() - t0;
	}
	/* empirical: the smallest loop (doubling) that runs faster on p cores than here */
	long found = -1, seq_at = 0, par_at = 0;
	for (long iters = 64; iters <= (1L << 22) && found < 0; iters *= 2) {
		long t0 = mosaic_time_ns();
		spin(iters);
		long t1 = mosaic_time_ns();
		if (!invade_exactly(p, got, "break-even search, p ="))
			return 1;
		for (long i = 0; i < p; i++)
			team[i] = (struct mosaic_member){spin, iters / p};
		if (mosaic_infect(team, (size_t)p) || mosaic_team_wait(res, 128))
			return 1;
		mosaic_retreat(got, (size_t)p);
		long t2 = mosaic_time_ns();
		if (t2 - t1 < t1 - t0) {
			found = iters;
			seq_at = t1 - t0;
			par_at = t2 - t1;
		}
	}
	char extra[160];
	snprintf(extra, sizeof extra, ",\"empirical_iters\":%ld,\"empirical_seq_ns\":%ld,\"empirical_par_ns\":%ld", found,
		 seq_at, par_at);
	series("overhead", "anywhere", p, over, reps, extra);
	return 0;
}

MOSAIC_ABOUT("the costs of invade, retreat and infect and the break-even loop size (bench-invade)", "repetitions (0: 5)");

int mosaic_main(long arg)
{
	if (arg > 0 && arg <= 32)
		reps = arg;
	int bad = 0;
	for (long dc = 1; dc <= 8; dc++)
		bad |= invade_retreat(dc, 0);
	/* across: hold every spare core of this domain, so that the invade must leave it */
	uint16_t local[128];
	long held = mosaic_invade(127, MOSAIC_INVADE_DOMAIN, local, 128);
	for (long dc = 1; dc <= 8; dc++)
		bad |= invade_retreat(dc, 1);
	if (held > 0)
		mosaic_retreat(local, (size_t)held);
	for (long k = 1; k <= 32; k++)
		bad |= infect(k);
	for (long p = 2; p <= 8; p *= 2)
		bad |= breakeven(p);
	printf("breakeven: %s\n", bad ? "some measurements failed" : "done");
	return bad;
}
