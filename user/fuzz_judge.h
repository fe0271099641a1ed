/*
 * fuzz: the judge. From the argument kinds of a call and what the task knows about
 * itself, it decides whether the call is certainly bad (then the kernel must answer
 * an error), maybe bad (a value whose meaning the kernel may take either way: a
 * buffer that runs on past what the fuzzer knows is mapped, an int argument with
 * upper bits set), or good. It only ever reads the task's own memory.
 */
#ifndef MOSAIC_FUZZ_JUDGE_H
#define MOSAIC_FUZZ_JUDGE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fuzz_gen.h"

/* Records the first reason a call is certainly bad. */
static void bad(struct call *c, int arg, const char *fmt, ...)
{
	if (c->verdict == V_BAD)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(c->why, sizeof c->why, "arg %d: ", arg);
	vsnprintf(c->why + n, sizeof c->why - (size_t)n, fmt, ap);
	va_end(ap);
	c->verdict = V_BAD;
	c->why_arg = arg;
}

static void unsure(struct call *c)
{
	if (c->verdict == V_OK)
		c->verdict = V_UNSURE;
}

static int fits_int(uint64_t v) { return v == sext32((int32_t)v); }

static int group_kind(const struct fuzz_state *s, uint64_t g) { return g < NGROUP ? s->group[g] : G_NONE; }

/* The algorithms of the collective a call is (user/mosaic.h). */
static unsigned algos_of_call(int64_t nr)
{
	switch (nr) {
	case KC_BARRIER: return MOSAIC_ALGOS_BARRIER;
	case KC_BCAST: return MOSAIC_ALGOS_BCAST;
	case KC_REDUCE: return MOSAIC_ALGOS_REDUCE;
	case KC_ALLREDUCE: return MOSAIC_ALGOS_ALLREDUCE;
	case KC_GATHER: return MOSAIC_ALGOS_GATHER;
	case KC_SCATTER: return MOSAIC_ALGOS_SCATTER;
	case KC_ALLGATHER: return MOSAIC_ALGOS_ALLGATHER;
	default: return MOSAIC_ALGOS_ALLTOALL;
	}
}

/* A collective's how: a mode (strict 0, loose 1) in bits 0..3, an algorithm it has (or 0) in 4..7. */
static void judge_how(struct call *c, int i, uint64_t how)
{
	uint64_t algo = how >> 4;
	if (how > 0xff)
		bad(c, i, "how %lx has bits above its 8", how);
	else if ((how & 0xf) > 1)
		bad(c, i, "no synchronisation mode %lu", how & 0xf);
	else if (algo && (algo > MOSAIC_ALGO_PAIRWISE || !(algos_of_call(c->d->nr) & (1u << algo))))
		bad(c, i, "the collective has no algorithm %lu", algo);
}

static int readable(uint8_t cls) { return cls == P_GOOD || cls == P_MISALIGNED || cls == P_RO || cls == P_CODE; }

/* A pointer for count x elem x scale bytes; returns its own verdict. */
static int judge_ptr(struct call *c, const struct fuzz_state *s, int i, const struct ptr *p, uint64_t count,
		     uint64_t elem, uint64_t scale, int out, int null_ok)
{
	uint64_t bytes;
	if (null_ok && p->va == 0)
		return V_OK;
	if (__builtin_mul_overflow(count, elem, &bytes) || __builtin_mul_overflow(bytes, scale, &bytes)) {
		bad(c, i, "%lu x %lu bytes wraps past 2^64", count, elem * scale);
		return V_BAD;
	}
	if (bytes == 0)
		return V_OK;
	if (!readable(p->cls) && p->cls != P_PART_HEAP && p->cls != P_PART_TOP) {
		bad(c, i, "%s for %lu bytes", pclass_name[p->cls], bytes);
		return V_BAD;
	}
	if (out && (p->cls == P_RO || p->cls == P_CODE)) {
		bad(c, i, "the kernel would write %lu bytes into %s", bytes, pclass_name[p->cls]);
		return V_BAD;
	}
	if (bytes <= p->room)
		return V_OK;
	if (p->cls == P_PART_HEAP || p->cls == P_PART_TOP || bytes > s->user_top - s->user_base) {
		bad(c, i, "%s: %lu bytes, %lu of them mapped", pclass_name[p->cls], bytes, p->room);
		return V_BAD;
	}
	unsure(c); /* runs on past what the fuzzer owns, maybe into mapped memory */
	return V_UNSURE;
}

