/*
 * The collectives' algorithms (docs/collectives.md). Each one is a plain sequence of
 * sends and receives on the group's traffic class; the public calls in coll.c check
 * the arguments, add the strict mode's barriers and pick which algorithm runs. Every
 * algorithm of a collective leaves each member with the same result; they differ in
 * how many messages travel, how far, and how many steps a member waits for.
 * Binomial trees work on virtual ranks v = (rank - root) mod n, so the root is v = 0.
 */
#include "kernel/msg/coll_internal.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "lib/string.h"

int coll_send(struct msg_group *g, unsigned rank, int tag, const void *buf, uint64_t len)
{
	const uint8_t *p = buf;
	do {
		uint32_t piece = len > NOC_MAX_BODY ? NOC_MAX_BODY : (uint32_t)len;
		int e = msg_send_typed(g->type, g->cores[rank], tag, p, piece); /* its fast path when nothing is queued */
		if (e)
			return e;
		p += piece;
		len -= piece;
	} while (len);
	return 0;
}

int coll_recv(struct msg_group *g, unsigned rank, int tag, void *buf, uint64_t len)
{
	uint8_t *p = buf;
	do {
		uint32_t piece = len > NOC_MAX_BODY ? NOC_MAX_BODY : (uint32_t)len;
		struct mosaic_status st;
		int e = msg_recv_typed(g->type, g->cores[rank], tag, p, piece, &st);
		if (!e && st.len != piece)
			e = -EINVAL;
		if (e)
			return e;
		p += piece;
		len -= piece;
	} while (len);
	return 0;
}

/* Sends to one member while receiving from another (at most NOC_MAX_BODY each way), so two
 * members that exchange with each other never wait on each other's send. */
static int exchange(struct msg_group *g, int tag, unsigned to, const void *sbuf, uint32_t slen, unsigned from,
		    void *rbuf, uint32_t rlen)
{
	struct msg_request req;
	int e = msg_isend_typed(g->type, g->cores[to], tag, sbuf, slen, false, &req);
	if (e)
		return e;
	e = coll_recv(g, from, tag, rbuf, rlen);
	if (e) {
		msg_cancel(&req); /* the request lives on this stack */
		return e;
	}
	return msg_wait(&req, 0);
}

void coll_combine(int64_t *acc, const int64_t *x, unsigned count, enum msg_op op)
{
	for (unsigned i = 0; i < count; i++) {
		if (op == MSG_OP_SUM)
			acc[i] = (int64_t)((uint64_t)acc[i] + (uint64_t)x[i]); /* wraps, like the hardware */
		else if (op == MSG_OP_MIN ? x[i] < acc[i] : x[i] > acc[i])
			acc[i] = x[i];
	}
}

static inline unsigned real_rank(const struct msg_group *g, unsigned root, unsigned v) { return (v + root) % g->n; }
static inline unsigned virtual_rank(const struct msg_group *g, unsigned root) { return (g->rank + g->n - root) % g->n; }
static inline unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }
/* How many virtual ranks, from v on, v's binomial subtree holds. */
static unsigned subtree(unsigned n, unsigned v) { return v ? min_u(v & -v, n - v) : n; }

/* ---- barrier ---- */

/* A barrier's signals are empty messages: sent and taken as they are, without coll_send's and
 * coll_recv's split into pieces and without a status (a message with a body is -EOVERFLOW and
 * stays in the mailbox, as in coll_recv). On the critical path of a tree barrier these two run
 * once per level and pass, so their own instructions are the barrier's (docs/noc.md). */
static inline int signal_to(struct msg_group *g, unsigned rank, int tag)
{
	return msg_send_typed(g->type, g->cores[rank], tag, 0, 0);
}

static inline int signal_from(struct msg_group *g, unsigned rank, int tag)
{
	return msg_recv_typed(g->type, g->cores[rank], tag, 0, 0, 0);
}

