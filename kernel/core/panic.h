/*
 * Panic: print what went wrong and where, stop every other hart, and make QEMU
 * exit with EXIT_PANIC so scripts and tests see the failure.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "arch/riscv/trap.h"

void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void panic_trap(struct trap_frame *f) __attribute__((noreturn));
/* Prints the frame-pointer chain starting at fp, naming each return address. */
void backtrace_print(uint64_t pc, uint64_t fp, uint64_t ra);

#define ASSERT(cond)                                                                     \
	do {                                                                             \
		if (!(cond))                                                             \
			panic("assertion failed: %s (%s:%d in %s)", #cond, __FILE__, __LINE__, \
			      __func__);                                                 \
	} while (0)

#endif
