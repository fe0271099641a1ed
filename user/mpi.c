/*
 * MPI for Mosaic's tasks: the environment, errors, datatypes and communicators (docs/mpi.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_impl.h"

struct mpi_state mpi_st;
unsigned char mpi_tmp[MPI_TMP_BYTES] __attribute__((aligned(16)));
struct mosaic_mpi_comm mosaic_mpi_comm_world, mosaic_mpi_comm_self;

#define T(n, s, e, k, sg) {n, s, e, k, sg}
struct mpi_pair_fi { float v; int i; };
struct mpi_pair_di { double v; int i; };
struct mpi_pair_li { long v; int i; };
struct mpi_pair_ii { int v; int i; };
struct mpi_pair_si { short v; int i; };
struct mpi_pair_ldi { long double v; int i; };
const struct mpi_type mpi_types[MOSAIC_MPI_NTYPES] = {
	[MPI_DATATYPE_NULL] = T("MPI_DATATYPE_NULL", 0, 0, K_NONE, 0),
	[MPI_CHAR] = T("MPI_CHAR", 1, 1, K_CHAR, 1),
	[MPI_SIGNED_CHAR] = T("MPI_SIGNED_CHAR", 1, 1, K_INT, 1),
	[MPI_UNSIGNED_CHAR] = T("MPI_UNSIGNED_CHAR", 1, 1, K_INT, 0),
	[MPI_BYTE] = T("MPI_BYTE", 1, 1, K_BYTE, 0),
	[MPI_WCHAR] = T("MPI_WCHAR", sizeof(int), sizeof(int), K_CHAR, 1),
	[MPI_SHORT] = T("MPI_SHORT", sizeof(short), sizeof(short), K_INT, 1),
	[MPI_UNSIGNED_SHORT] = T("MPI_UNSIGNED_SHORT", sizeof(short), sizeof(short), K_INT, 0),
	[MPI_INT] = T("MPI_INT", sizeof(int), sizeof(int), K_INT, 1),
	[MPI_UNSIGNED] = T("MPI_UNSIGNED", sizeof(int), sizeof(int), K_INT, 0),
	[MPI_LONG] = T("MPI_LONG", sizeof(long), sizeof(long), K_INT, 1),
	[MPI_UNSIGNED_LONG] = T("MPI_UNSIGNED_LONG", sizeof(long), sizeof(long), K_INT, 0),
	[MPI_LONG_LONG_INT] = T("MPI_LONG_LONG", sizeof(long long), sizeof(long long), K_INT, 1),
	[MPI_UNSIGNED_LONG_LONG] = T("MPI_UNSIGNED_LONG_LONG", sizeof(long long), sizeof(long long), K_INT, 0),
	[MPI_FLOAT] = T("MPI_FLOAT", sizeof(float), sizeof(float), K_FLOAT, 1),
	[MPI_DOUBLE] = T("MPI_DOUBLE", sizeof(double), sizeof(double), K_FLOAT, 1),
	[MPI_LONG_DOUBLE] = T("MPI_LONG_DOUBLE", sizeof(long double), sizeof(long double), K_FLOAT, 1),
	[MPI_C_BOOL] = T("MPI_C_BOOL", sizeof(_Bool), sizeof(_Bool), K_BOOL, 0),
	[MPI_INT8_T] = T("MPI_INT8_T", 1, 1, K_INT, 1),
	[MPI_INT16_T] = T("MPI_INT16_T", 2, 2, K_INT, 1),
	[MPI_INT32_T] = T("MPI_INT32_T", 4, 4, K_INT, 1),
	[MPI_INT64_T] = T("MPI_INT64_T", 8, 8, K_INT, 1),
	[MPI_UINT8_T] = T("MPI_UINT8_T", 1, 1, K_INT, 0),
	[MPI_UINT16_T] = T("MPI_UINT16_T", 2, 2, K_INT, 0),
	[MPI_UINT32_T] = T("MPI_UINT32_T", 4, 4, K_INT, 0),
	[MPI_UINT64_T] = T("MPI_UINT64_T", 8, 8, K_INT, 0),
	[MPI_AINT] = T("MPI_AINT", sizeof(MPI_Aint), sizeof(MPI_Aint), K_INT, 1),
	[MPI_OFFSET] = T("MPI_OFFSET", sizeof(MPI_Offset), sizeof(MPI_Offset), K_INT, 1),
	[MPI_COUNT] = T("MPI_COUNT", sizeof(MPI_Count), sizeof(MPI_Count), K_INT, 1),
	[MPI_PACKED] = T("MPI_PACKED", 1, 1, K_BYTE, 0),
	/* the pairs' size is their data, their extent the C struct's (MPI-3.1 4.1.7) */
	[MPI_FLOAT_INT] = T("MPI_FLOAT_INT", sizeof(float) + sizeof(int), sizeof(struct mpi_pair_fi), K_PAIR, 1),
	[MPI_DOUBLE_INT] = T("MPI_DOUBLE_INT", sizeof(double) + sizeof(int), sizeof(struct mpi_pair_di), K_PAIR, 1),
	[MPI_LONG_INT] = T("MPI_LONG_INT", sizeof(long) + sizeof(int), sizeof(struct mpi_pair_li), K_PAIR, 1),
	[MPI_2INT] = T("MPI_2INT", 2 * sizeof(int), sizeof(struct mpi_pair_ii), K_PAIR, 1),
	[MPI_SHORT_INT] = T("MPI_SHORT_INT", sizeof(short) + sizeof(int), sizeof(struct mpi_pair_si), K_PAIR, 1),
	[MPI_LONG_DOUBLE_INT] = T("MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int), sizeof(struct mpi_pair_ldi),
				  K_PAIR, 1),
};