int barrier_tree(struct msg_group *g)
{
	int tag = coll_next_tag(g), e = 0;
	for (unsigned c = g->nchildren; c-- > 0 && !e;) /* the tallest subtree last: group.h */
		e = signal_from(g, g->children[c], tag);
	if (!e && g->rank != g->tree_root) {
		e = signal_to(g, g->parent[g->rank], tag);
		if (!e)
			e = signal_from(g, g->parent[g->rank], tag);
	}
	for (unsigned c = 0; c < g->nchildren && !e; c++)
		e = signal_to(g, g->children[c], tag);
	return e;
}

/* Everyone reports to the member at the centre, which then releases everyone. */
int barrier_flat(struct msg_group *g)
{
	int tag = coll_next_tag(g), e = 0;
	unsigned hub = g->tree_root;
	if (g->rank != hub) {
		e = signal_to(g, hub, tag);
		return e ? e : signal_from(g, hub, tag);
	}
	for (unsigned r = 0; r < g->n && !e; r++)
		if (r != hub)
			e = signal_from(g, r, tag);
	for (unsigned r = 0; r < g->n && !e; r++)
		if (r != hub)
			e = signal_to(g, r, tag);
	return e;
}

/* ceil(log2 n) rounds; in round k each member signals rank + 2^k and waits for rank - 2^k.
 * The 2^k are distinct modulo n, so no member hears from the same one twice. */
int barrier_dissemination(struct msg_group *g)
{
	int tag = coll_next_tag(g), e = 0;
	for (unsigned k = 1; k < g->n && !e; k <<= 1)
		e = exchange(g, tag, (g->rank + k) % g->n, 0, 0, (g->rank + g->n - k) % g->n, 0, 0);
	return e;
}

/* ---- broadcast ---- */

int bcast_tree(struct msg_group *g, unsigned root, void *buf, uint64_t len)
{
	int tag = coll_next_tag(g), e = 0;
	if (root != g->tree_root) {
		if (g->rank == root)
			e = coll_send(g, g->tree_root, tag, buf, len);
		else if (g->rank == g->tree_root)
			e = coll_recv(g, root, tag, buf, len);
	}
	if (!e && g->rank != g->tree_root)
		e = coll_recv(g, g->parent[g->rank], tag, buf, len);
	for (unsigned c = 0; c < g->nchildren && !e; c++)
		e = coll_send(g, g->children[c], tag, buf, len);
	return e;
}

int bcast_flat(struct msg_group *g, unsigned root, void *buf, uint64_t len)
{
	int tag = coll_next_tag(g), e = 0;
	if (g->rank != root)
		return coll_recv(g, root, tag, buf, len);
	for (unsigned r = 0; r < g->n && !e; r++)
		if (r != root)
			e = coll_send(g, r, tag, buf, len);
	return e;
}

int bcast_binomial(struct msg_group *g, unsigned root, void *buf, uint64_t len)
{
	int tag = coll_next_tag(g), e = 0;
	unsigned v = virtual_rank(g, root), mask = 1;
	for (; mask < g->n; mask <<= 1)
		if (v & mask) {
			e = coll_recv(g, real_rank(g, root, v - mask), tag, buf, len);
			break;
		}
	for (mask >>= 1; mask && !e; mask >>= 1)
		if (v + mask < g->n)
			e = coll_send(g, real_rank(g, root, v + mask), tag, buf, len);
	return e;
}

/* ---- reduce and allreduce ---- */

/* An accumulator holding a copy of in, and room for one incoming vector. */
static int two_vectors(const int64_t *in, uint32_t bytes, int64_t **acc, int64_t **tmp)
{
	*acc = kmalloc(bytes ? bytes : 1);
	*tmp = kmalloc(bytes ? bytes : 1);
	if (!*acc || !*tmp) {
		kfree(*acc);
		kfree(*tmp);
		return -ENOMEM;
	}
	memcpy(*acc, in, bytes);
	return 0;
}

