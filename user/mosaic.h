/*
 * The user side of Mosaic's kernel calls (each declared once in portable/abi/kcalls.h; the
 * table is docs/reference.md). Each call returns a value >= 0 or a negative error
 * number (the kernel's errno values: -14 bad address, -38 not implemented, ...).
 */
#ifndef MOSAIC_USER_H
#define MOSAIC_USER_H

#include <stdint.h>
#include <stddef.h>
#include "../portable/abi/types.h" /* mosaic_status, mosaic_job_report, mosaic_member_result */

/* KC_<NAME>: every call's number */
enum {
#define KCALL(NAME, name, nr, side, share, args, does, checks) KC_##NAME = nr,
#include "../portable/abi/kcalls.h"
#undef KCALL
};

#define MOSAIC_OP_SUM 1
#define MOSAIC_OP_MIN 2
#define MOSAIC_OP_MAX 3

/* MOSAIC_E<NAME>: every error a call returns, negated (portable/abi/errors.h) */
enum {
#define KERROR(NAME, nr, text) MOSAIC_##NAME = -(nr),
#include "../portable/abi/errors.h"
#undef KERROR
};
#define MOSAIC_ANY (-1)


static inline long mosaic_call(long nr, long a0, long a1, long a2, long a3, long a4)
{
	register long r0 __asm__("a0") = a0;
	register long r1 __asm__("a1") = a1;
	register long r2 __asm__("a2") = a2;
	register long r3 __asm__("a3") = a3;
	register long r4 __asm__("a4") = a4;
	register long r7 __asm__("a7") = nr;
	__asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r7) : "memory");
	return r0;
}

/* The same with a sixth argument (job_spawn's mode). */
static inline long mosaic_call6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long r0 __asm__("a0") = a0;
	register long r1 __asm__("a1") = a1;
	register long r2 __asm__("a2") = a2;
	register long r3 __asm__("a3") = a3;
	register long r4 __asm__("a4") = a4;
	register long r5 __asm__("a5") = a5;
	register long r7 __asm__("a7") = nr;
	__asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r7) : "memory");
	return r0;
}

static inline void mosaic_exit(int code) { mosaic_call(KC_EXIT, code, 0, 0, 0, 0); for (;;) ; }
static inline long mosaic_write(const void *buf, size_t len) { return mosaic_call(KC_WRITE, (long)buf, (long)len, 0, 0, 0); }
static inline long mosaic_core_id(void) { return mosaic_call(KC_CORE_ID, 0, 0, 0, 0, 0); }
static inline long mosaic_domain_id(void) { return mosaic_call(KC_DOMAIN_ID, 0, 0, 0, 0, 0); }
static inline long mosaic_job_id(void) { return mosaic_call(KC_JOB_ID, 0, 0, 0, 0, 0); }
static inline long mosaic_rank(void) { return mosaic_call(KC_RANK, 0, 0, 0, 0, 0); }
static inline long mosaic_time_ns(void) { return mosaic_call(KC_TIME_NS, 0, 0, 0, 0, 0); }
static inline long mosaic_sleep_us(long us) { return mosaic_call(KC_SLEEP_US, us, 0, 0, 0, 0); }
static inline long mosaic_heap_grow(long bytes) { return mosaic_call(KC_HEAP_GROW, bytes, 0, 0, 0, 0); }
/* Kills the task on `core`, which must run in the caller's session (a task of its own
 * job, a member of its team): 0, or MOSAIC_EPERM / MOSAIC_ESRCH / MOSAIC_EINVAL. */
