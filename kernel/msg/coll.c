/* Groups and collectives over the message API (see group.h). */
#include "kernel/msg/group.h"
#include "kernel/hart.h"
#include "kernel/errno.h"
#include "kernel/kheap.h"
#include "drivers/noc/mesh.h"
#include "lib/string.h"

/* The member nearest to rank r's tile among those closer to the root (dist), the way
 * build_tree defines its parent: fewest hops, then nearest the root, then lowest rank. It
 * searches rings of growing hop distance around r's tile in a grid of ranks (rank + 1 by core,
 * 0: not a member) instead of measuring every member: in a dense group the parent is a
 * neighbour, and every member builds the whole tree, so the pairwise search was O(n^3) hop
 * counts over the group (3.3 million instructions for one group of 64 members). */
static unsigned parent_of(const struct msg_group *g, const uint16_t *grid, const uint16_t *dist, unsigned r)
{
	int x0 = mesh_tiles[g->cores[r]].x, y0 = mesh_tiles[g->cores[r]].y;
	for (int h = 1; h < (int)(mesh.w + mesh.h); h++) {
		unsigned best = g->n;
		for (int dx = -h; dx <= h; dx++) {
			int rest = h - (dx < 0 ? -dx : dx);
			for (int side = 0; side < (rest ? 2 : 1); side++) {
				int x = x0 + dx, y = y0 + (side ? -rest : rest);
				if (x < 0 || y < 0 || x >= (int)mesh.w || y >= (int)mesh.h)
					continue;
				unsigned m = grid[mesh_core_at((unsigned)x, (unsigned)y)];
				if (!m || dist[m - 1] >= dist[r])
					continue;
				unsigned p = m - 1;
				if (best == g->n || dist[p] < dist[best] || (dist[p] == dist[best] && p < best))
					best = p;
			}
		}
		if (best != g->n)
			return best;
	}
	return g->tree_root; /* not reached: the root is closer than any other member */
}

/* Builds the tree: each member's parent is, among the members closer to the root,
 * the one fewest hops away (then the one nearest the root, then the lowest rank). */
static void build_tree(struct msg_group *g)
{
	unsigned root_core = mesh_centre_of(g->cores, g->n);
	uint16_t dist[MOSAIC_MAX_HARTS], grid[MOSAIC_MAX_HARTS] = {0};
	for (unsigned r = 0; r < g->n; r++) {
		if (g->cores[r] == root_core)
			g->tree_root = (uint16_t)r;
		dist[r] = (uint16_t)mesh_hops(g->cores[r], root_core);
		grid[g->cores[r]] = (uint16_t)(r + 1);
	}
	for (unsigned r = 0; r < g->n; r++)
		g->parent[r] = r == g->tree_root ? (uint16_t)r : (uint16_t)parent_of(g, grid, dist, r);
	g->nchildren = 0;
	g->depth = 0;
	for (unsigned r = 0; r < g->n; r++) {
		if (r != g->tree_root && g->parent[r] == g->rank)
			g->children[g->nchildren++] = (uint16_t)r;
		unsigned d = 0;
		for (unsigned x = r; x != g->tree_root; x = g->parent[x])
			d++;
		if (d > g->depth)
			g->depth = (uint16_t)d;
	}
}

int msg_group_init(struct msg_group *g, const uint16_t *cores, unsigned n)
{
	if (!g || !cores || n == 0 || n > mesh.cores)
		return -EINVAL;
	uint64_t seen[MOSAIC_MAX_HARTS / 64] = {0};
	for (unsigned i = 0; i < n; i++) {
		if (cores[i] >= mesh.cores)
			return -ENXIO;
		if (seen[cores[i] / 64] & (1UL << (cores[i] % 64)))
			return -EINVAL;
		seen[cores[i] / 64] |= 1UL << (cores[i] % 64);
	}
	g->n = (uint16_t)n;
	g->seq = 0;
	g->type = MSG_TYPE_COLL;
	g->rank = (uint16_t)n;
	unsigned me = this_cpu();
	for (unsigned i = 0; i < n; i++) {
		g->cores[i] = cores[i];
		if (cores[i] == me)
			g->rank = (uint16_t)i;
	}
	build_tree(g);
	return 0;
}

int msg_group_world(struct msg_group *g)
{
	uint16_t cores[MOSAIC_MAX_HARTS];
	for (unsigned i = 0; i < mesh.cores; i++)
		cores[i] = (uint16_t)i;
	return msg_group_init(g, cores, mesh.cores);
}

static bool member(const struct msg_group *g) { return g && g->n && g->rank < g->n; }
static int next_tag(struct msg_group *g) { return (int)(g->seq++ & MSG_TAG_MAX); }

static int coll_send(struct msg_group *g, unsigned rank, int tag, const void *buf, uint32_t len)
{
	struct msg_request req;
	int e = msg_isend_typed(g->type, g->cores[rank], tag, buf, len, false, &req);
	return e ? e : msg_wait(&req, 0);
}

/* Receives exactly len bytes from rank. */
static int coll_recv(struct msg_group *g, unsigned rank, int tag, void *buf, uint32_t len)
{
	struct msg_request req;
	struct msg_status st;
	int e = msg_irecv_typed(g->type, g->cores[rank], tag, buf, len, &req);
	if (!e)
		e = msg_wait(&req, &st);
	return e ? e : st.len == len ? 0 : -EINVAL;
}

