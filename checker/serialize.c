/*
 * The canonical serialisation (serialize.h): one growing byte buffer, then a
 * 128-bit hash of it (two independent 64-bit multiply-xorshift lanes).
 */
#include "checker/serialize.h"
#include <stdlib.h>
#include <string.h>

static uint8_t *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2 + 4096;
		buf = realloc(buf, cap);
		if (!buf)
			abort();
	}
	memcpy(buf + len, p, n);
	len += n;
}
static void u64(uint64_t v) { put(&v, 8); }
static void u32(uint32_t v) { put(&v, 4); }

static void hash(uint64_t out[2])
{
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ len, b = 0xc2b2ae3d27d4eb4fULL + len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, buf + i, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdULL;
		a ^= a >> 32;
		b = (b + w) * 0xc4ceb9fe1a85ec53ULL;
		b ^= b >> 29;
		b = b << 7 | b >> 57;
	}
	uint64_t w = 0;
	memcpy(&w, buf + i, len - i);
	a = (a ^ w) * 0xff51afd7ed558ccdULL;
	b = (b + w) * 0xc4ceb9fe1a85ec53ULL;
	a ^= a >> 33;
	b ^= b >> 31;
	out[0] = a * 0x94d049bb133111ebULL ^ b;
	out[1] = b * 0xbf58476d1ce4e5b9ULL ^ a;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static void hdr(const struct alloc_hdr *h)
{
	u32((uint32_t)h->kind | (uint32_t)h->scheme << 8 | (uint32_t)h->dir << 16 | (uint32_t)h->flags << 24);
	u32((uint32_t)h->origin | (uint32_t)h->from << 16);
	u32(h->bseq);
	u32(h->epoch);
	u32((uint32_t)h->rx0 | (uint32_t)h->ry0 << 8 | (uint32_t)h->rx1 << 16 | (uint32_t)h->ry1 << 24);
	u32(h->job);
	u32((uint32_t)h->home | (uint32_t)h->attempt << 16);
	u64(h->t_submit);
	u32(h->need);
	u32(h->count);
	u32((uint32_t)h->value);
	u32(h->failed);
	/* t_event (a part's start time) and mask (real-task mode) never steer partial simulation */
}

static void message(const struct alloc_hdr *h, uint32_t n)
{
	u32(n);
	hdr(h);
	if (h->kind == AK_SUBMIT) {
		const struct job_spec *s = (const struct job_spec *)(h + 1);
		u32(s->home);
		u32(s->ntasks);
		u32(s->tag);
		u64(s->t_submit_ns);
		u64(s->duration_us);
	} else if (n > sizeof *h) {
		put(h + 1, n - sizeof *h); /* spawn bodies are built zeroed (spawn.c) */
	}
}

