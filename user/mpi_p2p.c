/*
 * MPI point to point over Mosaic's messages (docs/mpi.md, "Point to point").
 *
 * Invariants:
 * - A message of L bytes leaves as fragments of MPI_FRAG bytes and a last, shorter one; every
 *   fragment after the first carries MPI_K_CONT in its kernel tag. One sender posts fragments in
 *   the order its sends were started (the send queue posts from its head only), and the kernel
 *   keeps the order of one pair, so a message's fragments arrive in order and before any later
 *   message of the same sender with the same tag.
 * - Receives match in the order they were posted (MPI's rule). A receive first looks at the
 *   unexpected queue (messages the library took from the kernel before any receive wanted
 *   them; they are older than anything still in the kernel from the same sender), then waits
 *   on the posted-receive queue. progress() takes every visible message from the kernel in
 *   arrival order and gives it to the oldest posted receive it matches, or queues it.
 * - The fast paths go straight to the kernel only when nothing the library holds could come
 *   first: a blocking send when no send is queued, a blocking receive of one source and tag when
 *   no receive is posted, no message is queued or half assembled, and no send waits to be posted.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi_impl.h"

enum { R_SEND = 1, R_RECV };
enum { S_PENDING, S_ASSEMBLING, S_DONE };

struct mpi_unexp;

struct mosaic_mpi_request {
	int kind, state, err;
	MPI_Comm comm;
	MPI_Datatype type;
	struct mosaic_mpi_request *next; /* in the posted-receive, assembly or send queue */
	/* receive */
	char *buf;
	size_t cap, got, total;
	int src_core, tag; /* -1: any */
	int from_core, from_tag;
	/* send */
	const char *sbuf;
	size_t slen;
	int dst_core, ktag;
	unsigned nfrags, nposted, ndone;
	int null_peer; /* MPI_PROC_NULL: complete at once */
};

/* A message no receive wanted yet: its fragments as they came, each in one allocation (growing
 * one buffer by realloc would leave holes picolibc's allocator does not merge). */
struct mpi_frag {
	struct mpi_frag *next;
	size_t len;
	char data[];
};
struct mpi_unexp {
	struct mpi_unexp *next;
	int core, ctx, utag, complete;
	size_t len;
	struct mpi_frag *first, *last;
	struct mosaic_mpi_request *bound; /* the receive that took it while it was still arriving */
};

static struct mosaic_mpi_request *prq_head, *prq_tail; /* posted receives, in post order */
static struct mosaic_mpi_request *asm_head;            /* receives taking continuation fragments */
static struct mosaic_mpi_request *sq_head, *sq_tail;   /* sends not yet done, in start order */
static struct mpi_unexp *uq_head, *uq_tail;
static struct mosaic_mpi_request *khandle[MPI_KHANDLES]; /* the send each kernel handle belongs to */
static unsigned unposted;                               /* sends with fragments not yet posted */
static unsigned uq_incomplete;
/* where truncated bytes go: the collectives' staging buffer, free while a point-to-point call runs */
#define scratch mpi_tmp

static int ktag_of(MPI_Comm c, int tag) { return c->ctx << MPI_K_CTX_SHIFT | tag; }

static long wire_to_size(MPI_Datatype t, size_t wire)
{
	const struct mpi_type *d = &mpi_types[t];
	return wire % d->extent ? (long)wire : (long)(wire / d->extent * d->size);
}

/* Receives the visible message (core, ktag) of len bytes: room bytes of it land at dst, the rest
 * (a truncation) is received into the scratch buffer and dropped. */
static long take(int core, int ktag, uint32_t len, char *dst, size_t room)
{
	struct mosaic_status st;
	if (len <= room)
		return mosaic_recv(core, ktag, len ? dst : (char *)scratch, len, &st);
	long e = mosaic_recv(core, ktag, scratch, len, &st);
	if (e >= 0 && room)
		memcpy(dst, scratch, room);
	return e;
}

static void finish_recv(struct mosaic_mpi_request *r)
{
	r->state = S_DONE;
	if (!r->err && r->total > r->cap)
		r->err = MPI_ERR_TRUNCATE;
}

