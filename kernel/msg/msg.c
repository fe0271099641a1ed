/*
 * Requests, matching and waiting of the message API (see msg.h). Everything here
 * is private to the calling endpoint: its pending sends, its posted receives in post
 * order (the unmatched-request queue), its unhandled-message queue and its user
 * session. An endpoint is a core, or the virtual endpoint of a task time-sliced on a
 * core (drivers/noc/noc_ep.h): kernel traffic always speaks as the core, user traffic
 * as the running task's endpoint. Only the NoC below (drivers/noc) is shared between
 * cores.
 */
#include "kernel/msg/msg.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/console.h"
#include "kernel/console/shell.h"
#include "drivers/timer.h"
#include "lib/string.h"
#include "lib/bits.h"
#include "kernel/time/vtime.h"
#include "kernel/time/wait.h"
#include "kernel/task/share/share.h"

uint64_t msg_user_buffer = MSG_USER_BUFFER_DEFAULT;
BOOTARG_U64("msg_user_buffer", msg_user_buffer, 0, 64 * 1024 * 1024,
	    "bytes of user messages a core keeps out of its mailbox for its task (more wait for credits)");

/* Types are counted modulo this in the unhandled queue (a shared count only costs a scan). */
#define UH_KINDS 32

struct unhandled_msg {
	struct unhandled_msg *next;
	struct noc_header h;
	uint8_t *body; /* kmalloc'd, or NULL for an empty body */
};

struct endpoint {
	struct unhandled_msg *uh_head, *uh_tail;
	unsigned uh_count;
	struct msg_request *recv_head, *recv_tail;
	struct msg_request *send_head, *send_tail;
	uint32_t session;        /* the user session of the task on this core, 0 if none */
	unsigned uh_user;        /* user messages in the unhandled queue */
	uint16_t uh_kind[UH_KINDS]; /* unhandled messages by type % UH_KINDS: "none of this type" in O(1) */
	uint64_t uh_user_bytes;  /* the kernel memory they hold, counted against msg_user_buffer */
};

static struct endpoint endpoints[NOC_ENDPOINTS]; /* cores, then virtual endpoints */

/* The endpoint a call on `type` speaks as: the running task's for user traffic. */
static unsigned self_for(uint16_t type) { return type & NOC_TYPE_USER ? noc_ep_self() : this_cpu(); }

static void queue_append(struct msg_request **head, struct msg_request **tail, struct msg_request *r)
{
	r->next = 0;
	if (*tail)
		(*tail)->next = r;
	else
		*head = r;
	*tail = r;
}

static void queue_remove(struct msg_request **head, struct msg_request **tail, struct msg_request *prev,
			 struct msg_request *r)
{
	if (prev)
		prev->next = r->next;
	else
		*head = r->next;
	if (*tail == r)
		*tail = prev;
	r->next = 0;
}

/* A receive's status, taken at `now` (the time the receive found the message). */
static void fill_status_at(struct mosaic_status *st, const struct noc_header *h, int error, uint64_t now)
{
	*st = (struct mosaic_status){.source = h->src, .tag = h->tag, .len = h->len, .error = error, .seq = h->seq,
				  .hops = h->hops, .t_send_ns = h->t_send_ns, .t_deliver_ns = h->t_deliver_ns,
				  .t_recv_ns = now, .t_wait_ns = h->t_wait_ns};
}

static void fill_status(struct mosaic_status *st, const struct noc_header *h, int error)
{
	fill_status_at(st, h, error, vtime_now_ns()); /* the clock first: nothing of the header lives across it */
}

static bool valid_core(int c) { return c >= 0 && noc_ep_valid((unsigned)c); }

static bool is_user(uint16_t type) { return type & NOC_TYPE_USER; }

/* Before a receive matches at its time: nothing that arrives earlier and matches may still come.
 * A kernel message's source is the core that sends it, so a kernel receive that names its
 * source settles for that core alone (vtime_settle_from); a user endpoint may be hosted
 * anywhere, and any source may match a wildcard. */
static void settle_for(uint16_t type, int src)
{
	if (!is_user(type) && src != MSG_ANY_SOURCE)
		vtime_settle_from((unsigned)src);
	else
		vtime_settle();
}

/* Whether the mailbox of `type`'s channel holds anything at all (no lock: a hint). */
static bool ep_has_mail(unsigned me, uint16_t type)
{
	return noc_mailbox_holds_mail(noc_mailbox_of(me, type));
}

/* The session a message of `type` sent from this endpoint carries (kernel traffic: none). */
static uint32_t session_for(const struct endpoint *ep, uint16_t type) { return is_user(type) ? ep->session : 0; }

/* What an unhandled user message costs the kernel: its queue entry and its body. */
static uint64_t held_bytes(const struct unhandled_msg *u) { return sizeof *u + u->h.len; }

/* Queues u in arrival order: after every message that arrived no later (usually at the
 * tail; under virtual time a message drained later may have arrived earlier). */
static void unhandled_insert(struct endpoint *ep, struct unhandled_msg *u)
{
	if (!ep->uh_tail || ep->uh_tail->h.t_deliver_ns <= u->h.t_deliver_ns) {
		if (ep->uh_tail)
			ep->uh_tail->next = u;
		else
			ep->uh_head = u;
		ep->uh_tail = u;
		return;
	}
	struct unhandled_msg **pp = &ep->uh_head;
	while ((*pp)->h.t_deliver_ns <= u->h.t_deliver_ns)
		pp = &(*pp)->next;
	u->next = *pp;
	*pp = u;
}

