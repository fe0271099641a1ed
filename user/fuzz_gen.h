/*
 * fuzz: values per argument kind. Each generator mixes good values with boundary
 * and hostile ones (0, 1, the limit and one past it, 1<<63, (size_t)-1, counts that
 * wrap when multiplied by the element size, negative cores and tags, kernel and
 * unmapped addresses, buffers that start mapped and run into an unmapped page,
 * misaligned pointers). Whether a value is good is the judge's business.
 */
#ifndef MOSAIC_FUZZ_GEN_H
#define MOSAIC_FUZZ_GEN_H

#include <stdint.h>
#include <string.h>
#include "fuzz_rng.h"
#include "fuzz_state.h"

/* The fuzzer's own memory that calls may read and write. */
static uint8_t arena[ARENA_BYTES] __attribute__((aligned(64)));
static uint8_t cores_raw[(MAXCORES + 8) * 2 + 8] __attribute__((aligned(8)));
static uint8_t team_raw[(MAXCORES + 8) * sizeof(struct mosaic_member) + 8] __attribute__((aligned(8)));
static uint8_t vec_raw[sizeof(struct mosaic_alltoallv) + 64] __attribute__((aligned(8)));
static uint32_t vec_arr[4][MAXCORES + 8];
static const uint8_t ro_blob[8192] = {1}; /* in .rodata: mapped without write permission */

/* What infect's members run: the only good function pointer. */
static int member(long arg) { return (int)(arg & 0x7f); }

#define PICK(d, ...) pick_of(d, (const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / 8)
static inline uint64_t pick_of(struct draws *d, const uint64_t *v, uint64_t n) { return v[draw_below(d, n)]; }

static inline uint64_t sext32(int32_t v) { return (uint64_t)(int64_t)v; }

/* A pointer for a buffer of len bytes (len may be absurd); good points into good[0, size). */
static struct ptr gen_ptr(struct draws *d, const struct fuzz_state *s, uint64_t len, uint8_t *good, uint64_t size)
{
	static const uint8_t weights[NPCLASS] = {45, 10, 5, 3, 5, 8, 3, 5, 3, 3, 2, 5, 2, 1};
	uint64_t r = draw_below(d, 100), k = 1 + draw_below(d, len > 1 && len - 1 < 4096 ? len - 1 : 4096);
	unsigned cls = 0;
	while (cls < NPCLASS - 1 && r >= weights[cls])
		r -= weights[cls++];
	struct ptr p = {.cls = (uint8_t)cls};
	uint64_t off = len < size ? draw_below(d, size - len + 1) & ~7ULL : 0;
	switch (cls) {
	case P_GOOD:
	case P_MISALIGNED:
		off |= cls == P_MISALIGNED ? 1 + draw_below(d, 7) : 0;
		p.va = (uint64_t)good + off, p.room = size - off;
		break;
	case P_RO:
		off = len < sizeof ro_blob ? draw_below(d, sizeof ro_blob - len + 1) : 0;
		p.va = (uint64_t)ro_blob + off, p.room = sizeof ro_blob - off;
		break;
	case P_CODE:
		p.va = (uint64_t)&member, p.room = 4;
		break;
	case P_NULL:
		break;
	case P_KERNEL:
		p.va = PICK(d, 0x80000000, 0x80200000, 0x80200000 + draw_below(d, 16 << 20), 0x8fff0000);
		break;
	case P_DEVICE:
		p.va = PICK(d, 0x100000, 0x2000000, 0xc000000, 0x10000000);
		break;
	case P_GAP:
		p.va = s->brk + draw_below(d, s->stack_lo - s->brk);
		break;
	case P_BELOW:
		p.va = s->user_base - PICK(d, 1, 8, 4096, 1 + draw_below(d, 1 << 20));
		break;
	case P_ABOVE: /* past the i-let stacks and shared windows too, which this task may have mapped */
		p.va = s->user_top + MOSAIC_ABOVE_STACK + PICK(d, 0, 8, draw_below(d, 1 << 20));
		break;
	case P_HIGH:
		p.va = PICK(d, 1ULL << 38, 1ULL << 39, 0xffffffc000000000ULL, 1ULL << 63, UINT64_MAX - 7);
		break;
	case P_PART_HEAP:
	case P_PART_TOP:
		if (len < 2) { /* nothing can run over with fewer than two bytes */
			p.cls = P_GAP, p.va = s->brk;
			break;
		}
		p.va = (cls == P_PART_HEAP ? s->brk : s->user_top) - k, p.room = k;
		break;
	case P_PART_STACK:
		p.va = s->stack_lo - k;
		break;
	}
	return p;
}