static const char *const err_text[MPI_ERR_LASTCODE] = {
	[MPI_SUCCESS] = "no error",
	[MPI_ERR_BUFFER] = "invalid buffer pointer",
	[MPI_ERR_COUNT] = "invalid count argument",
	[MPI_ERR_TYPE] = "invalid datatype",
	[MPI_ERR_TAG] = "invalid tag",
	[MPI_ERR_COMM] = "invalid communicator",
	[MPI_ERR_RANK] = "invalid rank",
	[MPI_ERR_REQUEST] = "invalid request",
	[MPI_ERR_ROOT] = "invalid root",
	[MPI_ERR_GROUP] = "invalid group",
	[MPI_ERR_OP] = "invalid operation",
	[MPI_ERR_TOPOLOGY] = "invalid topology",
	[MPI_ERR_DIMS] = "invalid dimension argument",
	[MPI_ERR_ARG] = "invalid argument",
	[MPI_ERR_UNKNOWN] = "unknown error",
	[MPI_ERR_TRUNCATE] = "message truncated",
	[MPI_ERR_OTHER] = "other error",
	[MPI_ERR_INTERN] = "internal error",
	[MPI_ERR_IN_STATUS] = "error code is in status",
	[MPI_ERR_PENDING] = "pending request",
	[MPI_ERR_NO_MEM] = "out of memory",
	[MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by Mosaic's MPI",
	[MPI_ERR_WIN] = "invalid window",
	[MPI_ERR_FILE] = "invalid file handle",
	[MPI_ERR_SPAWN] = "cannot spawn processes",
};

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
	const char *s = errorcode >= 0 && errorcode < MPI_ERR_LASTCODE ? err_text[errorcode] : 0;
	if (!s)
		return MPI_ERR_ARG;
	if (string) {
		strncpy(string, s, MPI_MAX_ERROR_STRING - 1);
		string[MPI_MAX_ERROR_STRING - 1] = 0;
	}
	if (resultlen)
		*resultlen = (int)strlen(s);
	return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
	if (errorcode < 0 || errorcode >= MPI_ERR_LASTCODE)
		return MPI_ERR_ARG;
	*errorclass = errorcode;
	return MPI_SUCCESS;
}

int mpi_buf_args(MPI_Comm c, const void *buf, int count, MPI_Datatype t, const char *fn)
{
	MPI_CHECK_TYPE(c, t, fn);
	if (count < 0)
		return mpi_error(c, MPI_ERR_COUNT, fn, "a negative count");
	if (count && !buf)
		return mpi_error(c, MPI_ERR_BUFFER, fn, "a null buffer");
	return MPI_SUCCESS;
}

int mpi_comm_ok(MPI_Comm c) { return c && c->magic == MPI_COMM_MAGIC; }
int mpi_type_ok(MPI_Datatype t) { return t > MPI_DATATYPE_NULL && t < MOSAIC_MPI_NTYPES; }

