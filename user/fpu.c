/*
 * fpu: floating point in user mode and how the kernel keeps it (tests/test_fpu.py). Every mode
 * first checks that the task started with f0..f31 and fcsr all zero, whatever ran on its core
 * before it (mosaic_main below looks before any compiled code runs).
 * The argument is MODE + 1000 * N.
 *   1  alone: sums 1/k^2 for k = 1..N (0: 100000) in doubles and prints sqrt(6 * sum) with
 *      printf; then fills f0..f31 and fcsr with its own pattern and checks they come back intact
 *      across kernel calls (core_id, time_ns, write), sleeps and spins long enough for interrupts
 *   2  a rank of a share group (`share fpu R 2 ...`): N rounds (0: 24), each filling f0..f31 and
 *      fcsr with a pattern of its rank and round, spinning (the slice preempts it) and making a
 *      call (the group's barrier, core_id, a sleep or time_ns), then checking them
 *   3  fills every FP register and fcsr with garbage and spins until it is killed
 *   4  invades N cores of its domain (0: 3) and starts a team member on each (an i-let in its own
 *      address space), which checks it started zeroed, keeps its own pattern across a sleep and
 *      leaves garbage; the owner keeps its pattern across team_wait
 *   5  the same with fresh instances of the program as the members (infect's isolated mode)
 * Modes 1, 2, 4 and 5 (owner and members) leave garbage in every FP register and fcsr when they end, for the next task.
 * Exit 0: every check held; 1 the FP state was not zero at the start; 2 a register or fcsr
 * changed across a call or a preemption; 3 the doubles came out wrong; 4 a bad argument or call;
 * 5 a team member failed (it printed why).
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "balance.h"

#define NFP 33 /* f0..f31, then fcsr */

/* f0..f31 and fcsr as the task found them, stored by mosaic_main before anything else ran. */
uint64_t fp_at_start[NFP];

/*
 * fp_trip(in, out, nr, a0, a1, spin): loads f0..f31 from in[0..31] and fcsr from in[32], spins
 * `spin` rounds, makes kernel call nr(a0, a1) if nr >= 0 (its result is fp_trip's), spins again
 * and stores f0..f31 and fcsr into out. Assembly: no compiled code may run between the load and
 * the store. A barrier the kernel makes again (its pc back on the ecall) finds a0, a1, a7 as they were.
 */
long fp_trip(const uint64_t *in, uint64_t *out, long nr, long a0, long a1, long spin);
/* fp_fill(in): f0..f31 and fcsr from in, left so (garbage for whoever comes next). */
void fp_fill(const uint64_t *in);
int fpu_main(long arg);
/* A team member's entry: stores f0..f31 and fcsr on its stack before any compiled code runs, then
 * member_main(arg, those 33 words). */
int fp_member(long arg);
int member_main(long arg, const uint64_t *at_start);
__asm__(".text\n"
	".globl fp_member\n"
	"fp_member:\n"
	"	addi sp, sp, -288\n"
	"	sd ra, 264(sp)\n"
	"	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fsd f\\r, \\r*8(sp)\n"
	"	.endr\n"
	"	frcsr t0\n"
	"	sd t0, 256(sp)\n"
	"	mv a1, sp\n"
	"	call member_main\n"
	"	ld ra, 264(sp)\n"
	"	addi sp, sp, 288\n"
	"	ret\n"
	".globl mosaic_main\n"
	"mosaic_main:\n"
	"	la t0, fp_at_start\n"
	"	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fsd f\\r, \\r*8(t0)\n"
	"	.endr\n"
	"	frcsr t1\n"
	"	sd t1, 256(t0)\n"
	"	tail fpu_main\n"
	".globl fp_trip\n"
	"fp_trip:\n"
	"	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fld f\\r, \\r*8(a0)\n"
	"	.endr\n"
	"	ld t0, 256(a0)\n"
	"	fscsr t0\n"
	"	mv t2, a1\n"
	"	mv t1, a5\n"
	"1:	beqz t1, 2f\n"
	"	addi t1, t1, -1\n"
	"	j 1b\n"
	"2:	bltz a2, 3f\n"
	"	mv a7, a2\n"
	"	mv a0, a3\n"
	"	mv a1, a4\n"
	"	ecall\n"
	"3:	mv t1, a5\n"
	"4:	beqz t1, 5f\n"
	"	addi t1, t1, -1\n"
	"	j 4b\n"
	"5:	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fsd f\\r, \\r*8(t2)\n"
	"	.endr\n"
	"	frcsr t0\n"
	"	sd t0, 256(t2)\n"
	"	ret\n"
	".globl fp_fill\n"
	"fp_fill:\n"
	"	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fld f\\r, \\r*8(a0)\n"
	"	.endr\n"
	"	ld t0, 256(a0)\n"
	"	fscsr t0\n"
	"	ret\n");

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A pattern of its own for every seed: 32 64-bit words and an fcsr (a rounding mode 0..4, flags). */
static void pattern(uint64_t seed, uint64_t p[NFP])
{
	for (int i = 0; i < 32; i++)
		p[i] = mix(seed * 64 + (uint64_t)i);
	p[32] = (seed % 5) << 5 | (mix(seed) & 0x1f);
}

