/*
 * The emulated NoC: mailboxes with credits, and the XY wormhole timing model.
 *
 * A message of L bytes sent from s to d at time t becomes visible at d at
 *   t + t_inject + h(s,d) * t_hop + ceil(L / flit_bytes) * t_flit + link waits.
 * Walking the XY route, the head reaches link i at time a_i and takes the earliest
 * gap at or after a_i in the link's bookings that is long enough for the tail
 * (flits * t_flit), waiting if it must; it books that interval and moves on t_hop
 * later (portable/noc/timing.c: bookings are intervals of time, so a sender whose
 * clock is behind is not delayed by a booking made in its future). Two flows that
 * share a link therefore delay each other; flows on disjoint links do not. Messages
 * between one pair never overtake each other.
 */
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "kernel/core/hart.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/console.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/platform.h"
#include "lib/string.h"
#include "lib/bits.h"
#include "kernel/time/vtime.h"
#include "drivers/noc/noc_ep.h"

struct noc_params noc_params = {
	.timing = {.t_inject_ns = NOC_T_INJECT_NS_DEFAULT,
		   .t_hop_ns = NOC_T_HOP_NS_DEFAULT,
		   .t_flit_ns = NOC_T_FLIT_NS_DEFAULT,
		   .flit_bytes = NOC_FLIT_BYTES_DEFAULT},
	.depth = NOC_MAILBOX_DEPTH_DEFAULT,
	.check_xsend = 1,
};
BOOTARG_U64("noc_t_inject", noc_params.timing.t_inject_ns, 0, 1000000000, "NoC: injection time of a message, ns");
BOOTARG_U64("noc_t_hop", noc_params.timing.t_hop_ns, 0, 1000000000, "NoC: head latency per hop, ns");
BOOTARG_U64("noc_t_flit", noc_params.timing.t_flit_ns, 0, 1000000000, "NoC: time of one flit on one link, ns");
BOOTARG_U64("noc_flit_bytes", noc_params.timing.flit_bytes, 1, 4096, "NoC: payload bytes per flit");
BOOTARG_U64("noc_depth", noc_params.depth, 1, NOC_MAILBOX_DEPTH_MAX, "NoC: mailbox slots (credits) per core");
BOOTARG_U64("noc_check_xsend", noc_params.check_xsend, 0, 1, "NoC: check xsend's rules R2/R3 at run time");

static char mesh_spec[BOOTARG_STR_MAX];
BOOTARG_STR("mesh", mesh_spec, "mesh geometry WxH (default: the most square W x H with W >= H)");

struct noc_mailbox noc_mailboxes[MOSAIC_MAX_HARTS];
struct noc_mailbox noc_user_mailboxes[NOC_ENDPOINTS]; /* physical cores, then virtual endpoints (noc_ep.h) */
struct noc_link noc_links[MESH_MAX_LINKS];
struct noc_core_stats noc_core_stats[MOSAIC_MAX_HARTS];

/* Private to the sending endpoint: row src is only touched by the core that hosts src. */
static uint64_t last_delivery_ns[NOC_ENDPOINTS][NOC_ENDPOINTS];
static uint32_t next_seq[NOC_ENDPOINTS][NOC_ENDPOINTS];

/*
 * The link table is the network's shared state. Each link has a lock of its own, and a route
 * is booked one link at a time, holding one link's lock at once (so no order among them is
 * needed). Not one lock for the whole table: every send takes it while holding its
 * destination's mailbox lock, so whenever QEMU preempted its holder every other sender would
 * stop on it with a mailbox locked, and every core polling those mailboxes would stop behind
 * them (cores asleep on a lock waiting for a holder that is itself asleep on a lock;
 * docs/time.md).
 */
static struct spinlock link_locks[MESH_MAX_LINKS];

/* The least time a message from `from` can take to reach `to`: virtual time's lookahead. */
static uint64_t min_latency(unsigned from, unsigned to) { return noc_model_ns(mesh_hops(from, to), 0); }

static const char *mailbox_init(struct noc_mailbox *mb, const char *name)
{
	mb->lock = (struct spinlock)SPINLOCK_INIT(name);
	mb->slots = kmalloc(noc_params.depth * sizeof(struct noc_slot));
	if (!mb->slots)
		return "noc: no memory for the mailboxes";
	memset(mb->slots, 0, noc_params.depth * sizeof(struct noc_slot));
	for (unsigned i = 0; i < noc_params.depth; i++) {
		mb->slots[i].reserved_for = -1;
		mb->slots[i].index = (uint8_t)i; /* depth <= 64 */
	}
	mb->free_mask = noc_params.depth == 64 ? ~0UL : (1UL << noc_params.depth) - 1;
	return 0;
}

