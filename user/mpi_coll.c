/*
 * MPI's collectives over the kernel's (docs/mpi.md, "Collectives"). Every data movement is one of
 * the kernel's collectives on the communicator's kernel group, loose (MPI's completion is local:
 * the caller's buffers are done with, nothing is said of the others) with the tuned algorithm, so
 * the kernel's algorithms and table stay underneath. What the kernel cannot do on its own is
 * done here around it: blocks above one message's 64 KiB go in pieces, reductions the kernel's
 * int64 sum/min/max do not give exactly are combined in user mode, in rank order, from an
 * allgather (every rank combines the same values in the same order, so all get the same bits),
 * and the v-variants go through alltoallv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_impl.h"

#define KBLOCK 65536u  /* the kernel's largest block */
#define KCOUNT 1024    /* int64s per kernel reduction (the kernel takes up to 8192; a task's memory is 1 MiB) */

static int64_t kin[KCOUNT], kout[KCOUNT];

/* The kernel's collectives, with a communicator of one done here (it has no kernel group). */
static long k_bcast(MPI_Comm c, int root, void *buf, size_t len)
{
	return c->size == 1 ? 0 : mosaic_bcast(mpi_kg(c), root, buf, len);
}
static long k_allgather(MPI_Comm c, const void *in, size_t len, void *out)
{
	if (c->size == 1) {
		memmove(out, in, len);
		return 0;
	}
	return mosaic_allgather(mpi_kg(c), in, len, out);
}
static long k_gather(MPI_Comm c, int root, const void *in, size_t len, void *out)
{
	if (c->size == 1) {
		memmove(out, in, len);
		return 0;
	}
	return mosaic_gather(mpi_kg(c), root, in, len, out);
}
static long k_scatter(MPI_Comm c, int root, const void *in, size_t len, void *out)
{
	if (c->size == 1) {
		memmove(out, in, len);
		return 0;
	}
	return mosaic_scatter(mpi_kg(c), root, in, len, out);
}
static long k_alltoall(MPI_Comm c, const void *in, size_t len, void *out)
{
	if (c->size == 1) {
		memmove(out, in, len);
		return 0;
	}
	return mosaic_alltoall(mpi_kg(c), in, len, out);
}

static int coll_begin(MPI_Comm c, const char *fn)
{
	MPI_CHECK_COMM(c, fn);
	if (c->size > 1 && !c->coll_ok)
		return mpi_error(c, MPI_ERR_COMM, fn,
				 "the communicator has no kernel group (a task has 4, docs/mpi.md): no collectives");
	return MPI_SUCCESS;
}

static int root_arg(MPI_Comm c, int root, const char *fn)
{
	return root < 0 || root >= c->size ? mpi_error(c, MPI_ERR_ROOT, fn, "the root is no rank of the communicator")
					   : MPI_SUCCESS;
}

static size_t bytes(int count, MPI_Datatype t) { return (size_t)count * mpi_types[t].extent; }

int MPI_Barrier(MPI_Comm comm)
{
	MPI_ENTER("MPI_Barrier");
	int e = coll_begin(comm, "MPI_Barrier");
	if (e || comm->size == 1)
		return e;
	long k = mosaic_barrier(comm->kgroup);
	return k < 0 ? mpi_kerr(comm, k, "MPI_Barrier") : MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	MPI_ENTER("MPI_Bcast");
	int e = coll_begin(comm, "MPI_Bcast");
	if (e || (e = mpi_buf_args(comm, buffer, count, datatype, "MPI_Bcast")) || (e = root_arg(comm, root, "MPI_Bcast")))
		return e;
	size_t len = bytes(count, datatype);
	for (size_t off = 0; off < len; off += KBLOCK) {
		long k = k_bcast(comm, root, (char *)buffer + off, len - off < KBLOCK ? len - off : KBLOCK);
		if (k < 0)
			return mpi_kerr(comm, k, "MPI_Bcast");
	}
	return MPI_SUCCESS;
}