/* A count for the call (elem: bytes per element, scaled by the group's size where it applies). */
static uint64_t gen_count(struct draws *d, const struct call_desc *c, uint64_t elem)
{
	uint64_t max = c->max ? c->max : ARENA_BYTES / elem;
	switch (draw_below(d, 8)) {
	case 0:
	case 1:
	case 2:
		return draw_below(d, 9);
	case 3:
		return c->min + draw_below(d, max - c->min + 1);
	case 4:
		return PICK(d, 0, 1, c->min, max, max + 1, c->min ? c->min - 1 : 2);
	case 5:
		return PICK(d, 1ULL << 31, 0xffffffffULL, 1ULL << 32, (1ULL << 32) + 1, (1ULL << 32) + 8, 1ULL << 62,
			    1ULL << 63, (1ULL << 63) + 1, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 7, 0x7fffffff,
			    INT64_MAX, (1ULL << 63) / 2 + 1);
	case 6: /* wraps to a few elements when multiplied by elem */
		return elem > 1 ? UINT64_MAX / elem + 1 + draw_below(d, 4) : UINT64_MAX - draw_below(d, 16);
	default: /* about the size of the address space or of the fuzzer's buffer */
		return PICK(d, (2ULL << 20) / elem, (2ULL << 20) / elem + 1, ARENA_BYTES / elem + 1, 4097, BODY + 1);
	}
}

static uint64_t gen_core(struct draws *d, const struct fuzz_state *s, int src)
{
	unsigned r = (unsigned)draw_below(d, 100);
	if (src && r < 30)
		return sext32(MOSAIC_ANY);
	if (r < 55)
		return (uint64_t)s->me;
	if (r < 75)
		return draw_below(d, (uint64_t)s->ncores);
	if (r < 95)
		return PICK(d, (uint64_t)s->ncores, (uint64_t)s->ncores + 1, 128, 255, 4096, 65535,
			    65536 + (uint64_t)s->me, sext32(-2), sext32(-3), sext32(INT32_MIN), INT32_MAX,
			    src ? sext32(-4) : sext32(-1));
	return (1ULL << 32) | (uint64_t)s->me; /* upper bits the int argument drops */
}

static uint64_t gen_tag(struct draws *d, int recv)
{
	unsigned r = (unsigned)draw_below(d, 100);
	if (recv && r < 30)
		return sext32(MOSAIC_ANY);
	if (r < 65)
		return draw_below(d, 16);
	if (r < 75)
		return PICK(d, draw_below(d, INT32_MAX), INT32_MAX);
	if (r < 95)
		return PICK(d, sext32(-2), sext32(INT32_MIN), sext32(-1000), recv ? sext32(-3) : sext32(-1));
	return (1ULL << 32) | draw_below(d, 16);
}

/* A handle: one the task holds (held[i] non-zero) most of the time, else a hostile one. */
static uint64_t gen_handle(struct draws *d, const uint8_t *held, unsigned n)
{
	uint64_t start = draw_below(d, n), r = draw_below(d, 100);
	if (r < 55)
		for (unsigned i = 0; i < n; i++)
			if (held[(start + i) % n])
				return (start + i) % n;
	if (r < 75)
		return start;
	return PICK(d, n, n + 1, 255, UINT64_MAX, 1ULL << 32, (1ULL << 32) | start, 1ULL << 63);
}

/* A collective's how (user/mosaic.h): mostly a real mode and algorithm, sometimes a mode,
 * an algorithm or bits that do not exist. */
static uint64_t gen_how(struct draws *d)
{
	if (draw_chance(d, 75))
		return draw_below(d, 2) | draw_below(d, MOSAIC_ALGO_PAIRWISE + 1) << 4;
	return PICK(d, 2, 15, 0x70, 0xf1, 0x100, 0xfff);
}

