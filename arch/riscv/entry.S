/*
 * Entry points that C cannot write: the boot hart's first instructions, the
 * secondary harts' start address given to SBI HSM, and the trap vector.
 */
#define FRAME_SIZE (36 * 8)

	.section .text.entry, "ax"
	.globl _start
_start:
	.cfi_startproc
	.cfi_undefined ra /* the outermost frame: debuggers stop unwinding here */
	/* OpenSBI fw_dynamic: a0 = hart id (any hart can win the lottery), a1 = device tree */
	csrw sie, zero
	li tp, 0
	la sp, boot_stack_top
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sd zero, 0(t0)
	addi t0, t0, 8
	j 1b
2:	li s0, 0
	call kmain
3:	wfi
	j 3b
	.cfi_endproc

	.text
	.globl secondary_entry
secondary_entry:
	.cfi_startproc
	.cfi_undefined ra
	/* SBI hart_start: a0 = hart id, a1 = opaque = this hart's struct hart (kstack_top first) */
	csrw sie, zero
	mv tp, a1
	ld sp, 0(a1)
	li s0, 0
	mv a0, a1
	call hart_secondary_main
1:	wfi
	j 1b
	.cfi_endproc

	.align 4
	.globl trap_vector
trap_vector:
	addi sp, sp, -FRAME_SIZE
	sd x1, 1*8(sp)
	sd x3, 3*8(sp)
	sd x4, 4*8(sp)
	sd x5, 5*8(sp)
	sd x6, 6*8(sp)
	sd x7, 7*8(sp)
	sd x8, 8*8(sp)
	sd x9, 9*8(sp)
	sd x10, 10*8(sp)
	sd x11, 11*8(sp)
	sd x12, 12*8(sp)
	sd x13, 13*8(sp)
	sd x14, 14*8(sp)
	sd x15, 15*8(sp)
	sd x16, 16*8(sp)
	sd x17, 17*8(sp)
	sd x18, 18*8(sp)
	sd x19, 19*8(sp)
	sd x20, 20*8(sp)
	sd x21, 21*8(sp)
	sd x22, 22*8(sp)
	sd x23, 23*8(sp)
	sd x24, 24*8(sp)
	sd x25, 25*8(sp)
	sd x26, 26*8(sp)
	sd x27, 27*8(sp)
	sd x28, 28*8(sp)
	sd x29, 29*8(sp)
	sd x30, 30*8(sp)
	sd x31, 31*8(sp)
	addi t0, sp, FRAME_SIZE
	sd t0, 2*8(sp)
	csrr t0, sepc
	sd t0, 32*8(sp)
	csrr t0, sstatus
	sd t0, 33*8(sp)
	csrr t0, scause
	sd t0, 34*8(sp)
	csrr t0, stval
	sd t0, 35*8(sp)
	mv a0, sp
	call trap_handler
	ld t0, 32*8(sp)
	csrw sepc, t0
	ld t0, 33*8(sp)
	csrw sstatus, t0
	ld x1, 1*8(sp)
	ld x3, 3*8(sp)
	ld x4, 4*8(sp)
	ld x5, 5*8(sp)
	ld x6, 6*8(sp)
	ld x7, 7*8(sp)
	ld x8, 8*8(sp)
	ld x9, 9*8(sp)
	ld x10, 10*8(sp)
	ld x11, 11*8(sp)
	ld x12, 12*8(sp)
	ld x13, 13*8(sp)
	ld x14, 14*8(sp)
	ld x15, 15*8(sp)
	ld x16, 16*8(sp)
	ld x17, 17*8(sp)
	ld x18, 18*8(sp)
	ld x19, 19*8(sp)
	ld x20, 20*8(sp)
	ld x21, 21*8(sp)
	ld x22, 22*8(sp)
	ld x23, 23*8(sp)
	ld x24, 24*8(sp)
	ld x25, 25*8(sp)
	ld x26, 26*8(sp)
	ld x27, 27*8(sp)
	ld x28, 28*8(sp)
	ld x29, 29*8(sp)
	ld x30, 30*8(sp)
	ld x31, 31*8(sp)
	addi sp, sp, FRAME_SIZE
	sret

	.section .bss
	.align 12
	.globl boot_stack, boot_stack_top
boot_stack:
	.space 4096 * 4
boot_stack_top:
