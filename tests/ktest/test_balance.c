/* ktest suite "balance": share groups (kernel/task/share/share.h): tasks time-sliced on pico-kernels,
 * the group's barrier in each wait mode, and tasks moved by the round-robin and speed
 * placements; every task must end exactly once with its own exact result. */
#include "kernel/core/ktest.h"
#include "kernel/task/share/share.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/console/console.h"
#include "kernel/domain/background.h"
#include "lib/string.h"
#include "kernel/msg/msg.h"
#include "drivers/noc/noc.h"

#define W_OF(arg) (((arg) & 0xffff) ? ((arg) & 0xffff) : 50)
#define T_OF(arg) ((((arg) >> 16) & 0x3fff) ? (((arg) >> 16) & 0x3fff) : 20)
#define SPMD_ARG(t, w, imb) (((uint64_t)(t) << 16) | (w) | ((imb) ? 1UL << 30 : 0))
#define PROBE_ARG (1UL << 31)

/* What user/spmd.c exits with for rank r (bits 40..45 of its LCG chain). */
static int spmd_expected(uint64_t arg, uint64_t r)
{
	uint64_t x = arg * 0x9e3779b97f4a7c15ULL + r, steps = W_OF(arg) * 1000 * T_OF(arg);
	if ((arg & (1UL << 30)) && r == 0)
		steps *= 2;
	for (uint64_t k = 0; k < steps; k++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int)((x >> 40) & 63);
}

static struct share_group *group(const char *name, uint64_t arg, unsigned n, unsigned c, enum share_wait w,
				 enum share_place p)
{
	struct share_group *g = kmalloc(sizeof *g);
	if (!g)
		return 0;
	memset(g, 0, sizeof *g);
	g->name = name;
	g->arg = arg;
	g->ntasks = n;
	g->ncores = c;
	g->wait = w;
	g->place = p;
	if (share_idle_picos(g->cores, c) < c) {
		kfree(g);
		return 0;
	}
	return g;
}

/* Every task ended once, exactly, on some core of the group. */
static void check_exact(struct ktest_ctx *kt, const struct share_group *g)
{
	for (unsigned r = 0; r < g->ntasks; r++) {
		const struct share_task *t = &g->tasks[r];
		KT_ASSERT_EQ(t->rank, r);
		KT_ASSERT_EQ(t->res.status, 0);
		KT_ASSERT_EQ(t->res.exit_code, spmd_expected(g->arg, r));
		KT_ASSERT(t->cpu_ns > 0 && t->cpu_ns <= t->real_ns);
	}
	KT_ASSERT_EQ(g->ended, g->ntasks);
	KT_ASSERT_EQ(g->barriers, T_OF(g->arg));
}

KTEST_STANDALONE(balance, one_core_shared_by_four_is_preempted_and_exact)
{
	struct share_group *g = group("spmd", SPMD_ARG(4, 500, 0), 4, 1, SHARE_WAIT_SPIN, SHARE_PLACE_PINNED);
	if (!g) {
		kprintf("ktest:   (skipped: no pico-kernel besides this core)\n");
		return;
	}
	KT_ASSERT_EQ(share_group_run(g), 0);
	check_exact(kt, g);
	for (unsigned r = 0; r < 4; r++) {
		KT_ASSERT(g->tasks[r].slices >= 2);
		KT_ASSERT(g->tasks[r].cpu_ns * 10 < g->tasks[r].real_ns * 6); /* it shared the core: below 0.6 */
	}
	kfree(g);
}

KTEST_STANDALONE(balance, every_wait_mode_and_placement_gives_exact_results)
{
	for (int p = 0; p < SHARE_PLACES; p++)
		for (int w = 0; w < SHARE_WAITS; w++) {
			struct share_group *g = group("spmd", SPMD_ARG(6, 300, p == 1), 5, 3, (enum share_wait)w,
						      (enum share_place)p);
			if (!g) {
				kprintf("ktest:   (skipped: fewer than 3 pico-kernels besides this core)\n");
				return;
			}
			KT_ASSERT_EQ(share_group_run(g), 0);
			check_exact(kt, g);
			uint64_t moves = 0;
			for (unsigned r = 0; r < g->ntasks; r++)
				moves += g->tasks[r].migrations;
			KT_ASSERT_EQ(moves, g->migrations); /* every move counted once, by its task */
			if (p == SHARE_PLACE_PINNED)
				KT_ASSERT_EQ(g->migrations, 0);
			kfree(g);
		}
}

