/*
 * The protocol core's environment in the kernel (portable/alloc/proto_env.h):
 * a micro-kernel sends its protocol messages on the NoC, reads its core's virtual
 * clock, gets its timers from its own dispatcher, starts a job's tasks on its
 * pico-kernels (run.c) and reports to the observers (observe.c). Also Algorithm
 * 1's receive step in the idle loop (alloc_step), which hands each message to
 * the core, or to invasive computing (claim.c, team.c) for the kinds that are
 * the kernel's own.
 */
#include <stdarg.h>
#include "kernel/alloc/proto.h"
#include "portable/alloc/proto_env.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/panic.h"
#include "kernel/core/errno.h"
#include "kernel/console/console.h"
#include "kernel/dispatch/dispatcher.h"
#include "drivers/noc/mesh.h"
#include "drivers/noc/noc_ep.h"
#include "drivers/timer.h"
#include "lib/format.h"
#include "lib/string.h"
#include "kernel/time/vtime.h"
#include "kernel/task/uargs.h"

struct mk mks[MOSAIC_MAX_HARTS];
struct proto_world alloc_world;
static uint16_t world_x[MOSAIC_MAX_HARTS], world_y[MOSAIC_MAX_HARTS], world_dom[MOSAIC_MAX_HARTS],
	world_master[MOSAIC_MAX_HARTS];

static struct mk *mk_of(unsigned dom);

/* The layout of domains never changes after boot: the world is filled once. */
void alloc_world_init(void)
{
	for (unsigned c = 0; c < mesh.cores; c++) {
		world_x[c] = (uint16_t)mesh_tiles[c].x;
		world_y[c] = (uint16_t)mesh_tiles[c].y;
		world_dom[c] = (uint16_t)domain_of(c);
	}
	for (unsigned d = 0; d < layout.ndomains; d++)
		world_master[d] = (uint16_t)domain_master(d);
	alloc_world = (struct proto_world){.dx = layout.dx, .dy = layout.dy, .ndomains = layout.ndomains,
					   .partial = layout.partial, .ncores = mesh.cores, .core_x = world_x,
					   .core_y = world_y, .core_dom = world_dom, .master = world_master,
					   .cfg = &alloc_cfg};
	alloc_world.sequencer = proto_centre_domain(&alloc_world);
	/* at boot, before any master serves: what a micro-kernel keeps for good (its wait queue) is
	 * then in the heap before the first job, and a leak check that compares the objects in use
	 * before and after jobs (scripts/mosaic-fuzz) sees only what the jobs left behind */
	for (unsigned d = 0; d < layout.ndomains; d++)
		mk_of(d);
}

unsigned sequencer_dom(void) { return alloc_world.sequencer; }

uint32_t alloc_domain_cores(unsigned dom)
{
	return layout.partial ? layout.vcores : (uint32_t)layout.domains[dom].ncores - 1;
}

uint32_t alloc_machine_cores(void)
{
	uint32_t n = 0;
	for (unsigned d = 0; d < layout.ndomains; d++)
		n += alloc_domain_cores(d);
	return n;
}

/* Domain dom's micro-kernel state, made on first use (alloc_world_init makes all of them at boot). */
static struct mk *mk_of(unsigned dom)
{
	struct mk *m = &mks[dom];
	if (m->ready)
		return m;
	uint64_t free[PROTO_MASK_WORDS] = {0};
	unsigned master = domain_master(dom);
	if (!layout.partial) {
		const struct domain *d = &layout.domains[dom];
		for (unsigned y = d->y0; y < d->y1; y++)
			for (unsigned x = d->x0; x < d->x1; x++)
				if (mesh_core_at(x, y) != master)
					mask_set(free, mesh_core_at(x, y));
	}
	proto_mk_init(m, &alloc_world, dom, master, alloc_domain_cores(dom), free);
	return m;
}

struct mk *mk_self(void) { return mk_of(domain_of(this_cpu())); }

/* ---- messages ---- */

void mk_send_core(struct mk *m, unsigned core, struct alloc_hdr *h, uint32_t len)
{
	(void)m;
	/* A traced send is stamped before it leaves, as the send takes its send time no earlier (a
	 * credit it waits for moves that later): a receive is then never closer to its send than
	 * the NoC's latency. Untraced, the bookkeeping follows the send, off the message's path. */
	bool traced = alloc_trace_recorded();
	if (traced)
		trace_event(TR_SEND, h->job, core, (uint64_t)h->kind << 32 | mesh_hops(this_cpu(), core));
	int e = msg_send_typed(MSG_TYPE_ALLOC, (int)core, h->kind, h, len);
	ASSERT(e == 0); /* cores and lengths are the kernel's own: a failure is a bug */
	unsigned hops = mesh_hops(this_cpu(), core);
	if (!traced)
		trace_event(TR_SEND, h->job, core, (uint64_t)h->kind << 32 | hops);
	if (h->kind != AK_SUBMIT)
		stats_msg(h->job, h->kind, hops);
}

void penv_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len)
{
	mk_send_core(m, domain_master(to_dom), h, len);
}

