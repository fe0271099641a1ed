/*
 * The MPI-like message API over the emulated NoC: one implementation for the
 * kernel and (through kernel calls) for user tasks. Every call acts for the
 * calling core. Messages are a fixed header plus a body of 0..NOC_MAX_BODY bytes.
 *
 * Matching follows MPI: a receive names a source and a tag, or the wildcards
 * MSG_ANY_SOURCE / MSG_ANY_TAG; receives are matched in the order they were
 * posted, and messages of one source in the order they were sent.
 *
 * Flow control follows NoCMsg: a send needs a free slot (credit) in the
 * destination's mailbox. While a call waits for a credit or a message, the core
 * keeps moving arrived messages out of its own mailbox into its unhandled-message
 * queue, so two cores that send to each other with full mailboxes never deadlock.
 * Waiting is in WFI, woken by the sender, the receiver that frees a slot, or the
 * timer set to the next delivery time.
 *
 * Errors (negative): -ENXIO unknown core, -EMSGSIZE body too long, -EINVAL bad
 * argument (tag, request, group), -EBUSY no credit (trysend), -EAGAIN nothing to
 * receive (tryrecv), -EOVERFLOW buffer too small: status.len holds the real length
 * and the message stays queued for a receive with a larger buffer; -EINTR the
 * wait of a user task that is being killed (the request is withdrawn).
 */
#ifndef KERNEL_MSG_MSG_H
#define KERNEL_MSG_MSG_H

#include <stdint.h>
#include <stdbool.h>
#include "drivers/noc/noc.h"
#include "portable/abi/types.h" /* struct mosaic_status, the status of every receive */

#define MSG_ANY_SOURCE NOC_ANY
#define MSG_ANY_TAG NOC_ANY
#define MSG_TAG_MAX 0x7fffffff

/* Traffic classes, every one of them here: a receive only matches messages of its own
 * class. The kernel's protocols each have one (their owners say what travels on it); the
 * user classes travel on the NoC's user channel and carry the sending task's session. */
enum msg_type {
	MSG_TYPE_DATA = 1, /* point-to-point traffic of the kernel's API users */
	MSG_TYPE_COLL = 2, /* the kernel's collectives */
	MSG_TYPE_KERNEL = 16,                  /* the first of the kernel's protocols: */
	MSG_TYPE_KCALL = MSG_TYPE_KERNEL,      /* forwarded kernel calls (kernel/kcall/) */
	MSG_TYPE_KCALL_REPLY,                  /* and their replies */
	MSG_TYPE_ALLOC,                        /* the job allocation protocol (kernel/alloc/proto.h) */
	MSG_TYPE_ALLOC_REPORT,                 /* job reports to their submitters */
	MSG_TYPE_CLAIM,                        /* micro-kernel -> a claim's owner core: replies */
	MSG_TYPE_BALANCE,                      /* the speed balancer of share groups (kernel/task/share/) */
	MSG_TYPE_USER = NOC_TYPE_USER | 1,      /* point-to-point traffic of user tasks */
	MSG_TYPE_USER_COLL = NOC_TYPE_USER | 2, /* collectives of user tasks */
};

/*
 * User sessions. Every user task runs in a session: the job's for a job's tasks
 * (MSG_SESSION_JOB | job id), its owner's for a team member, a fresh one for a
 * task started alone. A user message carries its sender's session and is seen
 * only by a task of the same session on the receiving core; anything else is
 * dropped there. When a task ends, every user message still addressed to its
 * core goes, so a later task never sees one meant for its predecessor.
 */
#define MSG_SESSION_JOB 0x80000000u
/* Kernel memory a core spends on user messages taken out of its mailbox (the
 * boot argument msg_user_buffer); beyond it, senders wait for credits. */
#define MSG_USER_BUFFER_DEFAULT (256 * 1024)
extern uint64_t msg_user_buffer;

enum msg_req_kind { MSG_REQ_SEND = 1, MSG_REQ_RECV };
enum msg_req_state { MSG_REQ_IDLE = 0, MSG_REQ_PENDING, MSG_REQ_DONE };

/* A non-blocking operation; the caller owns the memory until it completed. */
struct msg_request {
	struct msg_request *next;
	uint8_t kind, state, xsend;
	uint8_t interruptible; /* msg_wait gives up with -EINTR when the core's task is killed (user types always) */
	uint16_t type;
	uint16_t peer;
	int32_t tag;
	struct noc_match match;
	const void *sbuf;
	void *rbuf;
	uint32_t len;
	struct mosaic_status status;
};