/* Unlinks u (whose predecessor is prev) from the unhandled queue and frees it. */
static void unhandled_remove(struct endpoint *ep, struct unhandled_msg *prev, struct unhandled_msg *u)
{
	if (prev)
		prev->next = u->next;
	else
		ep->uh_head = u->next;
	if (ep->uh_tail == u)
		ep->uh_tail = prev;
	ep->uh_count--;
	ep->uh_kind[u->h.type % UH_KINDS]--;
	if (is_user(u->h.type)) {
		ep->uh_user--;
		ep->uh_user_bytes -= held_bytes(u);
	}
	kfree(u->body);
	kfree(u);
}
/* The checks every send makes before anything is queued or sent. */
static inline __attribute__((always_inline)) int check_send(int dst, int tag, const void *buf, uint32_t len)
{
	if (!valid_core(dst))
		return -ENXIO;
	if (tag < 0)
		return -EINVAL;
	if (len > NOC_MAX_BODY)
		return -EMSGSIZE;
	if (len && !buf)
		return -EINVAL;
	return 0;
}

/* ---- send side ---- */

/* One attempt; true when the request is finished (sent or failed). */
static bool try_send(unsigned me, struct msg_request *r)
{
	int e = noc_hw_send(me, r->peer, r->type, r->tag, session_for(&endpoints[me], r->type), r->sbuf, r->len,
			    r->xsend, true);
	if (e == -EBUSY)
		return false;
	r->status = (struct mosaic_status){.source = (int)me, .tag = r->tag, .len = r->len, .error = e};
	r->state = MSG_REQ_DONE;
	return true;
}

/* ---- receive side ---- */

/* Completes r with message (h, body); false if r's buffer is too small (then nothing is taken). */
static bool deliver(struct msg_request *r, const struct noc_header *h, const uint8_t *body, uint64_t now)
{
	if (h->len > r->len) {
		fill_status_at(&r->status, h, -EOVERFLOW, now);
		r->state = MSG_REQ_DONE;
		return false;
	}
	if (h->len)
		memcpy_small(r->rbuf, body, h->len);
	fill_status_at(&r->status, h, 0, now);
	r->state = MSG_REQ_DONE;
	return true;
}

/* The oldest arrival r matches in the unhandled queue, if it arrived no later than
 * `before` (a message visible in the mailbox that arrived earlier goes first); taken at `now`. */
static bool match_unhandled(struct endpoint *ep, struct msg_request *r, uint64_t before, uint64_t now)
{
	struct unhandled_msg *prev = 0;
	for (struct unhandled_msg *u = ep->uh_head; u; prev = u, u = u->next) {
		if (!noc_matches(&u->h, &r->match))
			continue;
		if (u->h.t_deliver_ns > before)
			return false;
		if (deliver(r, &u->h, u->body, now))
			unhandled_remove(ep, prev, u); /* else too small: the message stays */
		return true;
	}
	return false;
}

/* Arrival time of the oldest visible mailbox message r matches (UINT64_MAX if none). */
static uint64_t mailbox_first(unsigned me, struct msg_request *r, uint64_t now)
{
	if (!ep_has_mail(me, r->type))
		return UINT64_MAX;
	struct noc_mailbox *mb = noc_mailbox_of(me, r->type);
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = noc_mailbox_find(mb, &r->match, now, 0);
	uint64_t t = slot ? slot->h.t_deliver_ns : UINT64_MAX;
	spin_unlock(&mb->lock, s);
	return t;
}

static bool match_mailbox(unsigned me, struct msg_request *r, uint64_t now)
{
	struct noc_mailbox *mb = noc_mailbox_of(me, r->type);
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = noc_mailbox_find(mb, &r->match, now, 0);
	bool done = false;
	if (slot) {
		done = true;
		if (deliver(r, &slot->h, slot->body, now))
			noc_mailbox_release(me, mb, slot);
	}
	spin_unlock(&mb->lock, s);
	return done;
}

/*
 * Moves every visible message out of one channel's mailbox into the unhandled
 * queue, freeing its credits (NoCMsg's rule for waiting). On the user channel only
 * while the core's user buffer has room: beyond it, messages keep their slots and
 * their senders wait for credits. Returns the earliest delivery time of the
 * messages still in flight on this channel, UINT64_MAX if none.
 */
static uint64_t drain_channel(unsigned me, struct endpoint *ep, struct noc_mailbox *mb, bool user)
{
	uint64_t now = noc_now_ns(), next = UINT64_MAX;
	for (;;) {
		uint64_t s = spin_lock(&mb->lock);
		struct noc_slot *slot = noc_mailbox_find(mb, 0, now, &next);
		if (!slot || (user && ep->uh_user_bytes + sizeof(struct unhandled_msg) + slot->h.len > msg_user_buffer)) {
			spin_unlock(&mb->lock, s);
			return next;
		}
		struct unhandled_msg *u = kmalloc(sizeof *u);
		uint8_t *body = 0;
		if (u && slot->h.len) {
			if (slot->body != slot->inline_body) {
				body = slot->body; /* a large body changes owner without a copy */
				slot->body = 0;
			} else if ((body = kmalloc(slot->h.len))) {
				memcpy(body, slot->body, slot->h.len);
			}
		}
		if (!u || (slot->h.len && !body)) {
			/* out of memory: leave it in the mailbox, it is still there for a receive */
			spin_unlock(&mb->lock, s);
			kfree(u);
			return next;
		}
		u->h = slot->h;
		u->body = body;
		u->next = 0;
		noc_mailbox_release(me, mb, slot);
		spin_unlock(&mb->lock, s);
		unhandled_insert(ep, u);
		ep->uh_count++;
		ep->uh_kind[u->h.type % UH_KINDS]++;
		if (user) {
			ep->uh_user++;
			ep->uh_user_bytes += held_bytes(u);
		}
	}
}