KTEST_STANDALONE(balance, round_robin_moves_tasks_and_loses_none)
{
	/* 7 tasks of 40 iterations of about 2 ms on 3 cores, a move every 10 ms */
	struct share_group *g = group("spmd", SPMD_ARG(40, 500, 0), 7, 3, SHARE_WAIT_YIELD, SHARE_PLACE_RR);
	if (!g)
		return;
	KT_ASSERT_EQ(share_group_run(g), 0);
	check_exact(kt, g);
	KT_ASSERT(g->migrations >= 3);
	/* tasks that moved at all (a task may come back to its first core by the end, so that is no test) */
	unsigned moved = 0;
	for (unsigned r = 0; r < g->ntasks; r++)
		moved += g->tasks[r].migrations > 0;
	KT_ASSERT(moved >= 2);
	kfree(g);
}

KTEST_STANDALONE(balance, bad_groups_are_refused_and_pages_come_back)
{
	struct share_group *g = group("spmd", SPMD_ARG(2, 100, 0), 4, 2, SHARE_WAIT_SLEEP, SHARE_PLACE_SPEED);
	if (!g)
		return;
	KT_ASSERT_EQ(share_group_run(g), 0); /* warm up the heap's size classes */
	struct page_stats before, after;
	page_get_stats(&before);
	struct share_group good = *g;
	g->ntasks = 0;
	KT_ASSERT_EQ(share_group_run(g), -EINVAL);
	g->ntasks = 2 * SHARE_MAX + 1; /* more than two cores can hold */
	KT_ASSERT_EQ(share_group_run(g), -EINVAL);
	g->ntasks = 1; /* fewer tasks than cores */
	KT_ASSERT_EQ(share_group_run(g), -EINVAL);
	*g = good;
	g->wait = SHARE_WAITS;
	KT_ASSERT_EQ(share_group_run(g), -EINVAL);
	*g = good;
	g->cores[1] = g->cores[0];
	KT_ASSERT_EQ(share_group_run(g), -EINVAL);
	*g = good;
	g->cores[1] = (uint16_t)this_cpu();
	KT_ASSERT_EQ(share_group_run(g), -EPERM);
	g->cores[1] = (uint16_t)domain_master(0);
	KT_ASSERT_EQ(share_group_run(g), -EPERM);
	*g = good;
	g->name = "no-such-program";
	KT_ASSERT_EQ(share_group_run(g), -ENOENT);
	*g = good;
	KT_ASSERT_EQ(share_group_run(g), 0);
	check_exact(kt, g);
	page_get_stats(&after);
	KT_ASSERT_EQ(after.free, before.free); /* stacks, tasks and tables all given back */
	kfree(g);
}

KTEST_STANDALONE(balance, message_calls_are_refused_on_a_shared_core)
{
	uint16_t core;
	if (!share_idle_picos(&core, 1))
		return;
	/* spmd's probe exits 0 only if its send got -ENOTSUP: alone it is not refused (1) */
	struct utask_result alone;
	KT_ASSERT_EQ(utask_run_on(core, "spmd", PROBE_ARG, &alone), 0);
	KT_ASSERT_EQ(alone.status, 0);
	KT_ASSERT_EQ(alone.exit_code, 1);
	struct share_group *g = group("spmd", PROBE_ARG, 2, 1, SHARE_WAIT_SPIN, SHARE_PLACE_PINNED);
	KT_ASSERT(g != 0);
	KT_ASSERT_EQ(share_group_run(g), 0);
	KT_ASSERT_EQ(g->tasks[0].res.exit_code, 0);
	KT_ASSERT_EQ(g->tasks[1].res.exit_code, 0);
	kfree(g);
}

/* The virtual endpoints of oversubscribed jobs (drivers/noc/noc_ep.h): a run is reserved whole
 * or not at all, an endpoint is no destination until its host binds it and none once it is
 * released, the kernel channel never names one, and everything goes back. */
