/*
 * hostile: what a hostile or broken program does, one behaviour per mode, so that
 * the isolation tests (tests/test_isolation.py) can show the kernel withstands it.
 * The argument is MODE + 1000 * TARGET (a core id, where the mode needs one).
 *   1  wrapped counts: invade a core, then claim, team_wait, group_init, retreat
 *      and reduce with counts that wrap when multiplied by their element size;
 *      every such call must fail, and the claim into a kernel address must too
 *   2  send 3 messages to TARGET and exit (the receiver is not waiting)
 *   3  expect no message: tryrecv/probe must find nothing of a predecessor
 *   4  300 blocking 64 KiB sends to TARGET (a micro-kernel: nobody receives there)
 *   5  spin for ever in U-mode       6  spin for ever making kernel calls
 *   7  block for ever in recv        8  sleep in a loop for ever
 *   9  invade a core, start a member that spins, wait for the team for ever
 *  10  invade a core, start a member that spins, kill it (mosaic_kill): its result
 *      must say killed; killing a task outside the session must be refused
 * Run as a job of two or more tasks, rank 0 blocks for ever on a peer that never comes, while
 * every other rank sleeps for ever (tests/test_kill.py kills them):
 *  11  rank 0 waits at the job's barrier
 *  12  rank 0 waits in a blocking probe for a message from rank 1
 *  13  rank 0 sends 64 KiB messages to rank 1 for ever: it soon waits for credits
 * and alone again:
 *  14  as 9, with a member that sleeps for ever
 * Exit 0 means every check held; the ones that never end are for the killer.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "mosaic.h"

static int failures;

static void must_fail(const char *what, long got)
{
	if (got >= 0) {
		printf("hostile: %s returned %ld, expected an error\n", what, got);
		failures++;
	}
}

static int spin_member(long arg)
{
	for (volatile long i = arg;; i++)
		;
	return 0;
}

static int sleep_member(long arg)
{
	for (;; arg++)
		mosaic_sleep_us(1000000);
	return 0;
}

/* Invades one core of the domain and starts a member there that spins (or sleeps): 1 if it worked. */
static int spinning_team(uint16_t got[2], int (*member)(long))
{
	if (mosaic_invade(1, MOSAIC_INVADE_DOMAIN, got, 2) != 1) {
		printf("hostile: invade failed\n");
		return 0;
	}
	struct mosaic_member team[1] = {{member, 0}};
	if (mosaic_infect(team, 1) < 0) {
		printf("hostile: infect failed\n");
		return 0;
	}
	return 1;
}

static void wrapped_counts(void)
{
	uint16_t got[4];
	long n = mosaic_invade(1, MOSAIC_INVADE_DOMAIN, got, 4);
	if (n != 1) {
		printf("hostile: invade returned %ld, expected 1 core\n", n);
		failures++;
		return;
	}
	void *kernel = (void *)0x80200000UL;
	long wrap16 = (long)(1UL << 63); /* times sizeof(uint16_t) wraps to 0 */
	must_fail("claim(kernel address, capacity 1<<63)", mosaic_call(KC_CLAIM, (long)kernel, wrap16, 0, 0, 0));
	must_fail("claim(kernel address, capacity 1)", mosaic_call(KC_CLAIM, (long)kernel, 1, 0, 0, 0));
	uint16_t cores[2];
	long c = mosaic_call(KC_CLAIM, (long)cores, wrap16, 0, 0, 0); /* a real buffer: only n entries are written */
	if (c != 1 || cores[0] != got[0]) {
		printf("hostile: claim(buffer, capacity 1<<63) returned %ld (core %u), expected 1 (core %u)\n", c,
		       cores[0], got[0]);
		failures++;
	}
	must_fail("team_wait(kernel address, capacity 1<<59)", mosaic_call(KC_TEAM_WAIT, (long)kernel, 1L << 59, 0, 0, 0));
	must_fail("group_init(kernel address, 1<<63 cores)", mosaic_call(KC_GROUP_INIT, (long)kernel, wrap16, 0, 0, 0));
	must_fail("retreat(kernel address, 1<<63 cores)", mosaic_call(KC_RETREAT, (long)kernel, wrap16, 0, 0, 0));
	uint16_t self = (uint16_t)mosaic_core_id();
	long g = mosaic_group_init(&self, 1);
	int64_t v = 1;
	must_fail("allreduce(count 1<<61)", mosaic_call(KC_ALLREDUCE, g, (long)&v, (long)kernel, 1L << 61, MOSAIC_OP_SUM));
	must_fail("send(core 1<<32)", mosaic_call(KC_SEND, 1L << 32, 1, (long)&v, 8, 0));
	must_fail("send(tag 1<<32 + 5)", mosaic_call(KC_SEND, self, (1L << 32) + 5, (long)&v, 8, 0));
	must_fail("invade(1<<32 + 1 cores)", mosaic_call(KC_INVADE, (1L << 32) + 1, 0, 0, 0, 0));
	must_fail("kill(itself)", mosaic_kill(self));
	long r = mosaic_retreat(got, 1);
	if (r < 0) {
		printf("hostile: retreat returned %ld\n", r);
		failures++;
	}
}

