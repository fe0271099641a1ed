/*
 * The checker's transport (net_chan.h): channels and timers held in the arena,
 * so a snapshot of the arena is a snapshot of the network too.
 */
#include "checker/net_chan.h"
#include "checker/arena.h"
#include <stdio.h>
#include <string.h>

bool chan_fifo = true;

static unsigned nsrc(void) { return S->nd + S->njobs; }

static void enqueue(unsigned from, unsigned to, const void *h, uint32_t len)
{
	struct msg *x = arena_alloc(sizeof *x + len);
	x->from = (uint16_t)from;
	x->to = (uint16_t)to;
	x->len = len;
	x->seq = S->seq++;
	memcpy(x + 1, h, len);
	unsigned c = from * S->nd + to;
	if (S->chan_tail[c])
		S->chan_tail[c]->next = x;
	else
		S->chan_head[c] = x;
	S->chan_tail[c] = x;
}

void penv_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len)
{
	if (to_dom >= S->nd) {
		chk_violation("micro-kernel %u sends a %s to micro-kernel %u, which does not exist", m->dom,
			      alloc_kind_name(h->kind), to_dom);
		return;
	}
	enqueue(m->dom, to_dom, h, len);
}

uint64_t penv_now(struct mk *m)
{
	(void)m;
	return S->now;
}

bool penv_timer(struct mk *m, struct proto_timer *t, uint64_t at_ns)
{
	(void)at_ns;
	S->timers = arena_grow(S->timers, S->ntimers, &S->timers_cap, sizeof *S->timers, 8);
	S->timers[S->ntimers++] = (struct ptimer){.mk = m->dom, .t = t, .seq = S->seq++};
	return true;
}

void chan_start(void)
{
	S->chan_head = arena_alloc(nsrc() * S->nd * sizeof *S->chan_head);
	S->chan_tail = arena_alloc(nsrc() * S->nd * sizeof *S->chan_tail);
	for (unsigned j = 0; j < S->njobs; j++) {
		uint8_t buf[sizeof(struct alloc_hdr) + sizeof(struct job_spec)];
		uint32_t len;
		sys_submit_msg(j, buf, &len);
		enqueue(S->nd + j, S->jobs[j].spec.home, buf, len);
	}
}

unsigned chan_events(struct event *ev, unsigned max)
{
	unsigned n = 0;
	for (unsigned c = 0; c < nsrc() * S->nd; c++) {
		unsigned k = 0;
		for (struct msg *x = S->chan_head[c]; x && n < max; x = x->next, k++) {
			if (chan_fifo && k)
				break;
			/* without FIFO, b's high bits name the message's place in its channel */
			ev[n++] = (struct event){EV_DELIVER, (uint16_t)(c / S->nd), (uint16_t)(c % S->nd | k << 8)};
		}
	}
	for (unsigned i = 0; i < S->ntimers && n < max; i++)
		ev[n++] = (struct event){EV_TIMER, S->timers[i].mk, (uint16_t)i};
	for (unsigned d = 0; d < S->nd && n < max; d++)
		if (S->mks[d].dirty)
			ev[n++] = (struct event){EV_SETTLE, (uint16_t)d, 0};
	return n;
}

void chan_apply(const struct event *e)
{
	if (e->kind == EV_DELIVER) {
		unsigned to = e->b & 0xff, k = e->b >> 8, c = e->a * S->nd + to;
		struct msg **pp = &S->chan_head[c], *prev = 0;
		while (k--) {
			prev = *pp;
			pp = &(*pp)->next;
		}
		struct msg *x = *pp;
		*pp = x->next;
		if (S->chan_tail[c] == x)
			S->chan_tail[c] = prev;
		static uint8_t copy[1 << 16];
		memcpy(copy, x + 1, x->len);
		uint32_t len = x->len;
		arena_free(x);
		sys_deliver(to, (struct alloc_hdr *)copy, len);
	} else if (e->kind == EV_TIMER) {
		struct ptimer t = S->timers[e->b];
		S->timers[e->b] = S->timers[--S->ntimers];
		S->events++;
		proto_timer_fired(&S->mks[t.mk], t.t);
		chk_after_event(&S->mks[t.mk]);
	} else {
		S->events++;
		proto_settle(&S->mks[e->a]);
		chk_after_event(&S->mks[e->a]);
	}
}

void chan_describe(const struct event *e, char *out, size_t n)
{
	if (e->kind == EV_DELIVER) {
		unsigned to = e->b & 0xff, k = e->b >> 8;
		struct msg *x = S->chan_head[e->a * S->nd + to];
		for (unsigned i = 0; i < k; i++)
			x = x->next;
		const struct alloc_hdr *h = msg_hdr(x);
		char from[24];
		if (e->a >= S->nd)
			snprintf(from, sizeof from, "submitter of tag %u", e->a - S->nd);
		else
			snprintf(from, sizeof from, "mk %u", e->a);
		snprintf(out, n, "deliver %s %s -> mk %u: job %u attempt %u need %u count %u (origin %u)%s",
			 alloc_kind_name(h->kind), from, to, h->job, h->attempt, h->need, h->count, h->origin,
			 k ? " [overtaking]" : "");
	} else if (e->kind == EV_TIMER) {
		const struct proto_timer *t = S->timers[e->b].t;
		uint32_t job = t->kind == PT_BEGIN ? ((const struct home_job *)t->obj)->id
						   : ((const struct run_part *)t->obj)->job;
		snprintf(out, n, "timer at mk %u: %s of job %u", e->a, t->kind == PT_BEGIN ? "begin" : "part end", job);
	} else {
		snprintf(out, n, "periodic procedure at mk %u", e->a);
	}
}