static int reduce_args(MPI_Comm c, const void *s, const void *r, int count, MPI_Datatype t, MPI_Op op, int out_here,
		       const char *fn)
{
	int e = coll_begin(c, fn);
	if (e || (e = mpi_buf_args(c, s == MPI_IN_PLACE ? r : s, count, t, fn)))
		return e;
	if (out_here && count && !r)
		return mpi_error(c, MPI_ERR_BUFFER, fn, "a null receive buffer");
	if (mpi_op_check(op, t)) {
		char why[96];
		snprintf(why, sizeof why, "%s does not apply to %s (MPI-3.1 5.9.2)", mpi_op_name(op), mpi_types[t].name);
		return mpi_error(c, MPI_ERR_OP, fn, why);
	}
	return MPI_SUCCESS;
}

/*
 * An allreduce combined here of a vector of count >= n elements: the vector in n blocks, one per
 * rank; an alltoall hands rank r block r of every rank, which it combines in rank order; an
 * allgather hands every rank every combined block. Each element is still combined by one rank in
 * rank order, so every rank gets the same bits as from an allgather of whole vectors, but each
 * rank moves about 2 x count elements and combines count of them, not n x count. The blocks of
 * the last piece are padded with zeros, whose results are dropped.
 */
static int allreduce_scattered(MPI_Comm c, const void *in, void *out, int count, MPI_Datatype t, MPI_Op op,
			       const char *fn)
{
	size_t ext = mpi_types[t].extent, n = (size_t)c->size, half = MPI_TMP_BYTES / 2;
	unsigned char *a = mpi_tmp, *b = mpi_tmp + half;
	size_t most = half / ext / n; /* elements per block at most: n blocks fill half the buffer */
	if (most * ext > KBLOCK)
		most = KBLOCK / ext;
	for (size_t off = 0; off < (size_t)count;) {
		size_t left = (size_t)count - off, per = (left + n - 1) / n;
		per = per < most ? per : most;
		size_t m = left < per * n ? left : per * n, blk = per * ext;
		memcpy(a, (const char *)in + off * ext, m * ext);
		memset(a + m * ext, 0, per * n * ext - m * ext);
		long k = k_alltoall(c, a, blk, b); /* b: block `rank` of every rank, in rank order */
		if (k < 0)
			return mpi_kerr(c, k, fn);
		for (size_t r = 1; r < n; r++)
			mpi_op_apply(op, t, b, b + r * blk, per);
		k = k_allgather(c, b, blk, a); /* a: every rank's combined block, in rank order */
		if (k < 0)
			return mpi_kerr(c, k, fn);
		memcpy((char *)out + off * ext, a, m * ext);
		off += m;
	}
	return MPI_SUCCESS;
}

/* The reduction to every rank (root < 0) or to root, of in (already the receive buffer's values
 * when in == out), into out (significant at root only when root >= 0). */
