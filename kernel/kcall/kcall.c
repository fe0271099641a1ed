/*
 * The kernel-call table and the asymmetric path: a call whose side is
 * KCALL_MASTER is sent as a NoC message to the caller's domain master, which
 * serves such calls one at a time in arrival order (every core has at most one
 * call outstanding, so no core waits behind more than the other cores of its
 * domain) and replies; the caller sleeps in WFI meanwhile.
 */
#include "kernel/kcall/kcall.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "drivers/noc/noc_ep.h"
#include "kernel/console/console.h"
#include "kernel/msg/msg.h"
#include "drivers/timer.h"
#include "kernel/console/async_console.h"
#include "lib/bits.h"
#include "drivers/noc/mesh.h"
#include "lib/string.h"
#include "kernel/alloc/alloc.h"
#include "kernel/time/vtime.h"


/* Per-core heap accounts, kept by the master for its domain's cores. */
struct kcall_context {
	uint64_t heap_used, heap_limit;
};
static struct kcall_context contexts[MOSAIC_MAX_HARTS];
#define HEAP_LIMIT_DEFAULT (1024 * 1024)

static uint64_t served[MOSAIC_MAX_HARTS];
/* The callers of the last KCALL_LOG forwarded calls each master served, for the fairness test. */
static uint16_t served_log[MOSAIC_MAX_HARTS][KCALL_LOG];

struct kcall_fwd {
	uint32_t nr;
	uint32_t len;
	uint64_t args[6];
};

/* ---- handlers ---- */

/* The caller's message identity: its core, or the endpoint of a job's task time-sliced there. */
static int64_t kc_core_id(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)a, (void)d, (void)n;
	return noc_ep_self();
}

static int64_t kc_domain_id(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)a, (void)d, (void)n;
	return domain_of(caller);
}

/* The job a core runs a task of (kernel/alloc/run.c sets it; 0 and rank 0 outside a job). */
static int64_t kc_job_id(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)a, (void)d, (void)n;
	return alloc_job_ctx(caller)->job;
}

static int64_t kc_rank(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)a, (void)d, (void)n;
	return alloc_job_ctx(caller)->rank;
}

static int64_t kc_job_size(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)a, (void)d, (void)n;
	return alloc_job_ctx(caller)->size;
}

static int64_t kc_time_ns(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)a, (void)d, (void)n;
	return (int64_t)vtime_now_ns();
}

static int64_t kc_sleep_us(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)d, (void)n;
	if (a[0] > 60ULL * 1000 * 1000)
		return -EINVAL;
	vtime_sleep_until_ns(vtime_now_ns() + a[0] * 1000, 0); /* on the core's clock */
	return 0;
}

/* Runs on the master: the text arrived with the call and is printed by the
 * master's console task in its idle time (kernel/console/async_console.c). */
static int64_t kc_write(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)a;
	return async_console_write(caller, d, n);
}

/* Runs on the master, which keeps its domain's heap accounts. A negative amount
 * gives memory back: the kernel does so for a task's whole heap when it ends
 * (user tasks cannot pass one: utask_kcall.c refuses it). */
static int64_t kc_heap_grow(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)d, (void)n;
	/* a[1], set by the kernel only: 1 + the core of this domain whose account a task of a
	 * job's part is charged to, wherever it runs now (kernel/task/share/share.h) */
	if (a[1] && a[1] <= hart_count && domain_of((unsigned)a[1] - 1) == domain_of(caller))
		caller = (unsigned)a[1] - 1;
	struct kcall_context *c = &contexts[caller];
	int64_t delta = (int64_t)a[0];
	uint64_t limit = c->heap_limit ? c->heap_limit : HEAP_LIMIT_DEFAULT;
	if (delta < 0) {
		c->heap_used = (uint64_t)-delta > c->heap_used ? 0 : c->heap_used + delta;
		return (int64_t)c->heap_used;
	}
	if ((uint64_t)delta > limit || c->heap_used + (uint64_t)delta > limit)
		return -ENOMEM;
	c->heap_used += (uint64_t)delta;
	return (int64_t)c->heap_used;
}

