/*
 * What the protocol core (proto.h) needs from the place it runs in, and nothing
 * more: each home implements these functions once. The kernel's binding
 * (kernel/alloc/binding.c) sends NoC messages, reads the core's virtual clock and
 * starts user tasks on pico-kernels; the simulator (sim/) does the same on its
 * discrete-event queue. Every call names the micro-kernel it is made for, so a
 * home that runs many micro-kernels in one thread (the simulator) knows whose it
 * is.
 */
#ifndef KERNEL_ALLOC_CORE_PROTO_ENV_H
#define KERNEL_ALLOC_CORE_PROTO_ENV_H

#include "portable/alloc/proto.h"

/* Sends h (len bytes, header first) from m to micro-kernel `to_dom`; h->from is set. The
 * message is the core's again when this returns. */
void penv_send(struct mk *m, unsigned to_dom, struct alloc_hdr *h, uint32_t len);
/* m's clock, ns. */
uint64_t penv_now(struct mk *m);
/* Arms t to fire at m's time at_ns (into proto_timer_fired on m); false if it cannot, and
 * the core then acts as if it had fired at once. */
bool penv_timer(struct mk *m, struct proto_timer *t, uint64_t at_ns);
/* Real-task mode: start the part's tasks (rank r of the job on cores[r], those of
 * p->mask here); each one's end comes back as an AK_TASK_DONE message. */
void penv_part_start(struct mk *m, struct run_part *p, const struct spawn_body *b, const uint16_t *cores);
/* The part is over and about to be freed: drop what the home kept for it (p->env). */
void penv_part_free(struct mk *m, struct run_part *p);
/* Job j ended at its home m: tell its submitter. */
void penv_report(struct mk *m, const struct home_job *j);
/* A PING wave of m came back: tell the core that asked for it. */
void penv_ping_done(struct mk *m, int requester, uint64_t ns, uint32_t reached);

/* Invasive computing (claim.c): whether a free core runs something the protocol did not
 * start (a member could not start there); an answer to a claim's owner core (a result, then
 * the body); starting a team's members on m's own cores (the TEAM_START message, also when
 * the home starts its own); a member that failed, for whoever watches. */
bool penv_core_busy(struct mk *m, unsigned core);
void penv_claim_reply(struct mk *m, unsigned owner, int tag, int64_t result, const void *body, uint32_t len);
void penv_team_start(struct mk *m, const struct alloc_hdr *h, uint32_t len);
void penv_member_failed(struct mk *m, uint32_t claim, uint32_t index, const struct mosaic_member_result *r, unsigned owner);

/* Observers: the protocol never reads what they record. */
void penv_trace(struct mk *m, unsigned kind, uint32_t job, unsigned peer, uint64_t arg);
/* Cores of m committed to (take) or released by (!take) job; real-task mode names them in
 * mask, partial simulation only counts them. */
void penv_hold(struct mk *m, uint32_t job, const uint64_t *mask, uint32_t count, bool take);
/* An invariant the core checks itself does not hold. */
void penv_fail(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A note for whoever watches (a malformed message dropped). */
void penv_log(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Out of memory or a broken assumption of the core: does not return. */
void penv_panic(struct mk *m, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

void *penv_alloc(size_t bytes);
void penv_free(void *p);

/* The core's own assertion: a failure is a bug of the core, never of a message's sender. */
#define PROTO_ASSERT(m, cond)                                                                           \
	do {                                                                                            \
		if (!(cond))                                                                            \
			penv_panic((m), "protocol core: assertion '%s' failed at %s:%d", #cond, __FILE__, \
				   __LINE__);                                                           \
	} while (0)

#endif
