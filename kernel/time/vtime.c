/*
 * Per-core virtual clocks and their synchronisation (see vtime.h, docs/time.md).
 *
 * Conservative synchronisation, as in parallel discrete-event simulation: a waiting
 * core may move its clock to its next event T only if no other core can still send
 * it a message that arrives before T. A core c can next send no earlier than its
 * lower bound lb(c): its clock while it runs, or, while it waits, the later of its
 * clock and its next event: the earlier of the events it waits for (own_next) and
 * those others handed it during the wait (noted_next, which a sender lowers when it
 * posts a message to it). A message from c arrives at least lookahead(c, me) after it is
 * sent, and any core can start another at once (a hart_call), so T is safe if T <= the
 * least lb(c) + the least latency to me (look_once).
 * No deadlock: if every core waits, the one whose next event is earliest is always
 * safe (every other lower bound is at least that time); a running core advances by
 * running. A waiting core that is not yet safe sleeps until the core that blocks it is
 * likely to have moved far enough (next_look_ticks) or nudges it (wake_waiters).
 *
 * Three races are closed on purpose. A core that begins a wait has not yet said what it
 * waits for, and something may already be queued for it: until its first look its
 * own_next is its clock (it may still send at once), never "nothing". And a look reads
 * the bounds one by one: a sender may hand work to a core already read as idle and then
 * run on, so that its own bound, read later, no longer covers that work; every fall of a
 * bound bumps its group's count (bound_fell), and a look that saw one change does not move.
 * A third is a hand-over in flight: its time is taken before it is posted, so until then
 * the sender's bound is capped at that time (vtime_stamp).
 *
 * A wait costs no virtual time of its own: the instructions a core runs while it
 * waits (polls, wake-ups for messages still in flight) are taken back when the wait
 * ends, and its clock is then exactly the later of its clock when the wait began and
 * the time it jumped to. So a core's clock does not depend on how fast the others
 * ran, only on what they sent it and when.
 */
#include "kernel/time/vtime.h"
#include "kernel/time/vclock.h"
#include "kernel/time/wait.h"
#include "drivers/noc/noc.h"
#include "kernel/core/hart.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/console.h"
#include "kernel/console/shell.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"
#include "lib/bits.h"
#include "lib/atomic.h"

uint64_t vtime_enabled = 1; /* 1 (default): per-core clocks; vtime=0 keeps the serial clock */
uint64_t vtime_lax;
uint64_t vtime_ns_per_insn = 1;
bool vtime_active;
BOOTARG_U64("vtime", vtime_enabled, 0, 1, "1 (default): every core keeps its own virtual clock (needs the vclock plugin); 0: the machine's serial clock");
BOOTARG_U64("vtime_sync", vtime_lax, 0, 1, "virtual time: 0 conservative synchronisation, 1 lax (nobody waits)");
BOOTARG_U64("vtime_ns_per_insn", vtime_ns_per_insn, 1, 1000, "virtual time: ns per instruction (1: 1 GHz, 1 IPC)");

#define VTIME_POLL_US 20 /* the least machine time between two looks of a core that may not move yet */
#define VTIME_RUNNING_POLL_MAX_US 1000 /* the most, when the core that blocks it runs (its bound rises unseen) */
/* The same when the core that blocks it waits: it is nudged instead, so this is only a safety net.
 * Long, longer than a round of the harts: in a long but legitimate wait (the blocker's bound
 * rising in steps that do not reach the waiter's need) the nudge comes when the bound gets
 * there, and each expiry before that makes QEMU preempt whichever hart runs, lock holders too,
 * for a look that seldom moves. A shorter one only recovers a lost nudge sooner, and a lost
 * nudge costs host time only, never virtual time; bench-vtime measures what the timers
 * cost the host (docs/time.md, "Safety timers, longer than a round of the harts").
 */
#define VTIME_NUDGED_POLL_US 200000
/* The same for an idle core whose observer waits for the machine to get there (the NoC sampler,
 * every 100 ms of virtual time). Each timer interrupt makes QEMU preempt whichever hart runs;
 * a later look only delays the sample in host time.
 */
#define VTIME_OBSERVER_POLL_US 20000
/* Every core's clock when bring-up ends, rather than the boot hart's own count there: that is
 * mostly polls while QEMU starts the other harts, an offset in every absolute time that no
 * simulated core spent working. */
#define VTIME_START_NS 1000000
#define VTIME_STALL_POLLS 50000 /* looks in a row without moving after which a core reports the clocks once */

struct vtime_group;

struct vtime_core {
	volatile uint64_t skip;      /* clock = instructions x ns_per_insn + skip (mod 2^64) */
	const volatile uint64_t *count; /* its vclock slot (set by vtime_start), read by every look */
	volatile uint64_t wait_start; /* while waiting: its clock when the wait began */
	uint64_t jumped_to;          /* the time its current wait jumped to (0: none) */
	volatile uint64_t own_next;  /* while waiting: its next event as it last looked (its clock until then) */
	volatile uint64_t noted_next; /* while waiting: the earliest event others handed it since (atomic min) */
	volatile uint32_t notes;     /* bumped by every hand-over noted to it, before noted_next is lowered */
	uint32_t notes_looked;       /* notes as its last vtime_idle returned (its caller then looked again) */
	bool notes_known;            /* notes_looked is set in this wait */
	volatile uint64_t last_look; /* it concluded "nothing arrived" up to this time */
	volatile uint32_t waiting;
	uint64_t late, late_ns;      /* messages posted after it had looked past their arrival (atomic) */
	uint64_t jumps, polls;       /* its own statistics */
	uint64_t polls_running;      /* of the polls: those whose blocker was running (not nudged) */
	uint64_t torn;               /* looks read again because a bound was lowered meanwhile */
	uint64_t polls_in_a_row;     /* looks in this wait without moving (a stall report after VTIME_STALL_POLLS) */
	uint64_t safety_at;          /* machine time its safety timer fires, asleep blocked on a waiting core (0: none) */
	uint32_t safety_nudges;      /* its nudge count when it went to sleep so */
	uint64_t rescued;            /* looks that moved after that timer with no nudge since: a nudge that never came */
	uint64_t passed_on;          /* waiters it registered with another core still short of their need, not woken */
	uint32_t blocker;            /* the core whose bound kept its last look from moving (UINT32_MAX: none) */
	volatile uint32_t nudges;    /* bumped when a core it was blocked on changed its bound (vtime_nudges) */
	uint64_t waiters[(MOSAIC_MAX_HARTS + 63) / 64]; /* cores blocked on this one's bound (atomic bits) */
	volatile uint64_t stamp;     /* a time it is handing to another core (vtime_stamp; UINT64_MAX: none) */
	uint32_t stamp_depth;        /* nested vtime_stamp calls */
	volatile uint64_t need;      /* while registered with a blocker: the bound it waits for that core to reach */
	struct vtime_group *group;   /* the group of cores it is read in (set by vtime_start) */
	uint32_t slack_src;          /* the source of its last settle for one source, + 1 (0: none) */
	uint64_t slack_ns;           /* that settle's slack (slack_from) */
	unsigned slot;               /* its place in its group's members (vtime_start) */
} __attribute__((aligned(64)));

static struct vtime_core vt[MOSAIC_MAX_HARTS];

/* A core that takes part in time: present and not failed. */
static bool live(unsigned c) { return harts[c].state != HART_ABSENT && harts[c].state != HART_FAILED; }