static inline long mosaic_kill(long core) { return mosaic_call(KC_KILL, core, 0, 0, 0, 0); }
static inline long mosaic_send(int dst, int tag, const void *buf, size_t len)
{
	return mosaic_call(KC_SEND, dst, tag, (long)buf, (long)len, 0);
}
static inline long mosaic_trysend(int dst, int tag, const void *buf, size_t len)
{
	return mosaic_call(KC_TRYSEND, dst, tag, (long)buf, (long)len, 0);
}
static inline long mosaic_recv(int src, int tag, void *buf, size_t cap, struct mosaic_status *st)
{
	return mosaic_call(KC_RECV, src, tag, (long)buf, (long)cap, (long)st);
}
static inline long mosaic_tryrecv(int src, int tag, void *buf, size_t cap, struct mosaic_status *st)
{
	return mosaic_call(KC_TRYRECV, src, tag, (long)buf, (long)cap, (long)st);
}
static inline long mosaic_probe(int src, int tag, int block, struct mosaic_status *st)
{
	return mosaic_call(KC_PROBE, src, tag, block, (long)st, 0);
}

/* Non-blocking sends and receives return a request handle (0..15) for test and wait. */
static inline long mosaic_isend(int dst, int tag, const void *buf, size_t len)
{
	return mosaic_call(KC_ISEND, dst, tag, (long)buf, (long)len, 0);
}
static inline long mosaic_irecv(int src, int tag, void *buf, size_t cap)
{
	return mosaic_call(KC_IRECV, src, tag, (long)buf, (long)cap, 0);
}
/* 1 and the status when the request finished (the handle is then closed), 0 if not yet. */
static inline long mosaic_test(long req, struct mosaic_status *st) { return mosaic_call(KC_TEST, req, (long)st, 0, 0, 0); }
static inline long mosaic_wait(long req, struct mosaic_status *st) { return mosaic_call(KC_WAIT, req, (long)st, 0, 0, 0); }
static inline long mosaic_xsend(int dst, int tag, const void *buf, size_t len)
{
	return mosaic_call(KC_XSEND, dst, tag, (long)buf, (long)len, 0);
}

/* Groups: an ordered list of core ids; the handle (0..3) names the group in collectives.
 *
 * A collective's group argument is the handle | how: a synchronisation mode and an algorithm
 * (docs/collectives.md). The handle alone is strict with the tuned algorithm.
 * - MOSAIC_STRICT: data moves only after every member has arrived, and is done everywhere
 *   before the first member returns. After the call, every member's part is complete.
 * - MOSAIC_LOOSE: data moves as soon as a member arrives; a member returns as soon as its
 *   own part is done, possibly before another member has even called. After the call this
 *   task's output is final and its input may be reused; nothing is known of the others.
 * Every member must pass the same how (and root, sizes); a mismatch fails or never ends.
 * A barrier is its own synchronisation: both modes give the same barrier. */
#define MOSAIC_STRICT 0L
#define MOSAIC_LOOSE (1L << 8)
#define MOSAIC_ALGO(a) ((long)(a) << 12)
enum mosaic_algo {
	MOSAIC_ALGO_AUTO,      /* the tuned table's choice for the group's size and the block size */
	MOSAIC_ALGO_TREE,      /* the mesh tree rooted at the group's centre */
	MOSAIC_ALGO_FLAT,      /* the root talks to every member directly */
	MOSAIC_ALGO_BINOMIAL,  /* a binomial tree over the ranks */
	MOSAIC_ALGO_RING,      /* n - 1 steps around the ranks */
	MOSAIC_ALGO_RECURSIVE, /* recursive doubling (allreduce), dissemination (barrier) */
	MOSAIC_ALGO_PAIRWISE,  /* n - 1 rounds of one exchange each */
};
/* The algorithms each collective has (bit a: MOSAIC_ALGO(a) is accepted; any other is -22). */
#define MOSAIC_ALGOS_OF(a, b, c) ((1 << (a)) | (1 << (b)) | (c))
#define MOSAIC_ALGOS_BARRIER MOSAIC_ALGOS_OF(MOSAIC_ALGO_TREE, MOSAIC_ALGO_FLAT, 1 << MOSAIC_ALGO_RECURSIVE)
#define MOSAIC_ALGOS_BCAST MOSAIC_ALGOS_OF(MOSAIC_ALGO_TREE, MOSAIC_ALGO_FLAT, 1 << MOSAIC_ALGO_BINOMIAL)
#define MOSAIC_ALGOS_REDUCE MOSAIC_ALGOS_BCAST
#define MOSAIC_ALGOS_ALLREDUCE MOSAIC_ALGOS_BARRIER
#define MOSAIC_ALGOS_GATHER MOSAIC_ALGOS_OF(MOSAIC_ALGO_FLAT, MOSAIC_ALGO_BINOMIAL, 0)
#define MOSAIC_ALGOS_SCATTER MOSAIC_ALGOS_GATHER
#define MOSAIC_ALGOS_ALLGATHER MOSAIC_ALGOS_OF(MOSAIC_ALGO_TREE, MOSAIC_ALGO_FLAT, 1 << MOSAIC_ALGO_RING)
#define MOSAIC_ALGOS_ALLTOALL MOSAIC_ALGOS_OF(MOSAIC_ALGO_FLAT, MOSAIC_ALGO_PAIRWISE, 0) /* and alltoallv */

