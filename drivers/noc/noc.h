/*
 * The emulated Network-on-Chip: the "hardware" under the message API.
 *
 * Every core has a receive mailbox of `depth` slots; a slot is a credit. Sending
 * takes a slot in the destination's mailbox at once (or fails: no credit), stamps
 * the message with the time it becomes visible there under the XY-routing timing
 * model (drivers/noc/noc.c, docs/noc.md), and books the links it crosses. A
 * receiver never sees a message before that time. The mailboxes and the link
 * table are the only state the harts share here, and they stand for hardware.
 */
#ifndef DRIVERS_NOC_NOC_H
#define DRIVERS_NOC_NOC_H

#include <stdint.h>
#include <stdbool.h>
#include "drivers/noc/noc_config.h"
#include "drivers/noc/mesh.h"
#include "kernel/core/spinlock.h"
#include "drivers/noc/noc_ep.h"
#include "kernel/time/vtime.h"

/*
 * Two channels, each with mailboxes and credits of its own: the kernel's and the
 * user tasks'. A message type with NOC_TYPE_USER set travels on the user channel,
 * so user traffic can never take a credit that a kernel protocol needs, nor be
 * matched by a kernel receive (docs/microkernel.md, "What a user task can and cannot do").
 */
#define NOC_TYPE_USER 0x8000

/* The fixed-size header every message starts with. */
struct noc_header {
	uint16_t src;          /* core ids */
	uint16_t dst;
	uint16_t type;         /* enum msg_type: separates user data, collectives, kernel protocols */
	uint16_t flags;        /* NOC_FLAG_* */
	int32_t tag;
	uint32_t len;          /* body bytes */
	uint32_t seq;          /* per (src, dst) sequence number, from 0 */
	uint32_t hops;
	uint32_t session;      /* user channel: the sending task's session (0 on the kernel channel) */
	uint64_t t_send_ns;    /* guest time of the send */
	uint64_t t_deliver_ns; /* guest time it becomes visible at dst */
	uint64_t t_wait_ns;    /* time its head spent waiting for busy links */
};

#define NOC_FLAG_XSEND 1 /* sent without flow control */

struct noc_slot {
	struct noc_header h;
	uint64_t order;   /* arrival order in this mailbox */
	int16_t reserved_for; /* freed slot handed to this waiting sender, -1 if free for anyone */
	uint64_t granted_ns;  /* when it was handed over (the receiver's clock): the sender learns no earlier */
	uint8_t *body;    /* inline_body or a kmalloc'd buffer */
	bool used;
	uint8_t index;    /* its place in the mailbox (its bit in the masks): a pointer difference is a division */
	uint8_t inline_body[NOC_INLINE_BODY] __attribute__((aligned(8)));
};

struct noc_mailbox {
	struct spinlock lock;
	struct noc_slot *slots;
	unsigned used;
	/* slot bitmaps (depth <= 64), so the message path never scans idle slots */
	uint64_t used_mask;   /* holding a message */
	uint64_t free_mask;   /* free for any sender */
	uint64_t kept_mask;   /* free but kept for a waiting sender (slot.reserved_for) */
	uint64_t next_order;
	volatile uint32_t events;           /* bumped on every arrival and every credit we were promised */
	volatile uint32_t sleeping;         /* the owner sleeps in WFI waiting for events */
	/* senders waiting for a slot, oldest first: freed slots go to them in this order */
	uint16_t credit_queue[NOC_ENDPOINTS]; /* by sending endpoint (noc_ep.h) */
	unsigned credit_head, credit_count;
	uint64_t credit_queued[NOC_ENDPOINTS / 64];
};


struct noc_core_stats {
	uint64_t sent, received;
	uint64_t bytes_sent, bytes_received;
	uint64_t credit_stalls; /* sends that found no free slot */
	uint64_t xsend_violations;
	uint64_t discarded;     /* user messages dropped here: their session was not this core's */
};

struct noc_params {
	struct noc_timing timing; /* the latency model's parameters (portable/noc/timing.h) */
	uint64_t depth;
	uint64_t check_xsend; /* check xsend's rules R2/R3 at run time */
};

extern struct noc_params noc_params;
/* noc_mailboxes is the kernel channel; its events and sleeping fields are the core's
 * wake-up signal for both channels. */
extern struct noc_mailbox noc_mailboxes[MOSAIC_MAX_HARTS];
/* The user channel's mailboxes are per endpoint: a core's own, then the virtual ones (noc_ep.h). */
extern struct noc_mailbox noc_user_mailboxes[NOC_ENDPOINTS];

/* The mailbox of endpoint ep on the channel of `type` (the kernel channel: cores only). */
static inline struct noc_mailbox *noc_mailbox_of(unsigned ep, uint16_t type)
{
	return type & NOC_TYPE_USER ? &noc_user_mailboxes[ep] : &noc_mailboxes[ep];
}
/* Whether mailbox mb holds any message, visible or in flight, read without its lock: a hint
 * that lets pollers skip an empty mailbox. A poller reads its core's `events` first, and a
 * message posted after this read bumps them, so an empty answer never lets a waiter sleep
 * through a message (and a sender preempted while holding the lock holds no poller back). */
static inline bool noc_mailbox_holds_mail(const struct noc_mailbox *mb)
{
	return __atomic_load_n(&mb->used_mask, __ATOMIC_RELAXED) != 0;
}

