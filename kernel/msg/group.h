/*
 * Groups (an ordered list of cores, like an MPI communicator) and collectives.
 * Every member keeps its own copy of the group; collectives must be called by
 * all members in the same order, with the same root, sizes and `how`.
 *
 * `how` = a synchronisation mode | MSG_ALGO(an algorithm) (docs/collectives.md):
 * - MSG_STRICT: data moves only after every member has arrived and is done before
 *   the first one leaves (a barrier before and after the data phase). On return
 *   every member's part is complete.
 * - MSG_LOOSE: data moves as soon as a member arrives, and a member leaves as soon
 *   as its own part is done, possibly before another member has arrived. On return
 *   only this member's buffers are done with: its output is final and its input may
 *   be reused; nothing is known about the other members.
 * A barrier is its own synchronisation: both modes give the same barrier.
 * Algorithm 0 (MSG_ALGO_AUTO) takes the tuned table's choice for the group's size
 * and the message size (kernel/msg/coll_tune.c); a named algorithm that the
 * collective does not have is -EINVAL.
 *
 * The default tree is rooted at the member nearest the group's mesh centre. Its base
 * tree joins each member to a member one step closer to the root (one hop on a
 * rectangle); each edge of the tree spans msg_tree_stride() levels of that (boot
 * argument coll_tree_stride, default 2: on a rectangle edges of up to two hops and
 * half the levels).
 * Data of reduce/allreduce are int64 elements. One member's block
 * (bcast's buffer, a gather/scatter/alltoall block, reduce's vector) is at most
 * NOC_MAX_BODY bytes, larger requests get -EMSGSIZE; an algorithm that moves several
 * blocks in one transfer splits it into messages of at most NOC_MAX_BODY.
 */
#ifndef KERNEL_MSG_GROUP_H
#define KERNEL_MSG_GROUP_H

#include <stdint.h>
#include "kernel/msg/msg.h"

struct msg_group {
	uint16_t n;
	uint16_t rank;          /* this core's rank, or n if not a member */
	uint16_t tree_root;     /* rank at the mesh centre */
	uint16_t nchildren;
	uint32_t seq;           /* tags used by collectives so far: the tag of the next one */
	uint16_t depth;         /* levels of the tree (its height in edges) */
	uint16_t type;          /* traffic class: MSG_TYPE_COLL, or MSG_TYPE_USER_COLL for a user task's group */
	uint16_t cores[MOSAIC_MAX_HARTS];
	uint16_t parent[MOSAIC_MAX_HARTS]; /* rank of each rank's parent (tree_root: itself) */
	uint16_t children[MOSAIC_MAX_HARTS]; /* the tallest subtree first: down passes send in this order, up passes receive in reverse */
};

enum msg_op { MSG_OP_SUM = 1, MSG_OP_MIN, MSG_OP_MAX };

/* The synchronisation modes and the algorithms of `how`. */
enum msg_sync { MSG_STRICT = 0, MSG_LOOSE = 1 };
enum msg_algo {
	MSG_ALGO_AUTO = 0,  /* the tuned table's choice */
	MSG_ALGO_TREE,      /* the mesh tree rooted at the group's centre */
	MSG_ALGO_FLAT,      /* one hub (the root) talks to every member directly */
	MSG_ALGO_BINOMIAL,  /* a binomial tree over the ranks, rooted at the root */
	MSG_ALGO_RING,      /* n - 1 steps around the ranks */
	MSG_ALGO_RECURSIVE, /* recursive doubling (allreduce), dissemination (barrier) */
	MSG_ALGO_PAIRWISE,  /* n - 1 rounds, one partner in each direction per round */
	MSG_ALGO_COUNT
};
#define MSG_SYNC_MASK 0xfu
#define MSG_ALGO_SHIFT 4
#define MSG_ALGO(a) ((unsigned)(a) << MSG_ALGO_SHIFT)
#define MSG_HOW_MASK 0xffu /* how has 8 bits: a mode in 0..3, an algorithm in 4..7 */

/* The collectives, as the tuned table and `coll` name them. */
enum msg_coll {
	COLL_BARRIER, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE, COLL_GATHER, COLL_SCATTER, COLL_ALLGATHER,
	COLL_ALLTOALL, COLL_KINDS
};

/* -EINVAL for an empty list, a duplicate, or -ENXIO for a core that does not exist. */
int msg_group_init(struct msg_group *g, const uint16_t *cores, unsigned n);
/* Levels of the base tree that one edge of a group's tree spans (coll_tree_stride). */
unsigned msg_tree_stride(void);
/* All cores in id order. */

int msg_barrier(struct msg_group *g, unsigned how);
int msg_bcast(struct msg_group *g, unsigned how, unsigned root, void *buf, uint32_t len);
int msg_reduce(struct msg_group *g, unsigned how, unsigned root, const int64_t *in, int64_t *out, unsigned count,
	       enum msg_op op);
int msg_allreduce(struct msg_group *g, unsigned how, const int64_t *in, int64_t *out, unsigned count, enum msg_op op);
/* Rank r's len bytes land at out + r * len on the root (gather) or on every member (allgather). */
int msg_gather(struct msg_group *g, unsigned how, unsigned root, const void *in, uint32_t len, void *out);
int msg_allgather(struct msg_group *g, unsigned how, const void *in, uint32_t len, void *out);
/* The root's block r (len bytes at in + r * len) lands at out on rank r. */
int msg_scatter(struct msg_group *g, unsigned how, unsigned root, const void *in, uint32_t len, void *out);
/* Block r of in (len bytes at in + r * len) goes to rank r; rank r's block lands at out + r * len. */
int msg_alltoall(struct msg_group *g, unsigned how, const void *in, uint32_t len, void *out);
/* Like alltoall with per-rank byte counts and displacements (MPI_Alltoallv). A received
 * length that differs from recvcounts[r] is -EOVERFLOW (longer) or -EINVAL (shorter).
 * Its algorithms (flat, pairwise) exchange the same messages, so members may differ in
 * the tuned choice that their own byte counts give. */
int msg_alltoallv(struct msg_group *g, unsigned how, const void *in, const uint32_t *sendcounts,
		  const uint32_t *sdispls, void *out, const uint32_t *recvcounts, const uint32_t *rdispls);

/* The algorithms a collective has (a mask of 1 << enum msg_algo), their names, the kinds' names. */
unsigned msg_coll_algos(enum msg_coll kind);
const char *msg_algo_name(enum msg_algo a);
const char *msg_coll_name(enum msg_coll kind);
/* The algorithm `how` asks for, or the tuned one for n members and `bytes` per member's block;
 * -EINVAL for a mode or algorithm that does not exist or that the collective does not have. */
int msg_coll_pick(enum msg_coll kind, unsigned how, unsigned n, uint64_t bytes);

#endif