/* An id of the virtual endpoints that an oversubscribed job's tasks speak as (drivers/noc/noc_ep.h:
 * 128 to 255); some of them are bound, to this task or to others. */
static int is_endpoint(uint64_t v) { return v >= 128 && v < 256; }

/* A core id (src: MOSAIC_ANY allowed too). */
static void judge_core(struct call *c, const struct fuzz_state *s, int i, int src)
{
	uint64_t v = c->a[i];
	if (c->d->nr == KC_KILL) { /* the core itself, any other may be a peer's: see C_BAD_ONLY */
		if (v >= (uint64_t)s->ncores || v == (uint64_t)s->me)
			bad(c, i, "kill core %lx: none, or the caller's own", v);
		else
			unsure(c);
	} else if (!fits_int(v))
		bad(c, i, "core %lx does not fit an int", v);
	else if (s->oversub && is_endpoint(v))
		unsure(c); /* the task's own endpoint, or maybe a peer's */
	else if (!(src && (int32_t)v == MOSAIC_ANY) && ((int32_t)v < 0 || (int32_t)v >= s->ncores))
		bad(c, i, "there is no core %d", (int)(int32_t)v);
}

static void judge_tag(struct call *c, int i, int recv)
{
	uint64_t v = c->a[i];
	if (!fits_int(v))
		bad(c, i, "tag %lx does not fit an int", v);
	else if ((int32_t)v < 0 && !(recv && (int32_t)v == MOSAIC_ANY))
		bad(c, i, "tag %d is negative", (int)(int32_t)v);
}

/* group_init's and retreat's array of n cores, read back from the task's own memory. */
static void judge_cores(struct call *c, const struct fuzz_state *s, int i, uint64_t n, int retreat)
{
	uint16_t v[MAXCORES];
	uint64_t seen[MAXCORES / 64 + 1] = {0};
	int has_me = 0, rank = 0;
	memcpy(v, (const void *)c->p[i].va, n * 2);
	for (uint64_t k = 0; k < n; k++) {
		int in_claim = 0;
		for (uint32_t j = 0; j < s->claim_n; j++)
			in_claim |= s->claim[j] == v[k];
		if (s->oversub && is_endpoint(v[k]) && v[k] != s->me)
			return unsure(c); /* maybe a peer's endpoint */
		if (v[k] >= s->ncores && !(s->oversub && v[k] == s->me))
			return bad(c, i, "core %u of the array does not exist", v[k]);
		if (v[k] >= MAXCORES) { /* this task's own endpoint (oversubscribed): its own check */
			if (has_me)
				return bad(c, i, "core %u is in the array twice", v[k]);
			has_me = 1, rank = (int)k;
			continue;
		}
		if (seen[v[k] / 64] & (1ULL << (v[k] % 64)))
			return bad(c, i, "core %u is in the array twice", v[k]);
		if (retreat && !in_claim)
			return bad(c, i, "core %u is not in the claim", v[k]);
		seen[v[k] / 64] |= 1ULL << (v[k] % 64);
		if (v[k] == s->me)
			has_me = 1, rank = (int)k;
	}
	c->new_rank = rank;
	c->new_group = !has_me ? G_FOREIGN : n == 1 ? G_SELF : G_MULTI;
}

/* infect's state: no team may run, and one member per claimed core. */
static void judge_team_size(struct call *c, const struct fuzz_state *s, uint64_t n)
{
	if (s->team)
		bad(c, -1, "a team runs already");
	else if (n != s->claim_n || !n)
		bad(c, 1, "%lu members for a claim of %u cores", n, s->claim_n);
}

/* infect's members, read back: a function outside the program's image below its writable data
 * (or odd) is certainly bad; one inside it that is not member() may be taken, since the kernel
 * cannot tell where functions begin, and read-only data may share the code's segment. */
static void judge_team(struct call *c, const struct fuzz_state *s, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		struct mosaic_member m;
		memcpy(&m, (const uint8_t *)c->p[0].va + k * sizeof m, sizeof m);
		uint64_t fn = (uint64_t)m.fn;
		if (fn < s->user_base || fn >= (uint64_t)arena || (fn & 1))
			return bad(c, 0, "member %lu's function %lx is not code of the program", k, fn);
		if (m.fn != member)
			unsure(c);
	}
}