int reduce_tree(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count, enum msg_op op)
{
	uint32_t bytes = count * sizeof(int64_t);
	int64_t *acc, *tmp;
	int tag = coll_next_tag(g), e = two_vectors(in, bytes, &acc, &tmp);
	if (e)
		return e;
	for (unsigned c = g->nchildren; c-- > 0 && !e;) { /* the tallest subtree last: group.h */
		e = coll_recv(g, g->children[c], tag, tmp, bytes);
		if (!e)
			coll_combine(acc, tmp, count, op);
	}
	if (!e) {
		if (g->rank != g->tree_root)
			e = coll_send(g, g->parent[g->rank], tag, acc, bytes);
		else if (root == g->tree_root)
			memcpy(out, acc, bytes);
		else
			e = coll_send(g, root, tag, acc, bytes);
	}
	if (!e && g->rank == root && root != g->tree_root)
		e = coll_recv(g, g->tree_root, tag, out, bytes);
	kfree(acc);
	kfree(tmp);
	return e;
}

int reduce_flat(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count, enum msg_op op)
{
	uint32_t bytes = count * sizeof(int64_t);
	int tag = coll_next_tag(g);
	if (g->rank != root)
		return coll_send(g, root, tag, in, bytes);
	int64_t *acc, *tmp;
	int e = two_vectors(in, bytes, &acc, &tmp);
	if (e)
		return e;
	for (unsigned r = 0; r < g->n && !e; r++) {
		if (r == root)
			continue;
		e = coll_recv(g, r, tag, tmp, bytes);
		if (!e)
			coll_combine(acc, tmp, count, op);
	}
	if (!e)
		memcpy(out, acc, bytes);
	kfree(acc);
	kfree(tmp);
	return e;
}

int reduce_binomial(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count,
		    enum msg_op op)
{
	uint32_t bytes = count * sizeof(int64_t);
	int64_t *acc, *tmp;
	int tag = coll_next_tag(g), e = two_vectors(in, bytes, &acc, &tmp);
	if (e)
		return e;
	unsigned v = virtual_rank(g, root);
	for (unsigned mask = 1; mask < g->n && !e; mask <<= 1) {
		if (v & mask) {
			e = coll_send(g, real_rank(g, root, v - mask), tag, acc, bytes);
			break;
		}
		if (v + mask < g->n) {
			e = coll_recv(g, real_rank(g, root, v + mask), tag, tmp, bytes);
			if (!e)
				coll_combine(acc, tmp, count, op);
		}
	}
	if (!e && v == 0)
		memcpy(out, acc, bytes);
	kfree(acc);
	kfree(tmp);
	return e;
}

/* Recursive doubling over the largest power of two p <= n: first the n - p extra members
 * hand their vector to a neighbour (rank 2i to 2i + 1, for i < n - p), then the p members
 * exchange and combine in log2 p rounds, then the neighbours get the result back. */
int allreduce_recursive(struct msg_group *g, const int64_t *in, int64_t *out, unsigned count, enum msg_op op)
{
	uint32_t bytes = count * sizeof(int64_t);
	int64_t *acc, *tmp;
	int tag = coll_next_tag(g), e = two_vectors(in, bytes, &acc, &tmp);
	if (e)
		return e;
	unsigned n = g->n, rank = g->rank, p = 1;
	while (p * 2 <= n)
		p *= 2;
	unsigned extra = n - p;
	bool folded = rank < 2 * extra && rank % 2 == 0; /* sits the rounds out */
	unsigned newrank = rank < 2 * extra ? rank / 2 : rank - extra;
	if (rank < 2 * extra) {
		if (folded)
			e = coll_send(g, rank + 1, tag, acc, bytes);
		else if (!(e = coll_recv(g, rank - 1, tag, tmp, bytes)))
			coll_combine(acc, tmp, count, op);
	}
	for (unsigned mask = 1; mask < p && !folded && !e; mask <<= 1) {
		unsigned pn = newrank ^ mask, partner = pn < extra ? 2 * pn + 1 : pn + extra;
		e = exchange(g, tag, partner, acc, bytes, partner, tmp, bytes);
		if (!e)
			coll_combine(acc, tmp, count, op);
	}
	if (!e && rank < 2 * extra)
		e = folded ? coll_recv(g, rank + 1, tag, acc, bytes) : coll_send(g, rank - 1, tag, acc, bytes);
	if (!e)
		memcpy(out, acc, bytes);
	kfree(acc);
	kfree(tmp);
	return e;
}