const char *noc_init(void)
{
	static char err[160];
	const char *bad = mesh_init(mesh_spec, hart_count, err, sizeof err);
	if (bad)
		mesh_init("", hart_count, 0, 0); /* report, and carry on with the default shape */
	for (unsigned c = 0; c < hart_count; c++) {
		const char *e = mailbox_init(&noc_mailboxes[c], "mailbox");
		if (!e)
			e = mailbox_init(&noc_user_mailboxes[c], "user-mailbox");
		if (e)
			return e;
	}
	for (unsigned i = 0; i < MESH_MAX_LINKS; i++)
		link_locks[i] = (struct spinlock)SPINLOCK_INIT("noc-link");
	vtime_set_lookahead(min_latency);
	return bad;
}

int noc_user_mailbox_ready(unsigned ep)
{
	if (ep >= NOC_ENDPOINTS)
		return -EINVAL;
	if (noc_user_mailboxes[ep].slots)
		return 0; /* made for an earlier job: kept for the boot */
	return mailbox_init(&noc_user_mailboxes[ep], "user-mailbox") ? -ENOMEM : 0;
}

uint64_t noc_model_ns(unsigned hops, uint32_t len) { return noc_timing_latency(&noc_params.timing, hops, len); }

/* The earliest time any core can still send a message: bookings that end before it can
 * be dropped. On the serial clock every core's next send is at the machine's time or later. */
static uint64_t sending_floor(void) { return vtime_active ? vtime_floor_ns() : timer_now_ns(); }

/* Books the XY route link by link, each under its lock, and returns the delivery time;
 * *wait_ns gets the time the head spent on busy links, *hops the route's length (from the
 * coordinates the walk needs anyway, which saves a second mesh_hops per message). Called
 * with a mailbox lock held, so interrupts are already off: the link locks are taken without
 * saving them again. */
static inline uint64_t book_route(unsigned src, unsigned dst, uint32_t flits, uint64_t now, bool xsend,
				  uint64_t *wait_ns, bool *r3_broken, unsigned *hops)
{
	const struct noc_timing *m = &noc_params.timing;
	uint64_t t = now + m->t_inject_ns;
	unsigned w = mesh.w, x = src % w, y = src / w, tx = dst % w, ty = dst / w;
	*hops = (x > tx ? x - tx : tx - x) + (y > ty ? y - ty : ty - y);
	*wait_ns = 0;
	while (x != tx || y != ty) {
		unsigned link = noc_timing_xy_step(w, &x, &y, tx, ty);
		struct spinlock *lock = &link_locks[link];
		spin_lock_raw(lock);
		t = noc_timing_book_hop(m, &noc_links[link], flits, t, now, sending_floor, wait_ns, xsend ? r3_broken : 0);
		spin_unlock_raw(lock);
	}
	return t + flits * m->t_flit_ns;
}

void noc_wake(unsigned core)
{
	fence();
	if (noc_mailboxes[core].sleeping)
		ipi_send(core, IPI_WAKE);
}

static void report_xsend(unsigned src, unsigned dst, const char *rule)
{
	noc_core_stats[src].xsend_violations++;
	if (noc_core_stats[src].xsend_violations <= 3)
		kprintf("noc: xsend %u -> %u breaks %s; use send (flow control) for this pattern\n", src, dst, rule);
}

/* Puts src in or out of mb's credit queue bitmap (lock held): one store of the word, since
 * noc_awaits_credit reads it without the lock. */
static void set_credit_queued(struct noc_mailbox *mb, unsigned src, bool queued)
{
	uint64_t bit = 1UL << (src % 64), word = mb->credit_queued[src / 64];
	__atomic_store_n(&mb->credit_queued[src / 64], queued ? word | bit : word & ~bit, __ATOMIC_RELEASE);
}

/* No slot for src at dst: queue src for the next credit if it will wait (lock held; released
 * here). Out of line, so that the common path keeps its registers to itself. */
static __attribute__((noinline)) int no_credit(struct noc_mailbox *mb, unsigned src, bool wait, uint64_t irq,
					      uint8_t *big)
{
	if (wait && !noc_credit_queued(mb, src)) {
		mb->credit_queue[(mb->credit_head + mb->credit_count++) % NOC_ENDPOINTS] = (uint16_t)src;
		set_credit_queued(mb, src, true);
	}
	spin_unlock(&mb->lock, irq);
	vtime_stamp_done(); /* nothing was handed over */
	kfree(big);
	noc_core_stats[noc_ep_tile(src) < MOSAIC_MAX_HARTS ? noc_ep_tile(src) : this_cpu()].credit_stalls++;
	return -EBUSY;
}

