/*
 * The owner's side of a claim: the kernel calls of a user task that invades,
 * infects and retreats. Each one is a message to the micro-kernel of the
 * owner's domain (claim.c) and a wait for its answer, in WFI. The owner core
 * keeps its own view of the claim, the cores in claim order (member i of a team
 * runs on core i); only that core touches it.
 */
#include "kernel/alloc/proto.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/errno.h"
#include "kernel/task/utask.h"
#include "drivers/noc/mesh.h"
#include "lib/string.h"

struct owner_view {
	uint32_t n;
	uint16_t cores[MOSAIC_MAX_HARTS];
	bool team;        /* a team was started and not yet waited for */
	uint32_t members;
};
static struct owner_view views[MOSAIC_MAX_HARTS]; /* views[c]: written by core c only */

/* Waits for the micro-kernel's answer with this tag: its result, and its body into `body`
 * (cap bytes at most; the answers are sized by the calls that expect them). */
static int64_t await_answer(int tag, void *body, uint32_t cap)
{
	unsigned me = this_cpu();
	uint32_t size = sizeof(int64_t) + cap;
	uint64_t on_stack[(sizeof(int64_t) + MOSAIC_MAX_HARTS * sizeof(uint16_t)) / 8]; /* an invade's answer fits */
	uint8_t *msg = size <= sizeof on_stack ? (uint8_t *)on_stack : kmalloc(size);
	if (!msg)
		return -ENOMEM; /* the answer stays queued for the next wait with this tag */
	struct msg_request req;
	struct mosaic_status st;
	int e = msg_irecv_typed(MSG_TYPE_CLAIM, (int)domain_master(domain_of(me)), tag, msg, size, &req);
	/* a team's end may never come while its owner is being killed: that wait gives up
	 * (claim_owner_end then kills the members and waits again) */
	req.interruptible = tag == CLAIM_TAG_TEAM;
	if (!e)
		e = msg_wait(&req, &st);
	int64_t r = e;
	if (!e) {
		memcpy(&r, msg, sizeof r);
		if (body && st.len > sizeof r)
			memcpy(body, msg + sizeof r, st.len - sizeof r);
	}
	if (msg != (uint8_t *)on_stack)
		kfree(msg);
	return r;
}

/* Sends a request to the micro-kernel of this core's domain and waits for its answer. */
static int64_t ask(struct alloc_hdr *h, uint32_t len, int tag, void *body, uint32_t cap)
{
	unsigned me = this_cpu();
	h->from = (uint16_t)me;
	mk_send_core(0, domain_master(domain_of(me)), h, len);
	return await_answer(tag, body, cap);
}

static bool usable(void)
{
	return !layout.partial && alloc_running && !is_master(this_cpu());
}

int64_t claim_invade(uint32_t n, unsigned props, uint16_t *got)
{
	struct owner_view *v = &views[this_cpu()];
	if (!usable())
		return -ENOTSUP;
	if (!n || props > INVADE_ANYWHERE)
		return -EINVAL;
	if (n > mesh.cores)
		n = mesh.cores; /* asking for more than the machine has: what there is */
	if (v->team)
		return -EBUSY;
	struct alloc_hdr h = {.kind = AK_INVADE, .count = n, .flags = props == INVADE_ANYWHERE ? AF_ANYWHERE : 0};
	uint16_t cores[MOSAIC_MAX_HARTS];
	int64_t r = ask(&h, sizeof h, CLAIM_TAG_INVADE, cores, sizeof cores);
	if (r <= 0)
		return r;
	for (int64_t i = 0; i < r; i++) {
		v->cores[v->n++] = cores[i];
		if (got)
			got[i] = cores[i];
	}
	return r;
}