/* Fills the array of a group_init or retreat with n core ids (at most MAXCORES + 8 of them). */
static void gen_cores(struct draws *d, const struct fuzz_state *s, uint8_t *at, uint64_t room, uint64_t n, int retreat)
{
	uint16_t v[MAXCORES + 8];
	uint64_t m = n < MAXCORES + 8 ? n : MAXCORES + 8, mode = draw_below(d, 4);
	uint64_t st = draw(d);
	uint16_t perm[MAXCORES];
	for (long i = 0; i < s->ncores; i++)
		perm[i] = (uint16_t)i;
	for (long i = s->ncores - 1; i > 0; i--) { /* a random order of every core */
		uint64_t j = splitmix64(&st) % (uint64_t)(i + 1);
		uint16_t t = perm[i];
		perm[i] = perm[j], perm[j] = t;
	}
	for (uint64_t i = 0; i < m; i++)
		v[i] = i < (uint64_t)s->ncores ? perm[i] : (uint16_t)splitmix64(&st);
	if (retreat) { /* mostly the claim's own cores */
		for (uint64_t i = 0; i < m && i < s->claim_n && mode; i++)
			v[i] = s->claim[(i + st) % s->claim_n];
	} else if (mode == 0 && m) { /* this core first: a group of itself, or of it and others */
		for (uint64_t i = 0; i < m; i++)
			if (v[i] == s->me)
				v[i] = v[0];
		v[0] = (uint16_t)s->me;
	}
	if (m && draw_chance(d, 15)) /* one bad entry: out of range, or a repeat */
		v[draw_below(d, m)] = (uint16_t)PICK(d, (uint64_t)s->ncores, 0xffff, 128, v[0]);
	memcpy(at, v, m * 2 < room ? m * 2 : room);
}

/* infect's mode for a generated team: i-lets (0) only if every member runs member(). Code that
 * is not a function's start (the kernel cannot tell) may do anything, and an i-let does it in
 * this task's own memory, so such a team, or one whose entries run past what was written, runs
 * isolated: the task then stays intact, and what the fuzzer checks stays the kernel's doing. */
static uint64_t team_mode(const struct ptr *p, uint64_t n)
{
	if (p->cls != P_GOOD && p->cls != P_MISALIGNED)
		return 0; /* refused before any member runs */
	if (n > p->room / sizeof(struct mosaic_member))
		return MOSAIC_INFECT_ISOLATED;
	for (uint64_t k = 0; k < n; k++) {
		struct mosaic_member m;
		memcpy(&m, (const uint8_t *)p->va + k * sizeof m, sizeof m);
		if (m.fn != member)
			return MOSAIC_INFECT_ISOLATED;
	}
	return 0;
}

/* shm_open's name: one of four short names, now and then an empty one. */
static uint8_t name_raw[16] __attribute__((aligned(8)));
static void gen_name(struct draws *d, char *at, uint64_t room)
{
	if (room < 3)
		return; /* nothing fits: the judge cannot know what the kernel will read there */
	if (draw_chance(d, 10)) {
		at[0] = 0;
		return;
	}
	at[0] = 'w';
	at[1] = (char)('0' + draw_below(d, 4));
	at[2] = 0;
}

/* job_spawn's name: a program ("hello", "ring"), one that cannot be ("zz..."), or one with a NUL
 * inside, padded with letters to 16 bytes so that the length decides what the kernel reads. */
static uint8_t pname_raw[32] __attribute__((aligned(8)));
static uint8_t args_raw[sizeof(struct mosaic_args) + 32] __attribute__((aligned(8)));
static char args_text[MOSAIC_ARG_BYTES + 64];

/* job_spawnv's block at `at` (room bytes there): a few strings (some not NAME=VALUE, some empty)
 * in args_text, their length and counts right or off (one past the limits, counts that wrap, a
 * length short of the last NUL), the text's pointer drawn like any other (c->vec[0]). */
static void gen_args(struct draws *d, const struct fuzz_state *s, struct call *c, uint8_t *at, uint64_t room)
{
	static const char *const words[] = {"7", "x", "", "K=V", "=v", "NOEQ", "PATH=/bin", "a b"};
	uint64_t len = 0, n = draw_below(d, 6), envc = 0;
	for (uint64_t i = 0; i < n; i++) {
		const char *w = words[draw_below(d, sizeof words / sizeof words[0])];
		memcpy(args_text + len, w, strlen(w) + 1);
		len += strlen(w) + 1;
	}
	if (draw_chance(d, 10)) { /* a text of the whole limit, or one byte past it */
		len = MOSAIC_ARG_BYTES + draw_below(d, 2);
		memset(args_text, 'q', len - 1);
		args_text[len - 1] = 0;
		n = 1;
	}
	envc = n ? draw_below(d, n + 1) : 0;
	struct mosaic_args a = {0, len, n - envc, envc};
	if (draw_chance(d, 30))
		a.len = PICK(d, 0, len ? len - 1 : 1, len + 1, MOSAIC_ARG_BYTES + 1, UINT64_MAX, 1ULL << 63);
	if (draw_chance(d, 25))
		a.argc = PICK(d, a.argc + 1, MOSAIC_ARGS_MAX + 1, 1ULL << 63, UINT64_MAX, 0);
	if (draw_chance(d, 15))
		a.envc = PICK(d, a.envc + 1, MOSAIC_ARGS_MAX, 1ULL << 63, UINT64_MAX - a.argc + 1);
	c->vec[0] = gen_ptr(d, s, a.len < sizeof args_text ? a.len : sizeof args_text, (uint8_t *)args_text,
			    sizeof args_text);
	a.text = (const char *)c->vec[0].va;
	memcpy(at, &a, sizeof a < room ? sizeof a : room);
}
static void gen_pname(struct draws *d, char *at, uint64_t room)
{
	static const char *const names[] = {"hello", "ring", "zzbad", "he\0lo", "zz"};
	char buf[16];
	memset(buf, 'q', sizeof buf);
	uint64_t k = draw_below(d, sizeof names / sizeof names[0]);
	memcpy(buf, names[k], k == 3 ? 5 : strlen(names[k]) + (draw_chance(d, 50) ? 1 : 0));
	memcpy(at, buf, room < sizeof buf ? room : sizeof buf);
}

