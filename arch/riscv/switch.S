/*
 * Kernel context switch for pico-kernels that time-slice several user tasks
 * (kernel/task/share/share.c). A context is 14 words: ra, sp, s0..s11, the state a C caller
 * expects to survive a call; everything else is caller-saved or lives in the
 * trap frame on the context's own stack.
 */
	.text
/* ctx_switch(save, load): saves the caller's context in save, continues in load's.
 * Called with interrupts off; the resumed context restores its own. */
	.globl ctx_switch
ctx_switch:
	sd ra, 0*8(a0)
	sd sp, 1*8(a0)
	sd s0, 2*8(a0)
	sd s1, 3*8(a0)
	sd s2, 4*8(a0)
	sd s3, 5*8(a0)
	sd s4, 6*8(a0)
	sd s5, 7*8(a0)
	sd s6, 8*8(a0)
	sd s7, 9*8(a0)
	sd s8, 10*8(a0)
	sd s9, 11*8(a0)
	sd s10, 12*8(a0)
	sd s11, 13*8(a0)
	ld ra, 0*8(a1)
	ld sp, 1*8(a1)
	ld s0, 2*8(a1)
	ld s1, 3*8(a1)
	ld s2, 4*8(a1)
	ld s3, 5*8(a1)
	ld s4, 6*8(a1)
	ld s5, 7*8(a1)
	ld s6, 8*8(a1)
	ld s7, 9*8(a1)
	ld s8, 10*8(a1)
	ld s9, 11*8(a1)
	ld s10, 12*8(a1)
	ld s11, 13*8(a1)
	ret

/* The first instruction of a fresh context: ctx_init put the function in s1 and its
 * argument in s0. The function never returns. */
	.globl ctx_first
ctx_first:
	.cfi_startproc
	.cfi_undefined ra /* the outermost frame of this stack */
	mv a0, s0
	jalr s1
1:	j 1b
	.cfi_endproc
