/*
 * Sv39 address spaces for user tasks. The kernel runs with paging off until a
 * task runs; every task's root table maps the first 4 GiB (devices and RAM)
 * one to one for the kernel only (U = 0), and the task's own pages at
 * USER_BASE with U = 1. A task can therefore touch nothing but its own pages.
 */
#ifndef ARCH_RISCV_MMU_H
#define ARCH_RISCV_MMU_H

#include <stdint.h>
#include <stdbool.h>

#define USER_BASE 0x1000000000ULL   /* 64 GiB: root index 64, clear of the kernel's identity map */
#define USER_SPAN (2ULL << 20)      /* one leaf table: 2 MiB of task address space */
/* The i-let stacks of a task's team members (docs/invasive.md): the next 2 MiB, a leaf
 * table of their own made when the first is mapped. Slot i is ILET_SLOT bytes at
 * ILET_BASE + i * ILET_SLOT: an unmapped guard page, then the member's stack. */
#define ILET_BASE (USER_BASE + USER_SPAN)
#define ILET_SLOT (16ULL << 10)
#define ILET_SLOTS (USER_SPAN / ILET_SLOT)
/* The shared-memory windows of a job's task (kernel/mm/shm.h): the 2 MiB after the i-let stacks,
 * a leaf table of its own. Its pages belong to the windows, not to the task. */
#define SHM_BASE (ILET_BASE + USER_SPAN)

#define PTE_V (1UL << 0)
#define PTE_R (1UL << 1)
#define PTE_W (1UL << 2)
#define PTE_X (1UL << 3)
#define PTE_U (1UL << 4)
#define PTE_A (1UL << 6)
#define PTE_D (1UL << 7)

struct address_space {
	uint64_t *root;  /* level 2 */
	uint64_t *mid;   /* level 1 table for USER_BASE's gigabyte */
	uint64_t *leaf;  /* level 0 table: the task's 512 pages */
	uint64_t *ilets; /* level 0 table of the i-let stacks, or NULL while none is mapped */
	uint64_t *shm;   /* level 0 table of the shared windows, or NULL while none is mapped */
};

/* The leaf entry of user page va (either region), or NULL if it has no table. */
static inline uint64_t *as_pte(const struct address_space *as, uint64_t va)
{
	if (va >= USER_BASE && va < USER_BASE + USER_SPAN)
		return &as->leaf[(va >> 12) & 511];
	if (va >= ILET_BASE && va < ILET_BASE + USER_SPAN && as->ilets)
		return &as->ilets[(va >> 12) & 511];
	if (va >= SHM_BASE && va < SHM_BASE + USER_SPAN && as->shm)
		return &as->shm[(va >> 12) & 511];
	return 0;
}

/* Builds an empty address space (the kernel's identity map only); false without memory. */
bool as_create(struct address_space *as);
/* Maps the physical page pa at user address va with flags (PTE_R/W/X). */
bool as_map(struct address_space *as, uint64_t va, uint64_t pa, uint64_t flags);
/* The physical page behind a user page, or 0. */
uint64_t as_lookup(const struct address_space *as, uint64_t va);
/* Frees the tables and every mapped page, except those of the shared windows (their owner is
 * kernel/mm/shm.c, which the task's end tells). */
void as_destroy(struct address_space *as);
/* Fills as with the tables of the address space whose root table is at root_pa, without
 * owning them (an i-let runs in its owner's address space: never as_destroy it). */
void as_adopt(struct address_space *as, uint64_t root_pa);
/* Switches this hart to the address space (NULL: paging off) and flushes its TLB. */
void as_activate(const struct address_space *as);

#endif