/* xsend's rule R2: the sink still holds another source's message (lock held). */
static __attribute__((noinline)) bool breaks_r2(const struct noc_mailbox *mb, unsigned src, unsigned idx)
{
	for (uint64_t m = mb->used_mask & ~(1UL << idx); m; m &= m - 1)
		if (mb->slots[lowest_bit(m)].h.src != src)
			return true;
	return false;
}

/* A body too large for a slot's inline buffer travels in a heap copy. */
static __attribute__((noinline)) uint8_t *copy_big(const void *body, uint32_t len)
{
	uint8_t *big = kmalloc(len);
	if (big)
		memcpy(big, body, len);
	return big;
}

int noc_hw_send(unsigned src, unsigned dst, uint16_t type, int32_t tag, uint32_t session, const void *body, uint32_t len,
		bool xsend, bool wait)
{
	if (!noc_ep_valid(dst) || (noc_ep_is_virtual(dst) && !(type & NOC_TYPE_USER)))
		return -ENXIO; /* the kernel channel names physical cores only */
	if (len > NOC_MAX_BODY)
		return -EMSGSIZE;
	unsigned ts = noc_ep_tile(src), td = noc_ep_tile(dst);
	if (noc_ep_closed(dst) || td == NOC_EP_NONE || ts == NOC_EP_NONE) {
		noc_core_stats[this_cpu()].discarded++;
		return 0; /* its task ended: nobody will take it, nor give its credit back */
	}
	uint8_t *big = 0;
	if (len > NOC_INLINE_BODY && !(big = copy_big(body, len)))
		return -ENOMEM;
	/* The message enters the network here: what follows (the credit, the slot, the header, the
	 * route's bookings) stands for the network interface's work and overlaps the injection
	 * time of the model, as a core that hands a message to its interface goes on at once.
	 * Our bound stays at most `now` until the message is noted (vtime_stamp). */
	uint64_t now = vtime_stamp(), wait_ns;
	struct noc_mailbox *mb = noc_mailbox_of(dst, type);
	uint64_t s = spin_lock(&mb->lock);
	struct noc_slot *slot = 0;
	unsigned idx = 0;
	for (uint64_t m = mb->kept_mask; m && !slot; m &= m - 1)
		if (mb->slots[lowest_bit(m)].reserved_for == (int16_t)src) {
			slot = &mb->slots[idx = lowest_bit(m)]; /* the credit kept for us */
			if (slot->granted_ns > now) { /* we send no earlier than we learned of it */
				vtime_advance_to(slot->granted_ns);
				now = slot->granted_ns; /* the stamp's cap, older, stays: it errs on the safe side */
			}
		}
	if (!slot && mb->credit_count == 0 && mb->free_mask)
		slot = &mb->slots[idx = lowest_bit(mb->free_mask)];
	if (!slot)
		return no_credit(mb, src, wait, s, big);
	slot->reserved_for = -1;
	mb->kept_mask &= ~(1UL << idx);
	mb->free_mask &= ~(1UL << idx);
	mb->used_mask |= 1UL << idx;
	unsigned hops;
	bool r2 = xsend && noc_params.check_xsend && breaks_r2(mb, src, idx), r3 = false;
	uint64_t deliver = book_route(ts, td, noc_flits(len), now, xsend && noc_params.check_xsend, &wait_ns, &r3, &hops);
	if (deliver < last_delivery_ns[src][dst])
		deliver = last_delivery_ns[src][dst]; /* never overtake an earlier message of the pair */
	last_delivery_ns[src][dst] = deliver;
	slot->h = (struct noc_header){.src = (uint16_t)src, .dst = (uint16_t)dst, .type = type,
				      .flags = xsend ? NOC_FLAG_XSEND : 0, .tag = tag, .len = len,
				      .seq = next_seq[src][dst]++, .hops = hops, .session = session, .t_send_ns = now,
				      .t_deliver_ns = deliver, .t_wait_ns = wait_ns};
	slot->body = big ? big : slot->inline_body;
	if (!big && len)
		memcpy_small(slot->inline_body, body, len);
	slot->order = mb->next_order++;
	slot->used = true;
	mb->used++;
	/* The core to tell is the one that hosts dst now, read again under the lock: a task moved
	 * between cores (kernel/task/share/share.c) is placed at its new core before it looks at its mailbox
	 * there, so either that look (under this lock, after us) finds the message, or this read
	 * finds the new core. The core read at the start could be the old one, and the task would
	 * sleep through its message on the new one (on the serial clock no poll looks again, so
	 * an oversubscribed job's collectives would hang; docs/balancing.md). */
	unsigned tell = dst < NOC_EP_VIRT_BASE ? td : noc_ep_tile(dst); /* a core never moves */
	if (tell == NOC_EP_NONE)
		tell = td; /* released meanwhile: the message is dropped with its endpoint */
	bool wake = vtime_note_send(tell, deliver);
	vtime_stamp_done();
	__atomic_fetch_add(&noc_mailboxes[tell].events, 1, __ATOMIC_RELEASE); /* the core's signal, for both channels */
	spin_unlock(&mb->lock, s);
	if (wake) /* not if it waits for something earlier: it looks at its mailbox when that comes */
		noc_wake(tell);
	noc_core_stats[ts].sent++;
	noc_core_stats[ts].bytes_sent += len;
	if (r2)
		report_xsend(ts, td, "R2 (another source is sending to the same sink)");
	if (r3)
		report_xsend(ts, td, "R3 (a link of its path is in use)");
	return 0;
}