KTEST_STANDALONE(balance, virtual_endpoints_are_reserved_bound_and_given_back)
{
	unsigned before = noc_ep_reserved();
	KT_ASSERT_EQ(noc_ep_reserve(0), -EINVAL);
	KT_ASSERT_EQ(noc_ep_reserve(NOC_EP_VIRT_MAX + 1), -EINVAL);
	int a = noc_ep_reserve(5), b = noc_ep_reserve(3);
	KT_ASSERT(a >= NOC_EP_VIRT_BASE && b >= NOC_EP_VIRT_BASE && (b >= a + 5 || b + 3 <= a));
	KT_ASSERT_EQ(noc_ep_reserve(NOC_EP_VIRT_MAX), -ENOSPC); /* not that many left in one run */
	KT_ASSERT(!noc_ep_valid((unsigned)a));                  /* reserved, not bound: no destination */
	KT_ASSERT_EQ(noc_ep_bind((unsigned)a), 0);
	KT_ASSERT(noc_ep_valid((unsigned)a) && noc_ep_tile((unsigned)a) == this_cpu());
	KT_ASSERT_EQ(noc_ep_home((unsigned)a), this_cpu());
	KT_ASSERT_EQ(noc_ep_bind((unsigned)a), -EINVAL); /* once */
	KT_ASSERT_EQ(msg_send_typed(MSG_TYPE_DATA, a, 1, "x", 1), -ENXIO); /* the kernel channel: cores only */
	noc_ep_close((unsigned)a);
	KT_ASSERT(noc_ep_closed((unsigned)a));
	KT_ASSERT_EQ(msg_send_typed(MSG_TYPE_USER, a, 1, "x", 1), 0); /* dropped: its task is gone */
	KT_ASSERT_EQ(noc_user_mailboxes[a].used, 0);
	noc_ep_release((unsigned)a, 5);
	noc_ep_release((unsigned)b, 3);
	KT_ASSERT(!noc_ep_valid((unsigned)a) && noc_ep_tile((unsigned)a) == NOC_EP_NONE);
	KT_ASSERT(!noc_ep_valid(NOC_ENDPOINTS) && !noc_ep_valid(mesh.cores));
	KT_ASSERT_EQ(noc_ep_reserved(), before);
}

/* A job's part (share_group_start) is granted cores by the protocol, which learns that the last
 * job on a core ended before that core's call has returned: the group must accept a core that
 * is still HART_BUSY and start it once it is free (share_group_call_rest). A check that refused
 * it with -EPERM would fail a job that follows another on a loaded host; this test catches it. */
struct held_core {
	volatile uint32_t release, ended;
	volatile uint64_t release_at, ended_at;
	unsigned tester;
};

static void hold_until_released(void *arg)
{
	struct held_core *h = arg;
	core_wait_for_flag(&h->release, 1, &h->release_at);
}

static void count_core_end(struct share_group *g, unsigned k)
{
	(void)k;
	struct held_core *h = g->owner;
	core_hand_over_add(h->tester, &h->ended, &h->ended_at);
}

KTEST_STANDALONE(balance, a_started_group_takes_a_core_still_ending_a_call)
{
	struct share_group *g = group("spmd", SPMD_ARG(3, 100, 0), 3, 2, SHARE_WAIT_SLEEP, SHARE_PLACE_PINNED);
	if (!g)
		return;
	struct held_core h = {.tester = this_cpu()};
	unsigned busy = g->cores[1];
	KT_ASSERT(hart_call(busy, hold_until_released, &h));
	g->core_end = count_core_end;
	g->owner = &h;
	int started = share_group_start(g);
	bool waited = !started && !g->called[1] && !share_group_call_rest(g); /* still busy: not called yet */
	core_hand_over_flag(busy, &h.release, 1, &h.release_at); /* first: a failed check leaves no core held */
	hart_call_wait(busy);
	KT_ASSERT_EQ(started, 0);
	KT_ASSERT(waited);
	KT_ASSERT(share_group_call_rest(g));
	core_wait_for_flag(&h.ended, 2, &h.ended_at);
	for (unsigned k = 0; k < g->ncores; k++)
		hart_call_wait(g->cores[k]);
	check_exact(kt, g);
	share_group_free(g);
	kfree(g);
}