static void asm_remove(struct mosaic_mpi_request *r)
{
	for (struct mosaic_mpi_request **p = &asm_head; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			return;
		}
}

static int comm_member(MPI_Comm c, int core)
{
	if (core < 0 || core > mpi_st.max_core)
		return -1;
	int w = mpi_st.world_of_core[core];
	return w < 0 ? -1 : c->rank_of[w];
}

static int matches(const struct mosaic_mpi_request *r, int core, int ctx, int utag)
{
	if (r->comm->ctx != ctx || (r->tag >= 0 && r->tag != utag))
		return 0;
	return r->src_core >= 0 ? r->src_core == core : comm_member(r->comm, core) >= 0;
}

static void uq_unlink(struct mpi_unexp *u)
{
	struct mpi_unexp *prev = 0;
	for (struct mpi_unexp *q = uq_head; q; prev = q, q = q->next)
		if (q == u) {
			if (prev)
				prev->next = q->next;
			else
				uq_head = q->next;
			if (uq_tail == q)
				uq_tail = prev;
			return;
		}
}

static void uq_free(struct mpi_unexp *u)
{
	for (struct mpi_frag *f = u->first, *next; f; f = next) {
		next = f->next;
		free(f);
	}
	free(u);
}

/* A fragment of len bytes of u, received from the kernel. */
static int uq_append(struct mpi_unexp *u, int core, int kt, uint32_t len)
{
	struct mpi_frag *f = malloc(sizeof *f + len);
	if (!f)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI progress", "no memory for an unexpected message");
	long e = take(core, kt, len, f->data, len);
	if (e < 0) {
		free(f);
		return mpi_kerr(MPI_COMM_WORLD, e, "MPI progress");
	}
	f->next = 0;
	f->len = len;
	if (u->last)
		u->last->next = f;
	else
		u->first = f;
	u->last = f;
	u->len += len;
	return MPI_SUCCESS;
}

/* The unexpected message u goes to r (both complete): copy, free. */
static void uq_deliver(struct mpi_unexp *u, struct mosaic_mpi_request *r)
{
	size_t n = u->len < r->cap ? u->len : r->cap, at = 0;
	for (struct mpi_frag *f = u->first; f; f = f->next) {
		size_t m = f->len < n - at ? f->len : n - at;
		if (m)
			memcpy(r->buf + at, f->data, m);
		at += m;
	}
	r->from_core = u->core;
	r->from_tag = u->utag;
	r->got = n;
	r->total = u->len;
	finish_recv(r);
	uq_unlink(u);
	uq_free(u);
}

/* One message the kernel shows: to its posted receive, its assembly, or the unexpected queue. */
static int incoming(const struct mosaic_status *ks)
{
	int core = ks->source, kt = ks->tag, ctx = kt >> MPI_K_CTX_SHIFT & MPI_K_CTX_MAX, utag = kt & MPI_K_TAG_MASK;
	uint32_t len = ks->len;
	long e;
	if (kt & MPI_K_CONT) {
		for (struct mosaic_mpi_request *r = asm_head; r; r = r->next)
			if (r->from_core == core && r->comm->ctx == ctx && r->from_tag == utag) {
				size_t room = r->cap > r->got ? r->cap - r->got : 0;
				if ((e = take(core, kt, len, r->buf + r->got, room)) < 0)
					return mpi_kerr(r->comm, e, "MPI progress");
				r->got += len < room ? len : room;
				r->total += len;
				if (len < MPI_FRAG) {
					asm_remove(r);
					finish_recv(r);
				}
				return MPI_SUCCESS;
			}
		for (struct mpi_unexp *u = uq_head; u; u = u->next)
			if (!u->complete && u->core == core && u->ctx == ctx && u->utag == utag) {
				if ((e = uq_append(u, core, kt, len)))
					return (int)e;
				if (len < MPI_FRAG) {
					u->complete = 1;
					uq_incomplete--;
					if (u->bound)
						uq_deliver(u, u->bound);
				}
				return MPI_SUCCESS;
			}
		/* a continuation nobody assembles: not sent by this library; taken so it blocks nothing */
		take(core, kt, len, 0, 0);
		return MPI_SUCCESS;
	}
	struct mosaic_mpi_request *prev = 0;
	for (struct mosaic_mpi_request *r = prq_head; r; prev = r, r = r->next) {
		if (!matches(r, core, ctx, utag))
			continue;
		if (prev)
			prev->next = r->next;
		else
			prq_head = r->next;
		if (prq_tail == r)
			prq_tail = prev;
		r->next = 0;
		r->from_core = core;
		r->from_tag = utag;
		if ((e = take(core, kt, len, r->buf, r->cap)) < 0)
			return mpi_kerr(r->comm, e, "MPI progress");
		r->got = len < r->cap ? len : r->cap;
		r->total = len;
		if (len == MPI_FRAG) {
			r->state = S_ASSEMBLING;
			r->next = asm_head;
			asm_head = r;
		} else {
			finish_recv(r);
		}
		return MPI_SUCCESS;
	}
	struct mpi_unexp *u = calloc(1, sizeof *u);
	if (!u)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI progress", "no memory for an unexpected message");
	*u = (struct mpi_unexp){.core = core, .ctx = ctx, .utag = utag, .complete = len < MPI_FRAG};
	if ((e = uq_append(u, core, kt, len))) {
		free(u);
		return (int)e;
	}
	if (!u->complete)
		uq_incomplete++;
	if (uq_tail)
		uq_tail->next = u;
	else
		uq_head = u;
	uq_tail = u;
	return MPI_SUCCESS;
}

