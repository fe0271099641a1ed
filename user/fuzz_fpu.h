/*
 * fuzz: every random call is made with f0..f31 and fcsr full of a pattern of the call's own, and
 * they must come back as they went in (a kernel call, an interrupt, a time slice or a move of an
 * oversubscribed task to another core keeps a task's FP state; docs/programs.md, "The FPU").
 */
#ifndef MOSAIC_FUZZ_FPU_H
#define MOSAIC_FUZZ_FPU_H

#include <stdint.h>

#define FUZZ_NFP 33 /* f0..f31, then fcsr */

/*
 * fuzz_fp_ecall(nr, a, in, out): loads f0..f31 from in[0..31] and fcsr from in[32], makes kernel
 * call nr with the six arguments a[0..5], stores f0..f31 and fcsr into out and returns the call's
 * result. Assembly, so that no compiled code runs between the load and the store.
 */
long fuzz_fp_ecall(uint64_t nr, const uint64_t *a, const uint64_t *in, uint64_t *out);
__asm__(".text\n"
	".globl fuzz_fp_ecall\n"
	"fuzz_fp_ecall:\n"
	"	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fld f\\r, \\r*8(a2)\n"
	"	.endr\n"
	"	ld t0, 256(a2)\n"
	"	fscsr t0\n"
	"	mv t2, a3\n"
	"	mv a7, a0\n"
	"	ld a0, 0(a1)\n"
	"	ld a2, 16(a1)\n"
	"	ld a3, 24(a1)\n"
	"	ld a4, 32(a1)\n"
	"	ld a5, 40(a1)\n"
	"	ld a1, 8(a1)\n"
	"	ecall\n"
	"	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"	fsd f\\r, \\r*8(t2)\n"
	"	.endr\n"
	"	frcsr t0\n"
	"	sd t0, 256(t2)\n"
	"	ret\n");

/* Call n's pattern for a task whose stream starts at rng0: 32 words and an fcsr (a rounding mode
 * 0..4 and flags), different for every call and task. */
static void fuzz_fp_pattern(uint64_t rng0, uint64_t n, uint64_t p[FUZZ_NFP])
{
	uint64_t x = rng0 ^ (n + 1) * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 32; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdULL;
		x ^= x >> 29;
		p[i] = x;
	}
	p[32] = (n % 5) << 5 | (x & 0x1f);
}

/* The first FP register (0..31, 32 for fcsr) that differs, or -1. */
static int fuzz_fp_changed(const uint64_t *in, const uint64_t *out)
{
	for (int i = 0; i < FUZZ_NFP; i++)
		if (in[i] != out[i])
			return i;
	return -1;
}

#endif
