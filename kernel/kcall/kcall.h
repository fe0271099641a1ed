/*
 * Kernel calls: their numbers, and on which side each one runs, from their one declaration in
 * portable/abi/kcalls.h. Calls that are per-core by nature (own ids, time, the core's own NoC
 * sends and receives) run on the calling core; calls that change state shared by the domain
 * run on the domain's master core (its micro-kernel), which serves them one at a time in
 * arrival order. docs/reference.md has the table.
 */
#ifndef KERNEL_KCALL_H
#define KERNEL_KCALL_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/msg/msg.h"

enum kcall_nr {
#define KCALL(NAME, name, nr, side, share, args, does, checks) KC_##NAME = nr,
#include "portable/abi/kcalls.h"
#undef KCALL
	KC_COUNT = 80,
};

enum kcall_side { KCALL_NONE = 0, KCALL_LOCAL, KCALL_MASTER };
/* Which task of a time-sliced core may make a call (portable/abi/kcalls.h, "share"). */
enum kcall_share { KCALL_SHARE_NONE = 0, KCALL_SHARE_ANY, KCALL_SHARE_JOB, KCALL_SHARE_GROUP, KCALL_SHARE_HEAP };

/* One call as declared; a number without a call has a NULL name. */
struct kcall_desc {
	const char *name;
	enum kcall_side side;
	enum kcall_share share;
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
