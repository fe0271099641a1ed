/*
 * Entry points that C cannot write: the boot hart's first instructions, the
 * secondary harts' start address given to SBI HSM, and the trap vector.
 */
#include "kernel/core/config.h"
#include "arch/riscv/fpu.h"

#define FRAME_SIZE (36 * 8)

	.section .text.entry, "ax"
	.globl _start
_start:
	.cfi_startproc
	.cfi_undefined ra /* the outermost frame: debuggers stop unwinding here */
	/* OpenSBI fw_dynamic: a0 = hart id (any hart can win the lottery), a1 = device tree */
	csrw sie, zero
	/* OpenSBI 1.1 can release a second hart here (rarely, with many harts), which would
	 * zero the BSS under the boot hart. The first hart claims the boot; any other waits
	 * in stray_hart before touching memory (boot_claim lives in .data, not in the BSS). */
	la t0, boot_claim
	li t1, 1
	amoswap.w.aqrl t1, t1, (t0)
	bnez t1, stray_hart
	/* The kernel is compiled for the ISA extensions of the Makefile's KERNEL_ISA_EXTS, which
	 * QEMU 7.2's virt harts have (riscv,isa "..._zba_zbb_zbc_zbs_sstc"). On a hart without
	 * one, C code would stop at an illegal instruction somewhere; probe each here instead,
	 * with a trap vector that says so. One probe per extension of that list, and one for D. */
	csrr t2, stvec
	la t0, isa_probe_failed
	csrw stvec, t0
	sh1add zero, zero, zero /* Zba */
	andn zero, zero, zero   /* Zbb */
	bset zero, zero, zero   /* Zbs */
	/* user programs are built rv64gc (F and D), and every task's start zeroes its FP registers
	 * (arch/riscv/fpu.S): a hart without D would fault there, in S-mode */
	li t0, SSTATUS_FS_DIRTY
	csrs sstatus, t0
	.option push
	.option arch, +d
	fmv.d.x f0, zero        /* D (and F) */
	.option pop
	csrc sstatus, t0
	csrw stvec, t2
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

/*
 * The boot hart lacks an extension the kernel is compiled for: it says so on the SBI
 * console (the legacy putchar, before the UART is known) and powers the machine off.
 */
	.align 2 /* a trap vector: stvec's low two bits are its mode */
isa_probe_failed:
	la t0, isa_probe_message
1:	lbu a0, 0(t0)
	beqz a0, 2f
	li a7, 1 /* legacy console_putchar */
	ecall
	addi t0, t0, 1
	j 1b
2:	li a7, 0x53525354 /* SRST */
	li a6, 0
	li a0, 0 /* shutdown */
	li a1, 1 /* system failure */
	ecall
3:	wfi
	j 3b

	.section .rodata
isa_probe_message:
	.asciz "mosaic: this hart lacks an ISA extension the kernel is compiled for (Makefile KERNEL_ISA_EXTS: zba zbb zbs) or that user programs are built for (F and D, rv64gc); boot QEMU's virt machine with its default CPU\n"

	.section .text.entry, "ax"
/*
 * A hart the firmware released into _start after the boot hart: it checks in at
 * boot_strays[hart id] (1) and spins until the boot hart, whose hart_start for it
 * failed as "already available", stores its struct hart there (kernel/core/smp.c); then
 * it starts like any secondary. No WFI: its interrupts are not set up yet.
 */
stray_hart:
	li t0, MOSAIC_MAX_HARTS
	bgeu a0, t0, 2f
	la t0, boot_strays
	slli t1, a0, 3
	add t0, t0, t1
	li t1, 1
	sd t1, 0(t0)
	fence rw, rw
1:	ld a1, 0(t0)
	beq a1, t1, 1b
	fence r, rw
	j secondary_entry
2:	wfi /* a hart id beyond Mosaic's limit: it never runs */
	j 2b

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

/*
 * The trap vector of every hart. sscratch is 0 while the hart is in the kernel
 * and holds the top of the task's trap stack while a user task runs (set by
 * trap_return when it returns to U-mode); the word at that top holds the hart's
 * struct hart, which the kernel keeps in tp.
 */
	.align 4
	.globl trap_vector