int msg_barrier(struct msg_group *g)
{
	if (!member(g))
		return -EINVAL;
	int tag = next_tag(g), e = 0;
	for (unsigned c = 0; c < g->nchildren && !e; c++)
		e = coll_recv(g, g->children[c], tag, 0, 0);
	if (!e && g->rank != g->tree_root) {
		e = coll_send(g, g->parent[g->rank], tag, 0, 0);
		if (!e)
			e = coll_recv(g, g->parent[g->rank], tag, 0, 0);
	}
	for (unsigned c = 0; c < g->nchildren && !e; c++)
		e = coll_send(g, g->children[c], tag, 0, 0);
	return e;
}

int msg_bcast(struct msg_group *g, unsigned root, void *buf, uint32_t len)
{
	if (!member(g) || root >= g->n || (len && !buf))
		return -EINVAL;
	if (len > NOC_MAX_BODY)
		return -EMSGSIZE;
	int tag = next_tag(g), e = 0;
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

static void combine(int64_t *acc, const int64_t *x, unsigned count, enum msg_op op)
{
	for (unsigned i = 0; i < count; i++) {
		if (op == MSG_OP_SUM)
			acc[i] += x[i];
		else if (op == MSG_OP_MIN ? x[i] < acc[i] : x[i] > acc[i])
			acc[i] = x[i];
	}
}

int msg_reduce(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count, enum msg_op op)
{
	if (!member(g) || root >= g->n || !in || (g->rank == root && !out) || op < MSG_OP_SUM || op > MSG_OP_MAX)
		return -EINVAL;
	uint32_t bytes = count * sizeof(int64_t);
	if (count > NOC_MAX_BODY / sizeof(int64_t))
		return -EMSGSIZE;
	int tag = next_tag(g), e = 0;
	int64_t *acc = kmalloc(bytes ? bytes : 1), *tmp = kmalloc(bytes ? bytes : 1);
	if (!acc || !tmp) {
		kfree(acc);
		kfree(tmp);
		return -ENOMEM;
	}
	memcpy(acc, in, bytes);
	for (unsigned c = 0; c < g->nchildren && !e; c++) {
		e = coll_recv(g, g->children[c], tag, tmp, bytes);
		if (!e)
			combine(acc, tmp, count, op);
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

int msg_allreduce(struct msg_group *g, const int64_t *in, int64_t *out, unsigned count, enum msg_op op)
{
	if (!member(g) || !out)
		return -EINVAL;
	int e = msg_reduce(g, g->tree_root, in, out, count, op);
	return e ? e : msg_bcast(g, g->tree_root, out, count * sizeof(int64_t));
}

int msg_gather(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out)
{
	if (!member(g) || root >= g->n || (len && !in) || (g->rank == root && len && !out))
		return -EINVAL;
	if (len > NOC_MAX_BODY)
		return -EMSGSIZE;
	int tag = next_tag(g);
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
		e = msg_irecv_typed(g->type, g->cores[r], tag, (uint8_t *)out + r * len, len, &reqs[posted]);
		if (!e)
			posted++;
	}
	memcpy((uint8_t *)out + root * len, in, len);
	for (unsigned i = 0; i < posted; i++) {
		struct msg_status st;
		int w = msg_wait(&reqs[i], &st);
		if (!e && (w || st.len != len))
			e = w ? w : -EINVAL;
	}
	kfree(reqs);
	return e;
}

int msg_allgather(struct msg_group *g, const void *in, uint32_t len, void *out)
{
	if (!member(g))
		return -EINVAL;
	if ((uint64_t)len * g->n > NOC_MAX_BODY)
		return -EMSGSIZE;
	int e = msg_gather(g, g->tree_root, in, len, out);
	return e ? e : msg_bcast(g, g->tree_root, out, len * g->n);
}

int msg_alltoallv(struct msg_group *g, const void *in, const uint32_t *sendcounts, const uint32_t *sdispls,
		  void *out, const uint32_t *recvcounts, const uint32_t *rdispls)
{
	if (!member(g) || !sendcounts || !sdispls || !recvcounts || !rdispls)
		return -EINVAL;
	for (unsigned r = 0; r < g->n; r++)
		if (sendcounts[r] > NOC_MAX_BODY || recvcounts[r] > NOC_MAX_BODY)
			return -EMSGSIZE;
	if (sendcounts[g->rank] != recvcounts[g->rank])
		return -EINVAL;
	int tag = next_tag(g), e = 0;
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
	memcpy((uint8_t *)out + rdispls[g->rank], (const uint8_t *)in + sdispls[g->rank], sendcounts[g->rank]);
	/* start with the next rank up, so the sends of all ranks spread over the destinations */
	for (unsigned i = 1; i < g->n && !e; i++) {
		unsigned r = (g->rank + i) % g->n;
		e = msg_isend_typed(g->type, g->cores[r], tag, (const uint8_t *)in + sdispls[r], sendcounts[r], false,
				    &reqs[nreq]);
		if (!e)
			nreq++;
	}
	for (unsigned i = 0; i < nreq; i++) {
		struct msg_status st;
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

int msg_alltoall(struct msg_group *g, const void *in, uint32_t len, void *out)
{
	if (!member(g))
		return -EINVAL;
	uint32_t *v = kmalloc(4 * g->n * sizeof *v);
	if (!v)
		return -ENOMEM;
	for (unsigned r = 0; r < g->n; r++) {
		v[r] = v[2 * g->n + r] = len;
		v[g->n + r] = v[3 * g->n + r] = r * len;
	}
	int e = msg_alltoallv(g, in, v, v + g->n, out, v + 2 * g->n, v + 3 * g->n);
	kfree(v);
	return e;
}
