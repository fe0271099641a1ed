/*
 * Domains: the mesh is split into rectangular domains; in each, the hart nearest
 * the domain's geometric centre is the micro-kernel (the domain's master core)
 * and every other hart is a pico-kernel that runs user tasks and forwards its
 * kernel calls to the master. In the "partial simulation" layout (thesis Ch. 4)
 * every hart is a micro-kernel of a 1x1 domain that manages `vcores` virtual cores.
 */
#ifndef KERNEL_DOMAIN_H
#define KERNEL_DOMAIN_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"

struct domain {
	uint16_t id;
	uint16_t x0, y0, x1, y1; /* tiles [x0, x1) x [y0, y1) */
	uint16_t master;         /* core id of the micro-kernel */
	uint16_t ncores;
};

struct domain_layout {
	unsigned ndomains;
	unsigned dx, dy;        /* domains per row and per column */
	bool partial;           /* partial simulation: every hart a micro-kernel */
	unsigned vcores;        /* virtual cores per micro-kernel (partial simulation) */
	struct domain domains[MOSAIC_MAX_HARTS];
	uint16_t domain_of[MOSAIC_MAX_HARTS];
};

extern struct domain_layout layout;

/* Splits the mesh per the boot arguments; NULL or a message that says why it cannot. */
const char *domain_init(void);
/* Computes a layout of n domains (0: the default) on the current mesh into out. */
const char *domain_split(unsigned n, struct domain_layout *out, char *err, unsigned errlen);

static inline unsigned domain_of(unsigned core) { return layout.domain_of[core]; }
static inline unsigned domain_master(unsigned d) { return layout.domains[d].master; }
static inline bool is_master(unsigned core) { return layout.domains[layout.domain_of[core]].master == core; }

#endif
