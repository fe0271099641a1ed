/*
 * MPI's predefined reductions (docs/mpi.md, "Reductions"): which operation applies to which
 * datatype (MPI-3.1 5.9.2), the combination in user mode, and the exact mapping of the integer
 * and ordering operations onto the kernel's int64 sum, min and max.
 */
#include <string.h>
#include "mpi_impl.h"

static const char *const op_name[MOSAIC_MPI_NOPS] = {
	"MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
	"MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP",
};

#define B(o) (1u << (o))
#define ARITH_OPS (B(MPI_SUM) | B(MPI_PROD) | B(MPI_MIN) | B(MPI_MAX))
#define LOGIC_OPS (B(MPI_LAND) | B(MPI_LOR) | B(MPI_LXOR))
#define BIT_OPS (B(MPI_BAND) | B(MPI_BOR) | B(MPI_BXOR))

static unsigned ops_of(MPI_Datatype t)
{
	switch (mpi_types[t].kind) {
	case K_INT:
		return ARITH_OPS | LOGIC_OPS | BIT_OPS;
	case K_FLOAT:
		return ARITH_OPS;
	case K_BOOL:
		return LOGIC_OPS;
	case K_BYTE:
		return t == MPI_BYTE ? BIT_OPS : 0;
	case K_PAIR:
		return B(MPI_MAXLOC) | B(MPI_MINLOC);
	default:
		return 0;
	}
}

int mpi_op_check(MPI_Op op, MPI_Datatype type)
{
	return op > MPI_OP_NULL && op < MOSAIC_MPI_NOPS && (ops_of(type) & B(op)) ? MPI_SUCCESS : MPI_ERR_OP;
}

const char *mpi_op_name(MPI_Op op) { return op >= 0 && op < MOSAIC_MPI_NOPS ? op_name[op] : "an unknown operation"; }

/* a[i] = a[i] op b[i]; integer sums and products in the unsigned type (they wrap, never trap) */
#define INT_OP(name, T, U)                                                                                             \
	static void name(MPI_Op op, T *a, const T *b, size_t n)                                                        \
	{                                                                                                              \
		for (size_t i = 0; i < n; i++)                                                                         \
			switch (op) {                                                                                  \
			case MPI_SUM: a[i] = (T)((U)a[i] + (U)b[i]); break;                                            \
			case MPI_PROD: a[i] = (T)((U)a[i] * (U)b[i]); break;                                           \
			case MPI_MIN: a[i] = b[i] < a[i] ? b[i] : a[i]; break;                                         \
			case MPI_MAX: a[i] = b[i] > a[i] ? b[i] : a[i]; break;                                         \
			case MPI_LAND: a[i] = (T)(a[i] && b[i]); break;                                                \
			case MPI_LOR: a[i] = (T)(a[i] || b[i]); break;                                                 \
			case MPI_LXOR: a[i] = (T)(!a[i] != !b[i]); break;                                              \
			case MPI_BAND: a[i] = (T)(a[i] & b[i]); break;                                                 \
			case MPI_BOR: a[i] = (T)(a[i] | b[i]); break;                                                  \
			case MPI_BXOR: a[i] = (T)(a[i] ^ b[i]); break;                                                 \
			}                                                                                              \
	}
INT_OP(op_i8, int8_t, uint8_t)
INT_OP(op_u8, uint8_t, uint8_t)
INT_OP(op_i16, int16_t, uint16_t)
INT_OP(op_u16, uint16_t, uint16_t)
INT_OP(op_i32, int32_t, uint32_t)
INT_OP(op_u32, uint32_t, uint32_t)
INT_OP(op_i64, int64_t, uint64_t)
INT_OP(op_u64, uint64_t, uint64_t)

