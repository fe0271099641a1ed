/*
 * fuzz: a kernel-call fuzzer. Driven by a seed, it makes random calls with hostile
 * arguments (fuzz_table.h describes each call, fuzz_gen.h makes the values) and
 * checks every answer: a call the judge (fuzz_judge.h) finds certainly bad must get
 * an error, and a few answers must stay as they were (core_id, the heap's break, the
 * claim's size), and every call must give back f0..f31 and fcsr as they were (fuzz_fpu.h). Run
 * as a job of several tasks, each with its own stream (seed and
 * rank). The first wrong answer is printed with the seed, the call's number in the
 * run and its arguments, and the task exits with 1; else it prints a summary and 0.
 *
 * Argument: seed (bits 0..31) | calls per task (bits 32..55, 0: 2000) | 1 << 56 to print
 * every call before it is made (to find the call a hang or a panic came from) | 1 << 57
 * to go on after a wrong answer (the first three per call are printed; exit code 1 at the end) |
 * 1 << 58 when the job is oversubscribed (submit ... cores C): the task is time-sliced and may
 * move, so the calls outside its list are certainly refused, domain_id may change, and its
 * core_id is its virtual endpoint (128 and up), as are its peers' (docs/balancing.md).
 * Calls that could wait for ever are only made with arguments that fail at once, or
 * in their try form; exit is the last call.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "mosaic.h"
#include "fuzz_judge.h"
#include "fuzz_fpu.h"

#define DEFAULT_CALLS 2000
#define VERBOSE (1ULL << 56)
#define KEEP_GOING (1ULL << 57)
#define OVERSUB (1ULL << 58)

extern char _start[]; /* user/crt0.S: the first byte of the program, at the bottom of its window */

static struct fuzz_state s;
static uint64_t counts[NCALLS], wrong[NCALLS], nwrong, made, errors, refused, unsure_calls, skipped, bookkeeping;
static int keep_going;

/* Every call goes through here: six arguments (reduce's op is the sixth). */
static long call6(uint64_t nr, const uint64_t *a)
{
	register uint64_t r0 __asm__("a0") = a[0];
	register uint64_t r1 __asm__("a1") = a[1];
	register uint64_t r2 __asm__("a2") = a[2];
	register uint64_t r3 __asm__("a3") = a[3];
	register uint64_t r4 __asm__("a4") = a[4];
	register uint64_t r5 __asm__("a5") = a[5];
	register uint64_t r7 __asm__("a7") = nr;
	__asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r7) : "memory");
	return (long)r0;
}

/* True if the kernel would write a status at va (page-aligned) for us: probe checks its status
 * buffer, and writes it only if a message matches (none is ever sent with this tag). Only
 * used before the run, to find the task's edges. */
static int writable(uint64_t va)
{
	bookkeeping++;
	return mosaic_probe((int)s.me, 0x7ffffff0, 0, (struct mosaic_status *)va) != MOSAIC_EFAULT;
}

static void __attribute__((noreturn)) give_up(const char *what)
{
	printf("fuzz: seed %lu task %ld: %s\n", s.seed, s.rank, what);
	fflush(stdout);
	mosaic_exit(2);
	__builtin_unreachable();
}

/* What the task needs to know before it starts: who it is, how many cores there are
 * (the first core a probe calls nonexistent), and where its memory ends. */
