/*
 * What the device tree says about the machine, read once at boot by the boot
 * hart and read-only afterwards. Nothing here is hard-coded: if the device tree
 * changes (more memory, other harts, another UART address), so does Mosaic.
 */
#ifndef KERNEL_PLATFORM_H
#define KERNEL_PLATFORM_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"

#define PLATFORM_MAX_RESERVED 16

struct mem_range {
	uint64_t base;
	uint64_t size;
};

struct platform {
	const void *fdt;
	uint64_t fdt_size;

	unsigned dt_harts;                        /* harts the device tree lists (may exceed the maximum) */
	uint32_t hartids[MOSAIC_MAX_HARTS];       /* sorted; index = cpu id */
	uint32_t dt_hartid_beyond_max;            /* the first hart id we cannot manage, if dt_harts > max */
	bool sstc[MOSAIC_MAX_HARTS];              /* the hart's riscv,isa lists Sstc */
	uint32_t intc_phandle[MOSAIC_MAX_HARTS];  /* phandle of each hart's interrupt controller */

	struct mem_range memory;                  /* the first /memory range */
	struct mem_range reserved[PLATFORM_MAX_RESERVED];
	unsigned nreserved;

	uint64_t timebase_hz;

	uint64_t uart_base;
	uint32_t uart_reg_shift;
	uint32_t uart_irq;

	uint64_t plic_base;                       /* 0 if absent */
	int plic_s_context[MOSAIC_MAX_HARTS];     /* PLIC context of each cpu's S-mode, -1 if none */

	uint64_t test_base;                       /* sifive,test0 exit device, 0 if absent */

	uint64_t sswi_base;                       /* ACLINT S-mode software interrupts, 0 if absent */
	int sswi_index[MOSAIC_MAX_HARTS];         /* each cpu's SETSSIP register, -1 if none */

	const char *bootargs;                     /* /chosen/bootargs, "" if absent */

	/* The initrd QEMU loaded (-initrd: /chosen linux,initrd-start/end), the host's scenario
	 * file; size 0 if there is none or it is refused (initrd_error says why). */
	struct mem_range initrd;
	const char *initrd_error;
};

extern struct platform plat;

/* Fills plat from the device tree; returns an error message or NULL. */
const char *platform_init(const void *fdt);
/* Dense cpu id of a hart id, or -1. */
int platform_cpu_of_hartid(uint32_t hartid);

#endif
