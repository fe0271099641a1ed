/*
 * Host check of the NoC timing model (portable/noc/timing.c), compiled with the host gcc
 * by tests/test_noc_timing.py: the same file the kernel links must give the delays that
 * docs/noc.md states. Prints one line per failed check and "noc_timing: N checks, F failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "portable/noc/timing.h"

static unsigned checks, failed;

#define CHECK_EQ(a, b)                                                                                       \
	do {                                                                                                 \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                 \
		checks++;                                                                                    \
		if (a_ != b_) {                                                                              \
			failed++;                                                                            \
			printf("FAIL %s:%d: %s = %llu, expected %s = %llu\n", __FILE__, __LINE__, #a, a_, #b, b_); \
		}                                                                                            \
	} while (0)

static uint64_t floor_value;
static uint64_t test_floor(void) { return floor_value; }

static const struct noc_timing model = {.t_inject_ns = 20, .t_hop_ns = 10, .t_flit_ns = 2, .flit_bytes = 16};

static void latency_and_route(void)
{
	CHECK_EQ(noc_timing_flits(&model, 0), 1);
	CHECK_EQ(noc_timing_flits(&model, 16), 1);
	CHECK_EQ(noc_timing_flits(&model, 17), 2);
	CHECK_EQ(noc_timing_latency(&model, 3, 40), 20 + 30 + 3 * 2);
	/* 6-wide mesh: core 0 at (0,0), core 14 at (2,2): two hops east, then two south */
	unsigned links[8];
	CHECK_EQ(noc_timing_route(6, 0, 14, links, 8), 4);
	CHECK_EQ(links[0], 0 * NOC_DIRS + NOC_EAST);
	CHECK_EQ(links[1], 1 * NOC_DIRS + NOC_EAST);
	CHECK_EQ(links[2], 2 * NOC_DIRS + NOC_SOUTH);
	CHECK_EQ(links[3], 8 * NOC_DIRS + NOC_SOUTH);
	CHECK_EQ(noc_timing_hops(6, 14, 0), 4);
	CHECK_EQ(noc_timing_route(6, 14, 0, links, 2), 4); /* counts past max, writes only max */
	CHECK_EQ(links[0], 14 * NOC_DIRS + NOC_WEST);
	CHECK_EQ(noc_timing_route(6, 7, 7, links, 8), 0);
}

static void intervals(void)
{
	struct noc_link l;
	memset(&l, 0, sizeof l);
	CHECK_EQ(noc_link_book(&l, 100, 10, test_floor), 100);
	/* a head whose clock is behind takes the gap before a booking made in its future */
	CHECK_EQ(noc_link_book(&l, 50, 10, test_floor), 50);
	CHECK_EQ(noc_link_book(&l, 105, 10, test_floor), 110); /* overlaps [100,110): waits; merges */
	CHECK_EQ(l.count, 2);                                   /* [50,60) [100,120) */
	CHECK_EQ(noc_link_book(&l, 55, 40, test_floor), 60);    /* fits [60,100) exactly: one booking left */
	CHECK_EQ(l.count, 1);
	CHECK_EQ(noc_link_book(&l, 55, 1, test_floor), 120);
	CHECK_EQ(noc_link_busy_after(&l, 120), true);
	CHECK_EQ(noc_link_busy_after(&l, 121), false);
	CHECK_EQ(noc_link_book(&l, 0, 0, test_floor), 0); /* no flit time: no booking */
	CHECK_EQ(l.count, 1);
}

static void full_link(void)
{
	struct noc_link l;
	memset(&l, 0, sizeof l);
	for (unsigned i = 0; i < NOC_LINK_BOOKINGS; i++)
		CHECK_EQ(noc_link_book(&l, 100 * i, 10, test_floor), 100 * i);
	CHECK_EQ(l.count, NOC_LINK_BOOKINGS);
	/* no sender can reach the first half + 1 any more: they go, and nothing is forgotten */
	floor_value = 100 * (NOC_LINK_BOOKINGS / 2) + 50;
	CHECK_EQ(noc_link_book(&l, 100000, 10, test_floor), 100000);
	CHECK_EQ(l.count, NOC_LINK_BOOKINGS / 2);
	CHECK_EQ(l.forgotten, 0);
	for (unsigned i = 0; l.count < NOC_LINK_BOOKINGS; i++)
		noc_link_book(&l, 200000 + 100 * i, 10, test_floor);
	/* every booking is still reachable: the earliest half is forgotten, and counted */
	floor_value = 0;
	uint64_t first_kept = l.start[NOC_LINK_BOOKINGS / 2];
	CHECK_EQ(noc_link_book(&l, 500000, 10, test_floor), 500000);
	CHECK_EQ(l.forgotten, NOC_LINK_BOOKINGS / 2);
	CHECK_EQ(l.count, NOC_LINK_BOOKINGS / 2 + 1);
	CHECK_EQ(l.start[0], first_kept);
}