static long message_state(void)
{
	char buf[64];
	struct mosaic_status st;
	long r = mosaic_tryrecv(MOSAIC_ANY, MOSAIC_ANY, buf, sizeof buf, &st);
	if (r != -11) {
		printf("hostile: tryrecv returned %ld (from core %d, tag %d): a message of another task\n", r, st.source,
		       st.tag);
		failures++;
	}
	r = mosaic_probe(MOSAIC_ANY, MOSAIC_ANY, 0, &st);
	if (r != -11) {
		printf("hostile: probe returned %ld: a message of another task\n", r);
		failures++;
	}
	return r;
}

MOSAIC_ABOUT("what a hostile or broken program does, one behaviour per mode (5: spin for ever)", "MODE + 1000 x TARGET core (user/hostile.c)");

int mosaic_main(long arg)
{
	long mode = arg % 1000, target = arg / 1000;
	static char big[64 * 1024];
	char small[32];
	switch (mode) {
	case 1:
		wrapped_counts();
		break;
	case 2:
		for (int i = 0; i < 3; i++) {
			snprintf(small, sizeof small, "stale %d", i);
			long r = mosaic_send((int)target, 7 + i, small, strlen(small) + 1);
			if (r < 0) {
				printf("hostile: send to %ld returned %ld\n", target, r);
				failures++;
			}
		}
		break;
	case 3:
		message_state();
		break;
	case 4:
		for (int i = 0; i < 300; i++) {
			long r = mosaic_send((int)target, i, big, sizeof big);
			if (r < 0) {
				printf("hostile: send %d to %ld returned %ld\n", i, target, r);
				failures++;
				break;
			}
		}
		break;
	case 5:
		for (volatile long i = 0;; i++)
			;
	case 6:
		for (;;)
			mosaic_time_ns();
	case 7:
		mosaic_recv(MOSAIC_ANY, 12345, small, sizeof small, 0);
		printf("hostile: recv returned, nobody sent\n");
		return 1;
	case 8:
		for (;;)
			mosaic_sleep_us(1000);
	case 9:
	case 14: {
		uint16_t got[2];
		struct mosaic_member_result res[1];
		if (!spinning_team(got, mode == 9 ? spin_member : sleep_member))
			return 1;
		mosaic_team_wait(res, 1);
		printf("hostile: team_wait returned\n");
		return 1;
	}
	case 10: {
		uint16_t got[2];
		struct mosaic_member_result res[1];
		if (!spinning_team(got, spin_member))
			return 1;
		mosaic_sleep_us(2000); /* let the member start */
		long k = mosaic_kill(got[0]);
		if (k != 0) {
			printf("hostile: kill(member on core %u) returned %ld\n", got[0], k);
			failures++;
		}
		long w = mosaic_team_wait(res, 1);
		if (w < 0 || res[0].status != MOSAIC_EFAULT) {
			printf("hostile: team_wait returned %ld, member status %d: expected killed (-14)\n", w,
			       (int)res[0].status);
			failures++;
		}
		if (target && mosaic_kill(target) != MOSAIC_EPERM && mosaic_kill(target) != MOSAIC_ESRCH) {
			printf("hostile: kill(core %ld, another session) was not refused\n", target);
			failures++;
		}
		break;
	}
	case 11:
	case 12:
	case 13: {
		struct mosaic_status st;
		long rank = mosaic_rank();
		if (rank < 0 || mosaic_job_size() < 2) {
			printf("hostile: mode %ld needs a job of two tasks or more\n", mode);
			return 1;
		}
		if (rank != 0)
			for (;;)
				mosaic_sleep_us(1000000);
		if (mode == 11)
			mosaic_barrier(mosaic_job_group());
		else if (mode == 12)
			mosaic_probe(1, 7, 1, &st);
		else
			for (int i = 0;; i++)
				if (mosaic_send(1, i, big, sizeof big) < 0)
					break;
		printf("hostile: mode %ld: the wait on the peer returned\n", mode);
		return 1;
	}
	default:
		printf("hostile: no mode %ld\n", mode);
		return 2;
	}
	printf("hostile: mode %ld: %d check%s failed\n", mode, failures, failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}
