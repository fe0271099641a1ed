/*
 * Per-hart instruction counts from the vclock QEMU plugin (vclock/, docs/time.md).
 * QEMU 7.2 gives a guest no per-hart instruction counter; the plugin counts each
 * hart's instructions itself and, when the hart executes the read marker, writes
 * the count into the hart's slot of vclock_table, which the hart then loads.
 * Without the plugin the slots keep VCLOCK_SENTINEL and vclock_present is false.
 */
#ifndef KERNEL_VCLOCK_H
#define KERNEL_VCLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/core/config.h"
#include "kernel/core/hart.h"
#include "arch/riscv/csr.h"
#include "vclock/vclock_abi.h"

#define VCLOCK_SLOTS MOSAIC_MAX_HARTS

/* Layout fixed by vclock/vclock_abi.h. Page-aligned in .bss: never on a page with code,
 * which would make QEMU check every store to it for self-modifying code. */
struct vclock_table {
	uint64_t magic;
	uint64_t nslots;
	uint64_t blocks_start, blocks_end; /* the block-counted code (linker.ld): the text but the fault probes */
	volatile uint64_t slot[VCLOCK_SLOTS]; /* indexed by hart id */
};
_Static_assert(__builtin_offsetof(struct vclock_table, blocks_start) == VCLOCK_TABLE_BLOCKS_START_OFF &&
		       __builtin_offsetof(struct vclock_table, blocks_end) == VCLOCK_TABLE_BLOCKS_END_OFF &&
		       __builtin_offsetof(struct vclock_table, slot) == VCLOCK_TABLE_SLOTS_OFF,
	       "struct vclock_table follows vclock/vclock_abi.h");
extern struct vclock_table vclock_table;

/* True once vclock_init found the plugin answering. */
extern bool vclock_present;

/* Prepares the table and introduces it to the plugin (boot hart, paging off, before
 * the other harts start), then checks whether the plugin answered. */
void vclock_init(void);

/* The pointer to this hart's slot, or NULL if its hart id has none. */
static inline volatile uint64_t *vclock_slot(void)
{
	uint32_t id = this_hart()->hartid;
	return id < VCLOCK_SLOTS ? &vclock_table.slot[id] : 0;
}

/*
 * This hart's own instruction count, exact: every instruction it began, in any
 * privilege mode, from QEMU's start up to and including the read marker inside this
 * function (rules in docs/time.md). VCLOCK_SENTINEL without the plugin.
 */
static inline uint64_t vclock_instret(void)
{
	volatile uint64_t *s = vclock_slot();
	if (!s)
		return VCLOCK_SENTINEL;
	__asm__ volatile("slti zero, zero, %0" ::"i"(VCLOCK_HINT_READ) : "memory");
	return *s;
}

/* This core's instructions for a measurement: exact from the plugin when it is loaded; else
 * the instret CSR, which under -icount is the machine's count (every hart's, docs/time.md). */
static inline uint64_t core_instructions(void)
{
	return vclock_present ? vclock_instret() : read_instret();
}

#endif