/* Drains both channels; a user message of a session other than the core's is dropped
 * first (it is stale: its task is gone, or it was never addressed to this one). */
static uint64_t drain_mailbox(unsigned core, unsigned uid)
{
	struct noc_mailbox *kb = &noc_mailboxes[core];
	uint64_t next = noc_mailbox_holds_mail(kb) ? drain_channel(core, &endpoints[core], kb, false) : UINT64_MAX;
	struct noc_mailbox *ub = &noc_user_mailboxes[uid];
	struct endpoint *uep = &endpoints[uid];
	if (!noc_mailbox_holds_mail(ub))
		return next;
	noc_user_discard(uid, uep->session);
	uint64_t unext = uep->session ? drain_channel(uid, uep, ub, true) : UINT64_MAX;
	return unext < next ? unext : next;
}

/* ---- progress and waiting ---- */

/* Whether mailbox mb holds a message visible at `now`. */
static bool box_visible(struct noc_mailbox *mb, uint64_t now)
{
	if (!noc_mailbox_holds_mail(mb))
		return false;
	uint64_t s = spin_lock(&mb->lock);
	bool found = noc_mailbox_find(mb, 0, now, 0) != 0;
	spin_unlock(&mb->lock, s);
	return found;
}

static void progress_queues(unsigned me, struct endpoint *ep)
{
	/* the peers an earlier send still queued in this pass goes to (a send never overtakes one):
	 * asking the queue for each request made a pass quadratic in an all-to-all's sends; peers are
	 * valid endpoints, and the modulo only keeps the index in range whatever a request holds */
	uint64_t held[NOC_ENDPOINTS / 64] = {0};
	struct msg_request *prev = 0, *r = ep->send_head;
	while (r) {
		struct msg_request *next = r->next;
		uint64_t bit = 1UL << (r->peer % 64), *word = &held[r->peer / 64 % (NOC_ENDPOINTS / 64)];
		/* one still queued for its credit is woken when it comes (noc_awaits_credit) */
		if (!(*word & bit) && !noc_awaits_credit(me, r->peer, r->type) && try_send(me, r)) {
			queue_remove(&ep->send_head, &ep->send_tail, prev, r);
		} else {
			*word |= bit;
			prev = r;
		}
		r = next;
	}
	if (!ep->recv_head)
		return; /* no clock read: a blocking receive waits without a request (msg_recv_typed) */
	uint64_t now = noc_now_ns();
	/* Which sources each channel's mailbox shows a message from by now: asked once per pass,
	 * after a receive of that channel first failed to match, and a later receive that names a
	 * source it does not show is not matched against the mailbox. An all-to-all posts a
	 * receive per peer, and otherwise each would lock and scan the mailbox on every pass of
	 * its wait. Asked only after a first miss, so that a lone receive that matches scans the
	 * mailbox once (bench-invade measures it). A message posted during the pass bumps the
	 * core's events, so its wait passes again; one taken during it leaves its bit set, which
	 * costs a scan and nothing else. */
	enum { TRY_ITSELF = -2, ASK = -1 }; /* then 0: nothing shown, 1: something shown */
	uint64_t shown[2][NOC_ENDPOINTS / 64];
	int8_t shows[2] = {TRY_ITSELF, TRY_ITSELF};
	prev = 0;
	r = ep->recv_head;
	while (r) {
		struct msg_request *next = r->next;
		unsigned channel = is_user(r->type);
		if (shows[channel] == ASK)
			shows[channel] = noc_mailbox_visible_sources(noc_mailbox_of(me, r->type), now, shown[channel]);
		int src = r->match.src;
		bool may = shows[channel] == TRY_ITSELF ||
			   (shows[channel] > 0 &&
			    (src < 0 || (src < NOC_ENDPOINTS && (shown[channel][src / 64] >> (src % 64) & 1))));
		/* the mailbox's first match bounds the unhandled queue's: looked up only if that queue holds any */
		if ((ep->uh_head && match_unhandled(ep, r, may ? mailbox_first(me, r, now) : UINT64_MAX, now)) ||
		    (may && match_mailbox(me, r, now))) {
			queue_remove(&ep->recv_head, &ep->recv_tail, prev, r);
		} else {
			prev = r;
			if (shows[channel] == TRY_ITSELF)
				shows[channel] = ASK;
		}
		r = next;
	}
}

/* Sends what waits for a credit and matches the posted receives of endpoint me. Inline gate: a
 * blocking receive queues nothing (msg_recv_typed), and its wait calls this on every round. */
static inline void progress(unsigned me, struct endpoint *ep)
{
	if (ep->send_head || ep->recv_head)
		progress_queues(me, ep);
}

bool msg_endpoint_has_news(unsigned ep)
{
	return ep < NOC_ENDPOINTS && box_visible(&noc_user_mailboxes[ep], vtime_now_ns());
}

/* True if a message in one of this core's mailboxes (or of a task time-sliced here) is
 * visible at the clock its wait leaves it at (not at the clock its polls have run up:
 * that would make it depend on them). */
static bool something_visible(unsigned me)
{
	uint64_t now = vtime_wait_clock();
	if (box_visible(&noc_mailboxes[me], now) || box_visible(&noc_user_mailboxes[me], now))
		return true;
	uint16_t eps[NOC_EP_VIRT_MAX];
	for (unsigned i = 0, n = noc_ep_hosted(me, eps, NOC_EP_VIRT_MAX); i < n; i++)
		if (box_visible(&noc_user_mailboxes[eps[i]], now))
			return true;
	return false;
}

/* Fast path of a receive with no earlier receive posted and nothing unhandled:
 * take a visible message straight from the mailbox. -EAGAIN if there is none. */
