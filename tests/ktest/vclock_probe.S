/*
 * Probes for the vclock ktests (tests/ktest/test_vclock.c): short instruction
 * sequences between two read markers, each returning how many instructions the
 * plugin counted from just after the first marker up to and including the second.
 * They are uncompressed (.option norvc), so the tests derive the expected count
 * from the distance between the labels below (4 bytes per instruction) instead of
 * a number written down by hand; tests/test_vclock.py checks the same counts
 * against build/mosaic.asm. The fault and ebreak probes point stvec at their own
 * second marker for the duration, and the ecall probe calls SBI directly: they
 * measure exactly what a trap and a firmware call cost, which going through
 * arch/riscv/trap.c and sbi.c would blur. Interrupts must be off (irq_save).
 */
#include "vclock/vclock_abi.h"

	.option push
	.option norvc
	.text

/* uint64_t vclock_probe_loop(volatile uint64_t *slot, uint64_t iterations > 0) */
	.balign 4
	.globl vclock_probe_loop, vclock_probe_loop_first, vclock_probe_loop_body, vclock_probe_loop_end
vclock_probe_loop:
	slti zero, zero, VCLOCK_HINT_READ
vclock_probe_loop_first:
	ld t0, 0(a0)
vclock_probe_loop_body:
	addi a1, a1, -1
	bnez a1, vclock_probe_loop_body
vclock_probe_loop_end:
	slti zero, zero, VCLOCK_HINT_READ
	ld t1, 0(a0)
	sub a0, t1, t0
	ret

/*
 * A trap in the middle of a block: uint64_t PROBE(slot, address, uint64_t *scause).
 * The instruction at NAME_insn traps (a load or store at `address`, or ebreak); the
 * trap lands on NAME_trap, the second marker. The three addi after the trapping
 * instruction share its translation block and must not be counted.
 */
.macro trap_probe name, insn
	.balign 4
	.globl \name, \name\()_first, \name\()_insn, \name\()_trap
\name:
	csrw scause, zero
	la t2, \name\()_trap
	csrrw t2, stvec, t2
	slti zero, zero, VCLOCK_HINT_READ
\name\()_first:
	ld t0, 0(a0)
	addi t3, zero, 1
	addi t3, t3, 1
\name\()_insn:
	\insn
	addi t3, t3, 1
	addi t3, t3, 1
	addi t3, t3, 1
	j \name\()_trap
	.balign 4
\name\()_trap:
	slti zero, zero, VCLOCK_HINT_READ
	ld t1, 0(a0)
	csrw stvec, t2
	csrr t3, scause
	sd t3, 0(a2)
	sub a0, t1, t0
	ret
.endm

/* The faults leave their block in the middle: their code is counted segment by segment
 * (linker.ld puts .vclock_segments outside the code the plugin may count in whole blocks). */
	.section .vclock_segments, "ax"
	trap_probe vclock_probe_load_fault, "ld t4, 0(a1)"
	trap_probe vclock_probe_store_fault, "sd zero, 0(a1)"
	.text
	trap_probe vclock_probe_ebreak, "ebreak"

/* uint64_t vclock_probe_mid(slot): the second marker in the middle of the block that the first
 * begins (no branch between them), so a block counted whole is read before its end. */
	.balign 4
	.globl vclock_probe_mid, vclock_probe_mid_first, vclock_probe_mid_end
vclock_probe_mid:
	slti zero, zero, VCLOCK_HINT_READ
vclock_probe_mid_first:
	ld t0, 0(a0)
	addi t3, zero, 1
	addi t3, t3, 1
	addi t3, t3, 1
vclock_probe_mid_end:
	slti zero, zero, VCLOCK_HINT_READ
	ld t1, 0(a0)
	sub a0, t1, t0
	ret

/* uint64_t vclock_probe_wfi(slot): one WFI; the caller decides whether it sleeps. */
	.balign 4
	.globl vclock_probe_wfi, vclock_probe_wfi_first, vclock_probe_wfi_end
vclock_probe_wfi:
	slti zero, zero, VCLOCK_HINT_READ
vclock_probe_wfi_first:
	ld t0, 0(a0)
	wfi
vclock_probe_wfi_end:
	slti zero, zero, VCLOCK_HINT_READ
	ld t1, 0(a0)
	sub a0, t1, t0
	ret

/* uint64_t vclock_probe_device(slot, byte register to load, byte register to store 0 into):
 * device accesses in the middle of a block (QEMU re-runs the rest of it under -icount). */
	.balign 4
	.globl vclock_probe_device, vclock_probe_device_first, vclock_probe_device_end
vclock_probe_device:
	slti zero, zero, VCLOCK_HINT_READ
vclock_probe_device_first:
	ld t0, 0(a0)
	lbu t4, 0(a1)
	addi t3, zero, 1
	addi t3, t3, 1
	sb zero, 0(a2)
	addi t3, t3, 1
	addi t3, t3, 1
vclock_probe_device_end:
	slti zero, zero, VCLOCK_HINT_READ
	ld t1, 0(a0)
	sub a0, t1, t0
	ret

/* uint64_t vclock_probe_ecall(slot): SBI get_spec_version (EID 0x10, FID 0), which
 * changes nothing; the firmware's instructions are the hart's too. */
	.balign 4
	.globl vclock_probe_ecall, vclock_probe_ecall_first, vclock_probe_ecall_insn
vclock_probe_ecall:
	mv t3, a0
	slti zero, zero, VCLOCK_HINT_READ
vclock_probe_ecall_first:
	ld t0, 0(t3)
	li a7, 0x10
	li a6, 0
vclock_probe_ecall_insn:
	ecall
	slti zero, zero, VCLOCK_HINT_READ
	ld t1, 0(t3)
	sub a0, t1, t0
	ret

	.option pop