static void setup(long arg)
{
	struct mosaic_status st;
	s.seed = (uint64_t)arg & 0xffffffffu;
	s.ncalls = ((uint64_t)arg >> 32) & 0xffffff;
	if (!s.ncalls)
		s.ncalls = DEFAULT_CALLS;
	s.me = mosaic_core_id();
	s.rank = mosaic_rank();
	s.size = mosaic_job_size();
	s.job_group = -1;
	s.oversub = ((uint64_t)arg & OVERSUB) != 0;
	/* the first core id that probe calls nonexistent; searched only up to one past the most the
	 * fuzzer knows of, since the ids above the cores name the virtual endpoints of oversubscribed
	 * jobs' tasks, some of them valid */
	long lo = 1, hi = MAXCORES + 1;
	while (lo < hi) {
		long mid = (lo + hi) / 2;
		bookkeeping++;
		if (mosaic_probe((int)mid, 0, 0, &st) == -6 /* ENXIO: no such core */)
			hi = mid;
		else
			lo = mid + 1;
	}
	s.ncores = lo;
	if (s.ncores > MAXCORES)
		give_up("more cores than the fuzzer knows of");
	for (long nr = KC_CORE_ID; nr <= KC_JOB_SIZE; nr++)
		if (nr <= KC_RANK || nr == KC_JOB_SIZE)
			s.stable[nr] = (uint64_t)call6((uint64_t)nr, (const uint64_t[6]){0});
	s.last_time = (uint64_t)mosaic_time_ns();
	s.user_base = (uint64_t)_start & ~4095ULL;
	uint64_t sp = (uint64_t)__builtin_frame_address(0) & ~4095ULL;
	for (s.user_top = sp; writable(s.user_top) && s.user_top - sp < (64 << 10);)
		s.user_top += 4096;
	for (s.stack_lo = sp; writable(s.stack_lo - 4096) && sp - s.stack_lo < (64 << 10);)
		s.stack_lo -= 4096;
	if (s.user_top - sp >= (64 << 10) || sp - s.stack_lo >= (64 << 10))
		give_up("the stack's edges were not found (probe took a status buffer it should not)");
	long brk = mosaic_heap_grow(0);
	bookkeeping++;
	if (brk < 0 || !writable((uint64_t)brk - 4096) || writable((uint64_t)brk) || (uint64_t)brk >= s.stack_lo)
		give_up("the heap's break is not the end of the mapped memory");
	s.brk = (uint64_t)brk;
}

/* Makes the call: which one, then every argument by its kind (counts first: the
 * pointers' lengths and the group's size come from them). */
