/* Entry of every user program: the kernel sets sp, a0 (the argument) and a1. With a1 = 0
 * the task is a program and mosaic_main's result is its exit code; otherwise it is a
 * team member (invasive computing) and a1 is its function, whose result is the exit code. */
	.section .text.start, "ax"
	.globl _start
_start:
	.option push
	.option norelax
	la gp, __global_pointer$
	.option pop
	beqz a1, 1f
	jalr a1          /* a team member: int fn(long arg) */
	call _exit
1:	call mosaic_main
	call _exit /* flushes stdout, then KC_EXIT */
2:	j 2b