static void send_complete(struct mosaic_mpi_request *r)
{
	r->state = S_DONE;
	struct mosaic_mpi_request *prev = 0;
	for (struct mosaic_mpi_request *q = sq_head; q; prev = q, q = q->next)
		if (q == r) {
			if (prev)
				prev->next = q->next;
			else
				sq_head = q->next;
			if (sq_tail == q)
				sq_tail = prev;
			return;
		}
}

/* Posts the queued sends' fragments while kernel handles are free, oldest send first. */
static int post_sends(void)
{
	for (struct mosaic_mpi_request *r = sq_head; r; r = r->next) {
		while (r->nposted < r->nfrags) {
			int h = -1;
			for (int i = 0; i < MPI_KHANDLES && h < 0; i++)
				if (!khandle[i])
					h = i;
			if (h < 0)
				return MPI_SUCCESS;
			size_t off = (size_t)r->nposted * MPI_FRAG, n = r->slen - off < MPI_FRAG ? r->slen - off : MPI_FRAG;
			int kt = r->ktag | (r->nposted ? MPI_K_CONT : 0);
			long k = mosaic_isend(r->dst_core, kt, r->sbuf + off, n);
			if (k == MOSAIC_EBUSY)
				return MPI_SUCCESS; /* handles the program took itself: later */
			if (k < 0 || k >= MPI_KHANDLES) {
				/* the kernel refused the fragment: the send ends with an error, the rest unsent */
				r->err = MPI_ERR_INTERN;
				r->nfrags = r->nposted;
				unposted--;
				if (r->ndone == r->nfrags)
					send_complete(r);
				return MPI_SUCCESS;
			}
			khandle[k] = r;
			if (++r->nposted == r->nfrags)
				unposted--;
		}
	}
	return MPI_SUCCESS;
}

static void send_fragment_done(int h, long e)
{
	struct mosaic_mpi_request *r = khandle[h];
	khandle[h] = 0;
	if (e < 0 && !r->err)
		r->err = MPI_ERR_INTERN;
	if (++r->ndone == r->nfrags && r->nposted == r->nfrags)
		send_complete(r);
}

static int progress(void)
{
	struct mosaic_status st;
	for (int h = 0; h < MPI_KHANDLES; h++)
		if (khandle[h]) {
			long e = mosaic_test(h, &st);
			if (e != 0)
				send_fragment_done(h, e < 0 ? e : st.error);
		}
	if (unposted)
		post_sends();
	for (;;) {
		long e = mosaic_probe(MOSAIC_ANY, MOSAIC_ANY, 0, &st);
		if (e == MOSAIC_EAGAIN)
			return MPI_SUCCESS;
		if (e < 0)
			return mpi_kerr(MPI_COMM_WORLD, e, "MPI progress");
		if ((e = incoming(&st)))
			return (int)e;
	}
}