int mpi_error(MPI_Comm comm, int code, const char *fn, const char *why)
{
	if (!mpi_comm_ok(comm))
		comm = MPI_COMM_WORLD;
	int eh = comm->magic == MPI_COMM_MAGIC ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
	if (eh == MPI_ERRORS_RETURN)
		return code;
	printf("MPI: rank %d: %s: %s (%s)\n", mpi_st.world_rank, fn, err_text[code], why);
	MPI_Abort(comm, code);
	return code;
}

int mpi_kerr(MPI_Comm comm, long e, const char *fn)
{
	char why[64];
	int code = e == MOSAIC_ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
	snprintf(why, sizeof why, "the kernel answered %ld", e);
	return mpi_error(comm, code, fn, why);
}

int mpi_check_init(const char *fn)
{
	if (mpi_st.initialized && !mpi_st.finalized)
		return MPI_SUCCESS;
	printf("MPI: %s: called %s MPI_Init\n", fn, mpi_st.finalized ? "after MPI_Finalize, not after" : "before");
	mosaic_exit(MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

/* Kernel groups: a task has UTASK_GROUPS (4) and cannot give one back, so a member list that
 * has one keeps it, and every communicator over the same list in the same order shares it
 * (their collectives are ordered by MPI's rule that a program calls them in one order). */
#define MPI_KGROUPS 4
static struct {
	int n;
	long h;
	uint16_t cores[MPI_MAX_TASKS];
} kgroups[MPI_KGROUPS];
static int nkgroups;

long mpi_group_for(const uint16_t *cores, int n)
{
	for (int i = 0; i < nkgroups; i++)
		if (kgroups[i].n == n && !memcmp(kgroups[i].cores, cores, n * sizeof *cores))
			return kgroups[i].h;
	if (nkgroups == MPI_KGROUPS)
		return MOSAIC_ENOSPC;
	long h = mosaic_group_init(cores, (size_t)n);
	if (h < 0)
		return h;
	kgroups[nkgroups].n = n;
	kgroups[nkgroups].h = h;
	memcpy(kgroups[nkgroups].cores, cores, n * sizeof *cores);
	nkgroups++;
	return h;
}

static int comm_setup(struct mosaic_mpi_comm *c, int size, int rank, int ctx, const int *world_of)
{
	c->size = size;
	c->rank = rank;
	c->ctx = ctx;
	c->errhandler = MPI_ERRORS_ARE_FATAL;
	c->world_of = malloc(size * sizeof(int));
	c->rank_of = malloc(mpi_st.world_size * sizeof(int));
	c->core_of = malloc(size * sizeof(uint16_t));
	if (!c->world_of || !c->rank_of || !c->core_of)
		return MPI_ERR_NO_MEM;
	for (int w = 0; w < mpi_st.world_size; w++)
		c->rank_of[w] = -1;
	for (int r = 0; r < size; r++) {
		c->world_of[r] = world_of[r];
		c->rank_of[world_of[r]] = r;
		c->core_of[r] = mpi_st.world_core[world_of[r]];
	}
	c->kgroup = -1;
	c->coll_ok = 1;
	c->magic = MPI_COMM_MAGIC;
	return MPI_SUCCESS;
}

static void comm_release(struct mosaic_mpi_comm *c)
{
	c->magic = 0;
	free(c->world_of);
	free(c->rank_of);
	free(c->core_of);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc;
	(void)argv;
	(void)required;
	if (mpi_st.initialized) {
		printf("MPI: MPI_Init: called twice\n");
		mosaic_exit(MPI_ERR_OTHER);
	}
	long n = mosaic_job_size();
	long g = n > 0 ? mosaic_job_group() : -1;
	if (n <= 0 || g < 0)
		n = 1; /* a task outside a job: a world of one */
	if (n > MPI_MAX_TASKS) {
		printf("MPI: MPI_Init: a job of %ld tasks (at most %d)\n", n, MPI_MAX_TASKS);
		mosaic_exit(MPI_ERR_OTHER);
	}
	mpi_st.world_size = (int)n;
	mpi_st.world_rank = n > 1 ? (int)mosaic_rank() : 0;
	mpi_st.world_core = malloc(n * sizeof(uint16_t));
	int64_t me = mosaic_core_id(), *all = malloc(n * sizeof(int64_t));
	int *ident = malloc(n * sizeof(int));
	if (!mpi_st.world_core || !all || !ident) {
		printf("MPI: MPI_Init: out of memory\n");
		mosaic_exit(MPI_ERR_NO_MEM);
	}
	/* point-to-point messages go to cores: every rank's core, in rank order */
	if (n > 1) {
		long e = mosaic_allgather(g, &me, sizeof me, all);
		if (e < 0) {
			printf("MPI: MPI_Init: the job's allgather failed (%ld)\n", e);
			mosaic_exit(MPI_ERR_INTERN);
		}
	} else {
		all[0] = me;
	}
	mpi_st.max_core = 0;
	for (long r = 0; r < n; r++) {
		mpi_st.world_core[r] = (uint16_t)all[r];
		if (all[r] > mpi_st.max_core)
			mpi_st.max_core = (int)all[r];
		ident[r] = (int)r;
	}
	mpi_st.world_of_core = malloc((mpi_st.max_core + 1) * sizeof(int));
	if (!mpi_st.world_of_core)
		mosaic_exit(MPI_ERR_NO_MEM);
	for (int c = 0; c <= mpi_st.max_core; c++)
		mpi_st.world_of_core[c] = -1;
	for (long r = 0; r < n; r++)
		mpi_st.world_of_core[all[r]] = (int)r;
	free(all);
	if (comm_setup(&mosaic_mpi_comm_world, (int)n, mpi_st.world_rank, 0, ident) ||
	    comm_setup(&mosaic_mpi_comm_self, 1, 0, 1, &mpi_st.world_rank))
		mosaic_exit(MPI_ERR_NO_MEM);
	free(ident);
	if (n > 1) {
		mosaic_mpi_comm_world.kgroup = g;
		kgroups[0].n = (int)n;
		kgroups[0].h = g;
		memcpy(kgroups[0].cores, mpi_st.world_core, n * sizeof(uint16_t));
		nkgroups = 1;
	}
	mpi_st.next_ctx = 2;
	mpi_st.initialized = 1;
	if (provided)
		*provided = MPI_THREAD_SINGLE;
	return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv) { return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, 0); }

int MPI_Query_thread(int *provided)
{
	MPI_ENTER("MPI_Query_thread");
	*provided = MPI_THREAD_SINGLE;
	return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
	MPI_ENTER("MPI_Finalize");
	/* a task that ends drops the messages still addressed to it: no rank leaves while another
	 * may still be sending to it in a correct program */
	int e = MPI_Barrier(MPI_COMM_WORLD);
	mpi_p2p_finalize();
	mpi_st.finalized = 1;
	return e;
}

int MPI_Initialized(int *flag)
{
	*flag = mpi_st.initialized;
	return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
	*flag = mpi_st.finalized;
	return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (!mpi_comm_ok(comm))
		comm = MPI_COMM_WORLD;
	printf("MPI: rank %d: MPI_Abort with code %d\n", mpi_st.world_rank, errorcode);
	/* every other task of the communicator ends (a kill reaches a task of the caller's job) */
	if (comm->magic == MPI_COMM_MAGIC)
		for (int r = 0; r < comm->size; r++)
			if (r != comm->rank)
				mosaic_kill(comm->core_of[r]);
	mosaic_exit(errorcode ? errorcode : 1);
	return errorcode;
}

double MPI_Wtime(void) { return (double)mosaic_time_ns() * 1e-9; }
double MPI_Wtick(void) { return 1e-9; }

int MPI_Get_processor_name(char *name, int *resultlen)
{
	MPI_ENTER("MPI_Get_processor_name");
	int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "mosaic-core-%ld-domain-%ld", mosaic_core_id(),
			 mosaic_domain_id());
	*resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
	return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
	int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "Mosaic MPI (MPI %d.%d subset)", MPI_VERSION,
			 MPI_SUBVERSION);
	*resultlen = n;
	return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
	MPI_ENTER("MPI_Comm_set_errhandler");
	MPI_CHECK_COMM(comm, "MPI_Comm_set_errhandler");
	if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
		return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
				 "only MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN exist");
	comm->errhandler = errhandler;
	return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	MPI_ENTER("MPI_Comm_get_errhandler");
	MPI_CHECK_COMM(comm, "MPI_Comm_get_errhandler");
	*errhandler = comm->errhandler;
	return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
	*errhandler = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	static int tag_ub = MPI_TAG_UB_VALUE, no = 0, proc_null = MPI_PROC_NULL;
	MPI_ENTER("MPI_Comm_get_attr");
	MPI_CHECK_COMM(comm, "MPI_Comm_get_attr");
	int *v = keyval == MPI_TAG_UB ? &tag_ub : keyval == MPI_WTIME_IS_GLOBAL ? &no
					  : keyval == MPI_HOST || keyval == MPI_IO ? &proc_null : 0;
	*flag = v != 0;
	if (v)
		*(int **)attribute_val = v;
	return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
	MPI_ENTER("MPI_Comm_size");
	MPI_CHECK_COMM(comm, "MPI_Comm_size");
	*size = comm->size;
	return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	MPI_ENTER("MPI_Comm_rank");
	MPI_CHECK_COMM(comm, "MPI_Comm_rank");
	*rank = comm->rank;
	return MPI_SUCCESS;
}

