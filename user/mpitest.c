/*
 * mpitest: the MPI library checked the way an MPI user would write a test (user/mpi.h,
 * docs/mpi.md): every result against a sequential reference computed here.
 *
 * arg 0 runs every check for the job's size: the environment; ping-pong of 0 B .. 200 KB
 * (messages split into fragments); a ring by Sendrecv and by Isend/Irecv; ANY_SOURCE and
 * ANY_TAG matching and the non-overtaking order; Probe and Iprobe of unknown sizes; non-blocking
 * progress (Test until done, Waitany, Testall, a large head-to-head exchange); MPI_PROC_NULL;
 * every collective, Reduce/Allreduce/Scan with every operation on every type it applies to, with
 * and without MPI_IN_PLACE; communicators from MPI_Comm_split and MPI_Comm_dup, their traffic kept
 * apart; error returns under MPI_ERRORS_RETURN.
 * arg 1: a fatal error (a send to a rank that does not exist under MPI_ERRORS_ARE_FATAL).
 * arg 2: an unsupported call (MPI_Win_create) under MPI_ERRORS_ARE_FATAL.
 * arg 3: breaks the reference on purpose (the test must see it fail).
 * arg | 16: every rank says which part it starts.
 * Output (rank 0): "mpitest: N tasks: all C checks ok" or "mpitest: N tasks: FAILED (F of C checks)";
 * each failed check prints its rank and what failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"
#include "mosaic.h"

MOSAIC_ABOUT("checks the MPI library against sequential references", "0 all checks, 1 a fatal error, 2 an unsupported call, 3 a broken reference, | 16 verbose");

static int rank, size, checks, fails, breakit, verbose;
#define PHASE(name) (verbose ? printf("mpitest: rank %d: %s\n", rank, name) : 0)

static void check(int ok, const char *what, long a, long b)
{
	checks++;
	if (!ok) {
		fails++;
		if (fails < 12)
			printf("mpitest: rank %d: FAIL %s (%ld, %ld)\n", rank, what, a, b);
	}
}
#define CHECK(c, what) check((c) != 0, what, 0, 0)
#define EQ(a, b, what) check((long)(a) == (long)(b), what, (long)(a), (long)(b))

/* the large buffers, made once (picolibc's malloc does not merge freed neighbours: large blocks
 * that come and go would soon exhaust a task's heap) */
#define BIG 140000
static unsigned char *bigA, *bigB;

static unsigned char pat(long i, int who) { return (unsigned char)(i * 31 + who * 7 + 3); }

static void environment(void)
{
	int flag = 0, v, sv, len, prov;
	MPI_Initialized(&flag);
	EQ(flag, 1, "MPI_Initialized");
	MPI_Get_version(&v, &sv);
	CHECK(v == 3 && sv == 1, "MPI_Get_version 3.1");
	double t0 = MPI_Wtime(), t1 = MPI_Wtime();
	CHECK(t1 >= t0 && t0 > 0 && MPI_Wtick() > 0 && MPI_Wtick() < 1e-3, "MPI_Wtime/MPI_Wtick");
	char name[MPI_MAX_PROCESSOR_NAME];
	MPI_Get_processor_name(name, &len);
	CHECK(len > 0 && (int)strlen(name) == len, "MPI_Get_processor_name");
	MPI_Query_thread(&prov);
	EQ(prov, MPI_THREAD_SINGLE, "MPI_Query_thread");
	EQ(size, mosaic_job_size() ? mosaic_job_size() : 1, "MPI_Comm_size is the job's size");
	int ts;
	MPI_Type_size(MPI_DOUBLE, &ts);
	EQ(ts, 8, "MPI_Type_size(MPI_DOUBLE)");
	MPI_Type_size(MPI_DOUBLE_INT, &ts);
	EQ(ts, 12, "MPI_Type_size(MPI_DOUBLE_INT)");
	int *ub;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	CHECK(flag && *ub >= 32767, "MPI_TAG_UB");
}

