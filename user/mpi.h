/*
 * MPI for Mosaic's tasks (docs/mpi.md): the MPI-3.1 names, types and semantics for the subset
 * parallel benchmarks and kernels use, over Mosaic's message and collective calls (user/mosaic.h).
 * A job's tasks are MPI_COMM_WORLD in rank order; a task outside a job is a world of one.
 * What is declared here and not supported (user datatypes, one-sided, files, dynamic processes,
 * user-defined operations, synchronous, buffered and ready sends, cancel) returns
 * MPI_ERR_UNSUPPORTED_OPERATION through the communicator's error handler, never silently.
 * Plain C: no floating-point assembly, so the library builds unchanged for lp64 and lp64d.
 */
#ifndef MOSAIC_MPI_H
#define MOSAIC_MPI_H

#include <stddef.h>
#include <stdint.h>

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* Error classes (MPI-3.1 section 8.4); the library's codes are its classes. */
enum {
	MPI_SUCCESS = 0,
	MPI_ERR_BUFFER,
	MPI_ERR_COUNT,
	MPI_ERR_TYPE,
	MPI_ERR_TAG,
	MPI_ERR_COMM,
	MPI_ERR_RANK,
	MPI_ERR_REQUEST,
	MPI_ERR_ROOT,
	MPI_ERR_GROUP,
	MPI_ERR_OP,
	MPI_ERR_TOPOLOGY,
	MPI_ERR_DIMS,
	MPI_ERR_ARG,
	MPI_ERR_UNKNOWN,
	MPI_ERR_TRUNCATE,
	MPI_ERR_OTHER,
	MPI_ERR_INTERN,
	MPI_ERR_IN_STATUS,
	MPI_ERR_PENDING,
	MPI_ERR_NO_MEM,
	MPI_ERR_UNSUPPORTED_OPERATION,
	MPI_ERR_WIN,
	MPI_ERR_FILE,
	MPI_ERR_SPAWN,
	MPI_ERR_LASTCODE
};

#define MPI_MAX_ERROR_STRING 128
#define MPI_MAX_PROCESSOR_NAME 64
#define MPI_MAX_LIBRARY_VERSION_STRING 64

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB_VALUE 65535 /* the largest tag (the value of the attribute MPI_TAG_UB) */

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct mosaic_mpi_comm *MPI_Comm;
typedef struct mosaic_mpi_request *MPI_Request;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;

typedef struct MPI_Status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	int mosaic_cancelled;
	long mosaic_bytes; /* what arrived, in the datatype's size units (MPI_Get_count) */
} MPI_Status;

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_BOTTOM ((void *)0)

extern struct mosaic_mpi_comm mosaic_mpi_comm_world, mosaic_mpi_comm_self;
#define MPI_COMM_WORLD (&mosaic_mpi_comm_world)
#define MPI_COMM_SELF (&mosaic_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_GROUP_NULL 0
#define MPI_INFO_NULL 0
#define MPI_WIN_NULL 0
#define MPI_FILE_NULL 0

#define MPI_ERRHANDLER_NULL 0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2

/* The predefined datatypes (docs/mpi.md has the table of sizes and the operations on each). */
enum {
	MPI_DATATYPE_NULL = 0,
	MPI_CHAR,
	MPI_SIGNED_CHAR,
	MPI_UNSIGNED_CHAR,
	MPI_BYTE,
	MPI_WCHAR,
	MPI_SHORT,
	MPI_UNSIGNED_SHORT,
	MPI_INT,
	MPI_UNSIGNED,
	MPI_LONG,
	MPI_UNSIGNED_LONG,
	MPI_LONG_LONG_INT,
	MPI_UNSIGNED_LONG_LONG,
	MPI_FLOAT,
	MPI_DOUBLE,
	MPI_LONG_DOUBLE,
	MPI_C_BOOL,
	MPI_INT8_T,
	MPI_INT16_T,
	MPI_INT32_T,
	MPI_INT64_T,
	MPI_UINT8_T,
	MPI_UINT16_T,
	MPI_UINT32_T,
	MPI_UINT64_T,
	MPI_AINT,
	MPI_OFFSET,
	MPI_COUNT,
	MPI_PACKED,
	MPI_FLOAT_INT,
	MPI_DOUBLE_INT,
	MPI_LONG_INT,
	MPI_2INT,
	MPI_SHORT_INT,
	MPI_LONG_DOUBLE_INT,
	MOSAIC_MPI_NTYPES
};
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG_INT MPI_UNSIGNED_LONG_LONG

/* The predefined reductions. */
enum {
	MPI_OP_NULL = 0,
	MPI_MAX,
	MPI_MIN,
	MPI_SUM,
	MPI_PROD,
	MPI_LAND,
	MPI_BAND,
	MPI_LOR,
	MPI_BOR,
	MPI_LXOR,
	MPI_BXOR,
	MPI_MAXLOC,
	MPI_MINLOC,
	MPI_REPLACE,
	MPI_NO_OP,
	MOSAIC_MPI_NOPS
};

/* Attribute keys for MPI_Comm_get_attr. */
enum { MPI_TAG_UB = 1, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL };

/* Environment */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Query_thread(int *provided);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* Communicators */
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);

/* Datatypes */
int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);

/* Point to point */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
	      MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int MPI_Request_free(MPI_Request *request);

/* Collectives */
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
	       MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	       MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		 MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
		  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
		       MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* Declared, not supported: each returns MPI_ERR_UNSUPPORTED_OPERATION through the error handler. */
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Cancel(MPI_Request *request);
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
		     MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
			   const MPI_Datatype types[], MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
int MPI_Op_create(MPI_User_function *function, int commute, MPI_Op *op);
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_free(MPI_Win *win);
int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
	    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
	    int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int MPI_File_close(MPI_File *fh);
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
		   MPI_Comm *intercomm, int array_of_errcodes[]);
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);

#endif