/* Waits for something to happen, in the kernel where one event is enough to go on. */
static void block_once(int want_recv, int want_send, int all)
{
	struct mosaic_status st;
	if (!unposted && want_recv && (all || !want_send)) {
		mosaic_probe(MOSAIC_ANY, MOSAIC_ANY, 1, &st);
		return;
	}
	if (!unposted && want_send && !want_recv && all)
		for (int h = 0; h < MPI_KHANDLES; h++)
			if (khandle[h]) {
				long e = mosaic_wait(h, &st);
				send_fragment_done(h, e < 0 ? e : st.error);
				return;
			}
	/* several kinds of event, or sends waiting for a handle: look again shortly */
	mosaic_sleep_us(2);
}

static struct mosaic_mpi_request *new_req(int kind, MPI_Comm c, MPI_Datatype t)
{
	struct mosaic_mpi_request *r = calloc(1, sizeof *r);
	if (r) {
		r->kind = kind;
		r->comm = c;
		r->type = t;
		r->src_core = r->tag = -1;
	}
	return r;
}

static int check_buf(MPI_Comm c, const void *buf, int count, MPI_Datatype t, const char *fn)
{
	MPI_CHECK_COMM(c, fn);
	return mpi_buf_args(c, buf, count, t, fn);
}

static int start_send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c,
		      struct mosaic_mpi_request **out, const char *fn)
{
	int e = check_buf(c, buf, count, t, fn);
	if (e)
		return e;
	if (tag < 0 || tag > MPI_TAG_UB_VALUE)
		return mpi_error(c, MPI_ERR_TAG, fn, "a send's tag is 0..MPI_TAG_UB");
	if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size))
		return mpi_error(c, MPI_ERR_RANK, fn, "no such rank in the communicator");
	struct mosaic_mpi_request *r = new_req(R_SEND, c, t);
	if (!r)
		return mpi_error(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
	if (dest == MPI_PROC_NULL) {
		r->state = S_DONE;
		*out = r;
		return MPI_SUCCESS;
	}
	r->sbuf = buf;
	r->slen = (size_t)count * mpi_types[t].extent;
	r->dst_core = c->core_of[dest];
	r->ktag = ktag_of(c, tag);
	r->nfrags = (unsigned)(r->slen / MPI_FRAG) + 1;
	r->state = S_PENDING;
	if (sq_tail)
		sq_tail->next = r;
	else
		sq_head = r;
	sq_tail = r;
	unposted++;
	post_sends();
	*out = r;
	return MPI_SUCCESS;
}

static int start_recv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c,
		      struct mosaic_mpi_request **out, const char *fn)
{
	int e = check_buf(c, buf, count, t, fn);
	if (e)
		return e;
	if (tag != MPI_ANY_TAG && (tag < 0 || tag > MPI_TAG_UB_VALUE))
		return mpi_error(c, MPI_ERR_TAG, fn, "a receive's tag is MPI_ANY_TAG or 0..MPI_TAG_UB");
	if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
		return mpi_error(c, MPI_ERR_RANK, fn, "no such rank in the communicator");
	struct mosaic_mpi_request *r = new_req(R_RECV, c, t);
	if (!r)
		return mpi_error(c, MPI_ERR_NO_MEM, fn, "no memory for a request");
	*out = r;
	if (source == MPI_PROC_NULL) {
		r->null_peer = 1;
		r->state = S_DONE;
		return MPI_SUCCESS;
	}
	r->buf = buf;
	r->cap = (size_t)count * mpi_types[t].extent;
	r->src_core = source == MPI_ANY_SOURCE ? -1 : c->core_of[source];
	r->tag = tag;
	r->state = S_PENDING;
	for (struct mpi_unexp *u = uq_head; u; u = u->next)
		if (!u->bound && matches(r, u->core, u->ctx, u->utag)) {
			if (u->complete)
				uq_deliver(u, r);
			else
				u->bound = r;
			return MPI_SUCCESS;
		}
	if (prq_tail)
		prq_tail->next = r;
	else
		prq_head = r;
	prq_tail = r;
	return MPI_SUCCESS;
}