/* rank 0 and rank 1 (or rank 0 with itself) exchange messages of every size; each is checked */
static void pingpong(void)
{
	static const long sizes[] = {0, 1, 8, 1000, 65535, 65536, 65537, 131072, 140000};
	int peer = size > 1 ? 1 : 0;
	if (rank > 1)
		return;
	unsigned char *buf = bigA, *out = bigB;
	for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		long n = sizes[s];
		MPI_Status st;
		int cnt;
		if (size == 1) {
			MPI_Request r;
			for (long i = 0; i < n; i++)
				out[i] = pat(i, 0);
			MPI_Isend(out, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &r);
			MPI_Recv(buf, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
			MPI_Wait(&r, MPI_STATUS_IGNORE);
		} else if (rank == 0) {
			for (long i = 0; i < n; i++)
				buf[i] = pat(i, 0);
			MPI_Send(buf, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
			memset(buf, 0, n);
			MPI_Recv(buf, (int)n, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &st);
		} else {
			MPI_Recv(buf, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
			long bad = 0;
			for (long i = 0; i < n; i++)
				bad += buf[i] != pat(i, 0);
			EQ(bad, 0, "ping payload");
			for (long i = 0; i < n; i++)
				buf[i] = pat(i, 1);
			MPI_Send(buf, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
			continue;
		}
		MPI_Get_count(&st, MPI_BYTE, &cnt);
		EQ(cnt, n, "pong count");
		EQ(st.MPI_SOURCE, peer, "pong source");
		long bad = 0;
		for (long i = 0; i < n; i++)
			bad += buf[i] != pat(i, size == 1 ? 0 : 1);
		EQ(bad, 0, "pong payload");
	}
}

static void ring(MPI_Comm c, const char *what)
{
	int r, n;
	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &n);
	int right = (r + 1) % n, left = (r + n - 1) % n;
	int out[4] = {r, r * 2, r * 3, -r}, in[4] = {0};
	MPI_Status st;
	MPI_Sendrecv(out, 4, MPI_INT, right, 11, in, 4, MPI_INT, left, 11, c, &st);
	CHECK(in[0] == left && in[1] == 2 * left && in[3] == -left && st.MPI_SOURCE == left && st.MPI_TAG == 11, what);
	/* the same with non-blocking calls: a token of 3 doubles */
	double dout[3] = {r + 0.5, r * 1.25, -r - 0.75}, din[3] = {0};
	MPI_Request rq[2];
	MPI_Irecv(din, 3, MPI_DOUBLE, left, 12, c, &rq[0]);
	MPI_Isend(dout, 3, MPI_DOUBLE, right, 12, c, &rq[1]);
	MPI_Status sts[2];
	MPI_Waitall(2, rq, sts);
	CHECK(din[0] == left + 0.5 && din[1] == left * 1.25 && din[2] == -left - 0.75 && rq[0] == MPI_REQUEST_NULL,
	      what);
}

/* ANY_SOURCE/ANY_TAG; the order of one sender's messages; Probe of an unknown size */
static void matching(void)
{
	if (size < 2)
		return;
	if (rank != 0) {
		int v = rank * 100;
		MPI_Send(&v, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
	} else {
		int seen[128] = {0};
		for (int k = 1; k < size; k++) {
			int v;
			MPI_Status st;
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			CHECK(st.MPI_TAG == st.MPI_SOURCE && v == st.MPI_SOURCE * 100 && !seen[st.MPI_SOURCE],
			      "ANY_SOURCE/ANY_TAG receive");
			seen[st.MPI_SOURCE] = 1;
		}
	}
	/* (ANY_SOURCE/ANY_TAG above could take rank 1's next messages too: they start after it) */
	MPI_Barrier(MPI_COMM_WORLD);
	PHASE("matching: the order of one sender");
	/* rank 1 sends tags 5, 6, 7 (and a long one of tag 8); rank 0 takes 7 first, then ANY_TAG
	 * must give 5, 6, then the long one, whose size only Probe knows */
	if (rank == 1) {
		for (int t = 5; t <= 7; t++)
			MPI_Send(&t, 1, MPI_INT, 0, t, MPI_COMM_WORLD);
		int *big = (int *)bigA;
		for (int i = 0; i < 30000; i++)
			big[i] = i ^ 0x55;
		PHASE("matching: the long one");
		MPI_Send(big, 30000, MPI_INT, 0, 8, MPI_COMM_WORLD);
	} else if (rank == 0) {
		int v;
		MPI_Status st;
		MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &st);
		EQ(v, 7, "receive by tag passes older messages");
		MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		CHECK(v == 5 && st.MPI_TAG == 5, "ANY_TAG keeps the sender's order (5)");
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		CHECK(v == 6 && st.MPI_TAG == 6, "ANY_TAG keeps the sender's order (6)");
		PHASE("matching: probe");
		MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		int cnt;
		MPI_Get_count(&st, MPI_INT, &cnt);
		CHECK(cnt == 30000 && st.MPI_TAG == 8, "MPI_Probe gives the size");
		int *big = (int *)bigA;
		MPI_Recv(big, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
		long bad = 0;
		for (int i = 0; i < cnt; i++)
			bad += big[i] != (i ^ 0x55);
		EQ(bad, 0, "probed message's payload");
		int flag = 1;
		MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st);
		EQ(flag, 0, "MPI_Iprobe finds nothing of a tag nobody sent");
	}
	PHASE("matching: barrier");
	MPI_Barrier(MPI_COMM_WORLD);
}

/* a receive posted long before its message, completed by MPI_Test; Waitany; Testall; and a
 * large exchange both ways at once between neighbours */
static void nonblocking(void)
{
	MPI_Status st;
	if (size >= 2 && rank < 2) {
		int v = -1, flag = 0, tests = 0;
		MPI_Request r;
		if (rank == 0) {
			MPI_Irecv(&v, 1, MPI_INT, 1, 21, MPI_COMM_WORLD, &r);
			MPI_Test(&r, &flag, &st);
			EQ(flag, 0, "MPI_Test before the message is sent");
			MPI_Send(&flag, 0, MPI_INT, 1, 20, MPI_COMM_WORLD); /* now send */
			while (!flag && tests < 1000000) {
				MPI_Test(&r, &flag, &st);
				tests++;
			}
			CHECK(flag && v == 4321 && r == MPI_REQUEST_NULL, "MPI_Test completes a posted receive");
		} else {
			MPI_Recv(0, 0, MPI_INT, 0, 20, MPI_COMM_WORLD, &st);
			v = 4321;
			MPI_Send(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
		}
	}
	if (size >= 3) {
		/* rank 0 waits for any of the others, each once */
		if (rank == 0) {
			MPI_Request rq[127];
			int vals[127], got = 0, idx;
			for (int k = 1; k < size; k++)
				MPI_Irecv(&vals[k - 1], 1, MPI_INT, k, 22, MPI_COMM_WORLD, &rq[k - 1]);
			for (int k = 1; k < size; k++) {
				MPI_Waitany(size - 1, rq, &idx, &st);
				got += idx >= 0 && vals[idx] == idx + 1 && st.MPI_SOURCE == idx + 1;
			}
			EQ(got, size - 1, "MPI_Waitany");
			MPI_Waitany(size - 1, rq, &idx, &st);
			EQ(idx, MPI_UNDEFINED, "MPI_Waitany with no active request");
		} else {
			MPI_Send(&rank, 1, MPI_INT, 0, 22, MPI_COMM_WORLD);
		}
	}
	/* both ways at once: every rank sends 140000 bytes right and receives from the left */
	if (size >= 2 && size <= 16) {
		int right = (rank + 1) % size, left = (rank + size - 1) % size, flag = 0;
		long n = 140000;
		unsigned char *out = bigA, *in = bigB;
		for (long i = 0; i < n; i++)
			out[i] = pat(i, rank);
		MPI_Request rq[2];
		MPI_Irecv(in, (int)n, MPI_BYTE, left, 23, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(out, (int)n, MPI_BYTE, right, 23, MPI_COMM_WORLD, &rq[1]);
		while (!flag)
			MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
		long bad = 0;
		for (long i = 0; i < n; i++)
			bad += in[i] != pat(i, left);
		EQ(bad, 0, "large exchange both ways (Testall)");
	}
	/* MPI_PROC_NULL */
	int x = 7;
	MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
	int cnt;
	MPI_Get_count(&st, MPI_INT, &cnt);
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && x == 7, "MPI_PROC_NULL");
	MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- reductions: each type and operation against a reference in rank order ---- */

#define NV 5
static long ival(int r, int i, int n) { return (long)((r * 7 + i * 13 + n) % 23) - 9 + (i == 4 ? r : 0); }
static double fval(int r, int i) { return (r - 3) * 0.37 + i * 1.1 + 0.01 * r * i; }

/* the reference: v(0) op v(1) ... op v(n-1) in the type's own arithmetic */
#define REF_INT(T, U)                                                                                                  \
	static void ref_##T(MPI_Op op, T *acc, const T *b)                                                             \
	{                                                                                                              \
		for (int i = 0; i < NV; i++) {                                                                         \
			T x = acc[i], y = b[i];                                                                        \
			acc[i] = op == MPI_SUM	   ? (T)((U)x + (U)y)                                                  \
				 : op == MPI_PROD ? (T)((U)x * (U)y)                                                   \
				 : op == MPI_MIN  ? (y < x ? y : x)                                                    \
				 : op == MPI_MAX  ? (y > x ? y : x)                                                    \
				 : op == MPI_LAND ? (T)(x && y)                                                        \
				 : op == MPI_LOR  ? (T)(x || y)                                                        \
				 : op == MPI_LXOR ? (T)(!x != !y)                                                      \
				 : op == MPI_BAND ? (T)(x & y)                                                         \
				 : op == MPI_BOR  ? (T)(x | y)                                                         \
						  : (T)(x ^ y);                                                        \
		}                                                                                                      \
	}
REF_INT(int8_t, uint8_t)
REF_INT(uint8_t, uint8_t)
REF_INT(int16_t, uint16_t)
REF_INT(uint16_t, uint16_t)
REF_INT(int32_t, uint32_t)
REF_INT(uint32_t, uint32_t)
REF_INT(int64_t, uint64_t)
REF_INT(uint64_t, uint64_t)
#define REF_FLT(T)                                                                                                     \
	static void ref_##T(MPI_Op op, T *acc, const T *b)                                                             \
	{                                                                                                              \
		for (int i = 0; i < NV; i++)                                                                           \
			acc[i] = op == MPI_SUM ? acc[i] + b[i]                                                         \
				 : op == MPI_PROD ? acc[i] * b[i]                                                      \
				 : op == MPI_MIN ? (b[i] < acc[i] ? b[i] : acc[i])                                     \
						 : (b[i] > acc[i] ? b[i] : acc[i]);                                    \
	}
typedef long double ldouble;
REF_FLT(float)
REF_FLT(double)
REF_FLT(ldouble)

struct tcase {
	MPI_Datatype t;
	const char *name;
	int kind; /* 0 integer, 1 floating, 2 bool, 3 byte */
	int bytes, sign;
};
static const struct tcase tcases[] = {
	{MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 0, 1, 1},	  {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 0, 1, 0},
	{MPI_SHORT, "MPI_SHORT", 0, 2, 1},		  {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 0, 2, 0},
	{MPI_INT, "MPI_INT", 0, 4, 1},			  {MPI_UNSIGNED, "MPI_UNSIGNED", 0, 4, 0},
	{MPI_LONG, "MPI_LONG", 0, 8, 1},		  {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 0, 8, 0},
	{MPI_LONG_LONG, "MPI_LONG_LONG", 0, 8, 1},	  {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 0, 8, 0},
	{MPI_INT8_T, "MPI_INT8_T", 0, 1, 1},		  {MPI_INT16_T, "MPI_INT16_T", 0, 2, 1},
	{MPI_INT32_T, "MPI_INT32_T", 0, 4, 1},		  {MPI_INT64_T, "MPI_INT64_T", 0, 8, 1},
	{MPI_UINT8_T, "MPI_UINT8_T", 0, 1, 0},		  {MPI_UINT16_T, "MPI_UINT16_T", 0, 2, 0},
	{MPI_UINT32_T, "MPI_UINT32_T", 0, 4, 0},	  {MPI_UINT64_T, "MPI_UINT64_T", 0, 8, 0},
	{MPI_AINT, "MPI_AINT", 0, 8, 1},		  {MPI_OFFSET, "MPI_OFFSET", 0, 8, 1},
	{MPI_COUNT, "MPI_COUNT", 0, 8, 1},		  {MPI_FLOAT, "MPI_FLOAT", 1, 4, 1},
	{MPI_DOUBLE, "MPI_DOUBLE", 1, 8, 1},		  {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 1, 16, 1},
	{MPI_C_BOOL, "MPI_C_BOOL", 2, 1, 0},		  {MPI_BYTE, "MPI_BYTE", 3, 1, 0},
};
static const MPI_Op int_ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR,
				 MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};

/* rank r's vector of the type (unsigned 64-bit values get their top bit now and then) */
static void fill(const struct tcase *c, int r, int n, MPI_Op op, void *out)
{
	for (int i = 0; i < NV; i++) {
		long v = ival(r, i, n);
		if (op == MPI_PROD)
			v = (v % 3) + (i & 1 ? 1 : -1); /* products stay small: -3..3 */
		unsigned char *p = (unsigned char *)out + i * c->bytes;
		if (c->kind == 1) {
			double d = op == MPI_PROD ? v * 0.5 : fval(r, i);
			if (c->bytes == 4) { float f = (float)d; memcpy(p, &f, 4); }
			else if (c->bytes == 8) memcpy(p, &d, 8);
			else { long double l = d; memcpy(p, &l, 16); }
		} else if (c->kind == 2) {
			_Bool b = (v & 3) != 0;
			memcpy(p, &b, 1);
		} else {
			uint64_t u = (uint64_t)v;
			if (!c->sign && c->bytes == 8 && op != MPI_PROD && (r + i) % 3 == 0)
				u ^= (uint64_t)1 << 63;
			memcpy(p, &u, c->bytes); /* little-endian: the low bytes */
		}
	}
}

static void reference(const struct tcase *c, MPI_Op op, int upto, int n, void *acc)
{
	unsigned char b[NV * 16];
	fill(c, 0, n, op, acc);
	for (int r = 1; r <= upto; r++) {
		fill(c, r, n, op, b);
		if (c->kind == 1) {
			if (c->bytes == 4) ref_float(op, acc, (float *)b);
			else if (c->bytes == 8) ref_double(op, acc, (double *)b);
			else ref_ldouble(op, acc, (ldouble *)b);
		} else if (c->kind == 2) {
			_Bool *a = acc, *y = (_Bool *)b;
			for (int i = 0; i < NV; i++)
				a[i] = op == MPI_LAND ? a[i] && y[i] : op == MPI_LOR ? a[i] || y[i] : a[i] != y[i];
		} else {
			switch (c->bytes * 2 + c->sign) {
			case 3: ref_int8_t(op, acc, (int8_t *)b); break;
			case 2: ref_uint8_t(op, acc, (uint8_t *)b); break;
			case 5: ref_int16_t(op, acc, (int16_t *)b); break;
			case 4: ref_uint16_t(op, acc, (uint16_t *)b); break;
			case 9: ref_int32_t(op, acc, (int32_t *)b); break;
			case 8: ref_uint32_t(op, acc, (uint32_t *)b); break;
			case 17: ref_int64_t(op, acc, (int64_t *)b); break;
			default: ref_uint64_t(op, acc, (uint64_t *)b); break;
			}
		}
	}
	if (breakit)
		((unsigned char *)acc)[0] ^= 1;
}

static int applies(const struct tcase *c, MPI_Op op)
{
	switch (c->kind) {
	case 0: return 1;
	case 1: return op == MPI_SUM || op == MPI_PROD || op == MPI_MIN || op == MPI_MAX;
	case 2: return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
	default: return op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
	}
}

static int same(const struct tcase *c, const void *a, const void *b)
{
	if (c->bytes == 16) { /* long double: the value bits (no padding on riscv64's binary128) */
		const long double *x = a, *y = b;
		for (int i = 0; i < NV; i++)
			if (x[i] != y[i])
				return 0;
		return 1;
	}
	return !memcmp(a, b, NV * c->bytes);
}

static void reductions(MPI_Comm comm, const char *cname)
{
	int r, n;
	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	unsigned char in[NV * 16], out[NV * 16], ref[NV * 16];
	char what[96];
	for (unsigned k = 0; k < sizeof tcases / sizeof *tcases; k++) {
		const struct tcase *c = &tcases[k];
		if (verbose && (rank == 0 || rank == size - 1))
			printf("mpitest: rank %d: reductions of %s on %s\n", rank, c->name, cname);
		for (unsigned o = 0; o < sizeof int_ops / sizeof *int_ops; o++) {
			MPI_Op op = int_ops[o];
			if (!applies(c, op))
				continue;
			/* above 16 ranks every type with MPI_SUM and MPI_MAX, every operation on MPI_INT,
			 * MPI_DOUBLE and the types with few: the emulator's host time grows with the ranks */
			if (n > 16 && op != MPI_SUM && op != MPI_MAX && c->t != MPI_INT && c->t != MPI_DOUBLE && c->kind < 2)
				continue;
			fill(c, r, n, op, in);
			reference(c, op, n - 1, n, ref);
			memset(out, 0, sizeof out);
			MPI_Allreduce(in, out, NV, c->t, op, comm);
			snprintf(what, sizeof what, "%s: MPI_Allreduce %s op %d", cname, c->name, op);
			check(same(c, out, ref), what, k, op);
			/* in place, and the rooted reduction to the last rank */
			memcpy(out, in, sizeof in);
			MPI_Allreduce(MPI_IN_PLACE, out, NV, c->t, op, comm);
			snprintf(what, sizeof what, "%s: MPI_Allreduce MPI_IN_PLACE %s op %d", cname, c->name, op);
			check(same(c, out, ref), what, k, op);
			memset(out, 0, sizeof out);
			MPI_Reduce(in, out, NV, c->t, op, n - 1, comm);
			if (r == n - 1) {
				snprintf(what, sizeof what, "%s: MPI_Reduce %s op %d", cname, c->name, op);
				check(same(c, out, ref), what, k, op);
			}
			if (op == MPI_SUM || op == MPI_MAX) {
				MPI_Scan(in, out, NV, c->t, op, comm);
				reference(c, op, r, n, ref);
				snprintf(what, sizeof what, "%s: MPI_Scan %s op %d", cname, c->name, op);
				check(same(c, out, ref), what, k, op);
			}
		}
	}
	PHASE("maxloc");
	/* MAXLOC and MINLOC on the pairs; ties go to the smaller index */
	struct { double v; int i; } di[3], dref[3];
	struct { int v; int i; } ii[3], iref[3];
	struct { long v; int i; } li[3], lref[3];
	for (int j = 0; j < 3; j++) {
		di[j].v = fval(r, j) * (j == 1 ? 0 : 1);
		di[j].i = r;
		ii[j].v = (int)ival(r, j, n) % 4;
		ii[j].i = r + 1000;
		li[j].v = -(long)ival(r, j, n);
		li[j].i = r;
	}
	for (int loc = 0; loc < 2; loc++) {
		MPI_Op op = loc ? MPI_MINLOC : MPI_MAXLOC;
		for (int j = 0; j < 3; j++) {
			dref[j].v = fval(0, j) * (j == 1 ? 0 : 1), dref[j].i = 0;
			iref[j].v = (int)ival(0, j, n) % 4, iref[j].i = 1000;
			lref[j].v = -(long)ival(0, j, n), lref[j].i = 0;
			for (int q = 1; q < n; q++) {
				double dv = fval(q, j) * (j == 1 ? 0 : 1);
				int iv = (int)ival(q, j, n) % 4;
				long lv = -(long)ival(q, j, n);
				if (loc ? dv < dref[j].v : dv > dref[j].v)
					dref[j].v = dv, dref[j].i = q;
				if (loc ? iv < iref[j].v : iv > iref[j].v)
					iref[j].v = iv, iref[j].i = q + 1000;
				if (loc ? lv < lref[j].v : lv > lref[j].v)
					lref[j].v = lv, lref[j].i = q;
			}
		}
		__typeof__(di) dout;
		__typeof__(ii) iout;
		__typeof__(li) lout;
		MPI_Allreduce(di, dout, 3, MPI_DOUBLE_INT, op, comm);
		MPI_Allreduce(ii, iout, 3, MPI_2INT, op, comm);
		MPI_Reduce(li, lout, 3, MPI_LONG_INT, op, 0, comm);
		int ok = 1;
		for (int j = 0; j < 3; j++) {
			ok &= dout[j].v == dref[j].v && dout[j].i == dref[j].i;
			ok &= iout[j].v == iref[j].v && iout[j].i == iref[j].i;
			if (r == 0)
				ok &= lout[j].v == lref[j].v && lout[j].i == lref[j].i;
		}
		snprintf(what, sizeof what, "%s: %s on MPI_DOUBLE_INT, MPI_2INT, MPI_LONG_INT", cname,
			 loc ? "MPI_MINLOC" : "MPI_MAXLOC");
		check(ok, what, loc, 0);
	}
	PHASE("long vectors");
	/* a long vector: pieces of the kernel's reduction and of the combination here */
	int m = n <= 16 ? 5000 : 300;
	double *dv = (double *)bigA, *dres = (double *)bigB;
	long *lv = (long *)(bigA + m * sizeof(double)), *lres = (long *)(bigB + m * sizeof(double));
	for (int i = 0; i < m; i++) {
		dv[i] = fval(r, i % 50) + i;
		lv[i] = (long)i * (r + 1) - 7;
	}
	MPI_Allreduce(dv, dres, m, MPI_DOUBLE, MPI_SUM, comm);
	MPI_Allreduce(lv, lres, m, MPI_LONG, MPI_SUM, comm);
	long bad = 0;
	for (int i = 0; i < m; i++) {
		double s = fval(0, i % 50) + i;
		for (int q = 1; q < n; q++)
			s += fval(q, i % 50) + i;
		bad += dres[i] != s;
		bad += lres[i] != (long)i * n * (n + 1) / 2 - 7L * n;
	}
	snprintf(what, sizeof what, "%s: MPI_Allreduce of %d doubles and longs", cname, m);
	check(bad == 0, what, bad, 0);
	PHASE("reduce_scatter");
	/* Reduce_scatter: rank q gets q + 1 sums */
	int counts[128], total = 0, before = 0;
	for (int q = 0; q < n; q++) {
		counts[q] = q % 4 + 1;
		if (q < r)
			before += counts[q];
		total += counts[q];
	}
	int *vin = malloc(total * sizeof(int)), vout[4];
	for (int i = 0; i < total; i++)
		vin[i] = i * 10 + r;
	MPI_Reduce_scatter(vin, vout, counts, MPI_INT, MPI_SUM, comm);
	int ok = 1;
	for (int i = 0; i < counts[r]; i++)
		ok &= vout[i] == (before + i) * 10 * n + n * (n - 1) / 2;
	snprintf(what, sizeof what, "%s: MPI_Reduce_scatter", cname);
	check(ok, what, vout[0], 0);
	free(vin);
}

/* ---- the data movement collectives ---- */
static int v_of(int from, int to, int j) { return from * 10000 + to * 100 + j; }

static void movement(MPI_Comm comm, const char *cname)
{
	int r, n;
	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	char what[96];
	int root = n - 1, B = 3;
	int *all = malloc(n * 8 * sizeof(int)), *mine = malloc(8 * sizeof(int));
	int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
	long bad;
#define VERDICT(name)                                                                                                  \
	do {                                                                                                           \
		snprintf(what, sizeof what, "%s: %s", cname, name);                                                    \
		check(bad == 0, what, bad, 0);                                                                         \
	} while (0)

	MPI_Barrier(comm);
	/* Bcast from the last rank, small and large */
	int b[5] = {0};
	if (r == root)
		for (int j = 0; j < 5; j++)
			b[j] = j * 3 + 1;
	MPI_Bcast(b, 5, MPI_INT, root, comm);
	bad = 0;
	for (int j = 0; j < 5; j++)
		bad += b[j] != j * 3 + 1;
	VERDICT("MPI_Bcast");
	if (n <= 16) {
		long L = 100000;
		unsigned char *big = bigA;
		for (long i = 0; i < L; i++)
			big[i] = r == 0 ? pat(i, 9) : 0;
		MPI_Bcast(big, (int)L, MPI_UNSIGNED_CHAR, 0, comm);
		bad = 0;
		for (long i = 0; i < L; i++)
			bad += big[i] != pat(i, 9);
		VERDICT("MPI_Bcast of 100000 bytes");
	}
	/* Gather, and in place at the root */
	for (int j = 0; j < B; j++)
		mine[j] = v_of(r, root, j);
	MPI_Gather(mine, B, MPI_INT, all, B, MPI_INT, root, comm);
	bad = 0;
	if (r == root)
		for (int q = 0; q < n; q++)
			for (int j = 0; j < B; j++)
				bad += all[q * B + j] != v_of(q, root, j);
	VERDICT("MPI_Gather");
	if (r == root) {
		memset(all, 0, n * B * sizeof(int));
		for (int j = 0; j < B; j++)
			all[r * B + j] = v_of(r, root, j);
		MPI_Gather(MPI_IN_PLACE, B, MPI_INT, all, B, MPI_INT, root, comm);
	} else {
		MPI_Gather(mine, B, MPI_INT, 0, B, MPI_INT, root, comm);
	}
	bad = 0;
	if (r == root)
		for (int q = 0; q < n; q++)
			for (int j = 0; j < B; j++)
				bad += all[q * B + j] != v_of(q, root, j);
	VERDICT("MPI_Gather MPI_IN_PLACE");
	/* Scatter */
	if (r == 0)
		for (int q = 0; q < n; q++)
			for (int j = 0; j < B; j++)
				all[q * B + j] = v_of(0, q, j);
	MPI_Scatter(all, B, MPI_INT, mine, B, MPI_INT, 0, comm);
	bad = 0;
	for (int j = 0; j < B; j++)
		bad += mine[j] != v_of(0, r, j);
	VERDICT("MPI_Scatter");
	/* Allgather, and in place */
	for (int j = 0; j < B; j++)
		mine[j] = v_of(r, 0, j);
	MPI_Allgather(mine, B, MPI_INT, all, B, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < B; j++)
			bad += all[q * B + j] != v_of(q, 0, j);
	VERDICT("MPI_Allgather");
	memset(all, 0, n * B * sizeof(int));
	for (int j = 0; j < B; j++)
		all[r * B + j] = v_of(r, 1, j);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, B, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < B; j++)
			bad += all[q * B + j] != v_of(q, 1, j);
	VERDICT("MPI_Allgather MPI_IN_PLACE");
	/* Alltoall, and in place */
	int *sall = malloc(n * B * sizeof(int));
	for (int q = 0; q < n; q++)
		for (int j = 0; j < B; j++)
			sall[q * B + j] = v_of(r, q, j);
	MPI_Alltoall(sall, B, MPI_INT, all, B, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < B; j++)
			bad += all[q * B + j] != v_of(q, r, j);
	VERDICT("MPI_Alltoall");
	memcpy(all, sall, n * B * sizeof(int));
	MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, B, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < B; j++)
			bad += all[q * B + j] != v_of(q, r, j);
	VERDICT("MPI_Alltoall MPI_IN_PLACE");
	/* the v-variants: rank q contributes q % 3 + 1 values, laid out backwards with gaps */
	int tot = 0;
	for (int q = n - 1; q >= 0; q--) {
		counts[q] = q % 3 + 1;
		displs[q] = tot;
		tot += counts[q] + 1;
	}
	int *vall = malloc(tot * sizeof(int));
	for (int j = 0; j < counts[r]; j++)
		mine[j] = v_of(r, 2, j);
	memset(vall, 0xff, tot * sizeof(int));
	MPI_Gatherv(mine, counts[r], MPI_INT, vall, counts, displs, MPI_INT, 0, comm);
	bad = 0;
	if (r == 0)
		for (int q = 0; q < n; q++)
			for (int j = 0; j < counts[q]; j++)
				bad += vall[displs[q] + j] != v_of(q, 2, j);
	VERDICT("MPI_Gatherv");
	memset(vall, 0xff, tot * sizeof(int));
	MPI_Allgatherv(mine, counts[r], MPI_INT, vall, counts, displs, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < counts[q]; j++)
			bad += vall[displs[q] + j] != v_of(q, 2, j);
	VERDICT("MPI_Allgatherv");
	memset(vall, 0, tot * sizeof(int));
	for (int j = 0; j < counts[r]; j++)
		vall[displs[r] + j] = v_of(r, 3, j);
	MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, vall, counts, displs, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < counts[q]; j++)
			bad += vall[displs[q] + j] != v_of(q, 3, j);
	VERDICT("MPI_Allgatherv MPI_IN_PLACE");
	if (r == root)
		for (int q = 0; q < n; q++)
			for (int j = 0; j < counts[q]; j++)
				vall[displs[q] + j] = v_of(root, q, j);
	memset(mine, 0, 8 * sizeof(int));
	MPI_Scatterv(vall, counts, displs, MPI_INT, mine, counts[r], MPI_INT, root, comm);
	bad = 0;
	for (int j = 0; j < counts[r]; j++)
		bad += mine[j] != v_of(root, r, j);
	VERDICT("MPI_Scatterv");
	/* Alltoallv: rank r sends (r + q) % 3 values to q */
	int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int)), *rc = malloc(n * sizeof(int)),
	    *rd = malloc(n * sizeof(int));
	int st = 0, rt = 0;
	for (int q = 0; q < n; q++) {
		sc[q] = (r + q) % 3;
		sd[q] = st;
		st += sc[q];
		rc[q] = (q + r) % 3;
		rd[q] = rt;
		rt += rc[q] + 2;
	}
	int *sv = malloc((st + 1) * sizeof(int)), *rv = malloc((rt + 1) * sizeof(int));
	for (int q = 0; q < n; q++)
		for (int j = 0; j < sc[q]; j++)
			sv[sd[q] + j] = v_of(r, q, j);
	MPI_Alltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, comm);
	bad = 0;
	for (int q = 0; q < n; q++)
		for (int j = 0; j < rc[q]; j++)
			bad += rv[rd[q] + j] != v_of(q, r, j);
	VERDICT("MPI_Alltoallv");
	free(sc), free(sd), free(rc), free(rd), free(sv), free(rv), free(vall), free(sall);
	/* blocks above one message's 64 KiB (n blocks of 70000 bytes each) */
	if (n <= 2) {
		long L = 70000;
		unsigned char *s = bigA, *o = bigB;
		for (int q = 0; q < n; q++)
			for (long i = 0; i < L; i++)
				s[q * L + i] = pat(i, r * 8 + q);
		MPI_Alltoall(s, (int)L, MPI_BYTE, o, (int)L, MPI_BYTE, comm);
		bad = 0;
		for (int q = 0; q < n; q++)
			for (long i = 0; i < L; i++)
				bad += o[q * L + i] != pat(i, q * 8 + r);
		VERDICT("MPI_Alltoall of 70000-byte blocks");
		MPI_Allgather(s, (int)L, MPI_BYTE, o, (int)L, MPI_BYTE, comm);
		bad = 0;
		for (int q = 0; q < n; q++)
			for (long i = 0; i < L; i++)
				bad += o[q * L + i] != pat(i, q * 8);
		VERDICT("MPI_Allgather of 70000-byte blocks");
		MPI_Gather(s, (int)L, MPI_BYTE, o, (int)L, MPI_BYTE, 0, comm);
		bad = 0;
		if (r == 0)
			for (int q = 0; q < n; q++)
				for (long i = 0; i < L; i++)
					bad += o[q * L + i] != pat(i, q * 8);
		VERDICT("MPI_Gather of 70000-byte blocks");
	}
	free(all), free(mine), free(counts), free(displs);
}