static inline long mosaic_group_init(const uint16_t *cores, size_t n)
{
	return mosaic_call(KC_GROUP_INIT, (long)cores, (long)n, 0, 0, 0);
}
static inline long mosaic_barrier(long g) { return mosaic_call(KC_BARRIER, g, 0, 0, 0, 0); }
static inline long mosaic_bcast(long g, int root, void *buf, size_t len)
{
	return mosaic_call(KC_BCAST, g, root, (long)buf, (long)len, 0);
}
static inline long mosaic_reduce(long g, int root, const int64_t *in, int64_t *out, size_t count, int op)
{
	register long r5 __asm__("a5") = op;
	register long r0 __asm__("a0") = g;
	register long r1 __asm__("a1") = root;
	register long r2 __asm__("a2") = (long)in;
	register long r3 __asm__("a3") = (long)out;
	register long r4 __asm__("a4") = (long)count;
	register long r7 __asm__("a7") = KC_REDUCE;
	__asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r7) : "memory");
	return r0;
}
static inline long mosaic_allreduce(long g, const int64_t *in, int64_t *out, size_t count, int op)
{
	return mosaic_call(KC_ALLREDUCE, g, (long)in, (long)out, (long)count, op);
}
static inline long mosaic_gather(long g, int root, const void *in, size_t len, void *out)
{
	return mosaic_call(KC_GATHER, g, root, (long)in, (long)len, (long)out);
}
/* The root's block r (len bytes at in + r * len) lands at out on rank r. */
static inline long mosaic_scatter(long g, int root, const void *in, size_t len, void *out)
{
	return mosaic_call(KC_SCATTER, g, root, (long)in, (long)len, (long)out);
}
static inline long mosaic_allgather(long g, const void *in, size_t len, void *out)
{
	return mosaic_call(KC_ALLGATHER, g, (long)in, (long)len, (long)out, 0);
}
static inline long mosaic_alltoall(long g, const void *in, size_t len, void *out)
{
	return mosaic_call(KC_ALLTOALL, g, (long)in, (long)len, (long)out, 0);
}
struct mosaic_alltoallv {
	const void *in;
	const uint32_t *sendcounts, *sdispls;
	void *out;
	const uint32_t *recvcounts, *rdispls;
};
static inline long mosaic_alltoallv(long g, const struct mosaic_alltoallv *v)
{
	return mosaic_call(KC_ALLTOALLV, g, (long)v, 0, 0, 0);
}

/* Jobs (the job allocation protocol, docs/allocation.md). A program started as a job of
 * n tasks runs on n pico-kernels at once; mosaic_rank() is its rank 0..n-1. */
/* The number of tasks of the job this task belongs to (0 outside a job). */
static inline long mosaic_job_size(void) { return mosaic_call(KC_JOB_SIZE, 0, 0, 0, 0, 0); }
/* A group handle over the job's tasks in rank order (rank r is the task of rank r):
 * the job's MPI_COMM_WORLD. The same handle on every call; -22 outside a job. */