static int report(const char *what, const uint64_t *want, const uint64_t *got)
{
	for (int i = 0; i < NFP; i++)
		if (want[i] != got[i]) {
			if (i < 32)
				printf("fpu: %s: f%d is %016llx, expected %016llx\n", what, i, (unsigned long long)got[i],
				       (unsigned long long)want[i]);
			else
				printf("fpu: %s: fcsr is %llx, expected %llx\n", what, (unsigned long long)got[i],
				       (unsigned long long)want[i]);
			return 1;
		}
	return 0;
}

static const uint64_t zero[NFP];

static int started_clean(const char *who) { return report(who, zero, fp_at_start) ? 1 : 0; }

/* One round trip of pattern seed across call nr(a0, a1) with spin rounds either side. */
static int trip(const char *what, uint64_t seed, long nr, long a0, long a1, long spin, long *result)
{
	uint64_t in[NFP], out[NFP];
	pattern(seed, in);
	long r = fp_trip(in, out, nr, a0, a1, spin);
	if (result)
		*result = r;
	return report(what, in, out);
}

static void leave_garbage(uint64_t seed)
{
	uint64_t g[NFP];
	pattern(seed ^ 0x5a5a5a5a5a5aULL, g);
	fp_fill(g);
}

static int alone(long n)
{
	if (started_clean("alone: at the start"))
		return 1;
	long k_max = n > 0 ? n : 100000;
	double sum = 0;
	for (long k = 1; k <= k_max; k++) {
		double d = (double)k;
		sum += 1.0 / (d * d);
	}
	double pi = __builtin_sqrt(6.0 * sum);
	printf("fpu: sqrt(6 * sum 1/k^2, k <= %ld) = %.15f\n", k_max, pi);
	if (!(pi > 3.14 && pi < 3.1416))
		return 3;
	static const char line[] = "fpu: a write with the FP registers full\n";
	const struct {
		const char *what;
		long nr, a0, a1, spin, result;
	} calls[] = {
		{"core_id", KC_CORE_ID, 0, 0, 0, -1},
		{"time_ns", KC_TIME_NS, 0, 0, 0, -1},
		{"write", KC_WRITE, (long)line, sizeof line - 1, 0, sizeof line - 1},
		{"sleep 2 ms", KC_SLEEP_US, 2000, 0, 0, 0},
		{"a spin of 2M rounds around core_id", KC_CORE_ID, 0, 0, 1000000, -1},
		{"a spin of 3M rounds", -1, 0, 0, 1500000, -1},
	};
	for (unsigned i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		long r;
		if (trip(calls[i].what, 100 + i, calls[i].nr, calls[i].a0, calls[i].a1, calls[i].spin, &r))
			return 2;
		if (calls[i].result >= 0 && r != calls[i].result) {
			printf("fpu: %s returned %ld, expected %ld\n", calls[i].what, r, calls[i].result);
			return 4;
		}
	}
	printf("fpu: alone: ok\n");
	leave_garbage(7);
	return 0;
}