static int reduce(MPI_Comm c, const void *in, void *out, int count, MPI_Datatype t, MPI_Op op, int root,
		  const char *fn)
{
	size_t ext = mpi_types[t].extent;
	int kop = mpi_op_kernel(op, t), me = c->rank, n = c->size;
	int here = root < 0 || root == me;
	if (n == 1) {
		/* one rank: its vector is the result (no operation is applied) */
		if (out != in)
			memmove(out, in, count * ext);
		return MPI_SUCCESS;
	}
	if (kop) {
		for (int off = 0; off < count; off += KCOUNT) {
			int m = count - off < KCOUNT ? count - off : KCOUNT;
			mpi_to_k(op, t, (const char *)in + off * ext, kin, m);
			long k;
			if (root < 0)
				k = mosaic_allreduce(mpi_kg(c), kin, kout, m, kop);
			else
				k = mosaic_reduce(mpi_kg(c), root, kin, kout, m, kop);
			if (k < 0)
				return mpi_kerr(c, k, fn);
			if (here)
				mpi_from_k(op, t, kout, (char *)out + off * ext, m);
		}
		return MPI_SUCCESS;
	}
	if (root < 0 && n > 2 && count >= n) /* with two ranks one allgather is cheaper than two steps */
		return allreduce_scattered(c, in, out, count, t, op, fn);
	/* combined here: an allgather (gather) of a piece of every rank's vector, then rank order */
	size_t piece = MPI_TMP_BYTES / ((size_t)n * ext);
	for (size_t off = 0; off < (size_t)count; off += piece) {
		size_t m = count - off < piece ? count - off : piece, len = m * ext;
		const char *src = (const char *)in + off * ext;
		long k = root < 0 ? k_allgather(c, src, len, mpi_tmp) : k_gather(c, root, src, len, mpi_tmp);
		if (k < 0)
			return mpi_kerr(c, k, fn);
		if (!here)
			continue;
		char *dst = (char *)out + off * ext;
		memcpy(dst, mpi_tmp, len);
		for (int r = 1; r < n; r++)
			mpi_op_apply(op, t, dst, mpi_tmp + r * len, m);
	}
	return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	MPI_ENTER("MPI_Allreduce");
	int e = reduce_args(comm, sendbuf, recvbuf, count, datatype, op, 1, "MPI_Allreduce");
	if (e)
		return e;
	return reduce(comm, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, datatype, op, -1,
		      "MPI_Allreduce");
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
	       MPI_Comm comm)
{
	MPI_ENTER("MPI_Reduce");
	int e = reduce_args(comm, sendbuf, recvbuf, count, datatype, op, 0, "MPI_Reduce");
	if (e || (e = root_arg(comm, root, "MPI_Reduce")))
		return e;
	if (comm->rank == root && count && !recvbuf)
		return mpi_error(comm, MPI_ERR_BUFFER, "MPI_Reduce", "a null receive buffer at the root");
	if (sendbuf == MPI_IN_PLACE && comm->rank != root)
		return mpi_error(comm, MPI_ERR_BUFFER, "MPI_Reduce", "MPI_IN_PLACE is for the root only");
	return reduce(comm, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, count, datatype, op, root,
		      "MPI_Reduce");
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	MPI_ENTER("MPI_Scan");
	int e = reduce_args(comm, sendbuf, recvbuf, count, datatype, op, 1, "MPI_Scan");
	if (e)
		return e;
	/* rank r's result combines ranks 0..r in order: from an allgather of every piece */
	const char *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	size_t ext = mpi_types[datatype].extent, piece = MPI_TMP_BYTES / ((size_t)comm->size * ext);
	for (size_t off = 0; off < (size_t)count; off += piece) {
		size_t m = count - off < piece ? count - off : piece, len = m * ext;
		long k = k_allgather(comm, in + off * ext, len, mpi_tmp);
		if (k < 0)
			return mpi_kerr(comm, k, "MPI_Scan");
		char *dst = (char *)recvbuf + off * ext;
		memcpy(dst, mpi_tmp, len);
		for (int r = 1; r <= comm->rank; r++)
			mpi_op_apply(op, datatype, dst, mpi_tmp + r * len, m);
	}
	return MPI_SUCCESS;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
		       MPI_Comm comm)
{
	MPI_ENTER("MPI_Reduce_scatter");
	int e = coll_begin(comm, "MPI_Reduce_scatter");
	if (e)
		return e;
	if (!recvcounts)
		return mpi_error(comm, MPI_ERR_COUNT, "MPI_Reduce_scatter", "null recvcounts");
	long total = 0, before = 0;
	for (int r = 0; r < comm->size; r++) {
		if (recvcounts[r] < 0)
			return mpi_error(comm, MPI_ERR_COUNT, "MPI_Reduce_scatter", "a negative count");
		if (r < comm->rank)
			before += recvcounts[r];
		total += recvcounts[r];
	}
	if (total > 0x7fffffff)
		return mpi_error(comm, MPI_ERR_COUNT, "MPI_Reduce_scatter", "more than 2^31 - 1 elements");
	const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
	if ((e = reduce_args(comm, in, recvbuf, (int)total, datatype, op, 1, "MPI_Reduce_scatter")))
		return e;
	/* the whole vector reduced everywhere, then each rank keeps its block */
	size_t ext = mpi_types[datatype].extent;
	char *all = malloc(total * ext + 1);
	if (!all)
		return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Reduce_scatter", "no memory for the reduced vector");
	e = reduce(comm, in, all, (int)total, datatype, op, -1, "MPI_Reduce_scatter");
	if (!e)
		memmove(recvbuf, all + before * ext, recvcounts[comm->rank] * ext);
	free(all);
	return e;
}

/* Gather, scatter, allgather and alltoall of equal blocks. A block of at most 64 KiB is one kernel
 * call straight between the caller's buffers; a larger one goes in pieces through mpi_tmp. */