static inline long mosaic_job_group(void) { return mosaic_call(KC_JOB_GROUP, 0, 0, 0, 0, 0); }
/* The job's shared-memory window `name` (at most 31 bytes), made zeroed by the first of the job's
 * tasks that opens it, with `bytes` bytes (1..256 KiB; every task must give the same size, in
 * pages), and mapped into this task: its address (> 0), or MOSAIC_EPERM outside a job or in an
 * i-let, MOSAIC_EINVAL (bad name or size), MOSAIC_EFAULT, MOSAIC_ENOSPC (more than 4 windows
 * in a task, 32 in the system). Only tasks of the same job see it; it goes with the job's last
 * task. Loads and stores are all it offers: synchronise with a barrier (or flags and fences). */
static inline long mosaic_shm_open(const char *name, size_t bytes)
{
	return mosaic_call(KC_SHM_OPEN, (long)name, (long)bytes, 0, 0, 0);
}

/*
 * Submitting jobs (docs/microkernel.md, "Jobs from a task"). mosaic_job_spawn submits
 * `program` as ntasks tasks on `cores` cores (0: one per task; fewer: time-sliced, placed
 * and waiting by place and wait, as `submit ... cores C` does) at this task's own domain's
 * micro-kernel: a handle > 0, or MOSAIC_EINVAL (bad name, ntasks 0, cores > ntasks, an unknown
 * placement or wait mode), MOSAIC_EFAULT, MOSAIC_E2BIG (more tasks or cores than the machine
 * or an oversubscribed job can have), MOSAIC_ENOENT (no such program), MOSAIC_ENOSPC (no
 * message endpoints left), MOSAIC_EBUSY (4 jobs on their way to this core already),
 * MOSAIC_ENOTSUP (a task time-sliced with others). mosaic_job_wait takes the report of one
 * of this task's jobs when it has ended: its handle, MOSAIC_ECHILD (none outstanding),
 * MOSAIC_EAGAIN (MOSAIC_JOB_NOWAIT and none has ended), MOSAIC_EFAULT, MOSAIC_EINVAL (flags).
 * A job outlives the task that spawned it; its report is then thrown away.
 */
#define MOSAIC_PLACE_PINNED 0
#define MOSAIC_PLACE_RR 1
#define MOSAIC_PLACE_SPEED 2
#define MOSAIC_WAIT_SPIN 0
#define MOSAIC_WAIT_YIELD 1
#define MOSAIC_WAIT_SLEEP 2
#define MOSAIC_JOB_NOWAIT 1
/* In user/runtime.c: passes the name's length (strlen) to the kernel. */
long mosaic_job_spawn(const char *program, unsigned long ntasks, unsigned long cores, long arg, int place, int wait);
/* The same with every task's arguments and environment instead of the integer: args and env are
 * NULL-terminated arrays (either may be NULL), args the tasks' argv[1..] (argv[0] is the program's
 * name), env "NAME=VALUE" entries; mosaic_main's integer argument is then args[0] if a number.
 * Beyond MOSAIC_ARGS_MAX strings or MOSAIC_ARG_BYTES bytes together (NULs included): MOSAIC_E2BIG;
 * an entry that is not NAME=VALUE: MOSAIC_EINVAL; else as mosaic_job_spawn. */
long mosaic_job_spawnv(const char *program, unsigned long ntasks, unsigned long cores, char *const args[],
		       char *const env[], int place, int wait);
/* The kernel's struct uargs_user (kernel/task/uargs.h): what KC_JOB_SPAWNV's argument 4 points
 * at, argc + envc NUL-terminated strings laid end to end in text[0..len). */
struct mosaic_args {
	const char *text;
	uint64_t len, argc, envc;
};
/* A task's arguments and environment at most (kernel/task/uargs.h: UARGS_MAX, UARGS_BYTES), past
 * argv[0]: the same bounds for run, submit and mosaic_job_spawnv. */