/* msg_send and msg_recv: the plain data channel, inline below */
int msg_trysend(int dst, int tag, const void *buf, uint32_t len);
int msg_isend(int dst, int tag, const void *buf, uint32_t len, struct msg_request *req);
/* NoCMsg's send without flow control: see docs/noc.md for its rules R1-R4. */
int msg_xsend(int dst, int tag, const void *buf, uint32_t len);

int msg_tryrecv(int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st);
int msg_irecv(int src, int tag, void *buf, uint32_t cap, struct msg_request *req);

/* *done = 1 and the status once req completed; never waits. */
int msg_test(struct msg_request *req, int *done, struct mosaic_status *st);
int msg_wait(struct msg_request *req, struct mosaic_status *st);
/* The header of the next matching message without taking it (block: wait for one). */
int msg_probe(int src, int tag, bool block, struct mosaic_status *st);

/* The same, for any traffic class (the kernel's protocols and the collectives). */
int msg_isend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len, bool xsend,
		    struct msg_request *req);
int msg_irecv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct msg_request *req);
int msg_probe_typed(uint16_t type, int src, int tag, bool block, struct mosaic_status *st);

/* The same on a given traffic class (user tasks use MSG_TYPE_USER). */
int msg_send_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len);
int msg_trysend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len);
int msg_xsend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len);
int msg_recv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st);
int msg_tryrecv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st);

/* Inline: a call level of their own would cost every message a frame (the kernel keeps its
 * frames and makes no tail calls, for GDB's backtraces). */
static inline int msg_send(int dst, int tag, const void *buf, uint32_t len)
{
	return msg_send_typed(MSG_TYPE_DATA, dst, tag, buf, len);
}
static inline int msg_recv(int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st)
{
	return msg_recv_typed(MSG_TYPE_DATA, src, tag, buf, cap, st);
}

/* Withdraws a pending request (its owner is going away); a finished one is left as it is. */
void msg_cancel(struct msg_request *req);

/* Moves every visible message out of this core's mailbox into its unhandled-message
 * queue (in arrival order), so senders get their credits back at once. */
void msg_drain(void);

/* Sets bit c of sources[] for every core c with a message of `type` in this core's
 * unhandled-message queue; returns how many such messages there are. */
unsigned msg_unhandled_sources(uint16_t type, uint64_t sources[MOSAIC_MAX_HARTS / 64]);

/* The same over the unhandled queue and the messages of `type` visible in the mailbox (what a
 * server may take without draining its mailbox first). */
unsigned msg_pending_sources(uint16_t type, uint64_t sources[MOSAIC_MAX_HARTS / 64]);

/* False only if no message of `type` is waiting here, in the queue or the mailbox (a hint
 * that costs a few loads: idle loops ask it before they probe). */
bool msg_maybe_pending(uint16_t type);
/* True exactly if a message of `type` has arrived here (in the queue, or visible in the
 * mailbox at the clock this core's wait decides on); *next_ns gets the arrival of the first
 * one still in flight (UINT64_MAX: none). It looks at each message: for a wait that must not
 * wake for other traffic. */
bool msg_type_here(uint16_t type, uint64_t *next_ns);

/* Whether a sender waits for a credit on this core's kernel channel (a hint, no lock). */
bool msg_credit_waiters(void);

/* Whether a message is visible now in endpoint ep's user mailbox (a time-sliced task that
 * waits may have something to take: kernel/task/share/share.c runs it). */
bool msg_endpoint_has_news(unsigned ep);

/* Messages waiting in this core's unhandled-message queue (for the shell and tests). */

/* A session id for a task that starts alone (never 0, never with MSG_SESSION_JOB). */
uint32_t msg_new_session(void);
/* This core's task runs in `session` from now on: user messages of any other session
 * here are dropped. */
void msg_session_begin(uint32_t session);
/* The task is gone: every user message addressed to this core is dropped. */
void msg_session_end(void);
/* This core's session, 0 if no task runs. */
uint32_t msg_session(void);
/* With no task on this core, drops user messages that reach it (idle loop). */
void msg_idle_purge(void);

/* A snapshot of one core's message state, for the `mailboxes` command and tests
 * (read from another core: the figures may be changing). */
struct msg_usage {
	unsigned kernel_slots, user_slots; /* mailbox slots in use on each channel */
	unsigned unhandled, user_unhandled;
	uint64_t user_bytes; /* kernel memory held by unhandled user messages */
	uint32_t session;
};
/* core: a core, or a virtual endpoint (drivers/noc/noc_ep.h) whose user mailbox has been made. */
void msg_usage(unsigned core, struct msg_usage *u);

#endif