enum { G_GATHER, G_SCATTER, G_ALLGATHER, G_ALLTOALL };

static int blocks(int kind, MPI_Comm c, const char *s, char *r, size_t blk, int root, const char *fn)
{
	int n = c->size, me = c->rank;
	long k;
	if (blk <= KBLOCK) {
		switch (kind) {
		case G_GATHER: k = k_gather(c, root, s, blk, me == root ? r : (char *)mpi_tmp); break;
		case G_SCATTER: k = k_scatter(c, root, s, blk, r); break;
		case G_ALLGATHER: k = k_allgather(c, s, blk, r); break;
		default: k = k_alltoall(c, s, blk, r); break;
		}
		return k < 0 ? mpi_kerr(c, k, fn) : MPI_SUCCESS;
	}
	/* pieces of p bytes of every block: the staging for all n (alltoall: in and out) fits mpi_tmp */
	size_t p = (kind == G_ALLTOALL ? MPI_TMP_BYTES / 2 : MPI_TMP_BYTES) / n;
	unsigned char *st_in = mpi_tmp, *st_out = mpi_tmp + (size_t)n * p;
	for (size_t off = 0; off < blk; off += p) {
		size_t m = blk - off < p ? blk - off : p;
		switch (kind) {
		case G_GATHER:
			k = k_gather(c, root, s + off, m, mpi_tmp);
			if (k >= 0 && me == root)
				for (int j = 0; j < n; j++)
					memmove(r + j * blk + off, mpi_tmp + j * m, m);
			break;
		case G_SCATTER:
			if (me == root)
				for (int j = 0; j < n; j++)
					memcpy(mpi_tmp + j * m, s + j * blk + off, m);
			k = k_scatter(c, root, mpi_tmp, m, r + off);
			break;
		case G_ALLGATHER:
			k = k_allgather(c, s + off, m, mpi_tmp);
			for (int j = 0; k >= 0 && j < n; j++)
				memmove(r + j * blk + off, mpi_tmp + j * m, m);
			break;
		default:
			for (int j = 0; j < n; j++)
				memcpy(st_in + j * m, s + j * blk + off, m);
			k = k_alltoall(c, st_in, m, st_out);
			for (int j = 0; k >= 0 && j < n; j++)
				memcpy(r + j * blk + off, st_out + j * m, m);
			break;
		}
		if (k < 0)
			return mpi_kerr(c, k, fn);
	}
	return MPI_SUCCESS;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	       MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	MPI_ENTER("MPI_Gather");
	int e = coll_begin(comm, "MPI_Gather");
	if (e || (e = root_arg(comm, root, "MPI_Gather")))
		return e;
	int me = comm->rank, inplace = sendbuf == MPI_IN_PLACE;
	if (inplace && me != root)
		return mpi_error(comm, MPI_ERR_BUFFER, "MPI_Gather", "MPI_IN_PLACE is for the root only");
	if (me == root && (e = mpi_buf_args(comm, recvbuf, recvcount, recvtype, "MPI_Gather")))
		return e;
	if (!inplace && (e = mpi_buf_args(comm, sendbuf, sendcount, sendtype, "MPI_Gather")))
		return e;
	size_t blk = me == root ? bytes(recvcount, recvtype) : bytes(sendcount, sendtype);
	const char *s = sendbuf;
	if (inplace) {
		/* the root's block is in place: the kernel sends it to itself from a copy */
		s = (char *)recvbuf + root * blk;
		if (blk <= KBLOCK && comm->size > 1) {
			char *own = malloc(blk + 1);
			if (!own)
				return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Gather", "no memory for the root's block");
			memcpy(own, s, blk);
			e = blocks(G_GATHER, comm, own, recvbuf, blk, root, "MPI_Gather");
			free(own);
			return e;
		}
	}
	return blocks(G_GATHER, comm, s, recvbuf, blk, root, "MPI_Gather");
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	MPI_ENTER("MPI_Scatter");
	int e = coll_begin(comm, "MPI_Scatter");
	if (e || (e = root_arg(comm, root, "MPI_Scatter")))
		return e;
	int me = comm->rank, inplace = recvbuf == MPI_IN_PLACE;
	if (inplace && me != root)
		return mpi_error(comm, MPI_ERR_BUFFER, "MPI_Scatter", "MPI_IN_PLACE is for the root only");
	if (me == root && (e = mpi_buf_args(comm, sendbuf, sendcount, sendtype, "MPI_Scatter")))
		return e;
	if (!inplace && (e = mpi_buf_args(comm, recvbuf, recvcount, recvtype, "MPI_Scatter")))
		return e;
	size_t blk = me == root ? bytes(sendcount, sendtype) : bytes(recvcount, recvtype);
	if (inplace) {
		/* the root keeps its block where it is: it receives it into a scratch copy */
		char *own = malloc(blk + 1);
		if (!own)
			return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Scatter", "no memory for the root's block");
		e = blocks(G_SCATTER, comm, sendbuf, own, blk, root, "MPI_Scatter");
		free(own);
		return e;
	}
	return blocks(G_SCATTER, comm, sendbuf, recvbuf, blk, root, "MPI_Scatter");
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, MPI_Comm comm)
{
	MPI_ENTER("MPI_Allgather");
	int e = coll_begin(comm, "MPI_Allgather");
	if (e || (e = mpi_buf_args(comm, recvbuf, recvcount, recvtype, "MPI_Allgather")))
		return e;
	int inplace = sendbuf == MPI_IN_PLACE;
	if (!inplace && (e = mpi_buf_args(comm, sendbuf, sendcount, sendtype, "MPI_Allgather")))
		return e;
	size_t blk = bytes(recvcount, recvtype);
	if (!inplace)
		return blocks(G_ALLGATHER, comm, sendbuf, recvbuf, blk, 0, "MPI_Allgather");
	const char *own = (char *)recvbuf + comm->rank * blk;
	if (blk > KBLOCK) /* pieces are staged in mpi_tmp: the in-place block is read before it is written */
		return blocks(G_ALLGATHER, comm, own, recvbuf, blk, 0, "MPI_Allgather");
	char *copy = malloc(blk + 1);
	if (!copy)
		return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Allgather", "no memory for the block in place");
	memcpy(copy, own, blk);
	e = blocks(G_ALLGATHER, comm, copy, recvbuf, blk, 0, "MPI_Allgather");
	free(copy);
	return e;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		 MPI_Datatype recvtype, MPI_Comm comm)
{
	MPI_ENTER("MPI_Alltoall");
	int e = coll_begin(comm, "MPI_Alltoall");
	if (e || (e = mpi_buf_args(comm, recvbuf, recvcount, recvtype, "MPI_Alltoall")))
		return e;
	int inplace = sendbuf == MPI_IN_PLACE;
	if (!inplace && (e = mpi_buf_args(comm, sendbuf, sendcount, sendtype, "MPI_Alltoall")))
		return e;
	size_t blk = bytes(recvcount, recvtype);
	if (!inplace)
		return blocks(G_ALLTOALL, comm, sendbuf, recvbuf, blk, 0, "MPI_Alltoall");
	char *copy = malloc(blk * comm->size + 1);
	if (!copy)
		return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Alltoall", "no memory for the blocks in place");
	memcpy(copy, recvbuf, blk * comm->size);
	e = blocks(G_ALLTOALL, comm, copy, recvbuf, blk, 0, "MPI_Alltoall");
	free(copy);
	return e;
}

