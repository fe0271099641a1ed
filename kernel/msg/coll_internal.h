/*
 * What the collectives' files share (coll.c: groups and the public calls; coll_algo.c:
 * the algorithms; coll_tune.c: the tuned table). Not an API: every argument here has
 * been checked by the public call in coll.c.
 */
#ifndef KERNEL_MSG_COLL_INTERNAL_H
#define KERNEL_MSG_COLL_INTERNAL_H

#include "kernel/msg/group.h"

static inline int coll_next_tag(struct msg_group *g) { return (int)(g->seq++ & MSG_TAG_MAX); }

/* Blocking transfers of any length: split into messages of at most NOC_MAX_BODY bytes;
 * the receive wants exactly len bytes. */
int coll_send(struct msg_group *g, unsigned rank, int tag, const void *buf, uint64_t len);
int coll_recv(struct msg_group *g, unsigned rank, int tag, void *buf, uint64_t len);
void coll_combine(int64_t *acc, const int64_t *x, unsigned count, enum msg_op op);

int barrier_tree(struct msg_group *g);
int barrier_flat(struct msg_group *g);
int barrier_dissemination(struct msg_group *g);

int bcast_tree(struct msg_group *g, unsigned root, void *buf, uint64_t len);
int bcast_flat(struct msg_group *g, unsigned root, void *buf, uint64_t len);
int bcast_binomial(struct msg_group *g, unsigned root, void *buf, uint64_t len);

int reduce_tree(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count, enum msg_op op);
int reduce_flat(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count, enum msg_op op);
int reduce_binomial(struct msg_group *g, unsigned root, const int64_t *in, int64_t *out, unsigned count,
		    enum msg_op op);
int allreduce_recursive(struct msg_group *g, const int64_t *in, int64_t *out, unsigned count, enum msg_op op);

int gather_flat(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out);
int gather_binomial(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out);
int scatter_flat(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out);
int scatter_binomial(struct msg_group *g, unsigned root, const void *in, uint32_t len, void *out);
int allgather_ring(struct msg_group *g, const void *in, uint32_t len, void *out);

int alltoallv_flat(struct msg_group *g, const void *in, const uint32_t *sendcounts, const uint32_t *sdispls,
		   void *out, const uint32_t *recvcounts, const uint32_t *rdispls);
int alltoallv_pairwise(struct msg_group *g, const void *in, const uint32_t *sendcounts, const uint32_t *sdispls,
		       void *out, const uint32_t *recvcounts, const uint32_t *rdispls);

/* The tuned table's choice (coll_tune.c). */
enum msg_algo coll_tuned(enum msg_coll kind, unsigned n, uint64_t bytes);

#endif
