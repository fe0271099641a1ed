/*
 * Requests, matching and waiting of the message API (see msg.h). Everything here
 * is private to the calling core: its pending sends, its posted receives in post
 * order (the unmatched-request queue) and its unhandled-message queue. Only the
 * NoC below (drivers/noc) is shared between cores.
 */
#include "kernel/msg/msg.h"
#include "kernel/hart.h"
#include "kernel/errno.h"
#include "kernel/kheap.h"
#include "drivers/timer.h"
#include "lib/string.h"

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
};

static struct endpoint endpoints[MOSAIC_MAX_HARTS];

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

static void fill_status(struct msg_status *st, const struct noc_header *h, int error)
{
	*st = (struct msg_status){.source = h->src, .tag = h->tag, .len = h->len, .error = error, .seq = h->seq,
				  .hops = h->hops, .t_send_ns = h->t_send_ns, .t_deliver_ns = h->t_deliver_ns,
				  .t_recv_ns = timer_now_ns(), .t_wait_ns = h->t_wait_ns};
}

static bool valid_core(int c) { return c >= 0 && (unsigned)c < mesh.cores; }

/* The checks every send makes before anything is queued or sent. */
static int check_send(int dst, int tag, const void *buf, uint32_t len)
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

static bool earlier_send_pending(struct endpoint *ep, struct msg_request *r)
{
	for (struct msg_request *q = ep->send_head; q && q != r; q = q->next)
		if (q->peer == r->peer)
			return true;
	return false;
}

/* One attempt; true when the request is finished (sent or failed). */
static bool try_send(unsigned me, struct msg_request *r)
{
	int e = noc_hw_send(me, r->peer, r->type, r->tag, r->sbuf, r->len, r->xsend, true);
	if (e == -EBUSY)
		return false;
	r->status = (struct msg_status){.source = (int)me, .tag = r->tag, .len = r->len, .error = e};
	r->state = MSG_REQ_DONE;
	return true;
}

/* ---- receive side ---- */

/* Completes r with message (h, body); false if r's buffer is too small (then nothing is taken). */
static bool deliver(struct msg_request *r, const struct noc_header *h, const uint8_t *body)
{
	if (h->len > r->len) {
		fill_status(&r->status, h, -EOVERFLOW);
		r->state = MSG_REQ_DONE;
		return false;
	}
	if (h->len)
		memcpy(r->rbuf, body, h->len);
	fill_status(&r->status, h, 0);
	r->state = MSG_REQ_DONE;
	return true;
}

static bool match_unhandled(struct endpoint *ep, struct msg_request *r)
{
	struct unhandled_msg *prev = 0;
	for (struct unhandled_msg *u = ep->uh_head; u; prev = u, u = u->next) {
		if (!noc_matches(&u->h, &r->match))
			continue;
		if (!deliver(r, &u->h, u->body))
			return true; /* too small: the message stays */
		if (prev)
			prev->next = u->next;
		else
			ep->uh_head = u->next;
		if (ep->uh_tail == u)
			ep->uh_tail = prev;
		ep->uh_count--;
		kfree(u->body);
		kfree(u);
		return true;
	}
	return false;
}

static bool match_mailbox(unsigned me, struct msg_request *r, uint64_t now)
{
	struct noc_mailbox *mb = &noc_mailboxes[me];
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = noc_mailbox_find(me, &r->match, now, 0);
	bool done = false;
	if (slot) {
		done = true;
		if (deliver(r, &slot->h, slot->body))
			noc_mailbox_release(me, slot);
	}
	spin_unlock(&mb->lock, s);
	return done;
}

/*
 * Moves every visible message out of the mailbox into the unhandled queue, freeing
 * its credits (NoCMsg's rule for waiting). Returns the earliest delivery time of
 * the messages still in flight to us, UINT64_MAX if none.
 */
