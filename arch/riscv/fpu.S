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
	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fmv.d.x f\r, zero
	.endr
	fscsr zero
	li t0, FS_DIRTY_TO_INITIAL
	csrc sstatus, t0
	ret

/* fpu_save(s): s->f[i] = fi, s->fcsr = fcsr; FS = Clean. */
	.globl fpu_save
fpu_save:
	li t0, SSTATUS_FS_DIRTY
	csrs sstatus, t0
	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fsd f\r, \r*8(a0)
	.endr
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
	.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	fld f\r, \r*8(a0)
	.endr
	ld t1, 32*8(a0)
	fscsr t1
	li t0, FS_DIRTY_TO_CLEAN
	csrc sstatus, t0
	ret

	.option pop
