/*
 * The only kernel code that touches the FP registers (arch/riscv/fpu.h). The kernel is built
 * without F and D; these routines name them for the assembler alone. Each sets sstatus.FS to
 * Dirty first (an FP instruction traps while it is Off) and leaves it in the state its name says.
 */
#include "arch/riscv/fpu.h"
#define FS_DIRTY_TO_INITIAL (SSTATUS_FS_DIRTY ^ SSTATUS_FS_INITIAL) /* the bits to clear */
#define FS_DIRTY_TO_CLEAN (SSTATUS_FS_DIRTY ^ SSTATUS_FS_CLEAN)

	.text
	.option push
	.option arch, +d

/* fpu_zero(): f0..f31 = +0.0, fcsr = 0; FS = Initial. */
	.globl fpu_zero
fpu_zero:
	li t0, SSTATUS_FS_DIRTY
	csrs sstatus, t0
	fmv.d.x f0, zero
	fmv.d.x f1, zero
	fmv.d.x f2, zero
	fmv.d.x f3, zero
	fmv.d.x f4, zero
	fmv.d.x f5, zero
	fmv.d.x f6, zero
	fmv.d.x f7, zero
	fmv.d.x f8, zero
	fmv.d.x f9, zero
	fmv.d.x f10, zero
	fmv.d.x f11, zero
	fmv.d.x f12, zero
	fmv.d.x f13, zero
	fmv.d.x f14, zero
	fmv.d.x f15, zero
	fmv.d.x f16, zero
	fmv.d.x f17, zero
	fmv.d.x f18, zero
	fmv.d.x f19, zero
	fmv.d.x f20, zero
	fmv.d.x f21, zero
	fmv.d.x f22, zero
	fmv.d.x f23, zero
	fmv.d.x f24, zero
	fmv.d.x f25, zero
	fmv.d.x f26, zero
	fmv.d.x f27, zero
	fmv.d.x f28, zero
	fmv.d.x f29, zero
	fmv.d.x f30, zero
	fmv.d.x f31, zero
	fscsr zero
	li t0, FS_DIRTY_TO_INITIAL
	csrc sstatus, t0
	ret

/* fpu_save(s): s->f[i] = fi, s->fcsr = fcsr; FS = Clean. */
	.globl fpu_save
fpu_save:
	li t0, SSTATUS_FS_DIRTY
	csrs sstatus, t0
	fsd f0, 0*8(a0)
	fsd f1, 1*8(a0)
	fsd f2, 2*8(a0)
	fsd f3, 3*8(a0)
	fsd f4, 4*8(a0)
	fsd f5, 5*8(a0)
	fsd f6, 6*8(a0)
	fsd f7, 7*8(a0)
	fsd f8, 8*8(a0)
	fsd f9, 9*8(a0)
	fsd f10, 10*8(a0)
	fsd f11, 11*8(a0)
	fsd f12, 12*8(a0)
	fsd f13, 13*8(a0)
	fsd f14, 14*8(a0)
	fsd f15, 15*8(a0)
	fsd f16, 16*8(a0)
	fsd f17, 17*8(a0)
	fsd f18, 18*8(a0)
	fsd f19, 19*8(a0)
	fsd f20, 20*8(a0)
	fsd f21, 21*8(a0)
	fsd f22, 22*8(a0)
	fsd f23, 23*8(a0)
	fsd f24, 24*8(a0)
	fsd f25, 25*8(a0)
	fsd f26, 26*8(a0)
	fsd f27, 27*8(a0)
	fsd f28, 28*8(a0)
	fsd f29, 29*8(a0)
	fsd f30, 30*8(a0)
	fsd f31, 31*8(a0)
	frcsr t1
	sd t1, 32*8(a0)
	li t0, FS_DIRTY_TO_CLEAN
	csrc sstatus, t0
	ret

/* fpu_load(s): fi = s->f[i], fcsr = s->fcsr; FS = Clean. */
	.globl fpu_load
fpu_load:
	li t0, SSTATUS_FS_DIRTY
	csrs sstatus, t0
	fld f0, 0*8(a0)
	fld f1, 1*8(a0)
	fld f2, 2*8(a0)
	fld f3, 3*8(a0)
	fld f4, 4*8(a0)
	fld f5, 5*8(a0)
	fld f6, 6*8(a0)
	fld f7, 7*8(a0)
	fld f8, 8*8(a0)
	fld f9, 9*8(a0)
	fld f10, 10*8(a0)
	fld f11, 11*8(a0)
	fld f12, 12*8(a0)
	fld f13, 13*8(a0)
	fld f14, 14*8(a0)
	fld f15, 15*8(a0)
	fld f16, 16*8(a0)
	fld f17, 17*8(a0)
	fld f18, 18*8(a0)
	fld f19, 19*8(a0)
	fld f20, 20*8(a0)
	fld f21, 21*8(a0)
	fld f22, 22*8(a0)
	fld f23, 23*8(a0)
	fld f24, 24*8(a0)
	fld f25, 25*8(a0)
	fld f26, 26*8(a0)
	fld f27, 27*8(a0)
	fld f28, 28*8(a0)
	fld f29, 29*8(a0)
	fld f30, 30*8(a0)
	fld f31, 31*8(a0)
	ld t1, 32*8(a0)
	fscsr t1
	li t0, FS_DIRTY_TO_CLEAN
	csrc sstatus, t0
	ret

	.option pop