uint64_t penv_now(struct mk *m)
{
	(void)m;
	return vtime_now_ns();
}

/* ---- timers: one dispatcher task each on the micro-kernel's own core ---- */

struct ktimer {
	struct ktimer *next;
	struct task task;
	struct proto_timer *t;
};
static struct ktimer *ktimers[MOSAIC_MAX_HARTS]; /* per micro-kernel, its own */

static int ktimer_fire(struct task *task)
{
	struct ktimer *k = (struct ktimer *)task->args[0];
	proto_timer_fired(mk_self(), k->t);
	return TASK_RET_SUCCESS;
}

/* Frees the timers the dispatcher is done with (it sets `done` last, after its last touch). */
static void ktimers_sweep(struct mk *m)
{
	for (struct ktimer **pp = &ktimers[m->dom]; *pp;) {
		struct ktimer *k = *pp;
		if (!__atomic_load_n(&k->task.done, __ATOMIC_ACQUIRE)) {
			pp = &k->next;
			continue;
		}
		*pp = k->next;
		kfree(k);
	}
}

bool penv_timer(struct mk *m, struct proto_timer *t, uint64_t at_ns)
{
	ktimers_sweep(m);
	struct ktimer *k = kmalloc(sizeof *k);
	if (!k)
		panic("alloc: out of memory for a timer");
	memset(k, 0, sizeof *k);
	k->t = t;
	uint64_t args[1] = {(uint64_t)k};
	task_init(&k->task, ktimer_fire, args, 1);
	uint64_t now = vtime_now_ns();
	task_set_timing(&k->task, at_ns > now ? timer_ns_to_ticks_ceil(at_ns) - timer_ns_to_ticks_ceil(now) : 0, 0);
	if (task_dispatch(&k->task, this_cpu())) {
		kfree(k);
		return false;
	}
	k->next = ktimers[m->dom];
	ktimers[m->dom] = k;
	return true;
}

/* ---- ends of jobs ---- */

void penv_report(struct mk *m, const struct home_job *j)
{
	/* a few KiB (its holds): from the heap, since a micro-kernel may run this from the idle loop
	 * of a waiting kernel call, deep in its stack */
	struct job_report *rp = kmalloc(sizeof *rp);
	if (!rp)
		panic("alloc: out of memory for the report of job %u", j->id);
	struct job_report *r = rp;
	/* duration_us: the run time a simulated job was given; a real-task job's tasks ran from its
	 * start (the last task's) to its end */
	*r = (struct job_report){.job = j->id, .home = m->dom, .status = j->failed_tasks ? JOB_TASK_FAILED : JOB_OK,
				 .ntasks = j->spec.ntasks, .tag = j->spec.tag, .t_submit_ns = j->t_submit,
				 .t_alloc_ns = j->t_alloc, .t_start_ns = j->t_start, .t_end_ns = j->t_end,
				 .duration_us = m->w->partial ? j->spec.duration_us : (j->t_end - j->t_start) / 1000,
				 .arg = j->spec.arg, .cancels = j->cancels, .attempts = j->attempts,
				 .failed_tasks = j->failed_tasks, .exit_code = j->exit_code,
				 .nparts = (uint16_t)j->nparts, .global = j->global};
	memcpy(r->program, j->spec.program, sizeof r->program);
	_Static_assert(MOSAIC_MAX_HARTS <= PROTO_MASK_CORES, "a job's holds fit its report");
	r->nholds = j->nholds <= MOSAIC_MAX_HARTS ? j->nholds : MOSAIC_MAX_HARTS; /* at most its cores or domains */
	memcpy(r->holds, j->holds, r->nholds * sizeof r->holds[0]);
	memcpy(r->cores, j->held, sizeof r->cores);
	for (unsigned i = 0; i < j->nparts; i++)
		r->domain_cores[j->assign[i].mk] = j->assign[i].count;
	stats_job_get(j->id, &r->msgs, &r->hops);
	uargs_free((struct uargs *)j->spec.args); /* every task of it has ended */
	if (job_oversubscribed(&j->spec))
		noc_ep_release(j->spec.ep_first, j->spec.ntasks); /* every task of it has ended */
	struct msg_request req;
	int e = msg_isend_typed(MSG_TYPE_ALLOC_REPORT, j->submitter, j->spec.report_tag, r, sizeof *r, false, &req);
	if (!e)
		e = msg_wait(&req, 0);
	ASSERT(e == 0);
	kfree(rp);
}

void penv_ping_done(struct mk *m, int requester, uint64_t ns, uint32_t reached)
{
	(void)m;
	struct ping_result r = {ns, reached, 0};
	struct msg_request req;
	int e = msg_isend_typed(MSG_TYPE_ALLOC_REPORT, requester, ALLOC_REPORT_PING, &r, sizeof r, false, &req);
	if (!e)
		msg_wait(&req, 0);
}

/* ---- invasive computing ---- */

bool penv_core_busy(struct mk *m, unsigned core)
{
	(void)m;
	return harts[core].state != HART_ONLINE || harts[core].call_fn || harts[core].utask;
}