static int64_t kc_send(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)d, (void)n;
	return msg_send((int)a[0], (int)a[1], (const void *)a[2], (uint32_t)a[3]);
}

static int64_t kc_trysend(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)d, (void)n;
	return msg_trysend((int)a[0], (int)a[1], (const void *)a[2], (uint32_t)a[3]);
}

static int64_t kc_recv(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)d, (void)n;
	return msg_recv((int)a[0], (int)a[1], (void *)a[2], (uint32_t)a[3], (struct mosaic_status *)a[4]);
}

static int64_t kc_tryrecv(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)d, (void)n;
	return msg_tryrecv((int)a[0], (int)a[1], (void *)a[2], (uint32_t)a[3], (struct mosaic_status *)a[4]);
}

static int64_t kc_probe(unsigned caller, const uint64_t *a, const void *d, uint32_t n)
{
	(void)caller, (void)d, (void)n;
	return msg_probe((int)a[0], (int)a[1], a[2] != 0, (struct mosaic_status *)a[3]);
}

const struct kcall_desc kcall_table[KC_COUNT] = {
#define KCALL(NAME, name, nr, side, share, args, does, checks) \
	[KC_##NAME] = {#name, KCALL_##side, KCALL_SHARE_##share},
#include "portable/abi/kcalls.h"
#undef KCALL
};

/* The kernel's own handlers, for the calls kernel code makes through kcall(); the others
 * serve user tasks only (kernel/task/utask_kcall.c) and answer -ENOSYS here. */
typedef int64_t kcall_fn(unsigned caller, const uint64_t *args, const void *data, uint32_t len);
static kcall_fn *const kcall_handlers[KC_COUNT] = {
	[KC_WRITE] = kc_write,
	[KC_CORE_ID] = kc_core_id,
	[KC_DOMAIN_ID] = kc_domain_id,
	[KC_JOB_ID] = kc_job_id,
	[KC_RANK] = kc_rank,
	[KC_TIME_NS] = kc_time_ns,
	[KC_SLEEP_US] = kc_sleep_us,
	[KC_HEAP_GROW] = kc_heap_grow,
	[KC_SEND] = kc_send,
	[KC_TRYSEND] = kc_trysend,
	[KC_RECV] = kc_recv,
	[KC_TRYRECV] = kc_tryrecv,
	[KC_PROBE] = kc_probe,
	[KC_JOB_SIZE] = kc_job_size,
};

/* ---- the forwarded path ---- */

/* Requests with at most this much data are built and received on the stack: the common
 * case (every handler of the table takes its arguments only) needs no heap. */
#define KCALL_STACK_DATA 200
#define KCALL_STACK_MSG (sizeof(struct kcall_fwd) + KCALL_STACK_DATA)

static int64_t forward(unsigned me, unsigned nr, const uint64_t *args, const void *data, uint32_t len)
{
	if (len > NOC_MAX_BODY - sizeof(struct kcall_fwd))
		return -EMSGSIZE;
	uint64_t on_stack[KCALL_STACK_MSG / 8];
	uint8_t *msg = len <= KCALL_STACK_DATA ? (uint8_t *)on_stack : kmalloc(sizeof(struct kcall_fwd) + len);
	if (!msg)
		return -ENOMEM;
	struct kcall_fwd *f = (struct kcall_fwd *)msg;
	f->nr = nr;
	f->len = len;
	memcpy(f->args, args, sizeof f->args);
	if (len)
		memcpy(msg + sizeof *f, data, len);
	unsigned master = domain_master(domain_of(me));
	int64_t ret = 0;
	/* the plain send and receive: their fast paths are the common case here */
	int e = msg_send_typed(MSG_TYPE_KCALL, (int)master, (int)nr, msg, sizeof *f + len);
	if (msg != (uint8_t *)on_stack)
		kfree(msg);
	if (!e)
		e = msg_recv_typed(MSG_TYPE_KCALL_REPLY, (int)master, (int)nr, &ret, sizeof ret, 0);
	return e ? e : ret;
}

int64_t kcall(unsigned nr, const uint64_t *args, const void *data, uint32_t len)
{
	if (nr >= KC_COUNT || !kcall_handlers[nr])
		return -ENOSYS;
	unsigned me = this_cpu();
	if (kcall_table[nr].side == KCALL_MASTER && !is_master(me))
		return forward(me, nr, args, data, len);
	return kcall_handlers[nr](me, args, data, len);
}

/*
 * Serves one waiting call, taking the callers of the domain in turn (round robin
 * from the one after the last served): with each core having at most one call
 * outstanding, a call that is visible when its core's turn comes waits for at
 * most one call of every other core, and one still on its way for one more round.
 * Calls are taken where they are, in the mailbox or the unhandled queue. The
 * mailbox is drained first only when a sender waits for a credit, so that every
 * waiting call is seen, not only the ones that won a slot.
 */
bool master_serve_one(void)
{
	static uint16_t last_served[MOSAIC_MAX_HARTS];
	unsigned me = this_cpu();
	if (!is_master(me))
		return false;
	bool crowded = msg_credit_waiters();
	if (!crowded && !msg_maybe_pending(MSG_TYPE_KCALL))
		return false; /* nothing waiting: the common case when a master wakes */
	if (crowded)
		msg_drain(); /* every visible call is now in the unhandled queue, in arrival order */
	uint64_t waiting[MOSAIC_MAX_HARTS / 64];
	if (!msg_pending_sources(MSG_TYPE_KCALL, waiting))
		return false;
	const struct domain *d = &layout.domains[domain_of(me)];
	unsigned w = d->x1 - d->x0, n = d->ncores, start = last_served[me];
	/* The waiting caller that comes first after the last one served, in the domain's order
	 * (its k-th core, row by row). Walked by the set bits (nearly always one), not over the
	 * domain's cores from `start`: a walk over every core costs instructions on each core. */
	int source = -1;
	unsigned first = n, first_k = 0;
	for (unsigned word = 0; word < MOSAIC_MAX_HARTS / 64; word++)
		for (uint64_t bits = waiting[word]; bits; bits &= bits - 1) {
			unsigned c = word * 64 + lowest_bit(bits);
			if (domain_of(c) != d->id)
				continue; /* a call from outside the domain: not ours to serve */
			unsigned k = (mesh_tiles[c].y - d->y0) * w + (mesh_tiles[c].x - d->x0);
			unsigned after = (k + n - start - 1) % n; /* 0: the core right after the last served */
			if (after < first) {
				first = after;
				first_k = k;
				source = (int)c;
			}
		}
	if (source < 0)
		return false; /* only calls from outside the domain: not ours to serve */
	last_served[me] = (uint16_t)first_k;
	uint64_t on_stack[KCALL_STACK_MSG / 8];
	uint8_t *msg = (uint8_t *)on_stack;
	struct mosaic_status st = {.source = source};
	int64_t ret;
	int e = msg_recv_typed(MSG_TYPE_KCALL, source, MSG_ANY_TAG, msg, sizeof on_stack, &st);
	if (e == -EOVERFLOW) { /* a call with more data than the stack holds: it is still queued */
		msg = kmalloc(st.len);
		if (!msg)
			return false; /* it stays queued; served when memory is back */
		e = msg_recv_typed(MSG_TYPE_KCALL, source, MSG_ANY_TAG, msg, st.len, &st);
	}
	if (e) {
		ret = e;
	} else {
		struct kcall_fwd *f = (struct kcall_fwd *)msg;
		bool ok = st.len >= sizeof *f && f->nr < KC_COUNT && kcall_table[f->nr].side == KCALL_MASTER &&
			  kcall_handlers[f->nr] && sizeof *f + f->len == st.len;
		ret = ok ? kcall_handlers[f->nr]((unsigned)st.source, f->args, msg + sizeof *f, f->len) : -ENOSYS;
	}
	if (msg != (uint8_t *)on_stack)
		kfree(msg);
	served_log[me][served[me] % KCALL_LOG] = (uint16_t)st.source;
	served[me]++;
	msg_send_typed(MSG_TYPE_KCALL_REPLY, st.source, st.tag, &ret, sizeof ret);
	return true;
}

uint64_t master_calls_served(unsigned core) { return served[core]; }

unsigned master_served_caller(unsigned core, uint64_t i) { return served_log[core][i % KCALL_LOG]; }
