/*
 * Teams (OctoPOS's infect): each micro-kernel starts the members that run on
 * its own cores, one user task per core. A member runs the owner's function
 * with its argument to completion, and its core tells the claim's home how it
 * ended. By default a member is an i-let: it runs in the owner's address space
 * (the owner's page tables, a stack of its own), so it sees the owner's memory
 * and nothing is loaded. With INFECT_ISOLATED it is a fresh instance of the
 * owner's program in an address space of its own, sharing no memory.
 */
#include "kernel/alloc/proto.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/panic.h"
#include "kernel/core/errno.h"
#include "kernel/task/utask.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "kernel/time/vtime.h"

/* Runs on the member's core; the last thing it does is tell the claim's home. */
static void member_main(void *arg)
{
	struct team_member *tm = arg;
	struct team_member mine = *tm;
	kfree(tm);
	struct utask_result res;
	uint64_t t_start = vtime_now_ns();
	msg_session_begin(mine.spec.session);
	if (mine.isolated)
		utask_run_entry(mine.program, mine.spec.fn, mine.spec.arg, 0, &res);
	else
		utask_run_ilet(mine.program, mine.owner_root, mine.spec.index, mine.spec.fn, mine.spec.arg, 0, &res);
	struct {
		struct alloc_hdr h;
		struct mosaic_member_result r;
	} msg = {
		.h = {.kind = AK_MEMBER_DONE, .job = mine.claim, .from = (uint16_t)this_cpu(), .count = mine.spec.index},
		.r = {.status = res.status, .value = res.status ? 0 : res.exit_code, .core = (uint16_t)this_cpu(),
		      .t_start_ns = t_start, .t_end_ns = vtime_now_ns()},
	};
	mk_send_core(0, mine.home_core, &msg.h, sizeof msg);
}

/* Hands each waiting member to its core. A core still ending its last member wakes
 * us when done; one busy with something else (a shell `run`) is tried every millisecond. */
void team_retry(struct mk *m)
{
	for (struct team_member **pp = &m->starting; *pp;) {
		struct team_member *tm = *pp;
		struct team_member *next = tm->next;
		if (hart_call(tm->spec.core, member_main, tm)) {
			*pp = next; /* tm now belongs to its core */
			continue;
		}
		pp = &tm->next;
	}
	if (m->starting)
		mk_retry_later(m);
}

void team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	const struct team_body *b = (const struct team_body *)(h + 1);
	const struct member_spec *ms = (const struct member_spec *)(b + 1);
	if (len != sizeof *h + sizeof *b + h->count * sizeof *ms) {
		check_fail("micro-kernel %u: malformed team of claim %u (%u bytes)", m->dom, h->job, len);
		return;
	}
	struct team_member **tail = &m->starting;
	while (*tail)
		tail = &(*tail)->next;
	for (uint32_t i = 0; i < h->count; i++) {
		if (domain_of(ms[i].core) != m->dom) {
			check_fail("micro-kernel %u: member on core %u of another domain", m->dom, ms[i].core);
			continue;
		}
		struct team_member *tm = kmalloc(sizeof *tm);
		if (!tm)
			panic("claim: out of memory for a team member");
		*tm = (struct team_member){.spec = ms[i], .claim = h->job, .home_core = (uint16_t)domain_master(h->home),
					   .owner = b->owner, .isolated = b->isolated != 0, .owner_root = b->owner_root};
		memcpy(tm->program, b->program, sizeof tm->program);
		tm->program[ALLOC_PROGRAM_MAX - 1] = 0;
		*tail = tm;
		tail = &tm->next;
	}
	team_retry(m);
}