static inline __attribute__((always_inline)) int recv_direct(unsigned me, uint16_t type, int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st)
{
	struct noc_match m = {.src = src, .tag = tag, .type = type, .session = session_for(&endpoints[me], type)};
	struct noc_mailbox *mb = noc_mailbox_of(me, type);
	int e = -EAGAIN;
	uint64_t s = spin_lock(&mb->lock), now = vtime_now_ns();
	struct noc_slot *slot = noc_mailbox_find(mb, &m, now, 0);
	if (slot) {
		e = slot->h.len > cap ? -EOVERFLOW : 0;
		if (!e && slot->h.len)
			memcpy_small(buf, slot->body, slot->h.len);
		if (st) /* received when it was found: one clock read for both (a read is a marker and a load) */
			fill_status_at(st, &slot->h, e, now);
		if (!e)
			noc_mailbox_release(me, mb, slot);
	}
	spin_unlock(&mb->lock, s);
	return e;
}

/* A blocking receive that waits without posting a request (msg_recv_typed). */
struct direct_recv {
	const struct endpoint *ep; /* endpoints[me]: an index into it costs a multiply on every look */
	unsigned me;
	uint16_t type;
	int src, tag;
	void *buf;
	uint32_t cap;
	struct mosaic_status *st;
	int result;
	bool fallback; /* messages were drained meanwhile: the request path keeps their order */
};

/* Whether a queued send of endpoint `me` (the endpoint, not its core: a task's may be virtual)
 * may go now, for a wait woken by news: a send still queued for its credit at its peer (or
 * held behind one that is) only waits for that credit, whose hand-over bumps the events again.
 * Otherwise a sender waiting for a credit would be woken by every message in flight to it (an
 * all-to-all) and leave its wait for each. A long queue is not walked: its wait passes again, as
 * for any other news. */
#define SENDS_WALKED 16
static bool sends_may_go(unsigned me, const struct endpoint *ep)
{
	unsigned walked = 0;
	for (const struct msg_request *r = ep->send_head; r; r = r->next)
		if (++walked > SENDS_WALKED || !noc_awaits_credit(me, r->peer, r->type))
			return true;
	return false;
}

/* Inline in wait_until_done: a call through its pointer, and a frame of its own, would lie on a
 * barrier's critical path at every level of its tree. */
static inline __attribute__((always_inline)) bool direct_done(void *arg)
{
	struct direct_recv *d = arg;
	if (d->ep->uh_head || d->ep->recv_head) {
		d->fallback = true;
		return true;
	}
	d->result = recv_direct(d->me, d->type, d->src, d->tag, d->buf, d->cap, d->st);
	return d->result != -EAGAIN;
}

/* What ends a user task's wait early: its kill (it gives up) and input typed on the shell's core. */
static inline bool task_wait_stops(void) { return hart_kill_pending() || shell_edge_due(); }

/* The idle wait of wait_until_done (kernel/time/wait.h): what it has seen of its core's mailbox. */
struct msg_wait {
	unsigned me, id;
	const struct endpoint *ep;
	struct noc_mailbox *mb;
	uint32_t seen;   /* the mailbox's events as the last look before the wait, or the last poll, saw them */
	uint64_t next_ns; /* the next delivery in flight to it as the drain left it */
	bool interruptible;
};

static inline __attribute__((always_inline)) bool msg_wait_look(void *arg, struct vtime_wait_look *l)
{
	struct msg_wait *w = arg;
	/* including what came since the drain (without virtual time the sender's wake-up tells) */
	uint64_t posted = vtime_active ? noc_mailbox_next_delivery(w->me) : UINT64_MAX;
	uint64_t own = posted < w->next_ns ? posted : w->next_ns;
	/* a message posted since `seen` (during the drain, say) and visible by now is in neither
	 * figure, and vtime_wait_begin forgot its note: it is due now, or this core would publish
	 * a bound past the reply it is about to send */
	if (vtime_active && __atomic_load_n(&w->mb->events, __ATOMIC_ACQUIRE) != w->seen && something_visible(w->me))
		own = 0;
	/* so is a kill that came since the look before the wait: vtime_wait_begin forgot its note
	 * (utask_kill), and the core must not publish a bound past it; and so is typed input,
	 * which the shell serves on this core's clock */
	if (w->interruptible && task_wait_stops())
		own = 0;
	l->own_ns = own;
	return true;
}

static inline __attribute__((always_inline)) bool msg_wait_woken(void *arg)
{
	struct msg_wait *w = arg;
	return __atomic_load_n(&w->mb->events, __ATOMIC_ACQUIRE) != w->seen ||
	       (!vtime_active && noc_now_ns() >= w->next_ns) || (w->interruptible && task_wait_stops()) ||
	       share_msg_news();
}

/* News ends the wait; a poll, or a message still in flight, keeps it waiting, so that the
 * instructions of the wake-up are taken back and the clock does not depend on when it came. */
static inline __attribute__((always_inline)) bool msg_wait_keep(void *arg, bool woke)
{
	struct msg_wait *w = arg;
	(void)woke;
	if (!vtime_active || (w->interruptible && task_wait_stops()) || share_msg_news())
		return false;
	uint32_t now_seen = __atomic_load_n(&w->mb->events, __ATOMIC_ACQUIRE);
	if (now_seen != w->seen &&
	    ((w->ep->send_head && sends_may_go(w->id, w->ep)) || something_visible(w->me) || share_msg_others()))
		return false; /* something to do now (for another task time-sliced here: a credit to it) */
	w->seen = now_seen;
	return true;
}