/*
 * Blocks of any sizes between every pair (byte counts and displacements per peer), through the
 * kernel's alltoallv in rounds of at most 64 KiB per block: round k moves bytes k * 64 KiB ...
 * of every block. When not every rank knows every size (known 0), the number of rounds is first
 * agreed on with an allreduce of the largest block.
 */
static int vexchange(MPI_Comm c, const char *s, const size_t *sc, const size_t *sd, char *r, const size_t *rc,
		     const size_t *rd, int known, const char *fn)
{
	int n = c->size;
	static uint32_t csend[MPI_MAX_TASKS], dsend[MPI_MAX_TASKS], crecv[MPI_MAX_TASKS], drecv[MPI_MAX_TASKS];
	int64_t most = 0;
	for (int j = 0; j < n; j++) {
		if (sd[j] + sc[j] > 0xffffffffu || rd[j] + rc[j] > 0xffffffffu)
			return mpi_error(c, MPI_ERR_COUNT, fn, "a block beyond 4 GiB");
		if ((int64_t)sc[j] > most)
			most = (int64_t)sc[j];
		if ((int64_t)rc[j] > most)
			most = (int64_t)rc[j];
	}
	if (n == 1) {
		if (rc[0] && sc[0])
			memmove(r + rd[0], s + sd[0], rc[0] < sc[0] ? rc[0] : sc[0]);
		return MPI_SUCCESS;
	}
	int e;
	if (!known && (e = mpi_allreduce_max_i64(c, &most, 1, fn)))
		return e;
	size_t rounds = most ? ((size_t)most + KBLOCK - 1) / KBLOCK : 1;
	if (!s)
		s = (const char *)mpi_tmp;
	if (!r)
		r = (char *)mpi_tmp;
	for (size_t k = 0; k < rounds; k++) {
		size_t at = k * KBLOCK;
		for (int j = 0; j < n; j++) {
			csend[j] = sc[j] > at ? (uint32_t)(sc[j] - at < KBLOCK ? sc[j] - at : KBLOCK) : 0;
			dsend[j] = csend[j] ? (uint32_t)(sd[j] + at) : 0;
			crecv[j] = rc[j] > at ? (uint32_t)(rc[j] - at < KBLOCK ? rc[j] - at : KBLOCK) : 0;
			drecv[j] = crecv[j] ? (uint32_t)(rd[j] + at) : 0;
		}
		struct mosaic_alltoallv v = {s, csend, dsend, r, crecv, drecv};
		long kk = mosaic_alltoallv(mpi_kg(c), &v);
		if (kk < 0)
			return mpi_kerr(c, kk, fn);
	}
	return MPI_SUCCESS;
}