/* Fills infect's team with n members; a few get a function that is not the program's. */
static void gen_team(struct draws *d, uint8_t *at, uint64_t room, uint64_t n)
{
	uint64_t m = n < MAXCORES + 8 ? n : MAXCORES + 8;
	if (m > room / sizeof(struct mosaic_member))
		m = room / sizeof(struct mosaic_member);
	uint64_t bad = draw_chance(d, 20) ? draw_below(d, m ? m : 1) : m;
	for (uint64_t i = 0; i < m; i++) {
		struct mosaic_member t = {member, (long)i};
		if (i == bad)
			t.fn = (int (*)(long))PICK(d, 0, 0x80200000, (uint64_t)&member + 1, (uint64_t)arena,
						   (uint64_t)arena + 4096, 0x1000100000ULL);
		memcpy(at + i * sizeof t, &t, sizeof t);
	}
}

/* alltoallv's block for a group of n at `at` (room bytes there): its four arrays (random
 * counts and displacements, a few huge) and its in and out buffers. */
static void gen_vec(struct draws *d, const struct fuzz_state *s, struct call *c, uint8_t *at, uint64_t room, unsigned n)
{
	static const unsigned slot[4] = {1, 2, 4, 5}; /* sendcounts, sdispls, recvcounts, rdispls */
	uint64_t f[6], st = draw(d);
	for (unsigned k = 0; k < 4; k++) {
		for (unsigned r = 0; r < MAXCORES + 8; r++) {
			uint64_t x = splitmix64(&st);
			vec_arr[k][r] = x % 10 ? (uint32_t)(x >> 32) % 65 : (uint32_t)PICK(d, 0xffffffff, 1U << 31, 70000);
		}
		c->vec[slot[k]] = gen_ptr(d, s, n * 4ULL, (uint8_t *)vec_arr[k], sizeof vec_arr[k]);
		f[slot[k]] = c->vec[slot[k]].va;
	}
	for (unsigned k = 0; k < 2; k++) {
		c->vec[k * 3] = gen_ptr(d, s, 64 + draw_below(d, 64), arena, ARENA_BYTES);
		f[k * 3] = c->vec[k * 3].va;
	}
	struct mosaic_alltoallv v = {(const void *)f[0], (const uint32_t *)f[1], (const uint32_t *)f[2],
				     (void *)f[3], (const uint32_t *)f[4], (const uint32_t *)f[5]};
	memcpy(at, &v, sizeof v < room ? sizeof v : room);
}

/* Any value at all: for arguments a call does not read and for calls that do not exist. */
static uint64_t gen_any(struct draws *d, const struct fuzz_state *s)
{
	return PICK(d, 0, 1, UINT64_MAX, 0x80200000, (uint64_t)arena, 1ULL << 63, draw(d), s->brk, 0x7fffffff);
}

/* A call number that does not exist: a gap of 1..127, or far beyond (upper bits set). */
static uint64_t gen_unknown_nr(struct draws *d)
{
	if (draw_chance(d, 75)) {
		uint64_t gaps[128], n = 0;
		for (uint64_t nr = 1; nr < 128; nr++)
			if (!call_exists(nr))
				gaps[n++] = nr;
		return gaps[draw_below(d, n)];
	}
	return PICK(d, 128, 255, 256, 1000, 4096, 1ULL << 31, (1ULL << 32) | KC_CORE_ID, 1ULL << 32,
		    (1ULL << 32) | KC_WRITE, 1ULL << 63, UINT64_MAX, UINT64_MAX - 1);
}

#endif