/* alltoallv: the block, its arrays of n, and the extents they give the in and out buffers. */
static void judge_vec(struct call *c, const struct fuzz_state *s, unsigned n)
{
	if (judge_ptr(c, s, 1, &c->p[1], 1, sizeof(struct mosaic_alltoallv), 1, 0, 0) != V_OK)
		return;
	uint64_t end[2] = {0, 0};
	for (unsigned side = 0; side < 2; side++) {
		const struct ptr *cnt = &c->vec[side * 3 + 1], *dsp = &c->vec[side * 3 + 2];
		if (judge_ptr(c, s, 1, cnt, n, 4, 1, 0, 0) != V_OK || judge_ptr(c, s, 1, dsp, n, 4, 1, 0, 0) != V_OK)
			return;
		for (unsigned r = 0; r < n; r++) {
			uint32_t a, b;
			memcpy(&a, (const uint8_t *)cnt->va + r * 4, 4);
			memcpy(&b, (const uint8_t *)dsp->va + r * 4, 4);
			if ((uint64_t)a + b > end[side])
				end[side] = (uint64_t)a + b;
		}
	}
	judge_ptr(c, s, 1, &c->vec[0], end[0], 1, 1, 0, 0);
	judge_ptr(c, s, 1, &c->vec[3], end[1], 1, 1, 1, 0);
}

static void judge_invade(struct call *c, const struct fuzz_state *s)
{
	uint64_t most = c->a[0] < (uint64_t)s->ncores ? c->a[0] : (uint64_t)s->ncores;
	if (c->a[0] == 0 || c->a[0] > UINT32_MAX)
		bad(c, 0, "invade %lu cores", c->a[0]);
	if (c->a[1] > MOSAIC_INVADE_ANYWHERE) {
		if ((uint32_t)c->a[1] <= MOSAIC_INVADE_ANYWHERE)
			unsure(c);
		else
			bad(c, 1, "no such property %lu", c->a[1]);
	}
	if (s->team)
		bad(c, 0, "a team runs");
	if (c->a[2] && c->a[3] < most)
		bad(c, 3, "capacity %lu for up to %lu cores", c->a[3], most);
	if (c->a[2])
		judge_ptr(c, s, 2, &c->p[2], most, 2, 1, 1, 0);
}

/* job_spawn, beyond its count (the name's length, 1..15) and the name's pointer: a name that is
 * certainly no program (a NUL inside, or "zz..."), a count of tasks or cores, or a mode the kernel
 * refuses (user_job.c, and alloc_submit's limits for the machine and an oversubscribed job). */
static void judge_spawn(struct call *c, const struct fuzz_state *s)
{
	uint64_t len = c->a[1], nt = c->a[2], nc = c->a[3], mode = c->a[5];
	const struct ptr *p = &c->p[0];
	if ((p->cls == P_GOOD || p->cls == P_MISALIGNED) && len >= 1 && len <= 15 && len <= p->room) {
		const char *name = (const char *)p->va;
		if (memchr(name, 0, len))
			bad(c, 0, "a NUL inside the name's %lu bytes", len);
		else if (name[0] == 'z')
			bad(c, 0, "no program starts with z");
	}
	if (nt == 0 || nt > 0xffffffffULL)
		bad(c, 2, "%lu tasks", nt);
	if (nc > nt)
		bad(c, 3, "%lu cores for %lu tasks", nc, nt);
	if ((mode & ~0xffffULL) || (mode & 0xff) > 2 || (mode >> 8) > 2)
		bad(c, 5, "no such mode %lx", mode);
	if ((nc ? nc : nt) > (uint64_t)s->ncores)
		bad(c, 2, "%lu cores, the machine has %ld", nc ? nc : nt, s->ncores);
	if (nc && nc < nt && (nt > 64 || nc > 32 || nt > nc * 8))
		bad(c, 2, "%lu tasks on %lu cores: too many for an oversubscribed job", nt, nc);
}

/* job_spawnv's block (argument 4): unreadable, beyond the limits (32 strings, 1024 bytes), a text
 * not readable over its length, strings that do not match their counts, an entry that is not
 * NAME=VALUE. The block and text are read as the kernel reads them, from the task's memory. */