/* Sends a reply to the claim's owner core: a result, then any body. */
void penv_claim_reply(struct mk *m, unsigned owner, int tag, int64_t result, const void *body, uint32_t len)
{
	(void)m;
	uint64_t on_stack[(sizeof result + MOSAIC_MAX_HARTS * sizeof(uint16_t)) / 8]; /* an invade's cores fit */
	uint8_t *msg = sizeof result + len <= sizeof on_stack ? (uint8_t *)on_stack : kmalloc(sizeof result + len);
	if (!msg)
		panic("claim: out of memory for a reply");
	memcpy(msg, &result, sizeof result);
	if (len)
		memcpy(msg + sizeof result, body, len);
	int e = msg_send_typed(MSG_TYPE_CLAIM, (int)owner, tag, msg, sizeof result + len);
	ASSERT(e == 0);
	if (msg != (uint8_t *)on_stack)
		kfree(msg);
}

void penv_team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len) { team_start(m, h, len); }

void penv_member_failed(struct mk *m, uint32_t claim, uint32_t index, const struct mosaic_member_result *r, unsigned owner)
{
	(void)m;
	kprintf("mosaic: claim %u: member %u on core %u %s%s%s; reported to its owner, core %u\n", claim, index,
		r->core, r->status == -EFAULT ? "was killed" : "could not start (",
		r->status == -EFAULT ? "" : kstrerror(r->status), r->status == -EFAULT ? "" : ")", owner);
}

/* ---- observers ---- */

void penv_trace(struct mk *m, unsigned kind, uint32_t job, unsigned peer, uint64_t arg)
{
	(void)m;
	if (kind == TR_SUBMIT)
		stats_job_reset(job);
	trace_event(kind, job, peer, arg);
}

void penv_hold(struct mk *m, uint32_t job, const uint64_t *mask, uint32_t count, bool take)
{
	if (take)
		check_claim(job, m->dom, mask, count);
	else
		check_release(job, m->dom, mask, count);
}

void penv_fail(struct mk *m, const char *fmt, ...)
{
	(void)m;
	va_list ap;
	va_start(ap, fmt);
	check_fail_v(fmt, ap);
	va_end(ap);
}

void penv_log(struct mk *m, const char *fmt, ...)
{
	(void)m;
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
}

void penv_panic(struct mk *m, const char *fmt, ...)
{
	(void)m;
	char buf[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	panic("%s", buf);
}

void *penv_alloc(size_t bytes) { return kmalloc(bytes); }
void penv_free(void *p) { kfree(p); }

/* ---- Algorithm 1 in the idle loop ---- */

volatile bool alloc_running;

/*
 * Algorithm 1, one turn: a non-blocking receive of the fixed-size header (a
 * probe), then the whole message and its handler; the periodic procedure runs
 * whenever something changed. With nothing to do the core goes back to its
 * idle wait, which sleeps in WFI until the next message is delivered.
 */
bool alloc_step(void)
{
	static bool inside[MOSAIC_MAX_HARTS];
	unsigned me = this_cpu();
	if (!alloc_running || !is_master(me) || inside[me])
		return false;
	inside[me] = true;
	struct mk *m = mk_self();
	bool did = false;
	struct mosaic_status st;
	/* the hint first: most passes of an idle loop find no protocol message, and a probe
	 * would look through the mailbox under its lock to say so. With one, the probe takes the
	 * oldest arrival from any source, which is right only if nothing older can still come:
	 * settle first (a no-op on the serial clock), as a task's receive from any source does */
	bool visible = false;
	if (msg_maybe_pending(MSG_TYPE_ALLOC)) {
		vtime_settle_poll();
		visible = msg_probe_typed(MSG_TYPE_ALLOC, MSG_ANY_SOURCE, MSG_ANY_TAG, false, &st) == 0;
	}
	if (visible) {
		uint8_t *buf = kmalloc(st.len ? st.len : 1);
		if (!buf)
			panic("alloc: out of memory for a %u-byte message", st.len);
		struct msg_request req;
		int e = msg_irecv_typed(MSG_TYPE_ALLOC, st.source, st.tag, buf, st.len, &req);
		if (!e)
			e = msg_wait(&req, &st);
		ASSERT(e == 0);
		struct alloc_hdr *h = (struct alloc_hdr *)buf;
		if (st.len >= sizeof *h) {
			trace_event(TR_RECV, h->job, (unsigned)st.source, (uint64_t)h->kind << 32 | st.hops);
			proto_receive(m, h, st.len);
		} else {
			kprintf("alloc: micro-kernel %u dropped a %u-byte message from core %d\n", m->dom, st.len,
				st.source);
		}
		kfree(buf);
		did = true;
	}
	if (proto_settle(m)) {
		if (run_start_pending(m))
			mk_retry_later(m);
		did = true;
	}
	if (m->starting)
		team_retry(m); /* a member's core was still ending its last call; it wakes us when done */
	if (ktimers[m->dom])
		ktimers_sweep(m);
	inside[me] = false;
	return did;
}