struct noc_slot *noc_mailbox_find(struct noc_mailbox *mb, const struct noc_match *m, uint64_t now, uint64_t *next_ns)
{
	struct noc_slot *best = 0;
	uint64_t next = UINT64_MAX;
	for (uint64_t bits = mb->used_mask; bits; bits &= bits - 1) {
		struct noc_slot *sl = &mb->slots[lowest_bit(bits)];
		if (sl->h.t_deliver_ns > now) {
			if (sl->h.t_deliver_ns < next)
				next = sl->h.t_deliver_ns;
			continue;
		}
		/* the oldest arrival first: by arrival time (which under virtual time need not follow
		 * the order the emulator posted them in), then by posting order */
		if ((!m || noc_matches(&sl->h, m)) &&
		    (!best || sl->h.t_deliver_ns < best->h.t_deliver_ns ||
		     (sl->h.t_deliver_ns == best->h.t_deliver_ns && sl->order < best->order)))
			best = sl;
	}
	if (next_ns)
		*next_ns = next;
	return best;
}

bool noc_mailbox_visible_sources(struct noc_mailbox *mb, uint64_t now, uint64_t srcs[NOC_ENDPOINTS / 64])
{
	for (unsigned w = 0; w < NOC_ENDPOINTS / 64; w++)
		srcs[w] = 0;
	if (!noc_mailbox_holds_mail(mb))
		return false;
	bool any = false;
	uint64_t s = spin_lock(&mb->lock);
	for (uint64_t bits = mb->used_mask; bits; bits &= bits - 1) {
		const struct noc_header *h = &mb->slots[lowest_bit(bits)].h;
		if (h->t_deliver_ns <= now && h->src < NOC_ENDPOINTS) {
			srcs[h->src / 64] |= 1UL << (h->src % 64);
			any = true;
		}
	}
	spin_unlock(&mb->lock, s);
	return any;
}

/* Under virtual time, a kept slot remembers when it was handed over; the sender uses it
 * no earlier (a credit is news to it, like a message). Out of line: off the common path. */
static __attribute__((noinline)) void stamp_credit(struct noc_slot *slot, unsigned w)
{
	slot->granted_ns = vtime_stamp();
	vtime_note_event(w, slot->granted_ns);
	vtime_stamp_done();
}

/* Hands a free slot to the oldest waiting sender, or makes it free for anyone (lock held). */
static inline void give_credit(struct noc_mailbox *mb, struct noc_slot *slot)
{
	uint64_t bit = 1UL << slot->index;
	slot->reserved_for = -1;
	mb->kept_mask &= ~bit;
	if (mb->credit_count) {
		/* the credit goes to the oldest waiting sender, who is woken to use it */
		unsigned w = mb->credit_queue[mb->credit_head];
		mb->credit_head = (mb->credit_head + 1) % NOC_ENDPOINTS;
		mb->credit_count--;
		set_credit_queued(mb, w, false);
		slot->reserved_for = (int16_t)w;
		/* The bit's clearing before the read of where the sender is: a task that moves reads its
		 * queued bit after it is placed (noc_ep_place fences too), so either this read finds
		 * its new core, whose events are bumped below, or its read finds the bit clear and it
		 * tries again (noc_awaits_credit); without both fences each could miss the other. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		unsigned wt = noc_ep_tile(w); /* a virtual sender: the core that hosts it */
		if (wt == NOC_EP_NONE)
			wt = this_cpu(); /* released meanwhile: nobody to wake, the credit is taken back by its cancel */
		stamp_credit(slot, wt); /* a credit is news to the sender: it may send from then on */
		mb->kept_mask |= bit;
		__atomic_fetch_add(&noc_mailboxes[wt].events, 1, __ATOMIC_RELEASE);
		noc_wake(wt);
	} else {
		mb->free_mask |= bit;
	}
}

