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
	printf("kcalls: %d of %d checks passed (argument %ld)\n", checks - failures, checks, arg);
	return failures ? 1 : 0;
}
