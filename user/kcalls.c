/* kcalls: makes every kernel call user tasks have, checking each result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mosaic.h"

static int checks, failures;

static void check(const char *what, int ok)
{
	checks++;
	if (!ok) {
		printf("kcalls: FAILED %s\n", what);
		failures++;
	}
}

MOSAIC_ABOUT("makes every kernel call user tasks have, checking each result", "none");

int mosaic_main(long arg)
{
	long me = mosaic_core_id();
	check("core_id", me >= 0 && me < 128);
	check("domain_id", mosaic_domain_id() >= 0);
	check("job_id", mosaic_job_id() == 0);
	check("rank", mosaic_rank() >= 0);
	long t0 = mosaic_time_ns();
	check("sleep_us", mosaic_sleep_us(2000) == 0);
	check("time_ns advances by the sleep", mosaic_time_ns() - t0 >= 2000000);
	check("write", mosaic_write("kcalls: write works\n", 20) == 20);
	/* the heap, through malloc and sbrk */
	char *big = malloc(64 * 1024);
	check("malloc 64 KiB", big != NULL);
	if (big) {
		memset(big, 0x5a, 64 * 1024);
		check("heap memory holds", big[0] == 0x5a && big[64 * 1024 - 1] == 0x5a);
		free(big);
	}
	/* messages to ourselves */
	char out[32] = "a message to myself", in[32];
	struct mosaic_status st;
	check("tryrecv on an empty mailbox", mosaic_tryrecv(MOSAIC_ANY, MOSAIC_ANY, in, sizeof in, &st) == -11);
	check("send", mosaic_send((int)me, 7, out, strlen(out) + 1) == 0);
	check("trysend", mosaic_trysend((int)me, 8, "second", 7) == 0);
	check("probe", mosaic_probe(MOSAIC_ANY, MOSAIC_ANY, 1, &st) == 0 && st.len == strlen(out) + 1 && st.tag == 7);
	check("recv", mosaic_recv((int)me, 7, in, sizeof in, &st) == 0 && strcmp(in, out) == 0 && st.source == me);
	check("tryrecv", mosaic_tryrecv(MOSAIC_ANY, 8, in, sizeof in, &st) == 0 && strcmp(in, "second") == 0);
	/* non-blocking, to ourselves: the receive is posted before the send */
	long r = mosaic_irecv((int)me, 9, in, sizeof in);
	long s = mosaic_isend((int)me, 9, "async", 6);
	check("irecv and isend give handles", r >= 0 && s >= 0 && r != s);
	check("wait for the send", mosaic_wait(s, &st) == 0);
	long done = 0;
	for (int i = 0; i < 1000 && done == 0; i++)
		done = mosaic_test(r, &st);
	check("test the receive", done == 1 && strcmp(in, "async") == 0 && st.len == 6);
	check("a closed handle is refused", mosaic_wait(r, &st) == MOSAIC_EINVAL);
	check("xsend to myself", mosaic_xsend((int)me, 10, "x", 2) == 0 && mosaic_recv((int)me, 10, in, sizeof in, &st) == 0);
	/* a group of one: every collective works on it */
	uint16_t self = (uint16_t)me;
	long g = mosaic_group_init(&self, 1);
	int64_t v = 5, w = 0;
	check("group_init", g >= 0);
	check("barrier", mosaic_barrier(g) == 0);
	check("allreduce", mosaic_allreduce(g, &v, &w, 1, MOSAIC_OP_SUM) == 0 && w == 5);
	check("bad group handle", mosaic_barrier(9) == MOSAIC_EINVAL);
	printf("kcalls: %d of %d checks passed (argument %ld)\n", checks - failures, checks, arg);
	return failures ? 1 : 0;
}