static int rank_loop(long n)
{
	long rank = share_rank(), size = share_size();
	if (started_clean("share: at the start"))
		return 1;
	if (rank < 0 || size < 1)
		return 4;
	long rounds = n > 0 ? n : 24;
	for (long r = 0; r < rounds; r++) {
		static const long calls[4] = {KC_SHARE_BARRIER, KC_CORE_ID, KC_SLEEP_US, KC_TIME_NS};
		long nr = calls[r % 4], res;
		char what[64];
		snprintf(what, sizeof what, "rank %ld round %ld", rank, r);
		if (trip(what, (uint64_t)rank << 32 | (uint64_t)r, nr, nr == KC_SLEEP_US ? 300 : 0, 0, 150000, &res))
			return 2;
		if (nr == KC_SHARE_BARRIER && res != 0)
			return 4;
	}
	leave_garbage((uint64_t)rank);
	return 0;
}

int member_main(long arg, const uint64_t *at_start)
{
	char what[48];
	snprintf(what, sizeof what, "member %ld: at the start", arg);
	if (report(what, zero, at_start))
		return 1;
	snprintf(what, sizeof what, "member %ld: a sleep", arg);
	if (trip(what, 1000 + (uint64_t)arg, KC_SLEEP_US, 500, 0, 20000, 0))
		return 2;
	leave_garbage(1000 + (uint64_t)arg);
	return 0;
}

static int team(long n, int isolated)
{
	if (started_clean("team: at the start"))
		return 1;
	long want = n > 0 && n <= 16 ? n : 3;
	uint16_t got[16];
	long k = mosaic_invade(want, MOSAIC_INVADE_DOMAIN, got, 16);
	if (k < 1) {
		printf("fpu: invade returned %ld\n", k);
		return 4;
	}
	struct mosaic_member members[16];
	for (long i = 0; i < k; i++)
		members[i] = (struct mosaic_member){fp_member, i};
	long e = isolated ? mosaic_infect_isolated(members, (size_t)k) : mosaic_infect(members, (size_t)k);
	if (e) {
		printf("fpu: infect returned %ld\n", e);
		return 4;
	}
	static struct mosaic_member_result res[16];
	long w;
	if (trip("team_wait", 77, KC_TEAM_WAIT, (long)res, 16, 0, &w))
		return 2;
	if (w) {
		printf("fpu: team_wait returned %ld\n", w);
		return 4;
	}
	int bad = 0;
	for (long i = 0; i < k; i++)
		if (res[i].status || res[i].value) {
			printf("fpu: member %ld on core %u: status %d, value %d\n", i, res[i].core, res[i].status, res[i].value);
			bad = 1;
		}
	if (bad)
		return 5;
	char on[16 * 6] = "";
	for (long i = 0; i < k; i++)
		snprintf(on + strlen(on), sizeof on - strlen(on), " %u", res[i].core);
	printf("fpu: team of %ld (%s) on cores%s: ok\n", k, isolated ? "isolated" : "i-lets", on);
	mosaic_retreat(got, (size_t)k);
	leave_garbage(5);
	return 0;
}

MOSAIC_ABOUT("floating point in user mode: doubles, FP registers kept across calls, preemption and switches", "MODE + 1000 * N: 1 alone, 2 a share rank, 3 garbage then spin, 4/5 a team (user/fpu.c)");

int fpu_main(long arg)
{
	long mode = arg % 1000, n = arg / 1000;
	switch (mode) {
	case 1:
		return alone(n);
	case 2:
		return rank_loop(n);
	case 4:
	case 5:
		return team(n, mode == 5);
	case 3:
		if (started_clean("spin: at the start"))
			return 1;
		leave_garbage(3);
		for (;;)
			__asm__ volatile("" ::: "memory");
	default:
		printf("fpu: unknown mode %ld\n", mode);
		return 4;
	}
}
