/*
 * The Supervisor Binary Interface calls Mosaic uses (all of them live in sbi.c).
 */
#ifndef ARCH_RISCV_SBI_H
#define ARCH_RISCV_SBI_H

#include <stdint.h>

struct sbiret {
	long error;
	long value;
};

#define SBI_SUCCESS 0
#define SBI_ERR_FAILED -1
#define SBI_ERR_NOT_SUPPORTED -2
#define SBI_ERR_INVALID_PARAM -3
#define SBI_ERR_ALREADY_AVAILABLE -6

struct sbiret sbi_hart_start(unsigned long hartid, unsigned long start_addr, unsigned long opaque);
struct sbiret sbi_send_ipi(unsigned long hart_mask, unsigned long hart_mask_base);
struct sbiret sbi_set_timer(uint64_t stime_value);
void sbi_shutdown(void) __attribute__((noreturn));
const char *sbi_strerror(long error);

#endif
