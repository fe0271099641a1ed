/* Entry of every user program: the kernel sets sp, a0 (the integer argument), a1, and a2..a4
 * (argc, argv, envp: on the stack, kernel/task/utask.c). With a1 = 0 the task is a program:
 * mosaic_start (user/runtime.c) runs its main and exits with the result; otherwise it is a team
 * member (invasive computing) and a1 is its function, whose result is the exit code. */
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
1:	call mosaic_start /* does not return */
2:	j 2b
