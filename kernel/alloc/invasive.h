/*
 * Invasive computing for user tasks (OctoPOS's invade, infect and retreat;
 * docs/invasive.md): the owner's side, called by kernel calls 64..68 on the
 * owner task's own core. Each call is a message to the micro-kernel of the
 * owner's domain and a wait (in WFI) for its answer.
 */
#ifndef KERNEL_ALLOC_INVASIVE_H
#define KERNEL_ALLOC_INVASIVE_H

#include <stdint.h>
#include <stdbool.h>
#include "portable/alloc/claim.h" /* struct mosaic_member_result */

#define INVADE_DOMAIN 0   /* cores of the owner's own domain only */
#define INVADE_ANYWHERE 1 /* cores of any domain (through every micro-kernel) */

/* infect's mode (user/mosaic.h: MOSAIC_INFECT_ISOLATED): without it a member is an i-let
 * in its owner's address space; with it, a fresh instance of the program. */
#define INFECT_ISOLATED 1


/* A member of a team as a user task gives it: member i runs fn(arg) on claimed core i. */
struct team_entry {
	uint64_t fn, arg;
};

/* Up to n more cores; returns how many it got (0..n) and their ids in `got`
 * (nearest the owner first), -EINVAL for bad n or properties, -EBUSY while a team runs. */
int64_t claim_invade(uint32_t n, unsigned props, uint16_t *got);
/* Gives these cores back: -EINVAL (nothing given back) if one is not in the claim or
 * appears twice, -EBUSY while a team runs; else n. */
int64_t claim_retreat(const uint16_t *cores, uint32_t n);
/* Starts a team of `program`: one entry per claimed core, in claim order; isolated: fresh
 * instances, else i-lets in the address space whose root table is at owner_root. -ENOENT
 * for an empty claim, -EINVAL if n is not the claim's size, -EBUSY if a team runs already. */
int64_t claim_infect(const char *program, const struct team_entry *team, uint32_t n, bool isolated,
		     uint64_t owner_root);
/* Waits until every member ended (the barrier between phases); returns how many failed,
 * with every member's result. -EINVAL if no team runs or cap is smaller than the team. */
int64_t claim_team_wait(struct mosaic_member_result *out, uint32_t cap);
/* The claim's cores in claim order (at most cap of them are written); returns its size. */
uint32_t claim_cores(uint16_t *out, uint32_t cap);
/* The owner task ended: wait for its team (killing its members first if the owner
 * was killed), give every core back. */
void claim_owner_end(bool killed);

#endif