/* Makes progress on endpoint id, sleeping in WFI between attempts, until done(arg) (done NULL: a
 * blocking receive's direct_recv, checked inline): true
 * then. An interruptible wait (a user task's) gives up, false, once its task is to be
 * killed. A user task time-sliced with others on this core (kernel/task/share/share.h) gives the
 * core to them while it waits, by its job's wait mode; it waits here itself only when
 * every task of the core waits, so the core's clock jumps as a lone waiter's does.
 * On the shell's core it also stops for what is typed there, which the shell then reads
 * (shell_task_edge), and waits again.
 * Inlined into its three callers: a blocking receive whose message comes then returns through
 * one frame, not two, on a barrier's critical path at every level (docs/noc.md). */
static inline __attribute__((always_inline)) bool wait_until_done(unsigned id, bool (*done)(void *), void *arg,
								  bool interruptible)
{
	struct endpoint *ep = &endpoints[id];
	for (;;) {
		/* read again every time: a task time-sliced here may move to another core while
		 * share_msg_wait has switched it out (then its endpoint id is virtual and stays) */
		unsigned me = this_cpu();
		struct noc_mailbox *mb = &noc_mailboxes[me];
		uint32_t seen = __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE);
		progress(id, ep);
		if (done ? done(arg) : direct_done(arg))
			return true;
		uint64_t next_ns;
		if (__builtin_expect(!ep->send_head && !ep->recv_head, 1)) {
			next_ns = drain_mailbox(me, id); /* a blocking receive: no queue to progress */
		} else {
			/* Again only if the drain moved something or news came since `seen`: else this
			 * pass could match nothing the first could not (the drain took every visible
			 * message, and a credit or a post bumps the events, which the wait below then
			 * sees). An unconditional second pass is mostly empty and costs every wait
			 * instructions. */
			unsigned drained_before = ep->uh_count;
			next_ns = drain_mailbox(me, id);
			if (ep->uh_count != drained_before || __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE) != seen)
				progress_queues(id, ep);
		}
		if (noc_ep_reserved()) {
			uint64_t hosted = noc_mailbox_next_delivery(me); /* also the tasks time-sliced here */
			next_ns = hosted < next_ns ? hosted : next_ns;
		}
		if (done ? done(arg) : direct_done(arg))
			return true;
		if (interruptible && hart_kill_pending())
			return false;
		if (interruptible && share_msg_wait(seen, noc_ep_is_virtual(id)))
			continue; /* another task of this core ran meanwhile (or a spinner's slice goes on) */
		uint64_t blocked_from = vtime_now_ns();
		/* nothing to do before the next message in flight to us arrives: under virtual
		 * time the clock jumps there once that is safe (kernel/time/vtime.c), and the
		 * caller looks again; else we sleep */
		struct msg_wait w = {.me = me, .id = id, .ep = ep, .mb = mb, .seen = seen, .next_ns = next_ns,
				     .interruptible = interruptible};
		vtime_wait(&(const struct vtime_wait){.look = msg_wait_look, .woken = msg_wait_woken, .keep = msg_wait_keep,
						      .arg = &w, .sleeping = &mb->sleeping, .jump_ends = true});
		share_msg_blocked(blocked_from);
		if (interruptible)
			shell_task_edge();
	}
}

static bool request_done(void *arg) { return ((struct msg_request *)arg)->state == MSG_REQ_DONE; }

/* ---- the API ---- */

static bool peer_has_pending_send(struct endpoint *ep, unsigned peer)
{
	for (struct msg_request *q = ep->send_head; q; q = q->next)
		if (q->peer == peer)
			return true;
	return false;
}

/* A pending send to peer on the same channel as `type` (it still needs a credit there). */
static bool channel_has_pending_send(struct endpoint *ep, unsigned peer, uint16_t type)
{
	for (struct msg_request *q = ep->send_head; q; q = q->next)
		if (q->peer == peer && is_user(q->type) == is_user(type))
			return true;
	return false;
}

/* msg_isend_typed, with its first try left out when `try_now` is false: the caller's own try was
 * just refused for want of a credit, so the sender is queued for one and its wait wakes when it
 * comes (noc_awaits_credit); a second try at once would take the lock only to be refused. */
static int isend(uint16_t type, int dst, int tag, const void *buf, uint32_t len, bool xsend, struct msg_request *req,
		 bool try_now)
{
	if (!req)
		return -EINVAL;
	int bad = check_send(dst, tag, buf, len);
	if (bad)
		return bad;
	unsigned me = self_for(type);
	struct endpoint *ep = &endpoints[me];
	*req = (struct msg_request){.kind = MSG_REQ_SEND, .state = MSG_REQ_PENDING, .xsend = xsend, .type = type,
				    .peer = (uint16_t)dst, .tag = tag, .sbuf = buf, .len = len};
	/* a send never overtakes an earlier one to the same destination */
	if (try_now && !peer_has_pending_send(ep, (unsigned)dst) && try_send(me, req))
		return req->status.error;
	queue_append(&ep->send_head, &ep->send_tail, req);
	return 0;
}

int msg_isend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len, bool xsend,
		    struct msg_request *req)
{
	return isend(type, dst, tag, buf, len, xsend, req, true);
}

/* A receive of this type is already posted (it goes first). */
static bool earlier_recv_of_type(const struct endpoint *ep, uint16_t type)
{
	for (const struct msg_request *r = ep->recv_head; r; r = r->next)
		if (r->type == type)
			return true;
	return false;
}

