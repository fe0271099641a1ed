/*
 * Groups (an ordered list of cores, like an MPI communicator) and collectives.
 * Every member keeps its own copy of the group; collectives must be called by
 * all members in the same order. Barrier, broadcast and reduce travel along a
 * tree rooted at the member nearest the group's mesh centre, whose edges join
 * each member to a member one step closer to the root (one hop on a rectangle).
 * Data of reduce/allreduce are int64 elements; every message body is at most
 * NOC_MAX_BODY bytes, larger requests get -EMSGSIZE.
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
	uint32_t seq;           /* collectives called so far: the tag of the next one */
	uint16_t depth;         /* levels of the tree (its height in edges) */
	uint16_t type;          /* traffic class: MSG_TYPE_COLL, or MSG_TYPE_USER_COLL for a user task's group */
	uint16_t cores[MOSAIC_MAX_HARTS];
	uint16_t parent[MOSAIC_MAX_HARTS]; /* rank of each rank's parent (tree_root: itself) */
	uint16_t children[MOSAIC_MAX_HARTS];
};

enum msg_op { MSG_OP_SUM = 1, MSG_OP_MIN, MSG_OP_MAX };

/* -EINVAL for an empty list, a duplicate, or -ENXIO for a core that does not exist. */
int msg_group_init(struct msg_group *g, const uint16_t *cores, unsigned n);
/* All cores in id order. */
int msg_group_world(struct msg_group *g);

int msg_barrier(struct msg_group *g);
int msg_bcast(struct msg_group *g, unsigned root, void *buf, uint32_t len);
int msg_reduce(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count, enum msg_op op);
int msg_allreduce(struct msg_group *g, const int64_t *in, int64_t *out, unsigned count, enum msg_op op);
/* Rank r's len bytes land at out + r * len on the root (gather) or on every member (allgather). */
int msg_gather(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out);
int msg_allgather(struct msg_group *g, const void *in, uint32_t len, void *out);
/* Block r of in (len bytes at in + r * len) goes to rank r; rank r's block lands at out + r * len. */
int msg_alltoall(struct msg_group *g, const void *in, uint32_t len, void *out);
/* Like alltoall with per-rank byte counts and displacements (MPI_Alltoallv). A received
 * length that differs from recvcounts[r] is -EOVERFLOW (longer) or -EINVAL (shorter). */
int msg_alltoallv(struct msg_group *g, const void *in, const uint32_t *sendcounts, const uint32_t *sdispls,
		  void *out, const uint32_t *recvcounts, const uint32_t *rdispls);

#endif