#define MOSAIC_ARGS_MAX 32
#define MOSAIC_ARG_BYTES 1024
static inline long mosaic_job_wait(struct mosaic_job_report *r, unsigned flags)
{
	return mosaic_call(KC_JOB_WAIT, (long)r, (long)flags, 0, 0, 0);
}

/*
 * Invasive computing (OctoPOS's invade/infect/retreat; docs/invasive.md). A task
 * owns a claim: cores it invaded, apart from its own. invade may be satisfied in
 * part and returns how many cores it got; infect starts a team, one member per
 * claimed core: member i runs fn(arg) on core i of the claim as an i-let, in this
 * task's own address space (it sees the owner's memory as it was at infect, and
 * writes into it; a stack of its own; no heap: malloc and sbrk fail in it, use
 * memory the owner allocated). mosaic_infect_isolated runs each member in a fresh
 * instance of the program instead, sharing no memory. team_wait is the barrier
 * that ends the phase and gives every member's result. From infect until
 * team_wait has collected the results, invade, retreat and infect answer
 * MOSAIC_EBUSY. The claim is given back when the task ends.
 */
#define MOSAIC_INFECT_ISOLATED 1 /* infect's mode: fresh instances, no shared memory */
/* Above a task's stack: its members' i-let stacks (arch/riscv/mmu.h: ILET_BASE, 2 MiB), mapped by
 * its first infect of that many members, then its job's shared windows (SHM_BASE, 2 MiB), mapped
 * by mosaic_shm_open; unmapped (and not the task's) before. */
#define MOSAIC_ABOVE_STACK (4UL << 20)
#define MOSAIC_TLS_BYTES 512 /* a task's thread-local data at most (kernel/task/utask.h: UTASK_TLS_BYTES) */
#define MOSAIC_INVADE_DOMAIN 0   /* cores of the owner's own domain only */
#define MOSAIC_INVADE_ANYWHERE 1 /* any domain: through the job allocation protocol */
struct mosaic_member {
	int (*fn)(long arg);
	long arg;
};
static inline long mosaic_invade(long n, int props, uint16_t *got, size_t cap)
{
	return mosaic_call(KC_INVADE, n, props, (long)got, (long)cap, 0);
}
static inline long mosaic_retreat(const uint16_t *cores, size_t n) { return mosaic_call(KC_RETREAT, (long)cores, (long)n, 0, 0, 0); }
static inline long mosaic_infect(const struct mosaic_member *team, size_t n)
{
	return mosaic_call(KC_INFECT, (long)team, (long)n, 0, 0, 0);
}
static inline long mosaic_infect_isolated(const struct mosaic_member *team, size_t n)
{
	return mosaic_call(KC_INFECT, (long)team, (long)n, MOSAIC_INFECT_ISOLATED, 0, 0);
}
static inline long mosaic_team_wait(struct mosaic_member_result *out, size_t cap)
{
	return mosaic_call(KC_TEAM_WAIT, (long)out, (long)cap, 0, 0, 0);
}
static inline long mosaic_claim(uint16_t *cores, size_t cap) { return mosaic_call(KC_CLAIM, (long)cores, (long)cap, 0, 0, 0); }

/* What the program does and what its argument means, for the shell's `programs`: every program
 * states it once, next to its main. Two strings in a section the task never loads (the Makefile
 * copies it out of the ELF into the kernel's program table). Plain text: no quotes or backslashes. */
#define MOSAIC_ABOUT(what, arg)                                                                        \
	__asm__(".pushsection .mosaic.about,\"\",@progbits\n\t.asciz \"" what "\"\n\t.asciz \"" arg "\"\n\t.popsection")

/* A program defines main(int argc, char **argv) or mosaic_main(long arg) (its integer argument:
 * argv[1] as a number, or what the job was given); the result is the exit code (returning from
 * main is exit: atexit handlers, stdout flushed). mosaic_argc and mosaic_argv are the task's
 * argc and argv either way, environ its environment (user/runtime.c). */
int mosaic_main(long arg);
extern int mosaic_argc;
extern char **mosaic_argv;

#endif
