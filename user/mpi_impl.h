/*
 * The MPI library's inside (docs/mpi.md, "Design"): shared by user/mpi*.c, never by programs.
 */
#ifndef MOSAIC_MPI_IMPL_H
#define MOSAIC_MPI_IMPL_H

#include "mpi.h"
#include "mosaic.h"

/*
 * A point-to-point message's kernel tag: bit 30 marks a continuation fragment, bits 16..29 the
 * communicator's context, bits 0..15 the user's tag. The kernel matches exact tags; the library
 * matches wildcards itself, so a receive of one communicator never takes another's message.
 */
#define MPI_K_CONT (1 << 30)
#define MPI_K_CTX_SHIFT 16
#define MPI_K_CTX_MAX ((1 << 14) - 1)
#define MPI_K_TAG_MASK 0xffff
/* One Mosaic message carries at most 64 KiB (NOC_MAX_BODY). A message of L bytes travels as
 * L / FRAG fragments of FRAG bytes and a last one of L % FRAG bytes (possibly 0): a fragment of
 * exactly FRAG bytes says that another follows, so small messages carry no header at all. */
#define MPI_FRAG 65536u
#define MPI_KHANDLES 16   /* a task's open kernel requests (isend/irecv handles 0..15) */
#define MPI_MAX_TASKS 128 /* a kernel group's members at most */
#define MPI_COMM_MAGIC 0x4d50434dU
#define MPI_TMP_BYTES 65536u /* the collectives' staging buffer */

struct mosaic_mpi_comm {
	unsigned magic;
	int size, rank;
	int ctx;        /* the point-to-point context */
	long kgroup;    /* the kernel group over the members in rank order, or -1 */
	int coll_ok;    /* 0: no kernel group was left when it was made: collectives fail */
	int errhandler; /* MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN */
	int *world_of;  /* rank -> world rank */
	int *rank_of;   /* world rank -> rank, -1 outside */
	uint16_t *core_of; /* rank -> core (message identity) */
};

struct mpi_state {
	int initialized, finalized;
	int world_size, world_rank;
	int next_ctx;
	uint16_t *world_core; /* world rank -> core */
	int max_core;
	int *world_of_core;   /* core -> world rank, -1 */
};
extern struct mpi_state mpi_st;
extern unsigned char mpi_tmp[MPI_TMP_BYTES];

struct mpi_type {
	const char *name;
	unsigned size, extent;
	unsigned char kind; /* enum mpi_kind */
	unsigned char sign; /* integers: signed */
};
enum mpi_kind { K_NONE, K_INT, K_BOOL, K_FLOAT, K_BYTE, K_CHAR, K_PAIR };
extern const struct mpi_type mpi_types[MOSAIC_MPI_NTYPES];

/* errors: the handler of comm (MPI_COMM_WORLD's if comm is not valid) takes code; returns it */
int mpi_error(MPI_Comm comm, int code, const char *fn, const char *why);
int mpi_check_init(const char *fn);
int mpi_comm_ok(MPI_Comm c);
int mpi_type_ok(MPI_Datatype t);
#define MPI_ENTER(fn)                                                                                                  \
	do {                                                                                                           \
		int e_ = mpi_check_init(fn);                                                                           \
		if (e_)                                                                                                \
			return e_;                                                                                     \
	} while (0)
#define MPI_CHECK_COMM(c, fn)                                                                                          \
	do {                                                                                                           \
		if (!mpi_comm_ok(c))                                                                                   \
			return mpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "not a valid communicator");                \
	} while (0)
#define MPI_CHECK_TYPE(c, t, fn)                                                                                       \
	do {                                                                                                           \
		if (!mpi_type_ok(t))                                                                                   \
			return mpi_error(c, MPI_ERR_TYPE, fn, "not a predefined datatype");                            \
	} while (0)

/* a buffer of count elements of t: MPI_ERR_TYPE, MPI_ERR_COUNT, MPI_ERR_BUFFER */
int mpi_buf_args(MPI_Comm c, const void *buf, int count, MPI_Datatype t, const char *fn);

/* the kernel's errors as MPI's, with the reason */
int mpi_kerr(MPI_Comm comm, long e, const char *fn);

/* point to point (mpi_p2p.c) */
void mpi_p2p_finalize(void);

/* reductions (mpi_op.c) */
/* 0 if op applies to type, else the MPI error */
int mpi_op_check(MPI_Op op, MPI_Datatype type);
const char *mpi_op_name(MPI_Op op);
/* acc[i] = acc[i] op in[i], n elements */
void mpi_op_apply(MPI_Op op, MPI_Datatype type, void *acc, const void *in, size_t n);
/* the kernel's int64 op that gives op on type exactly, or 0 */
int mpi_op_kernel(MPI_Op op, MPI_Datatype type);
void mpi_to_k(MPI_Op op, MPI_Datatype type, const void *in, int64_t *out, size_t n);
void mpi_from_k(MPI_Op op, MPI_Datatype type, const int64_t *in, void *out, size_t n);

/* the kernel's collective group argument for comm: loose (MPI's completion is local), tuned */
static inline long mpi_kg(MPI_Comm c) { return c->kgroup | MOSAIC_LOOSE; }
long mpi_group_for(const uint16_t *cores, int n);
int mpi_allreduce_max_i64(MPI_Comm c, int64_t *v, int n, const char *fn);

#endif