int64_t claim_retreat(const uint16_t *cores, uint32_t n)
{
	struct owner_view *v = &views[this_cpu()];
	if (!usable())
		return -ENOTSUP;
	if (!n || n > MOSAIC_MAX_HARTS)
		return -EINVAL;
	if (v->team)
		return -EBUSY;
	uint64_t mask[2] = {0, 0};
	for (uint32_t i = 0; i < n; i++) {
		if (cores[i] >= mesh.cores || mask_has(mask, cores[i]))
			return -EINVAL;
		mask_set(mask, cores[i]);
	}
	struct alloc_hdr h = {.kind = AK_RETREAT, .count = n, .mask = {mask[0], mask[1]}};
	int64_t r = ask(&h, sizeof h, CLAIM_TAG_RETREAT, 0, 0);
	if (r < 0)
		return r;
	uint32_t k = 0;
	for (uint32_t i = 0; i < v->n; i++)
		if (!mask_has(mask, v->cores[i]))
			v->cores[k++] = v->cores[i];
	v->n = k;
	return r;
}

int64_t claim_infect(const char *program, const struct team_entry *team, uint32_t n, bool isolated,
		     uint64_t owner_root)
{
	struct owner_view *v = &views[this_cpu()];
	if (!usable())
		return -ENOTSUP;
	if (n > MOSAIC_MAX_HARTS || strlen(program) >= ALLOC_PROGRAM_MAX)
		return -EINVAL;
	if (v->team)
		return -EBUSY; /* the last team's results are not collected yet (found by the fuzzer, seed 107) */
	uint32_t len = sizeof(struct alloc_hdr) + sizeof(struct team_body) + n * sizeof(struct member_spec);
	uint8_t *msg = kmalloc(len);
	if (!msg)
		return -ENOMEM;
	memset(msg, 0, len);
	struct alloc_hdr *h = (struct alloc_hdr *)msg;
	struct team_body *b = (struct team_body *)(h + 1);
	struct member_spec *ms = (struct member_spec *)(b + 1);
	*h = (struct alloc_hdr){.kind = AK_INFECT, .count = n};
	strlcpy(b->program, program, sizeof b->program);
	b->owner = (uint16_t)this_cpu();
	b->isolated = isolated;
	b->owner_root = owner_root;
	/* the micro-kernel judges the claim (empty, busy, sizes); the cores come from this view */
	for (uint32_t i = 0; i < n; i++)
		ms[i] = (struct member_spec){.fn = team[i].fn, .arg = team[i].arg,
					     .core = i < v->n ? v->cores[i] : (uint16_t)mesh.cores, .index = (uint16_t)i, .session = msg_session()};
	int64_t r = ask(h, len, CLAIM_TAG_INFECT, 0, 0);
	kfree(msg);
	if (r == 0) {
		v->team = true;
		v->members = n;
	}
	return r;
}

int64_t claim_team_wait(struct mosaic_member_result *out, uint32_t cap)
{
	struct owner_view *v = &views[this_cpu()];
	if (!v->team || cap < v->members)
		return -EINVAL;
	int64_t r = await_answer(CLAIM_TAG_TEAM, out, v->members * sizeof(struct mosaic_member_result));
	if (r != -ENOMEM && r != -EINTR)
		v->team = false;
	return r;
}

uint32_t claim_cores(uint16_t *out, uint32_t cap)
{
	struct owner_view *v = &views[this_cpu()];
	for (uint32_t i = 0; i < v->n && i < cap; i++)
		out[i] = v->cores[i];
	return v->n;
}

void claim_owner_end(bool killed)
{
	struct owner_view *v = &views[this_cpu()];
	if (v->team && killed) /* its members die with it (they run in its session) */
		for (uint32_t i = 0; i < v->members && i < v->n; i++)
			utask_kill(v->cores[i], msg_session());
	if (v->team) {
		struct mosaic_member_result *res = kmalloc(v->members * sizeof *res);
		if (res) /* without memory the answer stays queued; the next owner here never asks for it */
			claim_team_wait(res, v->members);
		kfree(res);
	}
	if (v->n)
		claim_retreat(v->cores, v->n);
	*v = (struct owner_view){0};
}