/*
 * A look reads the live cores in groups of VTIME_GROUP_CORES (by core number), and each group
 * keeps a summary in one word: a lower bound on every member's bound (`least`, in ns, in the
 * high bits) and a count of the falls of its members' bounds (the low bits). A bound rises by
 * itself (a running core's clock, a waiting core that looks again); it falls only where
 * bound_fell is called, after the fall is visible: a message or a task handed to a waiting
 * core, a look that publishes an earlier next event, notes taken back, a wait that ends below
 * the next event it had published. bound_fell lowers the summary to the fallen bound and bumps
 * the count in one compare-and-swap; a look that read every member of a group raises the
 * summary to the least bound it found, with a compare-and-swap from the word it read before
 * the members, which fails if a fall came in between. So a summary is never above a member's
 * bound but for a fall in progress, which a look that reads the member itself can miss just as
 * well; a reaching look re-reads every group's count at its end and does not move if one
 * changed (the stamps and those counts cover both alike). A look skips a group whose summary
 * reaches its need and reads the members of the others.
 *
 * A fall lowers the summary to the fallen bound instead of voiding it: falls are frequent (the
 * barriers' messages), and a void summary would make looks read whole groups, while a lowered
 * one stays of use to every look whose need lies below it (docs/time.md, "Group summaries").
 *
 * The least saturates at SUMMARY_LEAST_MAX (about 4.9 hours of virtual time):
 * a need beyond it reads the members, as a void summary did. The count wraps after 2^16 falls
 * of one group, far more than can come during one look.
 *
 * The summary also names the member whose bound it holds (its slot in `members`: the least a
 * look found, or the core whose fall brought it down). A look whose need the summary does not
 * reach reads that member first, and if it is still short of the need the look cannot move,
 * whatever the other members hold: it takes the member as a candidate blocker and skips the
 * group. Only a group whose named member has got there is read in full (and its summary
 * raised). A blocked look takes the highest short core it met as its blocker instead of reading
 * every such group in full for the highest short core of all: any core still short is a valid
 * blocker (see the look below), and the highest one met is the one likely to get there last
 * among those, so the look wakes a little more often but reads far fewer members (docs/time.md,
 * "Summaries that name their least member").
 */
#define VTIME_GROUP_CORES 16
#define VTIME_GROUPS ((MOSAIC_MAX_HARTS + VTIME_GROUP_CORES - 1) / VTIME_GROUP_CORES)
#define SUMMARY_COUNT_BITS 16
#define SUMMARY_COUNT_MASK ((1ULL << SUMMARY_COUNT_BITS) - 1)
#define SUMMARY_SLOT_BITS 4
#define SUMMARY_LOW_BITS (SUMMARY_COUNT_BITS + SUMMARY_SLOT_BITS)
#define SUMMARY_LEAST_MAX (UINT64_MAX >> SUMMARY_LOW_BITS)
_Static_assert(VTIME_GROUP_CORES <= (1 << SUMMARY_SLOT_BITS), "a summary names its least member in SUMMARY_SLOT_BITS");
struct vtime_group {
	volatile uint64_t summary;   /* least << SUMMARY_LOW_BITS | its member's slot << SUMMARY_COUNT_BITS | count of falls */
	/* its live cores, listed once by vtime_start (a hart fails only during bring-up, before it):
	 * pointers, so that a look's loop tests no hart's state and does no index arithmetic per
	 * core */
	struct vtime_core *members[VTIME_GROUP_CORES];
	unsigned n;
} __attribute__((aligned(64)));
_Static_assert(VTIME_GROUPS <= 32, "look_once keeps the groups it read in a 32-bit mask");
static struct vtime_group groups[VTIME_GROUPS];
static unsigned group_count;
static uint32_t groups_present; /* bit g: group g has members' slots (g < group_count) */

static inline uint64_t summary_least(uint64_t word) { return word >> SUMMARY_LOW_BITS; }
static inline uint64_t summary_count(uint64_t word) { return word & SUMMARY_COUNT_MASK; }
static inline unsigned summary_slot(uint64_t word) { return (unsigned)(word >> SUMMARY_COUNT_BITS) & ((1U << SUMMARY_SLOT_BITS) - 1); }

static inline uint64_t summary_word(uint64_t least, unsigned slot, uint64_t count)
{
	return (least < SUMMARY_LEAST_MAX ? least : SUMMARY_LEAST_MAX) << SUMMARY_LOW_BITS |
	       (uint64_t)slot << SUMMARY_COUNT_BITS | (count & SUMMARY_COUNT_MASK);
}

/* A core's bound has fallen to `bound` or above (and the fall is visible): its group's summary
 * comes down to it (and names the core, if it is now the least), and the group's count of falls
 * moves on. */
static void bound_fell(struct vtime_core *v, uint64_t bound)
{
	struct vtime_group *g = v->group;
	uint64_t word = __atomic_load_n(&g->summary, __ATOMIC_SEQ_CST), least;
	unsigned slot;
	do {
		bool lower = bound < summary_least(word);
		least = lower ? bound : summary_least(word);
		slot = lower ? v->slot : summary_slot(word);
	} while (!__atomic_compare_exchange_n(&g->summary, &word, summary_word(least, slot, summary_count(word) + 1), false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

/* Raises the group's summary to `least`, what a look found reading every member after it read
 * `word` (at `slot`); nothing if a fall (or another look's raise) changed the word meanwhile. */
static void raise_summary(struct vtime_group *g, uint64_t word, uint64_t least, unsigned slot)
{
	uint64_t raised = summary_word(least, slot, summary_count(word));
	if (summary_least(raised) > summary_least(word))
		__atomic_compare_exchange_n(&g->summary, &word, raised, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* The NoC's minimum latency from one core to another: set by the NoC (vtime_set_lookahead). */
static uint64_t (*lookahead)(unsigned from, unsigned to);

void vtime_set_lookahead(uint64_t (*fn)(unsigned from, unsigned to)) { lookahead = fn; }

/* The least latency from any other core to core `me`, computed by `me` itself on its first look
 * (the NoC's parameters are fixed at boot). A look needs no more than this one figure per core:
 * any core can start any other at once through a hart_call (see look_once), so the earliest
 * message to `me` is the least bound of all plus this latency, whoever sends it. */
static uint64_t least_latency_to[MOSAIC_MAX_HARTS];
static bool least_latency_ready[MOSAIC_MAX_HARTS];

static uint64_t least_latency_compute(unsigned me)
{
	uint64_t least = UINT64_MAX;
	for (unsigned c = 0; c < hart_count; c++)
		if (c != me && lookahead && lookahead(c, me) < least)
			least = lookahead(c, me);
	least_latency_to[me] = least == UINT64_MAX ? 0 : least;
	least_latency_ready[me] = lookahead != 0; /* before the NoC sets it: compute again */
	return least_latency_to[me];
}

/* Inline: every look and every check of a blocker asks for it. */
static inline uint64_t least_latency(unsigned me)
{
	return __builtin_expect(least_latency_ready[me], 1) ? least_latency_to[me] : least_latency_compute(me);
}

static uint64_t insns_of(unsigned core)
{
	uint32_t id = harts[core].hartid;
	return id < VCLOCK_SLOTS ? vclock_table.slot[id] : 0;
}

uint64_t vtime_now_ticks(void)
{
	if (!vtime_active)
		return timer_now();
	uint64_t ns = vtime_now_ns();
	return timer_ns_per_tick ? ns / timer_ns_per_tick : timer_us_to_ticks(ns / 1000);
}

uint64_t vtime_of(unsigned core)
{
	if (!vtime_active)
		return timer_now_ns();
	return insns_of(core) * vtime_ns_per_insn + vt[core].skip;
}

void vtime_start(void)
{
	if (!vtime_enabled)
		return;
	if (!vclock_present) {
		kprintf("mosaic: vtime=1 needs the vclock plugin (docs/time.md); using the machine's clock\n");
		return;
	}
	/* every clock starts at VTIME_START_NS; the others sit idle in WFI now */
	uint64_t t0 = VTIME_START_NS;
	static const uint64_t no_count;
	for (unsigned c = 0; c < hart_count; c++) {
		uint32_t id = harts[c].hartid;
		vt[c].count = id < VCLOCK_SLOTS ? &vclock_table.slot[id] : &no_count;
		vt[c].skip = t0 - insns_of(c) * vtime_ns_per_insn;
		vt[c].own_next = vt[c].noted_next = vt[c].stamp = UINT64_MAX;
		harts[c].vt_skip = &vt[c].skip;
		harts[c].vt_nudges = &vt[c].nudges;
		vt[c].blocker = UINT32_MAX;
	}
	vt[this_cpu()].skip = t0 - vclock_instret() * vtime_ns_per_insn; /* its own count, fresh */
	group_count = (hart_count + VTIME_GROUP_CORES - 1) / VTIME_GROUP_CORES;
	groups_present = group_count >= 32 ? UINT32_MAX : (1U << group_count) - 1;
	for (unsigned g = 0; g < group_count; g++)
		groups[g].summary = summary_word(0, 0, 0); /* nothing known yet: the first looks read the members */
	for (unsigned c = 0; c < hart_count; c++) {
		struct vtime_group *g = &groups[c / VTIME_GROUP_CORES];
		vt[c].group = g; /* every core, so that bound_fell never meets a null group */
		if (live(c)) {
			vt[c].slot = g->n;
			g->members[g->n++] = &vt[c];
		}
	}
	__atomic_store_n(&vtime_active, true, __ATOMIC_RELEASE);
	__atomic_store_n(&ipi_handled_after_wfi, true, __ATOMIC_RELEASE);
	kprintf("mosaic: virtual time: one clock per core, %lu ns per instruction, %s synchronisation\n",
		vtime_ns_per_insn, vtime_lax ? "lax" : "conservative");
}

/* The clock a wait leaves its core at: where it began, or where it jumped to since. */
static inline uint64_t wait_leaves_at(const struct vtime_core *v)
{
	return v->jumped_to > v->wait_start ? v->jumped_to : v->wait_start;
}

/* Caps this core's published bound at its clock before a time is read (vtime_stamp, a settle's
 * look). No fresh read of the clock is needed: the count the plugin last wrote to its slot is
 * never ahead of it (a clock read is a marker and a load, which this spares). */
static inline void cap_bound_now(struct vtime_core *v)
{
	__atomic_store_n(&v->stamp, *v->count * vtime_ns_per_insn + v->skip, __ATOMIC_SEQ_CST);
}

/* Sets this core's clock to exactly t (forward or, to take back a wait's own instructions, back). */
static inline __attribute__((always_inline)) void set_clock(struct vtime_core *v, uint64_t t)
{
	v->skip = t - vclock_instret() * vtime_ns_per_insn;
}

void vtime_advance_to_active(uint64_t t)
{
	struct vtime_core *v = &vt[this_cpu()];
	uint64_t now = vtime_now_ns();
	if (t > now) {
		v->skip += t - now;
		v->jumps++;
	}
}

/* A waiting core's next event: the earlier of what it waits for and what it was handed. */
static inline __attribute__((always_inline)) uint64_t next_event(unsigned c)
{
	uint64_t own = __atomic_load_n(&vt[c].own_next, __ATOMIC_ACQUIRE);
	uint64_t noted = __atomic_load_n(&vt[c].noted_next, __ATOMIC_ACQUIRE);
	return own < noted ? own : noted;
}

/* The earliest time core c can still send: its clock while it runs; while it waits, the
 * later of its clock at the wait's start (what the wait leaves it at) and its next event.
 * Inlined, with one acquire load (the state, which orders the rest) and one fence before the
 * stamp: a look reads this for every core, and each acquire costs a fence. */
static inline uint64_t lower_bound_at(const struct vtime_core *v, uint64_t ns_per_insn)
{
	uint64_t bound, skip = 0;
	bool running = !__atomic_load_n(&v->waiting, __ATOMIC_ACQUIRE);
	if (running) {
		skip = v->skip;
		bound = *v->count * ns_per_insn + skip;
	} else {
		uint64_t start = __atomic_load_n(&v->wait_start, __ATOMIC_RELAXED);
		uint64_t own = __atomic_load_n(&v->own_next, __ATOMIC_RELAXED);
		uint64_t noted = __atomic_load_n(&v->noted_next, __ATOMIC_RELAXED);
		uint64_t next = own < noted ? own : noted;
		bound = next > start ? next : start;
	}
	/* the stamp after the clock: a clock read before the stamp was set is no later than the
	 * stamped time (vtime_stamp), and one read after it finds the stamp set (or the
	 * hand-over already noted) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t stamp = __atomic_load_n(&v->stamp, __ATOMIC_ACQUIRE);
	int64_t moved = running ? (int64_t)(v->skip - skip) : 0; /* skips wrap: their difference does not */
	if (moved < 0)
		bound -= (uint64_t)-moved; /* put back meanwhile (resume_at): the count read holds with the lower skip */
	return stamp < bound ? stamp : bound; /* a hand-over in progress carries an older time */
}

static inline uint64_t lower_bound(unsigned c) { return lower_bound_at(&vt[c], vtime_ns_per_insn); }

/* The least lower bound of all cores, as the latest look of a waiting core found it. It
 * never falls: a core's bound drops only when another starts it or sends to it, and then
 * to no less than that sender's own bound. So an old value is a safe underestimate (up to
 * the look reading the bounds one by one, which the NoC's use of it tolerates: a dropped
 * link booking can only make a message wait less, never lose it). */
static uint64_t floor_seen;

uint64_t vtime_floor_ns(void) { return __atomic_load_n(&floor_seen, __ATOMIC_ACQUIRE); }

/*
 * Whether no message can still arrive here unseen before `target`. A core c can next send
 * from its bound lb(c) on, and a waiting core can be started at once by another through a
 * hart_call (no latency: the callee takes the caller's clock), so any core may send from the
 * least bound of all on: the target is safe if every other core's bound is at least the
 * target minus the least latency to here. A look that falls short keeps as the blocker the
 * core whose bound is the highest of those it met still short of what the target needs (it
 * meets a group's named least member only, when that one is short: see the groups): the next
 * look checks it first (still_blocked) and, while this core waits, it nudges this core when
 * its bound gets there (block_on). Any core still short will do for both (each must get
 * there before the target is safe); the highest is the one likely to get there last, since
 * the cores below it are safe to move before it. Taking the lowest would wake a blocked core
 * more often for looks that still cannot move (docs/time.md, "No deadlock").
 *
 * Only a look that reaches the target must not be torn.
 */
enum look { LOOK_REACHES, LOOK_BLOCKED, LOOK_TORN };

/* What every other core's bound must reach before `target` is safe for core `me`. */
static inline uint64_t need_for(unsigned me, uint64_t target)
{
	uint64_t latency = least_latency(me);
	return target > latency ? target - latency : 0;
}

/* Inline into its few callers, as block_on: a look runs on every pass of a blocked wait,
 * and a call's return costs QEMU a lookup of the next block. */
static inline __attribute__((always_inline)) enum look look_once(unsigned me, uint64_t target)
{
	uint64_t need = need_for(me, target);
	uint64_t lowest = UINT64_MAX, least_summary = UINT64_MAX, ns_per_insn = vtime_ns_per_insn;
	uint64_t highest_short = 0;
	const struct vtime_core *self = &vt[me], *lowest_vt = 0, *blocker_vt = 0;
	uint64_t read_word[VTIME_GROUPS], read_least[VTIME_GROUPS];
	unsigned read_slot[VTIME_GROUPS];
	uint32_t read_mask = 0; /* the groups whose members it read (VTIME_GROUPS <= 32) */
	/* Every summary first, unrolled and without a branch: QEMU runs a translated block per
	 * branch, and most groups' summaries reach the need (a group that does not exist reads as
	 * 0, short, and is masked off). The groups whose summary is short are looked at below. */
	uint32_t short_groups = 0;
	_Pragma("GCC unroll 32")
	for (unsigned gi = 0; gi < VTIME_GROUPS; gi++) {
		uint64_t word = __atomic_load_n(&groups[gi].summary, __ATOMIC_SEQ_CST), least = summary_least(word);
		read_word[gi] = word;
		uint64_t is_short = least < need;
		short_groups |= (uint32_t)is_short << gi;
		uint64_t reached = least | -is_short; /* UINT64_MAX if short */
		least_summary = least_summary < reached ? least_summary : reached;
	}
	for (uint32_t m = short_groups & groups_present; m; m &= m - 1) {
		unsigned gi = lowest_bit(m);
		struct vtime_group *g = &groups[gi];
		uint64_t word = read_word[gi], least;
		/* the member the summary names: still short, it blocks the look, and the group need
		 * not be read (see the groups' comment) */
		unsigned named = summary_slot(word);
		const struct vtime_core *named_vt = named < g->n ? g->members[named] : self;
		if (named_vt != self) {
			uint64_t lb = lower_bound_at(named_vt, ns_per_insn);
			if (lb < need) {
				if (lb >= highest_short) {
					highest_short = lb;
					blocker_vt = named_vt;
				}
				continue;
			}
		}
		/* per member only what every member needs: the group's least (its own bound too: the
		 * summary is for the others' looks) and the highest short core; the lowest other core
		 * (the next look's first check) is taken from the groups' least afterwards. Tracking it
		 * per member would add instructions to every member of every look.
		 */
		least = UINT64_MAX;
		const struct vtime_core *least_vt = 0;
		for (struct vtime_core *const *c = g->members, *const *end = g->members + g->n; c < end; c++) {
			uint64_t lb = lower_bound_at(*c, ns_per_insn);
			if (lb < least) {
				least = lb;
				least_vt = *c;
			}
			if (lb < need && lb >= highest_short && *c != self) {
				highest_short = lb;
				blocker_vt = *c;
			}
		}
		read_least[gi] = least;
		read_slot[gi] = least_vt ? least_vt->slot : 0;
		read_mask |= 1U << gi;
		if (least < lowest) {
			lowest = least; /* the floor below counts its own bound anyway */
			lowest_vt = least_vt != self ? least_vt : 0; /* no hint when it is the least itself */
		}
	}
	for (uint32_t m = read_mask; m; m &= m - 1) {
		unsigned gi = lowest_bit(m);
		raise_summary(&groups[gi], read_word[gi], read_least[gi], read_slot[gi]);
	}
	if (blocker_vt) {
		vt[me].blocker = (uint32_t)(blocker_vt - vt); /* the first to check next time */
		return LOOK_BLOCKED;
	}
	vt[me].blocker = lowest_vt ? (uint32_t)(lowest_vt - vt) : UINT32_MAX;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint32_t torn = 0; /* unrolled, as the first pass */
	_Pragma("GCC unroll 32")
	for (unsigned gi = 0; gi < VTIME_GROUPS; gi++)
		torn |= (uint32_t)(summary_count(__atomic_load_n(&groups[gi].summary, __ATOMIC_SEQ_CST)) !=
				   summary_count(read_word[gi])) << gi;
	if (torn & groups_present) {
		vt[me].blocker = UINT32_MAX; /* torn: the next look reads every core again */
		return LOOK_TORN;
	}
	uint64_t mine = lower_bound(me), least = mine < lowest ? mine : lowest;
	if (least_summary < least)
		least = least_summary;
	if (least != UINT64_MAX)
		atomic_max_u64(&floor_seen, least); /* the floor for free: this look read every bound or its summary */
	return LOOK_REACHES;
}

/* look_once, read again at once if a bound was lowered while it read (a few times: under a
 * message storm it then waits for the next poll rather than spin). */
static inline __attribute__((always_inline)) bool reaches(unsigned me, uint64_t target)
{
	for (unsigned tries = 0; tries < 4; tries++) {
		enum look r = look_once(me, target);
		if (r != LOOK_TORN)
			return r == LOOK_REACHES;
		vt[me].torn++;
	}
	return false;
}

/*
 * Whether `target` is still out of reach, judged from the one core that kept this core's last
 * look from reaching it (or, after a look that reached, the lowest it read). O(1), and exact in
 * that direction only: when it says "maybe", the caller looks at every core.
 */
static inline __attribute__((always_inline)) bool still_blocked(unsigned me, uint64_t target)
{
	unsigned b = vt[me].blocker; /* a look's blocker is a live core: one of a group's members */
	if (b >= hart_count)
		return false;
	return lower_bound(b) < need_for(me, target);
}

/*
 * Looks are event-driven where they can be: a core blocked on a waiting core's bound sleeps
 * until that core changes it (its first look of a wait, its end) and is nudged then; polling
 * every VTIME_POLL_US is left for blockers that run, whose bound rises with every
 * instruction. Without this the whole machine advanced one poll interval per round of
 * jumps, and a longer interval made everything slower in proportion. Every rise of a waiting
 * core's bound must come here (its looks, its wait's end, a hold's end, a stamp lifted, the
 * notes it forgets): a waiter blocked on it otherwise sleeps until VTIME_NUDGED_POLL_US. A wait's
 * or a hold's end wakes those its clock lets through; the rest are woken when the core next
 * begins a wait or a hold, or by its looks (under one host thread a core blocked on a running
 * one cannot run before that one stops, which it does in a wait; docs/time.md). A waiter whose
 * need a core's bound reaches, but which another waiting core still holds back, is passed on to
 * that core instead of woken (pass_on).
 */

/*
 * Before core `me` wakes a waiter whose need its bound now reaches: is there a waiting core still
 * short of that need? Woken, the waiter would look, find that core short and sleep again: on
 * woken for nothing, it costs an IPI, a look and a WFI, and such wake-ups are common.
 * The candidates are read once per walk (read_shorts), not once per waiter: from each group's
 * summary, the member it names, if it waits and its bound lies below the waker's (every
 * waiter's need does too). A running core is not taken: its bound rises unseen, and a waiter
 * polls one on a timer only if it registers itself (block_on). A candidate read is only a hint:
 * pass_on checks its bound again after registering the waiter.
 */
struct short_core {
	uint64_t bound;
	unsigned core;
};

static inline __attribute__((always_inline)) unsigned read_shorts(unsigned me, uint64_t bound, struct short_core *out)
{
	unsigned n = 0;
	for (unsigned gi = 0; gi < group_count; gi++) {
		uint64_t word = __atomic_load_n(&groups[gi].summary, __ATOMIC_SEQ_CST);
		unsigned slot = summary_slot(word);
		if (summary_least(word) >= bound || slot >= groups[gi].n)
			continue;
		const struct vtime_core *m = groups[gi].members[slot];
		if (m == &vt[me] || !__atomic_load_n(&m->waiting, __ATOMIC_ACQUIRE))
			continue;
		uint64_t lb = lower_bound_at(m, vtime_ns_per_insn);
		if (lb < bound)
			out[n++] = (struct short_core){lb, (unsigned)(m - vt)};
	}
	return n;
}

/* Of the candidates, the highest still short of waiter c's need (as a look picks its blocker:
 * the one likely to get there last), or UINT32_MAX. */
static inline __attribute__((always_inline)) unsigned short_of(const struct short_core *shorts, unsigned n, unsigned c,
							       uint64_t need)
{
	uint64_t highest = 0;
	unsigned found = UINT32_MAX;
	for (unsigned i = 0; i < n; i++)
		if (shorts[i].bound < need && shorts[i].bound >= highest && shorts[i].core != c) {
			highest = shorts[i].bound;
			found = shorts[i].core;
		}
	return found;
}

/*
 * Registers waiter c with waiting core x instead of waking it, then checks again, as block_on
 * does (x may have moved before it saw the registration): true if c stays asleep, registered
 * with x, which wakes it (or passes it on) when its bound reaches c's need. Any rise of a
 * waiting core's bound comes to wake_waiters, so nothing is lost; if x runs again meanwhile,
 * c is woken here and looks for itself.
 */
static inline __attribute__((always_inline)) bool pass_on(unsigned c, unsigned x)
{
	__atomic_fetch_or(&vt[x].waiters[c / 64], 1UL << (c % 64), __ATOMIC_SEQ_CST);
	return __atomic_load_n(&vt[x].waiting, __ATOMIC_SEQ_CST) &&
	       lower_bound(x) < __atomic_load_n(&vt[c].need, __ATOMIC_SEQ_CST);
}

static void wake_registered(unsigned me, uint64_t bound)
{
	struct short_core shorts[VTIME_GROUPS];
	unsigned nshorts = UINT32_MAX; /* not read yet: most walks wake nobody */
	for (unsigned w = 0; w < (MOSAIC_MAX_HARTS + 63) / 64; w++) {
		uint64_t bits = __atomic_load_n(&vt[me].waiters[w], __ATOMIC_SEQ_CST);
		for (; bits; bits &= bits - 1) {
			unsigned c = w * 64 + lowest_bit(bits);
			uint64_t need = __atomic_load_n(&vt[c].need, __ATOMIC_SEQ_CST);
			if (need > bound)
				continue; /* still short of what it waits for: a wake-up would find it blocked */
			__atomic_fetch_and(&vt[me].waiters[w], ~(1UL << (c % 64)), __ATOMIC_SEQ_CST);
			if (nshorts == UINT32_MAX)
				nshorts = read_shorts(me, bound, shorts);
			unsigned x = short_of(shorts, nshorts, c, need);
			if (x != UINT32_MAX && pass_on(c, x)) {
				vt[me].passed_on++;
				continue;
			}
			__atomic_fetch_add(&vt[c].nudges, 1, __ATOMIC_RELEASE);
			ipi_send(c, IPI_WAKE);
		}
	}
}

/* Inline: most calls find nobody registered, and a frame for the walk would cost more than
 * that check. The fence orders the bound's change before the
 * read, as the walk's sequentially consistent loads do. */
static inline void wake_waiters(unsigned me, uint64_t bound)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t any = 0;
	for (unsigned w = 0; w < (MOSAIC_MAX_HARTS + 63) / 64; w++)
		any |= __atomic_load_n(&vt[me].waiters[w], __ATOMIC_RELAXED);
	if (any)
		wake_registered(me, bound);
}

/* Registers this core with the one that blocks it, then checks again (the blocker may have
 * moved before it saw the registration); true if the target is still out of reach. */
static inline __attribute__((always_inline)) bool block_on(unsigned me, uint64_t target, bool *blocker_runs)
{
	for (unsigned tries = 0; tries < 3; tries++) {
		unsigned b = vt[me].blocker;
		if (b >= hart_count || b == me) {
			*blocker_runs = true; /* unknown (a torn look): poll */
			return still_blocked(me, target) || !reaches(me, target);
		}
		__atomic_store_n(&vt[me].need, need_for(me, target), __ATOMIC_SEQ_CST);
		__atomic_fetch_or(&vt[b].waiters[me / 64], 1UL << (me % 64), __ATOMIC_SEQ_CST);
		*blocker_runs = !__atomic_load_n(&vt[b].waiting, __ATOMIC_SEQ_CST);
		if (!still_blocked(me, target) && reaches(me, target))
			return false;
		if (vt[me].blocker == b)
			return true;
	}
	*blocker_runs = true;
	return true;
}

/*
 * How long a core blocked on a running core sleeps before it looks again: the blocker must run
 * at least the missing virtual time's worth of instructions, and no emulator runs a guest
 * instruction in less than a nanosecond, so a look sooner than that finds the target still out
 * of reach. Gaps are often tens of microseconds of virtual time, which a fixed VTIME_POLL_US
 * would cut into several wake-ups, each a host thread switch (bench-vtime). Capped so that a
 * core whose blocker sleeps in a wait the clock does not see (it counts as running) still
 * looks every VTIME_RUNNING_POLL_MAX_US.
 */
static uint64_t running_poll_ticks(unsigned me, uint64_t target)
{
	uint64_t us = VTIME_POLL_US;
	unsigned b = vt[me].blocker;
	if (b < hart_count) {
		uint64_t lb = lower_bound(b), latency = least_latency(me);
		uint64_t gap_ns = lb < target && target - lb > latency ? target - lb - latency : 0;
		uint64_t gap_us = gap_ns / vtime_ns_per_insn / 1000;
		if (gap_us > us)
			us = gap_us < VTIME_RUNNING_POLL_MAX_US ? gap_us : VTIME_RUNNING_POLL_MAX_US;
	}
	return timer_us_to_ticks(us);
}

/* The machine time at which a core that may not move yet looks again: after the missing time's
 * worth of instructions if its blocker runs, else only as a safety net (it is nudged). The net's
 * deadline is rounded up to a multiple of VTIME_NUDGED_POLL_US, so that the waits of one core in
 * a row ask for the same deadline and timer_arm need not move its timer each time (the net fires
 * 1-2 such periods after the sleep began). */
static uint64_t next_look_ticks(unsigned me, uint64_t target, bool blocker_runs)
{
	if (blocker_runs)
		return timer_now() + running_poll_ticks(me, target);
	uint64_t grain = timer_us_to_ticks(VTIME_NUDGED_POLL_US);
	if (!grain)
		grain = 1; /* a timebase below 5 Hz: no rounding */
	return (timer_now() / grain + 2) * grain;
}

/* Publishes this core as waiting from clock t on (its clock now, or a stamped time before it).
 * Inline, as resume_at and settle_from: each runs once or more per wait, and a call's return
 * costs QEMU a lookup of the next block (docs/time.md, "Calls on the waits' paths"). */
static inline __attribute__((always_inline)) void wait_begin_at(struct vtime_core *v, uint64_t t)
{
	__atomic_store_n(&v->wait_start, t, __ATOMIC_RELAXED);
	v->jumped_to = 0;
	v->polls_in_a_row = 0; /* a stall is counted within one wait, not across many short ones */
	v->safety_at = 0; /* a safety timer of an earlier wait says nothing about this one */
	/* until its first look the core may still send at once (it has not read its queues yet) */
	__atomic_store_n(&v->own_next, v->wait_start, __ATOMIC_RELAXED);
	__atomic_store_n(&v->noted_next, UINT64_MAX, __ATOMIC_RELAXED);
	v->notes_known = false;
	__atomic_store_n(&v->waiting, 1, __ATOMIC_RELEASE);
	fence();
	wake_waiters((unsigned)(v - vt), t); /* those its end left registered, whose need its clock reached since */
}

void vtime_wait_begin_active(void) { wait_begin_at(&vt[this_cpu()], vtime_now_ns()); }

uint64_t vtime_hold_begin(void)
{
	if (!vtime_active)
		return 0;
	struct vtime_core *v = &vt[this_cpu()];
	if (v->waiting)
		return 0;
	uint64_t now = vtime_now_virtual();
	__atomic_store_n(&v->wait_start, now, __ATOMIC_RELAXED);
	__atomic_store_n(&v->own_next, now, __ATOMIC_RELAXED); /* it may send at once when it gets the lock */
	__atomic_store_n(&v->waiting, 1, __ATOMIC_RELEASE);
	wake_waiters(this_cpu(), now); /* as a wait's beginning does */
	return now;
}

/*
 * Ends a wait or a hold at clock t: the core runs again from exactly t, and the cores blocked
 * on it whose need t reaches are woken (the others when it next begins a wait or a hold). The
 * wake-ups are the synchronisation's work, not the simulated machine's, so their instructions
 * are taken back like the wait's own (at a barrier's root they were one IPI per blocked core,
 * on the tree's critical path). Meanwhile the core is published as running but capped at t,
 * as a stamp caps it (vtime_stamp): a look during the wake-ups may not read the clock they run
 * up, which is put back after them. A look that read the skip before it was put back and the
 * stamp after it was lifted would combine the two: lower_bound reads the skip again after the
 * stamp and keeps the lower.
 */
static inline __attribute__((always_inline)) void resume_at(unsigned me, struct vtime_core *v, uint64_t t)
{
	uint64_t bound_before = lower_bound(me);
	set_clock(v, t);
	bool cap = !v->stamp_depth; /* an outer stamp is older than t and caps the bound already */
	if (cap)
		__atomic_store_n(&v->stamp, t, __ATOMIC_SEQ_CST);
	__atomic_store_n(&v->waiting, 0, __ATOMIC_SEQ_CST);
	if (t < bound_before)
		bound_fell(v, lower_bound(me)); /* it had published a later next event (a wait that ends without a jump) */
	wake_waiters(me, t); /* those blocked on it sleep till told: the ones its clock lets through now */
	set_clock(v, t);
	if (cap)
		__atomic_store_n(&v->stamp, UINT64_MAX, __ATOMIC_SEQ_CST);
}

void vtime_hold_end(uint64_t held)
{
	if (!held)
		return;
	resume_at(this_cpu(), &vt[this_cpu()], held);
}

uint64_t vtime_wait_clock(void)
{
	if (!vtime_active)
		return timer_now_ns();
	const struct vtime_core *v = &vt[this_cpu()];
	if (!__atomic_load_n(&v->waiting, __ATOMIC_ACQUIRE))
		return vtime_now_virtual();
	return wait_leaves_at(v);
}

void vtime_wait_end_active(void)
{
	struct vtime_core *v = &vt[this_cpu()];
	/* the wait's own instructions are taken back; its bound now rises with its clock: they poll it */
	resume_at(this_cpu(), v, wait_leaves_at(v));
}

static inline __attribute__((always_inline)) void looked(struct vtime_core *v, uint64_t t)
{
	if (t > v->last_look)
		v->last_look = t;
}

/* A core that has looked VTIME_STALL_POLLS times without being allowed to move: the first one
 * prints every clock and bound, so that a stall (a bound that never rises) can be diagnosed
 * from the log. Diagnostic only: the core goes on waiting. */
static void stall_report(unsigned me, uint64_t target)
{
	static uint32_t reported;
	if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
		return;
	kprintf("vtime: core %u has waited %u looks to move its clock to %lu ns; the clocks:\n", me,
		VTIME_STALL_POLLS, target);
	vtime_dump();
	/* what each waiting core waits for: the start of its wait, what it jumped to, its own next
	 * event and what others handed it, and the core that blocked its last look */
	kprintf("core      wait_start       jumped_to        own_next      noted_next  blocker\n");
	for (unsigned c = 0; c < hart_count; c++) {
		const struct vtime_core *v = &vt[c];
		if (v->waiting)
			kprintf("%4u  %14lu  %14lu  %14ld  %14ld  %7d\n", c, v->wait_start, v->jumped_to, /* -1: none */
				(long)v->own_next, (long)v->noted_next, v->blocker < hart_count ? (int)v->blocker : -1);
	}
}

/*
 * How far the rest of the machine has got: the latest clock of any other core, counting a
 * waiting core's next event when it has one (it will get there). An observer's release
 * beyond it waits: otherwise a core whose only events are its observers' would jump from one
 * to the next while everybody else waits for nothing, and pull whoever talks to it next
 * (a typed command, a job's reply) seconds into the future.
 */
static uint64_t frontier(unsigned me)
{
	uint64_t latest = 0;
	for (unsigned c = 0; c < hart_count; c++) {
		if (c == me || !live(c))
			continue;
		uint64_t t = vtime_of(c);
		if (__atomic_load_n(&vt[c].waiting, __ATOMIC_ACQUIRE)) {
			uint64_t start = __atomic_load_n(&vt[c].wait_start, __ATOMIC_ACQUIRE);
			uint64_t next = next_event(c);
			t = next != UINT64_MAX && next > start ? next : start;
		}
		if (t > latest)
			latest = t;
	}
	return latest;
}

/*
 * Forgets the events handed to this core that its caller has looked at. A hand-over is posted
 * before it is noted, so if no note came since the last vtime_idle of this wait returned, the
 * caller's look since then saw every hand-over noted so far: what is for this wait is in its
 * next event, and what is not (a message to a task that moved to another core after it was
 * sent) this wait will never consume. Kept, such a note held the core's bound at its time for
 * the rest of the wait, and with it every core whose target lay beyond (oversubscribed jobs
 * under round-robin placement stalled so, docs/balancing.md). It runs after the caller's new
 * next event is published (publish_own_next), so the bound never shows more than either.
 *
 * A note racing with the reset: one that lowers noted_next after it was read makes the reset
 * (a compare-and-swap) fail, and the note is kept. One that does not lower it (its time is no
 * earlier than a note already there) is caught by the counter, bumped before noted_next is
 * touched: its time may be hidden for a moment, so the core puts its bound back to now and
 * looks again. A plain store would hide a note that came and was finished (its sender's stamp
 * lifted) between the check and the store, whatever its time, and until that store the bound
 * would show the previous next event.
 */
static inline __attribute__((always_inline)) void forget_looked_notes(struct vtime_core *v)
{
	uint64_t seen = __atomic_load_n(&v->noted_next, __ATOMIC_SEQ_CST);
	if (!v->notes_known || __atomic_load_n(&v->notes, __ATOMIC_SEQ_CST) != v->notes_looked || seen == UINT64_MAX)
		return;
	if (!__atomic_compare_exchange_n(&v->noted_next, &seen, UINT64_MAX, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return; /* lowered since it was read: a note came, keep it */
	if (__atomic_load_n(&v->notes, __ATOMIC_SEQ_CST) != v->notes_looked) {
		atomic_min_u64(&v->noted_next, wait_leaves_at(v));
		bound_fell(v, lower_bound_at(v, vtime_ns_per_insn)); /* back below what a look may have read meanwhile */
	}
}

static inline __attribute__((always_inline)) bool idle_look(unsigned me, struct vtime_core *v, uint64_t bound_before, uint64_t next_ns, uint64_t observer_ns,
		      uint64_t *wake_ticks);

/* The notes as the caller of vtime_idle or vtime_idle_for_handover will have looked at them:
 * it looks at its condition again after this returns (forget_looked_notes counts from here). */
static inline __attribute__((always_inline)) void notes_looked_now(struct vtime_core *v)
{
	v->notes_looked = __atomic_load_n(&v->notes, __ATOMIC_SEQ_CST);
	v->notes_known = true;
}

/* noinline: else GCC splits it to inline its first test into vtime_sleep_until_ns, and every
 * other caller (each message wait's pass) pays a second call and return for the split-off rest */
__attribute__((noinline)) bool vtime_idle(uint64_t next_ns, uint64_t observer_ns, uint64_t *wake_ticks)
{
	if (!vtime_active) {
		*wake_ticks = timer_ns_to_ticks_ceil(observer_ns < next_ns ? observer_ns : next_ns);
		return false;
	}
	unsigned me = this_cpu();
	struct vtime_core *v = &vt[me];
	uint64_t bound_before = lower_bound(me); /* before the notes are forgotten: that may raise it too */
	bool moved = idle_look(me, v, bound_before, next_ns, observer_ns, wake_ticks);
	notes_looked_now(v);
	return moved;
}

/* Publishes what a waiting core waits for as it looked just now (a store, not a minimum: the
 * placeholder of vtime_wait_begin may rise), then forgets the notes that look covered, and
 * wakes those its risen bound now lets through. In that order, lower first and raise after:
 * the bound never shows more than the old notes or the new next event allow. */
static inline __attribute__((always_inline)) void publish_own_next(unsigned me, struct vtime_core *v, uint64_t next_ns, uint64_t bound_before)
{
	__atomic_store_n(&v->own_next, next_ns, __ATOMIC_SEQ_CST);
	uint64_t bound_now = lower_bound(me);
	if (bound_now < bound_before)
		bound_fell(v, bound_now);
	forget_looked_notes(v);
	uint64_t bound_after = lower_bound(me);
	if (bound_after > bound_before)
		wake_waiters(me, bound_after);
}

bool vtime_idle_for_handover(void)
{
	unsigned me = this_cpu();
	struct vtime_core *v = &vt[me];
	uint64_t bound_before = lower_bound(me);
	publish_own_next(me, v, UINT64_MAX, bound_before); /* nothing of its own */
	bool looked_at_all = v->notes_known && __atomic_load_n(&v->notes, __ATOMIC_SEQ_CST) == v->notes_looked;
	notes_looked_now(v);
	return looked_at_all || __atomic_load_n(&v->noted_next, __ATOMIC_SEQ_CST) == UINT64_MAX;
}

/* vtime_idle's work under virtual time. */
static inline __attribute__((always_inline)) bool idle_look(unsigned me, struct vtime_core *v, uint64_t bound_before, uint64_t next_ns, uint64_t observer_ns,
		      uint64_t *wake_ticks)
{
	bool after_safety = v->safety_at && timer_now() >= v->safety_at &&
			    __atomic_load_n(&v->nudges, __ATOMIC_ACQUIRE) == v->safety_nudges;
	v->safety_at = 0;
	publish_own_next(me, v, next_ns, bound_before); /* observers stay out of it: they send nothing */
	uint64_t target = next_event(me); /* a sender may have handed it something earlier */
	*wake_ticks = 0;
	/* an observer comes first only if the machine has got to it: when this core has an event
	 * of its own the machine gets at least there, so only an otherwise idle core checks */
	if (observer_ns < target) {
		if (target != UINT64_MAX || observer_ns <= frontier(me))
			target = observer_ns;
		else {
			*wake_ticks = timer_now() + timer_us_to_ticks(VTIME_OBSERVER_POLL_US);
			return false;
		}
	}
	if (target <= v->wait_start)
		return true; /* already due: look again */
	if (target == UINT64_MAX)
		return false; /* nothing to wait for but an interrupt */
	bool blocker_runs = true;
	if (vtime_lax || (!still_blocked(me, target) && reaches(me, target)) ||
	    !block_on(me, target, &blocker_runs)) {
		/* what was handed to it meanwhile: a sender that noted a hand-over after next_event
		 * above and went back to waiting passed the look with a bound past the hand-over
		 * (a look does not read this core's own bound). What the look reached it reaches
		 * for any earlier time. Without this a micro-kernel jumped over a child's echo to its
		 * 10 s deadline (Fig. 5.6 on 11x11) */
		uint64_t handed = next_event(me);
		if (handed < target) {
			if (handed <= v->wait_start)
				return true;
			target = handed;
		}
		v->jumped_to = target;
		v->jumps++;
		v->rescued += after_safety;
		v->polls_in_a_row = 0;
		set_clock(v, target);
		looked(v, target);
		return true;
	}
	v->polls++;
	v->polls_running += blocker_runs;
	if (++v->polls_in_a_row == VTIME_STALL_POLLS)
		stall_report(me, target);
	*wake_ticks = next_look_ticks(me, target, blocker_runs);
	if (!blocker_runs) {
		v->safety_at = *wake_ticks;
		v->safety_nudges = __atomic_load_n(&v->nudges, __ATOMIC_ACQUIRE);
	}
	return false;
}

/*
 * How much earlier than "now" a settle for messages from `src` alone may look (0 for any
 * source): a message from src arrives at least lookahead(src, me) after it is sent, and src
 * sends no earlier than the least bound of all (any core can start it at once, look_once), so
 * "nothing from src arrives by now" holds once every bound reaches now - lookahead(src, me),
 * which is the settle's target moved back by how much further src is than the nearest core.
 */
static inline __attribute__((always_inline)) uint64_t slack_from(unsigned me, unsigned src)
{
	if (src == me || src >= hart_count || !lookahead)
		return 0;
	/* the last source's slack is kept: a core settles for the same source again and again (a
	 * tree's child, a call's master), and the NoC's latency is fixed once it is set */
	struct vtime_core *v = &vt[me];
	if (v->slack_src == src + 1)
		return v->slack_ns;
	uint64_t from_src = lookahead(src, me), nearest = least_latency(me);
	v->slack_ns = from_src > nearest ? from_src - nearest : 0;
	v->slack_src = src + 1;
	return v->slack_ns;
}

static void settle_wait(unsigned me, struct vtime_core *v, uint64_t t0, uint64_t target, bool capped);

/*
 * Waits until no message from `src` (any core: UINT32_MAX) arriving by the current time can
 * still come, and records as looked at what that establishes for every source.
 *
 * Its first look runs under a stamp, which caps this core's published bound at the settle's
 * time while the look runs; a look that reaches (and every settle in lax mode) puts the clock
 * back there and is done without a wait, so it costs no virtual time, as a wait's instructions
 * cost none. It begins a wait only when the look falls short, so a settle that nothing holds
 * back pays no wait's publishing and waking of the cores blocked on it.
 * A look that falls short begins the wait at the stamped time, before the stamp is lifted, so
 * the bound never shows more than the clock the wait will leave it at.
 */
static inline __attribute__((always_inline)) void settle_from(unsigned src)
{
	unsigned me = this_cpu();
	struct vtime_core *v = &vt[me];
	/* vtime_stamp's cap without its calls: the settle sits on every receive's path, and the
	 * calls would cost its clock instructions on every receive. Capped first, then the time read. */
	bool capped = !v->stamp_depth; /* an outer stamp is older than t0 and caps the bound already */
	if (capped)
		cap_bound_now(v);
	uint64_t t0 = vtime_now_virtual();
	/* a core's first call computes the least latency to it (a pass over every core): under the
	 * cap, so taken back (outside it had put 5 us on the clock of a ping-pong's first round) */
	uint64_t slack = slack_from(me, src);
	uint64_t target = t0 > slack ? t0 - slack : 0;
	if (vtime_lax || (!still_blocked(me, target) && reaches(me, target))) {
		set_clock(v, t0);
		if (capped)
			__atomic_store_n(&v->stamp, UINT64_MAX, __ATOMIC_SEQ_CST);
		looked(v, target);
		return;
	}
	settle_wait(me, v, t0, target, capped);
}

/* settle_from's wait, out of line: the settles that reach at once then save its frame. */
static __attribute__((noinline)) void settle_wait(unsigned me, struct vtime_core *v, uint64_t t0, uint64_t target,
						 bool capped)
{
	wait_begin_at(v, t0); /* published as waiting for nothing later than t0 */
	if (capped) {
		__atomic_store_n(&v->stamp, UINT64_MAX, __ATOMIC_SEQ_CST);
		wake_waiters(me, lower_bound(me)); /* the cap lifted: its bound rose to t0 */
	}
	bool safety_fired = false; /* the last sleep ended on the safety timer, not a nudge */
	do { /* the look fell short: register with the blocker it found */
		uint32_t nudges = vtime_nudges(); /* before it registers: a nudge after that is seen */
		bool blocker_runs = true;
		if (!block_on(me, target, &blocker_runs))
			break;
		v->polls++;
		uint64_t wake = next_look_ticks(me, target, blocker_runs);
		safety_fired = !WAIT_UNTIL(vtime_nudges() != nudges, wake) && !blocker_runs;
	} while (still_blocked(me, target) || !reaches(me, target));
	v->rescued += safety_fired;
	vtime_wait_end_active();
	looked(v, target); /* for other sources it established only the earlier time */
}

void vtime_settle_active(void) { settle_from(UINT32_MAX); }

/* A named-source receive settles for its source only: settling for every source would mostly
 * wait on cores that cannot send it anything (docs/time.md, "Settling for one source").
 */
void vtime_settle_from_active(unsigned src) { settle_from(src); }

static uint64_t poll_settle = 1;
BOOTARG_U64("vtime_poll_settle", poll_settle, 0, 1,
	    "virtual time: 1 (default) a micro-kernel's polls settle before acting on \"nothing yet\"; "
	    "0 they do not, and what they miss is counted late (docs/time.md)");

bool vtime_settle_poll_active(void)
{
	if (poll_settle)
		vtime_settle_active();
	else
		looked(&vt[this_cpu()], vtime_now_ns());
	return poll_settle;
}

static inline __attribute__((always_inline)) bool note(unsigned core, uint64_t t);

bool vtime_note_send_active(unsigned dst, uint64_t arrival)
{
	struct vtime_core *v = &vt[dst];
	bool wake = note(dst, arrival);
	uint64_t look = __atomic_load_n(&v->last_look, __ATOMIC_ACQUIRE);
	if (arrival < look) {
		__atomic_fetch_add(&v->late, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&v->late_ns, look - arrival, __ATOMIC_RELAXED);
	}
	return wake;
}

void vtime_note_event_active(unsigned core, uint64_t t) { (void)note(core, t); }

/*
 * Notes a hand-over at time t to `core`. Returns false if the core waits for an event no later
 * than t already (one handed to it before, so that this note lowers nothing, or its own): its
 * bound does not fall, it needs no nudge, and a sleeping core need not be woken for it, since it
 * wakes for that earlier event by its own means (a registration, a timer, that hand-over's
 * wake-up) and its wait then looks at what came meanwhile. That is the common case for a
 * waiting core, so it spares most wake-ups (docs/time.md).
 *
 * Its own next event is read after the note is in: read before, a look publishing a later one
 * in between would have made the note a fall nobody announced (that look compares its bound
 * with the one before its store, which then already holds the note).
 */
static inline __attribute__((always_inline)) bool note(unsigned core, uint64_t t)
{
	struct vtime_core *v = &vt[core];
	__atomic_fetch_add(&v->notes, 1, __ATOMIC_SEQ_CST); /* first: forget_looked_notes relies on it */
	bool lowered = atomic_min_u64(&v->noted_next, t);
	if (!__atomic_load_n(&v->waiting, __ATOMIC_SEQ_CST))
		return true; /* a running core's bound is its clock */
	if (!lowered || __atomic_load_n(&v->own_next, __ATOMIC_SEQ_CST) <= t)
		return false;
	bound_fell(v, t); /* the bound this note leaves is max(wait_start, t): no less than t */
	/* its bound dropped, so it may now block others: it must look again even if the
	 * hand-over is not what it waits for (a call's end while it awaits another call, a
	 * message to a task that has moved away), so every wait of vtime_idle also wakes
	 * for a changed nudge count. The IPI is the hand-over's: every wait must be one its
	 * hand-overs wake (the NoC wakes a core whose mailbox says it sleeps, and vtime_wait
	 * marks it around every sleep, kernel/time/wait.h). No IPI is sent here as
	 * well: a second interrupt, taken after the wait ended, would count its handler's
	 * instructions on the receiver's clock and change a ping-pong's time */
	__atomic_fetch_add(&v->nudges, 1, __ATOMIC_RELEASE);
	return true;
}

/* Taken only by a running core (a send, a call's or a thread's start, a task's end, a credit):
 * a stamp taken inside a wait would cap the bound at the raw clock, below the next event the
 * wait publishes, a fall that no bound_fell announces. No wait or hold path stamps. */
uint64_t vtime_stamp_active(void)
{
	struct vtime_core *v = &vt[this_cpu()];
	if (v->stamp_depth++)
		return vtime_now_virtual(); /* the outer stamp is earlier and still caps the bound */
	/* capped first, then the time read: a look that read the clock before the cap went up
	 * read no more than the time returned */
	cap_bound_now(v);
	return vtime_now_virtual();
}

void vtime_stamp_done_active(void)
{
	struct vtime_core *v = &vt[this_cpu()];
	if (v->stamp_depth && !--v->stamp_depth) {
		__atomic_store_n(&v->stamp, UINT64_MAX, __ATOMIC_SEQ_CST);
		/* the cap is lifted: a waiting core's bound may rise, and those blocked on it are
		 * woken only by nudges (a running core's rise is polled) */
		if (__atomic_load_n(&v->waiting, __ATOMIC_SEQ_CST))
			wake_waiters(this_cpu(), lower_bound(this_cpu()));
	}
}

void vtime_external_event(void)
{
	if (!vtime_active)
		return;
	uint64_t latest = 0;
	for (unsigned c = 0; c < hart_count; c++)
		if (live(c) && vtime_of(c) > latest)
			latest = vtime_of(c);
	vtime_advance_to(latest);
}

struct sleep_wait {
	uint64_t deadline_ns;
	bool (*stop)(void);
};

static bool sleep_look(void *arg, struct vtime_wait_look *l)
{
	const struct sleep_wait *w = arg;
	/* a stop that came since the caller looked is due now: the wait's beginning forgot the
	 * note that came with it (a kill, kernel/task/utask.c) */
	l->own_ns = w->stop && w->stop() ? 0 : w->deadline_ns;
	return true;
}

static bool sleep_woken(void *arg)
{
	const struct sleep_wait *w = arg;
	return w->stop && w->stop();
}

bool vtime_sleep_until_ns(uint64_t deadline_ns, bool (*stop)(void))
{
	struct sleep_wait w = {deadline_ns, stop};
	for (;;) {
		if (stop && stop())
			return false;
		if (vtime_now_ns() >= deadline_ns)
			return true;
		if (!vtime_active) {
			WAIT_UNTIL((stop && stop()) || timer_now_ns() >= deadline_ns, timer_ns_to_ticks_ceil(deadline_ns));
			continue;
		}
		/* one look per wait: a jump, a stop or the deadline ends it, and the loop looks again */
		vtime_wait(&(const struct vtime_wait){.look = sleep_look, .woken = sleep_woken, .arg = &w,
						      .sleeping = &noc_mailboxes[this_cpu()].sleeping, .jump_ends = true});
	}
}

void vtime_late_totals(uint64_t *late, uint64_t *late_ns)
{
	*late = *late_ns = 0;
	for (unsigned c = 0; c < hart_count; c++) {
		*late += __atomic_load_n(&vt[c].late, __ATOMIC_RELAXED);
		*late_ns += __atomic_load_n(&vt[c].late_ns, __ATOMIC_RELAXED);
	}
}

void vtime_totals(void)
{
	if (!vtime_active)
		return;
	uint64_t jumps = 0, polls = 0, running = 0, torn = 0, rescued = 0, passed = 0;
	for (unsigned c = 0; c < hart_count; c++) {
		passed += vt[c].passed_on;
		jumps += vt[c].jumps;
		polls += vt[c].polls;
		running += vt[c].polls_running;
		torn += vt[c].torn;
		rescued += vt[c].rescued;
	}
	kprintf("vtime: jumps=%lu looks that could not move=%lu (blocker running: %lu) read again=%lu "
		"moved after a safety timer=%lu waiters passed on=%lu\n",
		jumps, polls, running, torn, rescued, passed);
}

void vtime_dump(void)
{
	kprintf("vtime: %s synchronisation, %lu ns per instruction\n", vtime_lax ? "lax" : "conservative",
		vtime_ns_per_insn);
	kprintf("core        clock_ns   jumps    polls   torn   late  late_ns  state  bound_ns\n");
	for (unsigned c = 0; c < hart_count; c++) {
		const struct vtime_core *v = &vt[c];
		uint64_t lb = lower_bound(c);
		kprintf("%4u  %14lu  %6lu  %7lu  %5lu  %5lu  %7lu  %-5s  ", c, vtime_of(c), v->jumps, v->polls, v->torn,
			v->late, v->late_ns, v->waiting ? "wait" : "run");
		if (lb == UINT64_MAX)
			kprintf("none\n");
		else
			kprintf("%lu\n", lb);
	}
	uint64_t late, late_ns;
	vtime_late_totals(&late, &late_ns);
	kprintf("vtime: late=%lu late_ns=%lu\n", late, late_ns);
}

SHELL_CMD_NOWAIT(vtime, "vtime", "each core's virtual clock, jumps, polls, looks read again (torn), late messages (consumed after their arrival), "
	  "whether it waits and its lower bound (none: it waits for nothing)")
{
	if (argc != 1)
		return SHELL_USAGE;
	if (!vtime_active) {
		kprintf("vtime: off (the machine's serial clock; boot with vtime=1 and the vclock plugin)\n");
		return 0;
	}
	vtime_dump();
	return 0;
}
