/*
 * Message endpoints of the NoC: what a message's src and dst name. Endpoint c below
 * MOSAIC_MAX_HARTS is physical core c and sits at its own tile. Endpoints from
 * NOC_EP_VIRT_BASE on are virtual: one per task of an oversubscribed job, so that
 * several tasks time-sliced on one pico-kernel each have their own user mailbox and
 * message-API state (docs/balancing.md). A location table says which tile a virtual
 * endpoint is on: routing, the timing model, the wake-up IPI and virtual-time notes use
 * it. A task that moves to another core changes only its entry; its mailbox, and every
 * message in it, stays with the endpoint. The kernel channel only ever names physical
 * cores.
 *
 * Life of a virtual endpoint: reserved (by a job's submitter, a contiguous run of them),
 * bound (its host core gives it a tile and opens it before any peer may send), closed
 * (its task ended: messages sent to it are dropped, so no sender waits for a credit that
 * nobody will give back), released (the job ended: the id is free again).
 */
#ifndef DRIVERS_NOC_NOC_EP_H
#define DRIVERS_NOC_NOC_EP_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"
#include "drivers/noc/mesh.h"

#define NOC_EP_VIRT_BASE MOSAIC_MAX_HARTS   /* the first virtual endpoint id */
#define NOC_EP_VIRT_MAX MOSAIC_MAX_HARTS    /* virtual endpoints in the whole system */
#define NOC_ENDPOINTS (NOC_EP_VIRT_BASE + NOC_EP_VIRT_MAX)
#define NOC_EP_NONE 0xffff

static inline bool noc_ep_is_virtual(unsigned ep) { return ep >= NOC_EP_VIRT_BASE && ep < NOC_ENDPOINTS; }

/* Reserves n contiguous virtual endpoints; the first id, or -ENOSPC (none left), -EINVAL. */
int noc_ep_reserve(unsigned n);
/* Gives back n endpoints from first (the job that reserved them ended). */
void noc_ep_release(unsigned first, unsigned n);
/* Virtual endpoints reserved now (for tests: everything is given back). Inline: every pass of a
 * message wait asks, so a call would cost every pass a call and return. */
extern unsigned noc_ep_nreserved;
static inline unsigned noc_ep_reserved(void) { return __atomic_load_n(&noc_ep_nreserved, __ATOMIC_RELAXED); }

/* The host core opens endpoint ep at its own tile (its user mailbox is made the first time);
 * 0 or -ENOMEM. Then it may be sent to. */
int noc_ep_bind(unsigned ep);
/* ep's task ended: from now on messages to it are dropped at the sender. */
void noc_ep_close(unsigned ep);
/* The calling core hosts ep from now on (a task that moved here). */
void noc_ep_place(unsigned ep);

/* The three below are on every message's path: a physical core is answered inline, and only
 * a virtual endpoint looks at the location table (out of line), so the common case costs no
 * call (bench-noc's 8-byte message measures the path). */
unsigned noc_ep_tile_virtual(unsigned ep);
bool noc_ep_valid_virtual(unsigned ep);
bool noc_ep_closed_virtual(unsigned ep);

/* The tile of endpoint ep; NOC_EP_NONE for a virtual one that is not bound. */
static inline unsigned noc_ep_tile(unsigned ep) { return ep < NOC_EP_VIRT_BASE ? ep : noc_ep_tile_virtual(ep); }
/* The tile ep was bound at (it never changes while ep is bound: collectives build their
 * trees from it, so every member computes the same tree wherever the others are now). */
unsigned noc_ep_home(unsigned ep);
/* A message to ep can be posted (a core of the mesh, or a bound virtual endpoint). */
static inline bool noc_ep_valid(unsigned ep) { return ep < NOC_EP_VIRT_BASE ? ep < mesh.cores : noc_ep_valid_virtual(ep); }
/* ep is a closed virtual endpoint: messages to it are dropped. */
static inline bool noc_ep_closed(unsigned ep) { return ep >= NOC_EP_VIRT_BASE && noc_ep_closed_virtual(ep); }

/* The user endpoint of the task running on this core: its virtual endpoint, else the core. */
unsigned noc_ep_self(void);
/* The task that runs on this core from now on speaks as ep (0: as the core). */
void noc_ep_enter(unsigned ep);

/* Virtual endpoints bound at `core` now: their ids into eps (at most max); how many. */
unsigned noc_ep_hosted(unsigned core, uint16_t *eps, unsigned max);

#endif