static void judge_args(struct call *c, const struct fuzz_state *s)
{
	const struct ptr *p = &c->p[4];
	if (judge_ptr(c, s, 4, p, 1, sizeof(struct mosaic_args), 1, 0, 0) != V_OK)
		return;
	struct mosaic_args a;
	memcpy(&a, (const void *)p->va, sizeof a);
	if (a.len > MOSAIC_ARG_BYTES || a.argc > MOSAIC_ARGS_MAX || a.envc > MOSAIC_ARGS_MAX ||
	    a.argc + a.envc > MOSAIC_ARGS_MAX) {
		bad(c, 4, "%lu bytes, %lu + %lu strings", a.len, a.argc, a.envc);
		return;
	}
	if (!a.len)
		return;
	if ((p->cls != P_GOOD && p->cls != P_MISALIGNED) || (uint64_t)a.text != c->vec[0].va) {
		unsure(c); /* a block the fuzzer did not write (read-only data): its text is not one it drew */
		return;
	}
	if (judge_ptr(c, s, 4, &c->vec[0], a.len, 1, 1, 0, 0) != V_OK)
		return;
	if (!readable(c->vec[0].cls) || c->vec[0].room < a.len) {
		unsure(c);
		return;
	}
	const char *t = a.text;
	uint64_t nuls = 0, bad_env = 0;
	for (uint64_t i = 0, k = 0, start = 0; i < a.len; i++) {
		if (t[i])
			continue;
		if (k++ >= a.argc && (t[start] == '=' || !memchr(t + start, '=', i - start)))
			bad_env++;
		nuls++, start = i + 1;
	}
	if (nuls != a.argc + a.envc || t[a.len - 1])
		bad(c, 4, "%lu NULs for %lu + %lu strings", nuls, a.argc, a.envc);
	else if (bad_env)
		bad(c, 4, "an environment entry is not NAME=VALUE");
}