int mpi_allreduce_max_i64(MPI_Comm c, int64_t *v, int n, const char *fn)
{
	if (c->size == 1)
		return MPI_SUCCESS;
	if (!c->coll_ok)
		return mpi_error(c, MPI_ERR_COMM, fn, "the communicator has no kernel group (docs/mpi.md)");
	int64_t out[4];
	long e = mosaic_allreduce(mpi_kg(c), v, out, (size_t)n, MOSAIC_OP_MAX);
	if (e < 0)
		return mpi_kerr(c, e, fn);
	memcpy(v, out, n * sizeof *v);
	return MPI_SUCCESS;
}

/* The new communicator over parent's members `members` (parent ranks, in the new rank order),
 * collective over parent: every member of parent calls it (n 0 for those that get none). */
static int comm_make(MPI_Comm parent, const int *members, int n, int myrank, MPI_Comm *out, const char *fn)
{
	struct mosaic_mpi_comm *c = 0;
	long h = -1;
	uint16_t cores[MPI_MAX_TASKS];
	int world[MPI_MAX_TASKS];
	for (int i = 0; i < n; i++) {
		world[i] = parent->world_of[members[i]];
		cores[i] = mpi_st.world_core[world[i]];
	}
	if (n > 1)
		h = mpi_group_for(cores, n);
	/* the context: above every one any member has used; whether every member got its group */
	int64_t agree[2] = {mpi_st.next_ctx, n > 1 && h < 0};
	int e = mpi_allreduce_max_i64(parent, agree, 2, fn);
	if (e)
		return e;
	if (agree[0] > MPI_K_CTX_MAX)
		return mpi_error(parent, MPI_ERR_INTERN, fn, "no communicator context left (16383 per job)");
	mpi_st.next_ctx = (int)agree[0] + 1;
	if (!n) {
		*out = MPI_COMM_NULL;
		return MPI_SUCCESS;
	}
	c = calloc(1, sizeof *c);
	if (!c || comm_setup(c, n, myrank, (int)agree[0], world))
		return mpi_error(parent, MPI_ERR_NO_MEM, fn, "no memory for the communicator");
	c->kgroup = h;
	c->coll_ok = !agree[1];
	*out = c;
	return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	MPI_ENTER("MPI_Comm_dup");
	MPI_CHECK_COMM(comm, "MPI_Comm_dup");
	int members[MPI_MAX_TASKS];
	for (int i = 0; i < comm->size; i++)
		members[i] = i;
	int e = comm_make(comm, members, comm->size, comm->rank, newcomm, "MPI_Comm_dup");
	if (!e)
		(*newcomm)->errhandler = comm->errhandler;
	return e;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	MPI_ENTER("MPI_Comm_split");
	MPI_CHECK_COMM(comm, "MPI_Comm_split");
	if (color < 0 && color != MPI_UNDEFINED)
		return mpi_error(comm, MPI_ERR_ARG, "MPI_Comm_split", "a color is >= 0 or MPI_UNDEFINED");
	int n = comm->size;
	int64_t mine[2] = {color, key};
	int64_t *all = (int64_t *)mpi_tmp; /* 2 * 128 values */
	if (n > 1) {
		if (!comm->coll_ok)
			return mpi_error(comm, MPI_ERR_COMM, "MPI_Comm_split",
					 "the communicator has no kernel group (docs/mpi.md)");
		long e = mosaic_allgather(mpi_kg(comm), mine, sizeof mine, all);
		if (e < 0)
			return mpi_kerr(comm, e, "MPI_Comm_split");
	} else {
		all[0] = color;
		all[1] = key;
	}
	/* the members of my color ordered by (key, rank in comm): an insertion sort, n <= 128 */
	int members[MPI_MAX_TASKS], m = 0, myrank = -1;
	if (color != MPI_UNDEFINED)
		for (int r = 0; r < n; r++) {
			if (all[2 * r] != color)
				continue;
			int j = m++;
			while (j > 0 && all[2 * members[j - 1] + 1] > all[2 * r + 1])
				members[j] = members[j - 1], j--;
			members[j] = r;
		}
	for (int i = 0; i < m; i++)
		if (members[i] == comm->rank)
			myrank = i;
	int e = comm_make(comm, members, m, myrank, newcomm, "MPI_Comm_split");
	if (!e && *newcomm)
		(*newcomm)->errhandler = comm->errhandler;
	return e;
}

