/*
 * fuzz: every kernel call a user task has, described once by the kinds of its
 * arguments (syzkaller's idea). The generators (fuzz_gen.h) make values per kind,
 * good and hostile; the judge (fuzz_judge.h) works out from the kinds alone whether
 * a call is certainly bad, so its answer must be an error.
 */
#ifndef MOSAIC_FUZZ_TABLE_H
#define MOSAIC_FUZZ_TABLE_H

#include <stdint.h>
#include "mosaic.h"
#include "balance.h"

enum kind {
	K_ANY,     /* not read by the call (or a call that does not exist): anything */
	K_COUNT,   /* the call's count: bytes or elements, bounded by the call's min and max */
	K_BUF,     /* a buffer of count (argument .ref) x .elem bytes */
	K_STATUS,  /* a struct mosaic_status the kernel fills */
	K_DST,     /* a core to send to */
	K_SRC,     /* a core to receive from, or MOSAIC_ANY */
	K_TAG,     /* a tag to send with: >= 0 */
	K_RTAG,    /* a tag to receive, or MOSAIC_ANY */
	K_REQ,     /* a request handle from isend or irecv */
	K_GROUP,   /* a group handle from group_init or job_group, | a collective's how above bit 8 */
	K_ROOT,    /* a rank of the group */
	K_OP,      /* a reduction: MOSAIC_OP_SUM, MIN or MAX */
	K_BLOCK,   /* probe: wait (non-zero) or not */
	K_US,      /* sleep_us: microseconds, at most 60 s */
	K_HEAP,    /* heap_grow: bytes, at most the task's heap limit */
	K_PROPS,   /* invade: MOSAIC_INVADE_DOMAIN or ANYWHERE */
	K_NINVADE, /* invade: how many cores, >= 1 */
	K_CORES,   /* an array of count (argument .ref) core ids, made by the fuzzer */
	K_TEAM,    /* an array of count (argument .ref) team members: function pointers */
	K_VEC,     /* alltoallv's block of six pointers */
	K_NAME,    /* shm_open: a pointer to a window's name, written by the fuzzer */
	K_SHMSIZE, /* shm_open: bytes, 1..256 KiB */
	K_PNAME,   /* job_spawn: a program name of count (argument .ref) bytes, written by the fuzzer */
	K_NTASKS,  /* job_spawn: tasks, >= 1 */
	K_JCORES,  /* job_spawn: cores, 0..ntasks */
	K_JMODE,   /* job_spawn: placement 0..2 | wait mode 0..2 << 8 */
	K_JFLAGS,  /* job_wait: 0 or MOSAIC_JOB_NOWAIT */
	K_ARGS,    /* job_spawnv: a struct mosaic_args (its text, length and counts made by the fuzzer) */
};

#define F_OUT 1     /* the kernel writes the buffer */
#define F_NULL_OK 2 /* NULL means no buffer: the count is then not a length */
#define F_BY_N 4    /* the length is also multiplied by the group's size */
#define F_ROOT 8    /* only the root (argument 1) passes this buffer */
#define F_OWN 16    /* the length is not count x elem: the call's own rule (own_len in fuzz_judge.h) */

struct arg_desc {
	uint8_t kind, ref, flags;
	uint16_t elem;
};

/* call flags */
#define C_BLOCKS 2    /* may wait for ever (for a credit, a message): good arguments only in the try form */
#define C_COLL 4      /* waits for the group's other members: only on a group of this core alone */
#define C_HANDLE 8    /* returns a request handle */
#define C_STABLE 16   /* returns the same value on every call of the task */
#define C_UNKNOWN 32  /* no such call: the number is drawn too */
#define C_BAD_ONLY 64 /* made only when certainly bad: a good one would print, or kill a peer */
#define C_SHARE_ONLY 128 /* a share group's call: the fuzz task, a job's task, is always refused */

struct call_desc {
	long nr;
	const char *name;
	uint64_t min, max; /* of the K_COUNT argument; max 0: none */
	uint16_t flags;
	long try_nr;
	struct arg_desc a[6];
};

#define A(k) {k, 0, 0, 0}
#define BUF(ref, elem, flags) {K_BUF, ref, flags, elem}
#define STATUS(flags) {K_STATUS, 0, (flags) | F_OUT, sizeof(struct mosaic_status)}
#define BODY (64 * 1024) /* NOC_MAX_BODY: the largest message */