static void mk_state(const struct mk *m)
{
	u32(m->nfree);
	u32((uint32_t)m->dirty | (uint32_t)m->dead << 8);
	u32(m->nwq);
	for (unsigned i = 0; i < m->nwq; i++) {
		const struct wq_entry *e = &m->wq[i];
		u32(e->job);
		u32((uint32_t)e->home | (uint32_t)e->attempt << 16);
		u64(e->t_submit);
		u32(e->need);
		u32(e->committed);
		u32(e->local);
	}
	uint64_t tombs[ALLOC_TOMBS];
	unsigned nt = 0;
	for (unsigned i = 0; i < ALLOC_TOMBS; i++)
		if (m->tombs[i].job)
			tombs[nt++] = (uint64_t)m->tombs[i].job << 16 | m->tombs[i].attempt;
	qsort(tombs, nt, sizeof *tombs, cmp_u64);
	u32(nt);
	put(tombs, nt * sizeof *tombs);
	u32(m->next_seq);
	for (const struct home_job *j = m->jobs; j; j = j->next) {
		u32(j->id);
		u32((uint32_t)j->state | (uint32_t)j->global << 8 | (uint32_t)j->begin.armed << 9 |
		    (uint32_t)j->begin.fired << 10);
		u32(j->attempt);
		u64(j->t_submit);
		u32(j->got);
		u32(j->parts_pending);
		u32(j->nparts);
		put(j->commit_count, m->w->ndomains * sizeof *j->commit_count);
		if (j->state == HJ_RUNNING)
			put(j->assign, j->nparts * sizeof *j->assign);
	}
	u32(~0u);
	for (const struct run_part *p = m->parts; p; p = p->next) {
		u32(p->job);
		u32(p->count);
		u32(p->done);
		u32((uint32_t)p->timer.armed | (uint32_t)p->timer.fired << 1);
	}
	u32(~0u);
	u32(m->bseq);
	u32(m->epoch);
	uint64_t keys[64];
	unsigned no = 0;
	for (unsigned i = 0; i < m->origins_cap && no < 64; i++)
		if (m->origins[i].used)
			keys[no++] = (uint64_t)m->origins[i].origin << 32 | i;
	qsort(keys, no, sizeof *keys, cmp_u64);
	for (unsigned k = 0; k < no; k++) {
		const struct origin_state *o = &m->origins[keys[k] & 0xffffffffu];
		u32(o->origin);
		u32(o->high);
		u64(o->mask);
		u32(o->tree.epoch);
		u32((uint32_t)o->tree.parent | (uint32_t)o->tree.children << 16 | (uint32_t)o->tree.ready << 24);
		u32(o->echo.bseq);
		u32((uint32_t)o->echo.parent | (uint32_t)o->echo.awaiting << 16);
		u32(o->echo.count);
		u32((uint32_t)o->echo.children | (uint32_t)o->echo.active << 8 | (uint32_t)o->echo.kind << 16);
	}
	for (const struct held_msg *h = m->held; h; h = h->next)
		message((const struct alloc_hdr *)(h + 1), h->len);
	u32(~0u);
	u32(m->nsq);
	for (unsigned i = 0; i < m->nsq; i++) {
		u32(m->sq[i].job);
		u32((uint32_t)m->sq[i].home | (uint32_t)m->sq[i].attempt << 16);
		u64(m->sq[i].t_submit);
		u32(m->sq[i].need);
	}
	u32(m->seq_current);
	u32(m->ndormant);
	for (unsigned i = 0; i < m->ndormant; i++) {
		u32(m->dormant[i].job);
		u32((uint32_t)m->dormant[i].home | (uint32_t)m->dormant[i].attempt << 16);
		u64(m->dormant[i].t_submit);
	}
}

uint64_t ser_mk_hash(const struct mk *m)
{
	uint64_t h[2];
	len = 0;
	mk_state(m);
	hash(h);
	return h[0];
}

static int cmp_timer(const void *x, const void *y)
{
	const struct ptimer *a = x, *b = y;
	if (a->mk != b->mk)
		return a->mk < b->mk ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void ser_system(uint64_t out[2])
{
	len = 0;
	for (unsigned d = 0; d < S->nd; d++)
		mk_state(&S->mks[d]);
	unsigned nsrc = S->nd + S->njobs;
	for (unsigned c = 0; c < nsrc * S->nd; c++) {
		for (struct msg *x = S->chan_head[c]; x; x = x->next)
			message(msg_hdr(x), x->len);
		u32(~0u);
	}
	/* a timer is named by its micro-kernel and what it is for (a job's begin or part end) */
	struct ptimer t[64];
	unsigned nt = S->ntimers < 64 ? S->ntimers : 64;
	for (unsigned i = 0; i < nt; i++) {
		t[i] = S->timers[i];
		const struct proto_timer *p = t[i].t;
		t[i].seq = p->kind == PT_BEGIN ? ((const struct home_job *)p->obj)->id
					       : (uint64_t)1 << 40 | ((const struct run_part *)p->obj)->job;
	}
	qsort(t, nt, sizeof *t, cmp_timer);
	for (unsigned i = 0; i < nt; i++) {
		u32(t[i].mk);
		u64(t[i].seq);
	}
	for (unsigned i = 0; i < S->njobs; i++)
		u32(S->jobs[i].started << 1 | S->jobs[i].reported);
	hash(out);
}
