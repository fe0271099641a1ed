/*
 * invtest: the user side of the in-kernel suite "invasive" (tests/ktest/test_invasive.c).
 * The argument picks a case; the exit code is 0 when every check of the case held,
 * else the line of the first failed check (printed with the values seen).
 *   1 partial     an invade beyond the spare cores of the domain returns what there was
 *   2 retreat     retreating cores outside the claim (or twice) is an error, nothing lost
 *   3 infect      infecting an empty claim, a team of the wrong size, a bad function: errors;
 *                 invade, retreat and infect while a team runs: busy
 *   4 anywhere    invade anywhere (run by several owners at once), infect, check, retreat
 *   5 fault       a member that faults is reported to the owner; the others ran
 *   6 leave       the owner ends with a team running and cores claimed: the kernel
 *                 waits for the team and gives every core back
 *   7 hold        keeps a claim of 3 cores with a team running for N ms (arg = 7 + 100 x N,
 *                 default 3000), so that the shell's `claims` can be checked against it
 *   8 shared      i-lets see the owner's memory as written before infect, and the owner
 *                 sees theirs after team_wait; each has its own errno and console line, and
 *                 no heap; isolated members (fresh instances) see none of the owner's writes;
 *                 an unknown infect mode is an error
 */
#include <stdio.h>
#include <errno.h>
#include "mosaic.h"

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			printf("invtest: core %ld: check failed at line %d: %s\n", mosaic_core_id(), \
			       __LINE__, #cond);                                                 \
			return __LINE__;                                                         \
		}                                                                                \
	} while (0)

static int square(long x) { return (int)(x * x); }

static int where(long x) { return (int)(mosaic_core_id() * 1000 + x); }

static int crash(long x)
{
	volatile int *kernel = (volatile int *)(0x80200000UL + (unsigned long)x); /* the kernel image */
	return *kernel;
}

static int slow(long us)
{
	mosaic_sleep_us(us);
	return 7;
}

/* Infects the whole claim with fn(i) and checks every member's result against want(i). */
static int run_team(int (*fn)(long), int (*want)(long, uint16_t))
{
	uint16_t cores[128];
	long n = mosaic_claim(cores, 128);
	struct mosaic_member team[128];
	struct mosaic_member_result res[128];
	for (long i = 0; i < n; i++)
		team[i] = (struct mosaic_member){fn, i};
	long r = mosaic_infect(team, (size_t)n);
	CHECK(r == 0);
	r = mosaic_team_wait(res, 128);
	CHECK(r == 0);
	for (long i = 0; i < n; i++) {
		CHECK(res[i].status == 0 && res[i].core == cores[i]);
		CHECK(res[i].value == want(i, cores[i]));
		CHECK(res[i].t_start_ns <= res[i].t_end_ns);
	}
	return 0;
}

static int want_square(long i, uint16_t core) { (void)core; return (int)(i * i); }

/* Case 8's memory: the owner fills `input` before infect; member i reads its entry and
 * writes `output[i]`. Written by the owner at run time, so a fresh instance sees zeros. */
#define SHARED_MAX 128
static long input[SHARED_MAX];
static long output[SHARED_MAX];

static int sharer(long i)
{
	output[i] = input[i] * 3 + 1;
	errno = 1000 + (int)i; /* thread-local: no other member's, nor the owner's */
	printf("invtest shared: member %ld on core %ld read %ld\n", i, mosaic_core_id(), input[i]);
	if (mosaic_heap_grow(4096) != MOSAIC_EPERM)
		return -1; /* an i-let has no heap of its own */
	return errno == 1000 + (int)i ? (int)input[i] : -2;
}

/* An isolated member: what its own instance holds where the owner wrote. */
static int reader(long i) { return (int)(input[i] + output[i]); }

static int shared(void)
{
	uint16_t got[4];
	long n = mosaic_invade(4, MOSAIC_INVADE_DOMAIN, got, 4);
	CHECK(n >= 2);
	struct mosaic_member team[4];
	struct mosaic_member_result res[4];
	for (long i = 0; i < n; i++) {
		input[i] = 100 + i;
		output[i] = 0;
		team[i] = (struct mosaic_member){sharer, i};
	}
	errno = 7;
	CHECK(mosaic_infect(team, (size_t)n) == 0);
	CHECK(mosaic_team_wait(res, 4) == 0);
	for (long i = 0; i < n; i++) {
		CHECK(res[i].status == 0 && res[i].value == 100 + i); /* it read the owner's write */
		CHECK(output[i] == (100 + i) * 3 + 1);               /* and the owner reads its write */
	}
	CHECK(errno == 7);
	/* a second phase reuses the members' stacks and sees the owner's new values */
	for (long i = 0; i < n; i++)
		input[i] = 200 + i;
	CHECK(mosaic_infect(team, (size_t)n) == 0);
	CHECK(mosaic_team_wait(res, 4) == 0);
	for (long i = 0; i < n; i++)
		CHECK(res[i].value == 200 + i && output[i] == (200 + i) * 3 + 1);
	/* fresh instances share nothing: they read the zeros of their own copy */
	for (long i = 0; i < n; i++)
		team[i] = (struct mosaic_member){reader, i};
	CHECK(mosaic_infect_isolated(team, (size_t)n) == 0);
	CHECK(mosaic_team_wait(res, 4) == 0);
	for (long i = 0; i < n; i++)
		CHECK(res[i].status == 0 && res[i].value == 0 && output[i] == (200 + i) * 3 + 1);
	CHECK(mosaic_call(KC_INFECT, (long)team, n, 2, 0, 0) == MOSAIC_EINVAL); /* no such mode */
	CHECK(mosaic_retreat(got, (size_t)n) == n);
	printf("invtest shared: %ld i-lets shared the owner's memory, isolated members did not\n", n);
	return 0;
}
static int want_where(long i, uint16_t core) { return (int)(core * 1000 + i); }

