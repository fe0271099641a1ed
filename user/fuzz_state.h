/*
 * fuzz: what a task knows about itself (its address space's edges, the handles and
 * the claim it holds) and the call being made. The generators read it to make good
 * values; the judge reads it to tell a certainly bad call from one that may succeed.
 */
#ifndef MOSAIC_FUZZ_STATE_H
#define MOSAIC_FUZZ_STATE_H

#include <stdint.h>
#include "fuzz_table.h"

#define NREQ 16   /* request handles a task may hold (UTASK_REQUESTS in kernel/task/utask_internal.h) */
#define NGROUP 4  /* group handles a task may hold */
#define MAXCORES 128
#define ARENA_BYTES (96 * 1024) /* holds the largest message with room to spare */
#define HEAP_LIMIT (512 * 1024) /* a task's heap (kernel/task/utask.h: UTASK_HEAP_LIMIT) */
#define SLEEP_MAX_US 60000000ULL /* sleep_us refuses more (docs/microkernel.md) */

enum group_kind { G_NONE, G_SELF, G_FOREIGN, G_MULTI, G_UNKNOWN };

struct fuzz_state {
	uint64_t seed, ncalls;
	long rank, size, me, ncores;
	uint64_t user_base, user_top;    /* the task's window: [user_base, user_top) */
	uint64_t brk, stack_lo;          /* first unmapped byte above the heap; lowest stack byte */
	uint8_t req_open[NREQ];
	uint8_t group[NGROUP];           /* enum group_kind */
	uint16_t group_n[NGROUP], group_rank[NGROUP]; /* size; this core's rank in it */
	int job_group;                   /* the handle job_group gave, or -1 */
	int team;                        /* a team runs */
	uint32_t members, claim_n;
	uint16_t claim[MAXCORES];
	uint64_t stable[KC_JOB_SIZE + 1]; /* the first answer of each C_STABLE call */
	uint64_t last_time;
	int oversub; /* a task of an oversubscribed job (argument bit 58): time-sliced, may move */
};

/* Pointer classes: where a generated pointer points. */
enum pclass {
	P_GOOD,       /* the fuzzer's own writable buffer */
	P_MISALIGNED, /* the same, at an odd address */
	P_RO,         /* read-only data of the program */
	P_CODE,       /* the program's code */
	P_NULL,
	P_KERNEL,     /* the kernel image and its memory (0x80000000 and up) */
	P_DEVICE,     /* a device: UART, PLIC, CLINT, the test device */
	P_GAP,        /* unmapped user space between the heap and the stack */
	P_BELOW,      /* below the task's window */
	P_ABOVE,      /* above the task's window */
	P_HIGH,       /* far out: beyond Sv39, or so high that address + length wraps */
	P_PART_HEAP,  /* starts mapped just below the break, runs into the unmapped page above */
	P_PART_STACK, /* starts unmapped just below the stack, runs into it */
	P_PART_TOP,   /* starts at the top of the stack, runs past the end of the window */
	NPCLASS
};

static const char *const pclass_name[NPCLASS] = {
	"own buffer", "misaligned own buffer", "read-only data", "code", "NULL", "kernel address",
	"device address", "unmapped user address", "address below user space", "address above user space",
	"address beyond Sv39", "buffer running past the heap's end", "buffer starting below the stack",
	"buffer running past the top of the stack",
};

struct ptr {
	uint64_t va, room; /* room: bytes from va that are the task's own (mapped, and writable if P_GOOD) */
	uint8_t cls;
};

enum verdict { V_OK, V_UNSURE, V_BAD };

struct call {
	const struct call_desc *d;
	uint64_t nr, a[6];
	struct ptr p[6];   /* the pointer arguments' classes */
	struct ptr vec[6]; /* alltoallv: in, sendcounts, sdispls, out, recvcounts, rdispls */
	int verdict, why_arg;
	char why[96];
	int new_group, new_rank; /* group_init: the kind of group the cores make, this core's rank */
};

#endif