#define FLOAT_OP(name, T)                                                                                              \
	static void name(MPI_Op op, T *a, const T *b, size_t n)                                                        \
	{                                                                                                              \
		for (size_t i = 0; i < n; i++)                                                                         \
			switch (op) {                                                                                  \
			case MPI_SUM: a[i] = a[i] + b[i]; break;                                                       \
			case MPI_PROD: a[i] = a[i] * b[i]; break;                                                      \
			case MPI_MIN: a[i] = b[i] < a[i] ? b[i] : a[i]; break;                                         \
			case MPI_MAX: a[i] = b[i] > a[i] ? b[i] : a[i]; break;                                         \
			}                                                                                              \
	}
FLOAT_OP(op_f, float)
FLOAT_OP(op_d, double)
FLOAT_OP(op_ld, long double)

static void op_bool(MPI_Op op, _Bool *a, const _Bool *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = op == MPI_LAND ? a[i] && b[i] : op == MPI_LOR ? a[i] || b[i] : a[i] != b[i];
}

/* MAXLOC and MINLOC (MPI-3.1 5.9.4): the extreme value; on a tie, the smaller index */
#define PAIR_OP(name, V)                                                                                               \
	static void name(MPI_Op op, void *av, const void *bv, size_t n)                                                \
	{                                                                                                              \
		struct p { V v; int i; } *a = av;                                                                      \
		const struct p *b = bv;                                                                                \
		for (size_t k = 0; k < n; k++) {                                                                       \
			int better = op == MPI_MAXLOC ? b[k].v > a[k].v : b[k].v < a[k].v;                             \
			if (better || (b[k].v == a[k].v && b[k].i < a[k].i))                                           \
				a[k] = b[k];                                                                           \
		}                                                                                                      \
	}
PAIR_OP(op_fi, float)
PAIR_OP(op_di, double)
PAIR_OP(op_li, long)
PAIR_OP(op_ii, int)
PAIR_OP(op_si, short)
PAIR_OP(op_ldi, long double)

void mpi_op_apply(MPI_Op op, MPI_Datatype t, void *acc, const void *in, size_t n)
{
	const struct mpi_type *d = &mpi_types[t];
	switch (d->kind) {
	case K_INT:
	case K_BYTE:
		switch (d->size) {
		case 1: d->sign ? op_i8(op, acc, in, n) : op_u8(op, acc, in, n); break;
		case 2: d->sign ? op_i16(op, acc, in, n) : op_u16(op, acc, in, n); break;
		case 4: d->sign ? op_i32(op, acc, in, n) : op_u32(op, acc, in, n); break;
		default: d->sign ? op_i64(op, acc, in, n) : op_u64(op, acc, in, n); break;
		}
		return;
	case K_BOOL:
		op_bool(op, acc, in, n);
		return;
	case K_FLOAT:
		if (t == MPI_FLOAT)
			op_f(op, acc, in, n);
		else if (t == MPI_DOUBLE)
			op_d(op, acc, in, n);
		else
			op_ld(op, acc, in, n);
		return;
	case K_PAIR:
		switch (t) {
		case MPI_FLOAT_INT: op_fi(op, acc, in, n); break;
		case MPI_DOUBLE_INT: op_di(op, acc, in, n); break;
		case MPI_LONG_INT: op_li(op, acc, in, n); break;
		case MPI_2INT: op_ii(op, acc, in, n); break;
		case MPI_SHORT_INT: op_si(op, acc, in, n); break;
		default: op_ldi(op, acc, in, n); break;
		}
		return;
	}
}

/*
 * The kernel reduces int64 vectors with sum, min and max. These give an MPI operation exactly:
 * - integer MPI_SUM: every integer sign- or zero-extended; the int64 sum, cut back to the type,
 *   is the type's wrapping sum whatever the order;
 * - integer MPI_MIN/MPI_MAX: the extension keeps the order (a uint64 has its top bit flipped,
 *   which maps its order onto int64's);
 * - MPI_LAND/MPI_LOR (integers and C_BOOL): the min/max of the values made 0 or 1;
 * - float and double MPI_MIN/MPI_MAX: the IEEE bits as a signed integer, the magnitude bits of
 *   a negative flipped, ordered as the values are (-0 below +0; NaN is not ordered by MPI).
 * Everything else (products, bitwise operations, floating-point sums, long double, the pairs)
 * is combined in user mode.
 */