/* ---- gather, scatter, allgather ---- */

int gather_flat(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out)
{
	int tag = coll_next_tag(g);
	if (g->rank != root)
		return coll_send(g, root, tag, in, len);
	struct msg_request *reqs = kmalloc(g->n * sizeof *reqs);
	if (!reqs)
		return -ENOMEM;
	int e = 0;
	unsigned posted = 0;
	for (unsigned r = 0; r < g->n && !e; r++) {
		if (r == root)
			continue;
		e = msg_irecv_typed(g->type, g->cores[r], tag, (uint8_t *)out + (uint64_t)r * len, len, &reqs[posted]);
		if (!e)
			posted++;
	}
	memmove((uint8_t *)out + (uint64_t)root * len, in, len);
	for (unsigned i = 0; i < posted; i++) {
		struct mosaic_status st;
		int w = msg_wait(&reqs[i], &st);
		if (!e && (w || st.len != len))
			e = w ? w : -EINVAL;
	}
	kfree(reqs);
	return e;
}

/* Each member collects its binomial subtree's blocks (in virtual-rank order) and sends
 * them to its parent in one transfer; the root puts them in rank order. */
int gather_binomial(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out)
{
	int tag = coll_next_tag(g), e = 0;
	unsigned n = g->n, v = virtual_rank(g, root), sub = subtree(n, v);
	if (sub == 1 && v)
		return coll_send(g, real_rank(g, root, v - (v & -v)), tag, in, len);
	uint8_t *blocks = root == 0 && v == 0 ? out : kmalloc(sub && len ? (uint64_t)sub * len : 1);
	if (!blocks)
		return -ENOMEM;
	memmove(blocks, in, len);
	for (unsigned mask = 1; mask < n && !e; mask <<= 1) {
		if (v & mask) {
			e = coll_send(g, real_rank(g, root, v - mask), tag, blocks, (uint64_t)sub * len);
			break;
		}
		if (v + mask < n)
			e = coll_recv(g, real_rank(g, root, v + mask), tag, blocks + (uint64_t)mask * len,
				      (uint64_t)min_u(mask, n - v - mask) * len);
	}
	if (v == 0 && root != 0 && !e)
		for (unsigned w = 0; w < n; w++)
			memcpy((uint8_t *)out + (uint64_t)real_rank(g, root, w) * len, blocks + (uint64_t)w * len, len);
	if (blocks != out)
		kfree(blocks);
	return e;
}

int scatter_flat(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out)
{
	int tag = coll_next_tag(g), e = 0;
	if (g->rank != root)
		return coll_recv(g, root, tag, out, len);
	for (unsigned r = 0; r < g->n && !e; r++)
		if (r != root)
			e = coll_send(g, r, tag, (const uint8_t *)in + (uint64_t)r * len, len);
	if (!e)
		memmove(out, (const uint8_t *)in + (uint64_t)root * len, len);
	return e;
}

/* The reverse of gather_binomial: each member receives its subtree's blocks from its parent
 * and hands each child the child's subtree, halving as it goes. */
int scatter_binomial(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out)
{
	int tag = coll_next_tag(g), e = 0;
	unsigned n = g->n, v = virtual_rank(g, root), sub = subtree(n, v), mask = v ? v & -v : 1;
	if (sub == 1 && v)
		return coll_recv(g, real_rank(g, root, v - mask), tag, out, len);
	const uint8_t *blocks = in;
	uint8_t *own = 0;
	if (v || root != 0) {
		own = kmalloc(sub && len ? (uint64_t)sub * len : 1);
		if (!own)
			return -ENOMEM;
		blocks = own;
	}
	if (v)
		e = coll_recv(g, real_rank(g, root, v - mask), tag, own, (uint64_t)sub * len);
	else if (root != 0)
		for (unsigned w = 0; w < n; w++)
			memcpy(own + (uint64_t)w * len, (const uint8_t *)in + (uint64_t)real_rank(g, root, w) * len, len);
	if (!v)
		while (mask < n)
			mask <<= 1;
	for (mask >>= 1; mask && !e; mask >>= 1)
		if (v + mask < n)
			e = coll_send(g, real_rank(g, root, v + mask), tag, blocks + (uint64_t)mask * len,
				      (uint64_t)min_u(mask, n - v - mask) * len);
	if (!e)
		memmove(out, blocks, len);
	kfree(own);
	return e;
}

