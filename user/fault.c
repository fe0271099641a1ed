/* fault: faults on purpose, in the way the argument picks; the kernel must kill it and carry on. */
#include <stdint.h>
#include "mosaic.h"

MOSAIC_ABOUT("faults on purpose; the kernel must kill it and carry on", "which fault: 0..6 (user/fault.c)");

int mosaic_main(long kind)
{
	volatile uint64_t *kernel = (volatile uint64_t *)0x80200000UL; /* the kernel image */
	volatile uint32_t word = 0;
	switch (kind) {
	case 0:
		*kernel = 1; /* store to kernel memory */
		break;
	case 1:
		return (int)*kernel; /* load from kernel memory */
	case 2:
		__asm__ volatile(".word 0xffffffff"); /* illegal instruction */
		break;
	case 3: {
		/* misaligned atomic: QEMU raises a misaligned-address exception for it */
		volatile uint32_t *odd = (volatile uint32_t *)((uintptr_t)&word + 1);
		__asm__ volatile("amoadd.w zero, %1, (%0)" ::"r"(odd), "r"(1) : "memory");
		break;
	}
	case 4:
		return (int)*(volatile uint64_t *)0x10001f0000UL; /* our own range, but never mapped */
	case 5:
		((void (*)(void))0x80200000UL)(); /* jump into the kernel */
		break;
	case 6: {
		/* die with a receive still posted: the kernel must withdraw it before freeing our pages */
		static char buf[64];
		mosaic_irecv(MOSAIC_ANY, 77, buf, sizeof buf);
		*kernel = 1;
		break;
	}
	}
	return 0; /* reached only if nothing faulted: the test sees exit 0 instead of a kill */
}
