/* What kernel/share.c (the scheduler of a shared core) and kernel/share_balance.c (the
 * placements and the speed balancer) both see of a share group's cores and tasks. */
#ifndef KERNEL_SHARE_INTERNAL_H
#define KERNEL_SHARE_INTERNAL_H

#include "kernel/share.h"

#define SHARE_TABLE (2 * SHARE_MAX) /* room for tasks in transit beyond SHARE_MAX */

struct trap_frame;
extern uint64_t share_move_in_wait; /* boot argument (share_balance.c) */

struct slot {
	uint64_t ctx[14]; /* ra, sp, s0..s11 while it does not run */
	void *stack;
	struct share_task *task;
	/* the hart's task state while it does not run */
	struct utask *utask;
	uint64_t serial, satp, sum, limit_left;
	void (*limit_fn)(void);
	struct trap_frame *frame; /* its trap frame, at the edge where it gave the core back */
	uint64_t t_in, t_first;   /* core clock: switched in, first switched in */
	bool started, done;
	/* the barrier */
	bool in_barrier, yield_now, asleep;
	uint32_t bgen;
	uint64_t busy_wait_from; /* core clock: a spin/yield wait that stands still since (0: none) */
	/* a task of a job's part: its endpoint, and its state in a message wait */
	uint16_t ep;
	const struct job_ctx *job;
	bool in_kernel;   /* switched out inside a message wait */
	bool in_kernel_movable; /* ... one that may move (share_msg_wait, share_move_in_wait) */
	bool msg_asleep;  /* sleep mode: not run again until the core's events change */
	uint32_t msg_seen; /* the core's event count when it last looked */
	bool msg_seen_here; /* ... and it looked on this core (false after a move: run it once) */
	uint64_t away_ns;  /* core clock spent switched out inside its current kernel call */
	/* the balancer: CPU time and clock when this core began to measure it; moves */
	uint64_t mark_cpu, mark_ns, handover_ns;
	uint32_t moved_period; /* the balance period of its last move (+1; 0: never) */
	struct slot *next_in; /* in a core's inbox */
};

struct share_core {
	struct share_group *g;
	unsigned index; /* among g->cores */
	struct slot *slots[SHARE_TABLE];
	unsigned n, last;
	int cur; /* the running slot, -1 while the host context runs */
	uint64_t host[14];
	void *host_stack_base;
	uint64_t host_stack_top;
	uint64_t slice_end, next_check; /* core clock; machine ticks */
	/* the balancer (share_balance.c) */
	uint32_t period;           /* balance periods this core ended */
	uint64_t period_end;       /* core clock */
	struct slot *inbox;        /* tasks handed to this core (pushed by others, atomic) */
	uint32_t pull_from;        /* 1 + a core index that asked this core for a task (atomic), 0: none */
	uint64_t pull_ns;          /* the latest clock of such a request (atomic max): served no earlier */
	uint32_t speed_permille;   /* published: its tasks' mean speed in the last period */
	uint32_t published_n;      /* published: its tasks then */
};

extern struct share_core *share_cores[MOSAIC_MAX_HARTS];

/* The balancer's step in a core's scheduler loop (host context, interrupts on). */
void share_balance_step(struct share_core *sc);
/* Whether the balancer has something for a core that would otherwise sleep. */
bool share_has_news(struct share_core *sc);

#endif