trap_vector:
	csrrw sp, sscratch, sp
	bnez sp, 1f                 /* from U-mode: sp is the trap stack */
	csrrw sp, sscratch, sp      /* from S-mode: back to the kernel stack, sscratch = 0 */
1:	addi sp, sp, -FRAME_SIZE
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
	csrr t0, sscratch           /* the user's sp, or 0 from S-mode */
	bnez t0, 2f
	addi t0, sp, FRAME_SIZE
	j 3f
2:	ld tp, FRAME_SIZE(sp)       /* from U-mode: the kernel's tp */
3:	sd t0, 2*8(sp)
	csrw sscratch, zero
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

/* Returns from the frame at sp: to S-mode, or to U-mode with sscratch set to the trap stack. */
	.globl trap_return
trap_return:
	ld t0, 33*8(sp)
	csrw sstatus, t0
	andi t0, t0, 0x100          /* SPP */
	bnez t0, 4f
	addi t1, sp, FRAME_SIZE
	csrw sscratch, t1
4:	ld t0, 32*8(sp)
	csrw sepc, t0
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
	ld x2, 2*8(sp)
	sret

/*
 * uctx_enter(frame, kctx): saves the kernel's callee-saved state in kctx, builds
 * the trap stack just below the current stack (its top word holds tp), copies the
 * task's initial frame there and returns to U-mode through trap_return. The task
 * comes back only through uctx_leave(kctx, value), which makes uctx_enter return value.
 */
	.globl uctx_enter
uctx_enter:
	/* interrupts off until the sret: an interrupt taken on the kernel stack here would build
	 * its frame over the trap stack's top word and leave its scause there as the hart's tp
	 * (a 12x9 benchmark boot crashed so: tp = 0x8000000000000001 at the task's first trap).
	 * trap_return's sstatus (SPIE set) turns them back on in U-mode; uctx_leave's caller
	 * enables them again in the kernel. */
	csrci sstatus, 2
	sd ra, 0*8(a1)
	sd sp, 1*8(a1)
	sd s0, 2*8(a1)
	sd s1, 3*8(a1)
	sd s2, 4*8(a1)
	sd s3, 5*8(a1)
	sd s4, 6*8(a1)
	sd s5, 7*8(a1)
	sd s6, 8*8(a1)
	sd s7, 9*8(a1)
	sd s8, 10*8(a1)
	sd s9, 11*8(a1)
	sd s10, 12*8(a1)
	sd s11, 13*8(a1)
	addi t0, sp, -16
	andi t0, t0, -16
	sd tp, 0(t0)
	addi sp, t0, -FRAME_SIZE
	li t1, 0
5:	add t2, a0, t1
	ld t3, 0(t2)
	add t2, sp, t1
	sd t3, 0(t2)
	addi t1, t1, 8
	li t2, FRAME_SIZE
	blt t1, t2, 5b
	j trap_return

	.globl uctx_leave
uctx_leave:
	csrw sscratch, zero
	ld ra, 0*8(a0)
	ld sp, 1*8(a0)
	ld s0, 2*8(a0)
	ld s1, 3*8(a0)
	ld s2, 4*8(a0)
	ld s3, 5*8(a0)
	ld s4, 6*8(a0)
	ld s5, 7*8(a0)
	ld s6, 8*8(a0)
	ld s7, 9*8(a0)
	ld s8, 10*8(a0)
	ld s9, 11*8(a0)
	ld s10, 12*8(a0)
	ld s11, 13*8(a0)
	mv a0, a1
	ret

/*
 * call_on_stack(stack_top, fn, arg): runs fn(arg) on another stack and comes back
 * to the caller's (kernel/task/kthread.c). s0 keeps the caller's sp across the call.
 */
	.globl call_on_stack
call_on_stack:
	addi sp, sp, -16
	sd ra, 8(sp)
	sd s0, 0(sp)
	mv s0, sp
	mv sp, a0
	mv t0, a1
	mv a0, a2
	jalr t0
	mv sp, s0
	ld ra, 8(sp)
	ld s0, 0(sp)
	addi sp, sp, 16
	ret

	.section .bss
	.align 12
	.globl boot_stack, boot_stack_top
boot_stack:
	.space 4096 * 4
boot_stack_top:
