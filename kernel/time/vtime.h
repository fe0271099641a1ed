/*
 * Per-core virtual time (docs/time.md). Under QEMU the harts run one at a time, so
 * the machine's clock is the sum of every core's work. With the vclock plugin and the
 * boot argument vtime=1 every core keeps its own clock instead:
 *
 *   clock(c) = instructions c has executed x vtime_ns_per_insn + time c skipped
 *
 * A core skips time only while it waits for an event with a known time (a message in
 * flight to it, a task or a sleep that falls due): it jumps to that time. In the
 * conservative mode (vtime_sync=0, the default) it jumps only when no other core can
 * still send it a message that arrives earlier (lookahead: the NoC's minimum latency
 * from each core); in the lax mode (vtime_sync=1, Graphite's default) it jumps at once.
 * Messages carry their sender's clock and arrive at that time plus the model's latency.
 *
 * The state below is published for the other cores: one writer each (its own core),
 * except the next event others hand a core (noted_next in kernel/time/vtime.c), which
 * senders lower with an atomic minimum when they post a message or queue work for it.
 */
#ifndef KERNEL_VTIME_H
#define KERNEL_VTIME_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/core/config.h"
#include "drivers/timer.h"
#include "kernel/core/hart.h"
#include "kernel/time/vclock.h"

extern uint64_t vtime_enabled;     /* boot argument vtime: 1 asks for per-core clocks */
extern uint64_t vtime_lax;         /* boot argument vtime_sync: 0 conservative, 1 lax */
extern uint64_t vtime_ns_per_insn; /* boot argument vtime_ns_per_insn */
extern bool vtime_active;          /* per-core clocks are running (set by vtime_start) */

/* Starts the clocks when every hart is online: each starts at the boot hart's time. */
void vtime_start(void);

/* This core's virtual clock (only once vtime_start has set harts[].vt_skip, before vtime_active). */
static inline uint64_t vtime_now_virtual(void)
{
	return vclock_instret() * vtime_ns_per_insn + *this_hart()->vt_skip;
}
/* This core's clock, ns: its virtual time when active, else the machine's guest time.
 * Inline: benchmarks read it inside their measured spans. */
static inline __attribute__((always_inline)) uint64_t vtime_now_ns(void)
{
	return vtime_active ? vtime_now_virtual() : timer_now_ns();
}
/* The same in timer ticks, for the dispatcher's deadlines. */
uint64_t vtime_now_ticks(void);
/* Another core's clock as far as it has published it (exact for a waiting core). */
uint64_t vtime_of(unsigned core);

/* A time before which no core can send any more: the least lower bound of all cores as the
 * last look of a waiting core found it (O(1); an underestimate when nobody has looked lately,
 * and never moved in lax mode). Bookings of NoC links that end before it can be dropped. */
uint64_t vtime_floor_ns(void);

/* The hooks below are inline gates: with virtual time off they cost a load and a branch
 * (they sit on the message path), and the work is done out of line by their _active part. */

/* Moves this core's clock forward to t if it is behind (an event with a time reached it). */
void vtime_advance_to_active(uint64_t t_ns);
static inline void vtime_advance_to(uint64_t t_ns) { if (vtime_active) vtime_advance_to_active(t_ns); }

/*
 * A core with nothing to do before its own next event at `next_ns` (UINT64_MAX: none,
 * only an interrupt can wake it) or the next release of one of its observer tasks at
 * `observer_ns` (task_set_observer; UINT64_MAX: none; not looked at unless it comes
 * first). Returns true if the clock moved to the earlier of the two, so the caller looks
 * again at once; false if it must sleep: then *wake_ticks is a machine timer deadline at
 * which to look again (0: none, wait for an interrupt). An observer's release is reached
 * only once the rest of the machine has got there (an idle machine does not run its
 * observers forward), and it is not published as a time this core may send at. Between
 * vtime_wait_begin and vtime_wait_end the core is published as waiting. The kernel's waits
 * call these through vtime_wait (kernel/time/wait.h), which does every step of a wait once.
 */
void vtime_wait_begin_active(void);
static inline void vtime_wait_begin(void) { if (vtime_active) vtime_wait_begin_active(); }
bool vtime_idle(uint64_t next_ns, uint64_t observer_ns, uint64_t *wake_ticks);
void vtime_wait_end_active(void);
static inline void vtime_wait_end(void) { if (vtime_active) vtime_wait_end_active(); }
/* Within a wait (vtime_wait_begin) for one hand-over that another core notes to this one (a
 * task's end) and for nothing of its own: publishes that, and forgets the other hand-overs
 * noted since the caller last looked at its condition (this wait consumes none of them; kept,
 * each would hold every other core back at its time). Never moves the clock: the caller takes
 * the hand-over's time itself (vtime_advance_to). Returns false if a note came after that
 * look: the caller looks at its condition again before it sleeps. */
