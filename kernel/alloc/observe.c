/*
 * Watching the protocol from outside: message statistics, the event trace and the
 * invariant checks. These are observers: the micro-kernels write to them, but no
 * protocol decision ever reads them, so the protocol itself still shares no memory.
 * Every table here is indexed so that each entry has one writer (the core or
 * micro-kernel it belongs to), except the counters, which are atomic.
 */
#include <stdarg.h>
#include "kernel/alloc/proto.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/domain/domain.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/poweroff.h"
#include "kernel/console/shell.h"
#include "drivers/timer.h"
#include "lib/format.h"
#include "lib/string.h"
#include "kernel/time/vtime.h"

/* ---- statistics ---- */

uint64_t alloc_kind_msgs[AK_KINDS], alloc_kind_hops[AK_KINDS];

#define JOB_SLOTS (MOSAIC_MAX_HARTS * 64) /* 64 jobs in flight per home before a slot is reused */
static struct {
	uint32_t job, msgs, hops;
} job_stats[JOB_SLOTS];

static unsigned slot_of(uint32_t job) { return (job_home(job) * 64 + (job & 63)) % JOB_SLOTS; }

void stats_msg(uint32_t job, unsigned kind, unsigned hops)
{
	__atomic_fetch_add(&alloc_kind_msgs[kind], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&alloc_kind_hops[kind], hops, __ATOMIC_RELAXED);
	if (!job)
		return;
	unsigned s = slot_of(job);
	if (__atomic_load_n(&job_stats[s].job, __ATOMIC_RELAXED) != job)
		return;
	__atomic_fetch_add(&job_stats[s].msgs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&job_stats[s].hops, hops, __ATOMIC_RELAXED);
}

void stats_job_reset(uint32_t job)
{
	unsigned s = slot_of(job);
	__atomic_store_n(&job_stats[s].msgs, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&job_stats[s].hops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&job_stats[s].job, job, __ATOMIC_RELEASE);
}

void stats_job_get(uint32_t job, uint32_t *msgs, uint32_t *hops)
{
	unsigned s = slot_of(job);
	bool ok = job_stats[s].job == job;
	*msgs = ok ? job_stats[s].msgs : 0;
	*hops = ok ? job_stats[s].hops : 0;
}

/* ---- trace ---- */

static uint64_t trace_depth; /* events kept per core, 0: no trace */
BOOTARG_U64("alloc_trace", trace_depth, 0, 1 << 20,
	    "record every allocation message and job event (this many per core) and print them at power-off");

struct trace_rec {
	uint64_t t;
	uint64_t arg;
	uint32_t job;
	int32_t peer;
	uint16_t kind;
};
static struct {
	struct trace_rec *ring;
	uint64_t n;       /* events recorded (the ring keeps the first trace_depth) */
	uint64_t dropped;
} traces[MOSAIC_MAX_HARTS];

static const char *const trace_names[] = {
	[TR_SEND] = "send", [TR_RECV] = "recv", [TR_SUBMIT] = "submit", [TR_BEGIN] = "begin",
	[TR_COMMIT] = "commit", [TR_CANCEL] = "cancel", [TR_SATISFIED] = "satisfied", [TR_START] = "start",
	[TR_END] = "end", [TR_REPORT] = "report",
};

/* Every core's ring is made at boot, before the clocks start: a ring made at a core's first event
 * would cost that core tens of microseconds of its own clock inside the run it records (and
 * between the event and its stamp). A core left without one counts its events as dropped. */
void alloc_trace_init(void)
{
	if (!trace_depth)
		return;
	unsigned without = 0;
	for (unsigned c = 0; c < hart_count; c++)
		without += !(traces[c].ring = kmalloc(trace_depth * sizeof *traces[c].ring));
	if (without)
		kprintf("alloc_trace: no memory for %lu events on %u of %u cores: their events are dropped "
			"(TRACE_END counts them)\n", trace_depth, without, hart_count);
}

void trace_event(unsigned kind, uint32_t job, unsigned peer, uint64_t arg)
{
	watchdog_note_event(kind);
	if (!trace_depth)
		return;
	uint64_t t = vtime_now_ns();
	__typeof__(traces[0]) *tr = &traces[this_cpu()];
	if (!tr->ring || tr->n >= trace_depth) {
		tr->dropped++;
		return;
	}
	tr->ring[tr->n++] = (struct trace_rec){t, arg, job, (int32_t)peer, (uint16_t)kind};
}

