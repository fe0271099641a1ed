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
 * and the message stays queued for a receive with a larger buffer.
 */
#ifndef KERNEL_MSG_MSG_H
#define KERNEL_MSG_MSG_H

#include <stdint.h>
#include <stdbool.h>
#include "drivers/noc/noc.h"

#define MSG_ANY_SOURCE NOC_ANY
#define MSG_ANY_TAG NOC_ANY
#define MSG_TAG_MAX 0x7fffffff

/* Traffic classes: a receive only matches messages of its own class. */
enum msg_type {
	MSG_TYPE_DATA = 1, /* point-to-point traffic of the API */
	MSG_TYPE_COLL = 2, /* collectives */
	MSG_TYPE_KERNEL = 16, /* first type free for kernel protocols */
};

struct msg_status {
	int source;
	int tag;
	uint32_t len;    /* length of the matched message (also on -EOVERFLOW) */
	int error;
	uint32_t seq;
	uint32_t hops;
	uint64_t t_send_ns, t_deliver_ns, t_recv_ns, t_wait_ns;
};

enum msg_req_kind { MSG_REQ_SEND = 1, MSG_REQ_RECV };
enum msg_req_state { MSG_REQ_IDLE = 0, MSG_REQ_PENDING, MSG_REQ_DONE };

/* A non-blocking operation; the caller owns the memory until it completed. */
struct msg_request {
	struct msg_request *next;
	uint8_t kind, state, xsend;
	uint16_t type;
	uint16_t peer;
	int32_t tag;
	struct noc_match match;
	const void *sbuf;
	void *rbuf;
	uint32_t len;
	struct msg_status status;
};

int msg_send(int dst, int tag, const void *buf, uint32_t len);
int msg_trysend(int dst, int tag, const void *buf, uint32_t len);
int msg_isend(int dst, int tag, const void *buf, uint32_t len, struct msg_request *req);
/* NoCMsg's send without flow control: see docs/noc.md for its rules R1-R4. */
int msg_xsend(int dst, int tag, const void *buf, uint32_t len);

int msg_recv(int src, int tag, void *buf, uint32_t cap, struct msg_status *st);
int msg_tryrecv(int src, int tag, void *buf, uint32_t cap, struct msg_status *st);
int msg_irecv(int src, int tag, void *buf, uint32_t cap, struct msg_request *req);

/* *done = 1 and the status once req completed; never waits. */
int msg_test(struct msg_request *req, int *done, struct msg_status *st);
int msg_wait(struct msg_request *req, struct msg_status *st);
int msg_waitall(struct msg_request *reqs, unsigned n);
/* The header of the next matching message without taking it (block: wait for one). */
int msg_probe(int src, int tag, bool block, struct msg_status *st);

/* The same, for any traffic class (the kernel's protocols and the collectives). */
int msg_isend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len, bool xsend,
		    struct msg_request *req);
int msg_irecv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct msg_request *req);
int msg_probe_typed(uint16_t type, int src, int tag, bool block, struct msg_status *st);

/* Withdraws a pending request (its owner is going away); a finished one is left as it is. */
void msg_cancel(struct msg_request *req);

/* Moves every visible message out of this core's mailbox into its unhandled-message
 * queue (in arrival order), so senders get their credits back at once. */
void msg_drain(void);

/* Sets bit c of sources[] for every core c with a message of `type` in this core's
 * unhandled-message queue; returns how many such messages there are. */
unsigned msg_unhandled_sources(uint16_t type, uint64_t sources[MOSAIC_MAX_HARTS / 64]);

/* Messages waiting in this core's unhandled-message queue (for the shell and tests). */
unsigned msg_unhandled_count(unsigned core);

#endif