/* Random bookings against a brute-force search over every booking made: each start is the
 * earliest that overlaps none, and the link's list stays sorted and disjoint. */
static void random_against_brute_force(void)
{
	enum { N = 2000 };
	static uint64_t bs[N], be[N];
	struct noc_link l;
	memset(&l, 0, sizeof l);
	srand(7);
	unsigned made = 0, mismatches = 0, full = 0;
	floor_value = 0;
	for (unsigned i = 0; i < N; i++) {
		/* a window that slides, so that bookings far behind may be dropped as unreachable */
		uint64_t base = i * 5, t = base + (uint64_t)(rand() % 60), hold = 1 + (uint64_t)(rand() % 6);
		floor_value = base;
		uint64_t s = noc_link_book(&l, t, hold, test_floor);
		uint64_t want = t;
		for (int moved = 1; moved;) {
			moved = 0;
			for (unsigned j = 0; j < made; j++)
				if (bs[j] < want + hold && want < be[j]) {
					want = be[j];
					moved = 1;
				}
		}
		if (s != want && l.forgotten == 0)
			mismatches++;
		bs[made] = s;
		be[made++] = s + hold;
		for (unsigned k = 1; k < l.count; k++)
			if (l.end[k - 1] > l.start[k])
				mismatches++; /* unsorted or overlapping */
		if (l.count == NOC_LINK_BOOKINGS)
			full++;
	}
	CHECK_EQ(mismatches, 0);
	CHECK_EQ(full > 0, 1); /* the link did fill up, so dropping unreachable bookings was exercised */
	CHECK_EQ(l.forgotten, 0); /* the floor keeps up with the senders: nothing reachable was lost */
}

static void route_contention(void)
{
	static struct noc_link links[4 * 4 * NOC_DIRS];
	memset(links, 0, sizeof links);
	uint64_t waited = 0;
	bool busy = false;
	/* flow A: 0 -> 3 along row 0, 64 bytes (4 flits); flow B: 1 -> 2 shares link 1->2 */
	uint64_t a = noc_timing_book_route(&model, 4, links, 0, 3, 4, 0, test_floor, &waited, &busy);
	CHECK_EQ(a, noc_timing_latency(&model, 3, 64));
	CHECK_EQ(waited, 0);
	/* B is sent at 0: its head reaches link 1->2 at 20; A holds it from 30 to 38 */
	uint64_t b = noc_timing_book_route(&model, 4, links, 1, 2, 1, 0, test_floor, &waited, &busy);
	CHECK_EQ(waited, 0); /* [20,22) fits before A's [30,38) */
	CHECK_EQ(b, noc_timing_latency(&model, 1, 16));
	CHECK_EQ(busy, true); /* links were booked past time 0 */
	/* C sent at 9: reaches the link at 29 and needs [29,31): overlaps A's, waits to 38 */
	uint64_t c = noc_timing_book_route(&model, 4, links, 1, 2, 1, 9, test_floor, &waited, 0);
	CHECK_EQ(waited, 9);
	CHECK_EQ(c, 9 + noc_timing_latency(&model, 1, 16) + 9);
	CHECK_EQ(links[1 * NOC_DIRS + NOC_EAST].messages, 3);
	CHECK_EQ(links[1 * NOC_DIRS + NOC_EAST].wait_ns, 9);
}

int main(void)
{
	latency_and_route();
	intervals();
	full_link();
	random_against_brute_force();
	route_contention();
	printf("noc_timing: %u checks, %u failed\n", checks, failed);
	return failed != 0;
}
