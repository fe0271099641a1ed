/* Groups, and the collectives' public calls: checks, the strict mode's barriers, and which
 * algorithm of coll_algo.c runs (see group.h). */
#include "kernel/msg/coll_internal.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/bootargs.h"
#include "drivers/noc/mesh.h"
#include "drivers/noc/noc_ep.h"
#include "lib/string.h"

/* The member nearest to rank r's tile among those closer to the root (dist), the way
 * build_tree defines its parent: fewest hops, then nearest the root, then lowest rank. It
 * searches rings of growing hop distance around r's tile in a grid of ranks (rank + 1 by core,
 * 0: not a member) instead of measuring every member: in a dense group the parent is a
 * neighbour, and every member builds the whole tree, so the pairwise search was O(n^3) hop
 * counts over the group (3.3 million instructions for one group of 64 members). */
static unsigned parent_of(const struct msg_group *g, const uint16_t *tiles, const uint16_t *grid, const uint16_t *dist,
			  unsigned r)
{
	int x0 = mesh_tiles[tiles[r]].x, y0 = mesh_tiles[tiles[r]].y;
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

/* This member's children, the one with the tallest subtree first (then by rank): tallest by
 * the model's latency of its longest path down, since edges differ in hops. Its
 * message is the last to come up and the first that must go down: a down pass sends to
 * it first and an up pass receives from it last, so the tree's critical path holds one
 * message per level, not every sibling's (a 128-core barrier: docs/noc.md). */
static void order_children(struct msg_group *g, const uint64_t *height)
{
	g->nchildren = 0;
	for (unsigned r = 0; r < g->n; r++) {
		if (r == g->tree_root || g->parent[r] != g->rank)
			continue;
		unsigned i = g->nchildren++;
		while (i > 0 && height[g->children[i - 1]] < height[r]) {
			g->children[i] = g->children[i - 1];
			i--;
		}
		g->children[i] = (uint16_t)r;
	}
}

/*
 * Levels of the tree that one message spans: 1 keeps the base tree, whose every edge is one
 * hop on a rectangle; 2 (the default) joins each member to its nearest ancestor on an even
 * level of the base tree. On Mosaic's model a level costs a message's injection and
 * software (some 1,450 ns) where a hop costs 500, so halving the levels for edges of up to
 * two hops took the 128-core barrier from 46.6 to 31.5 µs and the 64-core one from 31.1 to
 * 21.4 µs (make bench-noc, docs/benchmarks.md); 3 gave the members near the root so many
 * children that it was slower.
 */
static uint64_t coll_tree_stride = 2;
BOOTARG_U64("coll_tree_stride", coll_tree_stride, 1, 8,
	    "levels of the base mesh tree that one edge of the collectives' tree spans (1: one hop)");

unsigned msg_tree_stride(void) { return (unsigned)coll_tree_stride; }

/* Joins each member that stands for its tile to its nearest ancestor of the base tree
 * (parent) whose level is a multiple of the stride. The other members of a tile stay with
 * the one that stands for it. */
static void shortcut_tree(struct msg_group *g, const uint16_t *tiles, const uint16_t *grid)
{
	if (coll_tree_stride <= 1)
		return;
	uint16_t base[MOSAIC_MAX_HARTS], level[MOSAIC_MAX_HARTS];
	for (unsigned r = 0; r < g->n; r++)
		base[r] = g->parent[r];
	for (unsigned r = 0; r < g->n; r++) {
		unsigned l = 0;
		for (unsigned x = r; x != g->tree_root; x = base[x])
			l++;
		level[r] = (uint16_t)l;
	}
	for (unsigned r = 0; r < g->n; r++) {
		if (r == g->tree_root || grid[tiles[r]] - 1u != r)
			continue;
		unsigned a = base[r];
		while (a != g->tree_root && level[a] % coll_tree_stride != 0)
			a = base[a];
		g->parent[r] = (uint16_t)a;
	}
}

/* Builds the tree: first the base tree, where each member's parent is, among the members closer to the root,
 * the one fewest hops away (then the one nearest the root, then the lowest rank). The
 * tree is built over tiles: several members on one tile (tasks time-sliced on a core,
 * each with its endpoint) hang off the lowest rank there, which takes the tile's place.
 * A virtual endpoint counts at the tile it was opened at (noc_ep_home), which every
 * member sees alike wherever the task has moved since, so all build the same tree. Then
 * shortcut_tree lets each edge span coll_tree_stride levels of it. */
static void build_tree(struct msg_group *g)
{
	uint16_t tiles[MOSAIC_MAX_HARTS], dist[MOSAIC_MAX_HARTS], grid[MOSAIC_MAX_HARTS] = {0};
	for (unsigned r = 0; r < g->n; r++)
		tiles[r] = (uint16_t)noc_ep_home(g->cores[r]);
	unsigned root_core = mesh_centre_of(tiles, g->n);
	g->tree_root = g->n;
	for (unsigned r = 0; r < g->n; r++) {
		if (tiles[r] == root_core && g->tree_root == g->n)
			g->tree_root = (uint16_t)r;
		dist[r] = (uint16_t)mesh_hops(tiles[r], root_core);
		if (!grid[tiles[r]])
			grid[tiles[r]] = (uint16_t)(r + 1); /* the tile's first member stands for it */
	}
	for (unsigned r = 0; r < g->n; r++) {
		unsigned lead = grid[tiles[r]] - 1u;
		g->parent[r] = r == g->tree_root ? (uint16_t)r
			       : lead != r	 ? (uint16_t)lead
						 : (uint16_t)parent_of(g, tiles, grid, dist, r);
	}
	shortcut_tree(g, tiles, grid);
	g->depth = 0;
	/* each member's subtree height: the model's latency of its longest path down, an empty
	 * message's latency per edge (the hops of each member's edge up kept in dist, whose hop
	 * counts to the root are no longer needed) */
	uint64_t height[MOSAIC_MAX_HARTS], edge0_ns = noc_timing_latency(&noc_params.timing, 0, 0);
	for (unsigned r = 0; r < g->n; r++) {
		height[r] = 0;
		dist[r] = (uint16_t)mesh_hops(tiles[r], tiles[g->parent[r]]);
	}
	for (unsigned r = 0; r < g->n; r++) {
		unsigned d = 0;
		uint64_t ns = 0;
		for (unsigned x = r; x != g->tree_root; x = g->parent[x]) {
			d++;
			ns += edge0_ns + dist[x] * noc_params.timing.t_hop_ns;
			if (height[g->parent[x]] < ns)
				height[g->parent[x]] = ns;
		}
		if (d > g->depth)
			g->depth = (uint16_t)d;
	}
	order_children(g, height);
}

int msg_group_init(struct msg_group *g, const uint16_t *cores, unsigned n)
{
	if (!g || !cores || n == 0 || n > MOSAIC_MAX_HARTS)
		return -EINVAL;
	uint64_t seen[NOC_ENDPOINTS / 64] = {0};
	for (unsigned i = 0; i < n; i++) {
		if (!noc_ep_valid(cores[i]))
			return -ENXIO;
		if (seen[cores[i] / 64] & (1UL << (cores[i] % 64)))
			return -EINVAL;
		seen[cores[i] / 64] |= 1UL << (cores[i] % 64);
	}
	g->n = (uint16_t)n;
	g->seq = 0;
	g->type = MSG_TYPE_COLL;
	g->rank = (uint16_t)n;
	unsigned me = noc_ep_self(); /* a time-sliced task of a job: its own endpoint */
	for (unsigned i = 0; i < n; i++) {
		g->cores[i] = cores[i];
		if (cores[i] == me)
			g->rank = (uint16_t)i;
	}
	build_tree(g);
	return 0;
}

static bool member(const struct msg_group *g) { return g && g->n && g->rank < g->n; }

static const unsigned algos_of[COLL_KINDS] = {
	[COLL_BARRIER] = 1u << MSG_ALGO_TREE | 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_RECURSIVE,
	[COLL_BCAST] = 1u << MSG_ALGO_TREE | 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_BINOMIAL,
	[COLL_REDUCE] = 1u << MSG_ALGO_TREE | 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_BINOMIAL,
	[COLL_ALLREDUCE] = 1u << MSG_ALGO_TREE | 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_RECURSIVE,
	[COLL_GATHER] = 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_BINOMIAL,
	[COLL_SCATTER] = 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_BINOMIAL,
	[COLL_ALLGATHER] = 1u << MSG_ALGO_TREE | 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_RING,
	[COLL_ALLTOALL] = 1u << MSG_ALGO_FLAT | 1u << MSG_ALGO_PAIRWISE,
};

unsigned msg_coll_algos(enum msg_coll kind) { return (unsigned)kind < COLL_KINDS ? algos_of[kind] : 0; }

const char *msg_algo_name(enum msg_algo a)
{
	static const char *const names[MSG_ALGO_COUNT] = {"auto", "tree", "flat", "binomial", "ring", "recursive",
							  "pairwise"};
	return (unsigned)a < MSG_ALGO_COUNT ? names[a] : "?";
}

const char *msg_coll_name(enum msg_coll kind)
{
	static const char *const names[COLL_KINDS] = {"barrier", "bcast", "reduce", "allreduce", "gather", "scatter",
						      "allgather", "alltoall"};
	return (unsigned)kind < COLL_KINDS ? names[kind] : "?";
}

int msg_coll_pick(enum msg_coll kind, unsigned how, unsigned n, uint64_t bytes)
{
	unsigned sync = how & MSG_SYNC_MASK, a = (how & MSG_HOW_MASK) >> MSG_ALGO_SHIFT;
	if ((how & ~MSG_HOW_MASK) || sync > MSG_LOOSE || a >= MSG_ALGO_COUNT || (unsigned)kind >= COLL_KINDS)
		return -EINVAL;
	if (a == MSG_ALGO_AUTO)
		return coll_tuned(kind, n, bytes);
	return algos_of[kind] & (1u << a) ? (int)a : -EINVAL;
}

static int barrier_by(struct msg_group *g, int algo)
{
	return algo == MSG_ALGO_FLAT ? barrier_flat(g) : algo == MSG_ALGO_RECURSIVE ? barrier_dissemination(g)
										   : barrier_tree(g);
}

/* The strict mode's fence: the tuned barrier, before and after the data move. */
static int strict_fence(struct msg_group *g, unsigned how)
{
	if ((how & MSG_SYNC_MASK) != MSG_STRICT)
		return 0;
	return barrier_by(g, coll_tuned(COLL_BARRIER, g->n, 0));
}

int msg_barrier(struct msg_group *g, unsigned how)
{
	if (!member(g))
		return -EINVAL;
	int a = msg_coll_pick(COLL_BARRIER, how, g->n, 0);
	return a < 0 ? a : barrier_by(g, a);
}

int msg_bcast(struct msg_group *g, unsigned how, unsigned root, void *buf, uint32_t len)
{
	if (!member(g) || root >= g->n || (len && !buf))
		return -EINVAL;
	if (len > NOC_MAX_BODY)
		return -EMSGSIZE;
	int a = msg_coll_pick(COLL_BCAST, how, g->n, len), e = a < 0 ? a : strict_fence(g, how);
	if (!e)
		e = a == MSG_ALGO_FLAT ? bcast_flat(g, root, buf, len)
		    : a == MSG_ALGO_BINOMIAL ? bcast_binomial(g, root, buf, len) : bcast_tree(g, root, buf, len);
	return e ? e : strict_fence(g, how);
}

static bool reduce_args_ok(const struct msg_group *g, const int64_t *in, const int64_t *out, bool has_out,
			   enum msg_op op)
{
	return member(g) && in && (!has_out || out) && op >= MSG_OP_SUM && op <= MSG_OP_MAX;
}

int msg_reduce(struct msg_group *g, unsigned how, unsigned root, const int64_t *in, int64_t *out, unsigned count,
	       enum msg_op op)
{
	if (!reduce_args_ok(g, in, out, g && g->rank == root, op) || root >= g->n)
		return -EINVAL;
	if (count > NOC_MAX_BODY / sizeof(int64_t))
		return -EMSGSIZE;
	int a = msg_coll_pick(COLL_REDUCE, how, g->n, count * sizeof(int64_t)), e = a < 0 ? a : strict_fence(g, how);
	if (!e)
		e = a == MSG_ALGO_FLAT ? reduce_flat(g, root, in, out, count, op)
		    : a == MSG_ALGO_BINOMIAL ? reduce_binomial(g, root, in, out, count, op)
					     : reduce_tree(g, root, in, out, count, op);
	return e ? e : strict_fence(g, how);
}

int msg_allreduce(struct msg_group *g, unsigned how, const int64_t *in, int64_t *out, unsigned count, enum msg_op op)
{
	if (!reduce_args_ok(g, in, out, true, op))
		return -EINVAL;
	if (count > NOC_MAX_BODY / sizeof(int64_t))
		return -EMSGSIZE;
	uint32_t bytes = count * sizeof(int64_t);
	int a = msg_coll_pick(COLL_ALLREDUCE, how, g->n, bytes), e = a < 0 ? a : strict_fence(g, how);
	if (!e) {
		if (a == MSG_ALGO_RECURSIVE)
			e = allreduce_recursive(g, in, out, count, op);
		else if (a == MSG_ALGO_FLAT && !(e = reduce_flat(g, g->tree_root, in, out, count, op)))
			e = bcast_flat(g, g->tree_root, out, bytes);
		else if (a == MSG_ALGO_TREE && !(e = reduce_tree(g, g->tree_root, in, out, count, op)))
			e = bcast_tree(g, g->tree_root, out, bytes);
	}
	return e ? e : strict_fence(g, how);
}

/* Root-centred block collectives: the arguments every one of them checks. */
static int block_args(const struct msg_group *g, unsigned root, const void *mine, uint32_t len, const void *roots)
{
	if (!member(g) || root >= g->n || (len && !mine) || (g->rank == root && len && !roots))
		return -EINVAL;
	return len > NOC_MAX_BODY ? -EMSGSIZE : 0;
}

int msg_gather(struct msg_group *g, unsigned how, unsigned root, const void *in, uint32_t len, void *out)
{
	int e = block_args(g, root, in, len, out), a = e ? e : msg_coll_pick(COLL_GATHER, how, g->n, len);
	e = a < 0 ? a : strict_fence(g, how);
	if (!e)
		e = a == MSG_ALGO_BINOMIAL ? gather_binomial(g, root, in, len, out) : gather_flat(g, root, in, len, out);
	return e ? e : strict_fence(g, how);
}

int msg_scatter(struct msg_group *g, unsigned how, unsigned root, const void *in, uint32_t len, void *out)
{
	int e = block_args(g, root, out, len, in), a = e ? e : msg_coll_pick(COLL_SCATTER, how, g->n, len);
	e = a < 0 ? a : strict_fence(g, how);
	if (!e)
		e = a == MSG_ALGO_BINOMIAL ? scatter_binomial(g, root, in, len, out)
					   : scatter_flat(g, root, in, len, out);
	return e ? e : strict_fence(g, how);
}

/* Four arrays of n: counts and displacements for the uniform exchanges (allgather's flat
 * one sends the same block to everyone, alltoall's sends block r to rank r). */
static uint32_t *uniform_vectors(unsigned n, uint32_t len, bool same_block)
{
	uint32_t *v = kmalloc(4 * n * sizeof *v);
	for (unsigned r = 0; v && r < n; r++) {
		v[r] = v[2 * n + r] = len;
		v[n + r] = same_block ? 0 : r * len;
		v[3 * n + r] = r * len;
	}
	return v;
}

int msg_allgather(struct msg_group *g, unsigned how, const void *in, uint32_t len, void *out)
{
	if (!member(g) || (len && (!in || !out)))
		return -EINVAL;
	if (len > NOC_MAX_BODY)
		return -EMSGSIZE;
	int a = msg_coll_pick(COLL_ALLGATHER, how, g->n, len), e = a < 0 ? a : strict_fence(g, how);
	if (!e && a == MSG_ALGO_RING)
		e = allgather_ring(g, in, len, out);
	else if (!e && a == MSG_ALGO_FLAT) {
		uint32_t *v = uniform_vectors(g->n, len, true);
		e = v ? alltoallv_flat(g, in, v, v + g->n, out, v + 2 * g->n, v + 3 * g->n) : -ENOMEM;
		kfree(v);
	} else if (!e && !(e = gather_flat(g, g->tree_root, in, len, out)))
		e = bcast_tree(g, g->tree_root, out, (uint64_t)len * g->n);
	return e ? e : strict_fence(g, how);
}

int msg_alltoallv(struct msg_group *g, unsigned how, const void *in, const uint32_t *sendcounts,
		  const uint32_t *sdispls, void *out, const uint32_t *recvcounts, const uint32_t *rdispls)
{
	if (!member(g) || !sendcounts || !sdispls || !recvcounts || !rdispls)
		return -EINVAL;
	uint64_t total = 0;
	for (unsigned r = 0; r < g->n; r++) {
		if (sendcounts[r] > NOC_MAX_BODY || recvcounts[r] > NOC_MAX_BODY)
			return -EMSGSIZE;
		total += sendcounts[r];
	}
	if (sendcounts[g->rank] != recvcounts[g->rank])
		return -EINVAL;
	int a = msg_coll_pick(COLL_ALLTOALL, how, g->n, total / g->n), e = a < 0 ? a : strict_fence(g, how);
	if (!e)
		e = a == MSG_ALGO_PAIRWISE ? alltoallv_pairwise(g, in, sendcounts, sdispls, out, recvcounts, rdispls)
					   : alltoallv_flat(g, in, sendcounts, sdispls, out, recvcounts, rdispls);
	return e ? e : strict_fence(g, how);
}

int msg_alltoall(struct msg_group *g, unsigned how, const void *in, uint32_t len, void *out)
{
	if (!member(g))
		return -EINVAL;
	uint32_t *v = uniform_vectors(g->n, len, false);
	if (!v)
		return -ENOMEM;
	int e = msg_alltoallv(g, how, in, v, v + g->n, out, v + 2 * g->n, v + 3 * g->n);
	kfree(v);
	return e;
}