bool alloc_trace_recorded(void) { return trace_depth != 0; }

static void trace_print(const char *prefix, unsigned core, const struct trace_rec *r)
{
	bool msg = r->kind == TR_SEND || r->kind == TR_RECV;
	kprintf("%s%lu %u %s %s %u %d %lu\n", prefix, r->t, core, trace_names[r->kind],
		msg ? alloc_kind_name((unsigned)(r->arg >> 32)) : "-", r->job, r->peer,
		msg ? (r->arg & 0xffffffff) : r->arg);
}

/* The last `count` events recorded, all cores merged in time order (indented, so that
 * scripts/alloc-trace does not take them for the trace itself). */
void alloc_trace_print_tail(unsigned count)
{
	uint64_t pos[MOSAIC_MAX_HARTS];
	uint16_t pick_core[64];
	uint64_t pick_idx[64];
	unsigned picked = 0, full = 0;
	if (count > 64)
		count = 64;
	for (unsigned c = 0; c < hart_count; c++) {
		pos[c] = __atomic_load_n(&traces[c].n, __ATOMIC_ACQUIRE);
		full += traces[c].dropped != 0;
	}
	while (picked < count) { /* walk back from the end, latest event first */
		int best = -1;
		for (unsigned c = 0; c < hart_count; c++)
			if (pos[c] && (best < 0 || traces[c].ring[pos[c] - 1].t > traces[best].ring[pos[best] - 1].t))
				best = (int)c;
		if (best < 0)
			break;
		pick_core[picked] = (uint16_t)best;
		pick_idx[picked++] = --pos[best];
	}
	kprintf("alloc: the last %u trace events (t core event kind job peer arg)%s:\n", picked,
		full ? "; some cores stopped recording, their rings are full (alloc_trace=N)" : "");
	while (picked--)
		trace_print("  trace ", pick_core[picked], &traces[pick_core[picked]].ring[pick_idx[picked]]);
}

/* Prints every core's events merged in time order: "TRACE t core event kind job peer arg". */
void alloc_trace_dump(void)
{
	uint64_t pos[MOSAIC_MAX_HARTS] = {0}, printed = 0, dropped = 0;
	for (unsigned c = 0; c < hart_count; c++)
		dropped += traces[c].dropped;
	for (;;) {
		int best = -1;
		for (unsigned c = 0; c < hart_count; c++)
			if (pos[c] < traces[c].n && (best < 0 || traces[c].ring[pos[c]].t < traces[best].ring[pos[best]].t))
				best = (int)c;
		if (best < 0)
			break;
		trace_print("TRACE ", (unsigned)best, &traces[best].ring[pos[best]++]);
		printed++;
	}
	kprintf("TRACE_END %lu %lu\n", printed, dropped);
}

static void trace_at_poweroff(int status)
{
	(void)status;
	if (trace_depth)
		alloc_trace_dump();
}
POWEROFF_HOOK(trace_at_poweroff);

SHELL_CMD(alloc_trace, "alloc_trace", "print the allocation trace (boot with alloc_trace=N to record one)")
{
	if (argc != 1)
		return SHELL_USAGE;
	if (!trace_depth) {
		kprintf("alloc_trace: no trace is recorded; boot with alloc_trace=N (events kept per core)\n");
		return 1;
	}
	alloc_trace_dump();
	return 0;
}

/* ---- invariants ---- */

static uint32_t owner[MOSAIC_MAX_HARTS];  /* real-task mode: the job a core is committed to */
static uint32_t vused[MOSAIC_MAX_HARTS];  /* partial simulation: virtual cores held, per micro-kernel */
uint64_t alloc_violations;

void check_fail_v(const char *fmt, va_list ap)
{
	char buf[200];
	vsnprintf(buf, sizeof buf, fmt, ap);
	__atomic_fetch_add(&alloc_violations, 1, __ATOMIC_RELAXED);
	kprintf("alloc: INVARIANT VIOLATED: %s\n", buf);
}

void check_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	check_fail_v(fmt, ap);
	va_end(ap);
}

