/*
 * The kernel's side of the job allocation protocol: how the portable core
 * (portable/alloc/proto.h, the same files as the host simulator's) is bound to
 * the kernel's NoC messages, clocks and pico-kernels (binding.c, run.c), the
 * submitters' side (submit.c, scenario.c), invasive computing (claim.c, team.c,
 * claim_owner.c) and the observers (observe.c, watchdog.c). A struct mk belongs
 * to one micro-kernel and only its own core touches it: the protocol shares no
 * memory, everything between micro-kernels travels as MSG_TYPE_ALLOC messages.
 */
#ifndef KERNEL_ALLOC_PROTO_H
#define KERNEL_ALLOC_PROTO_H

#include "lib/bits.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include "portable/alloc/proto.h"
#include "kernel/alloc/alloc.h"
#include "kernel/alloc/invasive.h"
#include "kernel/msg/msg.h"

_Static_assert(PROTO_MASK_CORES >= MOSAIC_MAX_HARTS, "a core mask must name every core");
_Static_assert(PROTO_MAX_DOMAINS >= MOSAIC_MAX_HARTS, "every core may be a micro-kernel");

extern struct mk mks[MOSAIC_MAX_HARTS];
/* The machine as every micro-kernel sees it (binding.c), filled by alloc_init. */
extern struct proto_world alloc_world;

/* ---- binding.c: the core's environment in the kernel ---- */
struct mk *mk_self(void);
/* Sends a protocol message to any core (a pico-kernel's TASK_DONE, a submission, a shell's
 * direct PING or LINKDOWN); m may be 0 when the sender is no micro-kernel. */
void mk_send_core(struct mk *m, unsigned core, struct alloc_hdr *h, uint32_t len);
unsigned sequencer_dom(void);
/* Fills alloc_world from the layout of domains and chooses the sequencer (alloc_init). */
void alloc_world_init(void);

/* ---- submit.c ---- */
/* The tags of report-class messages: which collector on the receiving core takes them. */
enum { ALLOC_REPORT_JOB = 0,  /* a job's report for the kernel's collector (alloc_collect) */
       ALLOC_REPORT_PING = 1, /* a PING wave's result */
       ALLOC_REPORT_USER = 2, /* a job's report for a user task's job_wait (user_job.c) */
};
/* Waits (doing background work) until a report-class message with this tag is visible;
 * false when the deadline (this core's clock, ns, 0: none) passed first. */
bool alloc_wait_report(int tag, uint64_t deadline_ns);
/* Whether a report-class message with this tag is visible at this core now. */
bool alloc_report_visible(int tag);
/* Takes the first visible report with this tag: 0, -EAGAIN if none is visible. */
int alloc_take_report(int tag, struct job_report *r);
/* The result of a PING wave, sent by its origin to the core that asked for it. */
struct ping_result {
	uint64_t ns;
	uint32_t reached;
	uint32_t nodes;
};

/* ---- run.c: a job's tasks on the pico-kernels ---- */
/* Hands the tasks of the micro-kernel's parts to their cores where they could not start yet
 * (a core still busy); true if some still wait. */
bool run_start_pending(struct mk *m);
/* Looks again in a millisecond (a dispatcher task marks the state changed), in WFI meanwhile. */
void mk_retry_later(struct mk *m);

/* ---- claim.c, team.c: invasive computing (docs/invasive.md) ---- */
/* A member waiting to be started on its core (team.c). */
struct team_member {
	struct team_member *next;
	struct member_spec spec;
	uint32_t claim;
	uint16_t home_core, owner;
	bool isolated;
	uint64_t owner_root;
	char program[ALLOC_PROGRAM_MAX];
};

/* A micro-kernel's members for its own cores (TEAM_START): start them (team.c). */
void team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len);
void team_retry(struct mk *m);
void claim_print_all(void);

/* ---- observe.c: statistics, trace and invariant checks (observers; the protocol never reads them) ---- */
void stats_msg(uint32_t job, unsigned kind, unsigned hops);
void stats_job_reset(uint32_t job);
void stats_job_get(uint32_t job, uint32_t *msgs, uint32_t *hops);
void trace_event(unsigned kind, uint32_t job, unsigned peer, uint64_t arg);
/* Makes every core's trace ring (boot argument alloc_trace=N), at boot (alloc_init). */
void alloc_trace_init(void);
void check_claim(uint32_t job, unsigned dom, const uint64_t *mask, uint32_t count);
void check_release(uint32_t job, unsigned dom, const uint64_t *mask, uint32_t count);
void alloc_print_mk(unsigned dom);
bool alloc_trace_recorded(void);
/* The whole trace as TRACE lines and TRACE_END (what power-off prints). */
void alloc_trace_dump(void);
/* The last `count` (at most 64) events recorded, for a diagnosis. */
void alloc_trace_print_tail(unsigned count);
void check_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void check_fail_v(const char *fmt, va_list ap); /* the same, for the core's penv_fail */

/* ---- watchdog.c: diagnosing a run that is stuck ---- */
/* Every job event (trace_kind) passes here: open jobs and progress are counted. */
void watchdog_note_event(unsigned kind);

#endif