static void fill_status(const struct mosaic_mpi_request *r, MPI_Status *s)
{
	if (!s)
		return;
	s->mosaic_cancelled = 0;
	s->MPI_ERROR = r->err;
	if (r->kind == R_SEND) {
		s->MPI_SOURCE = MPI_ANY_SOURCE;
		s->MPI_TAG = MPI_ANY_TAG;
		s->mosaic_bytes = 0;
	} else if (r->null_peer) {
		s->MPI_SOURCE = MPI_PROC_NULL;
		s->MPI_TAG = MPI_ANY_TAG;
		s->mosaic_bytes = 0;
	} else {
		s->MPI_SOURCE = comm_member(r->comm, r->from_core);
		s->MPI_TAG = r->from_tag;
		s->mosaic_bytes = wire_to_size(r->type, r->got);
	}
}

static void empty_status(MPI_Status *s)
{
	if (s)
		*s = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS};
}

/* Waits until all (or, with all 0, one) of the requests are done; the index of one done. */
static int wait_reqs(int n, MPI_Request *rs, int all, int *which)
{
	for (;;) {
		int e = progress();
		if (e)
			return e;
		int pending_recv = 0, pending_send = 0, done = -1;
		for (int i = 0; i < n; i++) {
			struct mosaic_mpi_request *r = rs[i];
			if (!r)
				continue;
			if (r->state == S_DONE) {
				if (done < 0)
					done = i;
			} else if (r->kind == R_RECV) {
				pending_recv++;
			} else {
				pending_send++;
			}
		}
		if (which)
			*which = done;
		if (!pending_recv && !pending_send)
			return MPI_SUCCESS;
		if (!all && done >= 0)
			return MPI_SUCCESS;
		block_once(pending_recv, pending_send, all);
	}
}

static int finish(MPI_Request *rp, MPI_Status *s)
{
	struct mosaic_mpi_request *r = *rp;
	int err = r->err;
	fill_status(r, s);
	free(r);
	*rp = MPI_REQUEST_NULL;
	return err;
}

/* The blocking receive straight from the kernel (the fast path's conditions hold). */
static int direct_recv(char *buf, size_t cap, int core, int kt, MPI_Comm c, MPI_Datatype t, MPI_Status *s,
		       const char *fn)
{
	struct mosaic_status st;
	size_t got = 0, total = 0;
	int cont = 0;
	for (;;) {
		size_t room = cap > got ? cap - got : 0, want = room < MPI_FRAG ? room : MPI_FRAG;
		long e = mosaic_recv(core, kt | cont, want ? buf + got : (char *)scratch, want, &st);
		if (e == MOSAIC_EOVERFLOW) {
			/* longer than the buffer: take it whole, keep what fits, go on to its end */
			e = take(core, kt | cont, st.len, buf + got, room);
		}
		if (e < 0)
			return mpi_kerr(c, e, fn);
		got += st.len < room ? st.len : room;
		total += st.len;
		if (st.len < MPI_FRAG)
			break;
		cont = MPI_K_CONT;
	}
	if (s) {
		s->MPI_SOURCE = comm_member(c, core);
		s->MPI_TAG = kt & MPI_K_TAG_MASK;
		s->MPI_ERROR = total > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
		s->mosaic_cancelled = 0;
		s->mosaic_bytes = wire_to_size(t, got);
	}
	return total > cap ? mpi_error(c, MPI_ERR_TRUNCATE, fn, "the message is longer than the receive buffer")
			   : MPI_SUCCESS;
}