static int partial(void)
{
	uint16_t got[128];
	long n = mosaic_invade(100, MOSAIC_INVADE_DOMAIN, got, 128);
	printf("invtest partial: asked for 100 cores of domain %ld, got %ld\n", mosaic_domain_id(), n);
	CHECK(n > 0 && n < 100);
	CHECK(mosaic_claim(0, 0) == n);
	for (long i = 0; i < n; i++)
		CHECK(got[i] != mosaic_core_id());
	CHECK(mosaic_invade(1, MOSAIC_INVADE_DOMAIN, 0, 0) == 0); /* nothing spare is left */
	int e = run_team(square, want_square);
	if (e)
		return e;
	CHECK(mosaic_retreat(got, (size_t)n) == n);
	CHECK(mosaic_claim(0, 0) == 0);
	CHECK(mosaic_invade(n, MOSAIC_INVADE_DOMAIN, got, 128) == n); /* all of them came back */
	CHECK(mosaic_retreat(got, (size_t)n) == n);
	CHECK(mosaic_invade(0, MOSAIC_INVADE_DOMAIN, 0, 0) == MOSAIC_EINVAL);
	CHECK(mosaic_invade(1, 7, 0, 0) == MOSAIC_EINVAL);
	CHECK(mosaic_invade(4, MOSAIC_INVADE_DOMAIN, got, 2) == MOSAIC_EINVAL); /* no room for the answer */
	CHECK(mosaic_invade(1, MOSAIC_INVADE_DOMAIN, (uint16_t *)16, 1) == MOSAIC_EFAULT);
	return 0;
}

static int retreat(void)
{
	uint16_t got[2], me = (uint16_t)mosaic_core_id();
	CHECK(mosaic_retreat(&me, 1) == MOSAIC_EINVAL); /* no claim yet */
	CHECK(mosaic_invade(2, MOSAIC_INVADE_DOMAIN, got, 2) == 2);
	CHECK(mosaic_retreat(&me, 1) == MOSAIC_EINVAL); /* its own core is not in the claim */
	uint16_t twice[2] = {got[0], got[0]};
	CHECK(mosaic_retreat(twice, 2) == MOSAIC_EINVAL);
	uint16_t mixed[2] = {got[0], me};
	CHECK(mosaic_retreat(mixed, 2) == MOSAIC_EINVAL); /* all or nothing */
	uint16_t far = 200;
	CHECK(mosaic_retreat(&far, 1) == MOSAIC_EINVAL);
	CHECK(mosaic_retreat(got, 0) == MOSAIC_EINVAL);
	CHECK(mosaic_retreat((uint16_t *)16, 1) == MOSAIC_EFAULT);
	CHECK(mosaic_claim(0, 0) == 2); /* nothing was lost */
	CHECK(mosaic_retreat(&got[1], 1) == 1);
	CHECK(mosaic_retreat(&got[1], 1) == MOSAIC_EINVAL); /* not any more */
	CHECK(mosaic_retreat(&got[0], 1) == 1);
	return 0;
}

static int infect(void)
{
	struct mosaic_member team[3] = {{square, 1}, {square, 2}, {square, 3}};
	struct mosaic_member_result res[3];
	CHECK(mosaic_infect(team, 0) == MOSAIC_ENOENT); /* no claim at all */
	CHECK(mosaic_infect(team, 1) == MOSAIC_ENOENT);
	CHECK(mosaic_team_wait(res, 3) == MOSAIC_EINVAL); /* no team */
	uint16_t got[2];
	CHECK(mosaic_invade(2, MOSAIC_INVADE_DOMAIN, got, 2) == 2);
	CHECK(mosaic_infect(team, 3) == MOSAIC_EINVAL); /* one member per claimed core */
	CHECK(mosaic_infect(team, 1) == MOSAIC_EINVAL);
	struct mosaic_member bad[2] = {{square, 1}, {(int (*)(long))0x10, 2}};
	CHECK(mosaic_infect(bad, 2) == MOSAIC_EINVAL); /* not code of this program */
	CHECK(mosaic_infect((struct mosaic_member *)16, 2) == MOSAIC_EFAULT);
	struct mosaic_member sleepy[2] = {{slow, 20000}, {slow, 20000}};
	CHECK(mosaic_infect(sleepy, 2) == 0);
	CHECK(mosaic_infect(sleepy, 2) == MOSAIC_EBUSY);
	CHECK(mosaic_invade(1, MOSAIC_INVADE_DOMAIN, 0, 0) == MOSAIC_EBUSY);
	CHECK(mosaic_retreat(got, 2) == MOSAIC_EBUSY);
	CHECK(mosaic_team_wait(res, 1) == MOSAIC_EINVAL); /* too small for the team */
	CHECK(mosaic_team_wait(res, 3) == 0);
	CHECK(res[0].value == 7 && res[1].value == 7);
	CHECK(mosaic_retreat(got, 2) == 2);
	CHECK(mosaic_infect(team, 2) == MOSAIC_ENOENT); /* empty again */
	return 0;
}