int MPI_Comm_free(MPI_Comm *comm)
{
	MPI_ENTER("MPI_Comm_free");
	if (!comm || !mpi_comm_ok(*comm))
		return mpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_free", "not a valid communicator");
	if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
		return mpi_error(*comm, MPI_ERR_COMM, "MPI_Comm_free", "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
	comm_release(*comm);
	free(*comm);
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result)
{
	MPI_ENTER("MPI_Comm_compare");
	MPI_CHECK_COMM(a, "MPI_Comm_compare");
	MPI_CHECK_COMM(b, "MPI_Comm_compare");
	if (a == b) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	int same = a->size == b->size, order = same;
	for (int r = 0; same && r < a->size; r++) {
		order = order && a->world_of[r] == b->world_of[r];
		same = b->rank_of[a->world_of[r]] >= 0;
	}
	*result = !same ? MPI_UNEQUAL : order ? MPI_CONGRUENT : MPI_SIMILAR;
	return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
	MPI_ENTER("MPI_Type_size");
	MPI_CHECK_TYPE(MPI_COMM_WORLD, datatype, "MPI_Type_size");
	*size = (int)mpi_types[datatype].size;
	return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_ENTER("MPI_Type_get_extent");
	MPI_CHECK_TYPE(MPI_COMM_WORLD, datatype, "MPI_Type_get_extent");
	*lb = 0;
	*extent = mpi_types[datatype].extent;
	return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_ENTER("MPI_Get_count");
	MPI_CHECK_TYPE(MPI_COMM_WORLD, datatype, "MPI_Get_count");
	unsigned s = mpi_types[datatype].size;
	*count = status->mosaic_bytes % s ? MPI_UNDEFINED : (int)(status->mosaic_bytes / s);
	return MPI_SUCCESS;
}

/* What is declared and not supported: a clear error through the handler. */
#define UNSUPPORTED(fn, comm, what) return mpi_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn, what)
#define NO_TYPES "user-defined datatypes are not supported: use the predefined ones"
#define NO_RMA "one-sided communication is not supported"
int MPI_Ssend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	(void)b, (void)n, (void)t, (void)d, (void)tag;
	UNSUPPORTED("MPI_Ssend", c, "synchronous sends are not supported: use MPI_Send");
}
int MPI_Bsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	(void)b, (void)n, (void)t, (void)d, (void)tag;
	UNSUPPORTED("MPI_Bsend", c, "buffered sends are not supported: use MPI_Send");
}
int MPI_Rsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c)
{
	(void)b, (void)n, (void)t, (void)d, (void)tag;
	UNSUPPORTED("MPI_Rsend", c, "ready sends are not supported: use MPI_Send");
}
int MPI_Cancel(MPI_Request *r)
{
	(void)r;
	UNSUPPORTED("MPI_Cancel", MPI_COMM_WORLD, "requests cannot be cancelled");
}
int MPI_Type_contiguous(int n, MPI_Datatype o, MPI_Datatype *t)
{
	(void)n, (void)o, (void)t;
	UNSUPPORTED("MPI_Type_contiguous", MPI_COMM_WORLD, NO_TYPES);
}
int MPI_Type_vector(int n, int b, int s, MPI_Datatype o, MPI_Datatype *t)
{
	(void)n, (void)b, (void)s, (void)o, (void)t;
	UNSUPPORTED("MPI_Type_vector", MPI_COMM_WORLD, NO_TYPES);
}
int MPI_Type_indexed(int n, const int b[], const int d[], MPI_Datatype o, MPI_Datatype *t)
{
	(void)n, (void)b, (void)d, (void)o, (void)t;
	UNSUPPORTED("MPI_Type_indexed", MPI_COMM_WORLD, NO_TYPES);
}
int MPI_Type_create_struct(int n, const int b[], const MPI_Aint d[], const MPI_Datatype ts[], MPI_Datatype *t)
{
	(void)n, (void)b, (void)d, (void)ts, (void)t;
	UNSUPPORTED("MPI_Type_create_struct", MPI_COMM_WORLD, NO_TYPES);
}
int MPI_Type_commit(MPI_Datatype *t)
{
	(void)t;
	UNSUPPORTED("MPI_Type_commit", MPI_COMM_WORLD, NO_TYPES);
}
int MPI_Type_free(MPI_Datatype *t)
{
	(void)t;
	UNSUPPORTED("MPI_Type_free", MPI_COMM_WORLD, NO_TYPES);
}
int MPI_Op_create(MPI_User_function *f, int commute, MPI_Op *op)
{
	(void)f, (void)commute, (void)op;
	UNSUPPORTED("MPI_Op_create", MPI_COMM_WORLD, "user-defined operations are not supported");
}
int MPI_Win_create(void *b, MPI_Aint s, int d, MPI_Info i, MPI_Comm c, MPI_Win *w)
{
	(void)b, (void)s, (void)d, (void)i, (void)w;
	UNSUPPORTED("MPI_Win_create", c, NO_RMA);
}
int MPI_Win_free(MPI_Win *w)
{
	(void)w;
	UNSUPPORTED("MPI_Win_free", MPI_COMM_WORLD, NO_RMA);
}
int MPI_Win_fence(int a, MPI_Win w)
{
	(void)a, (void)w;
	UNSUPPORTED("MPI_Win_fence", MPI_COMM_WORLD, NO_RMA);
}
int MPI_Put(const void *o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win w)
{
	(void)o, (void)oc, (void)ot, (void)r, (void)d, (void)tc, (void)tt, (void)w;
	UNSUPPORTED("MPI_Put", MPI_COMM_WORLD, NO_RMA);
}
int MPI_Get(void *o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win w)
{
	(void)o, (void)oc, (void)ot, (void)r, (void)d, (void)tc, (void)tt, (void)w;
	UNSUPPORTED("MPI_Get", MPI_COMM_WORLD, NO_RMA);
}
int MPI_File_open(MPI_Comm c, const char *f, int a, MPI_Info i, MPI_File *fh)
{
	(void)f, (void)a, (void)i, (void)fh;
	UNSUPPORTED("MPI_File_open", c, "MPI-IO (files) is not supported");
}
int MPI_File_close(MPI_File *fh)
{
	(void)fh;
	UNSUPPORTED("MPI_File_close", MPI_COMM_WORLD, "MPI-IO (files) is not supported");
}
int MPI_Comm_spawn(const char *cmd, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm c, MPI_Comm *ic,
		   int errs[])
{
	(void)cmd, (void)argv, (void)maxprocs, (void)info, (void)root, (void)ic, (void)errs;
	UNSUPPORTED("MPI_Comm_spawn", c, "dynamic processes are not supported (a job's tasks are fixed at submit)");
}
int MPI_Comm_connect(const char *p, MPI_Info i, int root, MPI_Comm c, MPI_Comm *n)
{
	(void)p, (void)i, (void)root, (void)n;
	UNSUPPORTED("MPI_Comm_connect", c, "dynamic processes are not supported");
}
int MPI_Comm_accept(const char *p, MPI_Info i, int root, MPI_Comm c, MPI_Comm *n)
{
	(void)p, (void)i, (void)root, (void)n;
	UNSUPPORTED("MPI_Comm_accept", c, "dynamic processes are not supported");
}