/* Whether src is in mb's credit queue: its bit, read as one word (written under the lock). */
static inline bool noc_credit_queued(const struct noc_mailbox *mb, unsigned src)
{
	return __atomic_load_n(&mb->credit_queued[src / 64], __ATOMIC_ACQUIRE) >> (src % 64) & 1;
}

/* Whether sending endpoint src waits in dst's credit queue on the channel of `type`, read without
 * the lock. The credit's hand-over (give_credit) clears it under the lock before it bumps src's
 * core's events, so a waiter that read its events first and finds it still set here wakes for
 * the credit; until then a retry would only be refused. A task that moves to another core is
 * placed before it reads this (noc_ep_place and give_credit fence between their store and load).
 * False for what has no such queue, and for a closed or released endpoint, whose queued senders
 * may never get a credit: their retry drops the send or fails it. */
static inline bool noc_awaits_credit(unsigned src, unsigned dst, uint16_t type)
{
	if (src >= NOC_ENDPOINTS || (!(type & NOC_TYPE_USER) && dst >= MOSAIC_MAX_HARTS) || !noc_ep_valid(dst) ||
	    noc_ep_closed(dst))
		return false; /* a send to a closed endpoint is dropped, one to a released one fails: no credit will come */
	return noc_credit_queued(noc_mailbox_of(dst, type), src);
}

/* Makes endpoint ep's user mailbox if it has none yet: 0 or -ENOMEM. */
int noc_user_mailbox_ready(unsigned ep);
/* The links' bookings and statistics, each link booked under a lock of its own (noc.c). */
extern struct noc_link noc_links[MESH_MAX_LINKS];
extern struct noc_core_stats noc_core_stats[MOSAIC_MAX_HARTS];

/* Sets up the mesh and the mailboxes from the boot arguments; NULL or an error message. */
const char *noc_init(void);

/* The core's own clock under virtual time. Inline: the message paths ask for it often. */
static inline uint64_t noc_now_ns(void) { return vtime_now_ns(); }
/* Model delay of an uncontended message of len bytes over h hops. */
uint64_t noc_model_ns(unsigned hops, uint32_t len);
static inline uint32_t noc_flits(uint32_t len) { return noc_timing_flits(&noc_params.timing, len); }

/*
 * Puts a message into endpoint dst's mailbox (src and dst are endpoints, noc_ep.h: the route
 * and the wake-up go to the tiles that host them). A message to a closed endpoint is dropped
 * (0). Returns 0, -ENXIO for an endpoint that does not exist, -EBUSY if dst has no free slot
 * (flow control), -ENOMEM if a large body cannot be buffered. Credits are handed
 * out first come, first served: a sender that gets -EBUSY with `wait` set joins
 * dst's credit queue, and the next freed slot is kept for the oldest waiter (who
 * is woken and must retry); while anyone waits, newcomers get no slot. A caller
 * that will not retry (trysend) passes wait = false and is not queued.
 */
int noc_hw_send(unsigned src, unsigned dst, uint16_t type, int32_t tag, uint32_t session, const void *body, uint32_t len,
		bool xsend, bool wait);

/* Match predicate for the receive side: src/tag may be wildcards (< 0); a user
 * message matches only a receive of its own session. */
struct noc_match {
	int src;
	int tag;
	int type;
	uint32_t session;
};
#define NOC_ANY (-1)

static inline bool noc_matches(const struct noc_header *h, const struct noc_match *m)
{
	return (m->src < 0 || m->src == h->src) && (m->tag < 0 || m->tag == h->tag) && m->type == h->type &&
	       (!(h->type & NOC_TYPE_USER) || h->session == m->session);
}

/*
 * The oldest visible message in `core`'s mailbox that matches (NULL if none);
 * *next_ns gets the earliest delivery time of a message not visible yet
 * (UINT64_MAX if none). Call with the mailbox lock held.
 */
struct noc_slot *noc_mailbox_find(struct noc_mailbox *mb, const struct noc_match *m, uint64_t now, uint64_t *next_ns);
/* The sending endpoints of the messages visible in mb at `now`, one bit each in srcs (cleared
 * first); false if none is visible. Takes the lock: one scan tells a pass over many posted
 * receives which of them can match at all. */
bool noc_mailbox_visible_sources(struct noc_mailbox *mb, uint64_t now, uint64_t srcs[NOC_ENDPOINTS / 64]);
/* src gives up waiting for a credit at dst on the channel of `type` (its send was
 * cancelled): it leaves dst's credit queue, and a slot kept for it goes to the next waiter. */
void noc_cancel_credit(unsigned src, unsigned dst, uint16_t type);

/* Earliest delivery time of a message still in flight to core on either channel, or to a
 * virtual endpoint it hosts (UINT64_MAX if none). */
uint64_t noc_mailbox_next_delivery(unsigned core);
/* Frees a slot of endpoint core's mailbox mb found above (lock held; core: a core, or a virtual
 * endpoint) and hands the credit to waiting senders. */
void noc_mailbox_release(unsigned core, struct noc_mailbox *mb, struct noc_slot *slot);
/* Drops every message in endpoint ep's user mailbox whose session is not `keep` (every one
 * for keep == 0), visible or still in flight, freeing its slot and body; returns how
 * many. Takes the lock. */
unsigned noc_user_discard(unsigned ep, uint32_t keep);
void noc_wake(unsigned core);

#endif
