/* What kernel/task/share/share.c (the scheduler of a shared core) and kernel/task/share/share_balance.c (the
 * placements and the speed balancer) both see of a share group's cores and tasks. */
#ifndef KERNEL_SHARE_INTERNAL_H
#define KERNEL_SHARE_INTERNAL_H

#include "kernel/task/share/share.h"
#include "kernel/msg/msg.h"

/* A core's table holds every task of its group if it must: round-robin hands tasks on blindly,
 * and tasks that wait in the kernel (share_move_in_wait=0) stay, so one core may collect most of
 * them. With less room, the tasks handed to a full core waited in its mailbox while the ones it
 * held waited for their messages: a 20-task stencil on 16 cores stopped so (a table of 16). */
#define SHARE_TABLE SHARE_TASKS_MAX

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
	uint64_t kill_at; /* killed (utask_kill): the kill's time on its killer's clock; 0: not killed */
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
	uint64_t mark_cpu, mark_ns;
	uint32_t moved_period; /* the balance period of its last move (+1; 0: never) */
};

/* One core's record as the balancer's gossip carries it (share_balance.c). */
struct share_view {
	uint32_t period;         /* the period of its core that made it, + 1 (0: no record known) */
	uint16_t speed_permille; /* its tasks' mean speed then */
	uint16_t ntasks;         /* its tasks then */
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
	/* the balancer (share_balance.c): what this core knows, from its own measures and the
	 * records the others sent it; only this core reads or writes these */
	uint32_t period;           /* balance periods this core ended */
	uint64_t period_end;       /* core clock */
	uint32_t speed_permille;   /* its tasks' mean speed in the last period */
	uint32_t pull_from;        /* 1 + the index of a core that asked it for a task, 0: none */
	struct share_view view[SHARE_CORES_MAX]; /* every core's latest record it knows (its own too) */
};

extern struct share_core *share_cores[MOSAIC_MAX_HARTS];

/* The balancer's step in a core's scheduler loop (host context, interrupts on). */
void share_balance_step(struct share_core *sc);
/* Whether the balancer has something for a core that would otherwise sleep: a message. */
bool share_has_news(struct share_core *sc);
/* Whether a balancer message has arrived here; *next_ns (if asked) gets the arrival of the
 * first one still in flight, which a waiting core must wake for (a task handed to it). */
bool balance_here(uint64_t *next_ns);
/* Drops the balancer's messages that reached this core (a group's start and end). */
void share_balance_drain(void);


#endif
