/*
 * RISC-V supervisor CSRs and the few instructions C cannot express (wfi, fences,
 * interrupt masking). Drivers and the kernel core use the small inline helpers at
 * the end; writing CSRs directly stays in arch/ and the timer and IPI drivers.
 */
#ifndef ARCH_RISCV_CSR_H
#define ARCH_RISCV_CSR_H

#include <stdint.h>

#define SSTATUS_SIE (1UL << 1)
#define SSTATUS_SPIE (1UL << 5)
#define SSTATUS_SPP (1UL << 8)
#define SSTATUS_SUM (1UL << 18)

#define IRQ_S_SOFT 1
#define IRQ_S_TIMER 5
#define IRQ_S_EXT 9
#define SIE_SSIE (1UL << IRQ_S_SOFT)
#define SIE_STIE (1UL << IRQ_S_TIMER)
#define SIE_SEIE (1UL << IRQ_S_EXT)
#define SIP_STIP (1UL << IRQ_S_TIMER) /* the timer interrupt pending, in sip */

#define SCAUSE_INTERRUPT (1UL << 63)

#define CSR_STIMECMP "0x14D" /* Sstc; spelled as a number for assemblers that do not know the name */

#define csr_read(csr)                                          \
	({                                                     \
		uint64_t __v;                                  \
		__asm__ volatile("csrr %0, " #csr : "=r"(__v)); \
		__v;                                           \
	})
#define csr_write(csr, val) __asm__ volatile("csrw " #csr ", %0" ::"rK"((uint64_t)(val)) : "memory")
#define csr_set(csr, val) __asm__ volatile("csrs " #csr ", %0" ::"rK"((uint64_t)(val)) : "memory")
#define csr_clear(csr, val) __asm__ volatile("csrc " #csr ", %0" ::"rK"((uint64_t)(val)) : "memory")
/* Clears the bits and returns the register's value before. */
#define csr_read_clear(csr, val)                                                                  \
	({                                                                                        \
		uint64_t __old;                                                                   \
		__asm__ volatile("csrrc %0, " #csr ", %1" : "=r"(__old) : "rK"((uint64_t)(val)) : "memory"); \
		__old;                                                                            \
	})

static inline uint64_t read_time(void) { return csr_read(time); }
static inline uint64_t read_instret(void) { return csr_read(instret); }
static inline uint64_t read_cycle(void) { return csr_read(cycle); }

static inline void wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void fence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

/* Interrupt enable state of this hart, so critical sections nest. */
static inline uint64_t irq_save(void)
{
	uint64_t s;
	__asm__ volatile("csrrci %0, sstatus, 2" : "=r"(s)::"memory");
	return s & SSTATUS_SIE;
}
static inline void irq_restore(uint64_t s)
{
	if (s)
		csr_set(sstatus, SSTATUS_SIE);
}
static inline void irq_enable(void) { csr_set(sstatus, SSTATUS_SIE); }
static inline void irq_disable(void) { csr_clear(sstatus, SSTATUS_SIE); }

static inline void *read_fp(void)
{
	void *fp;
	__asm__ volatile("mv %0, s0" : "=r"(fp));
	return fp;
}

#endif
