/*
 * Kernel calls: stable numbers, and on which side each one runs. Calls that are
 * per-core by nature (own ids, time, the core's own NoC sends and receives) run
 * on the calling core; calls that change state shared by the domain run on the
 * domain's master core (its micro-kernel), which serves them one at a time in
 * arrival order. docs/microkernel.md has the table; kcall_table in kcall.c is its source.
 * Numbers never change; gaps are reserved for the groups named below.
 */
#ifndef KERNEL_KCALL_H
#define KERNEL_KCALL_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/msg/msg.h"

enum kcall_nr {
	/* tasks and the console: 0..15 */
	KC_EXIT = 0,
	KC_WRITE = 1,      /* (buf, len): console output, printed by the master */
	KC_CORE_ID = 2,
	KC_DOMAIN_ID = 3,
	KC_JOB_ID = 4,
	KC_RANK = 5,
	KC_TIME_NS = 6,
	KC_SLEEP_US = 7,
	KC_HEAP_GROW = 8,  /* (bytes): within the task's limit, accounted by the master */
	KC_KILL = 9,       /* (core): kill the task there, which must run in the caller's session */
	/* point-to-point messages: 16..31 */
	KC_SEND = 16, KC_TRYSEND, KC_ISEND, KC_XSEND, KC_RECV, KC_TRYRECV, KC_IRECV, KC_TEST, KC_WAIT, KC_PROBE,
	/* groups and collectives: 32..47 */
	KC_GROUP_INIT = 32, KC_BARRIER, KC_BCAST, KC_REDUCE, KC_ALLREDUCE, KC_GATHER, KC_ALLGATHER, KC_ALLTOALL,
	KC_ALLTOALLV, KC_SCATTER,
	/* a collective's first argument is its group handle | how << 8 (kernel/msg/group.h: a
	 * synchronisation mode, strict (0) or loose, and an algorithm, 0 for the tuned one) */
	/* jobs (the job allocation protocol): 48..63 */
	KC_JOB_SPAWN = 48, /* (program, length, ntasks, cores, arg, place | wait << 8): a handle > 0 */
	KC_JOB_WAIT = 49,  /* (report out, flags): the report of one of the caller's jobs; its handle */
	KC_JOB_SIZE = 50,  /* tasks in the caller's job */
	KC_JOB_GROUP = 51, /* a group handle over the caller's job, in rank order */
	KC_SHM_OPEN = 52,  /* (name, bytes): the job's shared window of that name, mapped; its address */
	/* tasks of a time-sliced share group (kernel/task/share/share.h, docs/balancing.md) */
	KC_SHARE_INFO = 60,    /* (what): 0 the caller's rank in its share group, 1 the group's size */
	KC_SHARE_BARRIER = 61, /* (): the group's barrier, waiting in the group's wait mode */
	/* invasive computing (claims and teams, docs/invasive.md): 64..79 */
	KC_INVADE = 64,    /* (n, properties, cores out, capacity): up to n more cores */
	KC_RETREAT = 65,   /* (cores, n): give them back */
	KC_INFECT = 66,    /* (team, n, mode): member i runs fn(arg) on claimed core i, an i-let unless isolated */
	KC_TEAM_WAIT = 67, /* (results, capacity): the barrier at the end of a team */
	KC_CLAIM = 68,     /* (cores out, capacity): the claim, in claim order */
	KC_COUNT = 80,
};

/* The NoC traffic classes of forwarded calls and their replies (kernel/msg/msg.h). */
#define MSG_TYPE_KCALL MSG_TYPE_KERNEL
#define MSG_TYPE_KCALL_REPLY (MSG_TYPE_KERNEL + 1)

enum kcall_side { KCALL_NONE = 0, KCALL_LOCAL, KCALL_MASTER };

struct kcall_desc {
	const char *name;
	enum kcall_side side;
	int64_t (*fn)(unsigned caller, const uint64_t *args, const void *data, uint32_t len);
};

extern const struct kcall_desc kcall_table[KC_COUNT];

/* Makes kernel call nr for the calling core with args[0..5]; `data` (len bytes)
 * travels with a forwarded call (the text of KC_WRITE). -ENOSYS for an unknown or
 * reserved number. */
int64_t kcall(unsigned nr, const uint64_t *args, const void *data, uint32_t len);

/* On a master core: serves one waiting forwarded call; false if none was waiting. */
bool master_serve_one(void);
/* Forwarded calls served so far by a master, and the caller of its i-th one
 * (kept for the last KCALL_LOG calls; for tests and the shell). */
#define KCALL_LOG 1024
uint64_t master_calls_served(unsigned core);
unsigned master_served_caller(unsigned core, uint64_t i);

#endif