static struct mpi_unexp *uq_find(int source, int tag, MPI_Comm c)
{
	struct mosaic_mpi_request probe = {.comm = c, .tag = tag,
					   .src_core = source == MPI_ANY_SOURCE ? -1 : c->core_of[source]};
	for (struct mpi_unexp *u = uq_head; u; u = u->next)
		if (!u->bound && matches(&probe, u->core, u->ctx, u->utag))
			return u;
	return 0;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	MPI_ENTER("MPI_Send");
	int e = check_buf(comm, buf, count, datatype, "MPI_Send");
	if (e)
		return e;
	size_t len = (size_t)count * mpi_types[datatype].extent;
	if (!unposted && len < MPI_FRAG && tag >= 0 && tag <= MPI_TAG_UB_VALUE && dest >= 0 && dest < comm->size) {
		long k = mosaic_send(comm->core_of[dest], ktag_of(comm, tag), len ? buf : scratch, len);
		return k < 0 ? mpi_kerr(comm, k, "MPI_Send") : MPI_SUCCESS;
	}
	struct mosaic_mpi_request *r;
	if ((e = start_send(buf, count, datatype, dest, tag, comm, &r, "MPI_Send")))
		return e;
	MPI_Request q = r;
	if ((e = wait_reqs(1, &q, 1, 0)))
		return e;
	e = finish(&q, 0);
	return e ? mpi_error(comm, e, "MPI_Send", "the kernel refused a fragment") : MPI_SUCCESS;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	MPI_ENTER("MPI_Recv");
	int e = check_buf(comm, buf, count, datatype, "MPI_Recv");
	if (e)
		return e;
	if (!prq_head && !asm_head && !uq_incomplete && !unposted && source >= 0 && source < comm->size && tag >= 0 &&
	    tag <= MPI_TAG_UB_VALUE && !uq_find(source, tag, comm))
		return direct_recv(buf, (size_t)count * mpi_types[datatype].extent, comm->core_of[source],
				   ktag_of(comm, tag), comm, datatype, status, "MPI_Recv");
	struct mosaic_mpi_request *r;
	if ((e = start_recv(buf, count, datatype, source, tag, comm, &r, "MPI_Recv")))
		return e;
	MPI_Request q = r;
	if ((e = wait_reqs(1, &q, 1, 0)))
		return e;
	e = finish(&q, status);
	return e ? mpi_error(comm, e, "MPI_Recv", "the message is longer than the receive buffer") : MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	      MPI_Request *request)
{
	MPI_ENTER("MPI_Isend");
	return start_send(buf, count, datatype, dest, tag, comm, request, "MPI_Isend");
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	MPI_ENTER("MPI_Irecv");
	int e = start_recv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
	return e ? e : progress();
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_ENTER("MPI_Sendrecv");
	MPI_Request s;
	int e = start_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, &s, "MPI_Sendrecv");
	if (e)
		return e;
	int er = MPI_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
	if ((e = wait_reqs(1, &s, 1, 0)))
		return e;
	e = finish(&s, 0);
	return er ? er : e ? mpi_error(comm, e, "MPI_Sendrecv", "the kernel refused a fragment") : MPI_SUCCESS;
}

static int probe_args(int source, int tag, MPI_Comm c, const char *fn)
{
	MPI_CHECK_COMM(c, fn);
	if (tag != MPI_ANY_TAG && (tag < 0 || tag > MPI_TAG_UB_VALUE))
		return mpi_error(c, MPI_ERR_TAG, fn, "a tag is MPI_ANY_TAG or 0..MPI_TAG_UB");
	if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
		return mpi_error(c, MPI_ERR_RANK, fn, "no such rank in the communicator");
	return MPI_SUCCESS;
}

static void probe_status(const struct mpi_unexp *u, MPI_Comm c, MPI_Status *s)
{
	if (s)
		*s = (MPI_Status){.MPI_SOURCE = comm_member(c, u->core), .MPI_TAG = u->utag, .MPI_ERROR = MPI_SUCCESS,
				  .mosaic_bytes = (long)u->len};
}

/* MPI_Probe and MPI_Iprobe find the message in the unexpected queue, where progress puts every
 * message no posted receive takes: the first match is the one a receive would get. */
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	MPI_ENTER("MPI_Iprobe");
	int e = probe_args(source, tag, comm, "MPI_Iprobe");
	if (e)
		return e;
	if (source == MPI_PROC_NULL) {
		*flag = 1;
		if (status)
			*status = (MPI_Status){.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = MPI_ANY_TAG};
		return MPI_SUCCESS;
	}
	if ((e = progress()))
		return e;
	struct mpi_unexp *u = uq_find(source, tag, comm);
	*flag = u && u->complete;
	if (*flag)
		probe_status(u, comm, status);
	return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	MPI_ENTER("MPI_Probe");
	int e = probe_args(source, tag, comm, "MPI_Probe");
	if (e)
		return e;
	if (source == MPI_PROC_NULL) {
		if (status)
			*status = (MPI_Status){.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = MPI_ANY_TAG};
		return MPI_SUCCESS;
	}
	for (;;) {
		if ((e = progress()))
			return e;
		struct mpi_unexp *u = uq_find(source, tag, comm);
		if (u && u->complete) {
			probe_status(u, comm, status);
			return MPI_SUCCESS;
		}
		block_once(1, 0, 1);
	}
}