static uint64_t drain_mailbox(unsigned me, struct endpoint *ep)
{
	struct noc_mailbox *mb = &noc_mailboxes[me];
	uint64_t now = noc_now_ns(), next = UINT64_MAX;
	for (;;) {
		uint64_t s = spin_lock(&mb->lock);
		struct noc_slot *slot = noc_mailbox_find(me, 0, now, &next);
		if (!slot) {
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
		noc_mailbox_release(me, slot);
		spin_unlock(&mb->lock, s);
		if (ep->uh_tail)
			ep->uh_tail->next = u;
		else
			ep->uh_head = u;
		ep->uh_tail = u;
		ep->uh_count++;
	}
}

/* ---- progress and waiting ---- */

static void progress(unsigned me, struct endpoint *ep)
{
	struct msg_request *prev = 0, *r = ep->send_head;
	while (r) {
		struct msg_request *next = r->next;
		if (!earlier_send_pending(ep, r) && try_send(me, r)) {
			queue_remove(&ep->send_head, &ep->send_tail, prev, r);
		} else {
			prev = r;
		}
		r = next;
	}
	uint64_t now = noc_now_ns();
	prev = 0;
	r = ep->recv_head;
	while (r) {
		struct msg_request *next = r->next;
		if (match_unhandled(ep, r) || match_mailbox(me, r, now))
			queue_remove(&ep->recv_head, &ep->recv_tail, prev, r);
		else
			prev = r;
		r = next;
	}
}

/* Makes progress, sleeping in WFI between attempts, until done(arg). */
static void wait_until_done(unsigned me, struct endpoint *ep, bool (*done)(void *), void *arg)
{
	struct noc_mailbox *mb = &noc_mailboxes[me];
	for (;;) {
		uint32_t seen = __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE);
		progress(me, ep);
		if (done(arg))
			return;
		uint64_t next_ns = drain_mailbox(me, ep);
		progress(me, ep);
		if (done(arg))
			return;
		mb->sleeping = 1;
		fence();
		WAIT_UNTIL(__atomic_load_n(&mb->events, __ATOMIC_ACQUIRE) != seen || noc_now_ns() >= next_ns,
			   timer_ns_to_ticks_ceil(next_ns));
		mb->sleeping = 0;
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

int msg_isend_typed(uint16_t type, int dst, int tag, const void *buf, uint32_t len, bool xsend,
		    struct msg_request *req)
{
	if (!req)
		return -EINVAL;
	int bad = check_send(dst, tag, buf, len);
	if (bad)
		return bad;
	unsigned me = this_cpu();
	struct endpoint *ep = &endpoints[me];
	*req = (struct msg_request){.kind = MSG_REQ_SEND, .state = MSG_REQ_PENDING, .xsend = xsend, .type = type,
				    .peer = (uint16_t)dst, .tag = tag, .sbuf = buf, .len = len};
	/* a send never overtakes an earlier one to the same destination */
	if (!peer_has_pending_send(ep, (unsigned)dst) && try_send(me, req))
		return req->status.error;
	queue_append(&ep->send_head, &ep->send_tail, req);
	return 0;
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
	unsigned me = this_cpu();
	struct endpoint *ep = &endpoints[me];
	*req = (struct msg_request){.kind = MSG_REQ_RECV, .state = MSG_REQ_PENDING, .type = type, .rbuf = buf,
				    .len = cap, .match = {.src = src, .tag = tag, .type = type}};
	/* only the oldest posted receive may take a message at once: keep the post order */
	if (!ep->recv_head && (match_unhandled(ep, req) || match_mailbox(me, req, noc_now_ns())))
		return 0;
	queue_append(&ep->recv_head, &ep->recv_tail, req);
	return 0;
}

int msg_test(struct msg_request *req, int *done, struct msg_status *st)
{
	if (!req || req->state == MSG_REQ_IDLE || !done)
		return -EINVAL;
	if (req->state != MSG_REQ_DONE)
		progress(this_cpu(), &endpoints[this_cpu()]);
	*done = req->state == MSG_REQ_DONE;
	if (*done && st)
		*st = req->status;
	return *done ? req->status.error : 0;
}

int msg_wait(struct msg_request *req, struct msg_status *st)
{
	if (!req || req->state == MSG_REQ_IDLE)
		return -EINVAL;
	if (req->state != MSG_REQ_DONE)
		wait_until_done(this_cpu(), &endpoints[this_cpu()], request_done, req);
	if (st)
		*st = req->status;
	req->state = MSG_REQ_IDLE; /* the request can be reused */
	return req->status.error;
}

int msg_waitall(struct msg_request *reqs, unsigned n)
{
	int err = 0;
	for (unsigned i = 0; i < n; i++) {
		int e = msg_wait(&reqs[i], 0);
		if (e && !err)
			err = e;
	}
	return err;
}

int msg_send(int dst, int tag, const void *buf, uint32_t len)
{
	/* fast path: nothing queued before us, so sending at once keeps every ordering rule */
	unsigned me = this_cpu();
	if (!endpoints[me].send_head && check_send(dst, tag, buf, len) == 0) {
		int e = noc_hw_send(me, (unsigned)dst, MSG_TYPE_DATA, tag, buf, len, false, true);
		if (e != -EBUSY)
			return e;
	}
	struct msg_request req;
	int e = msg_isend_typed(MSG_TYPE_DATA, dst, tag, buf, len, false, &req);
	return e ? e : msg_wait(&req, 0);
}

int msg_xsend(int dst, int tag, const void *buf, uint32_t len)
{
	struct msg_request req;
	int e = msg_isend_typed(MSG_TYPE_DATA, dst, tag, buf, len, true, &req);
	return e ? e : msg_wait(&req, 0);
}

int msg_isend(int dst, int tag, const void *buf, uint32_t len, struct msg_request *req)
{
	return msg_isend_typed(MSG_TYPE_DATA, dst, tag, buf, len, false, req);
}

int msg_trysend(int dst, int tag, const void *buf, uint32_t len)
{
	int bad = check_send(dst, tag, buf, len);
	if (bad)
		return bad;
	unsigned me = this_cpu();
	if (peer_has_pending_send(&endpoints[me], (unsigned)dst))
		return -EBUSY; /* earlier sends to dst still wait for credits */
	return noc_hw_send(me, (unsigned)dst, MSG_TYPE_DATA, tag, buf, len, false, false);
}

/* Fast path of a receive with no earlier receive posted and nothing unhandled:
 * take a visible message straight from the mailbox. -EAGAIN if there is none. */
static int recv_direct(unsigned me, int src, int tag, void *buf, uint32_t cap, struct msg_status *st)
{
	struct noc_match m = {.src = src, .tag = tag, .type = MSG_TYPE_DATA};
	struct noc_mailbox *mb = &noc_mailboxes[me];
	int e = -EAGAIN;
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = noc_mailbox_find(me, &m, timer_now_ns(), 0);
	if (slot) {
		e = slot->h.len > cap ? -EOVERFLOW : 0;
		if (!e && slot->h.len)
			memcpy(buf, slot->body, slot->h.len);
		if (st)
			fill_status(st, &slot->h, e);
		if (!e)
			noc_mailbox_release(me, slot);
	}
	spin_unlock(&mb->lock, s);
	return e;
}

int msg_recv(int src, int tag, void *buf, uint32_t cap, struct msg_status *st)
{
	unsigned me = this_cpu();
	struct endpoint *ep = &endpoints[me];
	if (!ep->recv_head && !ep->uh_head && (src == MSG_ANY_SOURCE || valid_core(src)) &&
	    (tag >= 0 || tag == MSG_ANY_TAG) && (buf || !cap)) {
		int e = recv_direct(me, src, tag, buf, cap, st);
		if (e != -EAGAIN)
			return e;
	}
	struct msg_request req;
	int e = msg_irecv_typed(MSG_TYPE_DATA, src, tag, buf, cap, &req);
	return e ? e : msg_wait(&req, st);
}

int msg_irecv(int src, int tag, void *buf, uint32_t cap, struct msg_request *req)
{
	return msg_irecv_typed(MSG_TYPE_DATA, src, tag, buf, cap, req);
}

int msg_tryrecv(int src, int tag, void *buf, uint32_t cap, struct msg_status *st)
{
	struct msg_request req;
	int e = msg_irecv_typed(MSG_TYPE_DATA, src, tag, buf, cap, &req);
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

struct probe_state {
	unsigned me;
	struct noc_match match;
	struct msg_status *st;
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
	struct noc_mailbox *mb = &noc_mailboxes[p->me];
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = noc_mailbox_find(p->me, &p->match, noc_now_ns(), 0);
	if (slot) {
		fill_status(p->st, &slot->h, 0);
		p->found = true;
	}
	spin_unlock(&mb->lock, s);
	return p->found;
}

int msg_probe_typed(uint16_t type, int src, int tag, bool block, struct msg_status *st)
{
	if (!st)
		return -EINVAL;
	if (src != MSG_ANY_SOURCE && !valid_core(src))
		return -ENXIO;
	if (tag < 0 && tag != MSG_ANY_TAG)
		return -EINVAL;
	struct probe_state p = {.me = this_cpu(), .match = {.src = src, .tag = tag, .type = type}, .st = st};
	if (probe_once(&p))
		return 0;
	if (!block)
		return -EAGAIN;
	wait_until_done(p.me, &endpoints[p.me], probe_once, &p);
	return 0;
}

int msg_probe(int src, int tag, bool block, struct msg_status *st)
{
	return msg_probe_typed(MSG_TYPE_DATA, src, tag, block, st);
}

void msg_cancel(struct msg_request *req)
{
	if (!req || req->state != MSG_REQ_PENDING)
		return;
	unsigned me = this_cpu();
	struct endpoint *ep = &endpoints[me];
	bool send = req->kind == MSG_REQ_SEND;
	struct msg_request **head = send ? &ep->send_head : &ep->recv_head, **tail = send ? &ep->send_tail : &ep->recv_tail;
	struct msg_request *prev = 0;
	for (struct msg_request *q = *head; q; prev = q, q = q->next)
		if (q == req) {
			queue_remove(head, tail, prev, q);
			break;
		}
	if (send && !peer_has_pending_send(ep, req->peer))
		noc_cancel_credit(me, req->peer);
	req->state = MSG_REQ_IDLE;
}

void msg_drain(void)
{
	unsigned me = this_cpu();
	drain_mailbox(me, &endpoints[me]);
}

unsigned msg_unhandled_sources(uint16_t type, uint64_t sources[MOSAIC_MAX_HARTS / 64])
{
	unsigned n = 0;
	for (unsigned w = 0; w < MOSAIC_MAX_HARTS / 64; w++)
		sources[w] = 0;
	for (struct unhandled_msg *u = endpoints[this_cpu()].uh_head; u; u = u->next)
		if (u->h.type == type) {
			sources[u->h.src / 64] |= 1UL << (u->h.src % 64);
			n++;
		}
	return n;
}

unsigned msg_unhandled_count(unsigned core) { return endpoints[core].uh_count; }