void noc_cancel_credit(unsigned src, unsigned dst, uint16_t type)
{
	struct noc_mailbox *mb = noc_mailbox_of(dst, type);
	uint64_t s = spin_lock(&mb->lock);
	if (noc_credit_queued(mb, src)) {
		unsigned kept = 0;
		for (unsigned i = 0; i < mb->credit_count; i++) {
			uint16_t w = mb->credit_queue[(mb->credit_head + i) % NOC_ENDPOINTS];
			if (w != src)
				mb->credit_queue[(mb->credit_head + kept++) % NOC_ENDPOINTS] = w;
		}
		mb->credit_count = kept;
		set_credit_queued(mb, src, false);
	}
	for (uint64_t m = mb->kept_mask; m; m &= m - 1)
		if (mb->slots[lowest_bit(m)].reserved_for == (int16_t)src)
			give_credit(mb, &mb->slots[lowest_bit(m)]);
	spin_unlock(&mb->lock, s);
}

/* Inline whole: GCC otherwise splits off the locked part, one call and return more on every pass
 * of a message wait under virtual time, the hottest loop of a waiting core. */
static inline __attribute__((always_inline)) uint64_t next_delivery(struct noc_mailbox *mb, uint64_t now)
{
	if (!noc_mailbox_holds_mail(mb))
		return UINT64_MAX; /* every waiting core asks on every pass: skip the lock */
	uint64_t next, s = spin_lock(&mb->lock);
	noc_mailbox_find(mb, 0, now, &next);
	spin_unlock(&mb->lock, s);
	return next;
}

uint64_t noc_mailbox_next_delivery(unsigned core)
{
	/* on the clock something_visible uses too: a message between the wait's clock and the
	 * clock its polls ran up would otherwise be neither visible nor next, and a core waiting
	 * for it would wait for nothing (bench_coll barrier 64 stalled so without -icount) */
	uint64_t now = vtime_wait_clock(), k = next_delivery(&noc_mailboxes[core], now), u;
	if ((u = next_delivery(&noc_user_mailboxes[core], now)) < k)
		k = u;
	if (!noc_ep_reserved())
		return k; /* the common case: no virtual endpoint anywhere */
	uint16_t eps[NOC_EP_VIRT_MAX];
	for (unsigned i = 0, n = noc_ep_hosted(core, eps, NOC_EP_VIRT_MAX); i < n; i++)
		if ((u = next_delivery(&noc_user_mailboxes[eps[i]], now)) < k)
			k = u; /* a message on its way to a task time-sliced here */
	return k;
}

/* Empties a used slot and hands its credit on (lock held). */
static inline void free_slot(struct noc_mailbox *mb, struct noc_slot *slot)
{
	if (slot->body && slot->body != slot->inline_body)
		kfree(slot->body);
	slot->body = 0;
	slot->used = false;
	mb->used--;
	mb->used_mask &= ~(1UL << slot->index);
	give_credit(mb, slot);
}

void noc_mailbox_release(unsigned core, struct noc_mailbox *mb, struct noc_slot *slot)
{
	(void)core; /* the receiving endpoint; named so for gdb's `mosaic-mailbox core` here */
	struct noc_core_stats *st = &noc_core_stats[this_cpu()]; /* the receiver's core: it is the one taking it */
	st->received++;
	st->bytes_received += slot->h.len;
	free_slot(mb, slot);
}

unsigned noc_user_discard(unsigned ep, uint32_t keep)
{
	struct noc_mailbox *mb = &noc_user_mailboxes[ep];
	if (!mb->slots)
		return 0;
	unsigned n = 0;
	uint64_t s = spin_lock(&mb->lock);
	for (uint64_t bits = mb->used_mask; bits; bits &= bits - 1) {
		struct noc_slot *sl = &mb->slots[lowest_bit(bits)];
		if (!keep || sl->h.session != keep) {
			free_slot(mb, sl);
			n++;
		}
	}
	spin_unlock(&mb->lock, s);
	noc_core_stats[this_cpu()].discarded += n;
	return n;
}