static const struct call_desc calls[] = {
	{KC_WRITE, "write", 0, 4096, C_BAD_ONLY, 0, {BUF(1, 1, 0), A(K_COUNT)}},
	{KC_CORE_ID, "core_id", 0, 0, C_STABLE, 0, {{0}}},
	{KC_DOMAIN_ID, "domain_id", 0, 0, C_STABLE, 0, {{0}}},
	{KC_JOB_ID, "job_id", 0, 0, C_STABLE, 0, {{0}}},
	{KC_RANK, "rank", 0, 0, C_STABLE, 0, {{0}}},
	{KC_TIME_NS, "time_ns", 0, 0, 0, 0, {{0}}},
	{KC_SLEEP_US, "sleep_us", 0, 0, 0, 0, {A(K_US)}},
	{KC_HEAP_GROW, "heap_grow", 0, 0, 0, 0, {A(K_HEAP)}},
	{KC_KILL, "kill", 0, 0, C_BAD_ONLY, 0, {A(K_DST)}},
	{KC_SEND, "send", 0, BODY, C_BLOCKS, KC_TRYSEND, {A(K_DST), A(K_TAG), BUF(3, 1, 0), A(K_COUNT)}},
	{KC_TRYSEND, "trysend", 0, BODY, 0, 0, {A(K_DST), A(K_TAG), BUF(3, 1, 0), A(K_COUNT)}},
	{KC_ISEND, "isend", 0, BODY, C_HANDLE, 0, {A(K_DST), A(K_TAG), BUF(3, 1, 0), A(K_COUNT)}},
	{KC_XSEND, "xsend", 0, BODY, C_BLOCKS, KC_TRYSEND, {A(K_DST), A(K_TAG), BUF(3, 1, 0), A(K_COUNT)}},
	{KC_RECV, "recv", 0, 0, C_BLOCKS, KC_TRYRECV,
	 {A(K_SRC), A(K_RTAG), BUF(3, 1, F_OUT), A(K_COUNT), STATUS(F_NULL_OK)}},
	{KC_TRYRECV, "tryrecv", 0, 0, 0, 0, {A(K_SRC), A(K_RTAG), BUF(3, 1, F_OUT), A(K_COUNT), STATUS(F_NULL_OK)}},
	{KC_IRECV, "irecv", 0, 0, C_HANDLE, 0, {A(K_SRC), A(K_RTAG), BUF(3, 1, F_OUT), A(K_COUNT)}},
	{KC_TEST, "test", 0, 0, 0, 0, {A(K_REQ), STATUS(F_NULL_OK)}},
	{KC_WAIT, "wait", 0, 0, C_BLOCKS, KC_TEST, {A(K_REQ), STATUS(F_NULL_OK)}},
	{KC_PROBE, "probe", 0, 0, C_BLOCKS, KC_PROBE, {A(K_SRC), A(K_RTAG), A(K_BLOCK), STATUS(0)}},
	{KC_GROUP_INIT, "group_init", 1, 128, 0, 0, {{K_CORES, 1, 0, 2}, A(K_COUNT)}},
	{KC_BARRIER, "barrier", 0, 0, C_COLL, 0, {A(K_GROUP)}},
	{KC_BCAST, "bcast", 0, BODY, C_COLL, 0, {A(K_GROUP), A(K_ROOT), BUF(3, 1, F_OUT), A(K_COUNT)}},
	{KC_REDUCE, "reduce", 0, BODY / 8, C_COLL, 0,
	 {A(K_GROUP), A(K_ROOT), BUF(4, 8, 0), BUF(4, 8, F_OUT | F_ROOT), A(K_COUNT), A(K_OP)}},
	{KC_ALLREDUCE, "allreduce", 0, BODY / 8, C_COLL, 0,
	 {A(K_GROUP), BUF(3, 8, 0), BUF(3, 8, F_OUT), A(K_COUNT), A(K_OP)}},
	{KC_GATHER, "gather", 0, BODY, C_COLL, 0,
	 {A(K_GROUP), A(K_ROOT), BUF(3, 1, 0), A(K_COUNT), BUF(3, 1, F_OUT | F_BY_N | F_ROOT)}},
	{KC_SCATTER, "scatter", 0, BODY, C_COLL, 0,
	 {A(K_GROUP), A(K_ROOT), BUF(3, 1, F_BY_N | F_ROOT), A(K_COUNT), BUF(3, 1, F_OUT)}},
	{KC_ALLGATHER, "allgather", 0, BODY, C_COLL, 0,
	 {A(K_GROUP), BUF(2, 1, 0), A(K_COUNT), BUF(2, 1, F_OUT | F_BY_N)}},
	{KC_ALLTOALL, "alltoall", 0, BODY, C_COLL, 0,
	 {A(K_GROUP), BUF(2, 1, F_BY_N), A(K_COUNT), BUF(2, 1, F_OUT | F_BY_N)}},
	{KC_ALLTOALLV, "alltoallv", 0, 0, C_COLL, 0, {A(K_GROUP), A(K_VEC)}},
	{KC_JOB_SIZE, "job_size", 0, 0, C_STABLE, 0, {{0}}},
	{KC_JOB_GROUP, "job_group", 0, 0, 0, 0, {{0}}},
	{KC_SHM_OPEN, "shm_open", 0, 0, 0, 0, {A(K_NAME), A(K_SHMSIZE)}},
	/* a good spawn would start a job that outlives the fuzz task: only bad ones are made, so the
	 * task never has a job outstanding and every job_wait is refused at once */
	{KC_JOB_SPAWN, "job_spawn", 1, 15, C_BAD_ONLY, 0,
	 {{K_PNAME, 1, 0, 1}, A(K_COUNT), A(K_NTASKS), A(K_JCORES), A(K_ANY), A(K_JMODE)}},
	{KC_JOB_SPAWNV, "job_spawnv", 1, 15, C_BAD_ONLY, 0,
	 {{K_PNAME, 1, 0, 1}, A(K_COUNT), A(K_NTASKS), A(K_JCORES), A(K_ARGS), A(K_JMODE)}},
	{KC_JOB_WAIT, "job_wait", 0, 0, 0, 0, {{K_STATUS, 0, F_OUT, sizeof(struct mosaic_job_report)}, A(K_JFLAGS)}},
	{KC_INVADE, "invade", 0, 0, 0, 0, {A(K_NINVADE), A(K_PROPS), BUF(3, 2, F_OUT | F_NULL_OK | F_OWN), A(K_COUNT)}},
	{KC_RETREAT, "retreat", 1, 128, 0, 0, {{K_CORES, 1, 0, 2}, A(K_COUNT)}},
	{KC_INFECT, "infect", 0, 128, 0, 0, {{K_TEAM, 1, 0, sizeof(struct mosaic_member)}, A(K_COUNT)}},
	{KC_TEAM_WAIT, "team_wait", 0, 128, 0, 0, {BUF(1, sizeof(struct mosaic_member_result), F_OUT), A(K_COUNT)}},
	{KC_CLAIM, "claim", 0, 0, 0, 0, {BUF(1, 2, F_OUT | F_NULL_OK | F_OWN), A(K_COUNT)}},
	{KC_SHARE_INFO, "share_info", 0, 0, C_SHARE_ONLY, 0, {A(K_ANY)}},
	{KC_SHARE_BARRIER, "share_barrier", 0, 0, C_SHARE_ONLY, 0, {{0}}},
	{-1, "unknown", 0, 0, C_UNKNOWN, 0, {A(K_ANY), A(K_ANY), A(K_ANY), A(K_ANY), A(K_ANY), A(K_ANY)}},
};