static int anywhere(long want)
{
	uint16_t got[128];
	long n = mosaic_invade(want, MOSAIC_INVADE_ANYWHERE, got, 128);
	CHECK(n >= 0 && n <= want); /* owners that ask for more than there is together may get nothing */
	for (long i = 0; i < n; i++)
		CHECK(got[i] != mosaic_core_id());
	if (!n) {
		CHECK(mosaic_infect(0, 0) == MOSAIC_ENOENT);
	} else {
		int e = run_team(where, want_where);
		if (e)
			return e;
		CHECK(mosaic_retreat(got, (size_t)n) == n);
	}
	printf("invtest anywhere: core %ld asked for %ld cores, got %ld\n", mosaic_core_id(), want, n);
	return 0;
}

static int fault(void)
{
	uint16_t got[3];
	CHECK(mosaic_invade(3, MOSAIC_INVADE_DOMAIN, got, 3) == 3);
	struct mosaic_member team[3] = {{square, 4}, {crash, 0}, {square, 5}};
	struct mosaic_member_result res[3];
	CHECK(mosaic_infect(team, 3) == 0);
	CHECK(mosaic_team_wait(res, 3) == 1); /* one member failed */
	CHECK(res[0].status == 0 && res[0].value == 16);
	CHECK(res[1].status == MOSAIC_EFAULT && res[1].core == got[1]);
	CHECK(res[2].status == 0 && res[2].value == 25);
	printf("invtest fault: member 1 on core %u was killed, reported to its owner (core %ld)\n", res[1].core,
	       mosaic_core_id());
	/* the claim still holds all three cores, and works */
	CHECK(mosaic_claim(0, 0) == 3);
	int e = run_team(square, want_square);
	if (e)
		return e;
	CHECK(mosaic_retreat(got, 3) == 3);
	return 0;
}

static int leave(void)
{
	uint16_t got[8];
	long n = mosaic_invade(3, MOSAIC_INVADE_DOMAIN, got, 8);
	CHECK(n == 3);
	long m = mosaic_invade(2, MOSAIC_INVADE_ANYWHERE, got + n, 5);
	CHECK(m == 2);
	struct mosaic_member team[5];
	for (int i = 0; i < 5; i++)
		team[i] = (struct mosaic_member){slow, 5000};
	CHECK(mosaic_infect(team, 5) == 0);
	printf("invtest leave: ends with a team of 5 running\n");
	return 0; /* no team_wait, no retreat */
}

static int hold(long ms)
{
	uint16_t got[3];
	CHECK(mosaic_invade(3, MOSAIC_INVADE_DOMAIN, got, 3) == 3);
	struct mosaic_member team[3] = {{slow, ms * 1000}, {slow, ms * 1000}, {slow, ms * 1000}};
	struct mosaic_member_result res[3];
	CHECK(mosaic_infect(team, 3) == 0);
	printf("invtest hold: core %ld holds cores %u %u %u, a team of 3 runs for %ld ms\n", mosaic_core_id(), got[0],
	       got[1], got[2], ms);
	CHECK(mosaic_team_wait(res, 3) == 0);
	CHECK(res[0].value == 7 && res[1].value == 7 && res[2].value == 7);
	CHECK(mosaic_retreat(got, 3) == 3);
	printf("invtest hold: done\n");
	return 0;
}

MOSAIC_ABOUT("the user side of the ktest suite 'invasive' (invade, infect, retreat)", "the case: 1..7 (user/invtest.c)");

int mosaic_main(long arg)
{
	switch (arg % 100) {
	case 1: return partial();
	case 2: return retreat();
	case 3: return infect();
	case 4: return anywhere(arg / 100 ? arg / 100 : 4);
	case 5: return fault();
	case 6: return leave();
	case 7: return hold(arg / 100 ? arg / 100 : 3000);
	case 8: return shared();
	default:
		printf("invtest: no case %ld (1 partial, 2 retreat, 3 infect, 4 anywhere [+100 x cores], 5 fault, "
		       "6 leave, 7 hold [+100 x ms], 8 shared)\n", arg);
		return 1;
	}
}