/* the v-variants' byte counts and displacements (static: a task's stack is 16 KiB) */
static struct {
	size_t sc[MPI_MAX_TASKS], sd[MPI_MAX_TASKS], rc[MPI_MAX_TASKS], rd[MPI_MAX_TASKS];
} vs;

static int v_args(MPI_Comm c, const int *counts, const int *displs, const char *fn)
{
	if (!counts || !displs)
		return mpi_error(c, MPI_ERR_ARG, fn, "null counts or displacements");
	for (int j = 0; j < c->size; j++)
		if (counts[j] < 0 || displs[j] < 0)
			return mpi_error(c, MPI_ERR_COUNT, fn, "a negative count or displacement");
	return MPI_SUCCESS;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	MPI_ENTER("MPI_Gatherv");
	int e = coll_begin(comm, "MPI_Gatherv");
	if (e || (e = root_arg(comm, root, "MPI_Gatherv")))
		return e;
	int n = comm->size, me = comm->rank, inplace = sendbuf == MPI_IN_PLACE;
	if (inplace && me != root)
		return mpi_error(comm, MPI_ERR_BUFFER, "MPI_Gatherv", "MPI_IN_PLACE is for the root only");
	if (!inplace && (e = mpi_buf_args(comm, sendbuf, sendcount, sendtype, "MPI_Gatherv")))
		return e;
	if (me == root && ((e = v_args(comm, recvcounts, displs, "MPI_Gatherv")) ||
			   (e = mpi_buf_args(comm, recvbuf, 1, recvtype, "MPI_Gatherv"))))
		return e;
	size_t *sc = vs.sc, *sd = vs.sd, *rc = vs.rc, *rd = vs.rd;
	memset(&vs, 0, sizeof vs);
	if (!inplace)
		sc[root] = bytes(sendcount, sendtype);
	if (me == root)
		for (int j = 0; j < n; j++)
			if (j != me || !inplace) {
				rc[j] = bytes(recvcounts[j], recvtype);
				rd[j] = bytes(displs[j], recvtype);
			}
	return vexchange(comm, inplace ? 0 : sendbuf, sc, sd, recvbuf, rc, rd, 0, "MPI_Gatherv");
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	MPI_ENTER("MPI_Scatterv");
	int e = coll_begin(comm, "MPI_Scatterv");
	if (e || (e = root_arg(comm, root, "MPI_Scatterv")))
		return e;
	int n = comm->size, me = comm->rank, inplace = recvbuf == MPI_IN_PLACE;
	if (inplace && me != root)
		return mpi_error(comm, MPI_ERR_BUFFER, "MPI_Scatterv", "MPI_IN_PLACE is for the root only");
	if (!inplace && (e = mpi_buf_args(comm, recvbuf, recvcount, recvtype, "MPI_Scatterv")))
		return e;
	if (me == root && ((e = v_args(comm, sendcounts, displs, "MPI_Scatterv")) ||
			   (e = mpi_buf_args(comm, sendbuf, 1, sendtype, "MPI_Scatterv"))))
		return e;
	size_t *sc = vs.sc, *sd = vs.sd, *rc = vs.rc, *rd = vs.rd;
	memset(&vs, 0, sizeof vs);
	if (!inplace)
		rc[root] = bytes(recvcount, recvtype);
	if (me == root)
		for (int j = 0; j < n; j++)
			if (j != me || !inplace) {
				sc[j] = bytes(sendcounts[j], sendtype);
				sd[j] = bytes(displs[j], sendtype);
			}
	return vexchange(comm, sendbuf, sc, sd, inplace ? 0 : recvbuf, rc, rd, 0, "MPI_Scatterv");
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	MPI_ENTER("MPI_Allgatherv");
	int e = coll_begin(comm, "MPI_Allgatherv");
	if (e || (e = v_args(comm, recvcounts, displs, "MPI_Allgatherv")) ||
	    (e = mpi_buf_args(comm, recvbuf, 1, recvtype, "MPI_Allgatherv")))
		return e;
	int n = comm->size, me = comm->rank, inplace = sendbuf == MPI_IN_PLACE;
	if (!inplace && (e = mpi_buf_args(comm, sendbuf, sendcount, sendtype, "MPI_Allgatherv")))
		return e;
	size_t *sc = vs.sc, *sd = vs.sd, *rc = vs.rc, *rd = vs.rd;
	memset(&vs, 0, sizeof vs);
	const char *s = inplace ? (char *)recvbuf + bytes(displs[me], recvtype) : sendbuf;
	size_t own = inplace ? bytes(recvcounts[me], recvtype) : bytes(sendcount, sendtype);
	for (int j = 0; j < n; j++) {
		sc[j] = own;
		rc[j] = bytes(recvcounts[j], recvtype);
		rd[j] = bytes(displs[j], recvtype);
	}
	if (inplace)
		sc[me] = rc[me] = 0;
	/* every rank knows every count: the rounds need no agreement */
	return vexchange(comm, s, sc, sd, recvbuf, rc, rd, 1, "MPI_Allgatherv");
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
		  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	MPI_ENTER("MPI_Alltoallv");
	int e = coll_begin(comm, "MPI_Alltoallv");
	if (e || (e = v_args(comm, recvcounts, rdispls, "MPI_Alltoallv")) ||
	    (e = mpi_buf_args(comm, recvbuf, 1, recvtype, "MPI_Alltoallv")))
		return e;
	int n = comm->size, inplace = sendbuf == MPI_IN_PLACE;
	if (!inplace && ((e = v_args(comm, sendcounts, sdispls, "MPI_Alltoallv")) ||
			 (e = mpi_buf_args(comm, sendbuf, 1, sendtype, "MPI_Alltoallv"))))
		return e;
	size_t *sc = vs.sc, *sd = vs.sd, *rc = vs.rc, *rd = vs.rd, end = 0;
	for (int j = 0; j < n; j++) {
		rc[j] = bytes(recvcounts[j], recvtype);
		rd[j] = bytes(rdispls[j], recvtype);
		sc[j] = inplace ? rc[j] : bytes(sendcounts[j], sendtype);
		sd[j] = inplace ? rd[j] : bytes(sdispls[j], sendtype);
		if (rd[j] + rc[j] > end)
			end = rd[j] + rc[j];
	}
	if (!inplace)
		return vexchange(comm, sendbuf, sc, sd, recvbuf, rc, rd, 0, "MPI_Alltoallv");
	char *copy = malloc(end + 1);
	if (!copy)
		return mpi_error(comm, MPI_ERR_NO_MEM, "MPI_Alltoallv", "no memory for the blocks in place");
	memcpy(copy, recvbuf, end);
	e = vexchange(comm, copy, sc, sd, recvbuf, rc, rd, 0, "MPI_Alltoallv");
	free(copy);
	return e;
}