static void gen_call(struct draws *d, struct call *c)
{
	memset(c, 0, sizeof *c);
	uint64_t r = draw_below(d, NCALLS + 3);
	const struct call_desc *cd = c->d = &calls[r < NCALLS ? r : NCALLS - 1];
	c->nr = cd->flags & C_UNKNOWN ? gen_unknown_nr(d) : (uint64_t)cd->nr;
	uint64_t gn = 1;
	for (int i = 0; i < 6; i++) {
		uint64_t *v = &c->a[i];
		switch (cd->a[i].kind) {
		case K_ANY:
			*v = gen_any(d, &s);
			break;
		case K_COUNT: {
			uint64_t elem = 1;
			for (int j = 0; j < 6; j++)
				if (cd->a[j].ref == i && cd->a[j].elem)
					elem = cd->a[j].elem * (cd->a[j].flags & F_BY_N ? gn : 1);
			*v = gen_count(d, cd, elem);
			break;
		}
		case K_DST:
		case K_SRC:
			*v = gen_core(d, &s, cd->a[i].kind == K_SRC);
			break;
		case K_TAG:
		case K_RTAG:
			*v = gen_tag(d, cd->a[i].kind == K_RTAG);
			break;
		case K_REQ:
			*v = gen_handle(d, s.req_open, NREQ);
			break;
		case K_GROUP: {
			uint8_t held[NGROUP];
			for (int g = 0; g < NGROUP; g++)
				held[g] = s.group[g] != G_NONE;
			*v = gen_handle(d, held, NGROUP);
			if (*v < NGROUP && draw_chance(d, 40))
				*v |= gen_how(d) << 8;
			gn = (*v & 0xff) < NGROUP && s.group[*v & 0xff] != G_NONE ? s.group_n[*v & 0xff] : 1;
			break;
		}
		case K_ROOT:
			*v = draw_chance(d, 70) ? 0 : PICK(d, 1, 2, 3, UINT64_MAX, 1ULL << 32, 1ULL << 63, 128);
			break;
		case K_OP:
			*v = draw_chance(d, 70) ? 1 + draw_below(d, 3) : PICK(d, 0, 4, UINT64_MAX, 255, (1ULL << 32) | 1);
			break;
		case K_BLOCK:
			*v = draw_chance(d, 70) ? 0 : PICK(d, 1, 2, UINT64_MAX);
			break;
		case K_US:
			*v = draw_chance(d, 65) ? draw_below(d, 51)
						: PICK(d, SLEEP_MAX_US + 1, 1ULL << 32, 1ULL << 40, UINT64_MAX, 1ULL << 63);
			break;
		case K_HEAP:
			*v = draw_chance(d, 60) ? draw_below(d, 12289)
						: PICK(d, HEAP_LIMIT + 1, 1 << 20, 1ULL << 32, UINT64_MAX, -4096ULL, 1ULL << 63,
						       UINT64_MAX - 4094);
			break;
		case K_PROPS:
			*v = draw_chance(d, 85) ? MOSAIC_INVADE_DOMAIN
			     : draw_chance(d, 20) ? MOSAIC_INVADE_ANYWHERE
						  : PICK(d, 2, 3, UINT64_MAX, 255, 1ULL << 32);
			break;
		case K_NINVADE:
			*v = draw_chance(d, 70) ? 1 + draw_below(d, 2)
						: PICK(d, 0, 1ULL << 32, (1ULL << 32) + 1, UINT64_MAX, 200, 129, 1ULL << 63);
			break;
		case K_NTASKS:
			*v = draw_chance(d, 70) ? 1 + draw_below(d, 4)
						: PICK(d, 0, 65, 1000, 1ULL << 32, UINT64_MAX, 36, 64, 128, 40);
			break;
		case K_JCORES:
			*v = draw_chance(d, 60) ? draw_below(d, c->a[2] < 8 ? c->a[2] + 1 : 9)
						: PICK(d, 0, 1, c->a[2] + 1, UINT64_MAX, 1ULL << 32, 33, 9, 4);
			break;
		case K_JMODE:
			*v = draw_chance(d, 70) ? draw_below(d, 3) | draw_below(d, 3) << 8
						: PICK(d, 3, 3 << 8, 1 << 16, UINT64_MAX, 0x303, 1ULL << 32);
			break;
		case K_JFLAGS:
			*v = draw_chance(d, 70) ? draw_below(d, 2) : PICK(d, 2, 3, UINT64_MAX, 1ULL << 32, 1ULL << 63);
			break;
		case K_SHMSIZE: /* a few sizes, so that a second open of a name often matches the first */
			*v = draw_chance(d, 75) ? PICK(d, 1, 4096, 8192, 5000)
						: PICK(d, 0, 256 * 1024 + 1, 1ULL << 32, UINT64_MAX, 256 * 1024);
			break;
		}
	}
	for (int i = 0; i < 6; i++) {
		const struct arg_desc *a = &cd->a[i];
		uint64_t n = c->a[a->ref], len;
		if (__builtin_mul_overflow(n, (uint64_t)a->elem * (a->flags & F_BY_N ? gn : 1), &len))
			len = UINT64_MAX;
		if ((a->flags & F_OWN) && cd->nr == KC_INVADE) /* up to the cores asked for, at most the machine */
			len = 2 * (c->a[0] < (uint64_t)s.ncores ? c->a[0] : (uint64_t)s.ncores);
		if ((a->flags & F_OWN) && cd->nr == KC_CLAIM) /* the claim, at most the capacity */
			len = 2 * (c->a[1] < s.claim_n ? c->a[1] : s.claim_n);
		struct ptr *p = &c->p[i];
		switch (a->kind) {
		case K_BUF:
		case K_STATUS:
			*p = gen_ptr(d, &s, a->kind == K_STATUS ? a->elem : len, arena, ARENA_BYTES);
			break;
		case K_CORES:
			*p = gen_ptr(d, &s, len, cores_raw, sizeof cores_raw);
			if (p->cls == P_GOOD || p->cls == P_MISALIGNED)
				gen_cores(d, &s, (uint8_t *)p->va, p->room, n, cd->nr == KC_RETREAT);
			break;
		case K_TEAM:
			*p = gen_ptr(d, &s, len, team_raw, sizeof team_raw);
			if (p->cls == P_GOOD || p->cls == P_MISALIGNED)
				gen_team(d, (uint8_t *)p->va, p->room, n);
			break;
		case K_NAME:
			*p = gen_ptr(d, &s, 3, name_raw, sizeof name_raw);
			if (p->cls == P_GOOD || p->cls == P_MISALIGNED)
				gen_name(d, (char *)p->va, p->room);
			break;
		case K_PNAME:
			*p = gen_ptr(d, &s, n, pname_raw, sizeof pname_raw);
			if (p->cls == P_GOOD || p->cls == P_MISALIGNED)
				gen_pname(d, (char *)p->va, p->room);
			break;
		case K_ARGS:
			*p = gen_ptr(d, &s, sizeof(struct mosaic_args), args_raw, sizeof args_raw);
			if (p->cls == P_GOOD || p->cls == P_MISALIGNED)
				gen_args(d, &s, c, (uint8_t *)p->va, p->room);
			break;
		case K_VEC:
			*p = gen_ptr(d, &s, sizeof(struct mosaic_alltoallv), vec_raw, sizeof vec_raw);
			if (p->cls == P_GOOD || p->cls == P_MISALIGNED)
				gen_vec(d, &s, c, (uint8_t *)p->va, p->room, (unsigned)gn);
			break;
		default:
			continue;
		}
		c->a[i] = p->va;
	}
	if (cd->nr == KC_INFECT && !(cd->flags & C_UNKNOWN))
		c->a[2] = team_mode(&c->p[0], c->a[1]);
}

