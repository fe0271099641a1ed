/*
 * Splitting a W x H mesh into rectangular domains and placing each domain's micro-kernel:
 * pure geometry, one source for the kernel (kernel/domain/domain.c) and the simulator
 * (sim/layout.c), so that a simulated micro-kernel sits on the same tile, with the same
 * cores, as in the kernel booted on the same mesh. Cores are numbered in row order
 * (core = y * W + x), as the kernel's mesh_core_at() numbers them.
 */
#ifndef PORTABLE_MESH_DOMAINS_H
#define PORTABLE_MESH_DOMAINS_H

#include <stdbool.h>

/* Start of range i when n items are cut into k nearly equal ranges. */
static inline unsigned domains_cut(unsigned n, unsigned k, unsigned i) { return i * n / k; }

/* The most square factorisation dx * dy = n that fits the mesh (dx <= W, dy <= H); false if none does. */
bool domains_factor(unsigned n, unsigned W, unsigned H, unsigned *dx, unsigned *dy);

/* The number of domains when none is asked for: 4, halved until they tile the mesh. */
unsigned domains_default(unsigned W, unsigned H);

/* The core nearest the geometric centre of the rectangle [x0, x1) x [y0, y1); ties go to the lowest core id. */
unsigned domains_centre_core(unsigned W, unsigned x0, unsigned x1, unsigned y0, unsigned y1);

#endif