void check_claim(uint32_t job, unsigned dom, const uint64_t *mask, uint32_t count)
{
	if (!alloc_cfg.check)
		return;
	if (layout.partial) {
		vused[dom] += count;
		if (vused[dom] > layout.vcores)
			check_fail("micro-kernel %u holds %u of its %u virtual cores", dom, vused[dom], layout.vcores);
		return;
	}
	for (MASK_EACH(mask, c))
		if (c < mesh.cores) {
			if (owner[c])
				check_fail("core %u given to job %u while job %u holds it", c, job, owner[c]);
			owner[c] = job;
		}
}

void check_release(uint32_t job, unsigned dom, const uint64_t *mask, uint32_t count)
{
	if (!alloc_cfg.check)
		return;
	if (layout.partial) {
		if (count > vused[dom])
			check_fail("micro-kernel %u releases %u virtual cores, holds %u", dom, count, vused[dom]);
		vused[dom] -= count > vused[dom] ? vused[dom] : count;
		return;
	}
	for (MASK_EACH(mask, c))
		if (c < mesh.cores) {
			if (owner[c] != job)
				check_fail("core %u released by job %u but held by job %u", c, job, owner[c]);
			owner[c] = 0;
		}
}

/* ---- looking inside a micro-kernel (the shell's `mk`; scripts/gdb has mosaic-mk) ---- */

static const char *const home_state_names[] = {"delayed", "seq-wait", "requesting", "blocked", "satisfied", "running"};

void alloc_print_mk(unsigned dom)
{
	const struct mk *m = &mks[dom];
	if (!m->ready) {
		kprintf("micro-kernel %u (core %u): has not run yet\n", dom, domain_master(dom));
		return;
	}
	kprintf("micro-kernel %u (core %u, grid %u,%u): %u of %u cores free, epoch %u%s\n", dom, m->core, grid_x(m->w, dom),
		grid_y(m->w, dom), m->nfree, m->capacity, m->epoch, dom == sequencer_dom() ? ", sequencer" : "");
	for (unsigned i = 0; i < m->nwq; i++) {
		const struct wq_entry *e = &m->wq[i];
		kprintf("  wait %u: job %u home %u attempt %u t %lu need %u committed %u%s\n", i, e->job, e->home,
			e->attempt, e->t_submit, e->need, e->committed, e->local ? " local" : "");
	}
	for (const struct home_job *j = m->jobs; j; j = j->next)
		kprintf("  job %u: %s, %u cores, got %u, attempt %u, cancels %u, parts left %u\n", j->id,
			home_state_names[j->state], j->spec.ntasks, j->got, j->attempt, j->cancels, j->parts_pending);
	for (const struct run_part *p = m->parts; p; p = p->next)
		kprintf("  running: job %u (home %u) on %u cores, %u ended\n", p->job, p->home, p->count, p->done);
	if (dom == sequencer_dom())
		kprintf("  sequencer: current job %u, %u queued\n", m->seq_current, m->nsq);
}

SHELL_CMD_NOWAIT(mk, "mk [D]", "a micro-kernel's wait queue, job table and running jobs (all of them without D)")
{
	uint64_t d;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &d) || d >= layout.ndomains)))
		return SHELL_USAGE;
	for (unsigned i = 0; i < layout.ndomains; i++)
		if (argc == 1 || i == d)
			alloc_print_mk(i);
	return 0;
}

/* ---- the shell: every claim and its team (an observer: reads the micro-kernels' state) ---- */

static const char *const claim_state_names[] = {"idle", "invading", "team running"};

void claim_print_all(void)
{
	unsigned shown = 0;
	for (unsigned d = 0; d < layout.ndomains; d++)
		for (const struct claim *c = mks[d].claims; c; c = c->next) {
			kprintf("claim %u: home %u, owner core %u, %u cores, %s", c->id, d, c->owner, c->ncores,
				claim_state_names[c->state]);
			if (c->state == CL_TEAM)
				kprintf(": team of %u members, %u ended, %u failed", c->members, c->done, c->failed);
			kprintf("\n  cores:");
			for (unsigned k = 0; k < mesh.cores; k++)
				if (mask_has(c->mask, k))
					kprintf(" %u", k);
			kprintf("\n");
			shown++;
		}
	if (!shown)
		kprintf("no claims\n");
}

SHELL_CMD_NOWAIT(claims, "claims", "every claim of invasive computing: its owner, cores and running team")
{
	(void)argv;
	if (argc != 1)
		return SHELL_USAGE;
	claim_print_all();
	return 0;
}
