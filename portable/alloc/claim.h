/*
 * Invasive computing's claims in the protocol core (OctoPOS's invade, infect and
 * retreat; docs/invasive.md): the messages' bodies and the state of a claim at
 * its home micro-kernel. Part of the portable core: the kernel's owner side
 * (kernel/alloc/claim_owner.c) and its team start (team.c) use these too.
 */
#ifndef KERNEL_ALLOC_CORE_CLAIM_H
#define KERNEL_ALLOC_CORE_CLAIM_H

#include <stdint.h>
#include "portable/alloc/job.h"
#include "portable/abi/types.h" /* struct mosaic_member_result */

/* The answers' errors, negated: the kernel's own numbers (portable/abi/errors.h). */
enum {
#define KERROR(NAME, nr, text) PROTO_##NAME = nr,
#include "portable/abi/errors.h"
#undef KERROR
};

/* Reply tags of MSG_TYPE_CLAIM messages to an owner core. */
enum { CLAIM_TAG_INVADE = 1, CLAIM_TAG_RETREAT, CLAIM_TAG_INFECT, CLAIM_TAG_TEAM };

/* One member of a team as it travels in INFECT and TEAM_START bodies. */
struct member_spec {
	uint64_t fn, arg;
	uint16_t core, index;
	uint32_t session; /* the owner's message session: members and owner talk in it */
};
/* Body of INFECT and TEAM_START after the header: the program, then `count` members. */
struct team_body {
	char program[ALLOC_PROGRAM_MAX];
	uint16_t owner;
	uint16_t isolated;   /* 1: each member a fresh instance of the program */
	uint16_t pad[2];
	uint64_t owner_root; /* else: the physical address of the owner's root page table, which
			      * the members' cores use as theirs (the one pointer into another core's
			      * memory a message carries: the owner outlives its team) */
};

enum claim_state { CL_IDLE = 0, CL_INVADING, CL_TEAM };
struct claim {
	struct claim *next;
	uint32_t id;
	uint16_t owner;          /* the core of the task that owns it */
	uint8_t state;           /* enum claim_state */
	uint64_t mask[PROTO_MASK_WORDS]; /* its cores, all domains */
	uint32_t ncores;
	/* an invade in progress */
	uint32_t want, pending;
	uint64_t fresh[PROTO_MASK_WORDS]; /* cores this invade keeps so far */
	uint64_t offered[PROTO_MASK_WORDS]; /* cores other micro-kernels committed, not yet kept or returned */
	/* the team in progress */
	uint32_t members, done, failed;
	uint64_t t_infect;
	struct mosaic_member_result *results; /* one per member, in member order */
};

struct mk;
struct alloc_hdr;
/* INVADE, CLAIM_REQ, CLAIM_RESP, CLAIM_FREE, RETREAT and INFECT at a micro-kernel. */
void claim_handle(struct mk *m, struct alloc_hdr *h, uint32_t len);
/* MEMBER_DONE at the claim's home: after the last member the owner gets every result. */
void claim_member_done(struct mk *m, const struct alloc_hdr *h, uint32_t len);

#endif
