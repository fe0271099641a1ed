/*
 * Every SBI call of the kernel, in one file (the pattern of Linux and seL4):
 * the rest of the kernel never issues an ecall to the firmware itself.
 */
#include "arch/riscv/sbi.h"

#define SBI_EXT_TIME 0x54494D45
#define SBI_EXT_IPI 0x735049
#define SBI_EXT_HSM 0x48534D
#define SBI_EXT_SRST 0x53525354

static struct sbiret sbi_call(long ext, long fid, unsigned long a0, unsigned long a1, unsigned long a2)
{
	register unsigned long r0 __asm__("a0") = a0;
	register unsigned long r1 __asm__("a1") = a1;
	register unsigned long r2 __asm__("a2") = a2;
	register unsigned long r6 __asm__("a6") = fid;
	register unsigned long r7 __asm__("a7") = ext;
	__asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
	return (struct sbiret){.error = (long)r0, .value = (long)r1};
}

struct sbiret sbi_hart_start(unsigned long hartid, unsigned long start_addr, unsigned long opaque)
{
	return sbi_call(SBI_EXT_HSM, 0, hartid, start_addr, opaque);
}

struct sbiret sbi_send_ipi(unsigned long hart_mask, unsigned long hart_mask_base)
{
	return sbi_call(SBI_EXT_IPI, 0, hart_mask, hart_mask_base, 0);
}

struct sbiret sbi_set_timer(uint64_t stime_value)
{
	return sbi_call(SBI_EXT_TIME, 0, stime_value, 0, 0);
}

void sbi_shutdown(void)
{
	sbi_call(SBI_EXT_SRST, 0, 0 /* shutdown */, 0, 0);
	for (;;)
		__asm__ volatile("wfi");
}

const char *sbi_strerror(long error)
{
	switch (error) {
	case SBI_SUCCESS: return "success";
	case SBI_ERR_FAILED: return "failed";
	case SBI_ERR_NOT_SUPPORTED: return "not supported";
	case SBI_ERR_INVALID_PARAM: return "invalid parameter";
	case -4: return "denied";
	case -5: return "invalid address";
	case SBI_ERR_ALREADY_AVAILABLE: return "already available";
	default: return "unknown SBI error";
	}
}
