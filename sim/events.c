/*
 * The simulator's event queue: a binary heap ordered by (time, sequence number).
 * The sequence number is given at insertion and is unique, so the order is total
 * and never depends on the heap's layout or on host addresses: two runs with the
 * same arguments pop the same events in the same order. Events are recycled
 * through a free list (a 128x128 flood keeps ~100,000 in flight).
 */
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"

/* The keys live in the heap's array beside the pointer: comparing them touches no event
 * (a 128x128 storm keeps ~10^5 events queued, and ev_pop was a sixth of the run). */
struct slot {
	uint64_t time, seq;
	struct event *e;
};
static struct slot *heap;
static size_t n, cap;
static uint64_t next_seq;
static struct event *free_list; /* chained through ->body */

static bool before(const struct slot *a, const struct slot *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

struct event *ev_new(void)
{
	struct event *e = free_list;
	if (e)
		free_list = (struct event *)e->body;
	else if (!(e = malloc(sizeof *e))) {
		fprintf(stderr, "mosaic-sim: out of memory for events\n");
		exit(3);
	}
	memset(e, 0, sizeof *e);
	return e;
}

void body_put(struct body *b)
{
	if (b && --b->refs == 0)
		free(b);
}

void ev_free(struct event *e)
{
	body_put(e->body);
	e->body = (struct body *)free_list;
	free_list = e;
}

void ev_push(struct event *e)
{
	if (n == cap) {
		cap = cap ? cap * 2 : 1024;
		heap = realloc(heap, cap * sizeof *heap);
		if (!heap) {
			fprintf(stderr, "mosaic-sim: out of memory for the event queue\n");
			exit(3);
		}
	}
	e->seq = next_seq++;
	struct slot x = {e->time, e->seq, e};
	size_t i = n++;
	while (i > 0 && before(&x, &heap[(i - 1) / 2])) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = x;
}

struct event *ev_pop(void)
{
	if (!n)
		return 0;
	struct event *top = heap[0].e;
	struct slot last = heap[--n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct slot *best = &last;
		if (l < n && before(&heap[l], best))
			m = l, best = &heap[l];
		if (r < n && before(&heap[r], best))
			m = r;
		if (m == i)
			break;
		heap[i] = heap[m];
		i = m;
	}
	if (n)
		heap[i] = last;
	return top;
}

size_t ev_pending(void) { return n; }

/* Drops every pending event and the free list (the end of a run). */
void ev_reset(void)
{
	while (n)
		ev_free(heap[--n].e);
	while (free_list) {
		struct event *e = free_list;
		free_list = (struct event *)e->body;
		free(e);
	}
	free(heap);
	heap = 0;
	cap = 0;
	next_seq = 0;
}