int mpi_op_kernel(MPI_Op op, MPI_Datatype t)
{
	const struct mpi_type *d = &mpi_types[t];
	if (d->kind == K_INT) {
		if (op == MPI_SUM)
			return MOSAIC_OP_SUM;
		if (op == MPI_MIN || op == MPI_LAND)
			return MOSAIC_OP_MIN;
		if (op == MPI_MAX || op == MPI_LOR)
			return MOSAIC_OP_MAX;
	} else if (d->kind == K_BOOL) {
		if (op == MPI_LAND)
			return MOSAIC_OP_MIN;
		if (op == MPI_LOR)
			return MOSAIC_OP_MAX;
	} else if (d->kind == K_FLOAT && t != MPI_LONG_DOUBLE) {
		if (op == MPI_MIN)
			return MOSAIC_OP_MIN;
		if (op == MPI_MAX)
			return MOSAIC_OP_MAX;
	}
	return 0;
}

static int64_t load(const struct mpi_type *d, const unsigned char *p)
{
	switch (d->size) {
	case 1: { uint8_t v; memcpy(&v, p, 1); return d->sign ? (int64_t)(int8_t)v : (int64_t)v; }
	case 2: { uint16_t v; memcpy(&v, p, 2); return d->sign ? (int64_t)(int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return d->sign ? (int64_t)(int32_t)v : (int64_t)v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

static void store(const struct mpi_type *d, unsigned char *p, int64_t v)
{
	uint8_t b1 = (uint8_t)v;
	uint16_t b2 = (uint16_t)v;
	uint32_t b4 = (uint32_t)v;
	switch (d->size) {
	case 1: memcpy(p, &b1, 1); break;
	case 2: memcpy(p, &b2, 2); break;
	case 4: memcpy(p, &b4, 4); break;
	default: memcpy(p, &v, 8); break;
	}
}

#define FLIP64 ((int64_t)0x7fffffffffffffffLL)
#define TOP64 ((uint64_t)1 << 63)

void mpi_to_k(MPI_Op op, MPI_Datatype t, const void *in, int64_t *out, size_t n)
{
	const struct mpi_type *d = &mpi_types[t];
	const unsigned char *p = in;
	int logic = op == MPI_LAND || op == MPI_LOR;
	for (size_t i = 0; i < n; i++, p += d->extent) {
		int64_t v;
		if (d->kind == K_FLOAT) {
			if (d->size == 4) {
				int32_t b;
				memcpy(&b, p, 4);
				v = b < 0 ? (int64_t)(b ^ 0x7fffffff) : b;
			} else {
				memcpy(&v, p, 8);
				v = v < 0 ? v ^ FLIP64 : v;
			}
		} else {
			v = load(d, p);
			if (logic)
				v = v != 0;
			else if (d->size == 8 && !d->sign && op != MPI_SUM)
				v = (int64_t)((uint64_t)v ^ TOP64);
		}
		out[i] = v;
	}
}

void mpi_from_k(MPI_Op op, MPI_Datatype t, const int64_t *in, void *out, size_t n)
{
	const struct mpi_type *d = &mpi_types[t];
	unsigned char *p = out;
	for (size_t i = 0; i < n; i++, p += d->extent) {
		int64_t v = in[i];
		if (d->kind == K_FLOAT) {
			if (d->size == 4) {
				int32_t b = (int32_t)v;
				b = b < 0 ? b ^ 0x7fffffff : b;
				memcpy(p, &b, 4);
			} else {
				v = v < 0 ? v ^ FLIP64 : v;
				memcpy(p, &v, 8);
			}
			continue;
		}
		if (d->size == 8 && !d->sign && op != MPI_SUM && op != MPI_LAND && op != MPI_LOR)
			v = (int64_t)((uint64_t)v ^ TOP64);
		store(d, p, v);
	}
}