int msg_irecv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct msg_request *req)
{
	if (!req)
		return -EINVAL;
	if (src != MSG_ANY_SOURCE && !valid_core(src))
		return -ENXIO; /* a receive that could never match */
	if (tag < 0 && tag != MSG_ANY_TAG)
		return -EINVAL;
	if (cap && !buf)
		return -EINVAL;
	unsigned me = self_for(type);
	struct endpoint *ep = &endpoints[me];
	*req = (struct msg_request){.kind = MSG_REQ_RECV, .state = MSG_REQ_PENDING, .type = type, .rbuf = buf,
				    .len = cap, .match = {.src = src, .tag = tag, .type = type,
							  .session = session_for(ep, type)}};
	/* only the oldest posted receive that could take the same messages may take one at once:
	 * keep the post order (a receive of another type never matches the same message, so a
	 * task's kernel call waiting for its reply does not hold back its core's other traffic) */
	if (!earlier_recv_of_type(ep, type)) {
		/* Taking the oldest arrival now is right only if nothing older can still come, which a
		 * settle establishes (it costs no virtual time, but a wait when a source lags). A
		 * kernel receive that names its source needs none to take a message it finds: the
		 * messages of one pair arrive in the order they were sent (noc_hw_send), so nothing
		 * that arrives earlier can still come from that source, as for msg_recv_typed. Only
		 * when it finds nothing does it settle and look again, since that message may still be
		 * on its way. A receive that queues behind an earlier one takes nothing now and so
		 * needs no settle at all. Settling first would cost every named kernel receive a
		 * settle, often a wait, to take a message that is already final (docs/time.md,
		 * "Posted receives without a settle"). */
		bool try_unsettled = !is_user(type) && src != MSG_ANY_SOURCE && (ep->uh_head || ep_has_mail(me, type));
		for (bool settled = !try_unsettled;; settled = true) {
			if (settled)
				settle_for(type, src);
			uint64_t now = noc_now_ns();
			if ((ep->uh_head && match_unhandled(ep, req, mailbox_first(me, req, now), now)) ||
			    match_mailbox(me, req, now))
				return 0;
			if (settled)
				break;
		}
	}
	queue_append(&ep->recv_head, &ep->recv_tail, req);
	return 0;
}

int msg_test(struct msg_request *req, int *done, struct mosaic_status *st)
{
	if (!req || req->state == MSG_REQ_IDLE || !done)
		return -EINVAL;
	if (req->state != MSG_REQ_DONE) {
		if (is_user(req->type))
			vtime_settle();
		progress(self_for(req->type), &endpoints[self_for(req->type)]);
	}
	*done = req->state == MSG_REQ_DONE;
	if (*done && st)
		*st = req->status;
	return *done ? req->status.error : 0;
}

int msg_wait(struct msg_request *req, struct mosaic_status *st)
{
	if (!req || req->state == MSG_REQ_IDLE)
		return -EINVAL;
	if (req->state != MSG_REQ_DONE &&
	    !wait_until_done(self_for(req->type), request_done, req,
			     is_user(req->type) || req->interruptible)) {
		msg_cancel(req); /* its task is being killed: nothing may point into it any more */
		return -EINTR;
	}
	if (st)
		*st = req->status;
	req->state = MSG_REQ_IDLE; /* the request can be reused */
	return req->status.error;
}

int msg_send_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len)
{
	/* fast path: nothing queued before us, so sending at once keeps every ordering rule */
	unsigned me = self_for(type);
	struct endpoint *ep = &endpoints[me];
	bool refused = false;
	if (!ep->send_head && check_send(dst, tag, buf, len) == 0) {
		int e = noc_hw_send(me, (unsigned)dst, type, tag, session_for(ep, type), buf, len, false, true);
		if (e != -EBUSY)
			return e;
		refused = true; /* queued for a credit now: the wait below wakes when it comes */
	}
	struct msg_request req;
	int e = isend(type, dst, tag, buf, len, false, &req, !refused);
	return e ? e : msg_wait(&req, 0);
}

int msg_xsend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len)
{
	struct msg_request req;
	int e = msg_isend_typed(type, dst, tag, buf, len, true, &req);
	return e ? e : msg_wait(&req, 0);
}

int msg_xsend(int dst, int tag, const void *buf, uint32_t len) { return msg_xsend_typed(MSG_TYPE_DATA, dst, tag, buf, len); }

int msg_isend(int dst, int tag, const void *buf, uint32_t len, struct msg_request *req)
{
	return msg_isend_typed(MSG_TYPE_DATA, dst, tag, buf, len, false, req);
}

int msg_trysend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len)
{
	int bad = check_send(dst, tag, buf, len);
	if (bad)
		return bad;
	unsigned me = self_for(type);
	struct endpoint *ep = &endpoints[me];
	if (peer_has_pending_send(ep, (unsigned)dst))
		return -EBUSY; /* earlier sends to dst still wait for credits */
	return noc_hw_send(me, (unsigned)dst, type, tag, session_for(ep, type), buf, len, false, false);
}

int msg_trysend(int dst, int tag, const void *buf, uint32_t len) { return msg_trysend_typed(MSG_TYPE_DATA, dst, tag, buf, len); }