/* Judges c (from scratch: the call may have been changed since). */
static void judge(struct call *c, const struct fuzz_state *s)
{
	const struct call_desc *d = c->d;
	c->verdict = V_OK;
	c->why[0] = 0;
	c->why_arg = -1;
	c->new_group = G_UNKNOWN;
	if (d->flags & C_UNKNOWN) {
		if (!call_exists(c->nr))
			bad(c, -1, "there is no call %lu", c->nr);
		return;
	}
	if (d->flags & C_SHARE_ONLY) {
		bad(c, -1, "a share group's call from a job's task");
		return;
	}
	if (s->oversub && !oversub_allows(c->nr)) {
		bad(c, -1, "not a call of an oversubscribed job's task");
		return;
	}
	uint64_t g = c->a[0];
	int gk = G_NONE, rank = -1;
	unsigned gn = 1;
	for (int i = 0; i < 6; i++) {
		const struct arg_desc *a = &d->a[i];
		uint64_t v = c->a[i];
		switch (a->kind) {
		case K_COUNT:
			if (v < d->min || (d->max && v > d->max))
				bad(c, i, "count %lu outside %lu..%lu", v, d->min, d->max);
			break;
		case K_DST:
		case K_SRC:
			judge_core(c, s, i, a->kind == K_SRC);
			break;
		case K_TAG:
		case K_RTAG:
			judge_tag(c, i, a->kind == K_RTAG);
			break;
		case K_REQ:
			if (v >= NREQ || !s->req_open[v])
				bad(c, i, "request %lu is not open", v);
			break;
		case K_GROUP:
			judge_how(c, i, v >> 8);
			v &= 0xff;
			g = v;
			gk = group_kind(s, v);
			if (gk == G_NONE)
				bad(c, i, "the task holds no group %lu", v);
			else if (gk == G_FOREIGN)
				bad(c, i, "the task is not a member of group %lu", v);
			else if (gk == G_UNKNOWN)
				unsure(c);
			else
				gn = s->group_n[g], rank = s->group_rank[g];
			break;
		case K_ROOT:
			if ((gk == G_SELF || gk == G_MULTI) && v >= gn)
				bad(c, i, "root %lu outside a group of %u", v, gn);
			break;
		case K_OP:
			if (!fits_int(v))
				unsure(c);
			else if ((int32_t)v < MOSAIC_OP_SUM || (int32_t)v > MOSAIC_OP_MAX)
				bad(c, i, "no such operation %d", (int)(int32_t)v);
			break;
		case K_US:
			if (v > SLEEP_MAX_US)
				bad(c, i, "sleep %lu us, more than 60 s", v);
			break;
		case K_HEAP:
			if (v > HEAP_LIMIT)
				bad(c, i, "grow the heap by %lu bytes, more than its limit", v);
			break;
		case K_NINVADE:
		case K_PROPS:
			break; /* judge_invade */
		case K_SHMSIZE:
			if (v == 0 || v > 256 * 1024)
				bad(c, i, "a window of %lu bytes", v);
			break;
		}
	}
	/* the pointers, now that the counts and the group are known */
	for (int i = 0; i < 6; i++) {
		const struct arg_desc *a = &d->a[i];
		uint64_t count = c->a[a->ref];
		int v;
		switch (a->kind) {
		case K_BUF:
			if (a->flags & F_OWN)
				break;
			if ((a->flags & F_ROOT) && (rank < 0 || c->a[1] != (uint64_t)rank))
				break; /* not the root: the buffer is not used */
			judge_ptr(c, s, i, &c->p[i], count, a->elem, a->flags & F_BY_N ? gn : 1, a->flags & F_OUT,
				  a->flags & F_NULL_OK);
			break;
		case K_STATUS:
			judge_ptr(c, s, i, &c->p[i], 1, a->elem, 1, 1, a->flags & F_NULL_OK);
			break;
		case K_CORES:
			v = judge_ptr(c, s, i, &c->p[i], count, 2, 1, 0, 0);
			if (v == V_OK && count >= 1 && count <= MAXCORES && count <= (uint64_t)s->ncores)
				judge_cores(c, s, i, count, d->nr == KC_RETREAT);
			break;
		case K_TEAM:
			judge_team_size(c, s, count);
			v = judge_ptr(c, s, i, &c->p[i], count, a->elem, 1, 0, 0);
			if (v == V_OK && count <= MAXCORES)
				judge_team(c, s, count);
			break;
		case K_VEC:
			if (gk == G_SELF || gk == G_MULTI)
				judge_vec(c, s, gn);
			break;
		case K_PNAME:
			judge_ptr(c, s, i, &c->p[i], count, 1, 1, 0, 0);
			break;
		}
	}
	switch (d->nr) {
	case KC_GROUP_INIT:
		if (c->a[1] > (uint64_t)s->ncores)
			bad(c, 1, "%lu cores, the machine has %ld", c->a[1], s->ncores);
		if (!memchr(s->group, G_NONE, NGROUP))
			bad(c, -1, "every group handle is taken");
		break;
	case KC_JOB_GROUP:
		if (!s->size)
			bad(c, -1, "the task is not in a job");
		else if (s->job_group < 0 && !memchr(s->group, G_NONE, NGROUP))
			bad(c, -1, "every group handle is taken");
		break;
	case KC_INVADE:
		judge_invade(c, s);
		break;
	case KC_SHM_OPEN: /* a readable name may still be refused: another size, no room left */
		if (!s->size)
			bad(c, -1, "the task is not in a job");
		else if (!readable(c->p[0].cls) && c->p[0].cls != P_PART_HEAP && c->p[0].cls != P_PART_TOP)
			bad(c, 0, "the name is %s", pclass_name[c->p[0].cls]);
		else if ((c->p[0].cls == P_GOOD || c->p[0].cls == P_MISALIGNED) && c->p[0].room >= 3 &&
			 !*(const char *)c->p[0].va)
			bad(c, 0, "an empty name");
		else
			unsure(c);
		break;
	case KC_JOB_SPAWN:
		judge_spawn(c, s);
		break;
	case KC_JOB_SPAWNV:
		judge_spawn(c, s);
		judge_args(c, s);
		break;
	case KC_JOB_WAIT: /* only bad spawns are made: the task never has a job outstanding */
		bad(c, -1, "the task has no job outstanding");
		break;
	case KC_CLAIM: /* it copies min(claim, capacity) cores, and checks just those */
		judge_ptr(c, s, 0, &c->p[0], c->a[1] < s->claim_n ? c->a[1] : s->claim_n, 2, 1, 1, 1);
		break;
	case KC_RETREAT:
		if (s->team)
			bad(c, -1, "a team runs");
		break;
	case KC_TEAM_WAIT:
		if (!c->a[0])
			bad(c, 0, "no buffer for the results");
		if (!s->team)
			bad(c, -1, "no team runs");
		else if (c->a[1] < s->members)
			bad(c, 1, "capacity %lu for %u members", c->a[1], s->members);
		break;
	}
}

#endif