#define NCALLS (sizeof calls / sizeof calls[0])

/* The numbers a user task may call (exit is the task's last call, never drawn). */
static inline int call_exists(uint64_t nr)
{
	return nr <= KC_KILL || (nr >= KC_SEND && nr <= KC_PROBE) || (nr >= KC_GROUP_INIT && nr <= KC_SCATTER) ||
	       (nr >= KC_JOB_SPAWN && nr <= KC_JOB_SPAWNV) || nr == KC_SHARE_INFO || nr == KC_SHARE_BARRIER ||
	       (nr >= KC_INVADE && nr <= KC_CLAIM);
}

/* The calls a task of an oversubscribed job may make (kernel/task/share/share.c, share_call_allowed: it
 * is time-sliced as a share group's task, with its own message endpoint); the others are
 * refused. Stated here again on purpose: the fuzzer checks the kernel against it. */
static inline int oversub_allows(uint64_t nr)
{
	return nr == KC_WRITE || nr == KC_CORE_ID || nr == KC_DOMAIN_ID || nr == KC_TIME_NS || nr == KC_SLEEP_US ||
	       nr == KC_HEAP_GROW || (nr >= KC_SEND && nr <= KC_PROBE) || (nr >= KC_GROUP_INIT && nr <= KC_SCATTER) ||
	       nr == KC_JOB_ID || nr == KC_RANK || nr == KC_JOB_SIZE || nr == KC_JOB_GROUP || nr == KC_SHM_OPEN;
}

#endif