int msg_recv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st)
{
	unsigned me = self_for(type);
	struct endpoint *ep = &endpoints[me];
	if (!ep->recv_head && !ep->uh_head && (src == MSG_ANY_SOURCE || valid_core(src)) &&
	    (tag >= 0 || tag == MSG_ANY_TAG) && (buf || !cap)) {
		/* A visible message from a named source is final without the settle: the messages of
		 * one pair arrive in the order they were sent (noc_hw_send), so nothing that arrives
		 * earlier can still come from that source, and no other source matches. A kernel
		 * receive that finds nothing needs none either: its wait below keeps the clock where
		 * the wait began until a jump, a jump is safe only once everything arriving before it
		 * is posted, and every post wakes the core, so the wait takes the first message of
		 * that source as it would have been found now, or at its arrival. A settle first would
		 * mostly wait and rarely find anything (docs/time.md, "the blocking receive's second
		 * settle"). A user receive still settles: its wait may give the core to another task
		 * meanwhile. */
		bool named = src != MSG_ANY_SOURCE;
		/* recv_direct is inlined here and in the wait (a frame of its own would cost every receive a call) */
		for (bool settled = !named; ; settled = true) {
			if (settled)
				settle_for(type, src); /* nothing that arrives earlier can still come */
			int e = recv_direct(me, type, src, tag, buf, cap, st);
			if (e != -EAGAIN)
				return e;
			if (settled || !vtime_active || !is_user(type))
				break;
		}
		/* Nothing visible yet: wait for it as it is, and take it the direct way when it comes.
		 * Through a posted request the wait's end would cost more (the request's match and
		 * delivery, its removal from the queue, the status copied out), and on the
		 * virtual clock a barrier pays that twice per level of its tree. While nothing is drained
		 * into the unhandled queue (a message from elsewhere, or for a sender waiting for a
		 * credit), the mailbox alone holds what this receive may take, in arrival order. */
		struct direct_recv d; /* field by field: an initialiser made GCC clear it with memset first */
		d.ep = ep;
		d.me = me;
		d.type = type;
		d.src = src;
		d.tag = tag;
		d.buf = buf;
		d.cap = cap;
		d.st = st;
		d.result = -EAGAIN;
		d.fallback = false;
		if (!wait_until_done(me, 0, &d, is_user(type)))
			return -EINTR;
		if (!d.fallback)
			return d.result;
	}
	struct msg_request req;
	int e = msg_irecv_typed(type, src, tag, buf, cap, &req);
	return e ? e : msg_wait(&req, st);
}

int msg_irecv(int src, int tag, void *buf, uint32_t cap, struct msg_request *req)
{
	return msg_irecv_typed(MSG_TYPE_DATA, src, tag, buf, cap, req);
}

int msg_tryrecv_typed(uint16_t type, int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st)
{
	if (is_user(type))
		vtime_settle(); /* a task's "nothing yet" holds at its time: nothing earlier may still come */
	struct msg_request req;
	int e = msg_irecv_typed(type, src, tag, buf, cap, &req);
	if (e)
		return e;
	if (req.state != MSG_REQ_DONE) {
		msg_cancel(&req); /* not matched at once: withdraw the receive again */
		return -EAGAIN;
	}
	if (st)
		*st = req.status;
	return req.status.error;
}

int msg_tryrecv(int src, int tag, void *buf, uint32_t cap, struct mosaic_status *st)
{
	return msg_tryrecv_typed(MSG_TYPE_DATA, src, tag, buf, cap, st);
}

struct probe_state {
	unsigned me;
	struct noc_match match;
	struct mosaic_status *st;
	bool found;
};

static bool probe_once(void *arg)
{
	struct probe_state *p = arg;
	struct endpoint *ep = &endpoints[p->me];
	for (struct unhandled_msg *u = ep->uh_head; u; u = u->next)
		if (noc_matches(&u->h, &p->match)) {
			fill_status(p->st, &u->h, 0);
			return p->found = true;
		}
	struct noc_mailbox *mb = noc_mailbox_of(p->me, (uint16_t)p->match.type);
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = noc_mailbox_find(mb, &p->match, noc_now_ns(), 0);
	if (slot) {
		fill_status(p->st, &slot->h, 0);
		p->found = true;
	}
	spin_unlock(&mb->lock, s);
	return p->found;
}

int msg_probe_typed(uint16_t type, int src, int tag, bool block, struct mosaic_status *st)
{
	if (!st)
		return -EINVAL;
	if (src != MSG_ANY_SOURCE && !valid_core(src))
		return -ENXIO;
	if (tag < 0 && tag != MSG_ANY_TAG)
		return -EINVAL;
	struct probe_state p = {.me = self_for(type),
				.match = {.src = src, .tag = tag, .type = type,
					  .session = session_for(&endpoints[self_for(type)], type)},
				.st = st};
	if (!block && is_user(type))
		vtime_settle();
	if (probe_once(&p))
		return 0;
	if (!block)
		return -EAGAIN;
	return wait_until_done(p.me, probe_once, &p, is_user(type)) ? 0 : -EINTR;
}

int msg_probe(int src, int tag, bool block, struct mosaic_status *st)
{
	return msg_probe_typed(MSG_TYPE_DATA, src, tag, block, st);
}

void msg_cancel(struct msg_request *req)
{
	if (!req || req->state != MSG_REQ_PENDING)
		return;
	unsigned me = self_for(req->type);
	struct endpoint *ep = &endpoints[me];
	bool send = req->kind == MSG_REQ_SEND;
	struct msg_request **head = send ? &ep->send_head : &ep->recv_head, **tail = send ? &ep->send_tail : &ep->recv_tail;
	struct msg_request *prev = 0;
	for (struct msg_request *q = *head; q; prev = q, q = q->next)
		if (q == req) {
			queue_remove(head, tail, prev, q);
			break;
		}
	if (send && !channel_has_pending_send(ep, req->peer, req->type))
		noc_cancel_credit(me, req->peer, req->type);
	req->state = MSG_REQ_IDLE;
}

void msg_drain(void)
{
	drain_mailbox(this_cpu(), noc_ep_self());
}

unsigned msg_unhandled_sources(uint16_t type, uint64_t sources[MOSAIC_MAX_HARTS / 64])
{
	unsigned n = 0;
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		sources[w] = 0;
	const struct endpoint *ep = &endpoints[self_for(type)];
	if (!ep->uh_kind[type % UH_KINDS])
		return 0;
	for (struct unhandled_msg *u = ep->uh_head; u; u = u->next)
		if (u->h.type == type && u->h.src < MOSAIC_MAX_HARTS) { /* kernel traffic: cores only */
			sources[u->h.src / 64] |= 1UL << (u->h.src % 64);
			n++;
		}
	return n;
}