bool vtime_idle_for_handover(void);
/* A counter that changes (with an IPI_WAKE) when the core this one is blocked on changes its
 * bound: a caller of vtime_idle reads it before and sleeps until it changes or *wake_ticks,
 * then calls vtime_idle again. It may then sleep far longer than a poll (0 when off). */
static inline uint32_t vtime_nudges(void)
{
	return vtime_active ? __atomic_load_n(this_hart()->vt_nudges, __ATOMIC_ACQUIRE) : 0;
}
/* A stretch whose length depends on the emulator, not on the simulated machine (a core
 * waiting for a spinlock): published as waiting at its start, and the clock is put back
 * there at its end. Returns what vtime_hold_end needs (0: nothing to put back: virtual
 * time is off, or the core already waits and that wait puts the clock back itself). */
uint64_t vtime_hold_begin(void);
void vtime_hold_end(uint64_t held);

/* The clock at which this core decides what has arrived: while it waits, the clock the wait
 * leaves it at (its start, or where it jumped), not the clock its polls have run up;
 * otherwise its clock. */
uint64_t vtime_wait_clock(void);

/* The core is about to report "nothing has arrived" at its current time (tryrecv,
 * a non-blocking probe): conservative mode first waits until that is certain. */
void vtime_settle_active(void);
static inline void vtime_settle(void) { if (vtime_active) vtime_settle_active(); }

/* The same for what core `src` alone can still send this core: no message from src arriving
 * by the current time can still come. For a receive that names its source (a kernel message's
 * source is the core that sends it); looser than vtime_settle when src is further than one hop. */
void vtime_settle_from_active(unsigned src);
static inline void vtime_settle_from(unsigned src) { if (vtime_active) vtime_settle_from_active(src); }

/* A micro-kernel's own poll (kernel calls, protocol messages) is about to act on what it found:
 * settles like vtime_settle and returns true. With the boot argument vtime_poll_settle=0 it
 * only records the look and returns false, so that a message the poll misses is counted late
 * (how the gap this closes is measured, docs/time.md). */
bool vtime_settle_poll_active(void);
static inline bool vtime_settle_poll(void) { return vtime_active && vtime_settle_poll_active(); }

/* The NoC posted a message to dst arriving at arrival_ns: lowers its bound and counts the
 * message late if dst already looked past that time. Returns whether dst must be woken if it
 * sleeps (false: it waits for an earlier event already, and its wait then looks at this one). */
bool vtime_note_send_active(unsigned dst, uint64_t arrival_ns);
static inline bool vtime_note_send(unsigned dst, uint64_t arrival_ns) { return !vtime_active || vtime_note_send_active(dst, arrival_ns); }

/* Another core was handed work (a hart_call, a dispatched task) at time t: it may
 * send from then on, so its bound drops to t like a message's arrival. */
void vtime_note_event_active(unsigned core, uint64_t t_ns);
static inline void vtime_note_event(unsigned core, uint64_t t_ns) { if (vtime_active) vtime_note_event_active(core, t_ns); }

/*
 * A time this core hands to another (a message's send time, a call's or a thread's start,
 * a task's end): returns this core's clock, and until vtime_stamp_done its published bound
 * is at most that time. Without it the hand-over, which becomes visible (is noted) some
 * instructions later, would carry a time older than the bound others read meanwhile, and a
 * look could let its receiver past it. Stamps nest; the outermost one caps the bound.
 */
uint64_t vtime_stamp_active(void);
static inline uint64_t vtime_stamp(void) { return vtime_active ? vtime_stamp_active() : timer_now_ns(); }
void vtime_stamp_done_active(void);
static inline void vtime_stamp_done(void) { if (vtime_active) vtime_stamp_done_active(); }

/* Something from outside the simulated machine (a typed shell command) happens now:
 * after everything the cores have done so far. */
void vtime_external_event(void);

/* Sleeps until this core's clock reaches deadline_ns (a jump when it is safe); false if
 * stop() became true first. On the machine's clock when virtual time is off. */
bool vtime_sleep_until_ns(uint64_t deadline_ns, bool (*stop)(void));

/* The NoC tells virtual time its minimum latency between two cores (the lookahead). */
void vtime_set_lookahead(uint64_t (*fn)(unsigned from, unsigned to));

/* Prints every core's clock, statistics, state and lower bound (the vtime shell command; a
 * core that has waited VTIME_STALL_POLLS looks in a row without moving prints it once). */
void vtime_dump(void);

/* The whole machine's jumps and looks that could not move: what the synchronisation costs the
 * host, beside smp_print_wakeups (ktest prints both after its summary; nothing when off). */
void vtime_totals(void);

/* Messages posted after their receiver had looked past their arrival, and by how much. */
void vtime_late_totals(uint64_t *late, uint64_t *late_ns);

#endif
