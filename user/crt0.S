/* Entry of every user program: the kernel sets sp and a0 (the argument); mosaic_main's result is the exit code. */
	.section .text.start, "ax"
	.globl _start
_start:
	.option push
	.option norelax
	la gp, __global_pointer$
	.option pop
	call mosaic_main
	call _exit /* flushes stdout, then KC_EXIT */
1:	j 1b
