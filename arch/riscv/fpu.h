/*
 * The FPU of user tasks. The kernel is compiled without floating point (-mabi=lp64, no F/D in
 * -march): no kernel code touches f0..f31 or fcsr except the three routines below (fpu.S), so a
 * task's FP registers stay in the hart across its traps and kernel calls, and only a switch to
 * another task's context saves and restores them (kernel/task/utask.c, kernel/task/share/share.c).
 * sstatus.FS says what the hart's registers hold since the kernel last set it: Initial (zeroed),
 * Clean (as saved), Dirty (the task wrote one since: the hardware sets it).
 */
#ifndef ARCH_RISCV_FPU_H
#define ARCH_RISCV_FPU_H

/* sstatus.FS (plain numbers: fpu.S includes them too) */
#define SSTATUS_FS (3 << 13)
#define SSTATUS_FS_OFF (0 << 13)
#define SSTATUS_FS_INITIAL (1 << 13)
#define SSTATUS_FS_CLEAN (2 << 13)
#define SSTATUS_FS_DIRTY (3 << 13)

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stdbool.h>
#include "arch/riscv/csr.h"

/* f0..f31 (as 64-bit patterns) and fcsr: a task's FP context. fpu.S knows this layout. */
struct fpu_state {
	uint64_t f[32];
	uint64_t fcsr;
};
_Static_assert(sizeof(struct fpu_state) == 33 * 8, "fpu.S stores f0..f31, then fcsr");

/* Zeroes f0..f31 and fcsr; sstatus.FS becomes Initial. */
void fpu_zero(void);
/* Stores the hart's FP registers into s; sstatus.FS becomes Clean. */
void fpu_save(struct fpu_state *s);
/* Loads s into the hart's FP registers; sstatus.FS becomes Clean. */
void fpu_load(const struct fpu_state *s);

/* Whether the running task wrote an FP register or fcsr since the kernel last set sstatus.FS. */
static inline bool fpu_dirty(void) { return (csr_read(sstatus) & SSTATUS_FS) == SSTATUS_FS_DIRTY; }
#endif

#endif