static MPI_Comm comm_of(MPI_Request r) { return r && mpi_comm_ok(r->comm) ? r->comm : MPI_COMM_WORLD; }

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	MPI_ENTER("MPI_Wait");
	if (!request)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Wait", "a null request pointer");
	if (!*request) {
		empty_status(status);
		return MPI_SUCCESS;
	}
	MPI_Comm c = comm_of(*request);
	int e = wait_reqs(1, request, 1, 0);
	if (e)
		return e;
	e = finish(request, status);
	return e ? mpi_error(c, e, "MPI_Wait", "the request failed") : MPI_SUCCESS;
}

/* Every request of a finished set: its status, freed; MPI_ERR_IN_STATUS if one failed. */
static int finish_all(int count, MPI_Request requests[], MPI_Status statuses[], const char *fn)
{
	int failed = 0;
	MPI_Comm c = MPI_COMM_WORLD;
	for (int i = 0; i < count; i++) {
		MPI_Status *s = statuses ? &statuses[i] : 0;
		if (!requests[i]) {
			empty_status(s);
			continue;
		}
		c = comm_of(requests[i]);
		failed |= finish(&requests[i], s) != 0;
	}
	return failed ? mpi_error(c, MPI_ERR_IN_STATUS, fn, "a request failed: see its status") : MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
	MPI_ENTER("MPI_Waitall");
	if (count < 0 || (count && !requests))
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Waitall", "a negative count or null requests");
	int e = wait_reqs(count, requests, 1, 0);
	if (e)
		return e;
	return finish_all(count, requests, statuses, "MPI_Waitall");
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
	MPI_ENTER("MPI_Waitany");
	if (count < 0 || (count && !requests) || !index)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Waitany", "a negative count or null arguments");
	int e = wait_reqs(count, requests, 0, index);
	if (e)
		return e;
	if (*index < 0) {
		*index = MPI_UNDEFINED; /* no active request */
		empty_status(status);
		return MPI_SUCCESS;
	}
	MPI_Comm c = comm_of(requests[*index]);
	e = finish(&requests[*index], status);
	return e ? mpi_error(c, e, "MPI_Waitany", "the request failed") : MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	MPI_ENTER("MPI_Test");
	if (!request || !flag)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Test", "null arguments");
	if (!*request) {
		*flag = 1;
		empty_status(status);
		return MPI_SUCCESS;
	}
	int e = progress();
	if (e)
		return e;
	*flag = (*request)->state == S_DONE;
	if (!*flag)
		return MPI_SUCCESS;
	MPI_Comm c = comm_of(*request);
	e = finish(request, status);
	return e ? mpi_error(c, e, "MPI_Test", "the request failed") : MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
	MPI_ENTER("MPI_Testall");
	if (count < 0 || (count && !requests) || !flag)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Testall", "a negative count or null arguments");
	int e = progress();
	if (e)
		return e;
	*flag = 1;
	for (int i = 0; i < count; i++)
		if (requests[i] && requests[i]->state != S_DONE)
			*flag = 0;
	if (!*flag)
		return MPI_SUCCESS;
	return finish_all(count, requests, statuses, "MPI_Testall");
}

int MPI_Request_free(MPI_Request *request)
{
	MPI_ENTER("MPI_Request_free");
	if (!request || !*request)
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "not an active request");
	/* the communication still completes (MPI-3.1 3.7.3): wait for it here, then forget it */
	int e = wait_reqs(1, request, 1, 0);
	if (e)
		return e;
	finish(request, 0);
	return MPI_SUCCESS;
}

void mpi_p2p_finalize(void)
{
	while (uq_head) {
		struct mpi_unexp *u = uq_head;
		uq_head = u->next;
		uq_free(u);
	}
	uq_tail = 0;
}