/* n - 1 steps: each member passes on to its right neighbour the block it got last. */
int allgather_ring(struct msg_group *g, const void *in, uint32_t len, void *out)
{
	int tag = coll_next_tag(g), e = 0;
	unsigned n = g->n, rank = g->rank, right = (rank + 1) % n, left = (rank + n - 1) % n;
	uint8_t *o = out;
	memmove(o + (uint64_t)rank * len, in, len);
	for (unsigned s = 0; s + 1 < n && !e; s++) {
		unsigned sb = (rank + n - s) % n, rb = (rank + 2 * n - s - 1) % n;
		e = exchange(g, tag, right, o + (uint64_t)sb * len, len, left, o + (uint64_t)rb * len, len);
	}
	return e;
}

/* ---- alltoall(v) ---- */

int alltoallv_flat(struct msg_group *g, const void *in, const uint32_t *sendcounts, const uint32_t *sdispls,
		   void *out, const uint32_t *recvcounts, const uint32_t *rdispls)
{
	int tag = coll_next_tag(g), e = 0;
	struct msg_request *reqs = kmalloc(2 * g->n * sizeof *reqs);
	if (!reqs)
		return -ENOMEM;
	unsigned nreq = 0, nrecv;
	for (unsigned i = 1; i < g->n && !e; i++) {
		unsigned r = (g->rank + g->n - i) % g->n;
		e = msg_irecv_typed(g->type, g->cores[r], tag, (uint8_t *)out + rdispls[r], recvcounts[r], &reqs[nreq]);
		if (!e)
			nreq++;
	}
	nrecv = nreq;
	memmove((uint8_t *)out + rdispls[g->rank], (const uint8_t *)in + sdispls[g->rank], sendcounts[g->rank]);
	/* start with the next rank up, so the sends of all ranks spread over the destinations */
	for (unsigned i = 1; i < g->n && !e; i++) {
		unsigned r = (g->rank + i) % g->n;
		e = msg_isend_typed(g->type, g->cores[r], tag, (const uint8_t *)in + sdispls[r], sendcounts[r], false,
				    &reqs[nreq]);
		if (!e)
			nreq++;
	}
	for (unsigned i = 0; i < nreq; i++) {
		struct mosaic_status st;
		int w = msg_wait(&reqs[i], &st);
		if (!e && w)
			e = w;
		if (!e && i < nrecv) {
			unsigned r = (g->rank + g->n - 1 - i) % g->n;
			if (st.len != recvcounts[r])
				e = -EINVAL;
		}
	}
	kfree(reqs);
	return e;
}

/* Round i sends to rank + i and receives from rank - i: one message in flight each way per
 * member, instead of n - 1. The same messages as the flat exchange, so members may mix the two.
 * A round that fails does not stop the later ones, so no partner waits for a message forever. */
int alltoallv_pairwise(struct msg_group *g, const void *in, const uint32_t *sendcounts, const uint32_t *sdispls,
		       void *out, const uint32_t *recvcounts, const uint32_t *rdispls)
{
	int tag = coll_next_tag(g), e = 0;
	memmove((uint8_t *)out + rdispls[g->rank], (const uint8_t *)in + sdispls[g->rank], sendcounts[g->rank]);
	for (unsigned i = 1; i < g->n; i++) {
		unsigned to = (g->rank + i) % g->n, from = (g->rank + g->n - i) % g->n;
		int r = exchange(g, tag, to, (const uint8_t *)in + sdispls[to], sendcounts[to], from,
				 (uint8_t *)out + rdispls[from], recvcounts[from]);
		if (!e)
			e = r;
	}
	return e;
}
