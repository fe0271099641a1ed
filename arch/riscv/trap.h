/* Trap frames and the S-mode trap entry of every hart. */
#ifndef ARCH_RISCV_TRAP_H
#define ARCH_RISCV_TRAP_H

#include <stdint.h>

/* Saved by trap_vector in entry.S; regs[i] is register xi (regs[0] unused). */
struct trap_frame {
	uint64_t regs[32];
	uint64_t sepc;
	uint64_t sstatus;
	uint64_t scause;
	uint64_t stval;
};

#define REG_RA 1
#define REG_SP 2
#define REG_TP 4
#define REG_S0 8

/* Points stvec at trap_vector and enables the interrupts this hart takes. */
void trap_init_hart(void);
void trap_set_external_handler(void (*fn)(void));
const char *trap_cause_name(uint64_t scause);

#endif