static const struct call_desc *desc_of(long nr)
{
	for (unsigned i = 0; i < NCALLS; i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return 0;
}

/* Keeps a call that may succeed from waiting for ever (a send waits for a credit even to its
 * own core, whose mailbox the task may have filled): its try form, or a group of this core
 * alone; and from printing or killing. Returns 0 if it cannot be made safe (then it is skipped). */
static int make_safe(struct call *c)
{
	judge(c, &s);
	if (c->verdict == V_BAD)
		return 1; /* a bad call fails before it could wait */
	const struct call_desc *d = c->d;
	if ((d->flags & C_BLOCKS) && d->try_nr != d->nr) {
		c->d = desc_of(d->try_nr);
		c->nr = (uint64_t)c->d->nr;
	}
	if (d->nr == KC_PROBE)
		c->a[2] = 0;
	if (d->flags & C_BAD_ONLY)
		return 0; /* write would print (even 0 bytes), kill could end a task of the job */
	if ((d->flags & C_COLL) && s.group[c->a[0] & 0xff] != G_SELF) { /* a[0] & 0xff < NGROUP: not bad */
		uint8_t *self = memchr(s.group, G_SELF, NGROUP);
		if (!self)
			return 0;
		c->a[0] = (c->a[0] & ~0xffUL) | (uint64_t)(self - s.group); /* the same how */
	}
	if (d->nr == KC_INVADE && s.claim_n >= 2)
		return 0; /* enough claimed: keep cores for the other tasks */
	judge(c, &s);
	return 1;
}

static void print_call(const char *prefix, uint64_t n, const struct call *c)
{
	printf("fuzz: seed %lu task %ld %scall %lu (%s, nr %ld) args %lx %lx %lx %lx %lx %lx", s.seed, s.rank, prefix, n,
	       c->d->name, (long)c->nr, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
}

/* A wrong answer: the first one ends the task, unless it is to keep going. */
static void violation(uint64_t n, const struct call *c, long ret, const char *want)
{
	nwrong++;
	if (keep_going && ++wrong[c->d - calls] > 3)
		return;
	print_call("", n, c);
	printf(" returned %ld, expected %s\n", ret, want);
	printf("fuzz: reproduce with: scripts/mosaic-fuzz --seed %lu --tasks %ld --calls %lu\n", s.seed,
	       s.size ? s.size : 1, s.ncalls);
	if (keep_going)
		return;
	fflush(stdout);
	mosaic_exit(1);
}

/* The claim as the kernel has it now (after invade, retreat, infect, team_wait). */
static void refresh_claim(void)
{
	long n = mosaic_claim(s.claim, MAXCORES);
	bookkeeping++;
	s.claim_n = n > 0 ? (uint32_t)n : 0;
}

/* Checks the answer and follows what the call changed: handles, groups, heap, claim. */
static void after(uint64_t n, const struct call *c, long ret)
{
	char want[128];
	if (c->verdict == V_BAD) {
		if (ret < 0)
			return; /* refused: nothing changed */
		snprintf(want, sizeof want, "an error (%s)", c->why);
		violation(n, c, ret, want); /* if it keeps going: follow what the call did */
	}
	uint64_t a0 = c->a[0];
	int moves = s.oversub && c->nr == KC_DOMAIN_ID; /* a moved task is elsewhere (its core_id is its endpoint) */
	if ((c->d->flags & C_STABLE) && !moves && (uint64_t)ret != s.stable[c->nr]) {
		snprintf(want, sizeof want, "%ld, its answer at the start", (long)s.stable[c->nr]);
		violation(n, c, ret, want);
	}
	switch (c->d->nr) {
	case KC_TIME_NS:
		if ((uint64_t)ret < s.last_time)
			violation(n, c, ret, "no earlier time than the last answer");
		s.last_time = (uint64_t)ret;
		break;
	case KC_HEAP_GROW:
		if (ret >= 0 && (uint64_t)ret != s.brk) {
			snprintf(want, sizeof want, "the old break %lx", s.brk);
			violation(n, c, ret, want);
		}
		if (ret >= 0)
			s.brk += (a0 + 4095) & ~4095ULL;
		break;
	case KC_ISEND:
	case KC_IRECV:
		if (ret >= 0 && (ret >= NREQ || s.req_open[ret]))
			violation(n, c, ret, "a handle not open yet, 0..15");
		if (ret >= 0)
			s.req_open[ret] = 1;
		break;
	case KC_TEST:
	case KC_WAIT:
		if (ret == MOSAIC_EFAULT && c->verdict == V_UNSURE)
			break; /* the status buffer was refused: nothing happened */
		if (ret != 0 || c->d->nr == KC_WAIT)
			s.req_open[a0] = 0; /* done: the handle closed */
		break;
	case KC_GROUP_INIT:
	case KC_JOB_GROUP:
		if (ret >= 0 && c->d->nr == KC_JOB_GROUP && s.job_group >= 0) {
			if (ret != s.job_group)
				violation(n, c, ret, "the handle job_group gave before");
			break;
		}
		if (ret >= 0 && (ret >= NGROUP || s.group[ret] != G_NONE))
			violation(n, c, ret, "a group handle not taken yet, 0..3");
		if (ret >= 0 && c->d->nr == KC_GROUP_INIT)
			s.group[ret] = (uint8_t)c->new_group, s.group_n[ret] = (uint16_t)c->a[1],
			s.group_rank[ret] = (uint16_t)c->new_rank;
		if (ret >= 0 && c->d->nr == KC_JOB_GROUP)
			s.group[ret] = s.size == 1 ? G_SELF : G_MULTI, s.group_n[ret] = (uint16_t)s.size,
			s.group_rank[ret] = (uint16_t)s.rank, s.job_group = (int)ret;
		break;
	case KC_CLAIM:
		if ((ret >= 0 || c->verdict == V_OK) && ret != (long)s.claim_n) {
			snprintf(want, sizeof want, "%u, the claim's size", s.claim_n);
			violation(n, c, ret, want);
		}
		break;
	case KC_INFECT:
		refresh_claim();
		if (ret == 0)
			s.team = 1, s.members = s.claim_n;
		break;
	case KC_TEAM_WAIT: /* the team ended unless the call was refused before it waited */
		if (ret != MOSAIC_ENOMEM && ret != MOSAIC_EFAULT && ret != MOSAIC_EINVAL)
			s.team = 0;
		break;
	case KC_INVADE:
	case KC_RETREAT:
		refresh_claim();
		break;
	}
}

/* name=count for every call made, a few to a line. */
static void print_counts(void)
{
	char line[200] = "";
	int len = 0;
	for (unsigned i = 0; i < NCALLS; i++) {
		if (len > 140) {
			printf("fuzz: seed %lu task %ld calls:%s\n", s.seed, s.rank, line);
			len = 0;
		}
		len += snprintf(line + len, sizeof line - (size_t)len, " %s=%lu", calls[i].name, counts[i]);
	}
	printf("fuzz: seed %lu task %ld calls:%s\n", s.seed, s.rank, line);
}

/* Every declared kernel call but exit (which would end the campaign) has its entry in
 * fuzz_table.h: a call added to portable/abi/kcalls.h without one fails every campaign. */
static int uncovered_calls(void)
{
	static const struct {
		long nr;
		const char *name;
	} declared[] = {
#define KCALL(NAME, name, nr, side, share, args, does, checks) {nr, #name},
#include "../portable/abi/kcalls.h"
#undef KCALL
	};
	int missing = 0;
	for (size_t i = 0; i < sizeof declared / sizeof declared[0]; i++) {
		size_t j = 0;
		while (j < NCALLS && calls[j].nr != declared[i].nr)
			j++;
		if (j == NCALLS && declared[i].nr != KC_EXIT) {
			printf("fuzz: kernel call %s (%ld) has no entry in user/fuzz_table.h\n", declared[i].name,
			       declared[i].nr);
			missing++;
		}
	}
	return missing;
}

MOSAIC_ABOUT("a kernel-call fuzzer: random calls with hostile arguments, every answer checked", "seed | calls << 32 | flags (user/fuzz.c)");

int mosaic_main(long arg)
{
	static struct draws d;
	static struct call c;
	setup(arg);
	if (uncovered_calls())
		return 1;
	keep_going = ((uint64_t)arg & KEEP_GOING) != 0;
	/* names the seed of a core the kernel may panic on before the task can say more */
	printf("fuzz: seed %lu task %ld of %ld on core %ld: starting, %lu calls\n", s.seed, s.rank, s.size, s.me, s.ncalls);
	uint64_t rng = s.seed * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)s.rank + 1) * 0xd1b54a32d192ed03ULL, rng0 = rng;
	for (uint64_t n = 0; n < s.ncalls; n++) {
		draws_fill(&d, &rng);
		gen_call(&d, &c);
		if (!make_safe(&c)) {
			skipped++;
			continue;
		}
		if ((uint64_t)arg & VERBOSE) {
			print_call("", n, &c);
			printf(" %s\n", c.verdict == V_BAD ? "bad" : c.verdict == V_UNSURE ? "unsure" : "good");
		}
		uint64_t fp_in[FUZZ_NFP], fp_out[FUZZ_NFP];
		fuzz_fp_pattern(rng0, n, fp_in);
		long ret = fuzz_fp_ecall(c.nr, c.a, fp_in, fp_out);
		made++;
		counts[c.d - calls]++;
		errors += ret < 0;
		refused += c.verdict == V_BAD;
		unsure_calls += c.verdict == V_UNSURE;
		after(n, &c, ret);
		int f = fuzz_fp_changed(fp_in, fp_out);
		if (f >= 0) {
			char want[128];
			snprintf(want, sizeof want, "the FP registers kept (%s%d is %lx, was %lx)", f < 32 ? "f" : "fcsr",
				 f < 32 ? f : 0, fp_out[f], fp_in[f]);
			violation(n, &c, ret, want);
		}
	}
	printf("fuzz: seed %lu task %ld of %ld on core %ld: %lu calls, %lu errors, %lu certainly bad, %lu wrong answers, "
	       "%lu unsure, %lu skipped, %lu bookkeeping\n",
	       s.seed, s.rank, s.size, s.me, made, errors, refused, nwrong, unsure_calls, skipped, bookkeeping);
	print_counts();
	return nwrong ? 1 : 0;
}
