/*
 * The stress test's transport (net_timed.h): a binary heap of messages and
 * timers ordered by (time, sequence number), in the arena like everything else.
 * After each event the receiving micro-kernel runs its periodic procedure until
 * nothing changes (a handler takes no time; turns follow each other at once).
 */
#include "checker/net_timed.h"
#include "checker/arena.h"
#include <string.h>

struct timed_params net;

struct hev {
	uint64_t t, seq;
	struct msg *m;          /* a message, or 0 for a timer */
	struct proto_timer *pt;
	uint16_t mk;
};

static uint64_t rnd(void)
{
	uint64_t z = (net.rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static bool before(const struct hev *a, const struct hev *b) { return a->t != b->t ? a->t < b->t : a->seq < b->seq; }

static void push(struct hev e)
{
	S->heap = arena_grow(S->heap, S->nheap, &S->heap_cap, sizeof *S->heap, 256);
	e.seq = S->seq++;
	unsigned i = S->nheap++;
	while (i && before(&e, &S->heap[(i - 1) / 2])) {
		S->heap[i] = S->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	S->heap[i] = e;
}

static struct hev pop(void)
{
	struct hev top = S->heap[0], last = S->heap[--S->nheap];
	unsigned i = 0, n = S->nheap;
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&S->heap[c + 1], &S->heap[c]))
			c++;
		if (!before(&S->heap[c], &last))
			break;
		S->heap[i] = S->heap[c];
		i = c;
	}
	if (n)
		S->heap[i] = last;
	return top;
}

static struct msg *copy_msg(unsigned from, unsigned to, const void *h, uint32_t len)
{
	struct msg *x = arena_alloc(sizeof *x + len);
	x->from = (uint16_t)from;
	x->to = (uint16_t)to;
	x->len = len;
	memcpy(x + 1, h, len);
	return x;
}

void timed_start(void)
{
	S->chan_last = arena_alloc((size_t)S->nd * S->nd * sizeof *S->chan_last);
}

void timed_inject(unsigned to, const struct alloc_hdr *h, uint32_t len, uint64_t t)
{
	push((struct hev){.t = t, .m = copy_msg(S->nd, to, h, len), .mk = (uint16_t)to});
}

void penv_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len)
{
	if (to_dom >= S->nd) {
		chk_violation("micro-kernel %u sends a %s to micro-kernel %u, which does not exist", m->dom,
			      alloc_kind_name(h->kind), to_dom);
		return;
	}
	uint64_t t = S->now + proto_hops(&world, m->dom, to_dom) * net.hop_ns + (net.extra_ns ? rnd() % (net.extra_ns + 1) : 0);
	uint64_t *last = &S->chan_last[(size_t)m->dom * S->nd + to_dom];
	if (net.fifo && t < *last)
		t = *last;
	*last = t;
	push((struct hev){.t = t, .m = copy_msg(m->dom, to_dom, h, len), .mk = (uint16_t)to_dom});
}

uint64_t penv_now(struct mk *m)
{
	(void)m;
	return S->now;
}

bool penv_timer(struct mk *m, struct proto_timer *t, uint64_t at_ns)
{
	push((struct hev){.t = at_ns > S->now ? at_ns : S->now, .pt = t, .mk = m->dom});
	return true;
}

/* The periodic procedure until nothing changes (the kernel's idle loop calls it every turn). */
static void quiesce(struct mk *m)
{
	for (unsigned k = 0; m->dirty && !chk_failed(); k++) {
		if (k == 1000) {
			chk_violation("micro-kernel %u: its periodic procedure never settles", m->dom);
			return;
		}
		proto_settle(m);
		chk_after_event(m);
	}
}

bool timed_run(uint64_t max_events)
{
	static uint8_t copy[1 << 17];
	while (S->nheap && !chk_failed()) {
		if (S->events >= max_events)
			return false;
		struct hev e = pop();
		S->now = e.t;
		struct mk *m = &S->mks[e.mk];
		if (e.m) {
			uint32_t len = e.m->len;
			memcpy(copy, e.m + 1, len);
			arena_free(e.m);
			sys_deliver(e.mk, (struct alloc_hdr *)copy, len);
		} else {
			sys_fire(e.mk, e.pt);
		}
		quiesce(m);
	}
	return true;
}