/* communicators: split (reversed order by key), dup, MPI_UNDEFINED; their traffic kept apart */
static void communicators(void)
{
	MPI_Comm half, dup, none, quarter;
	int color = rank % 2, hr, hn;
	MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hn);
	int expect_n = (size - color + 1) / 2;
	EQ(hn, expect_n, "MPI_Comm_split size");
	int above = 0;
	for (int q = rank + 2; q < size; q += 2)
		above++;
	EQ(hr, above, "MPI_Comm_split rank by key (the highest world rank first)");
	/* the world rank of each member in half's order, by an allgather on half */
	int *wr = malloc(hn * sizeof(int)), ok = 1;
	MPI_Allgather(&rank, 1, MPI_INT, wr, 1, MPI_INT, half);
	for (int q = 1; q < hn; q++)
		ok &= wr[q] < wr[q - 1] && wr[q] % 2 == color;
	CHECK(ok, "MPI_Comm_split orders by key");
	int sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
	int want = 0;
	for (int q = color; q < size; q += 2)
		want += q;
	EQ(sum, want, "MPI_Allreduce on a split communicator");
	/* the same tag on half and on world to the same task: each receive gets its own */
	if (hn > 1) {
		int right = (hr + 1) % hn, left = (hr + hn - 1) % hn;
		int wright = wr[right], a = 1000 + rank, w = 2000 + rank, got1, got2;
		MPI_Request rq[2];
		MPI_Isend(&w, 1, MPI_INT, wright, 3, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(&a, 1, MPI_INT, right, 3, half, &rq[1]);
		MPI_Status st;
		MPI_Recv(&got1, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, half, &st);
		CHECK(got1 == 1000 + wr[left] && st.MPI_SOURCE == left, "a split communicator's message stays on it");
		MPI_Recv(&got2, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
		CHECK(got2 == 2000 + wr[left] && st.MPI_SOURCE == wr[left], "the world's message stays on the world");
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	}
	ring(half, "ring on a split communicator");
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	int cmp;
	MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp);
	EQ(cmp, MPI_CONGRUENT, "MPI_Comm_dup is congruent");
	int dr, dn;
	MPI_Comm_rank(dup, &dr);
	MPI_Comm_size(dup, &dn);
	CHECK(dr == rank && dn == size, "MPI_Comm_dup rank and size");
	if (size > 1) {
		/* a message on dup and one on the world, same tag, same peers: each on its own */
		int peer = rank ^ 1;
		if (peer < size) {
			int x = 1, y = 2, gx = 0, gy = 0;
			MPI_Request rq;
			MPI_Isend(&x, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &rq);
			MPI_Send(&y, 1, MPI_INT, peer, 4, dup);
			MPI_Recv(&gy, 1, MPI_INT, peer, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
			MPI_Recv(&gx, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			CHECK(gx == 1 && gy == 2, "MPI_Comm_dup's traffic is its own");
		}
	}
	reductions(half, "split");
	movement(dup, "dup");
	MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
	CHECK(rank == 0 ? none == MPI_COMM_NULL : none != MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
	if (none != MPI_COMM_NULL) {
		int nn;
		MPI_Comm_size(none, &nn);
		EQ(nn, size - 1, "the others' communicator");
		MPI_Barrier(none);
		MPI_Comm_free(&none);
		CHECK(none == MPI_COMM_NULL, "MPI_Comm_free");
	}
	/* a split of a split: groups of four */
	MPI_Comm_split(half, hr / 4, hr, &quarter);
	int qn, qsum = 0;
	MPI_Comm_size(quarter, &qn);
	MPI_Allreduce(&rank, &qsum, 1, MPI_INT, MPI_SUM, quarter);
	want = 0;
	for (int q = hr / 4 * 4; q < hr / 4 * 4 + 4 && q < hn; q++)
		want += wr[q];
	EQ(qsum, want, "MPI_Allreduce on a split of a split");
	MPI_Comm_free(&quarter);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&half);
	free(wr);
}

/* error returns: every bad argument gets its own class through MPI_ERRORS_RETURN */
static void errors(void)
{
	MPI_Comm c;
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	MPI_Errhandler eh;
	MPI_Comm_get_errhandler(c, &eh);
	EQ(eh, MPI_ERRORS_RETURN, "MPI_Comm_get_errhandler");
	int x[10] = {0}, y[5];
	EQ(MPI_Send(x, 1, MPI_INT, size, 0, c), MPI_ERR_RANK, "send to a rank beyond the communicator");
	EQ(MPI_Send(x, -1, MPI_INT, 0, 0, c), MPI_ERR_COUNT, "a negative count");
	EQ(MPI_Send(x, 1, MPI_INT, 0, -5, c), MPI_ERR_TAG, "a negative tag");
	EQ(MPI_Send(x, 1, MPI_INT, 0, MPI_TAG_UB_VALUE + 1, c), MPI_ERR_TAG, "a tag above MPI_TAG_UB");
	EQ(MPI_Send(x, 1, 999, 0, 0, c), MPI_ERR_TYPE, "no such datatype");
	EQ(MPI_Send(0, 1, MPI_INT, 0, 0, c), MPI_ERR_BUFFER, "a null buffer");
	char ch[2] = {1, 2}, cr[2];
	EQ(MPI_Allreduce(ch, cr, 2, MPI_CHAR, MPI_SUM, c), MPI_ERR_OP, "MPI_SUM on MPI_CHAR");
	double d = 1, dr;
	EQ(MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE, MPI_BAND, c), MPI_ERR_OP, "MPI_BAND on MPI_DOUBLE");
	EQ(MPI_Allreduce(&d, &dr, 1, MPI_DOUBLE, MPI_MAXLOC, c), MPI_ERR_OP, "MPI_MAXLOC on MPI_DOUBLE");
	EQ(MPI_Bcast(x, 1, MPI_INT, size, c), MPI_ERR_ROOT, "a root beyond the communicator");
	EQ(MPI_Reduce(x, y, 1, MPI_INT, MPI_SUM, -1, c), MPI_ERR_ROOT, "a negative root");
	/* truncation: 10 ints into room for 5 (to itself) */
	for (int i = 0; i < 10; i++)
		x[i] = i;
	MPI_Request rq;
	MPI_Isend(x, 10, MPI_INT, rank, 7, c, &rq);
	MPI_Status st;
	int e = MPI_Recv(y, 5, MPI_INT, rank, 7, c, &st);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	CHECK(e == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE && y[4] == 4, "truncation is MPI_ERR_TRUNCATE");
	/* the same through the matching engine (ANY_SOURCE) */
	MPI_Isend(x, 10, MPI_INT, rank, 8, c, &rq);
	e = MPI_Recv(y, 5, MPI_INT, MPI_ANY_SOURCE, 8, c, &st);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	CHECK(e == MPI_ERR_TRUNCATE && y[4] == 4, "truncation of a wildcard receive");
	MPI_Win w;
	EQ(MPI_Win_create(x, 40, 4, MPI_INFO_NULL, c, &w), MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_create unsupported");
	EQ(MPI_Comm_set_errhandler(c, 77), MPI_ERR_ARG, "no such error handler");
	char s[MPI_MAX_ERROR_STRING];
	int len;
	MPI_Error_string(MPI_ERR_TRUNCATE, s, &len);
	CHECK(len > 0 && !strcmp(s, "message truncated"), "MPI_Error_string");
	/* calls without a communicator answer through MPI_COMM_WORLD's handler */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Datatype nt;
	EQ(MPI_Type_contiguous(2, MPI_INT, &nt), MPI_ERR_UNSUPPORTED_OPERATION, "user datatypes unsupported");
	EQ(MPI_Comm_size(MPI_COMM_NULL, &len), MPI_ERR_COMM, "MPI_COMM_NULL");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_free(&c);
}

int mosaic_main(long arg)
{
	int argc = 0;
	char **argv = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (arg == 1) {
		int x = 0;
		MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD); /* fatal: ends the job */
		printf("mpitest: rank %d: the fatal error returned\n", rank);
		return 3;
	}
	if (arg == 2) {
		MPI_Win w;
		MPI_Win_create(0, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
		printf("mpitest: rank %d: the unsupported call returned\n", rank);
		return 3;
	}
	breakit = (arg & 15) == 3;
	verbose = (arg & 16) != 0;
	bigA = malloc(BIG);
	bigB = malloc(BIG);

	if (!bigA || !bigB) {
		printf("mpitest: rank %d: no memory for the buffers\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double t0 = MPI_Wtime();
	environment();
	PHASE("pingpong");
	pingpong();
	PHASE("ring");
	ring(MPI_COMM_WORLD, "ring on MPI_COMM_WORLD");
	PHASE("matching");
	matching();
	PHASE("nonblocking");
	nonblocking();
	PHASE("reductions");
	reductions(MPI_COMM_WORLD, "world");
	PHASE("movement");
	movement(MPI_COMM_WORLD, "world");
	PHASE("communicators");
	communicators();
	PHASE("errors");
	errors();
	double t1 = MPI_Wtime();
	int f = fails, tf = 0, tc = 0;
	MPI_Reduce(&f, &tf, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&checks, &tc, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		if (tf)
			printf("mpitest: %d tasks: FAILED (%d of %d checks)\n", size, tf, tc);
		else
			printf("mpitest: %d tasks: all %d checks ok (%ld us on rank 0's clock)\n", size, tc,
			       (long)((t1 - t0) * 1e6));
	}
	MPI_Finalize();
	int fin = 0;
	MPI_Finalized(&fin);
	return fails || !fin ? 1 : 0;
}