unsigned msg_pending_sources(uint16_t type, uint64_t sources[MOSAIC_MAX_HARTS / 64])
{
	unsigned me = self_for(type), n = msg_unhandled_sources(type, sources);
	if (!ep_has_mail(me, type))
		return n;
	vtime_settle(); /* "visible now" must not change when something earlier is still on its way */
	struct noc_mailbox *mb = noc_mailbox_of(me, type);
	uint64_t now = noc_now_ns(), s = spin_lock(&mb->lock);
	for (uint64_t bits = mb->used_mask; bits; bits &= bits - 1) {
		const struct noc_header *h = &mb->slots[lowest_bit(bits)].h;
		if (h->type == type && h->t_deliver_ns <= now && h->src < MOSAIC_MAX_HARTS) {
			sources[h->src / 64] |= 1UL << (h->src % 64);
			n++;
		}
	}
	spin_unlock(&mb->lock, s);
	return n;
}

bool msg_maybe_pending(uint16_t type)
{
	unsigned me = self_for(type);
	return endpoints[me].uh_kind[type % UH_KINDS] || ep_has_mail(me, type);
}

bool msg_type_here(uint16_t type, uint64_t *next_ns)
{
	unsigned me = self_for(type);
	const struct endpoint *ep = &endpoints[me];
	*next_ns = UINT64_MAX;
	if (ep->uh_kind[type % UH_KINDS])
		for (const struct unhandled_msg *u = ep->uh_head; u; u = u->next)
			if (u->h.type == type)
				return true;
	if (!ep_has_mail(me, type))
		return false;
	struct noc_mailbox *mb = noc_mailbox_of(me, type);
	uint64_t now = vtime_wait_clock();
	bool found = false;
	uint64_t s = spin_lock(&mb->lock);
	for (uint64_t bits = mb->used_mask; bits && !found; bits &= bits - 1) {
		const struct noc_header *h = &mb->slots[lowest_bit(bits)].h;
		if (h->type != type)
			continue;
		if (h->t_deliver_ns <= now)
			found = true;
		else if (h->t_deliver_ns < *next_ns)
			*next_ns = h->t_deliver_ns;
	}
	spin_unlock(&mb->lock, s);
	return found;
}

bool msg_credit_waiters(void)
{
	const struct noc_mailbox *mb = &noc_mailboxes[this_cpu()];
	return __atomic_load_n(&mb->credit_count, __ATOMIC_RELAXED) != 0;
}


/* ---- user sessions: messages belong to their sender's task ---- */

uint32_t msg_new_session(void)
{
	static uint32_t last; /* shared by every core: an atomic counter */
	uint32_t s;
	do
		s = __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED) & ~MSG_SESSION_JOB;
	while (!s);
	return s;
}

/* Drops this core's user messages of sessions other than keep (all of them for
 * keep == 0), in the mailbox and in the unhandled queue. */
static void drop_user_messages(unsigned me, struct endpoint *ep, uint32_t keep)
{
	noc_user_discard(me, keep);
	struct unhandled_msg *prev = 0, *u = ep->uh_head;
	while (u && ep->uh_user) {
		struct unhandled_msg *next = u->next;
		if (is_user(u->h.type) && (!keep || u->h.session != keep)) {
			unhandled_remove(ep, prev, u);
			noc_core_stats[me].discarded++;
		} else {
			prev = u;
		}
		u = next;
	}
}

/* Unlinks the user requests still queued (a task must have cancelled them all: this
 * is the safety net that keeps a dead task's requests out of the queues). */
static void unlink_user_requests(unsigned me, struct msg_request **head, struct msg_request **tail)
{
	struct msg_request *prev = 0;
	for (struct msg_request *r = *head; r;) {
		struct msg_request *next = r->next;
		if (is_user(r->type)) {
			kprintf("msg: core %u: a user request outlived its task (type %u, peer %u)\n", me, r->type, r->peer);
			if (prev)
				prev->next = next;
			else
				*head = next;
			if (*tail == r)
				*tail = prev;
		} else {
			prev = r;
		}
		r = next;
	}
}

void msg_session_begin(uint32_t session)
{
	unsigned me = noc_ep_self();
	struct endpoint *ep = &endpoints[me];
	ep->session = session;
	drop_user_messages(me, ep, session);
}

void msg_session_end(void)
{
	unsigned me = noc_ep_self();
	struct endpoint *ep = &endpoints[me];
	noc_ep_close(me); /* a virtual endpoint's task is gone: later sends to it are dropped */
	unlink_user_requests(me, &ep->send_head, &ep->send_tail);
	unlink_user_requests(me, &ep->recv_head, &ep->recv_tail);
	ep->session = 0;
	drop_user_messages(me, ep, 0);
}

uint32_t msg_session(void) { return endpoints[noc_ep_self()].session; }

void msg_idle_purge(void)
{
	unsigned me = this_cpu();
	if (!endpoints[me].session && noc_mailbox_holds_mail(&noc_user_mailboxes[me]))
		noc_user_discard(me, 0);
}

void msg_usage(unsigned core, struct msg_usage *u)
{
	const struct endpoint *ep = &endpoints[core];
	/* a virtual endpoint (core >= NOC_EP_VIRT_BASE) has a user mailbox only: the kernel channel names cores */
	*u = (struct msg_usage){.kernel_slots = core < NOC_EP_VIRT_BASE ? noc_mailboxes[core].used : 0,
				.user_slots = noc_user_mailboxes[core].used,
				.unhandled = ep->uh_count, .user_unhandled = ep->uh_user,
				.user_bytes = ep->uh_user_bytes, .session = ep->session};
}
